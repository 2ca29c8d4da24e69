"""Qrels named on a command line or in Python: a file (TREC text, gzip, Parquet, Arrow IPC; ``-`` for
standard input) or an ir_datasets id. The one place a qrels argument becomes a table: above the
readers (:mod:`.io`) and the collections (:mod:`.datasets`), which it both uses."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.inputs import Input

__all__ = ["load_qrels", "read_qrels", "read_input"]


def load_qrels(spec: str | os.PathLike, columns: Mapping[str, str] | None = None) -> Any:
    """The qrels ``spec`` names: an Arrow table from a file, a DataFrame from an ir_datasets id."""
    return read_qrels(spec, columns).data


def read_qrels(spec: str | os.PathLike, columns: Mapping[str, str] | None = None, small: bool = False) -> Input:
    """The qrels ``spec`` names, read once: an :class:`~.io.inputs.Input` holding an Arrow table from a
    file (with the SHA-256 of its bytes, computed while they were read) or a DataFrame from an
    ir_datasets id. With ``small``, a small TREC file is read by the numpy-only reader (:mod:`.io.small`:
    its columns)."""
    from ir_measures_graded.io.inputs import Meter

    spec = os.fspath(spec)
    columns = dict(columns or {})
    if os.path.isdir(spec):
        raise GradedInputError(f"qrels {spec} is a directory, not a file")
    if spec == "-" or os.path.exists(spec):
        if small:
            from ir_measures_graded.io.small import read_small
            from ir_measures_graded.io.trec import QRELS

            meter = Meter()
            found = read_small(spec, QRELS, meter)
            if found is not None:
                return Input("qrels", spec, found, meter.hexdigest(), len(found), meter.size, columns=columns)
        return read_input(spec, "qrels", columns)  # the Arrow reader (which reads and hashes the file itself)
    import pandas as pd

    frame = pd.DataFrame(qrels_dataset(spec).qrels_iter())
    return Input("qrels", spec, frame, rows=len(frame), columns=columns)


def qrels_dataset(spec: str) -> Any:
    """The ir_datasets dataset of qrels ``spec`` names when it is no file (nothing is downloaded yet); the
    one message of each engine otherwise: the id is unknown, ir_datasets is not installed, or the
    dataset has no qrels."""
    try:
        import ir_datasets
    except ImportError:
        raise GradedInputError(f"qrels file not found: {spec} (ir_datasets ids need the 'datasets' extra: "
                               "pip install 'ir-measures-graded[datasets]')") from None

    import ir_measures_graded.datasets.ohsumed  # noqa: F401  (registers our collections)

    try:
        dataset = ir_datasets.load(spec)
    except KeyError:
        raise GradedInputError(f"qrels not found: {spec!r} is neither a file nor an ir_datasets id") from None
    if not dataset.has_qrels():
        raise GradedInputError(f"ir_datasets id {spec!r} has no qrels")
    return dataset


def qrels_frame(qrels: Any, columns: Mapping[str, str] | None = None) -> Any:
    """The qrels as a pandas DataFrame ``query_id``, ``doc_id``, ``relevance`` (e.g. to relabel them),
    from a path, an ir_datasets id or any qrels in memory."""
    import numpy as np
    import pandas as pd

    from ir_measures_graded.io.columns import qrels_columns
    from ir_measures_graded.io.ids import as_strings

    if isinstance(qrels, (str, os.PathLike)):
        qrels = load_qrels(qrels, columns)
    if isinstance(qrels, pd.DataFrame) and {"query_id", "doc_id", "relevance"} <= set(qrels.columns):
        return qrels[["query_id", "doc_id", "relevance"]]
    cols = qrels_columns(qrels)
    if isinstance(cols.doc_ids, np.ndarray):  # the small-file reader's bytes ids
        docs = np.array([d.decode() for d in cols.doc_ids.tolist()], dtype=object)[cols.doc_codes]
    else:
        docs = as_strings(cols.doc_ids).to_numpy(zero_copy_only=False)[cols.doc_codes]
    queries = cols.query_ids.astype(str)[cols.query_codes]
    return pd.DataFrame({"query_id": queries, "doc_id": docs, "relevance": cols.values})


def read_input(path: Any, kind: str = "run", columns: Mapping[str, str] | None = None) -> Input:
    """The file ``path`` (a run or qrels: TREC text, plain or compressed, Parquet, Arrow IPC, ``-``) read once
    and whole into an :class:`Input`: the table kept, the bytes' SHA-256, size and a run's tag metered as read."""
    from ir_measures_graded.io import readers
    from ir_measures_graded.io.inputs import Meter

    meter = Meter()
    read = readers.read_run_table if kind == "run" else readers.read_qrels_table
    table = read(path, columns, meter=meter)
    return Input(kind, os.fspath(path), table, meter.hexdigest(), table.num_rows, meter.size,
                 meter.tag if kind == "run" else None, dict(columns or {}))
