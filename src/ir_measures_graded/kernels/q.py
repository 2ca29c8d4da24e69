"""The Q-measure (Sakai): cumulative gain against the ideal ranking's, at every relevant rank."""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.dcg import ideal_at
from ir_measures_graded.kernels.segments import segment_cumsum, segment_ids, segment_ptr


def ideal_cumulative_gain(judged_query: np.ndarray, judged_gain: np.ndarray,
                          n_queries: int) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative gain cg*(r) of each query's ideal ranking (its judged documents by gain, descending).

    Returns ``(ptr, cum)`` as :func:`~ir_measures_graded.kernels.dcg.ideal_dcg`: ``cum[ptr[q] + r - 1]``
    is cg*(r) for ``1 <= r <= R_q`` (R_q: the query's documents with positive gain); beyond R_q it
    stays at its last value (read it with :func:`~ir_measures_graded.kernels.dcg.ideal_at`).
    """
    positive = judged_gain > 0
    query, gain = judged_query[positive], judged_gain[positive]
    order = np.lexsort((-gain, query))
    ptr = segment_ptr(query[order], n_queries)
    return ptr, segment_cumsum(gain[order], ptr)


def q_measure(
    row_query: np.ndarray,
    row_rank: np.ndarray,
    row_gain: np.ndarray,
    ideal_ptr: np.ndarray,
    ideal_cum: np.ndarray,
    beta: float,
    cutoff: int | None = None,
    tie_ptr: np.ndarray | None = None,
) -> np.ndarray:
    """Q of every query: ``(1/R) Σ_{r ≤ k} isrel(r) (β cg(r) + count(r)) / (β cg*(r) + r)``.

    Rows are sorted by query, then rank (1-based, consecutive); ``row_gain`` is each row's gain
    (unjudged: 0); a row is relevant when its gain is positive; R is the query's number of judged
    documents with positive gain (``diff(ideal_ptr)``), retrieved or not, as AP@k divides by all
    relevant documents. With β = 0 this is AP. A query without relevant documents scores 0.

    With ``tie_ptr`` (the rows' tie groups), the expected value over every order of tied rows, in
    closed form: the denominator depends on the position only, and for position j of a group of n
    rows (r relevant, gain sum G; b relevant rows and cumulative gain c before it)
    E[isrel · cg] = (r/n) c + G/n + (j − 1)(r − 1) G / (n (n − 1)) and
    E[isrel · count] = (r/n)(b + 1) + (j − 1) r (r − 1) / (n (n − 1)).
    """
    n_queries = len(ideal_ptr) - 1
    relevant = (row_gain > 0).astype(np.float64)
    ptr = segment_ptr(row_query, n_queries)
    cg = segment_cumsum(row_gain, ptr)
    count = segment_cumsum(relevant, ptr)
    if tie_ptr is None:
        numerator = relevant * (beta * cg + count)
    else:
        starts = tie_ptr[:-1]
        group = segment_ids(tie_ptr)
        n = np.diff(tie_ptr)[group].astype(np.float64)
        r = np.add.reduceat(relevant, starts)[group] if len(starts) else relevant
        total = np.add.reduceat(row_gain, starts)[group] if len(starts) else row_gain
        before_gain = (cg - row_gain)[starts][group]
        before_count = (count - relevant)[starts][group]
        j = np.arange(len(row_query), dtype=np.float64) - starts[group] + 1
        pairs = np.divide(j - 1, n * (n - 1), out=np.zeros(len(n)), where=n > 1)
        gain_part = (r / n) * before_gain + total / n + pairs * (r - 1) * total
        count_part = (r / n) * (before_count + 1) + pairs * r * (r - 1)
        numerator = beta * gain_part + count_part
    ideal = ideal_at(ideal_ptr, ideal_cum, row_query, row_rank)
    term = numerator / (beta * ideal + row_rank)
    if cutoff is not None:
        term = np.where(row_rank <= cutoff, term, 0.0)
    sums = np.bincount(row_query, weights=term, minlength=n_queries)
    n_relevant = np.diff(ideal_ptr)
    return np.divide(sums, n_relevant, out=np.zeros(n_queries), where=n_relevant > 0)
