"""All the judging of measures on one collection at once: :func:`meta_evaluate`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.meta.inputs import as_experiment, scores
from ir_measures_graded.meta.judging import discriminative_power, stability, topic_set_sizes
from ir_measures_graded.meta.scale import scale_dependence
from ir_measures_graded.meta.transforms import Transform

__all__ = ["MetaReport", "meta_evaluate"]


@dataclass(frozen=True)
class MetaReport:
    """What :func:`meta_evaluate` found; every field a tidy DataFrame."""

    scores: pd.DataFrame  # mean per run (rows) and measure (columns)
    scale: pd.DataFrame  # scale_dependence()
    stability: pd.DataFrame  # stability()
    power: pd.DataFrame  # discriminative_power()[0]
    pairs: pd.DataFrame  # discriminative_power()[1]: per run pair, with the ASL curve
    per_query: pd.DataFrame  # Experiment.per_query: run, query_id, measure, value
    comparison: pd.DataFrame  # Experiment.compare() against the baseline (its attrs name it)
    sizes: pd.DataFrame  # topic_set_sizes()
    notes: tuple[str, ...] = ()  # what the comparison did not test, and why


def meta_evaluate(
    experiment: Any, runs: Any = None, measures: Any = None, transforms: Sequence[str | Transform] | None = None,
    samples: int = 200, alpha: float = 0.05, test: str = "randomization", permutations: int | None = 10_000,
    seed: int = 0, baseline: Any = None, compare_test: str = "t", correction: str = "holm",
    alternative: str = "two-sided", family: str = "runs", min_difference: float = 0.05, power: float = 0.8,
    level: float = 0.95,
) -> MetaReport:
    """The three checks on one collection — scale dependence, stability and discriminative power
    (``test`` between every pair of runs) —, every run against ``baseline`` (``compare_test``; default:
    the experiment's baseline, else the first run; intervals at ``level``) and the topic-set size. ``experiment``: an
    :class:`~ir_measures_graded.experiment.Experiment`, or qrels with ``runs`` and ``measures``."""
    exp = as_experiment(experiment, runs, measures, keep_runs=True)
    if len(exp.runs) < 2:
        raise GradedInputError(f"meta-evaluation compares runs: give at least two (got {len(exp.runs)})")
    table = exp.per_query
    power_table, pairs = discriminative_power(table, alpha=alpha, test=test, permutations=permutations, seed=seed)
    comparison = exp.compare(baseline, test=compare_test, correction=correction, permutations=permutations,
                             seed=seed, alternative=alternative, family=family, level=level)
    return MetaReport(
        scores=scores(table), scale=scale_dependence(exp, transforms=transforms),
        stability=stability(table, samples=samples, seed=seed), power=power_table, pairs=pairs, per_query=table,
        comparison=comparison.table, sizes=topic_set_sizes(table, min_difference=min_difference, alpha=alpha,
                                                          power=power, alternative=alternative),
        notes=tuple(comparison.notes),
    )
