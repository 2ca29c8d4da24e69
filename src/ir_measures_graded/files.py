"""Evaluating qrels and run files as the command line does: qrels prepared once, runs streamed.

Our measures read each run file by query batches (bounded memory, see :mod:`.scan`). Standard
``ir_measures`` measures get the run read once by the Arrow reader, as the dict of dicts
pytrec_eval takes (so ir_measures converts nothing); our measures then use the same table.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import ir_measures
import numpy as np

from ir_measures_graded.io import columns as validated
from ir_measures_graded.io.readers import read_qrels_table, read_run_table
from ir_measures_graded.measures import GradedMeasure

__all__ = ["evaluate_runs", "read_qrels_table", "qrels_columns", "run_columns", "progress_bar"]


def qrels_columns(args: Any) -> dict[str, str]:
    """Column names of Parquet / Arrow qrels, from the command-line options."""
    return {k: v for k, v in (("query_id", args.query_column), ("doc_id", args.doc_column),
                              ("relevance", args.relevance_column)) if v}


def run_columns(args: Any) -> dict[str, str]:
    """Column names of Parquet / Arrow runs, from the command-line options."""
    return {k: v for k, v in (("query_id", args.query_column), ("doc_id", args.doc_column),
                              ("score", args.score_column)) if v}


def evaluate_runs(qrels: Any, run_paths: list[str], measures: list, provider: str | None = None, *,
                  columns: Mapping[str, str] | None = None, progress: bool = True,
                  report: Callable[[str, int, int], None] | None = None, keep: dict | None = None,
                  names: list[str] | None = None) -> Iterator[tuple]:
    """``(run name, Metric)`` for every run file; the qrels side is prepared once for all runs.

    ``provider``: None (our measures by us, the others by ``ir_measures.DefaultPipeline``) or the
    name of one provider computing everything. ``report(name, rows, matched queries)`` is called
    after each run. ``keep``: a dict that receives each run as an Arrow table (the run is then read
    whole instead of streamed). ``names``: how the runs are named (default: their paths). A
    progress bar is shown on stderr when it is a terminal and ``progress`` is true.
    """
    from ir_measures_graded.io.stream import RunScan
    from ir_measures_graded.provider import GradedProvider

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
        with progress_bar(path, progress) as bar:
            if other_evaluator is None and keep is None:
                scan = RunScan(path, columns=columns, progress=bar)
                yield from ((name, metric) for metric in graded_evaluator.iter_calc(scan))
                rows, matched = scan.rows, scan.matched
                table = None
            else:
                table = read_run_table(path, columns, progress=bar)
        if table is not None:
            if keep is not None:
                keep[name] = table
            if other_evaluator is not None:
                yield from ((name, metric) for metric in other_evaluator.iter_calc(dict_of_dict(table, "score")))
            if graded_evaluator is not None:
                yield from ((name, metric) for metric in graded_evaluator.iter_calc(table))
            if judged is None:
                judged = set(_query_ids(qrels))
            rows = table.num_rows
            matched = len(judged.intersection(table.column("query_id").combine_chunks().dictionary.to_pylist()))
        if report is not None:
            report(name, rows, matched)


def dict_of_dict(obj: Any, value_field: str) -> dict:
    """``{query_id: {doc_id: value}}`` (the form ir_measures' pytrec_eval provider takes, so it
    converts nothing) from any accepted input; integral labels as int, as trec_eval needs them."""
    if isinstance(obj, Mapping):
        return obj
    import pyarrow as pa

    kind = "qrels" if value_field == "relevance" else "run"
    cols = (validated.qrels_columns if kind == "qrels" else validated.run_columns)(obj, encode_docs=False)
    if np.all(cols.query_codes[1:] >= cols.query_codes[:-1]):  # grouped by query already
        per_row, values = cols.doc_codes, cols.values
    else:
        order = np.argsort(cols.query_codes, kind="stable")
        per_row, values = cols.doc_codes[order], cols.values[order]
    identity = np.array_equal(per_row, np.arange(len(per_row)))
    docs = (cols.doc_ids if identity else cols.doc_ids.take(pa.array(per_row))).to_pylist()
    if kind == "qrels" and len(values) and validated.integral_labels(values):
        values = values.astype(np.int64)
    values = values.tolist()
    ptr = np.zeros(len(cols.query_ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(cols.query_codes, minlength=len(cols.query_ids)), out=ptr[1:])
    bounds = ptr.tolist()
    return {q: dict(zip(docs[bounds[i]:bounds[i + 1]], values[bounds[i]:bounds[i + 1]], strict=True))
            for i, q in enumerate(cols.query_ids.tolist())}


def _arrow_indices(codes: np.ndarray) -> Any:
    import pyarrow as pa

    return pa.array(codes)


def _query_ids(qrels: Any) -> list[str]:
    return validated.qrels_columns(qrels).query_ids.tolist()


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
