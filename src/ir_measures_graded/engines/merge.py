"""Qrels and one run read in step, query by query (a merge by query): memory bounded by a batch of
queries, not by the collection, when both files come grouped by query (as exports and TREC files do).

The run is read by batches of whole queries (:mod:`..io.stream`); for each batch the qrels are read on,
a block at a time, until every query of the batch has its judgments complete (a query's lines are
complete once another query follows them) or the file ends. The batch is evaluated against the
judgments of its own queries, and both are dropped. Whether the qrels are grouped is seen while they
are read, in the same single pass: a query whose lines come again after another query's is noted.

Values are those of the whole-qrels path on every input, grouped or not: a query whose judgments
grow after it was evaluated (qrels not grouped, or a run query the qrels had not reached yet) and a
run query seen again after other queries (a run not grouped) are evaluated again at the end, all of
their rows together — the run's read again as :mod:`..io.stream` does, the judgments from a spool of
the qrels written while they were read (the qrels file is opened once). Values are gathered by the
qrels' order of queries, as the whole path yields them, so every aggregate is the same sum.

Only where nothing of a query's value depends on other queries (no measure ``uses_collection``),
for one run file and our measures alone; everything else is evaluated by the whole-qrels path.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import ir_measures
import numpy as np

from ir_measures_graded.arrow import from_numpy, from_strings, to_numpy
from ir_measures_graded.engines import Request
from ir_measures_graded.io.trec import BLOCK_SIZE
from ir_measures_graded.measures import GradedMeasure
from ir_measures_graded.provider import GradedProvider
from ir_measures_graded.pytrec import Gathered

__all__ = ["applies", "MergeReport", "evaluate_merged", "RUN_BATCH_ROWS"]

#: The merge reads qrels of at least this share of the run's bytes (a recommender's: about half): smaller
#: qrels (a TREC collection's, 150 judgments for 1,000 ranked documents: a tenth) cost less held whole
#: than read in step (a batch's judgments prepared again for each batch).
QRELS_SHARE = 0.25
#: Run rows evaluated at a time (whole queries): the batch, its judgments and their join are the peak.
RUN_BATCH_ROWS = 1 << 17
#: Bytes of run text parsed at a time (a batch is at least a block's whole queries).
RUN_BLOCK_BYTES = BLOCK_SIZE
#: Bytes of qrels text parsed at a time: the judgments read ahead of the run are about a block.
QRELS_BLOCK_BYTES = 1 << 20


def applies(request: Request) -> bool:
    """Whether the request is evaluated by the merge: one run file and qrels file (neither standard
    input), qrels larger than the small-file reader takes and at least :data:`QRELS_SHARE` of the run's
    bytes, our measures alone, none of which takes anything from the whole qrels, no depth, and nothing kept."""
    from ir_measures_graded.io.small import limit

    if request.keep or len(request.runs) != 1 or request.provider not in (None, GradedProvider.NAME):
        return False
    if request.depth is not None:  # trec_eval's -M: the run is cut as the other paths cut it
        return False
    run, qrels = request.runs[0], request.qrels
    if not (isinstance(run, str) and isinstance(qrels, str) and "-" not in (run, qrels)):
        return False
    if not (os.path.isfile(qrels) and os.path.isfile(run)):
        return False
    size = os.path.getsize(qrels)
    if size <= limit() or size < QRELS_SHARE * os.path.getsize(run):
        return False
    return all(isinstance(m, GradedMeasure) and not m.uses_collection() for m in request.measures)


@dataclass
class MergeReport:
    """What the merge saw: whether each input came grouped by query, and the most judgment rows held at once."""

    qrels_grouped: bool = True
    run_grouped: bool = True
    peak_judgments: int = 0  # judgment rows held at once (pending and evaluated), the bound the merge keeps
    again: int = 0  # queries evaluated again at the end


@dataclass
class Merged:
    """One run's values by the merge: metrics in the order ``Evaluator.iter_calc`` gives them."""

    metrics: list[Any]
    rows: int
    matched: int
    judged: list[str]
    judgment_rows: int
    ranked_rows: int
    judged_rows: int
    report: MergeReport = field(default_factory=MergeReport)


