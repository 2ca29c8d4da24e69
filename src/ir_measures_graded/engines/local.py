"""The local engine: qrels and run files evaluated in this process, qrels prepared once, runs streamed.

Our measures read each run file by query batches (bounded memory, see :mod:`..io.stream`).
Standard ``ir_measures`` measures get the run read once by the Arrow reader, as the dict of dicts
pytrec_eval takes (so ir_measures converts nothing); our measures then use the same table.
Each measure's summary is its own aggregator's result, as ``ir_measures.calc_aggregate`` gives it.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import ir_measures
import numpy as np

from ir_measures_graded import kernels
from ir_measures_graded.arrow import from_numpy
from ir_measures_graded.engines import Request, RunResult, check_judged, check_shared_queries, run_name
from ir_measures_graded.errors import GradedInputError, as_text
from ir_measures_graded.io.columns import Columns
from ir_measures_graded.io.inputs import Input, Meter, frame_tag
from ir_measures_graded.io.small import is_small, read_small
from ir_measures_graded.io.trec import QRELS, RUN
from ir_measures_graded.lazy import lazy_module
from ir_measures_graded.measures import GradedMeasure
from ir_measures_graded.measures.thresholded import ThresholdedMeasure
from ir_measures_graded.prepare import check_depth, truncated
from ir_measures_graded.provider import GradedProvider
from ir_measures_graded.pytrec import Gathered, judgments_for, served_by
from ir_measures_graded.sources import load_qrels

# The Arrow readers and column checks load when an input needs them (small TREC files do not).
validated = lazy_module("ir_measures_graded.io.columns")
readers = lazy_module("ir_measures_graded.io.readers")

__all__ = ["LocalEngine", "load_qrels", "evaluate_runs", "Scored", "dict_of_dict", "progress_bar", "worker_count"]


class LocalEngine:
    """Evaluates a :class:`~ir_measures_graded.engines.Request` in this process."""

    name = "local"

    def evaluate(self, request: Request) -> list[RunResult]:
        from ir_measures_graded.engines import merge

        if merge.applies(request):  # one run and large qrels, both read in step by query (values the same)
            return [self._merged(request)]
        measures = request.measures
        qrels = small_qrels(request)
        small = qrels is not None
        if not small:
            from ir_measures_graded.io.tuples import hold

            qrels = (load_qrels(request.qrels, request.qrels_columns) if isinstance(request.qrels, str)
                     else hold(request.qrels, "qrels"))  # an iterator or a record batch reader: read once, here
        check_label_types(qrels, measures, request.provider)
        check_supported(measures, request.provider)
        judged = len(qrels)  # rows of columns, frames and Arrow tables; queries of a dict of dicts
        check_judged(judged, request)
        # Results by position: a file named twice is two runs, each with the values of that file alone.
        results = [RunResult(run_name(request, k), [], {}) for k in range(len(request.runs))]
        judged_ids = _query_ids(qrels, "qrels")
        scored = evaluate_runs(qrels, [_source(run) for run in request.runs], measures, request.provider,
                               columns=request.run_columns, progress=request.progress,
                               keep=request.keep, small=small,
                               arrow_qrels=(lambda: readers.as_table(qrels, QRELS)) if small else None,
                               workers=request.workers, depth=request.depth)
        for result, one in zip(results, scored, strict=True):
            result.rows, result.matched, result.judged = one.rows, one.matched, judged_ids
            result.ranked_rows, result.judged_rows = one.ranked_rows, one.judged_rows
            if request.summary:
                aggregators = {m: m.aggregator() for m in measures}
                for metric in one.metrics:
                    aggregators[metric.measure].add(metric.value)  # values kept as given: an aggregator may need more than a float
                result.summary = {m: aggregators[m].result() for m in measures}
            if request.by_query:
                result.per_query = one.metrics
            result.input = one.input
            if judged and request.warn is not None:
                check_shared_queries(result, request)
        return results


    @staticmethod
    def _merged(request: Request) -> RunResult:
        """The one run of ``request`` evaluated in step with the qrels (:mod:`.merge`)."""
        from ir_measures_graded.engines import merge

        check_supported(request.measures, request.provider)
        source = request.runs[0]
        meter = Meter(digest=False)
        with progress_bar(source, request.progress) as bar:
            done = merge.evaluate_merged(request, progress=bar, meter=meter)
        check_judged(done.judgment_rows, request)
        result = RunResult(run_name(request, 0), done.metrics if request.by_query else [], {})
        result.rows, result.matched, result.judged = done.rows, done.matched, done.judged
        result.ranked_rows, result.judged_rows = done.ranked_rows, done.judged_rows
        if request.summary:
            aggregators = {m: m.aggregator() for m in request.measures}
            for metric in done.metrics:
                aggregators[metric.measure].add(metric.value)
            result.summary = {m: aggregators[m].result() for m in request.measures}
        result.input = Input("run", source, None, rows=done.rows, size=meter.size or None, tag=meter.tag,
                             columns=dict(request.run_columns or {}))
        result.merge = done.report
        if done.judgment_rows and request.warn is not None:
            check_shared_queries(result, request)
        return result


def _source(spec: Any) -> Any:
    """What the reader opens for a run argument: ``-`` is standard input; a run in memory is itself."""
    return "/dev/stdin" if isinstance(spec, str) and spec == "-" else spec


def small_qrels(request: Request) -> Columns | None:
    """The qrels read by the numpy-only small-file reader (:mod:`..io.small`) — here, or by the experiment
    that passes them read — when every run is a file that reader may take; else None, and every input
    goes through the Arrow reader."""
    if not all(isinstance(s, str) for s in request.runs):
        return None
    if is_small(request.qrels):
        return request.qrels
    return read_small(request.qrels, QRELS) if isinstance(request.qrels, str) else None


#: The environment variable that sets how many runs the command line evaluates at a time.
WORKERS_ENV = "IR_MEASURES_GRADED_WORKERS"


def worker_count(runs: int, asked: int | None = None) -> int:
    """How many runs are evaluated at a time: ``asked``, else :data:`WORKERS_ENV`, else one per core
    this process may use."""
    given = os.environ.get(WORKERS_ENV, "").strip()
    if asked is None and given.isdigit() and int(given) > 0:
        asked = int(given)
    if asked is None:
        try:
            asked = len(os.sched_getaffinity(0))
        except AttributeError:  # macOS, Windows
            asked = os.cpu_count() or 1
    return max(1, min(asked, runs))


def check_label_types(qrels: Any, measures: list[ir_measures.Measure], provider: str | None) -> None:
    """:func:`ir_measures_graded.labels.check_labels` on the qrels' label column."""
    from ir_measures_graded.labels import check_labels

    if isinstance(qrels, Mapping):
        labels = [v for docs in qrels.values() for v in docs.values()]
    elif isinstance(qrels, Columns):
        labels = qrels.values
    elif hasattr(qrels, "column"):
        labels = qrels.column("relevance")
    elif hasattr(qrels, "columns"):
        labels = qrels["relevance"]
    else:
        labels = validated.qrels_columns(qrels, encode_docs=False).values
    check_labels(labels, measures, provider)


