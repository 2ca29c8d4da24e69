"""The Q-measure (Sakai): cumulative gain against the ideal ranking's, at every relevant rank."""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.dcg import ideal_at
from ir_measures_graded.kernels.segments import segment_cumsum, segment_ids, segment_ptr


def ideal_cumulative_gain(judged_query: np.ndarray, judged_gain: np.ndarray, n_queries: int,
                          judged_relevant: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative gain cg*(r) of each query's ideal ranking (its judged documents by gain, descending).

    Returns ``(ptr, cum)`` as :func:`~ir_measures_graded.kernels.dcg.ideal_dcg`: ``cum[ptr[q] + r - 1]``
    is cg*(r) for ``1 <= r <= R_q`` (R_q: the query's relevant documents, ``judged_relevant``, by
    default those with positive gain); beyond R_q it stays at its last value (read it with
    :func:`~ir_measures_graded.kernels.dcg.ideal_at`).
    """
    positive = judged_gain > 0 if judged_relevant is None else judged_relevant
    query, gain = judged_query[positive], judged_gain[positive]
    order = np.lexsort((-gain, query))
    ptr = segment_ptr(query[order], n_queries)
    return ptr, segment_cumsum(gain[order], ptr)


#: Below this, β times a query's total gain leaves the denominator β cg*(r) + r finite (with room
#: for the counts); beyond, the ratio is computed divided by β.
SAFE_PRODUCT = 2.0**1000


def q_measure(
    row_query: np.ndarray,
    row_rank: np.ndarray,
    row_gain: np.ndarray,
    ideal_ptr: np.ndarray,
    ideal_cum: np.ndarray,
    beta: float,
    cutoff: int | None = None,
    tie_ptr: np.ndarray | None = None,
    gain_scale: np.ndarray | None = None,
    row_relevant: np.ndarray | None = None,
) -> np.ndarray:
    """Q of every query: ``(1/R) Σ_{r ≤ k} isrel(r) (β cg(r) + count(r)) / (β cg*(r) + r)``.

    Rows are sorted by query, then rank (1-based, consecutive); ``row_gain`` is each row's gain
    (unjudged: 0); a row is relevant when its gain is positive; R is the query's number of judged
    documents with positive gain (``diff(ideal_ptr)``), retrieved or not, as AP@k divides by all
    relevant documents. With β = 0 this is AP. A query without relevant documents scores 0.

    ``gain_scale``: per query, the power of two f_q its gains (and ideal gains) were multiplied by
    (:meth:`~ir_measures_graded.derived.GainFunction.factors`; default 1). Q is not scale-free (a
    gain is added to a count), so the ratio is computed as (a cg + b count) / (a cg* + b r) with
    (a, b) = (β, f_q) — the formula on the query's own scale, unchanged where f_q = 1 — or, where β
    times the query's total gain could overflow (huge β or gains), (1, f_q / β): the same ratio
    divided by β. Every finite β ≥ 0 and gains up to float64's largest give a value, never NaN.
    ``row_relevant`` (default: gain > 0) says which rows are relevant where a tiny gain beside a huge
    one in the same query became 0 on the query's scale (then R must come from the same rule).

    With ``tie_ptr`` (the rows' tie groups), the expected value over every order of tied rows, in
    closed form: the denominator depends on the position only, and for position j of a group of n
    rows (r relevant, gain sum G; b relevant rows and cumulative gain c before it)
    E[isrel · cg] = (r/n) c + G/n + (j − 1)(r − 1) G / (n (n − 1)) and
    E[isrel · count] = (r/n)(b + 1) + (j − 1) r (r − 1) / (n (n − 1)).
    """
    n_queries = len(ideal_ptr) - 1
    n_relevant = np.diff(ideal_ptr)
    scale = np.ones(n_queries) if gain_scale is None else np.asarray(gain_scale, dtype=np.float64)
    total = np.zeros(n_queries)  # each query's total gain: no cg(r) or cg*(r) exceeds it
    total[n_relevant > 0] = ideal_cum[ideal_ptr[1:][n_relevant > 0] - 1]
    with np.errstate(over="ignore"):
        plain = beta * total <= SAFE_PRODUCT  # beta = 0 or no relevant document: always
    count_weight = scale.copy()
    if beta > 0:
        count_weight[~plain] = scale[~plain] / beta
    if plain.all() and (count_weight == 1.0).all():  # the usual case: the plain formula, no per-row weights
        a, b = beta, 1.0
    else:
        a, b = np.where(plain, beta, 1.0)[row_query], count_weight[row_query]
    relevant = (row_gain > 0 if row_relevant is None else row_relevant).astype(np.float64)
    ptr = segment_ptr(row_query, n_queries)
    cg = segment_cumsum(row_gain, ptr)
    count = segment_cumsum(relevant, ptr)
    if tie_ptr is None:
        numerator = relevant * (a * cg + b * count)
    else:
        starts = tie_ptr[:-1]
        group = segment_ids(tie_ptr)
        n = np.diff(tie_ptr)[group].astype(np.float64)
        r = np.add.reduceat(relevant, starts)[group] if len(starts) else relevant
        group_total = np.add.reduceat(row_gain, starts)[group] if len(starts) else row_gain
        before_gain = (cg - row_gain)[starts][group]
        before_count = (count - relevant)[starts][group]
        j = np.arange(len(row_query), dtype=np.float64) - starts[group] + 1
        pairs = np.divide(j - 1, n * (n - 1), out=np.zeros(len(n)), where=n > 1)
        gain_part = (r / n) * before_gain + group_total / n + pairs * (r - 1) * group_total
        count_part = (r / n) * (before_count + 1) + pairs * r * (r - 1)
        numerator = a * gain_part + b * count_part
    ideal = ideal_at(ideal_ptr, ideal_cum, row_query, row_rank)
    term = numerator / (a * ideal + b * row_rank)
    if cutoff is not None:
        term = np.where(row_rank <= cutoff, term, 0.0)
    sums = np.bincount(row_query, weights=term, minlength=n_queries)
    return np.divide(sums, n_relevant, out=np.zeros(n_queries), where=n_relevant > 0)
