"""How runs are tested against a baseline: one value, resolved once, that every view describes alike.

:class:`Testing` holds the test, the correction, the alternative, the family of the correction, alpha,
the resampling draws and the seed. One alpha drives everything: the intervals are at ``1 - alpha``,
the marks are † (p < alpha) and ‡ (p < alpha / 5: 0.05 and 0.01 by default), the report's ▲/▼ at
alpha. :meth:`Testing.legend` is the one sentence every view (text, Markdown, LaTeX, the report)
prints about it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ir_measures_graded import statistics
from ir_measures_graded.errors import GradedInputError

__all__ = ["Testing", "FAMILIES", "CORRECTION_NAMES", "percent"]

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
    """The testing options, checked: see the module's docstring."""

    test: str = "t"
    correction: str = "holm"
    alternative: str = "two-sided"
    family: str = "runs"
    alpha: float = 0.05
    permutations: int | None = 10_000
    seed: int = 0

    def __post_init__(self) -> None:
        for what, value, allowed in (("test", self.test, statistics.PAIRED_TESTS),
                                     ("correction", self.correction, statistics.CORRECTIONS),
                                     ("alternative", self.alternative, statistics.ALTERNATIVES),
                                     ("family", self.family, FAMILIES)):
            if value not in allowed:
                raise GradedInputError(f"unknown {what} {value!r}; expected one of {', '.join(allowed)}")
        if not 0 < self.alpha < 1:
            raise GradedInputError(f"alpha must be between 0 and 1, got {self.alpha}")
        if self.permutations is not None and self.permutations < 1:
            raise GradedInputError(f"the number of permutations must be positive, got {self.permutations}")

    @classmethod
    def of(cls, alpha: float | None = None, level: float | None = None, **options: Any) -> Testing:
        """From keywords, alpha given as ``alpha`` or as the intervals' ``level`` (= 1 - alpha)."""
        if alpha is not None and level is not None and abs(alpha - (1 - level)) > 1e-12:
            raise GradedInputError(f"alpha {alpha} and level {level} disagree: give one of them")
        if level is not None and not 0 < level < 1:
            raise GradedInputError(f"the confidence level must be between 0 and 1, got {level}")
        alpha = alpha if alpha is not None else (1 - level if level is not None else 0.05)
        return cls(alpha=alpha, **{k: v for k, v in options.items() if v is not None or k == "permutations"})

    @property
    def level(self) -> float:
        """The intervals' confidence level: 1 - alpha."""
        return 1 - self.alpha

    @property
    def levels(self) -> tuple[float, float]:
        """The significance levels of the marks, loosest first: (alpha, alpha / 5)."""
        return (self.alpha, self.alpha / STRICTER)

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

    def interval(self) -> str:
        """The interval of the deltas, in words."""
        return f"{percent(self.level)} t confidence interval"
