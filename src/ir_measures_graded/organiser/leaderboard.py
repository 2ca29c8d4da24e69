"""The leaderboard: runs sorted by one measure, each measure's value and rank, and per measure the
groups an all-pairs test cannot separate, as a compact letter display (Piepho 2004).

A run's score is its measure's aggregate (the experiment's); the test compares the per-query values,
so it applies only to measures whose aggregate is their mean (others get no letters, and the legend
says why). How runs are tested is one :class:`~ir_measures_graded.experiments.testing.Testing`, by
default :data:`DEFAULT_TESTING`: the randomised Tukey HSD (Carterette 2012, as Sakai recommends for
many systems); ``tukey`` (Tukey HSD blocked by query) or a paired test of every pair with a correction
across the pairs of a measure are the others (:func:`~ir_measures_graded.experiments.testing.pairwise_p`);
the same alpha decides every pair of every measure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded import statistics
from ir_measures_graded.experiments import formats
from ir_measures_graded.experiments.testing import Testing, pairwise_p
from ir_measures_graded.organiser import common
from ir_measures_graded.organiser.letters import compact_letters

__all__ = ["Leaderboard", "leaderboard", "DEFAULT_TESTING"]

#: How a leaderboard tests runs unless told: the randomised Tukey HSD at alpha 0.05, 10,000 permutations.
DEFAULT_TESTING = Testing(test="randomized_tukey")


@dataclass
class Leaderboard(common.View):
    """Runs sorted by ``by``: the tidy ``table`` has a row per run and measure (``run``, ``measure``,
    ``value``, ``rank``, ``group``: the run's letters, empty where the measure is not tested; ``ci_low``,
    ``ci_high``: the t confidence interval of the mean per-query value at 1 - alpha); ``p``
    holds each tested measure's runs × runs p-values (rows and columns in ``runs``' order)."""

    table: pd.DataFrame
    by: str
    runs: list[str]  # in the leaderboard's order
    measures: list[str]
    testing: Testing
    p: dict[str, np.ndarray] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    title: str = "Leaderboard"
    label: str = "tab:leaderboard"
    narrow: bool = True

    def significant(self, measure: str) -> np.ndarray | None:
        """The runs × runs matrix (``runs``' order) of pairs the test separates at ``alpha``; None untested."""
        p = self.p.get(measure)
        return None if p is None else self.testing.significant(p)

    def plot(self, path: Any = None, measure: str | None = None) -> Any:
        """The figure of ``measure`` (default: the sort measure): each run's value with its confidence
        interval, best on top, and its groups shaded beside it; saved to ``path`` when given (.png, .svg,
        .pdf). Needs matplotlib (the ``meta`` extra)."""
        from ir_measures_graded.organiser.figures import leaderboard_figure

        return leaderboard_figure(self, measure or self.by, path)

    def display(self, places: int = 4, latex: bool = False) -> pd.DataFrame:
        """A row per run, best first: per measure its value with its letters, and its rank (in LaTeX no rank
        columns: the rows are in the order of the sort measure, and the table fits one column of a
        two-column page)."""
        shown: dict[str, list[str]] = {"run": self.runs}
        for measure in self.measures:
            rows = self.table[self.table["measure"] == measure].set_index("run").reindex(self.runs)
            cells = []
            flags = rows["reversible"] if "reversible" in rows.columns else [pd.NA] * len(rows)
            for value, group, flagged in zip(rows["value"], rows["group"], flags, strict=True):
                text = formats.number(value, places) + ("*" if not pd.isna(flagged) and flagged > 0 else "")
                if group:
                    text += common.SUPERSCRIPT.format(group) if latex else f" {group}"
                cells.append(text)
            shown[measure] = cells
            if not latex:
                shown[f"rank {measure}" if len(self.measures) > 1 else "rank"] = [common.rank_text(r) for r in rows["rank"]]
        return pd.DataFrame(shown)


def leaderboard(exp: Any, by: Any = None, testing: Testing | None = None, measures: Sequence[Any] | None = None,
                bounds: Any = None) -> Leaderboard:
    """The runs of ``exp`` (an :class:`~ir_measures_graded.experiments.Experiment`) sorted by the measure
    ``by`` (default: the first), with each measure's value, rank and significance groups.

    - ``testing``: a :class:`~ir_measures_graded.experiments.testing.Testing` (default
      :data:`DEFAULT_TESTING`): its ``test`` — ``randomized_tukey`` (``permutations`` draws, ``seed``),
      ``tukey`` (blocked by query), or a paired test (``t``, ``randomization``, ``bootstrap``,
      ``wilcoxon``, ``sign``) of every pair corrected by its ``correction`` across the pairs of a
      measure —, two-sided; two runs whose p-value is below its ``alpha`` are separated (share no
      letter), and each run's interval is at ``1 - alpha``;
    - ties: runs whose scores are within :func:`ir_measures_graded.statistics.tolerance` share a rank;
      a run whose value is NaN comes last, without rank or letter;
    - ``bounds``: a :func:`~ir_measures_graded.organiser.bounds` of ``exp``: each row gets its interval
      (``low``, ``high``) and ``overlaps`` (other runs whose interval meets it), and a row whose interval
      overlaps another's is flagged ``*``.
    """
    testing = Testing.of(testing or DEFAULT_TESTING).check_pairs("the leaderboard")
    common.check_runs(exp, "a leaderboard")
    names = common.chosen(exp, measures)
    by = names[0] if by is None else common.resolve(exp, by)
    names = [by, *(m for m in names if m != by)]  # the column the runs are sorted by comes first
    untested = set(exp.untested) & set(names)  # the experiment's one rule
    runs = list(exp.runs)
    scores = {m: common.aggregate(exp, m) for m in names}
    ranks = {m: common.competition_ranks(scores[m]) for m in names}
    # best first; ties (and NaN, last) keep the experiment's order
    order = np.lexsort((np.arange(len(runs)), np.nan_to_num(ranks[by], nan=np.inf)))
    p_values: dict[str, np.ndarray] = {}
    groups: dict[str, list[str]] = {}
    intervals = {m: np.full((len(runs), 2), np.nan) for m in names}
    # with no judged query there is nothing to test: no letters (rather than letters of no values)
    tested = [m for m in names if m not in untested] if exp.judged else []
    values = {m: common.values(exp, m) for m in tested}
    found = dict(zip(tested, pairwise_p([values[m] for m in tested], testing), strict=True))
    for m in names:
        if m not in tested:
            groups[m] = [""] * len(runs)
            continue
        intervals[m] = statistics.t_interval(values[m], testing.level)
        p_values[m] = found[m][np.ix_(order, order)]
        groups[m] = _letters(found[m], scores[m], testing)
    rows = [(runs[i], m, float(scores[m][i]), ranks[m][i], groups[m][i], *intervals[m][i]) for i in order for m in names]
    table = pd.DataFrame(rows, columns=["run", "measure", "value", "rank", "group", "ci_low", "ci_high"])
    table["rank"] = table["rank"].astype("Int64")
    if bounds is not None:
        intervals_of = bounds.table.set_index(["run", "measure"])[["low", "high", "overlaps"]]
        table = table.join(intervals_of, on=["run", "measure"])
        table["overlaps"] = table["overlaps"].astype("Int64")
        table["reversible"] = _reversible(table, names, [runs[i] for i in order], p_values, testing)
    notes = [f"Sorted by {by}. Runs sharing a letter are not significantly different at alpha = {testing.alpha:g} "
             f"({testing.describe_pairs()}); runs with no letter in common are."]
    if bounds is not None:
        notes.append("*: judging the unjudged documents (at the floor or at the top grade of their topic) could "
                     "reverse an order the table claims: the run's incompleteness interval meets that of a run the "
                     "test separates it from (of any other run, for a measure without letters).")
    if not exp.judged:
        notes.append("No letters: the qrels hold no judged query.")
    elif untested:
        notes += [f"No letters for {m}: {exp.untested[m]}." for m in names if m in untested]
    notes += exp.unjudged_note
    return Leaderboard(table, by, [runs[i] for i in order], names, testing, p_values, notes)


def _reversible(table: pd.DataFrame, names: list[str], runs: list[str], p_values: dict[str, np.ndarray],
                testing: Testing) -> pd.Series:
    """Per row, how many runs the incompleteness intervals could swap it with in an order the table claims:
    intervals that meet, of runs the test separates (any two, for a measure not tested); <NA> without an
    interval."""
    found = pd.Series(pd.NA, index=table.index, dtype="Int64")
    for m in names:
        at = table.index[table["measure"] == m]
        rows = table.loc[at].set_index("run").reindex(runs)  # the board's order, as the p-values
        low, high = rows["low"].to_numpy(dtype=float), rows["high"].to_numpy(dtype=float)
        meet = (low[:, None] <= high[None, :]) & (low[None, :] <= high[:, None])  # NaN (no interval) meets none
        np.fill_diagonal(meet, False)
        if m in p_values:
            meet &= testing.significant(p_values[m])
        counts = pd.Series(meet.sum(axis=1), index=runs).astype("Int64")
        counts[np.isnan(low)] = pd.NA
        found[at] = counts.reindex(table.loc[at, "run"]).to_numpy()
    return found


def _letters(p: np.ndarray, scores: np.ndarray, testing: Testing) -> list[str]:
    """Letters of the runs tested (a run with a NaN p-value against every other was not: none)."""
    tested: np.ndarray = (np.flatnonzero(~np.all(np.isnan(p) | np.eye(len(p), dtype=bool), axis=1)) if len(p) > 1
                          else np.array([], dtype=np.intp))
    letters = [""] * len(p)
    if len(tested) < 2:
        return letters
    sub = p[np.ix_(tested, tested)]
    sig = testing.significant(sub)
    best_first = np.lexsort((np.arange(len(tested)), -np.nan_to_num(scores[tested], nan=-np.inf)))
    for k, found in zip(tested, compact_letters(sig, best_first), strict=True):
        letters[k] = found
    return letters