def check_supported(measures: list[ir_measures.Measure], provider: str | None) -> None:
    calc_obj = ir_measures.providers.registry[provider] if provider else ir_measures.DefaultPipeline
    # Ours first: asking the pipeline would initialise (import) every provider before ours.
    ours = (None, GradedProvider.NAME)
    unsupported = [str(m) for m in measures
                   if not (provider in ours and isinstance(m, GradedMeasure)) and not calc_obj.supports(m)]
    if unsupported:
        by = f"provider {provider}" if provider else "any installed ir_measures provider"
        raise GradedInputError(f"{', '.join(unsupported)} cannot be computed by {by}")


@dataclass
class Scored:
    """One run evaluated: its values (``ir_measures.Metric``, measure by measure as the evaluators
    yield them), rows read, queries the qrels know, and the run as read (its table with ``keep``)."""

    metrics: list[Any]
    rows: int
    matched: int
    input: Input
    ranked_rows: int = -1  # rows of the judged queries
    judged_rows: int = -1  # of those, rows whose document is judged


def evaluate_runs(qrels: Any, runs: list[Any], measures: list, provider: str | None = None, *,
                  columns: Mapping[str, str] | None = None, progress: bool = True, keep: bool = False,
                  small: bool = False, arrow_qrels: Callable[[], Any] | None = None,
                  workers: int | None = None, depth: int | None = None) -> Iterator[Scored]:
    """A :class:`Scored` for every run (a path or a run in memory), in the order given; the qrels
    side is prepared once for all runs.

    ``provider``: None (our measures by us, the others by ``ir_measures.DefaultPipeline``) or the
    name of one provider computing everything. ``keep``: each run is also returned as read (an
    Arrow table: the run is then read whole instead of streamed). ``small``: ``qrels`` are columns
    of the small-file reader (:mod:`..io.small`), which then reads each run it can;
    ``arrow_qrels()`` gives the qrels for a run it cannot. Runs are read and evaluated ``workers``
    at a time (default: a thread per core; reading and numpy's kernels release the GIL), at most
    one more waiting, so memory holds a few runs and the qrels. A progress bar per run is shown on
    stderr when it is a terminal and ``progress`` is true. ``depth``: only the top ``depth`` documents of
    each query of a run count, for every measure (trec_eval's ``-M``): a run read whole is cut once, before
    any evaluator sees it (and kept so), a streamed run batch by batch (:func:`..prepare.top_rows`).
    """
    scorer = _Scorer(qrels, measures, provider, columns, progress, keep, small, arrow_qrels, check_depth(depth))
    # Another provider's evaluator (pytrec_eval) holds the GIL while it computes, and so does
    # building the dict of dicts it takes: threads would take turns, processes run side by side.
    # Collection-level µ-measures' values carry per-threshold parts that pickle as their float: threads.
    processes = (scorer.other is not None and not keep and all(isinstance(run, str) for run in runs)
                 and not any(isinstance(m, ThresholdedMeasure) and m.levels() == "collection" for m in measures))
    yield from in_order(scorer.score, runs, worker_count(len(runs), workers), processes=processes)


