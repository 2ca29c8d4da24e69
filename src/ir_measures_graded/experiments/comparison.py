"""Every run against a baseline, per measure, as PyTerrier's ``pt.Experiment(baseline=...)``: one
:class:`Comparison` that every output (DataFrame, text, markdown, LaTeX, tsv, csv, jsonl) is a view of.

What is tested, once for every entry point: a run's value and delta are each measure's own aggregate;
the paired test, intervals, effect size and wins/ties/losses take the per-query values (every judged
query, 0 where a run ranks nothing). A measure whose aggregate is not the mean of those values
(:attr:`Experiment.untested <ir_measures_graded.experiments.Experiment.untested>`: collection-level µMAP,
sums, a measure averaging only the ranked queries) and a pair with an undefined (NaN) per-query value
are not tested: p is NaN, nothing is marked, and :attr:`Comparison.notes` says why. How runs are
tested is one :class:`~ir_measures_graded.experiments.testing.Testing`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded import statistics
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import tables
from ir_measures_graded.experiments.testing import Testing

__all__ = ["Comparison", "compare", "COLUMNS", "wide", "matrix"]

#: Resamples of the bootstrap interval when ``permutations=None`` (an exact randomization test).
BOOTSTRAP_SAMPLES = 10_000
COLUMNS = ["run", "measure", "value", "delta", "ci_low", "ci_high", "boot_low", "boot_high", "effect_size",
           "wins", "ties", "losses", "queries", "missing", "test", "p_value", "p_adjusted"]


def wide(per_query: pd.DataFrame, measure: str, runs: Sequence[str] | None = None) -> pd.DataFrame:
    """One measure's per-query values (of the tidy ``run, query_id, measure, value`` table): a row per run
    (in ``runs``' order, by default the table's), a column per query, the query ids sorted. The one
    runs × queries matrix every test, interval, resampling and figure takes: its order never depends on
    the order of the input files' lines, so a seeded resampling draws the same queries either way."""
    of = per_query[per_query["measure"] == measure]
    runs = list(pd.unique(of["run"])) if runs is None else list(runs)
    found = of.pivot(index="run", columns="query_id", values="value")
    return found.reindex(index=runs, columns=sorted(found.columns, key=str)).astype(np.float64)


def matrix(per_query: pd.DataFrame, measure: str, runs: Sequence[str] | None = None) -> np.ndarray:
    """:func:`wide` as an array: runs × queries."""
    return wide(per_query, measure, runs).to_numpy(dtype=np.float64)


@dataclass
class Comparison:
    """The comparison table (tidy, numeric; :data:`COLUMNS`), the testing it was made with, and notes."""

    table: pd.DataFrame
    baseline: str
    testing: Testing = field(default_factory=Testing)
    notes: list[str] = field(default_factory=list)

    @property
    def test(self) -> str:
        return self.testing.test

    @property
    def level(self) -> float:
        return self.testing.level

    def to_dataframe(self) -> pd.DataFrame:
        """The tidy table: a row per run and measure, numbers as numbers (p-values too)."""
        return self.table.copy()

    def legend(self, deltas: bool = True) -> str:
        """What the marks (and the Δ columns) mean: the same sentence in every view."""
        return tables.legend(self.testing, self.baseline, deltas)

    def to_text(self, places: int = 4) -> str:
        return self.render("text", places)

    def to_markdown(self, places: int = 4) -> str:
        return self.render("markdown", places)

    def to_latex(self, places: int = 4, caption: str | None = None, label: str = "tab:comparison",
                 intervals: bool = True) -> str:
        """One complete ``table`` environment that fits one column of a two-column paper, its packages named
        on its first line (``% requires: \\usepackage{booktabs}``): per measure and run the value marked † / ‡
        against the baseline (the best of each measure in bold, ties with it too), its difference to the
        baseline (Δ) and, with ``intervals``, the interval of that difference, as the text table shows them:
        a block of rows per measure, a row per run. The legend and the notes are inside. The command line's ``-o latex`` writes this table (:func:`.tables.comparison_latex`)."""
        return tables.comparison_latex(self.table, self.testing, self.baseline, places, caption, label, self.notes,
                                       intervals)

    def render(self, output_format: str, places: int = 4, title: str = "") -> str:
        """The table in ``output_format``: the paper-style view (text, markdown; latex: :meth:`to_latex`)
        or the tidy table (tsv, csv, jsonl), with the notes after the legend in the human formats."""
        kind = tables.format_of(output_format, table=True)
        if kind.machine:
            return tables.machine(self.table, output_format, places)
        if output_format == "latex":  # the one LaTeX table, captioned by its baseline
            return self.to_latex(places)
        paper, legend = tables.paper_table(self.table, places=places, testing=self.testing)
        return tables.render(paper, output_format, places, title, "\n".join([legend, *self.notes]))


