"""Relevance levels (thresholds) per query, and which of them each judged row reaches.

Thresholds are stored flat, query after query, ascending and distinct inside a query, with a
``thr_ptr`` segmentation (see :mod:`.segments`). A row's *level* is the number of its query's
thresholds that its label reaches (``label >= t``): level 0 means irrelevant at every threshold,
level ``k`` means relevant for the ``k`` lowest thresholds.
"""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.segments import segment_ids, segment_suffix_sums


def level_of_rows(
    row_query: np.ndarray, row_label: np.ndarray, thr_ptr: np.ndarray, thr_values: np.ndarray
) -> np.ndarray:
    """Number of thresholds of the row's query that its label reaches; 0 for a NaN (unjudged) label."""
    if len(thr_values) == 0:
        return np.zeros(len(row_query), dtype=np.int64)
    levels = np.unique(thr_values)
    width = len(levels) + 1
    # Encode (query, threshold) and (query, label) as integers ordered like the pairs.
    thr_key = segment_ids(thr_ptr) * width + np.searchsorted(levels, thr_values)
    label = np.where(np.isnan(row_label), -np.inf, row_label)
    row_key = row_query * width + np.searchsorted(levels, label, side="right")
    return np.searchsorted(thr_key, row_key, side="left") - thr_ptr[row_query]


def rows_reaching(row_query: np.ndarray, row_level: np.ndarray, thr_ptr: np.ndarray) -> np.ndarray:
    """For every flat threshold, how many rows of its query reach it (label >= threshold)."""
    top = thr_ptr[row_query[row_level > 0]] + row_level[row_level > 0] - 1
    return segment_suffix_sums(np.bincount(top, minlength=thr_ptr[-1]), thr_ptr)


def level_weights(thr_ptr: np.ndarray, thr_values: np.ndarray, floor: float, scheme: str) -> np.ndarray:
    """Weight of each threshold: its distance to the level below (the floor for the first), or 1."""
    if scheme == "uniform":
        return np.ones(len(thr_values))
    below = np.empty_like(thr_values)
    below[1:] = thr_values[:-1]
    firsts = thr_ptr[:-1][np.diff(thr_ptr) > 0]
    below[firsts] = floor
    return thr_values - below
