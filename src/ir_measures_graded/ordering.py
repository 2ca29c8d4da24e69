"""Results in the order the measures were given, whatever the hash seed.

``ir_measures.DefaultPipeline`` (a ``FallbackProvider``) groups the measures by provider through
Python sets, so the order of ``calc_aggregate``'s dict, of ``iter_calc``'s values and of every table
built from them followed ``PYTHONHASHSEED``. :func:`install` gives the default pipeline an evaluator
whose measures, and those of the evaluator of each provider it delegates to, are in the order the
caller gave them. Values are unchanged; only their order is fixed. The order in which a provider
itself yields values (pytrec_eval runs one trec_eval pass per relevance level and cutoff family)
stays that provider's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ir_measures
from ir_measures import providers
from ir_measures.providers.fallback_provider import FallbackProvider


def in_given_order(evaluator: providers.Evaluator, measures: list[ir_measures.Measure]) -> providers.Evaluator:
    """``evaluator`` with its measures (and its sub-evaluators' measures) in the order of ``measures``."""
    rank = {measure: i for i, measure in enumerate(dict.fromkeys(measures))}

    def reorder(ev: providers.Evaluator) -> None:
        ev.measures = sorted(ev.measures, key=lambda m: rank.get(m, len(rank)))
        for sub in getattr(ev, "evaluators", ()):
            reorder(sub)

    reorder(evaluator)
    return evaluator


class OrderedFallbackProvider(FallbackProvider):
    """ir_measures' fallback pipeline whose evaluators keep the caller's measure order."""

    def _evaluator(self, measures: Iterable[ir_measures.Measure], qrels: Any) -> providers.Evaluator:
        measures = list(measures)  # may be a generator; read once
        return in_given_order(super()._evaluator(measures, qrels), measures)


def install() -> None:
    """Make ``ir_measures.DefaultPipeline`` keep the caller's measure order (idempotent)."""
    pipeline = ir_measures.DefaultPipeline
    if type(pipeline) is FallbackProvider:
        pipeline.__class__ = OrderedFallbackProvider
