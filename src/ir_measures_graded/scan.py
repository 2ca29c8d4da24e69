"""Runs evaluated query batch by query batch, in memory bounded by a batch, not by the run.

A lazy run — :func:`scan_run` over a file (TREC text, plain or gzip, standard input, Parquet,
Arrow IPC), a ``pyarrow.RecordBatchReader`` or any iterator of ``ScoredDoc`` named tuples (such as
``ir_measures.read_trec_run(path)``) — is read a block at a time. Each block is cut after its last
complete query; the rows of that last query are carried over to the next block, so every batch
holds whole queries and gives per-query values identical to the whole-input path.

A run whose queries are not contiguous (a query seen again after other queries) is still exact:
the queries seen again are noted, and at the end their rows — and only theirs — are read once more
(from the file, or from a temporary spool on disk for a stream or an iterator that cannot be
read twice) and evaluated together, replacing the partial values. That costs a second read of the
input plus the memory of those queries' rows.
"""

from __future__ import annotations

import inspect
import itertools
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.formats import BLOCK_SIZE, RUN, Block, is_stream, iter_blocks

ITERATOR_CHUNK = 200_000  # named tuples converted at a time
ROWS_PER_QUERY = 8  # a batch holds at least this many rows per judged query


class RunScan:
    """A run file read lazily, block by block; see :func:`scan_run`.

    Passed as the run to ``ir_measures`` (``calc_aggregate``, ``iter_calc``, an evaluator), our
    measures evaluate it in query batches; other providers iterate it as ``ScoredDoc`` tuples.
    """

    def __init__(self, path: str | os.PathLike, columns: Mapping[str, str] | None = None,
                 block_size: int = BLOCK_SIZE, progress: Any = None):
        self.path = path
        self.columns = dict(columns) if columns else None
        self.block_size = block_size
        self.progress = progress
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
        return iter_blocks(self.path, RUN, self.columns, self.block_size, self.progress)

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


def is_streamable(run: Any) -> bool:
    """Inputs evaluated batch by batch: scans, Arrow record batch readers and one-shot iterators."""
    if isinstance(run, RunScan):
        return True
    if type(run).__module__.startswith("pyarrow") and hasattr(run, "read_next_batch"):
        return True
    return isinstance(run, Iterator) and not isinstance(run, (str, bytes, Mapping))


# --- sources of blocks ----------------------------------------------------------------------------

def _source(run: Any) -> tuple[Any, bool]:
    """``(make_blocks, rereadable)``: a function returning a fresh iterator of blocks."""
    if inspect.isgenerator(run):
        path = _read_trec_run_path(run)
        if path is not None:  # ir_measures.read_trec_run(path), not started: read the file ourselves
            run.close()
            run = RunScan(path)
    if isinstance(run, RunScan):
        return run.blocks, run.rereadable
    if hasattr(run, "read_next_batch"):
        return (lambda: _arrow_blocks(run)), False
    return (lambda: _tuple_blocks(run)), False


def _read_trec_run_path(generator: Any) -> str | None:
    import ir_measures

    if generator.gi_code is not ir_measures.read_trec_run.__code__:
        return None
    if inspect.getgeneratorstate(generator) != inspect.GEN_CREATED:
        return None
    file = generator.gi_frame.f_locals.get("file")
    if isinstance(file, str) and "\n" not in file and os.path.isfile(file):
        return file
    return None


def _arrow_blocks(reader: Any) -> Iterator[Block]:
    import pyarrow as pa

    from ir_measures_graded.inputs import run_columns

    row = 0
    for batch in reader:
        table = pa.Table.from_batches([batch])
        cols = run_columns(table)  # validates: string ids, finite numbers, no duplicate inside the batch
        yield Block(_block_table(cols), row, unit="row")
        row += batch.num_rows


def _tuple_blocks(run: Iterator) -> Iterator[Block]:
    from ir_measures_graded.inputs import run_columns

    row = 0
    while True:
        chunk = list(itertools.islice(run, ITERATOR_CHUNK))
        if not chunk:
            return
        try:
            cols = run_columns(chunk)
        except GradedInputError as ex:
            raise GradedInputError(str(ex).replace("run row ", "run item ", 1) + f" (chunk at item {row})") from None
        yield Block(_block_table(cols), row, unit="row")
        row += len(chunk)