def in_order(score: Callable[[Any], Scored], runs: list[Any], n_workers: int,
             processes: bool = False) -> Iterator[Scored]:
    """``score(run)`` for each run, ``n_workers`` at a time in threads (or in forked processes, with
    ``processes`` where the platform forks safely: Linux), yielded in the order given.

    At most ``n_workers + 1`` runs are submitted and not yet yielded. An error in one run is raised
    when its turn comes (the runs before it yielded); the runs not started then are cancelled and
    those running finish before it propagates, so no thread or process is left behind.
    """
    if n_workers <= 1:
        yield from map(score, runs)
        return
    pool, task = _pool(score, n_workers, processes)
    todo = iter(runs)
    with pool:
        with warnings.catch_warnings():  # the first submit forks the workers (fork start method)
            # Python 3.12+ warns of any fork from a process with several OS threads: numpy's BLAS
            # threads count (they are reset in the child); this thread is the only Python one (see _pool).
            warnings.filterwarnings("ignore", r".*use of fork\(\) may lead to deadlocks", DeprecationWarning)
            pending = collections.deque(pool.submit(task, run) for run in itertools.islice(todo, n_workers + 1))
        try:
            while pending:
                done = pending.popleft().result()
                pending.extend(pool.submit(task, run) for run in itertools.islice(todo, 1))
                yield done
        finally:
            for future in pending:
                future.cancel()


#: What a forked worker process scores with: set before the fork, inherited (never pickled).
_FORKED_SCORE: Callable[[Any], Scored] | None = None


def _score_forked(run: Any) -> Scored:
    assert _FORKED_SCORE is not None  # set by _pool before the workers were forked
    return _FORKED_SCORE(run)


def _pool(score: Callable[[Any], Scored], n_workers: int, processes: bool) -> tuple[Any, Callable[[Any], Scored]]:
    """``(executor, task)``: threads; or, with ``processes``, processes forked from this one (they
    inherit the prepared qrels and evaluators; a run's values come back pickled) where a fork is
    safe: on Linux, from Python 3.11 (which forks every worker at the first submit, before the
    executor's thread starts; 3.10 forks them one by one beside it), when this is the process's
    only Python thread (a fork copies no other thread's locks) and pyarrow is not loaded (its
    thread pools do not survive a fork, and a child using them can hang; the small-file reader's
    qrels and runs never load it). Elsewhere (macOS forks unsafely, Windows not at all, and a
    fresh interpreter per worker costs more than it saves on a few runs): threads."""
    import concurrent.futures

    if (processes and sys.platform.startswith("linux") and sys.version_info >= (3, 11)
            and threading.active_count() == 1 and "pyarrow" not in sys.modules):
        import multiprocessing

        global _FORKED_SCORE
        _FORKED_SCORE = score
        # The fork start method launches every worker at the first submit, before the executor's
        # own thread starts: the workers are forked from this thread alone.
        return (concurrent.futures.ProcessPoolExecutor(n_workers, mp_context=multiprocessing.get_context("fork")),
                _score_forked)
    return concurrent.futures.ThreadPoolExecutor(n_workers, thread_name_prefix="ir_measures_graded"), score


