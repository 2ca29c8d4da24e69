"""Reciprocal rank of the first relevant document, at every threshold of every query."""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.cascade import err
from ir_measures_graded.kernels.segments import segment_ptr
from ir_measures_graded.kernels.ties import group_rows_at_least


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


#: The first hit among r of a group's n positions lies beyond position j with probability at most
#: exp(-j r / n): positions beyond TAIL · n / r add less than exp(-TAIL) (4e-18) and are not summed.
TAIL = 40.0

#: Positions summed at once by :func:`_first_hit_expectations` (bounds its memory).
CHUNK_POSITIONS = 1 << 18


def expected_thresholded_rr(
    row_query: np.ndarray, row_rank: np.ndarray, row_level: np.ndarray, thr_ptr: np.ndarray,
    group_ptr: np.ndarray, cutoff: int | None = None,
) -> np.ndarray:
    """Expected ``RR^t`` over every order of tied rows.

    The first hit at threshold t lies in the first tie group holding a row >= t (n rows after s
    others, r of them >= t). In a random order its position j inside the group is reached with
    probability Π_{i<j} (1 − r/(n − i + 1)) and holds a hit with probability r/(n − j + 1): a
    cascade (:func:`~ir_measures_graded.kernels.cascade.err`) over the group's positions s + j.

    A group is the first hit of the thresholds above every level of its query's earlier groups, up
    to its own highest level: (running maximum before it, its maximum] — so these (group,
    threshold) pairs number at most the thresholds (never a pair per group and threshold reached:
    real-valued labels give a query as many thresholds as rows). r at each is a binary search
    (:func:`~.ties.group_rows_at_least`), and the cascade is summed once per distinct (group, r),
    over at most ``TAIL · n / r`` positions: ``O(rows log rows)`` positions in all, in chunks.
    """
    n_flat = int(thr_ptr[-1])
    out = np.zeros(n_flat)
    if not len(row_query) or not n_flat:
        return out
    starts = group_ptr[:-1]
    group_query = row_query[starts]
    top = np.maximum.reduceat(row_level, starts).astype(np.int64)
    stride = int(top.max()) + 1
    running = np.maximum.accumulate(group_query * stride + top) - group_query * stride
    before = np.zeros(len(top), dtype=np.int64)  # highest level of the query's earlier groups
    same = group_query[1:] == group_query[:-1]
    before[1:][same] = running[:-1][same]
    firsts = np.flatnonzero(top > before)
    count = top[firsts] - before[firsts]  # the thresholds (before, top] this group is the first hit of
    pair_group = np.repeat(firsts, count)
    t = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count) + np.repeat(before[firsts] + 1, count)
    flat = thr_ptr[group_query[pair_group]] + t - 1
    r = group_rows_at_least(row_level, group_ptr)(pair_group, t)
    del t
    # one expectation per distinct (group, r): thresholds of a group that select the same rows share it
    distinct, which = np.unique(np.column_stack((pair_group, r)), axis=0, return_inverse=True)
    values = _first_hit_expectations(distinct[:, 0], distinct[:, 1].astype(np.float64),
                                     row_rank[starts] - 1, np.diff(group_ptr), cutoff)
    out[flat] = values[which.reshape(-1)]
    return out


def _first_hit_expectations(group: np.ndarray, r: np.ndarray, above: np.ndarray, sizes: np.ndarray,
                            cutoff: int | None) -> np.ndarray:
    """E[1 / rank of the first of r hits placed at random among group g's n positions] (0 beyond the
    cutoff) for every (group, r): the cascade over positions j ≤ min(n − r + 1, TAIL · n / r, cutoff
    − s), summed chunk by chunk (at most ``CHUNK_POSITIONS`` positions at once)."""
    s, n = above[group], sizes[group].astype(np.float64)
    length = np.minimum(n - r + 1, np.ceil(TAIL * n / r))
    if cutoff is not None:
        length = np.minimum(length, np.maximum(cutoff - s, 0))
    length = length.astype(np.int64)
    out = np.zeros(len(group))
    ends = np.cumsum(length)
    begin = 0
    while begin < len(group):
        # the pairs whose positions fit in this chunk (at least one pair)
        end = max(int(np.searchsorted(ends, (ends[begin - 1] if begin else 0) + CHUNK_POSITIONS, side="right")),
                  begin + 1)
        m = length[begin:end]
        pair = np.repeat(np.arange(end - begin), m)
        position = np.arange(int(m.sum())) - np.repeat(np.cumsum(m) - m, m) + 1.0  # j = 1 .. m per pair
        stop = r[begin:end][pair] / (n[begin:end][pair] - position + 1.0)
        out[begin:end] = err(pair, s[begin:end][pair] + position, stop, segment_ptr(pair, end - begin))
        begin = end
    return out
