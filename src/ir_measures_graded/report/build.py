"""The numbers of a report, each from the package's own functions.

Nothing is averaged here: the summary values are ``ir_measures``' ``calc_aggregate`` (each measure's
own aggregator, so µMAP with ``levels='collection'`` is the paper's collection-level mean), the
per-query values, the paired tests and their correction come from :mod:`ir_measures_graded.meta`,
the per-threshold values from :func:`ir_measures_graded.by_level` and the scale check from
:func:`ir_measures_graded.meta.scale_dependence`; intervals, effect sizes and win/tie/loss counts
from :func:`ir_measures_graded.meta.compare_runs`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ir_measures
import numpy as np
import pandas as pd

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures.base import parse_measures


@dataclass(frozen=True)
class Source:
    """One input as the header shows it: what it is, where it came from, and its SHA-256."""

    role: str  # "qrels" or "run"
    name: str
    origin: str  # the path, or how it was given in memory
    sha256: str
    hashed: str  # what the hash is of: "file bytes" or "rows (pandas row hashes)"
    rows: int
    size: int | None  # bytes of the file, None in memory


def file_sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def frame_sha256(frame: pd.DataFrame) -> str:
    """A hash of a frame's rows (values and order, not the index): pandas' row hashes, then SHA-256."""
    rows = pd.util.hash_pandas_object(frame.reset_index(drop=True), index=False).to_numpy()
    return hashlib.sha256(rows.tobytes()).hexdigest()


def load_qrels(qrels: Any, name: str = "qrels") -> tuple[pd.DataFrame, Source]:
    """Qrels from a path (TREC text, gzip, Parquet, Arrow IPC) or any form ``ir_measures`` reads."""
    from ir_measures.util import QrelsConverter

    from ir_measures_graded.io.readers import read_qrels

    if isinstance(qrels, (str, os.PathLike)):
        frame = read_qrels(qrels)
        return frame, _file_source("qrels", name, qrels, len(frame))
    frame = qrels if isinstance(qrels, pd.DataFrame) else QrelsConverter(qrels).as_pd_dataframe()
    _need_columns(frame, ("query_id", "doc_id", "relevance"), "qrels")
    return frame, _frame_source("qrels", name, frame)


def load_runs(runs: Mapping[str, Any] | Sequence[str | os.PathLike]) -> tuple[dict[str, pd.DataFrame], list[Source]]:
    """``{name: run}`` (paths or anything ``ir_measures`` reads) or a list of paths (named by file stem)."""
    from ir_measures.util import RunConverter

    from ir_measures_graded.io.readers import read_run

    if not isinstance(runs, Mapping):
        runs = list(runs)
        if not all(isinstance(r, (str, os.PathLike)) for r in runs):
            raise GradedInputError("runs: give a mapping {name: run} or a list of run file paths")
        runs = dict(zip(run_names([str(r) for r in runs]), runs, strict=True))
    if not runs:
        raise GradedInputError("no run given")
    frames, sources = {}, []
    for name, run in runs.items():
        name = str(name)
        if isinstance(run, (str, os.PathLike)):
            frame = read_run(run)
            sources.append(_file_source("run", name, run, len(frame)))
        else:
            frame = run if isinstance(run, pd.DataFrame) else RunConverter(run).as_pd_dataframe()
            _need_columns(frame, ("query_id", "doc_id", "score"), f"run {name!r}")
            sources.append(_frame_source("run", name, frame))
        frames[name] = frame
    return frames, sources


def evaluated_form(runs: Mapping[str, pd.DataFrame], measures: Sequence[ir_measures.Measure]) -> Mapping[str, Any]:
    """The runs in the form the evaluators read fastest: dicts of dicts when a trec_eval-based measure is
    among ``measures`` (ir_measures converts a DataFrame into one row by row at every evaluation, and the
    report evaluates each run several times), else the frames (this package's provider reads columns)."""
    from ir_measures_graded.measures import GradedMeasure

    if all(isinstance(m, GradedMeasure) for m in measures):
        return runs
    converted = {}
    for name, frame in runs.items():
        docs, scores = frame["doc_id"].astype(str).tolist(), frame["score"].astype(np.float64).tolist()
        out: dict[str, dict[str, float]] = {}
        for qid, rows in frame.groupby(frame["query_id"].astype(str), sort=False).indices.items():
            out[qid] = {docs[i]: scores[i] for i in rows}
        converted[name] = out
    return converted


def run_names(paths: Sequence[str]) -> list[str]:
    """The report's names for run files: the file name up to its first dot where that is unique (short,
    for legends), else the path as given."""
    stems = [Path(p).name.split(".")[0] or p for p in paths]
    return [s if stems.count(s) == 1 else p for s, p in zip(stems, paths, strict=True)]


def _need_columns(frame: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise GradedInputError(f"{what}: missing column(s) {', '.join(missing)} (has {', '.join(map(str, frame.columns))})")


def _file_source(role: str, name: str, path: str | os.PathLike, rows: int) -> Source:
    return Source(role, name, str(path), file_sha256(path), "file bytes", rows, os.path.getsize(path))


def _frame_source(role: str, name: str, frame: pd.DataFrame) -> Source:
    return Source(role, name, "in memory", frame_sha256(frame), "rows (pandas row hashes)", len(frame), None)


def resolve_baseline(baseline: str | None, names: Sequence[str], sources: Sequence[Source]) -> str:
    """The run ``baseline`` names: its name, path or file name; the first run when None."""
    if baseline is None:
        return names[0]
    found = [s.name for s in sources if baseline in (s.name, s.origin, Path(s.origin).name)]
    found = list(dict.fromkeys(found))
    if len(found) != 1:
        why = "matches several runs" if found else "is none of the runs"
        raise GradedInputError(f"baseline {baseline!r} {why} ({', '.join(names)})")
    return found[0]


def check_labels(qrels: pd.DataFrame, measures: Sequence[ir_measures.Measure]) -> None:
    """Real-valued labels only for this package's measures (trec_eval's need integers)."""
    from ir_measures_graded.measures import GradedMeasure

    labels = qrels["relevance"].to_numpy(dtype=np.float64)
    integer_only = [str(m) for m in measures if not isinstance(m, GradedMeasure)]
    if integer_only and not np.all(labels == np.round(labels)):
        raise GradedInputError(f"the qrels have real-valued labels, which {', '.join(integer_only)} cannot take "
                               "(trec_eval-based measures need integers)")


# --- the numbers ------------------------------------------------------------------------------------

def aggregates(qrels: pd.DataFrame, runs: Mapping[str, pd.DataFrame],
               measures: Sequence[ir_measures.Measure]) -> pd.DataFrame:
    """``run``, ``measure``, ``value``: ``calc_aggregate`` of each run (the qrels prepared once)."""
    evaluator = ir_measures.evaluator(measures, qrels)
    rows = []
    for name, run in runs.items():
        values = evaluator.calc_aggregate(run)
        rows += [{"run": name, "measure": str(m), "value": float(values.get(m, np.nan))} for m in measures]
    return pd.DataFrame(rows, columns=["run", "measure", "value"])


def comparison(per_query: pd.DataFrame, summary: pd.DataFrame, baseline: str, test: str, correction: str,
               alpha: float, permutations: int | None, seed: int) -> pd.DataFrame:
    """Every run against ``baseline`` per measure: :func:`meta.compare_runs` with the runs' values as
    ``calc_aggregate`` gave them (``summary``) and its intervals at ``1 - alpha``: delta, t and
    bootstrap intervals, d_z, wins/ties/losses, p-value and corrected p-value."""
    from ir_measures_graded import meta

    aggregates = {(row.run, row.measure): row.value for row in summary.itertuples(index=False)}
    return meta.compare_runs(per_query, baseline, test=test, correction=correction, permutations=permutations,
                             seed=seed, level=1 - alpha, aggregates=aggregates)


def wide_values(per_query: pd.DataFrame, measure: str) -> pd.DataFrame:
    """One measure's per-query values: a row per query (in the qrels' order), a column per run."""
    of = per_query[per_query["measure"] == measure]
    wide = of.pivot(index="query_id", columns="run", values="value")
    return wide.reindex(index=pd.unique(of["query_id"]), columns=pd.unique(of["run"]))


def threshold_measures(measures: Sequence[ir_measures.Measure],
                       thresholds: Iterable[Any] | None) -> list[ir_measures.Measure]:
    """The measures broken down per relevance threshold: ``thresholds`` if given, else the µAP / µP@k
    among ``measures``, with µMAP (MAP^t) and µP@10 (P^t@10) added when no measure of their kind is."""
    from ir_measures_graded.measures import muAP, muP
    from ir_measures_graded.measures.thresholded import ThresholdedMeasure

    if thresholds is not None:
        chosen = parse_measures(thresholds, at_least_one=False)
        wrong = [str(m) for m in chosen if not isinstance(m, ThresholdedMeasure)]
        if wrong:
            raise GradedInputError(f"thresholds: {', '.join(wrong)} cannot be broken down per threshold; "
                                   "give muMAP (muAP) or muP@k")
        return chosen
    chosen = [m for m in measures if isinstance(m, ThresholdedMeasure)]
    if not any(m.NAME == "muAP" for m in chosen):
        chosen.insert(0, muAP)
    if not any(m.NAME == "muP" for m in chosen):
        chosen.append(muP @ 10)
    return chosen


def levels(qrels: pd.DataFrame, runs: Mapping[str, pd.DataFrame],
           measures: Sequence[ir_measures.Measure]) -> pd.DataFrame:
    """``by_level`` of every run for each measure: ``measure``, ``run``, ``threshold``, ``weight``,
    ``value``, ``queries``."""
    from ir_measures_graded.per_level import by_level

    frames = [by_level(m, qrels, run).assign(measure=str(m), run=name)
              for m in measures for name, run in runs.items()]
    columns = ["measure", "run", "threshold", "weight", "value", "queries"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


def measure_parameters(measure: ir_measures.Measure) -> dict[str, Any]:
    """Every parameter the measure supports with the value it uses (given or default)."""
    from ir_measures_graded.measures import GradedMeasure

    found = {}
    for name, info in measure.SUPPORTED_PARAMS.items():
        if isinstance(measure, GradedMeasure):
            found[name] = measure[name]
        else:  # ir_measures marks "not given, no default" with a bare object()
            value = measure.params.get(name, info.default)
            found[name] = None if type(value) is object else value
    return found
