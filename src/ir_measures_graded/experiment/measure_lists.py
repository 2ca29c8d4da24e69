"""What an experiment decides about its measures, once: how a list of them is read (ours, ir_measures'
names and trec_eval's), which are tested per query, and which are broken down per threshold."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import ir_measures

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures import base
from ir_measures_graded.measures.thresholded import ThresholdedMeasure

__all__ = ["parse", "untested", "UNTESTED_WHY", "broken_down", "breakdown_names"]

#: The one line said of a measure whose aggregate is not the mean of its per-query values.
UNTESTED_WHY = ("no p-value, interval or effect size: its aggregate is not the mean of its per-query values, "
                "which a paired test compares (value and delta are its own aggregates)")


#: A measure that needs a cutoff, named without one, as trec_eval reports it: at its standard cutoffs
#: (``P`` -> P@5 ... P@1000, as trec_eval's ``P``; ``R`` as trec_eval's ``recall``; ``Success`` as ``success``).
_TREC_DEFAULTS = {"P": "P", "R": "recall", "Success": "success"}


def _trec(text: str) -> list[Any] | None:
    """trec_eval's spelling (``map``, ``ndcg_cut.10``, ``ndcg_cut_10``, ``P.10``), as PyTerrier takes it."""
    measure = ir_measures.measures.registry.get(text)
    if measure is not None and measure.NAME in _TREC_DEFAULTS:
        text = _TREC_DEFAULTS[measure.NAME]
    try:
        import contextlib
        import sys

        # a name standing for several (all_trec) prints what it skips: to stderr, not among the results
        with contextlib.redirect_stdout(sys.stderr):
            found = list(ir_measures.parse_trec_measure(text))
    except (ValueError, KeyError, TypeError, AttributeError, AssertionError, NameError):
        found = []
    if not found and "_" in text and text.rsplit("_", 1)[1].isdigit():
        return _trec(".".join(text.rsplit("_", 1)))
    return found or None


def parse(measures: Iterable[Any] | str, at_least_one: bool = True) -> list[Any]:
    """Measures from objects and names (ours, ir_measures', ``all``, or trec_eval's, e.g. ``map``,
    ``ndcg_cut.10``), each once, in the order given; one message for a name none of them reads."""
    if isinstance(measures, (str, ir_measures.measures.Measure)):  # one measure, as a name or an object
        measures = [measures]
    given = list(measures)
    found: list[Any] = []
    for item in given:
        try:
            parsed = base.parse_measures([item], at_least_one=False)
        except GradedInputError:
            parsed = _trec(item) if isinstance(item, str) else None
            if parsed is None:
                raise
        except AssertionError:  # ir_measures' check of a required parameter left out (P, SDCG@k, ...)
            parsed = _trec(item) if isinstance(item, str) else None
            if parsed is None:
                raise GradedInputError(_missing_cutoff(item)) from None
        found += [m for m in parsed if m not in found]
    if at_least_one and not found:
        base.parse_measures([], at_least_one=True)  # its message
    return found


def _missing_cutoff(item: Any) -> str:
    name = str(item)
    measure = ir_measures.measures.registry.get(name) if isinstance(item, str) else None
    cutoff = None if measure is None else measure.SUPPORTED_PARAMS.get("cutoff")
    if cutoff is not None and cutoff.required and "@" not in name:
        return f"{name} needs a cutoff: write {name}@k, e.g. {name}@10"
    return f"cannot use measure {name}: a required parameter is missing"


def untested(measures: Sequence[Any]) -> list[str]:
    """The measures (their ``str``) whose aggregate is not the mean of their per-query values
    (collection-level µMAP, sums such as NumRet): no per-query test, interval or effect size."""
    from ir_measures.measures.base import MeanAgg

    return [str(m) for m in measures if not isinstance(m.aggregator(), MeanAgg)]


def broken_down(measures: Sequence[Any], given: Iterable[Any] | None = None, defaults: bool = False) -> list[Any]:
    """The measures broken down per relevance threshold: ``given`` (each must be thresholded) or the
    thresholded ones among ``measures``; with ``defaults``, µMAP and µP@10 are added when no measure of
    their kind is there (the report's curves)."""
    from ir_measures_graded.measures import muAP, muP

    if given is not None:
        chosen = parse(given, at_least_one=False)
        wrong = [str(m) for m in chosen if not isinstance(m, ThresholdedMeasure)]
        if wrong:
            raise GradedInputError(f"{', '.join(wrong)} cannot be broken down per relevance threshold; "
                                   f"give one of {breakdown_names()}")
        return chosen
    chosen = [m for m in measures if isinstance(m, ThresholdedMeasure)]
    if defaults:
        if not any(m.NAME == "muAP" for m in chosen):
            chosen.insert(0, muAP)
        if not any(m.NAME == "muP" for m in chosen):
            chosen.append(muP @ 10)
    return chosen


def breakdown_names() -> str:
    """The registered measures that break down per threshold, for messages: ``muAP, muP, ...``."""
    from ir_measures_graded.measures import MEASURES

    return ", ".join(name for name, m in MEASURES.items() if isinstance(m, ThresholdedMeasure))