#: Runs joined to the judgments through Arrow (files the small-file reader does not take, runs in
#: memory, streams) are evaluated one at a time: two threads joining against the same judgments once
#: aborted the process inside pyarrow (``take``, SIGABRT, in CI). Runs the small-file reader reads are
#: joined with numpy alone and go on in parallel.
ARROW_JOINS = threading.Lock()


class _Scorer:
    """Evaluates one run at a time, from any thread: the evaluators are built once, on first need."""

    def __init__(self, qrels: Any, measures: list, provider: str | None, columns: Mapping[str, str] | None,
                 progress: bool, keep: bool, small: bool, arrow_qrels: Callable[[], Any] | None,
                 depth: int | None = None):
        ours_only = provider == GradedProvider.NAME
        self.graded_measures = [m for m in measures if ours_only or (provider is None and isinstance(m, GradedMeasure))]
        others = [m for m in measures if m not in self.graded_measures]
        self.qrels, self.small, self.arrow_qrels = qrels, small, arrow_qrels
        self.columns, self.progress, self.keep, self.depth = columns, progress, keep, depth
        self._lock = threading.Lock()
        self._graded: dict[tuple[bool, bool], Any] = {}  # (small, counting only) -> evaluator
        self.graded = self._graded_evaluator(small)
        self.other = None
        self.judged = set(_query_ids(qrels, "qrels"))
        if others:  # pytrec_eval converts the qrels once, here, for every run (large qrels: by chunks, per run)
            calc_obj = ir_measures.providers.registry[provider] if provider else ir_measures.DefaultPipeline
            # pytrec_eval crashes on labels below 0: its measures are given the judgments without them
            lowest = lowest_label(qrels)
            if lowest >= 0:
                self.other = Others(calc_obj, others, qrels)
            else:
                groups = judgments_for(dict_of_dict(qrels, "relevance"), others, calc_obj, lowest)
                parts = [Others(calc_obj, group, qrels if given is None else given,
                                judged=self.judged if lacking else None) for group, given, lacking in groups]
                self.other = parts[0] if len(parts) == 1 else _Joined(parts)
        # qrels as large as a run (a recommender's): a run read whole is joined to them by query batches
        self.large_qrels = not isinstance(qrels, Mapping) and len(qrels) > OTHERS_CHUNK_ROWS

    def _graded_evaluator(self, small: bool, counting: bool = False) -> Any:
        """Our evaluator on the qrels as read by the small-file reader (``small``) or the Arrow reader; with
        ``counting``, one of no measure (it counts a run's judged rows), else None without our measures."""
        if not self.graded_measures and not counting:
            return None
        key = (small, not self.graded_measures)
        with self._lock:
            if key not in self._graded:
                qrels = self.qrels if small == self.small else self.arrow_qrels()
                self._graded[key] = ir_measures.providers.registry[GradedProvider.NAME].evaluator(
                    self.graded_measures, qrels)
            return self._graded[key]

    def score(self, source: Any) -> Scored:
        from ir_measures_graded.io.tuples import hold, is_one_shot

        # what reading sees: the tag always, the bytes' SHA-256 where the run is kept (hashed as it is read)
        meter = Meter(digest=self.keep)
        origin = source if isinstance(source, str) else None
        with progress_bar(source, self.progress and isinstance(source, str)) as bar:
            if is_one_shot(source) and self.other is None and not self.keep:
                # an iterator of named tuples or a record batch reader: read once, by query batches
                from ir_measures_graded.io.stream import RunStream

                stream = RunStream(source, depth=self.depth)
                streamed = self._graded_evaluator(False)
                with ARROW_JOINS, streamed.counting() as counts:
                    metrics = list(streamed.iter_calc(stream))
                return Scored(metrics, stream.rows, stream.matched, Input("run", None, None, rows=stream.rows),
                              counts["ranked"], counts["judged"])
            if not isinstance(source, str):  # a run in memory (one-shot: read once, into the table kept)
                table = hold(source, "run")
            elif self.small and (table := read_small(source, RUN, meter)) is not None:
                if bar is not None:  # read already: the bar shows the file done
                    bar.update(os.path.getsize(source))
            elif self.other is None and not self.keep:
                from ir_measures_graded.io.stream import RunScan

                scan = RunScan(source, columns=self.columns, progress=bar, meter=meter, depth=self.depth)
                graded = self._graded_evaluator(False)
                with ARROW_JOINS, graded.counting() as counts:
                    metrics = list(graded.iter_calc(scan))
                read = Input("run", origin, None, rows=scan.rows, size=meter.size or None, tag=meter.tag,
                             columns=dict(self.columns or {}))
                return Scored(metrics, scan.rows, scan.matched, read, counts["ranked"], counts["judged"])
            else:
                table = readers.read_run_table(source, self.columns, progress=bar, meter=meter)
        rows = sum(len(docs) for docs in table.values()) if isinstance(table, Mapping) else len(table)  # rows read
        table = truncated(table, self.depth)  # every evaluator sees the same top rows; the run kept so
        numpy_only = isinstance(table, Columns) and isinstance(table.doc_ids, np.ndarray)
        graded = self._graded_evaluator(numpy_only)
        # without our measures, an evaluator of none joins the run to the judgments to count judged rows
        counter = graded if graded is not None else self._graded_evaluator(numpy_only, counting=True)
        metrics = []
        # The numpy-only joins of the command line's runs go on side by side; kept runs (an experiment's, in a
        # process that may hold pyarrow, Spark's threads, ...) take turns as the Arrow joins do: two threads
        # evaluating kept small runs aborted a test process once (SIGABRT in numpy, in CI's 10,000-query report).
        with contextlib.nullcontext() if numpy_only and not self.keep else ARROW_JOINS, counter.counting() as counts:
            if self.other is not None:
                metrics += self.other.iter_calc(table)
            metrics += counter.iter_calc(held(table) if self.large_qrels else table)
        matched = len(self.judged.intersection(_query_ids(table, "run")))
        read = Input("run", origin, table if self.keep else None, digest=meter.hexdigest() if origin else None,
                     rows=rows, size=meter.size if origin else None,
                     tag=meter.tag if origin else frame_tag(source), columns=dict(self.columns or {}))
        return Scored(metrics, rows, matched, read, counts["ranked"], counts["judged"])


