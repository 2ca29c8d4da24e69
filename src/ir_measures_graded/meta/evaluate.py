"""All the judging of measures on one collection at once: :func:`meta_evaluate`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments.comparison import Comparison
from ir_measures_graded.experiments.testing import Testing
from ir_measures_graded.meta.inputs import as_experiment, scores
from ir_measures_graded.meta.judging import DEFAULT_TESTING, discriminative_power, stability, topic_set_sizes
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
    testing: Testing = field(default_factory=Testing)  # how the comparison was tested
    baseline: str = ""  # the comparison's baseline

    def comparison_view(self) -> Comparison:
        """The comparison against the baseline, with every view (text, markdown, LaTeX, tidy tables)."""
        return Comparison(self.comparison, self.baseline, self.testing, list(self.notes))


def meta_evaluate(
    experiment: Any, transforms: Sequence[str | Transform] | None = None,
    samples: int = 200, baseline: Any = None, min_difference: float = 0.05, power: float = 0.8,
    testing: Testing | None = None, pairs: Testing | None = None,
) -> MetaReport:
    """The three checks on one collection — scale dependence, stability and discriminative power —,
    every run against ``baseline`` (default: the experiment's baseline, else the first run) and the
    topic-set size. ``experiment``: an :class:`~ir_measures_graded.experiments.Experiment`. How: ``testing`` (a :class:`~ir_measures_graded.experiments.testing.Testing`,
    default ``Testing()``) tests the runs against the baseline, and its alpha, draws and seed serve every
    check; ``pairs`` tests every pair of runs for the discriminative power (default: ``testing``'s alpha,
    draws and seed with :data:`~ir_measures_graded.meta.judging.DEFAULT_TESTING`'s test, Sakai's
    uncorrected randomization test). Every check ranks runs by their measures' aggregates and tests only
    the measures the comparison tests."""
    exp = as_experiment(experiment, "meta-evaluation")
    if len(exp.runs) < 2:
        raise GradedInputError(f"meta-evaluation compares runs: give at least two (got {len(exp.runs)})")
    testing = Testing.of(testing)
    pairs = Testing.of(pairs) if pairs is not None else testing.pairs(DEFAULT_TESTING.test, DEFAULT_TESTING.correction)
    power_table, pair_table = discriminative_power(exp, pairs)
    comparison = exp.compare(baseline, testing=testing)
    return MetaReport(
        scores=scores(exp), scale=scale_dependence(exp, transforms=transforms),
        stability=stability(exp, samples=samples, seed=testing.seed), power=power_table, pairs=pair_table,
        per_query=exp.per_query, comparison=comparison.table,
        sizes=topic_set_sizes(exp, min_difference=min_difference, power=power, testing=testing),
        notes=tuple(comparison.notes), testing=testing, baseline=comparison.baseline,
    )
