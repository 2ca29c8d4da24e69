"""Which measures take which labels: the one rule every entry point applies before evaluating.

trec_eval (and so ir_measures' pytrec_eval-based measures) reads labels as integers; this package's
measures take any finite real label. Real-valued qrels with a trec_eval-based measure are refused
with :func:`check_labels`' message wherever they are given (command line, Python, report, Spark),
instead of a NaN in one place and an error in another.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.columns import integral_labels
from ir_measures_graded.measures import MEASURES, GradedMeasure

__all__ = ["takes_real_labels", "check_labels", "integral_labels"]


def takes_real_labels(measure: Any, provider: str | None = None) -> bool:
    """True for this package's measures computed by its own provider (the default)."""
    return isinstance(measure, GradedMeasure) and provider in (None, "graded")


def check_labels(labels: Any, measures: Iterable[Any], provider: str | None = None) -> None:
    """Refuse real-valued ``labels`` (any array-like) when a measure of ``measures`` needs integers."""
    integer_only = [str(m) for m in measures if not takes_real_labels(m, provider)]
    if integer_only and not integral_labels(labels):
        raise GradedInputError(f"the qrels have real-valued labels, which {', '.join(integer_only)} cannot take "
                               f"(trec_eval-based measures need integers); {', '.join(MEASURES)} accept them")
