"""The local engine: qrels and run files evaluated in this process, qrels prepared once, runs streamed.

Our measures read each run file by query batches (bounded memory, see :mod:`..io.stream`).
Standard ``ir_measures`` measures get the run read once by the Arrow reader, as the dict of dicts
pytrec_eval takes (so ir_measures converts nothing); our measures then use the same table.
Each measure's summary is its own aggregator's result, as ``ir_measures.calc_aggregate`` gives it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import ir_measures
import numpy as np

from ir_measures_graded.arrow import from_numpy
from ir_measures_graded.engines import Request, RunResult, name_tags, run_tag
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.small import TextTable, read_small
from ir_measures_graded.io.trec import QRELS, RUN
from ir_measures_graded.lazy import lazy_module
from ir_measures_graded.measures import GradedMeasure
from ir_measures_graded.provider import GradedProvider
from ir_measures_graded.sources import load_qrels

# The Arrow readers and column checks load when an input needs them (small TREC files do not).
validated = lazy_module("ir_measures_graded.io.columns")
readers = lazy_module("ir_measures_graded.io.readers")

__all__ = ["LocalEngine", "load_qrels", "evaluate_runs", "dict_of_dict", "progress_bar"]


class LocalEngine:
    """Evaluates a :class:`~ir_measures_graded.engines.Request` in this process."""

    def evaluate(self, request: Request) -> list[RunResult]:
        measures = request.measures
        small = small_inputs(request)
        if small is None and request.whole_process:
            keep_freed_memory()
        qrels = (small.pop(request.qrels) if small else load_qrels(request.qrels, request.qrels_columns)
                 if isinstance(request.qrels, str) else request.qrels)
        check_label_types(qrels, measures, request.provider)
        check_supported(measures, request.provider)
        judged = qrels.num_rows if hasattr(qrels, "num_rows") else len(qrels)
        if not judged and request.warn is not None:
            request.warn(f"the qrels {request.qrels if isinstance(request.qrels, str) else ''} hold no judgments: every measure is undefined (nan), "
                         "as in ir_measures")
        # Results by position: a file named twice is two runs, each with the values of that file alone.
        keys = [str(i) for i in range(len(request.runs))]
        results = {key: RunResult(run if isinstance(run, str) else f"run {i + 1}", "", [], {})
                   for i, (key, run) in enumerate(zip(keys, request.runs, strict=True))}
        aggregators = {key: {m: m.aggregator() for m in measures} for key in keys}
        kept: dict[str, Any] = {}
        for key, metric in evaluate_runs(qrels, [_source(run) for run in request.runs], measures, request.provider,
                                         columns=request.run_columns, progress=request.progress,
                                         report=self._counts(results), keep=kept if request.keep_runs
                                         or request.thresholds else None, names=keys, tables=small):
            # values kept as given: an aggregator may need more than a float
            aggregators[key][metric.measure].add(metric.value)
            if request.by_query:
                results[key].per_query.append(metric)
        judged_ids = _query_ids(qrels, "qrels")
        for (key, result), run in zip(results.items(), request.runs, strict=True):
            result.judged = judged_ids
            if request.summary:
                result.summary = {m: aggregators[key][m].result() for m in measures}
            result.table = kept.get(key) if request.keep_runs else None
            result.tag = run_tag(run, result.table) or result.name
            if judged and request.warn is not None:
                check_shared_queries(result, request)
            if request.thresholds:
                from ir_measures_graded.per_level import threshold_table

                table = kept[key] if key in kept else readers.read_run_table(_source(run), request.run_columns)
                result.levels = threshold_table(measures, qrels, table)
        return name_tags(list(results.values()))

    @staticmethod
    def _counts(results: dict[str, RunResult]) -> Callable[[str, int, int], None]:
        def report(name: str, rows: int, matched: int) -> None:
            results[name].rows, results[name].matched = rows, matched

        return report


def _source(spec: Any) -> Any:
    """What the reader opens for a run argument: ``-`` is standard input; a run in memory is itself."""
    return "/dev/stdin" if isinstance(spec, str) and spec == "-" else spec


def small_inputs(request: Request) -> dict[str, TextTable] | None:
    """The qrels (under ``request.qrels``) and every run (under its source path) read by the
    numpy-only reader, when all of them are small TREC files in the common layout; else None, and
    every input goes through the Arrow reader (runs kept as tables need it too)."""
    if request.keep_runs or request.thresholds or not all(isinstance(s, str) for s in [request.qrels, *request.runs]):
        return None
    tables = {request.qrels: read_small(request.qrels, QRELS)}
    for path in request.runs:
        tables[_source(path)] = read_small(_source(path), RUN)
    return tables if all(table is not None for table in tables.values()) else None


#: glibc's mallopt parameters (malloc.h) and the values keep_freed_memory sets.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
FREED_KEPT = {M_MMAP_THRESHOLD: 32 << 20, M_TRIM_THRESHOLD: 32 << 20}


def keep_freed_memory() -> bool:
    """Let glibc's malloc keep freed memory for the next query batch, and pyarrow allocate through
    it too; True if it took the settings.

    Each batch frees arrays of about the size the next one allocates. By default glibc returns the
    top of the heap to the system once more than twice its (adaptive) mmap threshold is free, so
    the next batch faults the same pages in again: a quarter of a second of system time at 5M run
    lines, a tenth of the wall time. Here blocks below 32 MiB come from the heap and up to 32 MiB
    of it stays; pyarrow's buffers, from its own allocator otherwise, then reuse that memory as
    numpy's do. Process-wide, so only for the command line (``Request.whole_process``); a no-op
    with another C library.
    """
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # no mallopt (macOS, Windows)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    if not all([mallopt(parameter, value) == 1 for parameter, value in FREED_KEPT.items()]):
        return False
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())
    return True


def check_shared_queries(result: RunResult, request: Request) -> None:
    """Warn about a run that is empty or shares no query with the (non-empty) qrels."""
    if not result.rows:
        request.warn(f"run {result.name} is empty: every query of the qrels scores 0")
    elif not result.matched:
        qrels = f"the qrels {request.qrels}" if isinstance(request.qrels, str) else "the qrels"
        request.warn(f"run {result.name} shares no query with {qrels}; every query scores 0")


def check_label_types(qrels: Any, measures: list[ir_measures.Measure], provider: str | None) -> None:
    """:func:`ir_measures_graded.labels.check_labels` on the qrels' label column."""
    from ir_measures_graded.labels import check_labels

    if isinstance(qrels, Mapping):
        labels = [v for docs in qrels.values() for v in docs.values()]
    elif isinstance(qrels, TextTable):
        labels = qrels.value
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


