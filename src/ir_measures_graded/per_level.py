"""MAP (or mean P@k) at every relevance threshold of a collection, with the weights µMAP gives them.

These are the numbers behind the left half of Figures 6-8 of Scheel et al. (2011): MAP^t for each
threshold t, and µMAP as their distance-weighted mean.
"""

from __future__ import annotations

import os
from typing import Any

import ir_measures
import numpy as np
import pandas as pd

from ir_measures_graded.core import evaluate
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.readers import read_qrels_table
from ir_measures_graded.measures import MEASURES
from ir_measures_graded.measures.thresholded import CollectionMean, ThresholdedMeasure
from ir_measures_graded.prepare import Judgments, Ranking


def by_level(measure: str | ir_measures.Measure, qrels: Any, run: Any) -> pd.DataFrame:
    """One row per threshold t: ``threshold``, ``weight``, ``value`` (MAP^t, or mean P^t@k) and ``queries``.

    The reading follows the measure's ``levels`` parameter:

    - ``'query'`` (the default) or ``'collection'``: the thresholds are the qrels' labels above the
      floor, and MAP^t is the mean AP^t over the ``queries`` that have a judged document with
      label >= t (the paper's Figs. 6-8; a run ranking every query's documents by label scores 1.0
      at every threshold). The weighted mean of ``value`` by ``weight`` is
      ``muAP(levels='collection')`` as ``ir_measures.calc_aggregate`` gives it.
    - ``'collection-all'`` or explicit thresholds: MAP^t is the mean over all queries of the qrels,
      AP^t = 0 for a query with nothing >= t (trec_eval's ``map -l t``); the weighted mean of
      ``value`` is the mean of that measure's per-query values.

    In both, queries of the qrels missing from the run score 0.
    """
    measure = ir_measures.parse_measure(measure)
    if not isinstance(measure, ThresholdedMeasure):
        thresholded = ", ".join(name for name, m in MEASURES.items() if isinstance(m, ThresholdedMeasure))
        raise GradedInputError(f"by_level needs a measure combined over relevance thresholds ({thresholded}), "
                               f"got {measure}")
    measure.validate_params()
    if measure.levels() == "query":
        measure = measure(levels="collection")
    if isinstance(qrels, (str, os.PathLike)):
        qrels = read_qrels_table(qrels)
    judgments = Judgments.from_qrels(qrels)
    ranking = Ranking.from_run(run, judgments)
    if measure.levels() == "collection":  # the measure's own aggregate, threshold by threshold
        aggregate = measure.aggregator()
        for _, _, value in evaluate([measure], judgments, ranking):
            aggregate.add(value)
    elif measure.levels() == "collection-all":  # the same parts, from each query's own thresholds
        aggregate = CollectionMean()
        if measure.value("judged_only"):
            ranking = ranking.judged_only()
        for _, value in measure.threshold_values(judgments, ranking):
            aggregate.add(value)
    if measure.levels() in ("collection", "collection-all"):
        thresholds, weights = measure.collection_weights(judgments)
        values, queries = aggregate.by_threshold()
        if len(values) < len(thresholds):  # no query at all
            values, queries = np.zeros(len(thresholds)), np.zeros(len(thresholds), dtype=np.int64)
        elif measure.levels() == "collection-all":  # the mean over every query, M^t = 0 where not reached
            values = aggregate.sums / judgments.n_queries
            queries = np.full(len(thresholds), judgments.n_queries, dtype=np.int64)
    else:  # every query at every (explicit) threshold
        if measure.value("judged_only"):
            ranking = ranking.judged_only()
        p = measure.per_threshold(judgments, ranking)
        n = int(p.thr_ptr[1] - p.thr_ptr[0]) if judgments.n_queries else 0
        thresholds, weights = p.thr_values[:n], p.weights[:n]
        values = p.values.reshape(judgments.n_queries, n).mean(axis=0) if judgments.n_queries else np.zeros(n)
        queries = np.full(n, judgments.n_queries, dtype=np.int64)
    return pd.DataFrame({"threshold": thresholds, "weight": weights, "value": values, "queries": queries})


by_threshold = by_level


def threshold_table(measures: list[ir_measures.Measure], qrels: Any, run: Any) -> pd.DataFrame:
    """Each thresholded measure of ``measures`` (µMAP, µP@k, ...) at every relevance threshold, for one run.

    Columns ``of`` (the measure), ``measure`` (e.g. ``MAP(rel>=2)``), then :func:`by_level`'s
    columns with ``value`` last. Measures that are not combined over thresholds are left out.
    """
    frames = []
    for measure in measures:
        if not isinstance(measure, ThresholdedMeasure):
            continue
        levels = by_level(measure, qrels, run)
        rest = [c for c in levels.columns if c != "value"]  # threshold, weight and whatever by_level adds
        part = pd.DataFrame({"of": str(measure),
                             "measure": [f"{measure.at_threshold()}(rel>={t:g})" for t in levels[rest[0]]]})
        frames.append(pd.concat([part, levels[rest].reset_index(drop=True),
                                 levels[["value"]].reset_index(drop=True)], axis=1))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["of", "measure", "value"])