def _block_table(cols: Any) -> Any:
    import pyarrow as pa

    return pa.table({"query_id": pa.array(cols.query_ids.tolist(), pa.string()).take(pa.array(cols.query_codes)),
                     "doc_id": cols.doc_ids.take(pa.array(cols.doc_codes)),
                     "value": pa.array(cols.values)})


# --- batches of whole queries ---------------------------------------------------------------------

@dataclass
class QueryBatch:
    """Rows of whole queries (up to queries seen again later): the unit evaluated at once."""

    table: Any  # query_id, doc_id (strings), value (float64)
    lines: np.ndarray  # line (text) or row (other inputs) of each row, for messages
    unit: str  # "line" or "row"


def query_batches(blocks: Iterator[Block], min_rows: int = 0) -> Iterator[QueryBatch]:
    """Blocks regrouped so that a batch ends where a query ends (the last query is carried over)
    and holds at least ``min_rows`` rows (but for the last)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    carry, carry_lines, unit = None, None, "line"
    for block in blocks:
        n = block.table.num_rows
        lines = block.lines if block.lines is not None else block.first_line + np.arange(n, dtype=np.int64)
        unit = block.unit
        table = block.table if carry is None else pa.concat_tables([carry, block.table]).combine_chunks()
        lines = lines if carry_lines is None else np.concatenate([carry_lines, lines])
        codes = pc.dictionary_encode(table.column("query_id")).combine_chunks().indices.to_numpy()
        change = np.flatnonzero(codes[1:] != codes[:-1])
        if not len(change) or table.num_rows < min_rows:  # one query so far, or too few rows: read on
            carry, carry_lines = table, lines
            continue
        cut = int(change[-1]) + 1
        yield QueryBatch(table.slice(0, cut), lines[:cut], unit)
        carry, carry_lines = table.slice(cut), lines[cut:]
    if carry is not None and carry.num_rows:
        yield QueryBatch(carry, carry_lines, unit)


# --- evaluation -----------------------------------------------------------------------------------

def iter_metrics(measures: list, judgments: Any, run: Any, name: str | None = None) -> Iterator[Any]:
    """Per-query ``Metric`` values of ``measures`` for a streamable ``run``, batch by batch.

    Values are held per judged query until the end (a query seen again changes them), then
    yielded measure by measure in query-code order, as the whole-input path does.
    """
    from ir_measures import Metric

    scan = run if isinstance(run, RunScan) else None
    make_blocks, rereadable = _source(run)
    name = name or (str(run.path) if isinstance(run, RunScan) else "run")
    rows = 0
    values = np.zeros((len(measures), judgments.n_queries), dtype=object)  # a value may be more than a float
    present = np.zeros(judgments.n_queries, dtype=bool)
    seen: set[str] = set()
    again: set[str] = set()
    spool = None if rereadable else _Spool()
    try:
        blocks = make_blocks() if spool is None else spool.tee(make_blocks())
        # A batch costs some work per judged query too: with many queries, batches grow with them.
        for batch in query_batches(prefetch(blocks), min_rows=ROWS_PER_QUERY * judgments.n_queries):
            rows += batch.table.num_rows
            ids = _evaluate(batch, measures, judgments, values, present, name)
            repeated = seen.intersection(ids)
            again.update(repeated)
            seen.update(ids)
        if again:
            rows = _rows_of(make_blocks() if spool is None else spool.blocks(), again)
            _evaluate(rows, measures, judgments, values, present, name)
    finally:
        if spool is not None:
            spool.close()
    query_ids = judgments.query_ids
    codes = np.flatnonzero(present)
    if scan is not None:
        scan.rows, scan.matched = rows, len(codes)
    absent = _absent_values(measures, judgments, present)
    for i, measure in enumerate(measures):
        yielded = dict(zip(codes.tolist(), values[i, codes].tolist(), strict=True))
        yielded.update(absent[i])
        for q in sorted(yielded):
            yield Metric(query_id=query_ids[q], measure=measure, value=yielded[q])


def _absent_values(measures: list, judgments: Any, present: np.ndarray) -> list[dict[int, Any]]:
    """Values some measures give judged queries the run lacks (collection-level µAP: more than a
    float), from a ranking holding no row; others leave those queries to ir_measures' default."""
    from ir_measures_graded.prepare import Ranking

    empty = Ranking(query=np.zeros(0, dtype=np.int64), rank=np.zeros(0, dtype=np.int64),
                    label=np.zeros(0), present=np.zeros(judgments.n_queries, dtype=bool))
    return [{q: v for q, v in _results(measure, judgments, empty) if not present[q]} for measure in measures]