#: A run read whole by the Arrow reader (for a mixed list, or kept) is evaluated by our measures by
#: query batches, as a streamed file is, when it has more rows than this and the qrels more than
#: :data:`OTHERS_CHUNK_ROWS` judgments (values and order the same): the join of the whole run with
#: qrels that large held several copies of both. With smaller qrels the whole table is faster.
HELD_BATCH_ROWS = 1 << 20


def held(table: Any) -> Any:
    """``table`` as our evaluator takes it: a large table of the Arrow reader by query batches
    (:class:`..io.stream.HeldRun`), anything else whole."""
    if isinstance(table, Columns) or not hasattr(table, "num_rows") or table.num_rows <= HELD_BATCH_ROWS:
        return table
    from ir_measures_graded.io.stream import HeldRun

    return HeldRun(table)


def _query_ids(obj: Any, kind: str) -> list[str]:
    """The distinct query ids of qrels or a run (``kind``) as read or given."""
    if isinstance(obj, Columns):
        return obj.query_ids.tolist()
    if isinstance(obj, Mapping):
        return [str(q) for q in obj]
    if hasattr(obj, "column") and hasattr(obj.column("query_id").type, "value_type"):  # our readers' tables
        return [str(q) for q in obj.column("query_id").combine_chunks().dictionary.to_pylist()]
    cols = (validated.qrels_columns if kind == "qrels" else validated.run_columns)(obj, encode_docs=False)
    return [str(q) for q in cols.query_ids.tolist()]


def dict_of_dict(obj: Any, value_field: str) -> dict:
    """``{query_id: {doc_id: value}}`` (the form ir_measures' pytrec_eval provider takes, so it
    converts nothing) from any accepted input; integral labels as int, as trec_eval needs them."""
    if isinstance(obj, Mapping):
        return obj
    grouped = Grouped(obj, value_field)
    return grouped.dict(np.arange(grouped.n_queries))


