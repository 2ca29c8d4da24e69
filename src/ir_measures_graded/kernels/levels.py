"""Relevance levels (thresholds) per query, and which of them each judged row reaches.

Thresholds are stored flat, query after query, ascending and distinct inside a query, with a
``thr_ptr`` segmentation (see :mod:`.segments`). A row's *level* is the number of its query's
thresholds that its label reaches (``label >= t``): level 0 means irrelevant at every threshold,
level ``k`` means relevant for the ``k`` lowest thresholds.
"""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.segments import segment_cumsum, segment_ptr


def level_of_rows(
    row_query: np.ndarray, row_label: np.ndarray, thr_ptr: np.ndarray, thr_values: np.ndarray
) -> np.ndarray:
    """Number of thresholds of the row's query that its label reaches; 0 for a NaN (unjudged) label.

    A binary search per row inside its query's thresholds, all rows at once: time
    ``O(rows log thresholds)``, memory ``O(rows)``; the thresholds themselves are only indexed.
    Only rows whose label reaches the lowest threshold of all are searched (in a ranking most are
    unjudged).
    """
    if len(thr_values) == 0:
        return np.zeros(len(row_query), dtype=np.int64)
    candidate = np.flatnonzero(row_label >= thr_values.min())  # NaN: never
    if len(candidate) < len(row_query):
        level = np.zeros(len(row_query), dtype=np.int64)
        level[candidate] = _search(row_query[candidate], row_label[candidate], thr_ptr, thr_values)
        return level
    return _search(row_query, row_label, thr_ptr, thr_values)


def _search(row_query: np.ndarray, row_label: np.ndarray, thr_ptr: np.ndarray, thr_values: np.ndarray) -> np.ndarray:
    lo = thr_ptr[row_query].astype(np.int64)  # first threshold not known to be reached
    hi = thr_ptr[row_query + 1].astype(np.int64)  # one past the last that may be reached
    longest = int(np.diff(thr_ptr).max(initial=0))
    for _ in range(longest.bit_length()):  # halves every row's interval: empty after these steps
        mid = (lo + hi) // 2
        open_ = lo < hi
        reached = open_ & (thr_values[np.minimum(mid, len(thr_values) - 1)] <= row_label)  # NaN: never
        lo = np.where(reached, mid + 1, lo)
        hi = np.where(open_ & ~reached, mid, hi)
    return (lo - thr_ptr[row_query]).astype(np.int64, copy=False)


def rows_reaching(row_query: np.ndarray, row_level: np.ndarray, thr_ptr: np.ndarray) -> np.ndarray:
    """For every flat threshold, how many rows of its query reach it (label >= threshold)."""
    return sum_reaching(row_query, row_level, thr_ptr)


def sum_reaching(
    row_query: np.ndarray, row_level: np.ndarray, thr_ptr: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """For every flat threshold, the sum of ``weights`` over the rows of its query that reach it.

    Without weights, the count of those rows (int64). A row of level ``l`` reaches its query's
    ``l`` lowest thresholds, so the sums are suffix sums over the highest threshold each row
    reaches; they are summed over the rows (exactly per query, in descending threshold order) and
    spread over the thresholds in one pass, never per (row, threshold) pair: memory and time
    ``O(rows log rows + thresholds)``.
    """
    n_flat = int(thr_ptr[-1])
    reaches = row_level > 0
    top = thr_ptr[row_query[reaches]] + row_level[reaches] - 1  # highest flat threshold reached
    value = np.ones(len(top), dtype=np.int64) if weights is None else np.asarray(weights, dtype=np.float64)[reaches]
    if len(top) == 0:
        return np.zeros(n_flat, dtype=value.dtype)
    order = np.argsort(top, kind="stable")
    top, value = top[order], value[order]
    tops, first = np.unique(top, return_index=True)
    at_top = np.add.reduceat(value, first)
    query = np.searchsorted(thr_ptr, tops, side="right") - 1
    ptr = segment_ptr(query, len(thr_ptr) - 1)
    # suffix sums inside each query: a running sum over the reversed tops, restarting per query
    suffix = segment_cumsum(at_top[::-1], len(tops) - ptr[::-1])[::-1]
    if weights is None:
        suffix = suffix.astype(np.int64, copy=False)
    # tops[k] covers the thresholds from just above the query's previous top (or its first) to itself
    start = thr_ptr[query].copy()
    same_query = query[1:] == query[:-1]
    start[1:][same_query] = tops[:-1][same_query] + 1
    gap = start - np.concatenate(([0], tops[:-1] + 1))
    lengths = np.column_stack((gap, tops - start + 1)).ravel()
    values = np.column_stack((np.zeros_like(suffix), suffix)).ravel()
    out = np.repeat(values, lengths)
    return np.concatenate((out, np.zeros(n_flat - len(out), dtype=out.dtype)))


def level_weights(thr_ptr: np.ndarray, thr_values: np.ndarray, floor: float, scheme: str) -> np.ndarray:
    """Weight of each threshold: its distance to the level below (the floor for the first), or 1.

    Weights are relative (every use divides by their sum): when the distances of thresholds and
    floor at the edge of float64 would overflow, or their sum would, all are quartered (exactly).
    """
    if scheme == "uniform":
        return np.ones(len(thr_values))
    below = np.empty_like(thr_values)
    below[1:] = thr_values[:-1]
    firsts = thr_ptr[:-1][np.diff(thr_ptr) > 0]
    below[firsts] = floor
    if len(thr_values) and thr_values.max() * 0.25 - floor * 0.25 > 2.0**1020:  # the span would overflow
        return thr_values * 0.25 - below * 0.25
    return thr_values - below