def compare(experiment: Any, baseline: str, testing: Testing | None = None) -> Comparison:
    """:class:`Comparison` of every run of ``experiment`` against ``baseline`` (a run's name)."""
    testing = (testing or Testing()).paired()
    runs = list(experiment.runs)
    if baseline not in runs:
        raise GradedInputError(f"baseline {baseline!r} is none of the runs ({', '.join(runs)})")
    per_query, aggregates = experiment.per_query, experiment.aggregates
    untested = experiment.untested
    notes = [f"{m}: {why}" for m, why in untested.items()]
    means = aggregates.set_index(["run", "measure"])["value"]
    b = runs.index(baseline)
    others = [k for k in range(len(runs)) if k != b]
    missing = experiment.missing
    rows = []
    for measure in experiment.labels:
        values = matrix(per_query, measure, runs)
        value = {name: float(means[(name, measure)]) for name in runs}
        tested = measure not in untested and values.shape[1] > 0
        common = {"measure": measure, "queries": values.shape[1]}
        rows.append({**common, "run": baseline, "value": value[baseline], "delta": 0.0,
                     "missing": missing[baseline], "test": testing.test if tested else None})
        undefined = np.isnan(values).any(axis=1)
        for k in others:
            name = runs[k]
            row = {**common, "run": name, "value": value[name], "delta": value[name] - value[baseline],
                   "missing": missing[name]}
            if tested and (undefined[k] or undefined[b]):
                notes.append(f"{measure}: {name} against {baseline} is not tested: "
                             f"{int(np.isnan(values[[k, b]]).any(axis=0).sum())} per-query value(s) are undefined (NaN)")
            elif tested:
                row.update(_tested(values[k], values[b], testing))
            rows.append(row)
    table = pd.DataFrame(rows, columns=COLUMNS)
    for column in ("value", "delta", "ci_low", "ci_high", "boot_low", "boot_high", "effect_size", "p_value"):
        table[column] = table[column].astype(np.float64)  # numbers as numbers, also where nothing was tested
    for column in ("wins", "ties", "losses", "queries", "missing"):
        table[column] = table[column].astype("Int64")
    table["p_adjusted"] = np.nan
    groups = [table.index] if testing.family == "all" else [g.index for _, g in table.groupby("measure", sort=False)]
    for index in groups:
        p = table.loc[index, "p_value"].to_numpy(dtype=np.float64)
        done = ~np.isnan(p)
        if done.any():
            table.loc[index[done], "p_adjusted"] = statistics.correct(p[done], testing.correction)
    table.attrs.update(baseline=baseline, test=testing.test, correction=testing.correction,
                       alternative=testing.alternative, family=testing.family, level=testing.level,
                       alpha=testing.alpha)
    return Comparison(table, baseline, testing, notes)


def _tested(run: np.ndarray, base: np.ndarray, testing: Testing) -> dict[str, Any]:
    """The per-query statistics of one run against the baseline."""
    a, b = run[None, :], base[None, :]
    d = statistics.differences(a, b)  # within the package's tolerance, a difference is 0 (a tie)
    p = statistics.paired_test(testing.test, a, b, testing.alternative, testing.permutations, testing.seed)
    # the intervals of the test's own alternative: a one-sided test's mark and its interval always agree
    ci = statistics.t_interval(d, testing.level, testing.alternative)
    samples = BOOTSTRAP_SAMPLES if testing.permutations is None else testing.permutations
    boot = statistics.bootstrap_interval(d, testing.level, samples=samples, seed=testing.seed,
                                         alternative=testing.alternative)
    counts = statistics.win_tie_loss(a, b)
    return {"ci_low": float(ci[0, 0]), "ci_high": float(ci[0, 1]), "boot_low": float(boot[0, 0]),
            "boot_high": float(boot[0, 1]), "effect_size": float(statistics.effect_size(d[0])[0]),
            "wins": int(counts[0, 0]), "ties": int(counts[0, 1]), "losses": int(counts[0, 2]), "test": testing.test,
            "p_value": float(p[0])}