class Grouped:
    """An input's rows grouped by query (stably: each query's rows in input order), turned into
    ``{query_id: {doc_id: value}}`` for any queries asked, a few at a time: the ids become Python
    strings only for the rows of the queries asked. Queries are coded in first-seen order, as
    :func:`dict_of_dict` gives them."""

    def __init__(self, obj: Any, value_field: str):
        kind = "qrels" if value_field == "relevance" else "run"
        cols = (validated.qrels_columns if kind == "qrels" else validated.run_columns)(obj, encode_docs=False)
        per_row: np.ndarray | None
        if np.all(cols.query_codes[1:] >= cols.query_codes[:-1]):  # grouped by query already
            per_row, values = cols.doc_codes, cols.values
        else:
            order = np.argsort(cols.query_codes, kind="stable")
            per_row, values = cols.doc_codes[order], cols.values[order]
            del order
        if len(per_row) == len(cols.doc_ids) and np.array_equal(per_row, np.arange(len(per_row))):
            per_row = None  # row i's doc is doc_ids[i]: nothing to keep
        if kind == "qrels" and len(values) and validated.integral_labels(values):
            values = values.astype(narrowest_integers(values))  # Python ints all the same, as trec_eval needs
        self.per_row, self.values, self.doc_ids = per_row, values, cols.doc_ids
        self._decoded: np.ndarray | None = None  # the distinct doc ids as str, once some query asks for more rows
        self.query_ids = cols.query_ids.tolist()
        self.ptr = np.zeros(len(self.query_ids) + 1, dtype=np.int64)
        np.cumsum(np.bincount(cols.query_codes, minlength=len(self.query_ids)), out=self.ptr[1:])

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def chunks(self, rows: int) -> Iterator[np.ndarray]:
        """The query codes in order, in consecutive chunks of at most ``rows`` rows (or one query)."""
        start = 0
        while start < self.n_queries:
            end = max(start + 1, int(np.searchsorted(self.ptr, self.ptr[start] + rows, side="right")) - 1)
            yield np.arange(start, min(end, self.n_queries))
            start = end

    def dict(self, codes: np.ndarray) -> dict:
        """``{query_id: {doc_id: value}}`` of the queries ``codes`` (in that order)."""
        rows = kernels.segment_rows(self.ptr, np.asarray(codes, dtype=np.int64))
        per_row = rows if self.per_row is None else self.per_row[rows]
        if isinstance(self.doc_ids, np.ndarray) and len(self.doc_ids) <= len(per_row):
            # distinct ids as bytes (the small-file reader's), fewer than the rows asked: each decoded once
            if self._decoded is None:
                self._decoded = np.array([d.decode() for d in self.doc_ids.tolist()], dtype=object)
            docs = self._decoded[per_row].tolist()
        elif isinstance(self.doc_ids, np.ndarray):  # distinct ids as bytes: those of the rows asked
            docs = [d.decode() for d in self.doc_ids[per_row].tolist()]
        else:
            from ir_measures_graded.io.ids import as_strings

            identity = len(per_row) == len(self.doc_ids) and np.array_equal(per_row, np.arange(len(per_row)))
            docs = as_strings(self.doc_ids if identity else self.doc_ids.take(from_numpy(per_row))).to_pylist()
        values = self.values[rows].tolist()
        lengths = (self.ptr[np.asarray(codes, dtype=np.int64) + 1] - self.ptr[codes]).tolist()
        bounds = [0, *itertools.accumulate(lengths)]
        return {self.query_ids[q]: dict(zip(docs[bounds[i]:bounds[i + 1]], values[bounds[i]:bounds[i + 1]],
                                            strict=True))
                for i, q in enumerate(np.asarray(codes).tolist())}


def narrowest_integers(values: np.ndarray) -> type:
    """The narrowest numpy integer type holding the whole numbers ``values`` (not empty)."""
    low, high = float(values.min()), float(values.max())
    return next(t for t in (np.int8, np.int16, np.int32) if np.iinfo(t).min <= low and high <= np.iinfo(t).max) \
        if -2**31 <= low and high < 2**31 else np.int64


