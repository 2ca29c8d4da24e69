"""Average precision at every threshold of every query, in memory linear in the rows."""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.dominance import earlier_at_least
from ir_measures_graded.kernels.levels import sum_reaching
from ir_measures_graded.kernels.ties import expected_thresholded_ap

#: Expanding rows into (row, threshold) pairs is the fastest way while the pairs number at most
#: this many times the rows (few thresholds per query); beyond, a sort-based count is used.
PAIRS_PER_ROW = 8


def thresholded_ap(
    row_query: np.ndarray,
    row_rank: np.ndarray,
    row_level: np.ndarray,
    thr_ptr: np.ndarray,
    n_relevant: np.ndarray,
    cutoff: int | None = None,
    tie_ptr: np.ndarray | None = None,
) -> np.ndarray:
    """``AP^t`` for every flat threshold ``t`` (trec_eval's ``map`` / ``map_cut_k`` at level ``t``).

    With ``tie_ptr`` (the rows' tie groups) the expected ``AP^t`` over every order of tied rows
    (:func:`~ir_measures_graded.kernels.ties.expected_thresholded_ap`).

    ``AP^t = (1 / R^t) * sum over retrieved rows i with label >= t (and rank <= cutoff) of
    P@rank_i``, where ``R^t = n_relevant[t]`` counts *all* judged documents >= t, retrieved or not.

    Rows must be sorted by query, then rank (1-based). A row of level ``l`` is relevant for the
    first ``l`` thresholds of its query. Memory is linear in the rows plus thresholds and time
    ``O(rows log rows)`` whatever the number of thresholds: see :func:`ap_numerators_by_counting`.
    """
    if tie_ptr is not None:
        return expected_thresholded_ap(row_query, row_rank, row_level, thr_ptr, n_relevant, tie_ptr, cutoff)
    n_flat = len(n_relevant)
    keep = row_level > 0
    if cutoff is not None:
        keep &= row_rank <= cutoff
    query, rank, level = row_query[keep], row_rank[keep], row_level[keep].astype(np.int64)
    if len(level) == 0:
        return np.zeros(n_flat)
    if level.sum() <= PAIRS_PER_ROW * len(level):
        sums = ap_numerators_by_pairs(query, rank, level, thr_ptr, n_flat)
    else:
        sums = ap_numerators_by_counting(query, rank, level, thr_ptr)
    return np.divide(sums, n_relevant, out=np.zeros(n_flat), where=n_relevant > 0)


def ap_numerators_by_pairs(
    query: np.ndarray, rank: np.ndarray, level: np.ndarray, thr_ptr: np.ndarray, n_flat: int
) -> np.ndarray:
    """``sum of P@rank_i`` over the relevant rows of every flat threshold, by expanding rows into pairs.

    Rows (all of level >= 1) are sorted by query, then rank. A row of level ``l`` becomes ``l``
    (row, threshold) pairs, grouped by threshold keeping rank order, so the position of a pair
    inside its group is the number of relevant rows up to it. Time and memory are linear in the
    number of pairs, ``sum(level)``.
    """
    n_pairs = int(level.sum())
    # int32 pair arrays while they fit: the pairs can outnumber the run's rows
    index = np.int32 if max(n_pairs, n_flat) < 2**31 else np.int64
    levels = level.astype(index)
    pair_row = np.repeat(np.arange(len(levels), dtype=index), levels)
    first_flat = thr_ptr[query].astype(index)
    ends = np.cumsum(levels, dtype=np.int64)
    pair_flat = np.arange(n_pairs, dtype=index) - np.repeat((ends - levels).astype(index), levels)
    pair_flat += first_flat[pair_row]
    by_threshold = np.argsort(pair_flat, kind="stable")
    flat_sorted = pair_flat[by_threshold]
    del pair_flat
    new_group = np.flatnonzero(np.concatenate(([True], flat_sorted[1:] != flat_sorted[:-1])))
    group_sizes = np.diff(np.append(new_group, len(flat_sorted)))
    relevant_so_far = np.arange(1, len(flat_sorted) + 1) - np.repeat(new_group, group_sizes)
    precision = relevant_so_far / rank[pair_row[by_threshold]]
    return np.bincount(flat_sorted, weights=precision, minlength=n_flat)


def ap_numerators_by_counting(
    query: np.ndarray, rank: np.ndarray, level: np.ndarray, thr_ptr: np.ndarray
) -> np.ndarray:
    """The same sums as :func:`ap_numerators_by_pairs`, in memory linear in the rows (plus the output).

    Lower the threshold one level at a time: the rows of level ``l`` join the relevant set at the
    ``l``-th threshold. When row ``r`` joins, the numerator grows by ``r``'s own precision,
    ``C_r / rank_r`` with ``C_r`` the relevant rows ranked up to ``r`` (those of level >= its
    level), plus one more relevant row above every relevant row ranked below ``r``: ``T_r``, the
    sum of ``1 / rank_i`` over rows ranked below ``r`` of a higher level. (Rows of the same level
    join in rank order.) The numerator at threshold ``j`` is the sum of these increments over the
    rows of level > ``j``: a suffix sum per query. ``C`` and ``T`` are dominance counts, found by
    one merge sort (:func:`earlier_at_least`).
    """
    top = int(level.max()) + 1
    n_queries = int(query.max()) + 1
    # Keys that order (query, level) so that no row ever dominates a row of another query.
    forward = query * top + level
    backward = ((n_queries - 1 - query) * top + level)[::-1]
    ones = np.ones(len(level))
    covered = 1.0 + earlier_at_least(forward, ones, strict=False)
    below = earlier_at_least(backward, (1.0 / rank)[::-1], strict=True)[::-1]
    return sum_reaching(query, level, thr_ptr, weights=covered / rank + below)
