"""How runs are tested: one value, checked once, that every view describes alike.

:class:`Testing` holds the test, the correction, the alternative, the family of the correction, alpha,
the resampling draws and the seed; it is the one way they reach the comparison against a baseline
(``Experiment.compare``), the report, the meta-evaluation (``judge``), the leaderboard and the
agreement between measures. One alpha drives everything: the intervals are at ``1 - alpha`` (one-sided
with a one-sided test: a mark and its interval never disagree), the marks are † (p < alpha) and ‡
(p < alpha / 5: 0.05 and 0.01 by default), the report's ▲/▼ and the leaderboard's groups at alpha
(:meth:`Testing.significant`, the one rule). :meth:`Testing.describe` and :meth:`Testing.interval` are
the sentences every view (text, Markdown, LaTeX, the report, the figures) prints about it;
:func:`pairwise_p` the one all-pairs test (the leaderboard's groups, the discriminative power).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from ir_measures_graded import statistics
from ir_measures_graded.errors import GradedInputError

__all__ = ["Testing", "TESTS", "FAMILIES", "CORRECTION_NAMES", "percent", "pairwise_p"]

#: Every test a Testing may name: the paired tests (against a baseline, or of every pair with a
#: correction across the pairs), then the tests of all pairs at once (the leaderboard, judge's power).
TESTS = (*statistics.PAIRED_TESTS, *statistics.MULTI_TESTS)
FAMILIES = ("runs", "all")
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "Benjamini-Hochberg", "none": "no"}
#: The strictest mark's level is alpha divided by this (0.05 -> 0.01).
STRICTER = 5


def percent(level: float) -> str:
    """A confidence level as a percentage with the digits it has: ``95%``, ``99.9%``, ``97.5%`` (never
    rounded to a whole percent: 99.9% is not 100%)."""
    return f"{float(level) * 100:.10g}%"


@dataclass(frozen=True)
class Testing:
    """How runs are tested, checked once when made (a one-line ``GradedInputError`` naming what is wrong):

    - ``test``: a paired test (``t``, ``randomization``, ``bootstrap``, ``wilcoxon``, ``sign``) or, for the
      leaderboard and the discriminative power only, a test of all pairs at once (``tukey``,
      ``randomized_tukey``);
    - ``correction`` (``holm``, ``bonferroni``, ``fdr_bh``, ``none``) across ``family``: the runs of each
      measure (``runs``) or all runs × measures (``all``); for all pairs, across the pairs of a measure;
    - ``alternative``: ``two-sided``, ``greater`` (the run beats the baseline) or ``less``; the intervals
      follow it (one-sided: their other end is ±∞);
    - ``alpha``: the marks († p < alpha, ‡ p < alpha / 5), ▲/▼, the groups; the intervals at 1 - alpha;
    - ``permutations``: draws of the resampling tests and the bootstrap interval (None: exact);
    - ``seed``: of every resampling.

    ``Experiment.compare``, ``report``, ``meta.meta_evaluate``, ``leaderboard`` and ``agreement`` take it as
    ``testing=``; the command line builds it once (``cli.args.testing_of``)."""

    test: str = "t"
    correction: str = "holm"
    alternative: str = "two-sided"
    family: str = "runs"
    alpha: float = 0.05
    permutations: int | None = 10_000
    seed: int = 0

    def __post_init__(self) -> None:
        for what, value, allowed in (("test", self.test, TESTS),
                                     ("correction", self.correction, statistics.CORRECTIONS),
                                     ("alternative", self.alternative, statistics.ALTERNATIVES),
                                     ("family", self.family, FAMILIES)):
            if value not in allowed:
                raise GradedInputError(f"unknown {what} {value!r}; expected one of {', '.join(allowed)}")
        if isinstance(self.alpha, bool) or not isinstance(self.alpha, numbers.Real) or not 0 < self.alpha < 1:
            raise GradedInputError(f"alpha must be between 0 and 1, got {self.alpha!r}")
        if self.permutations is not None and (isinstance(self.permutations, bool) or
                                              not isinstance(self.permutations, numbers.Integral)
                                              or self.permutations < 1):
            raise GradedInputError(f"the number of permutations must be positive (an integer, or None: exact), "
                                   f"got {self.permutations!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, numbers.Integral):
            raise GradedInputError(f"the seed must be an integer, got {self.seed!r}")

    @classmethod
    def of(cls, testing: Testing | None = None, **options: Any) -> Testing:
        """``testing``, or a Testing made of ``options`` (its fields as keywords: ``test``, ``correction``,
        ``alternative``, ``family``, ``alpha``, ``permutations``, ``seed``); both at once are refused, so
        that no keyword is silently dropped."""
        known = [f.name for f in fields(cls)]
        unknown = [k for k in options if k not in known]
        if unknown:
            raise GradedInputError(f"unknown testing option {unknown[0]!r}; expected one of {', '.join(known)}")
        if testing is not None and options:
            raise GradedInputError(f"give the testing options as one Testing or as keywords, not both: got testing "
                                   f"and {', '.join(f'{k}=' for k in options)}")
        if testing is not None and not isinstance(testing, Testing):
            raise GradedInputError(f"testing must be a Testing, got {type(testing).__name__}")
        return testing if testing is not None else cls(**options)

    @property
    def level(self) -> float:
        """The intervals' confidence level: 1 - alpha."""
        return 1 - self.alpha

    @property
    def percent(self) -> str:
        """The intervals' confidence level as printed, with its digits: ``95%``, ``99.9%``."""
        return percent(self.level)

    @property
    def levels(self) -> tuple[float, float]:
        """The significance levels of the marks, loosest first: (alpha, alpha / 5)."""
        return (self.alpha, self.alpha / STRICTER)

    def significant(self, p: Any) -> Any:
        """Whether each p-value is below alpha (a NaN p-value, no test made, is not): the one rule of the
        marks' loosest level, the report's ▲/▼, the leaderboard's groups and the discriminative power."""
        found = np.nan_to_num(np.asarray(p, dtype=np.float64), nan=1.0) < self.alpha
        return bool(found) if found.ndim == 0 else found

    def direction(self, delta: float, p: float) -> str:
        """The report's ▲ (significantly better than the baseline) or ▼ (worse), empty when not significant."""
        return ("▲" if delta > 0 else "▼") if self.significant(p) else ""

    def paired(self) -> Testing:
        """Itself when its test compares two runs (against a baseline); a one-line error otherwise."""
        if self.test not in statistics.PAIRED_TESTS:
            raise GradedInputError(f"test {self.test!r} tests all pairs of runs at once; a comparison against a "
                                   f"baseline takes a paired test: {', '.join(statistics.PAIRED_TESTS)}")
        return self

    def pairs(self, test: str | None = None, correction: str | None = None) -> Testing:
        """The same alpha, draws and seed for a test of every pair of runs (``test``, by default its own;
        ``correction`` across the pairs, by default its own): two-sided, corrected within each measure."""
        return replace(self, test=test or self.test, correction=correction or self.correction,
                       alternative="two-sided", family="runs")

    def check_pairs(self, what: str) -> Testing:
        """Itself when it can test every pair of runs (two-sided, corrected within a measure)."""
        if self.alternative != "two-sided":
            raise GradedInputError(f"{what} tests every pair of runs both ways: the alternative must be two-sided, "
                                   f"got {self.alternative!r}")
        if self.family != "runs":
            raise GradedInputError(f"{what} corrects across the pairs of each measure: the family must be 'runs', "
                                   f"got {self.family!r}")
        return self

    def corrected(self) -> str:
        """What the correction is, in words."""
        if self.correction == "none":
            return "uncorrected"
        family = "all runs × measures" if self.family == "all" else "the runs of each measure"
        return f"{CORRECTION_NAMES[self.correction]} correction across {family}"

    def describe(self, baseline: str) -> str:
        """The test, against what, how corrected: ``paired t-test against bm25 (two-sided; Holm ...)``."""
        return (f"{statistics.TEST_NAMES.get(self.test, self.test)} against {baseline} "
                f"({self.alternative}; {self.corrected()})")

    def describe_pairs(self) -> str:
        """The all-pairs test in words: ``randomised Tukey HSD (10,000 permutations)``, or ``paired t-test
        of every pair, Holm correction across the pairs``."""
        name = statistics.TEST_NAMES.get(self.test, self.test)
        if self.test in statistics.MULTI_TESTS:
            drawn = self.test in statistics.RESAMPLED and self.permutations
            return f"{name} ({self.permutations:,} permutations)" if drawn else name
        if self.correction == "none":
            return f"{name} of every pair, uncorrected"
        return f"{name} of every pair, {CORRECTION_NAMES[self.correction]} correction across the pairs"

    @property
    def sided(self) -> str:
        """``"one-sided "`` before the intervals' name with a one-sided test (their other end is ±∞), else nothing."""
        return "" if self.alternative == "two-sided" else "one-sided "

    def interval(self) -> str:
        """The interval of the deltas, in words: two-sided, or one-sided with a one-sided test."""
        return f"{self.percent} {self.sided}t confidence interval"