def evaluate_runs(qrels: Any, run_paths: list[str], measures: list, provider: str | None = None, *,
                  columns: Mapping[str, str] | None = None, progress: bool = True,
                  report: Callable[[str, int, int], None] | None = None, keep: dict | None = None,
                  names: list[str] | None = None, tables: Mapping[str, TextTable] | None = None) -> Iterator[tuple]:
    """``(run name, Metric)`` for every run file; the qrels side is prepared once for all runs.

    ``provider``: None (our measures by us, the others by ``ir_measures.DefaultPipeline``) or the
    name of one provider computing everything. ``report(name, rows, matched queries)`` is called
    after each run. ``keep``: a dict that receives each run as an Arrow table (the run is then read
    whole instead of streamed). ``names``: how the runs are named (default: their paths). ``tables``:
    runs already read by :func:`.io.small.read_small`, by path (the qrels then too). A progress bar
    is shown on stderr when it is a terminal and ``progress`` is true.
    """
    ours_only = provider == GradedProvider.NAME
    graded = [m for m in measures if ours_only or (provider is None and isinstance(m, GradedMeasure))]
    others = [m for m in measures if m not in graded]
    graded_evaluator = ir_measures.providers.registry[GradedProvider.NAME].evaluator(graded, qrels) if graded else None
    other_evaluator = None
    if others:
        calc_obj = ir_measures.providers.registry[provider] if provider else ir_measures.DefaultPipeline
        other_evaluator = calc_obj.evaluator(others, dict_of_dict(qrels, "relevance"))
    judged = None
    for path, name in zip(run_paths, names or run_paths, strict=True):
        with progress_bar(path, progress and isinstance(path, str)) as bar:
            if not isinstance(path, str):  # a run in memory
                table = path
            elif tables:  # read already (small files): the bar, if any, shows the file done
                table = tables[path]
                if bar is not None:
                    bar.update(os.path.getsize(path))
            elif other_evaluator is None and keep is None:
                from ir_measures_graded.io.stream import RunScan

                scan = RunScan(path, columns=columns, progress=bar)
                yield from ((name, metric) for metric in graded_evaluator.iter_calc(scan))
                rows, matched = scan.rows, scan.matched
                table = None
            else:
                table = readers.read_run_table(path, columns, progress=bar)
        if table is not None:
            if keep is not None:
                keep[name] = table
            if other_evaluator is not None:
                yield from ((name, metric) for metric in other_evaluator.iter_calc(dict_of_dict(table, "score")))
            if graded_evaluator is not None:
                yield from ((name, metric) for metric in graded_evaluator.iter_calc(table))
            if judged is None:
                judged = set(_query_ids(qrels, "qrels"))
            run_ids = _query_ids(table, "run")
            rows = (table.num_rows if hasattr(table, "num_rows") else sum(len(docs) for docs in table.values())
                    if isinstance(table, Mapping) else len(table))
            matched = len(judged.intersection(run_ids))
        if report is not None:
            report(name, rows, matched)


def _query_ids(obj: Any, kind: str) -> list[str]:
    """The distinct query ids of qrels or a run (``kind``) as read or given."""
    if isinstance(obj, TextTable):
        return obj.query_strings()
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
    if isinstance(obj, TextTable):
        return obj.dict_of_dict(integral=value_field == "relevance" and validated.integral_labels(obj.value))

    from ir_measures_graded.io.ids import as_strings

    kind = "qrels" if value_field == "relevance" else "run"
    cols = (validated.qrels_columns if kind == "qrels" else validated.run_columns)(obj, encode_docs=False)
    if np.all(cols.query_codes[1:] >= cols.query_codes[:-1]):  # grouped by query already
        per_row, values = cols.doc_codes, cols.values
    else:
        order = np.argsort(cols.query_codes, kind="stable")
        per_row, values = cols.doc_codes[order], cols.values[order]
    identity = np.array_equal(per_row, np.arange(len(per_row)))
    docs = as_strings(cols.doc_ids if identity else cols.doc_ids.take(from_numpy(per_row))).to_pylist()
    if kind == "qrels" and len(values) and validated.integral_labels(values):
        values = values.astype(np.int64)
    values = values.tolist()
    ptr = np.zeros(len(cols.query_ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(cols.query_codes, minlength=len(cols.query_ids)), out=ptr[1:])
    bounds = ptr.tolist()
    return {q: dict(zip(docs[bounds[i]:bounds[i + 1]], values[bounds[i]:bounds[i + 1]], strict=True))
            for i, q in enumerate(cols.query_ids.tolist())}


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
