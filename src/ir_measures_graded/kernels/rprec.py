"""R-precision at every threshold of every query: precision at the depth R^t."""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.levels import level_of_rows, rows_reaching
from ir_measures_graded.kernels.ties import threshold_pairs


def thresholded_rprec(
    row_query: np.ndarray, row_rank: np.ndarray, row_level: np.ndarray, thr_ptr: np.ndarray,
    n_relevant: np.ndarray, tie_ptr: np.ndarray | None = None,
) -> np.ndarray:
    """``Rprec^t`` for every flat threshold: rows with label >= t among the first R^t, divided by
    R^t (``n_relevant``, all judged documents >= t); 0 where R^t = 0 (trec_eval's ``Rprec``).

    R^t does not grow with t, so a row at rank ρ counts for the thresholds it reaches that also
    have R^t ≥ ρ — a prefix of its query's thresholds, found by one binary search per row. With
    ``tie_ptr``: the expected value over every order of tied rows (a group with m of its n positions
    in the first R^t and r rows >= t adds m·r/n).
    """
    n_flat = int(thr_ptr[-1])
    if not len(row_query) or not n_flat:
        return np.zeros(n_flat)
    depth = np.asarray(n_relevant, dtype=np.float64)
    if tie_ptr is None:
        deep_enough = level_of_rows(row_query, -row_rank.astype(np.float64), thr_ptr, -depth)
        hits = rows_reaching(row_query, np.minimum(row_level, deep_enough), thr_ptr).astype(np.float64)
    else:
        pair_group, flat, r, _ = threshold_pairs(row_query, row_rank, row_level, thr_ptr, tie_ptr)
        above = row_rank[tie_ptr[:-1]][pair_group] - 1.0  # rows ranked above the group
        n = np.diff(tie_ptr)[pair_group].astype(np.float64)
        inside = np.clip(depth[flat] - above, 0.0, n)
        hits = np.bincount(flat, weights=inside * r / n, minlength=n_flat)
    return np.divide(hits, depth, out=np.zeros(n_flat), where=depth > 0)