#: Judgments above which ir_measures' own measures of a mixed list are computed a chunk of queries at
#: a time (about this many run rows and their judgments per chunk): pytrec_eval and the dicts of dicts
#: it takes then hold a chunk, not the collection. At or below, the qrels are converted once for every run.
OTHERS_CHUNK_ROWS = 1_000_000


def lowest_label(qrels: Any) -> float:
    """The lowest label of qrels in any accepted form (0 when there is none)."""
    if isinstance(qrels, Mapping):
        return float(min((min(docs.values(), default=0) for docs in qrels.values()), default=0))
    values = validated.qrels_columns(qrels, encode_docs=False).values
    return float(values.min()) if len(values) else 0.0


class _Joined:
    """Evaluators of parts of the measures (pytrec_eval's on the judgments it may be given, the others on all of
    them), as one: each run's values, one part's after the other's."""

    def __init__(self, parts: list[Any]):
        self.parts = parts

    def iter_calc(self, run: Any) -> list[Any]:
        return [metric for part in self.parts for metric in part.iter_calc(run)]


class Others:
    """Another provider's evaluator of ir_measures' own measures (those of a mixed list) on the qrels.

    Small qrels are converted once into the dict of dicts pytrec_eval takes, for every run. Larger
    ones (over ``chunk_rows`` judgments) stay columns, and each run is evaluated a chunk of queries
    at a time — its queries in their order, about ``chunk_rows`` rows each, with their judgments —
    by a pytrec_eval evaluator of that chunk. The values and their order are those of one
    evaluator on the whole: pytrec_eval values each query from its own judgments and ranking, and
    yields them in the run's order, invocation by invocation (gathered so, across chunks); the
    judged queries the run misses then get the measure's default, as ``ir_measures`` gives them.
    Another provider's evaluator (not pytrec_eval's) is given the whole.
    """

    def __init__(self, calc_obj: Any, measures: list, qrels: Any, chunk_rows: int = OTHERS_CHUNK_ROWS,
                 judged: set | None = None):
        self.calc_obj, self.measures, self.chunk_rows = calc_obj, measures, chunk_rows
        self.judged = judged  # the judged queries, when the qrels given lack some (judged below 0 only)
        self.gdeval = gdeval_measures(calc_obj, measures)
        self.qrels: Grouped | None = None
        self.whole = None
        if isinstance(qrels, Mapping) or len(qrels) <= chunk_rows:
            converted = dict_of_dict(qrels, "relevance")
            self._check_gdeval(converted, "the qrels have", (max(docs.values(), default=0) for docs in converted.values()))
            self.whole = calc_obj.evaluator(measures, converted)
        else:
            self.qrels = Grouped(qrels, "relevance")
            self._check_gdeval(self.qrels.query_ids, "the qrels have", self.qrels.values)
            self._index = {q: i for i, q in enumerate(self.qrels.query_ids)}

    def _check_gdeval(self, query_ids: Any, what: str, labels: Any = ()) -> None:
        """One line, before gdeval runs (its Perl fails with a raw ``CalledProcessError``), when a query id is
        not the number gdeval takes (as it reads them: after the last ``-``), or a label is above its top, 4."""
        if not self.gdeval:
            return
        # the large qrels' labels are an array: one max, not a Python loop over every row
        top = (float(labels.max()) if len(labels) else 0.0) if isinstance(labels, np.ndarray) \
            else max((float(v) for v in labels), default=0.0)
        if top > GDEVAL_TOP:
            raise GradedInputError(f"{gdeval_named(self.gdeval)}: ir_measures computes it with gdeval, which takes "
                                   f"labels up to {GDEVAL_TOP} ({what} {top:g}); use "
                                   f"{gdeval_ours(self.gdeval, top)}")
        wrong = next((q for q in query_ids if not str(q).rsplit("-", 1)[-1].isascii()
                      or not str(q).rsplit("-", 1)[-1].isdigit()), None)
        if wrong is not None:
            raise GradedInputError(f"{gdeval_named(self.gdeval)}: ir_measures computes it with gdeval, which needs "
                                   f"numeric topic ids ({what} {as_text(wrong)!r}); use "
                                   f"{gdeval_ours(self.gdeval)}, which takes any ids")

    def iter_calc(self, run: Any) -> Iterator[Any]:
        """The values of ``run`` (columns, an Arrow table, a frame or a dict of dicts), as
        ``evaluator.iter_calc`` yields them (a list: gdeval's failure is one line here)."""
        try:
            return list(self._iter_calc(run))
        except subprocess.CalledProcessError as ex:
            if not self.gdeval:
                raise
            raise GradedInputError(f"{gdeval_named(self.gdeval)}: ir_measures computes it with gdeval, which failed "
                                   f"(exit status {ex.returncode}): gdeval needs numeric topic ids and integer labels "
                                   f"up to {GDEVAL_TOP}; use {gdeval_ours(self.gdeval)}") from None

    def _iter_calc(self, run: Any) -> Iterator[Any]:
        if self.whole is not None:
            converted = dict_of_dict(run, "score")
            self._check_gdeval(converted, "the run has")
            if self.judged is not None:  # a judged query left out of the qrels given gets the measure's default
                return Gathered(self.whole.measures, self.judged, iter(list(self.whole.iter_calc(converted)))) \
                    .iter_calc(None)
            return self.whole.iter_calc(converted)
        assert self.qrels is not None
        if isinstance(run, Mapping):
            run = validated.run_columns(run, encode_docs=False)
        ranked = Grouped(run, "score")
        self._check_gdeval(ranked.query_ids, "the run has")
        parts: list[list] | None = None
        evaluator = None
        for codes in ranked.chunks(self.chunk_rows):
            judged = [self._index[q] for q in (ranked.query_ids[c] for c in codes.tolist()) if q in self._index]
            if not judged:
                continue
            evaluator = self.calc_obj.evaluator(self.measures, self.qrels.dict(np.array(judged, dtype=np.int64)))
            invokers = getattr(evaluator, "invokers", None)
            if invokers is None:  # not pytrec_eval's: the whole, at once
                whole = self.calc_obj.evaluator(self.measures, self.qrels.dict(np.arange(self.qrels.n_queries)))
                return whole.iter_calc(ranked.dict(np.arange(ranked.n_queries)))
            part = ranked.dict(codes)
            parts = parts if parts is not None else [[] for _ in invokers]
            for gathered, invoker in zip(parts, invokers, strict=True):
                gathered.extend(invoker.iter_calc(part))
        measures = evaluator.measures if evaluator is not None else self.measures
        return Gathered(measures, set(self.qrels.query_ids), itertools.chain.from_iterable(parts or [])).iter_calc(None)