class _Qrels:
    """The qrels read on by blocks: rows of queries not evaluated yet are pending, with their lines."""

    def __init__(self, blocks: Iterator[Any], report: MergeReport):
        self.blocks, self.report = blocks, report
        self.pending: list[Any] = []  # Arrow tables: query_id, doc_id, value, line
        self.pending_rows = 0
        self.order: dict[str, int] = {}  # every query id seen, by its first appearance
        self.closed: set[str] = set()  # queries whose lines another query's followed
        self.open: str | None = None  # the last query read (its lines may go on)
        self.unit = "line"
        self.rows = 0
        self.done = False

    def read_until(self, wanted: set[str], evaluated: set[str], again: set[str]) -> None:
        """Read blocks until every query of ``wanted`` is complete or the file ends; a query of
        ``evaluated`` that gets judgments now goes to ``again``."""
        while not self.done and not wanted <= self.closed:
            self.read_block(evaluated, again)

    def read_block(self, evaluated: set[str], again: set[str]) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        block = next(self.blocks, None)
        if block is None:
            self.done = True
            if self.open is not None:
                self.closed.add(self.open)
            return
        table, n = block.table, block.table.num_rows
        self.unit = block.unit
        self.rows += n
        lines = block.lines if block.lines is not None else block.first_line + np.arange(n, dtype=np.int64)
        encoded = pc.dictionary_encode(table.column("query_id")).combine_chunks()
        ids, codes = encoded.dictionary.to_pylist(), to_numpy(encoded.indices)  # ids by first appearance
        if n:
            # grouped: each query's lines one stretch, and none of the block's queries seen before but the
            # one whose lines the previous block ended with (continued by the block's first lines)
            stretches = 1 + int(np.count_nonzero(codes[1:] != codes[:-1]))
            first, last = ids[codes[0]], ids[codes[-1]]
            present = set(ids)
            seen = present.intersection(self.order)
            if stretches != len(ids) or seen - {self.open} or (self.open in seen and first != self.open):
                self.report.qrels_grouped = False
            again.update(present.intersection(evaluated))
            for q in ids:  # a loop per query, not per line
                self.order.setdefault(q, len(self.order))
            self.closed.update(present)
            self.closed.discard(last)
            if self.open is not None and self.open != last:
                self.closed.add(self.open)
            self.open = last
        self.pending.append(pa.table({"query_id": table.column("query_id"), "doc_id": table.column("doc_id"),
                                      "value": table.column("value"), "line": from_numpy(lines)}))
        self.pending_rows += n
        self.report.peak_judgments = max(self.report.peak_judgments, self.pending_rows)

    def take(self, queries: list[str] | None) -> Any:
        """The pending rows of ``queries`` (with None: of every query but the one whose lines may go on),
        no longer pending."""
        import pyarrow as pa

        if not self.pending:
            return None
        table = pa.concat_tables(self.pending)
        if queries is None:  # every query but the open one
            held = self.open is not None and not self.done
            mask = ~_is_in(table, [self.open]) if held else np.ones(table.num_rows, dtype=bool)
        else:
            mask = _is_in(table, queries)
        taken = table.filter(from_numpy(mask)) if mask.any() else None
        rest = table.filter(from_numpy(~mask)) if not mask.all() else None
        self.pending = [rest.combine_chunks()] if rest is not None and rest.num_rows else []
        self.pending_rows = 0 if not self.pending else self.pending[0].num_rows
        return taken


def _is_in(table: Any, queries: Any) -> np.ndarray:
    """Which rows of ``table`` are of ``queries`` (a boolean per row)."""
    import pyarrow.compute as pc

    return to_numpy(pc.is_in(table.column("query_id"), value_set=from_strings(list(queries))))