def _evaluate(batch: QueryBatch, measures: list, judgments: Any, values: np.ndarray, present: np.ndarray,
              name: str) -> list[str]:
    """Evaluate one batch into ``values``; returns the batch's distinct query ids."""
    import pyarrow.compute as pc

    from ir_measures_graded.inputs import first_duplicate_strings, string_hashes
    from ir_measures_graded.prepare import Ranking

    query = pc.dictionary_encode(batch.table.column("query_id")).combine_chunks()
    docs = batch.table.column("doc_id").combine_chunks()
    query_codes = query.indices.to_numpy().astype(np.int64)
    hashes = string_hashes(docs)
    pair = first_duplicate_strings(query_codes, docs, hashes)
    if pair is not None:
        first, second = (int(batch.lines[r]) for r in pair)
        where = f"{name}:{second}" if batch.unit == "line" else f"{name}: row {second}"
        raise GradedInputError(
            f"{where}: query {query.dictionary[int(query_codes[pair[0]])].as_py()!r}, doc "
            f"{docs[pair[0]].as_py()!r} appears again (first at "
            f"{batch.unit} {first}); each (query, doc) may appear once in a run file")
    score = batch.table.column("value").to_numpy()
    ranking = Ranking.from_codes(query_codes, query.dictionary, None, docs, score, judgments, hashes)
    rankings = {False: ranking}
    here = ranking.present
    for i, measure in enumerate(measures):
        judged_only = bool(measure["judged_only"])
        if judged_only not in rankings:
            rankings[judged_only] = ranking.judged_only()
        for q, value in _results(measure, judgments, rankings[judged_only]):
            if here[q]:  # a measure may also yield queries the batch lacks (their value comes at the end)
                values[i, q] = value
    present |= here
    return query.dictionary.to_pylist()


def prefetch(items: Iterator[Any], depth: int = 1) -> Iterator[Any]:
    """``items``, produced one step ahead in a thread: parsing the next block (pyarrow's parser
    releases the GIL) overlaps with evaluating this one. Errors reach the consumer."""
    import queue
    import threading

    done = object()
    ready: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    failure: list[BaseException] = []

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put(item):
                    return
        except BaseException as ex:  # handed to the consumer
            failure.append(ex)
        put(done)

    worker = threading.Thread(target=produce, name="ir_measures_graded-reader", daemon=True)
    worker.start()
    try:
        while True:
            item = ready.get()
            if item is done:
                break
            yield item
        if failure:
            raise failure[0]
    finally:
        stop.set()
        worker.join()


def _results(measure: Any, judgments: Any, ranking: Any) -> Iterator[tuple[int, Any]]:
    """``(query code, value)`` for the queries the ranking holds, as the measure yields them."""
    results = getattr(measure, "results", None)  # measures that compute their own values
    if results is not None:
        yield from results(judgments, ranking)
        return
    from ir_measures_graded.provider import measure_values

    values = measure_values(measure, judgments, ranking)
    present = np.flatnonzero(ranking.present)
    yield from zip(present.tolist(), values[present].tolist(), strict=True)


def _rows_of(blocks: Iterator[Block], queries: set[str]) -> QueryBatch:
    """All rows of ``queries``, gathered from a second pass over the input."""
    import pyarrow as pa
    import pyarrow.compute as pc

    wanted = pa.array(sorted(queries), pa.string())
    tables, lines, unit = [], [], "line"
    for block in blocks:
        unit = block.unit
        keep = pc.is_in(block.table.column("query_id"), value_set=wanted)
        rows = np.flatnonzero(keep.to_numpy(zero_copy_only=False))
        if len(rows):
            tables.append(block.table.take(pa.array(rows)))
            lines.append(block.lines[rows] if block.lines is not None else block.first_line + rows)
    table = pa.concat_tables(tables).combine_chunks()
    return QueryBatch(table, np.concatenate(lines), unit)


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
            table = block.table.append_column("line", pa.array(lines))
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
                lines = batch.column("line").to_numpy()
                yield Block(pa.Table.from_batches([batch.drop_columns(["line"])]), int(lines[0]), lines, self._unit)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._file.close()
        os.unlink(self._file.name)
