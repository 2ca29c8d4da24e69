"""The numbers of a report, each from the package's own functions.

Nothing is averaged here: the summary values, per-query values, the comparison (tests, intervals,
effect sizes, win/tie/loss) and the per-threshold breakdown are the
:class:`~ir_measures_graded.experiments.Experiment`'s, the scale check
:func:`ir_measures_graded.meta.scale_dependence`'s, the inputs' hashes the experiment's reading's.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import ir_measures
import pandas as pd

from ir_measures_graded.io.inputs import Input


@dataclass(frozen=True)
class Source:
    """One input as the header shows it: what it is, where it came from, and its SHA-256."""

    role: str  # "qrels" or "run"
    name: str
    origin: str | None  # the path, '-' or ir_datasets id as given; None: given in memory
    sha256: str
    hashed: str  # what the hash is of: "file bytes" or "rows (pandas row hashes)"
    rows: int
    size: int | None  # bytes of the file, None in memory


def frame_sha256(frame: pd.DataFrame) -> str:
    """A hash of a frame's rows (values and order, not the index): pandas' row hashes, then SHA-256."""
    rows = pd.util.hash_pandas_object(frame.reset_index(drop=True), index=False).to_numpy()
    return hashlib.sha256(rows.tobytes()).hexdigest()


def sources(exp: Any) -> list[Source]:
    """The qrels and each run of an experiment as the header shows them, from the inputs as read: files by
    the SHA-256 of their bytes (computed while they were read), inputs in memory by their rows."""
    return [_source("qrels", "qrels", exp.qrels)] + [_source("run", name, given)
                                                      for name, given in zip(exp.runs, exp.inputs, strict=True)]


def _source(role: str, name: str, given: Input) -> Source:
    if given.digest is not None:
        return Source(role, name, given.origin, given.digest, "file bytes", given.rows, given.size)
    if given.origin is not None:  # an ir_datasets id
        return Source(role, name, given.origin, "", "not hashed (not a file)", given.rows, None)
    frame = _frame(given.held(name, "the report's header"), given.kind)
    return Source(role, name, None, frame_sha256(frame), "rows (pandas row hashes)", len(frame), None)


def _frame(given: Any, kind: str) -> pd.DataFrame:
    if isinstance(given, pd.DataFrame):
        return given
    if hasattr(given, "to_pandas"):  # Arrow, polars
        return given.to_pandas()
    from ir_measures.util import QrelsConverter, RunConverter

    return (QrelsConverter if kind == "qrels" else RunConverter)(given).as_pd_dataframe()


def wide_values(per_query: pd.DataFrame, measure: str) -> pd.DataFrame:
    """One measure's per-query values: a row per query (the comparison's one order:
    :func:`~ir_measures_graded.experiments.comparison.wide`), a column per run."""
    from ir_measures_graded.experiments.comparison import wide

    return wide(per_query, measure).T


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