def _judgments(table: Any, name: str, unit: str, measures: list[Any], provider: str | None) -> Any:
    """The judgments of ``table`` (query_id, doc_id, value, line), checked as the whole qrels are: a
    (query, doc) twice by its lines, labels the measures cannot take."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ir_measures_graded.io.ids import duplicate_error, first_duplicate_ids
    from ir_measures_graded.labels import check_labels
    from ir_measures_graded.prepare import Judgments

    query = pc.dictionary_encode(table.column("query_id")).combine_chunks()
    doc = table.column("doc_id").combine_chunks()
    pair = first_duplicate_ids(to_numpy(query.indices).astype(np.int64), doc)
    if pair is not None:
        lines = to_numpy(table.column("line"))
        raise duplicate_error("qrels", query[pair[0]].as_py(), doc[pair[0]].as_py(), int(lines[pair[0]]),
                              int(lines[pair[1]]), name, unit)
    values = to_numpy(table.column("value"))
    check_labels(values, measures, provider)
    return Judgments.from_qrels(pa.table({"query_id": query, "doc_id": doc, "relevance": from_numpy(values)}))


class _Values:
    """Each judged query's values (by its position in the qrels' order) and its rows, growing as read."""

    def __init__(self, n_measures: int):
        self.values = np.zeros((n_measures, 0), dtype=object)
        self.present = np.zeros(0, dtype=bool)
        self.counts = np.zeros((2, 0), dtype=np.int64)

    def _grow(self, size: int) -> None:
        if size <= self.present.size:
            return
        size = max(size, 2 * self.present.size, 1024)
        values = np.zeros((self.values.shape[0], size), dtype=object)
        values[:, :self.present.size] = self.values
        present = np.zeros(size, dtype=bool)
        present[:self.present.size] = self.present
        counts = np.zeros((2, size), dtype=np.int64)
        counts[:, :self.present.size] = self.counts
        self.values, self.present, self.counts = values, present, counts

    def evaluate(self, batch: Any, judgments: Any, measures: list[Any], name: str, order: dict[str, int]) -> None:
        from ir_measures_graded.core import _evaluate_batch

        n = judgments.n_queries
        values = np.zeros((len(measures), n), dtype=object)
        present = np.zeros(n, dtype=bool)
        per_query = np.zeros((2, n), dtype=np.int64)
        _evaluate_batch(batch, measures, judgments, values, present, name, per_query)
        codes = np.flatnonzero(present)
        ids = judgments.query_ids[codes].tolist()
        slots = np.fromiter((order[q] for q in ids), dtype=np.int64, count=len(ids))
        self._grow(int(slots.max(initial=-1)) + 1)
        self.values[:, slots] = values[:, codes]
        self.present[slots] = True
        self.counts[:, slots] = per_query[:, codes]


def evaluate_merged(request: Request, progress: Any = None, meter: Any = None) -> Merged:
    """The request's one run evaluated in step with the qrels (see the module); ``progress`` and
    ``meter`` see the run's bytes as the streamed path's do."""
    from ir_measures_graded.io.readers import iter_blocks
    from ir_measures_graded.io.stream import BatchSource, Prefetch, RunScan, _Spool
    from ir_measures_graded.io.trec import QRELS, display_name

    measures = list(request.measures)
    report = MergeReport()
    qrels_name = display_name(request.qrels)
    run = RunScan(request.runs[0], columns=request.run_columns or None, block_size=RUN_BLOCK_BYTES, progress=progress,
                  meter=meter)
    results = _Values(len(measures))
    evaluated: set[str] = set()
    again: set[str] = set()
    rows = 0
    spool = _Spool()  # the qrels as read, for the queries evaluated again at the end
    # the qrels parsed a block ahead in a thread of their own, as the run is
    blocks = Prefetch(spool.tee(iter_blocks(request.qrels, QRELS, request.qrels_columns or None, QRELS_BLOCK_BYTES)))
    try:
        qrels = _Qrels(iter(blocks), report)
        with BatchSource(run) as source, source.batches(min_rows=RUN_BATCH_ROWS) as batches:
            for batch in batches:
                rows += batch.table.num_rows
                ids = batch.query_ids.to_pylist()
                seen = evaluated.intersection(ids)
                if seen:
                    report.run_grouped = False
                    again.update(seen)
                qrels.read_until(set(ids), evaluated, again)
                evaluated.update(ids)
                taken = qrels.take(ids)
                if taken is not None:
                    judgments = _judgments(taken, qrels_name, qrels.unit, measures, request.provider)
                    results.evaluate(batch, judgments, measures, source.name, qrels.order)
                    del judgments, taken
            while not qrels.done:  # the judged queries the run lacks: checked as they come, then dropped
                qrels.read_block(evaluated, again)
                taken = qrels.take(None)
                if taken is not None:
                    _judgments(taken, qrels_name, qrels.unit, measures, request.provider)
            taken = qrels.take(None)  # the last query's (and any left pending)
            if taken is not None:
                _judgments(taken, qrels_name, qrels.unit, measures, request.provider)
            del taken
            if again:  # all of their rows together, from the run again and from the spool
                report.again = len(again)
                judged_again = _spooled(spool, again)
                batch_again = source.rows_of(again) if judged_again is not None else None
                if judged_again is not None and batch_again is not None:
                    judgments = _judgments(judged_again, qrels_name, qrels.unit, measures, request.provider)
                    results.evaluate(batch_again, judgments, measures, source.name, qrels.order)
    finally:
        blocks.close()
        spool.close()
    judged = list(qrels.order)
    size = len(judged)
    results._grow(size)
    present = np.flatnonzero(results.present[:size])
    metrics = [ir_measures.Metric(query_id=judged[q], measure=m, value=v)
               for i, m in enumerate(measures) for q, v in zip(present.tolist(), results.values[i, present].tolist(),
                                                                 strict=True)]
    completed = list(Gathered(measures, set(judged), iter(metrics)).iter_calc(None))
    ranked, judged_rows = (int(c) for c in results.counts[:, :size].sum(axis=1))
    return Merged(completed, rows, len(present), judged, qrels.rows, ranked, judged_rows, report)


def _spooled(spool: Any, queries: set[str]) -> Any:
    """Every spooled qrels row of ``queries`` (query_id, doc_id, value, line), or None."""
    import pyarrow as pa

    wanted = sorted(queries)
    parts = []
    for block in spool.blocks():
        n = block.table.num_rows
        lines = block.lines if block.lines is not None else block.first_line + np.arange(n, dtype=np.int64)
        keep = np.flatnonzero(_is_in(block.table, wanted))
        if len(keep):
            part = block.table.take(from_numpy(keep))
            parts.append(pa.table({"query_id": part.column("query_id"), "doc_id": part.column("doc_id"),
                                   "value": part.column("value"), "line": from_numpy(lines[keep])}))
    return pa.concat_tables(parts).combine_chunks() if parts else None


def check_no_judgments(merged: Merged, request: Request) -> None:
    """The whole path's warning for qrels without judgments."""
    from ir_measures_graded.engines import check_judged

    check_judged(merged.judgment_rows, request)
