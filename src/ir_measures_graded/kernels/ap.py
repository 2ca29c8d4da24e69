"""Average precision at every threshold of every query, in one pass."""

from __future__ import annotations

import numpy as np


def thresholded_ap(
    row_query: np.ndarray,
    row_rank: np.ndarray,
    row_level: np.ndarray,
    thr_ptr: np.ndarray,
    n_relevant: np.ndarray,
    cutoff: int | None = None,
) -> np.ndarray:
    """``AP^t`` for every flat threshold ``t`` (trec_eval's ``map`` / ``map_cut_k`` at level ``t``).

    ``AP^t = (1 / R^t) * sum over retrieved rows i with label >= t (and rank <= cutoff) of
    P@rank_i``, where ``R^t = n_relevant[t]`` counts *all* judged documents >= t, retrieved or not.

    Rows must be sorted by query, then rank (1-based). A row of level ``l`` is relevant for the
    first ``l`` thresholds of its query; it is expanded into those ``l`` (row, threshold) pairs,
    which are grouped by threshold keeping rank order, so the position of a pair inside its group
    is the number of relevant rows up to it. The work is linear in the number of such pairs.
    """
    n_flat = len(n_relevant)
    keep = row_level > 0
    if cutoff is not None:
        keep &= row_rank <= cutoff
    levels = row_level[keep].astype(np.int32)
    if len(levels) == 0:
        return np.zeros(n_flat)
    # int32 pair arrays: the pairs can outnumber the run's rows when there are many levels
    pair_row = np.repeat(np.arange(len(levels), dtype=np.int32), levels)
    first_flat = thr_ptr[row_query[keep]].astype(np.int32)
    ends = np.cumsum(levels, dtype=np.int64)
    pair_flat = np.arange(len(pair_row), dtype=np.int32) - np.repeat((ends - levels).astype(np.int32), levels)
    pair_flat += first_flat[pair_row]
    by_threshold = np.argsort(pair_flat, kind="stable")
    flat_sorted = pair_flat[by_threshold]
    del pair_flat
    new_group = np.flatnonzero(np.concatenate(([True], flat_sorted[1:] != flat_sorted[:-1])))
    group_sizes = np.diff(np.append(new_group, len(flat_sorted)))
    relevant_so_far = np.arange(1, len(flat_sorted) + 1) - np.repeat(new_group, group_sizes)
    precision = relevant_so_far / row_rank[keep][pair_row[by_threshold]]
    sums = np.bincount(flat_sorted, weights=precision, minlength=n_flat)
    return np.divide(sums, n_relevant, out=np.zeros(n_flat), where=n_relevant > 0)
