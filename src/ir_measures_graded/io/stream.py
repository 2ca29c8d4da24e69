"""Runs read query batch by query batch, in memory bounded by a batch, not by the run (evaluated by :mod:`..core`).

A lazy run — :func:`scan_run` over a file (TREC text, plain or gzip, standard input, Parquet,
Arrow IPC), a ``pyarrow.RecordBatchReader`` or any iterator of ``ScoredDoc`` named tuples (such as
``ir_measures.read_trec_run(path)``, converted a small chunk at a time by :mod:`.tuples`; wrapped
in :class:`RunStream` by the local engine, which reads its counts) — is read a block at a time.
Each block is cut after its last complete query; the rows of that last query are carried over to
the next block, so every batch holds whole queries and gives per-query values identical to the
whole-input path.

A run whose queries are not contiguous (a query seen again after other queries) is still exact:
the queries seen again are noted, and at the end their rows — and only theirs — are read once more
(from the file, or from a temporary spool on disk for a stream or an iterator that cannot be
read twice) and evaluated together, replacing the partial values. That costs a second read of the
input plus the memory of those queries' rows.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ir_measures_graded.arrow import from_numpy, from_strings, to_numpy
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.columnar import record_blocks
from ir_measures_graded.io.readers import is_stream, iter_blocks
from ir_measures_graded.io.trec import BLOCK_SIZE, RUN, Block

ROWS_PER_QUERY = 8  # a batch holds at least this many rows per judged query


class RunScan:
    """A run file read lazily, block by block; see :func:`scan_run`.

    Passed as the run to ``ir_measures`` (``calc_aggregate``, ``iter_calc``, an evaluator), our
    measures evaluate it in query batches; other providers iterate it as ``ScoredDoc`` tuples.
    """

    def __init__(self, path: str | os.PathLike, columns: Mapping[str, str] | None = None,
                 block_size: int = BLOCK_SIZE, progress: Any = None, meter: Any = None, depth: int | None = None):
        self.path = path
        self.depth = depth  # our measures read only the top ``depth`` rows of each query (trec_eval's -M); None: all
        self.columns = dict(columns) if columns else None
        self.block_size = block_size
        self.progress = progress
        self.meter = meter  # an inputs.Meter: the run's tag, bytes read (and hash) as it is read
        self.rereadable = not is_stream(path)
        self._used = False
        self.rows = 0  # after an evaluation: rows read, and how many queries the qrels know
        self.matched = 0

    def __repr__(self) -> str:
        return f"scan_run({str(self.path)!r})"

    def blocks(self) -> Iterator[Block]:
        if not self.rereadable:
            if self._used:
                raise GradedInputError(f"run {self.path} is a stream and was already read")
            self._used = True
        return iter_blocks(self.path, RUN, self.columns, self.block_size, self.progress, self.meter)

    def __iter__(self) -> Iterator[Any]:
        from ir_measures import ScoredDoc

        for block in self.blocks():
            columns = [block.table.column(i).to_pylist() for i in range(3)]
            yield from itertools.starmap(ScoredDoc, zip(*columns, strict=True))


def scan_run(path: str | os.PathLike, *, columns: Mapping[str, str] | None = None,
             block_size: int = BLOCK_SIZE) -> RunScan:
    """A lazy run over a file, evaluated by our measures in query batches (bounded memory).

    ``path``: a TREC run (plain or gzip), ``-`` for standard input, a Parquet or Arrow IPC file
    (columns ``query_id``, ``doc_id``, ``score`` unless ``columns`` maps them to other names).
    """
    return RunScan(path, columns=columns, block_size=block_size)


class RunStream:
    """A one-shot run in memory — an iterator of ``ScoredDoc`` named tuples (``ir_measures.read_trec_run(path)``,
    a generator) or an Arrow record batch reader — evaluated by query batches as :class:`RunScan`
    is; after an evaluation, rows read and how many queries the qrels know."""

    def __init__(self, run: Any, depth: int | None = None):
        self.run = run
        self.depth = depth  # as RunScan's
        self.rows = 0
        self.matched = 0


class HeldRun:
    """A run read whole already (an Arrow table of :mod:`.readers`: ``query_id``, ``doc_id``,
    ``score``, checked), evaluated by query batches as a file is: beside the table, memory holds a
    batch's work, not the whole run's. Rows are numbered from 0; the table is read again (not
    spooled) for the queries seen again."""

    def __init__(self, table: Any, block_rows: int = 1 << 18):
        self.table = table
        self.block_rows = block_rows
        self.rows = 0
        self.matched = 0

    def blocks(self) -> Iterator[Block]:
        import pyarrow as pa

        for start in range(0, self.table.num_rows, self.block_rows):
            part = self.table.slice(start, self.block_rows)
            query = part.column("query_id")
            if hasattr(query.type, "value_type"):  # dictionary-encoded: the block's own ids, as a file's
                query = query.cast(query.type.value_type)
            yield Block(pa.table({"query_id": query, "doc_id": part.column("doc_id"), "value": part.column(2)}),
                        start, None, "row")


def is_streamable(run: Any) -> bool:
    """Inputs evaluated batch by batch: scans, Arrow record batch readers and one-shot iterators."""
    if isinstance(run, (RunScan, RunStream, HeldRun)):
        return True
    if type(run).__module__.startswith("pyarrow") and hasattr(run, "read_next_batch"):
        return True
    return isinstance(run, Iterator) and not isinstance(run, (str, bytes, Mapping))


# --- sources of blocks ----------------------------------------------------------------------------

class BatchSource:
    """A streamable run as batches of whole queries, and a second pass for queries seen again.

    A stream or an iterator that cannot be read twice is spooled to a temporary file as it is read.
    Use as a context manager (the spool is removed at the end).
    """

    def __init__(self, run: Any):
        self.make_blocks, rereadable = _source(run.run if isinstance(run, RunStream) else run)
        self.name = str(run.path) if isinstance(run, RunScan) else None  # None: an object, rows numbered from 0
        self.spool = None if rereadable else _Spool()

    def __enter__(self) -> BatchSource:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.spool is not None:
            self.spool.close()

    def batches(self, min_rows: int = 0) -> Prefetch:
        """Batches of whole queries, each of at least ``min_rows`` rows, made one step ahead by two
        threads started now, while the caller evaluates the batch before: one parses blocks, the
        other cuts, encodes and hashes them into batches (each about a third of the work on long
        ids; one thread for both left the evaluating thread waiting)."""
        blocks = self.make_blocks() if self.spool is None else self.spool.tee(self.make_blocks())
        return Prefetch(query_batches(Prefetch(blocks), min_rows=min_rows))

    def rows_of(self, queries: set[str]) -> QueryBatch:
        """Every row of ``queries`` (a second pass over the input, or over the spool)."""
        return _rows_of(self.make_blocks() if self.spool is None else self.spool.blocks(), queries)


def _source(run: Any) -> tuple[Any, bool]:
    """``(make_blocks, rereadable)``: a function returning a fresh iterator of blocks."""
    if isinstance(run, RunScan):
        return run.blocks, run.rereadable
    if isinstance(run, HeldRun):
        return run.blocks, True
    if hasattr(run, "read_next_batch"):
        from ir_measures_graded.io.tuples import read_once

        read_once(run, "run")
        return (lambda: _arrow_blocks(run)), False
    from ir_measures_graded.io.tuples import tuple_blocks

    return (lambda: tuple_blocks(run, "run", "score")), False



def _arrow_blocks(reader: Any) -> Iterator[Block]:
    """Record batches checked as Parquet's are (the same column checks), handed on as they are."""
    return record_blocks(reader, "run", RUN)


