"""Reading: every input (TREC text, Parquet, Arrow IPC, in-memory objects, streams) into validated columns.

    ids.py       identifiers: strings, dictionary codes, hashes, duplicate detection and its message
    columns.py   in-memory objects (pandas, dicts, named tuples, Arrow, polars) -> Columns
    tuples.py    named tuples (lists, generators such as ir_measures.read_trec_run) -> Arrow, a chunk at a time
    trec.py      TREC text: the field layouts and the block parser
    columnar.py  Parquet and Arrow IPC record batches
    readers.py   files -> blocks or whole Arrow tables (read_qrels, read_run, ...)
    stream.py    blocks -> batches of whole queries (scan_run), spool, Prefetch (reading ahead in a thread)

Importing this package loads nothing heavy; the readers load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ir_measures_graded.lazy import lazy_attributes

if TYPE_CHECKING:  # loaded on first use, see _LAZY
    from ir_measures_graded.io.readers import read_qrels, read_qrels_table, read_run, read_run_table
    from ir_measures_graded.io.stream import scan_run

_LAZY = {
    "read_qrels": "ir_measures_graded.io.readers",
    "read_run": "ir_measures_graded.io.readers",
    "read_qrels_table": "ir_measures_graded.io.readers",
    "read_run_table": "ir_measures_graded.io.readers",
    "scan_run": "ir_measures_graded.io.stream",
}

__all__ = ["read_qrels", "read_run", "read_qrels_table", "read_run_table", "scan_run"]

__getattr__ = lazy_attributes(__name__, _LAZY)
