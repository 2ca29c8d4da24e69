"""The names ``meta`` had before the experiment layer; each warns once per call and forwards to it.
Kept for one release (see CHANGELOG)."""

from __future__ import annotations

import warnings
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

__all__ = ["per_query", "compare_runs", "compare_results", "find_run"]


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"ir_measures_graded.meta.{old} is deprecated; use {new}", DeprecationWarning, stacklevel=3)


def per_query(qrels: Any, runs: Mapping[str, Any], measures: Any) -> pd.DataFrame:
    """Deprecated: ``experiment(qrels, runs, measures).per_query``."""
    from ir_measures_graded.experiment import experiment

    _deprecated("per_query", "ir_measures_graded.experiment(qrels, runs, measures).per_query")
    return experiment(qrels, runs, measures, warn=lambda _: None).per_query


@dataclass
class _Table:
    """A per-query table standing for an Experiment (what :func:`compare_runs` was given)."""

    per_query: pd.DataFrame
    aggregates: pd.DataFrame
    runs: list[str]
    measures: list[Any]
    missing: dict[str, int]

    @property
    def labels(self) -> list[str]:
        return [str(m) for m in self.measures]

    @property
    def judged(self) -> list[str]:
        return list(pd.unique(self.per_query["query_id"]))

    @property
    def untested(self) -> dict[str, str]:
        from ir_measures_graded.experiment.measure_lists import UNTESTED_WHY, mean_aggregated

        return {str(m): UNTESTED_WHY for m in self.measures if not mean_aggregated(m)}


@dataclass(frozen=True)
class _Named:
    """A measure known by its name only, with the aggregator ``compare_runs`` was told it has."""

    name: str
    mean: bool

    def __str__(self) -> str:
        return self.name

    def aggregator(self) -> Any:
        from ir_measures.measures.base import MeanAgg, SumAgg

        return MeanAgg() if self.mean else SumAgg()


def compare_runs(table: pd.DataFrame, baseline: str, test: str = "t", correction: str = "holm",
                 permutations: int | None = 10_000, seed: int = 0, alternative: str = "two-sided",
                 family: str = "runs", level: float = 0.95,
                 aggregates: Mapping[tuple[str, str], float] | None = None, untested: Collection[str] = ()) -> pd.DataFrame:
    """Deprecated: ``Experiment.compare(...).to_dataframe()``."""
    from ir_measures_graded.errors import GradedInputError
    from ir_measures_graded.experiment.comparison import compare

    _deprecated("compare_runs", "ir_measures_graded.experiment(...).compare(...)")
    runs = list(pd.unique(table["run"]))
    if baseline not in runs:
        raise GradedInputError(f"baseline {baseline!r} is not one of the runs: {', '.join(runs)}")
    names = list(pd.unique(table["measure"]))
    means = table.groupby(["run", "measure"], sort=False)["value"].mean()
    rows = [(r, m, float(aggregates[(r, m)] if aggregates is not None else means[(r, m)])) for m in names for r in runs]
    shown = _Table(table, pd.DataFrame(rows, columns=["run", "measure", "value"]), runs,
                   [_Named(m, m not in untested) for m in names], dict.fromkeys(runs, 0))
    from ir_measures_graded.experiment.testing import Testing

    testing = Testing.of(test=test, correction=correction, alternative=alternative, family=family, level=level,
                         permutations=permutations, seed=seed)
    return compare(shown, baseline, testing).table


def compare_results(results: Sequence[Any], measures: Sequence[Any], baseline: str, **options: Any) -> pd.DataFrame:
    """Deprecated: ``Experiment.compare(...)`` (an engine's results as runs named by their paths)."""
    _deprecated("compare_results", "ir_measures_graded.experiment(...).compare(...)")
    options.pop("by_tag", None)
    options.pop("warn", None)
    names = [r.name for r in results]
    rows = [(r.name, str(m.query_id), str(m.measure), float(m.value)) for r in results for m in r.per_query]
    table = pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])
    wide = table.pivot_table(index=["measure", "query_id"], columns="run", values="value", sort=False)
    wide = wide.reindex(columns=names).fillna(0.0)
    full = wide.stack().rename("value").reset_index()[["run", "query_id", "measure", "value"]]
    from ir_measures_graded.experiment import find_baseline
    from ir_measures_graded.experiment.comparison import compare

    base = find_baseline(baseline, names, names, tags=[r.tag for r in results])
    aggregates = pd.DataFrame([(r.name, str(m), float(v)) for r in results for m, v in r.summary.items()],
                              columns=["run", "measure", "value"])
    shown = _Table(full, aggregates, names, list(measures), dict.fromkeys(names, 0))
    from ir_measures_graded.experiment.testing import Testing

    return compare(shown, base, Testing.of(**options)).table


def find_run(names: Sequence[str], key: str, tags: Sequence[str] = (), option: str = "baseline",
             labels: Sequence[str] | None = None) -> str:
    """Deprecated: :func:`ir_measures_graded.experiment.find_baseline`."""
    from ir_measures_graded.experiment import find_baseline

    _deprecated("find_run", "ir_measures_graded.experiment.find_baseline")
    return find_baseline(key, list(labels) if labels is not None else list(names), names, tags=tags, option=option)
