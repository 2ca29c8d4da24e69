"""Every run against a baseline, per measure, as PyTerrier's ``pt.Experiment(baseline=...)``: one
:class:`Comparison` that every output (DataFrame, text, markdown, LaTeX, tsv, csv, jsonl) is a view of.

What is tested, once for every entry point: a run's value and delta are each measure's own aggregate;
the paired test, intervals, effect size and wins/ties/losses take the per-query values (every judged
query, 0 where a run ranks nothing). A measure whose aggregate is not the mean of its per-query values
(collection-level µMAP, sums) and a pair with an undefined (NaN) per-query value are not tested: p is
NaN, nothing is marked, and :attr:`Comparison.notes` says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded import statistics
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiment import measure_lists, tables

__all__ = ["Comparison", "compare", "COLUMNS", "FAMILIES"]

FAMILIES = ("runs", "all")
#: Resamples of the bootstrap interval when ``permutations=None`` (an exact randomization test).
BOOTSTRAP_SAMPLES = 10_000
COLUMNS = ["run", "measure", "value", "delta", "ci_low", "ci_high", "boot_low", "boot_high", "effect_size",
           "wins", "ties", "losses", "queries", "missing", "test", "p_value", "p_adjusted"]


def check_choices(test: str, correction: str, alternative: str, family: str, level: float,
                  tests: tuple[str, ...] = statistics.PAIRED_TESTS) -> None:
    """One message for each option out of range, the same from every entry point."""
    for what, value, allowed in (("test", test, tests), ("correction", correction, statistics.CORRECTIONS),
                                 ("alternative", alternative, statistics.ALTERNATIVES), ("family", family, FAMILIES)):
        if value not in allowed:
            raise GradedInputError(f"unknown {what} {value!r}; expected one of {', '.join(allowed)}")
    if not 0 < level < 1:
        raise GradedInputError(f"the confidence level must be between 0 and 1, got {level}")


def matrix(per_query: pd.DataFrame, measure: str, runs: list[str]) -> np.ndarray:
    """One measure's per-query values: runs (in ``runs``' order) × queries."""
    of = per_query[per_query["measure"] == measure]
    wide = of.pivot(index="run", columns="query_id", values="value")
    return wide.reindex(index=runs, columns=pd.unique(of["query_id"])).to_numpy(dtype=np.float64)


@dataclass
class Comparison:
    """The comparison table (tidy, numeric; :data:`COLUMNS`) and how it was made."""

    table: pd.DataFrame
    baseline: str
    test: str = "t"
    correction: str = "holm"
    alternative: str = "two-sided"
    family: str = "runs"
    level: float = 0.95
    notes: list[str] = field(default_factory=list)

    @classmethod
    def of_table(cls, table: pd.DataFrame, notes: list[str] | tuple[str, ...] = ()) -> Comparison:
        """The comparison a table made by :func:`compare` holds (its ``attrs`` say how it was made)."""
        a = table.attrs
        return cls(table, a["baseline"], a["test"], a["correction"], a["alternative"], a["family"], a["level"],
                   list(notes))

    def to_dataframe(self) -> pd.DataFrame:
        """The tidy table: a row per run and measure, numbers as numbers (p-values too)."""
        return self.table.copy()

    def legend(self, levels: tuple[float, ...] = tables.LEVELS) -> str:
        return tables.paper_table(self.table, levels=levels)[1]

    def to_text(self, places: int = 4) -> str:
        return self.render("text", places)

    def to_markdown(self, places: int = 4) -> str:
        return self.render("markdown", places)

    def to_latex(self, places: int = 4, caption: str | None = None, label: str = "tab:comparison") -> str:
        """A complete ``table`` environment (needs ``\\usepackage{booktabs}``): a row per run, per measure
        its value — the best of each column in bold — marked † / ‡ against the baseline, the legend inside."""
        paper, legend = tables.paper_table(self.table, places=places, deltas=False)
        bold = set()
        for j, measure in enumerate(paper.columns[1:], start=1):
            values = self.table[self.table["measure"] == measure].set_index("run")["value"].reindex(paper["run"])
            if values.notna().any():
                bold |= {(i, j) for i, v in enumerate(values) if v == values.max()}
        caption = caption or f"Runs against the baseline {self.baseline}."
        return tables.latex_table(paper, caption, label, [legend, *self.notes], bold)

    def render(self, output_format: str, places: int = 4, title: str = "") -> str:
        """The table in ``output_format``: the paper-style view (text, markdown, latex) or the tidy
        table (tsv, csv, jsonl), with the notes after the legend in the human formats."""
        if output_format in tables.MACHINE_FORMATS:
            return tables.machine(self.table, output_format, places)
        paper, legend = tables.paper_table(self.table, places=places)
        return tables.render(paper, output_format, places, title, "\n".join([legend, *self.notes]))


def compare(experiment: Any, baseline: str, test: str = "t", correction: str = "holm",
            alternative: str = "two-sided", family: str = "runs", level: float = 0.95,
            permutations: int | None = 10_000, seed: int = 0) -> Comparison:
    """:class:`Comparison` of every run of ``experiment`` against ``baseline`` (a run's name)."""
    check_choices(test, correction, alternative, family, level)
    runs = list(experiment.runs)
    if baseline not in runs:
        raise GradedInputError(f"baseline {baseline!r} is none of the runs ({', '.join(runs)})")
    per_query, aggregates = experiment.per_query, experiment.aggregates
    untested = set(measure_lists.untested(experiment.measures))
    notes = [f"{m}: {measure_lists.UNTESTED_WHY}" for m in measure_lists.untested(experiment.measures)]
    means = aggregates.set_index(["run", "measure"])["value"]
    b = runs.index(baseline)
    others = [k for k in range(len(runs)) if k != b]
    missing = experiment.missing
    rows = []
    for measure in [str(m) for m in experiment.measures]:
        values = matrix(per_query, measure, runs)
        value = {name: float(means[(name, measure)]) for name in runs}
        tested = measure not in untested
        common = {"measure": measure, "queries": values.shape[1]}
        rows.append({**common, "run": baseline, "value": value[baseline], "delta": 0.0,
                     "missing": missing[baseline], "test": test if tested else None})
        undefined = np.isnan(values).any(axis=1)
        for k in others:
            name = runs[k]
            row = {**common, "run": name, "value": value[name], "delta": value[name] - value[baseline],
                   "missing": missing[name]}
            if tested and (undefined[k] or undefined[b]):
                notes.append(f"{measure}: {name} against {baseline} is not tested: "
                             f"{int(np.isnan(values[[k, b]]).any(axis=0).sum())} per-query value(s) are undefined (NaN)")
            elif tested:
                row.update(_tested(values[k], values[b], test, alternative, level, permutations, seed))
            rows.append(row)
    table = pd.DataFrame(rows, columns=COLUMNS)
    for column in ("wins", "ties", "losses", "queries", "missing"):
        table[column] = table[column].astype("Int64")
    table["p_adjusted"] = np.nan
    groups = [table.index] if family == "all" else [g.index for _, g in table.groupby("measure", sort=False)]
    for index in groups:
        p = table.loc[index, "p_value"].to_numpy(dtype=np.float64)
        done = ~np.isnan(p)
        if done.any():
            table.loc[index[done], "p_adjusted"] = statistics.correct(p[done], correction)
    table.attrs.update(baseline=baseline, test=test, correction=correction, alternative=alternative,
                       family=family, level=level)
    return Comparison(table, baseline, test, correction, alternative, family, level, notes)


def _tested(run: np.ndarray, base: np.ndarray, test: str, alternative: str, level: float,
            permutations: int | None, seed: int) -> dict[str, Any]:
    """The per-query statistics of one run against the baseline."""
    a, b = run[None, :], base[None, :]
    d = statistics.differences(a, b)  # within the package's tolerance, a difference is 0 (a tie)
    p = statistics.paired_test(test, a, b, alternative, permutations, seed)
    ci = statistics.t_interval(d, level)
    boot = statistics.bootstrap_interval(d, level, samples=BOOTSTRAP_SAMPLES if permutations is None else permutations,
                                         seed=seed)
    counts = statistics.win_tie_loss(a, b)
    return {"ci_low": float(ci[0, 0]), "ci_high": float(ci[0, 1]), "boot_low": float(boot[0, 0]),
            "boot_high": float(boot[0, 1]), "effect_size": float(statistics.effect_size(d[0])[0]),
            "wins": int(counts[0, 0]), "ties": int(counts[0, 1]), "losses": int(counts[0, 2]), "test": test,
            "p_value": float(p[0])}
