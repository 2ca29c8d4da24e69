"""Reciprocal rank of the first relevant document, at every threshold of every query."""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.cascade import err
from ir_measures_graded.kernels.segments import segment_ptr
from ir_measures_graded.kernels.ties import threshold_pairs


def thresholded_rr(
    row_query: np.ndarray, row_rank: np.ndarray, row_level: np.ndarray, thr_ptr: np.ndarray,
    cutoff: int | None = None, tie_ptr: np.ndarray | None = None,
) -> np.ndarray:
    """``RR^t`` for every flat threshold: 1 / the rank of the first row with label >= t (0 if none
    up to the cutoff); trec_eval's ``recip_rank`` at level t.

    Rows are sorted by query, then rank; ``row_level[i]`` is how many of its query's thresholds row
    i reaches. Without ties: a row that reaches more thresholds than every row above it is the first
    hit of the thresholds in between — one pass, memory linear in rows and thresholds. With
    ``tie_ptr``: the expected value over every order of tied rows (:func:`expected_thresholded_rr`).
    """
    if tie_ptr is not None:
        return expected_thresholded_rr(row_query, row_rank, row_level, thr_ptr, tie_ptr, cutoff)
    n_flat = int(thr_ptr[-1])
    keep = row_level > 0
    if cutoff is not None:
        keep &= row_rank <= cutoff
    query, rank, level = row_query[keep], row_rank[keep], row_level[keep].astype(np.int64)
    out = np.zeros(n_flat)
    if not len(level):
        return out
    stride = int(level.max()) + 1
    best = np.maximum.accumulate(query * stride + level) - query * stride  # highest level so far, per query
    before = np.zeros(len(level), dtype=np.int64)
    same = query[1:] == query[:-1]
    before[1:][same] = best[:-1][same]
    record = level > before
    first, count = thr_ptr[query[record]] + before[record], level[record] - before[record]
    flat = np.repeat(first - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
    out[flat] = np.repeat(1.0 / rank[record], count)
    return out


def expected_thresholded_rr(
    row_query: np.ndarray, row_rank: np.ndarray, row_level: np.ndarray, thr_ptr: np.ndarray,
    group_ptr: np.ndarray, cutoff: int | None = None,
) -> np.ndarray:
    """Expected ``RR^t`` over every order of tied rows, exactly.

    The first hit at threshold t lies in the first tie group holding a row >= t (n rows after s
    others, r of them >= t). In a random order its position j inside the group is reached with
    probability Π_{i<j} (1 − r/(n − i + 1)) and holds a hit with probability r/(n − j + 1): a
    cascade (:func:`~ir_measures_graded.kernels.cascade.err`) over the group's positions s + j.
    """
    n_flat = int(thr_ptr[-1])
    out = np.zeros(n_flat)
    if not len(row_query) or not n_flat:
        return out
    pair_group, flat, r, before = threshold_pairs(row_query, row_rank, row_level, thr_ptr, group_ptr)
    first = before == 0
    group, flat, r = pair_group[first], flat[first], r[first]
    start = row_rank[group_ptr[:-1][group]] - 1  # rows ranked above the group
    n = np.diff(group_ptr)[group]
    if cutoff is not None:
        n = np.clip(np.minimum(n, cutoff - start), 0, None)
    position = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n) + 1  # j = 1 .. n per pair
    pair = np.repeat(np.arange(len(n)), n)
    size = np.diff(group_ptr)[group][pair]
    stop = r[pair] / (size - position + 1.0)
    out[flat] = err(pair, start[pair] + position, stop, segment_ptr(pair, len(n)))
    return out
