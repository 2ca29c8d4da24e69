"""The per-topic view, as TREC's appendices show it: per topic and measure the best, median and
worst value over the runs and how many runs score 0; per run, its difference from each topic's median
and the topics where it is the best or the worst. Values within
:func:`ir_measures_graded.statistics.tolerance` (of the measure's values) are equal: a run within it of
the best value is best, within it of 0 scores 0."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded import statistics
from ir_measures_graded.organiser import common

__all__ = ["Topics", "topics"]


@dataclass
class Topics(common.View):
    """``table``: a row per topic and measure (``query_id``, ``measure``, ``best``, ``median``, ``worst``,
    ``zero``: runs scoring 0, ``runs``: runs with a value, ``best_runs``: who scores the best);
    ``runs``: a row per run, topic and measure (``value``, ``median``, ``difference`` from the median,
    ``best``, ``worst``: whether it scores the topic's best / worst); ``summary``: a row per run and measure
    (mean difference from the median, topics it is best / worst on, and which)."""

    table: pd.DataFrame
    runs: pd.DataFrame
    summary: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    title: str = "Per topic: best, median and worst over the runs"
    label: str = "tab:topics"

    def plot(self, run: str, measure: str | None = None, path: Any = None) -> Any:
        """The figure of one run: per topic its difference from the median run (bars, topics sorted
        from the largest gain), the topics where it is best and worst marked; saved to ``path`` when
        given. Needs matplotlib (the ``meta`` extra)."""
        from ir_measures_graded.organiser.figures import topics_figure

        return topics_figure(self, run, measure or str(self.runs["measure"].iloc[0]), path)


def topics(exp: Any, measures: Sequence[Any] | None = None) -> Topics:
    """The per-topic view of ``exp``'s runs for ``measures`` (default: all)."""
    common.check_runs(exp, "the per-topic view")
    names = common.chosen(exp, measures)
    pq = exp.per_query
    pq = pq[pq["measure"].isin(names)].copy()
    tol = pq.groupby("measure", sort=False)["value"].transform(lambda v: statistics.tolerance(v.to_numpy()))
    keys = ["query_id", "measure"]
    grouped = pq.groupby(keys, sort=False)["value"]
    pq["median"] = grouped.transform("median")
    pq["best_value"] = grouped.transform("max")
    pq["worst_value"] = grouped.transform("min")
    pq["difference"] = pq["value"] - pq["median"]
    # a topic every run scores 0 on has no best run and no worst
    scored = (pq["best_value"].abs() > tol) | (pq["worst_value"].abs() > tol)
    pq["best"] = ((pq["best_value"] - pq["value"]) <= tol) & scored
    pq["worst"] = ((pq["value"] - pq["worst_value"]) <= tol) & scored
    pq["zero"] = pq["value"].abs() <= tol
    table = pq.groupby(keys, sort=False).agg(
        best=("best_value", "first"), median=("median", "first"), worst=("worst_value", "first"),
        zero=("zero", "sum"), runs=("value", "count")).reset_index()
    best_runs = pq[pq["best"]].groupby(keys, sort=False)["run"].agg(", ".join)
    table["best_runs"] = best_runs.reindex(pd.MultiIndex.from_frame(table[keys])).fillna("").to_numpy()
    table["zero"] = table["zero"].astype(np.int64)
    per_run = pq[["run", "query_id", "measure", "value", "median", "difference", "best", "worst"]].reset_index(drop=True)
    summary = per_run.groupby(["run", "measure"], sort=False).agg(
        mean_difference=("difference", "mean"), best=("best", "sum"), worst=("worst", "sum")).reset_index()
    for which in ("best", "worst"):
        listed = per_run[per_run[which]].groupby(["run", "measure"], sort=False)["query_id"].agg(", ".join)
        summary[f"{which}_topics"] = listed.reindex(pd.MultiIndex.from_frame(summary[["run", "measure"]])) \
            .fillna("").to_numpy()
        summary[which] = summary[which].astype(np.int64)
    notes = [f"{len(exp.runs)} runs. zero: runs scoring 0 on the topic; best_runs: the runs scoring its best value "
             "(values within 1e-9 of the measure's largest value are equal; none where every run scores 0).",
             *exp.unjudged_note]
    return Topics(table, per_run, summary, notes)
