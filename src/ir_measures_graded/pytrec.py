"""What ir_measures' providers are given: the measures each computes, and the judgments pytrec_eval may be given.

pytrec_eval (0.5, the trec_eval it bundles) counts judgments per label in an array indexed by the label, with no
guard for a negative one (trec_eval 10.0 has it: ``if (rel >= 0)``). A label of -2 (TREC's "junk", or in pool
but not judged) writes before that array: the process crashes (a segmentation fault); with -1 nDCG was seen to
hang. trec_eval reads every negative label as "in the pool, not judged": never relevant, not counted, and skipped
by bpref as a document outside the pool is. So a judgment with a negative label changes no value pytrec_eval
computes once it is left out, except infAP's, which counts such documents apart (``pool_unjudged_so_far``):
infAP is given them as -1, the one negative label it was seen to take (no crash in 5,000 random collections),
which it reads as trec_eval 10.0 reads any negative label.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import ir_measures

__all__ = ["Gathered", "as_minus_one", "judgments_for", "served_by", "split_for_pytrec_eval", "without_negative"]

#: pytrec_eval's measures whose value a judgment with a negative label changes (trec_eval counts it apart).
COUNTS_UNJUDGED = frozenset({"infAP"})


def served_by(calc_obj: Any, measures: list, name: str) -> list:
    """The measures ``calc_obj`` (one provider, or ir_measures' pipeline, which gives each measure to the first
    available provider that supports it) computes with provider ``name``."""
    if getattr(calc_obj, "NAME", None) == name:
        return list(measures)
    left, found = list(measures), []
    for provider in getattr(calc_obj, "providers", []):
        supported = [m for m in left if provider.supports(m)]
        if supported and provider.is_available():
            if provider.NAME == name:
                found += supported
            left = [m for m in left if m not in supported]
    return found


def without_negative(qrels: Mapping[str, Mapping[str, Any]]) -> dict:
    """``{query_id: {doc_id: label}}`` without the judgments labelled below 0, nor a query left with none (an
    empty query's judgments upset pytrec_eval's values for the queries after it)."""
    kept = {q: {d: v for d, v in docs.items() if v >= 0} for q, docs in qrels.items()}
    return {q: docs for q, docs in kept.items() if docs}


def as_minus_one(qrels: Mapping[str, Mapping[str, Any]]) -> dict:
    """``{query_id: {doc_id: label}}`` with every label below 0 as -1 (for infAP)."""
    return {q: {d: (-1 if v < 0 else v) for d, v in docs.items()} for q, docs in qrels.items()}


def split_for_pytrec_eval(calc_obj: Any, measures: list, lowest: float) -> tuple[list, list, list]:
    """``measures`` as (those pytrec_eval computes but infAP, infAP, the others) when the lowest label is
    ``lowest``, below 0 (else (``[]``, ``[]``, all of them): nothing to change)."""
    if not measures or lowest >= 0:
        return [], [], list(measures)
    trec = served_by(calc_obj, measures, "pytrec_eval")
    counted = [m for m in trec if getattr(m, "NAME", None) in COUNTS_UNJUDGED]
    return ([m for m in trec if m not in counted], counted, [m for m in measures if m not in trec])


def judgments_for(qrels: Mapping[str, Mapping[str, Any]], measures: list, calc_obj: Any, lowest: float,
                  ) -> list[tuple[list, Any, bool]]:
    """The measures in groups, each with the judgments it is given and whether those lack judged queries:
    pytrec_eval's without the labels below 0, infAP with them as -1, the others with ``qrels`` as given."""
    trec, counted, rest = split_for_pytrec_eval(calc_obj, measures, lowest)
    groups: list[tuple[list, Any, bool]] = []
    if trec:
        groups.append((trec, without_negative(qrels), True))
    if counted:
        groups.append((counted, as_minus_one(qrels), False))
    if rest:
        groups.append((rest, None, False))
    return groups


class Gathered(ir_measures.providers.Evaluator):
    """Values computed already, completed as ``ir_measures.providers.Evaluator.iter_calc`` completes
    an evaluator's: the judged queries without a value get the measure's default."""

    def __init__(self, measures: Any, qrel_qids: set, metrics: Iterator[Any]):
        super().__init__(measures, qrel_qids)
        self.metrics = metrics

    def _iter_calc(self, run: Any) -> Iterator[Any]:
        return self.metrics
