"""The numbers of a report, each from the package's own functions.

Nothing is averaged here: the summary values, per-query values and the comparison (tests, intervals,
effect sizes, win/tie/loss) are the :class:`~ir_measures_graded.experiment.Experiment`'s, the
per-threshold values :func:`ir_measures_graded.by_level`'s and the scale check
:func:`ir_measures_graded.meta.scale_dependence`'s. Here: where the inputs came from (hashes).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ir_measures
import pandas as pd


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


def sources(exp: Any) -> list[Source]:
    """The qrels and each run of an experiment as the header shows them (files hashed by their bytes,
    inputs in memory by their rows)."""
    found = [_source("qrels", "qrels", exp.qrels, "qrels")]
    return found + [_source("run", name, spec, "run", r.rows)
                    for name, spec, r in zip(exp.runs, exp.specs, exp.results, strict=True)]


def _source(role: str, name: str, given: Any, kind: str, rows: int | None = None) -> Source:
    from ir_measures_graded.experiment.naming import display

    if isinstance(given, str) and os.path.isfile(given):
        rows = rows if rows else sum(1 for line in _lines(given) if line.strip())
        return Source(role, name, display(given), file_sha256(given), "file bytes", rows, os.path.getsize(given))
    if isinstance(given, str):  # an ir_datasets id, or standard input
        return Source(role, name, display(given), "", "not hashed (not a file)", 0, None)
    frame = _frame(given, kind)
    return Source(role, name, "in memory", frame_sha256(frame), "rows (pandas row hashes)", len(frame), None)


def _lines(path: str) -> Any:
    from ir_measures_graded.io.readers import open_text

    with open_text(path) as stream:  # decompressed as the readers read it
        yield from stream


def _frame(given: Any, kind: str) -> pd.DataFrame:
    if isinstance(given, pd.DataFrame):
        return given
    if hasattr(given, "to_pandas"):  # Arrow, polars
        return given.to_pandas()
    from ir_measures.util import QrelsConverter, RunConverter

    return (QrelsConverter if kind == "qrels" else RunConverter)(given).as_pd_dataframe()


def wide_values(per_query: pd.DataFrame, measure: str) -> pd.DataFrame:
    """One measure's per-query values: a row per query (in the qrels' order), a column per run."""
    of = per_query[per_query["measure"] == measure]
    wide = of.pivot(index="query_id", columns="run", values="value")
    return wide.reindex(index=pd.unique(of["query_id"]), columns=pd.unique(of["run"]))


def levels(exp: Any, measures: Sequence[ir_measures.Measure]) -> pd.DataFrame:
    """``by_level`` of every run of the experiment for each measure: ``measure``, ``run``,
    ``threshold``, ``weight``, ``value``, ``queries`` (the qrels read once, the runs as the engine kept them)."""
    from ir_measures_graded.per_level import by_level
    from ir_measures_graded.sources import load_qrels

    qrels = load_qrels(exp.qrels) if isinstance(exp.qrels, str) else exp.qrels
    runs = {name: r.table if r.table is not None else spec
            for name, r, spec in zip(exp.runs, exp.results, exp.specs, strict=True)}
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
