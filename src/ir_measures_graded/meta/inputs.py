"""What the judging of measures takes: an :class:`~ir_measures_graded.experiments.Experiment` (its inputs
read once), or for the per-query checks its per-query table."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import Experiment

__all__ = ["as_experiment", "per_query_table", "scores"]


def as_experiment(given: Any, what: str) -> Experiment:
    """``given``, an Experiment; else one line saying how to make one (``what`` needs it)."""
    if not isinstance(given, Experiment):
        raise GradedInputError(f"{what} takes an experiment: ir_measures_graded.experiment(qrels, runs, measures), "
                               f"not a {type(given).__name__}")
    return given


def per_query_table(given: Any) -> pd.DataFrame:
    """``run``, ``query_id``, ``measure``, ``value`` of an Experiment, or the table itself."""
    return given.per_query if isinstance(given, Experiment) else given


def scores(table: Any) -> pd.DataFrame:
    """Each run's score per measure: runs (rows, in order) × measures (columns, in order). Of an
    Experiment, each measure's own aggregate (the one definition of a run's score); of a bare
    per-query table, the mean of its values."""
    if isinstance(table, Experiment):
        wide = table.aggregates.pivot(index="run", columns="measure", values="value")
        return wide.reindex(index=table.runs, columns=table.labels)
    wide = table.pivot_table(index="run", columns="measure", values="value", aggfunc="mean", sort=False, dropna=False)
    return wide.reindex(index=pd.unique(table["run"]), columns=pd.unique(table["measure"]))
