"""A thresholded measure (µMAP, µP@k, ...) broken down per relevance threshold, adding up to its value.

These are the numbers behind the left half of Figures 6-8 of Scheel et al. (2011) — MAP^t for each
threshold t — and, beside them, what each threshold contributes to the measure's own aggregate:
the ``contribution`` column of a run's rows adds up to the measure's value (per-query µMAP by
default, or the collection-level µMAP with ``levels='collection'``), so a table and its breakdown
never disagree.

Columns of :func:`breakdown` and :func:`by_level` (one row per threshold t):

- ``threshold``: t (relevant = label >= t); ``weight``: w_t, t's distance weight over the qrels' labels;
- ``queries``: the judged queries with a document judged >= t;
- ``value``: M^t averaged over those queries (the paper's MAP^t);
- ``all_queries``: M^t averaged over every judged query, 0 where nothing is judged >= t
  (for µMAP on integer labels: ``AP(rel=t)``, trec_eval's ``-l t map``);
- ``weighted``: M^t as the measure averages it: over the queries, each weighed by its weight on t
  (per-query µMAP, Eq. 4: query q's normalised weight w_qt / Σ_s w_qs, so a query with few thresholds
  weighs more on each); ``value`` with ``levels='collection'``, ``all_queries`` with ``'collection-all'``
  and explicit thresholds;
- ``share``: t's part of the measure's weights (the mean over every judged query of its normalised
  weight on t with per-query µMAP); the shares add up to 1 (less by the queries with no relevant label);
- ``contribution``: what t adds to the measure's value, ``share × weighted`` exactly; the contributions add
  up to the value. Not ``share × value`` with per-query µMAP: ``value`` weighs every query alike.
"""

from __future__ import annotations

import os
from typing import Any

import ir_measures
import numpy as np
import pandas as pd

from ir_measures_graded import kernels
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.readers import read_qrels_table
from ir_measures_graded.measures import MEASURES
from ir_measures_graded.measures.thresholded import ThresholdedMeasure
from ir_measures_graded.prepare import Judgments, Ranking

__all__ = ["breakdown", "single_threshold", "by_level", "by_threshold", "threshold_table", "COLUMNS", "thresholded"]

COLUMNS = ["threshold", "weight", "queries", "value", "all_queries", "weighted", "share", "contribution"]


def thresholded(measure: str | ir_measures.Measure) -> ThresholdedMeasure:
    """``measure`` parsed and checked: one combined over relevance thresholds, else one clear line."""
    measure = ir_measures.parse_measure(measure) if isinstance(measure, str) else measure
    if not isinstance(measure, ThresholdedMeasure):
        names = ", ".join(name for name, m in MEASURES.items() if isinstance(m, ThresholdedMeasure))
        raise GradedInputError(f"{measure} cannot be broken down per relevance threshold; give one of {names}")
    measure.validate_params()
    return measure


