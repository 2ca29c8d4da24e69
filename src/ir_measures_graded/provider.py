"""How ir_measures calls us: the ``graded`` provider and its evaluator.

The provider is registered in ``ir_measures.providers.registry`` and appended to
``ir_measures.DefaultPipeline``, so ``ir_measures.calc_aggregate([muMAP, nDCNG@10, AP], ...)``
sends our measures here and the others to their usual providers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import ir_measures
import numpy as np
from ir_measures import Metric, providers
from ir_measures.providers.base import Any as AnyParam

from ir_measures_graded import kernels
from ir_measures_graded import measures as graded_measures
from ir_measures_graded.measures.base import GradedMeasure
from ir_measures_graded.prepare import Judgments, Ranking


class GradedProvider(providers.Provider):
    """
    ir_measures_graded: µAP/µMAP, µP, NDCNG, mean NDCG and mean NDCNG for multi-graded relevance.

    Vectorised numpy over sorted arrays; relevance labels may be real numbers. Ranking conventions
    follow ir_measures' default pytrec_eval provider (scores as float32, descending; ties by doc id
    descending; queries only in the run skipped; queries only in the qrels score 0).
    """

    NAME = "graded"
    SUPPORTED_MEASURES = [
        graded_measures._muAP(cutoff=AnyParam(), judged_only=AnyParam(), levels=AnyParam(),
                              weights=AnyParam(), floor=AnyParam()),
        graded_measures._muP(cutoff=AnyParam(), judged_only=AnyParam(), levels=AnyParam(),
                             weights=AnyParam(), floor=AnyParam()),
        graded_measures._nDCNG(cutoff=AnyParam(), judged_only=AnyParam(), floor=AnyParam(),
                               gains=AnyParam(), dcg=AnyParam(), norm=AnyParam()),
        graded_measures._meanNDCG(cutoff=AnyParam(), judged_only=AnyParam(), floor=AnyParam(),
                                  gains=AnyParam(), dcg=AnyParam()),
        graded_measures._meanNDCNG(cutoff=AnyParam(), judged_only=AnyParam(), floor=AnyParam(),
                                   gains=AnyParam(), dcg=AnyParam(), norm=AnyParam()),
    ]

    def _evaluator(self, measures: Iterable[ir_measures.Measure], qrels: Any) -> GradedEvaluator:
        measures = list(measures)
        for measure in measures:
            if not isinstance(measure, GradedMeasure):
                raise ValueError(f"the graded provider does not compute {measure}")
            measure.validate_params()
        return GradedEvaluator(measures, Judgments.from_qrels(qrels))


class GradedEvaluator(providers.Evaluator):
    """Scores runs against judgments prepared once (qrels-side work is cached across runs)."""

    def __init__(self, measures: list[GradedMeasure], judgments: Judgments):
        super().__init__(measures, list(judgments.query_ids))
        self.judgments = judgments

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        from ir_measures_graded import scan

        if scan.is_streamable(run):  # files, record batch readers, iterators: query batch by batch
            yield from scan.iter_metrics(self.measures, self.judgments, run)
            return
        rankings = {False: Ranking.from_run(run, self.judgments)}
        query_ids = self.judgments.query_ids
        present = np.flatnonzero(rankings[False].present)
        for measure in self.measures:
            judged_only = bool(measure["judged_only"])
            if judged_only not in rankings:
                rankings[judged_only] = rankings[False].judged_only()
            values = measure_values(measure, self.judgments, rankings[judged_only])
            for q in present:
                yield Metric(query_id=query_ids[q], measure=measure, value=float(values[q]))


def measure_values(measure: GradedMeasure, judgments: Judgments, ranking: Ranking) -> np.ndarray:
    """The value of ``measure`` for every judged query (index = query code)."""
    return _COMPUTE[measure.NAME](measure, judgments, ranking)


def per_threshold(measure: GradedMeasure, judgments: Judgments, ranking: Ranking) -> tuple[np.ndarray, ...]:
    """``(thr_ptr, thr_values, weights, values)``: AP^t (µAP) or P^t@k (µP) at every flat threshold."""
    levels, floor = measure.levels(), measure.floor()
    thr_ptr, thr_values = judgments.thresholds(levels, floor)
    weights = kernels.level_weights(thr_ptr, thr_values, floor, measure["weights"])
    row_level = kernels.level_of_rows(ranking.query, ranking.label, thr_ptr, thr_values)
    cutoff = measure["cutoff"] if "cutoff" in measure.params else None
    if measure.NAME == "muAP":
        n_relevant = judgments.relevant_counts(levels, floor)
        values = kernels.thresholded_ap(ranking.query, ranking.rank, row_level, thr_ptr, n_relevant, cutoff)
    else:
        values = kernels.thresholded_precision(ranking.query, ranking.rank, row_level, thr_ptr, cutoff)
    return thr_ptr, thr_values, weights, values


def _mu(measure: GradedMeasure, judgments: Judgments, ranking: Ranking) -> np.ndarray:
    thr_ptr, _, weights, values = per_threshold(measure, judgments, ranking)
    return kernels.segment_weighted_mean(values, weights, thr_ptr)


def _gain_function(measure: GradedMeasure, judgments: Judgments) -> tuple[tuple, Callable]:
    """``(cache key, gain_of(query, label))`` for a DCG-family measure."""
    gains = measure.params.get("gains")
    floor = measure.floor()
    norm = measure["norm"] if "norm" in measure.SUPPORTED_PARAMS else 1.0  # meanNDCG: unnormalised
    exponential = measure["dcg"] == "exp-log2"
    scale = judgments.gain_scale(gains, floor, norm)

    def gain_of(query: np.ndarray, label: np.ndarray) -> np.ndarray:
        m = scale[query]
        g = np.divide(Judgments.raw_gain(label, gains, floor), m, out=np.zeros(len(label)), where=m > 0)
        return kernels.exponential_gain(g) if exponential else g

    key = (None if gains is None else tuple(sorted(gains.items())), floor, norm, exponential)
    return key, gain_of


def _dcg_family(kernel: Callable) -> Callable:
    def compute(measure: GradedMeasure, judgments: Judgments, ranking: Ranking) -> np.ndarray:
        key, gain_of = _gain_function(measure, judgments)
        ideal_ptr, ideal_cum = judgments.ideal(key, gain_of)
        cutoff = measure["cutoff"] if "cutoff" in measure.params else None
        row_gain = gain_of(ranking.query, ranking.label)
        return kernel(ranking.query, ranking.rank, row_gain, ideal_ptr, ideal_cum, cutoff)

    return compute


_COMPUTE: dict[str, Callable[[GradedMeasure, Judgments, Ranking], np.ndarray]] = {
    "muAP": _mu,
    "muP": _mu,
    "nDCNG": _dcg_family(kernels.ndcg),
    "meanNDCG": _dcg_family(kernels.mean_ndcg),
    "meanNDCNG": _dcg_family(kernels.mean_ndcg),
}


def install(provider: GradedProvider | None = None) -> GradedProvider:
    """Register the provider and append it to ``ir_measures.DefaultPipeline`` (once; idempotent)."""
    existing = providers.registry.get(GradedProvider.NAME)
    provider = existing if isinstance(existing, GradedProvider) else (provider or GradedProvider())
    providers.registry[GradedProvider.NAME] = provider
    pipeline = ir_measures.DefaultPipeline.providers
    if not any(getattr(p, "NAME", None) == GradedProvider.NAME for p in pipeline):
        pipeline.append(provider)
    return provider