# --- batches of whole queries ---------------------------------------------------------------------

@dataclass
class QueryBatch:
    """Rows of whole queries (up to queries seen again later): the unit evaluated at once, with what
    evaluating it starts from (encoded and checked for duplicates where the batch is made: in the
    reading thread)."""

    table: Any  # query_id, doc_id (strings), value (float64)
    lines: np.ndarray  # line (text) or row (other inputs) of each row, for messages
    unit: str  # "line" or "row"
    query_ids: Any  # distinct query ids (Arrow strings)
    query_codes: np.ndarray  # int64 per row: index into query_ids
    doc_ids: Any  # per row (Arrow strings, a chunked array)
    doc_keys: np.ndarray  # per row: the doc id's 64-bit key (io.ids.id_keys), for the duplicate check and the join
    duplicate: tuple[int, int] | None  # the rows of the first (query, doc) given twice in the batch

    @classmethod
    def of(cls, table: Any, lines: np.ndarray, unit: str, queries: tuple[Any, np.ndarray] | None = None) -> QueryBatch:
        """``queries``: the query column already encoded, ``(distinct ids, codes)``, if it is."""
        from ir_measures_graded.io.ids import first_duplicate_ids, id_keys

        query_ids, codes = queries if queries is not None else _encoded_queries(table)
        docs = table.column("doc_id")  # chunked (the carried rows, the block's): not copied into one chunk
        keys = id_keys(docs)
        return cls(table, lines, unit, query_ids, codes, docs, keys, first_duplicate_ids(codes, docs, keys))


def _encoded_queries(table: Any) -> tuple[Any, np.ndarray]:
    """The distinct query ids of ``table`` in order of first appearance, and each row's code (int64)."""
    import pyarrow.compute as pc

    query = pc.dictionary_encode(table.column("query_id")).combine_chunks()
    return query.dictionary, to_numpy(query.indices).astype(np.int64)


