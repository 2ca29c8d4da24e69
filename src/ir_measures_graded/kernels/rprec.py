"""R-precision at every threshold of every query: precision at the depth R^t."""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.levels import level_of_rows, rows_reaching
from ir_measures_graded.kernels.segments import segment_ids, segment_ptr
from ir_measures_graded.kernels.ties import few_pairs, group_rows_at_least, threshold_pairs


def thresholded_rprec(
    row_query: np.ndarray, row_rank: np.ndarray, row_level: np.ndarray, thr_ptr: np.ndarray,
    n_relevant: np.ndarray, tie_ptr: np.ndarray | None = None,
) -> np.ndarray:
    """``Rprec^t`` for every flat threshold: rows with label >= t among the first R^t, divided by
    R^t (``n_relevant``, all judged documents >= t); 0 where R^t = 0 (trec_eval's ``Rprec``).

    R^t does not grow with t, so a row at rank ρ counts for the thresholds it reaches that also
    have R^t ≥ ρ — a prefix of its query's thresholds, found by one binary search per row. With
    ``tie_ptr``: the expected value over every order of tied rows (a group with m of its n positions
    in the first R^t and r rows >= t adds m·r/n) — per (group, threshold) pair while they number at
    most ``PAIRS_PER_ROW`` per row, else :func:`_expected_by_depth`.
    """
    n_flat = int(thr_ptr[-1])
    if not len(row_query) or not n_flat:
        return np.zeros(n_flat)
    depth = np.asarray(n_relevant, dtype=np.float64)
    if tie_ptr is None:
        deep_enough = level_of_rows(row_query, -row_rank.astype(np.float64), thr_ptr, -depth)
        hits = rows_reaching(row_query, np.minimum(row_level, deep_enough), thr_ptr).astype(np.float64)
    elif not few_pairs(row_level, tie_ptr):
        hits = _expected_by_depth(row_query, row_rank, row_level, thr_ptr, n_relevant, tie_ptr)
    else:
        pair_group, flat, r, _ = threshold_pairs(row_query, row_rank, row_level, thr_ptr, tie_ptr)
        above = row_rank[tie_ptr[:-1]][pair_group] - 1.0  # rows ranked above the group
        n = np.diff(tie_ptr)[pair_group].astype(np.float64)
        inside = np.clip(depth[flat] - above, 0.0, n)
        hits = np.bincount(flat, weights=inside * r / n, minlength=n_flat)
    return np.divide(hits, depth, out=np.zeros(n_flat), where=depth > 0)


def _expected_by_depth(row_query: np.ndarray, row_rank: np.ndarray, row_level: np.ndarray, thr_ptr: np.ndarray,
                       n_relevant: np.ndarray, group_ptr: np.ndarray) -> np.ndarray:
    """The expected hits in the first R^t of every threshold, without a pair per (group, threshold).

    A group wholly inside the first R^t adds its rows >= t: a row counts for the thresholds it
    reaches whose R^t is at least its group's last rank (a prefix, as without ties). At most one
    group per threshold straddles depth R^t (s < R^t < s + n): it adds r (R^t − s) / n, r found by
    a binary search (:func:`~.ties.group_rows_at_least`). Memory ``O(rows + thresholds)``.
    """
    group = segment_ids(group_ptr)
    last_rank = row_rank[group_ptr[1:] - 1].astype(np.float64)
    depth = np.asarray(n_relevant, dtype=np.int64)
    deep_enough = level_of_rows(row_query, -last_rank[group], thr_ptr, -depth.astype(np.float64))
    hits = rows_reaching(row_query, np.minimum(row_level, deep_enough), thr_ptr).astype(np.float64)
    # the group holding rank R^t, where that is not its last rank
    flat_query = segment_ids(thr_ptr)
    query_ptr = segment_ptr(row_query, len(thr_ptr) - 1)
    ranked = np.flatnonzero((depth > 0) & (depth <= np.diff(query_ptr)[flat_query]))
    at_depth = group[query_ptr[flat_query[ranked]] + depth[ranked] - 1]
    straddles = depth[ranked] < last_rank[at_depth]
    flat, g = ranked[straddles], at_depth[straddles]
    above = row_rank[group_ptr[g]] - 1.0  # rows ranked above the group
    n = np.diff(group_ptr)[g].astype(np.float64)
    r = group_rows_at_least(row_level, group_ptr)(g, flat - thr_ptr[flat_query[flat]] + 1)
    hits[flat] += (depth[flat] - above) * r / n
    return hits
