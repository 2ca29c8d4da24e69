"""What an experiment decides about its measures, once: how a list of them is read (ours, ir_measures'
names and trec_eval's), which are tested per query, and which are broken down per threshold."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import ir_measures

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures import base
from ir_measures_graded.measures.thresholded import ThresholdedMeasure

__all__ = ["parse", "parse_named", "mean_aggregated", "UNTESTED_WHY", "broken_down", "breakdown_names"]

#: The one line said of a measure whose aggregate is not the mean of its per-query values.
UNTESTED_WHY = ("no p-value, interval or effect size: its aggregate is not the mean of its per-query values, "
                "which a paired test compares (value and delta are its own aggregates)")


def _quietly(parse: Any, text: str) -> list[Any]:
    """ir_measures' trec_eval parser prints the nicknames' members it skips on standard output, which
    carries results only: what it says goes to standard error."""
    import contextlib
    import sys

    with contextlib.redirect_stdout(sys.stderr):
        return list(parse(text))


#: A measure that needs a cutoff, named without one, as trec_eval reports it: at its standard cutoffs
#: (``P`` -> P@5 ... P@1000, as trec_eval's ``P``; ``R`` as trec_eval's ``recall``; ``Success`` as ``success``).
_TREC_DEFAULTS = {"P": "P", "R": "recall", "Success": "success"}


def _trec(text: str) -> list[tuple[Any, str]] | None:
    """trec_eval's spelling (``map``, ``ndcg_cut.10``, ``ndcg_cut_10``, ``P.10``, ``all_trec``), as
    PyTerrier takes it, each measure with its label: the text itself when it names one measure, else
    trec_eval's name of each (``P_5``, ``ndcg_cut_10``: as trec_eval prints them)."""
    measure = ir_measures.measures.registry.get(text)
    if measure is not None and measure.NAME in _TREC_DEFAULTS:
        text = _TREC_DEFAULTS[measure.NAME]
    try:
        found = _quietly(ir_measures.parse_trec_measure, text)
    except (ValueError, KeyError, TypeError, AttributeError, AssertionError, NameError):
        found = []
    if not found and "_" in text and text.rsplit("_", 1)[1].isdigit():
        dotted = _trec(".".join(text.rsplit("_", 1)))
        return None if dotted is None else [(m, text if len(dotted) == 1 else label) for m, label in dotted]
    if not found:
        return None
    if len(found) == 1:
        return [(found[0], text)]
    import pytrec_eval

    if text in pytrec_eval.supported_nicknames:  # all_trec: each member as its own name says
        named: list[tuple[Any, str]] = []
        for member in sorted(pytrec_eval.supported_nicknames[text]):
            named += [pair for pair in (_trec(member) or []) if pair[0] in found and pair not in named]
        return named
    base = re.split(r"[._](?=\d)", text, maxsplit=1)[0]
    return [(m, f"{base}_{_parameter(m)}") for m in found]


def _parameter(measure: Any) -> str:
    """The one parameter that tells a trec_eval measure's expansions apart, as trec_eval prints it."""
    value = next(iter(measure.params.values()), "")
    return f"{value:.2f}" if isinstance(value, float) and "recall" in measure.params else f"{value:g}" if isinstance(
        value, float) else str(value)


def parse(measures: Iterable[Any] | str | Any, at_least_one: bool = True) -> list[Any]:
    """Measures from objects and names (ours, ir_measures', ``all``, or trec_eval's, e.g. ``map``,
    ``ndcg_cut.10``), each once, in the order given; one message for a name none of them reads."""
    return [m for m, _ in parse_named(measures, at_least_one)]


def parse_named(measures: Iterable[Any] | str | Any, at_least_one: bool = True) -> list[tuple[Any, str]]:
    """:func:`parse` with each measure's label: the name it was given by (``µMAP``, ``map``,
    ``ndcg_cut.10``), trec_eval's name for each of several a name stands for (``P`` -> ``P_5``, ...),
    ``str`` of a measure given as an object or through ``all``; a ``(measure, label)`` pair keeps its
    label. A measure given twice keeps its first label."""
    if isinstance(measures, (str, ir_measures.measures.Measure)):  # one measure, as a name or an object
        measures = [measures]
    found: dict[Any, str] = {}
    for item in list(measures):
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], str):  # (measure, label) already
            parsed = [(base.parse_measures([item[0]], at_least_one=False)[0], item[1])]
            for m, label in parsed:
                found.setdefault(m, label)
            continue
        try:
            parsed = [(m, item if isinstance(item, str) and item != base.ALL_NAME else str(m))
                      for m in base.parse_measures([item], at_least_one=False)]
            if isinstance(item, str) and len(parsed) > 1:
                parsed = [(m, str(m)) for m, _ in parsed]
        except GradedInputError:
            parsed = _trec(item) if isinstance(item, str) else None
            if parsed is None:
                raise
        except AssertionError:  # ir_measures' check of a required parameter left out (P, SDCG@k, ...)
            parsed = _trec(item) if isinstance(item, str) else None
            if parsed is None:
                raise GradedInputError(_missing_cutoff(item)) from None
        for m, label in parsed:
            found.setdefault(m, " ".join(str(label).split()))
    if at_least_one and not found:
        base.parse_measures([], at_least_one=True)  # its message
    return list(found.items())


def _missing_cutoff(item: Any) -> str:
    name = str(item)
    measure = ir_measures.measures.registry.get(name) if isinstance(item, str) else None
    cutoff = None if measure is None else measure.SUPPORTED_PARAMS.get("cutoff")
    if cutoff is not None and cutoff.required and "@" not in name:
        return f"{name} needs a cutoff: write {name}@k, e.g. {name}@10"
    return f"cannot use measure {name}: a required parameter is missing"


def mean_aggregated(measure: Any) -> bool:
    """Whether ``measure``'s aggregate is the mean of its per-query values (ir_measures' ``MeanAgg``)."""
    from ir_measures.measures.base import MeanAgg

    return isinstance(measure.aggregator(), MeanAgg)


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