def query_batches(blocks: Iterator[Block], min_rows: int = 0) -> Iterator[QueryBatch]:
    """Blocks regrouped so that a batch ends where a query ends (the last query is carried over)
    and holds at least ``min_rows`` rows (but for the last)."""
    import pyarrow as pa

    carry, carry_lines, unit = None, None, "line"
    for block in blocks:
        n = block.table.num_rows
        lines = block.lines if block.lines is not None else block.first_line + np.arange(n, dtype=np.int64)
        unit = block.unit
        # the carried rows and the block as two chunks, not copied into one
        table = block.table if carry is None else pa.concat_tables([carry, block.table])
        lines = lines if carry_lines is None else np.concatenate([carry_lines, lines])
        query_ids, codes = _encoded_queries(table)
        change = np.flatnonzero(codes[1:] != codes[:-1])
        if not len(change) or table.num_rows < min_rows:  # one query so far, or too few rows: read on
            carry, carry_lines = table, lines
            continue
        cut = int(change[-1]) + 1
        # Codes count up in order of first appearance, so the rows before the cut use exactly the
        # first max + 1 ids: the batch keeps this encoding (the carried rows are encoded again).
        head = codes[:cut]
        queries = (query_ids.slice(0, int(head.max()) + 1), head)
        yield QueryBatch.of(table.slice(0, cut), lines[:cut], unit, queries)
        carry, carry_lines = table.slice(cut), lines[cut:]
    if carry is not None and carry.num_rows:
        yield QueryBatch.of(carry, carry_lines, unit)


class Prefetch:
    """``items``, produced one step ahead in a thread started at once: parsing the next block
    (pyarrow's parser releases the GIL) overlaps with evaluating this one, and the first is read
    while the caller prepares. Iterate once; errors reach the consumer. ``close()`` (or leaving
    the ``with`` block) stops the thread, iterated to the end or not."""

    def __init__(self, items: Iterator[Any], depth: int = 1):
        import queue
        import threading

        self._items = items
        self._ready: queue.Queue = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._failure: list[BaseException] = []
        self._done = object()
        self._worker = threading.Thread(target=self._produce, name="ir_measures_graded-reader", daemon=True)
        self._worker.start()

    def _put(self, item: Any) -> bool:
        import queue

        while not self._stop.is_set():
            try:
                self._ready.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self) -> None:
        try:
            for item in self._items:
                if not self._put(item):
                    return
        except BaseException as ex:  # handed to the consumer
            self._failure.append(ex)
        self._put(self._done)

    def __iter__(self) -> Iterator[Any]:
        try:
            while True:
                item = self._ready.get()
                if item is self._done:
                    break
                yield item
            if self._failure:
                raise self._failure[0]
        finally:
            self.close()

    def close(self) -> None:
        self._stop.set()
        self._worker.join()

    def __enter__(self) -> Prefetch:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _rows_of(blocks: Iterator[Block], queries: set[str]) -> QueryBatch:
    """All rows of ``queries``, gathered from a second pass over the input."""
    import pyarrow as pa
    import pyarrow.compute as pc

    wanted = from_strings(sorted(queries))
    tables, lines, unit = [], [], "line"
    for block in blocks:
        unit = block.unit
        keep = pc.is_in(block.table.column("query_id"), value_set=wanted)
        rows = np.flatnonzero(to_numpy(keep))
        if len(rows):
            tables.append(block.table.take(from_numpy(rows)))
            lines.append(block.lines[rows] if block.lines is not None else block.first_line + rows)
    table = pa.concat_tables(tables).combine_chunks()
    return QueryBatch.of(table, np.concatenate(lines), unit)


class _Spool:
    """Blocks of a one-shot input written to a temporary Arrow IPC file while they are evaluated."""

    def __init__(self) -> None:
        self._file = tempfile.NamedTemporaryFile(prefix="ir_measures_graded-", suffix=".arrows", delete=False)
        self._writer = None
        self._unit = "row"

    def tee(self, blocks: Iterator[Block]) -> Iterator[Block]:
        import pyarrow as pa

        for block in blocks:
            n = block.table.num_rows
            lines = block.lines if block.lines is not None else block.first_line + np.arange(n, dtype=np.int64)
            table = block.table.append_column("line", from_numpy(lines))
            if self._writer is None:
                self._writer = pa.ipc.new_stream(self._file, table.schema)
                self._unit = block.unit
            self._writer.write_table(table)
            yield block

    def blocks(self) -> Iterator[Block]:
        import pyarrow as pa

        if self._writer is None:
            return
        self._writer.close()
        self._writer = None
        self._file.flush()
        with pa.memory_map(self._file.name) as source:
            for batch in pa.ipc.open_stream(source):
                lines = to_numpy(batch.column("line"))
                yield Block(pa.Table.from_batches([batch.drop_columns(["line"])]), int(lines[0]), lines, self._unit)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._file.close()
        os.unlink(self._file.name)