#: gdeval's MAX_JUDGMENT: the highest label it reads.
GDEVAL_TOP = 4


def gdeval_measures(calc_obj: Any, measures: list) -> list:
    """The measures ``calc_obj`` computes with gdeval (ERR, ...): the one provider that needs numeric topic ids."""
    return served_by(calc_obj, measures, "gdeval")


def gdeval_named(measures: list) -> str:
    return ", ".join(str(m) for m in measures)


def gdeval_ours(measures: list, g_max: float | None = None) -> str:
    """Our graded ERR at the cutoffs of gdeval's ERR measures (``gERR@10`` for ``ERR@10``; with ``g_max``,
    ``gERR(g_max=8)@10``)."""
    errs = [m for m in measures if getattr(m, "NAME", None) == "ERR"]
    if not errs:  # gdeval's nDCG (--provider gdeval): ir_measures' default provider computes it
        return "ir_measures' default provider (leave out --provider gdeval)"
    top = "" if g_max is None else f"(g_max={g_max:g})"
    cutoffs = [m.params.get("cutoff") for m in errs]
    return ", ".join(dict.fromkeys(f"gERR{top}" + (f"@{c}" if c is not None else "") for c in cutoffs)) + \
        ", this package's graded ERR"


@contextlib.contextmanager
def progress_bar(path: str, enabled: bool = True) -> Iterator[Any]:
    """A tqdm bar of the bytes read, on stderr, only when stderr is a terminal and ``enabled``."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    total = os.path.getsize(path) if path != "-" and os.path.isfile(path) else None
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except OSError:
        size = os.terminal_size((0, 0))
    shape = {} if size.columns and size.lines else {"ncols": 80, "nrows": 24}  # a terminal of unknown size
    with tqdm(total=total, unit="B", unit_scale=True, desc=os.path.basename(str(path)) or str(path),
              file=sys.stderr, leave=False, **shape) as bar:
        yield bar
