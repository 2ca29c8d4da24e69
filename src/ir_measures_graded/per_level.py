"""MAP (or mean P@k) at every relevance level of a collection, with the weights µMAP gives them.

These are the numbers behind the left half of Figures 6-8 of Scheel et al. (2011): MAP^t for each
threshold t, and µMAP as their distance-weighted mean.
"""

from __future__ import annotations

from typing import Any

import ir_measures
import pandas as pd

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures import GradedMeasure
from ir_measures_graded.prepare import Judgments, Ranking
from ir_measures_graded.provider import per_threshold


def by_level(measure: str | ir_measures.Measure, qrels: Any, run: Any) -> pd.DataFrame:
    """One row per relevance level: ``level``, ``weight`` and ``value`` (MAP^t, or mean P^t@k for µP).

    Levels are those of the measure's ``levels`` parameter, with ``'query'`` read as
    ``'collection'`` (every label above the floor found in the qrels), so that every query has a
    value at every level: a query with no document at or above t has AP^t = 0, as in trec_eval.
    The mean is over all queries of the qrels (those missing from the run score 0). The weighted
    mean of ``value`` by ``weight`` is µMAP with ``levels='collection'``.
    """
    measure = ir_measures.parse_measure(measure)
    if not isinstance(measure, GradedMeasure) or measure.NAME not in ("muAP", "muP"):
        raise GradedInputError(f"by_level needs muAP (muMAP) or muP@k, got {measure}")
    measure.validate_params()
    if measure.levels() == "query":
        measure = measure(levels="collection")
    judgments = Judgments.from_qrels(qrels)
    ranking = Ranking.from_run(run, judgments)
    if measure["judged_only"]:
        ranking = ranking.judged_only()
    thr_ptr, thr_values, weights, values = per_threshold(measure, judgments, ranking)
    n_levels = int(thr_ptr[1] - thr_ptr[0]) if judgments.n_queries else 0
    shape = (judgments.n_queries, n_levels)
    return pd.DataFrame({
        "level": thr_values[:n_levels],
        "weight": weights[:n_levels],
        "value": values.reshape(shape).mean(axis=0) if judgments.n_queries else [],
    })