def breakdown(measure: ThresholdedMeasure, judgments: Judgments, ranking: Ranking) -> pd.DataFrame:
    """One run's rows (:data:`COLUMNS`) for ``measure`` on prepared ``judgments`` (every judged query
    counts; those the run does not rank score 0, as in its aggregate)."""
    measure = thresholded(measure)
    if measure.value("judged_only"):
        ranking = ranking.judged_only()
    levels = measure.levels()
    if isinstance(levels, tuple):
        thresholds = np.asarray(levels, dtype=np.float64)
        weights = kernels.level_weights(np.array([0, len(thresholds)]), thresholds, measure.floor(),
                                        measure.value("weights"))
    else:
        thresholds, weights = measure.collection_weights(judgments)
    n, width = judgments.n_queries, len(thresholds)
    if not n or not width:
        return pd.DataFrame({c: np.zeros(width, dtype=np.int64 if c == "queries" else np.float64) for c in COLUMNS}
                            | {"threshold": thresholds, "weight": weights})
    # M_q^t of every judged query at every threshold (0 where the query has nothing judged >= t)
    every = measure.per_threshold(judgments, ranking, tuple(thresholds.tolist()))
    values = every.values.reshape(n, width)
    reached = every.relevant.reshape(n, width) > 0
    queries = reached.sum(axis=0)
    value = np.divide(np.where(reached, values, 0.0).sum(axis=0), queries, out=np.zeros(width), where=queries > 0)
    all_queries = values.mean(axis=0)
    if levels == "query":  # each query weighs its own thresholds: µM_q = Σ_t w_qt M_q^t / Σ_t w_qt
        own = measure.per_threshold(judgments, ranking)
        segment = kernels.segment_ids(own.thr_ptr)
        totals = np.bincount(segment, weights=own.weights, minlength=n)
        part = np.divide(own.weights, totals[segment], out=np.zeros(len(own.weights)), where=totals[segment] > 0)
        at = np.searchsorted(thresholds, own.thr_values)  # a query's labels are among the collection's
        share = np.bincount(at, weights=part, minlength=width) / n
        # M_q^t averaged with each query's weight on t: share × weighted is t's part of the mean of µM_q
        weighted = np.divide(np.bincount(at, weights=part * own.values, minlength=width), share * n,
                             out=np.zeros(width), where=share > 0)
    elif levels == "collection":  # Σ_t w_t MAP^t / Σ_t w_t over the thresholds some query reaches
        kept = weights * (queries > 0)
        share = kept / kept.sum() if kept.sum() > 0 else np.zeros(width)
        weighted = value
    else:  # 'collection-all' and explicit thresholds: every query at every threshold
        share = weights / weights.sum() if weights.sum() > 0 else np.zeros(width)
        weighted = all_queries
    return pd.DataFrame({"threshold": thresholds, "weight": weights, "queries": queries.astype(np.int64),
                         "value": value, "all_queries": all_queries, "weighted": weighted, "share": share,
                         "contribution": share * weighted})


def single_threshold(measure: ThresholdedMeasure, threshold: float) -> str:
    """The binary measure M at one threshold, as ir_measures names it (``AP(rel=2)``, ``P(rel=2)@10``):
    what the breakdown's ``all_queries`` is (ir_measures' ``rel`` takes integers; real thresholds keep
    the same form)."""
    base = {"MAP": "AP"}.get(measure.AT_THRESHOLD, measure.AT_THRESHOLD)
    cutoff = measure.value("cutoff") if "cutoff" in measure.SUPPORTED_PARAMS else None
    return f"{base}(rel={threshold:g})" + ("" if cutoff is None else f"@{cutoff}")


def by_level(measure: str | ir_measures.Measure, qrels: Any, run: Any) -> pd.DataFrame:
    """One run's :func:`breakdown` from qrels (a path, anything in memory, or prepared
    :class:`~ir_measures_graded.prepare.Judgments`) and a run (in memory, or an Arrow table as read).

    ``value`` weighted by ``weight`` is ``muAP(levels='collection')`` as ``calc_aggregate`` gives it
    (the paper's reading, for the measure's default ``levels``); ``contribution`` adds up to the
    measure's own aggregate. Queries of the qrels missing from the run score 0.
    """
    measure = thresholded(measure)
    if isinstance(qrels, (str, os.PathLike)):
        qrels = read_qrels_table(qrels)
    judgments = qrels if isinstance(qrels, Judgments) else Judgments.from_qrels(qrels)
    return breakdown(measure, judgments, Ranking.from_run(run, judgments))


by_threshold = by_level


def threshold_table(measures: list[ir_measures.Measure], qrels: Any, run: Any,
                    labels: dict[Any, str] | None = None) -> pd.DataFrame:
    """Each thresholded measure of ``measures`` (µMAP, µP@k, ...) at every relevance threshold, for one run.

    Columns ``of`` (the measure, by its label in ``labels`` or its name), ``measure`` (e.g.
    ``MAP(rel>=2)``), then :data:`COLUMNS`. Measures not combined over thresholds are left out.
    """
    if isinstance(qrels, (str, os.PathLike)):
        qrels = read_qrels_table(qrels)
    judgments = qrels if isinstance(qrels, Judgments) else Judgments.from_qrels(qrels)
    ranking = Ranking.from_run(run, judgments)
    frames = []
    for measure in measures:
        if not isinstance(measure, ThresholdedMeasure):
            continue
        rows = breakdown(measure, judgments, ranking)
        of = (labels or {}).get(measure, str(measure))
        named = [f"{measure.at_threshold()}(rel>={t:g})" for t in rows["threshold"]]
        frames.append(pd.concat([pd.DataFrame({"of": of, "measure": named}), rows], axis=1))
    columns = ["of", "measure", *COLUMNS]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)