def pairwise_p(matrices: Sequence[np.ndarray], testing: Testing) -> list[np.ndarray]:
    """Per matrix of per-query values (runs × queries, one per measure), the runs × runs p-values of
    ``testing.test`` (two-sided), family-wise over the pairs of that matrix: the all-pairs tests are so
    by construction; a paired test's p-values are corrected by ``testing.correction`` across the pairs.
    The randomised Tukey HSD draws one set of permutations for every matrix (each p-value as the
    matrix's alone). NaN on the diagonal and for a run holding a NaN value. The one all-pairs test of
    the leaderboard's groups and judge's discriminative power."""
    xs = [np.asarray(values, dtype=np.float64) for values in matrices]
    if testing.test == "randomized_tukey":
        return statistics.randomized_tukey_hsd_many(xs, testing.permutations, testing.seed)
    if testing.test == "tukey":
        return [statistics.tukey_hsd(x, blocked=True) for x in xs]
    found = []
    for x in xs:
        i, j = np.triu_indices(len(x), k=1)
        p = np.full((len(x), len(x)), np.nan)
        if len(i):
            p[i, j] = p[j, i] = statistics.correct(
                statistics.paired_test(testing.test, x[i], x[j], permutations=testing.permutations, seed=testing.seed),
                testing.correction)
        found.append(p)
    return found
