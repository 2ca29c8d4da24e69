"""Tie-aware expected values: the mean of a measure over every order of tied scores.

McSherry & Najork, *Computing Information Retrieval Performance Measures Efficiently in the
Presence of Tied Scores*, ECIR 2008. Rows are sorted by query then rank, and ``group_ptr``
segments them into tie groups (consecutive rows of one query with equal scores). Every order of a
group is equally likely, so by linearity of expectation:

- gain-based measures (DCG, nDCG, P@k) use each row's group mean in place of its own value
  (:func:`group_mean`);
- AP needs the expected precision at each position of a group (:func:`expected_ap`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ir_measures_graded.kernels.dominance import earlier_at_least
from ir_measures_graded.kernels.levels import sum_reaching
from ir_measures_graded.kernels.segments import segment_ids, segment_ptr, segment_suffix_sums

#: Expanding tie groups into (group, threshold) pairs is the fastest way while the pairs number at
#: most this many times the rows (few thresholds per query); beyond, per-row increments are used.
PAIRS_PER_ROW = 8


def tie_group_ptr(row_query: np.ndarray, row_key: np.ndarray) -> np.ndarray:
    """Offsets of the tie groups: maximal runs of rows with equal ``(query, key)``, in row order."""
    n = len(row_query)
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = (row_query[1:] != row_query[:-1]) | (row_key[1:] != row_key[:-1])
    return np.append(np.flatnonzero(new), n).astype(np.int64)


def group_mean(values: np.ndarray, group_ptr: np.ndarray) -> np.ndarray:
    """Every row's value replaced by the mean over its tie group (its expected value at its rank)."""
    sizes = np.diff(group_ptr)
    sums = np.add.reduceat(values.astype(np.float64), group_ptr[:-1]) if len(values) else np.zeros(0)
    return np.repeat(sums / np.maximum(sizes, 1), sizes)


def expected_ap(
    row_query: np.ndarray,
    row_rank: np.ndarray,
    row_relevant: np.ndarray,
    group_ptr: np.ndarray,
    n_relevant: np.ndarray,
    cutoff: int | None = None,
) -> np.ndarray:
    """Expected AP of every query over all orders of its tied rows (AP@cutoff with a cutoff).

    For a group of n rows after s earlier rows, r of them relevant and b relevant rows before it,
    the position s + j (1 ≤ j ≤ n) holds a relevant row with probability r/n and then has
    b + 1 + (j − 1)(r − 1)/(n − 1) relevant rows at or above it, so the group adds
    Σ_j (r/n)(b + 1 + (j − 1)(r − 1)/(n − 1)) / (s + j) to the sum of precisions; AP divides that
    by all of the query's relevant documents (``n_relevant[q]``), as trec_eval does.
    """
    n_queries = len(n_relevant)
    if len(row_query) == 0:
        return np.zeros(n_queries)
    starts = group_ptr[:-1]
    sizes = np.diff(group_ptr)
    rel = np.add.reduceat(row_relevant.astype(np.float64), starts)
    group_query = row_query[starts]
    # relevant rows before each group, inside its query
    before = np.cumsum(rel) - rel
    first_of_query = np.flatnonzero(np.concatenate(([True], group_query[1:] != group_query[:-1])))
    before -= np.repeat(before[first_of_query], np.diff(np.append(first_of_query, len(rel))))
    # per row: its position j inside the group (1-based) and its rank s + j
    group = segment_ids(group_ptr)
    j = np.arange(len(row_query), dtype=np.float64) - starts[group] + 1
    rank = row_rank.astype(np.float64)
    n, r, b = sizes[group].astype(np.float64), rel[group], before[group]
    others = np.divide((j - 1) * (r - 1), n - 1, out=np.zeros_like(j), where=n > 1)
    term = (r / n) * (b + 1 + others) / rank
    if cutoff is not None:
        term = np.where(row_rank <= cutoff, term, 0.0)
    sums = np.bincount(row_query, weights=term, minlength=n_queries)
    return np.divide(sums, n_relevant, out=np.zeros(n_queries), where=n_relevant > 0)


def threshold_pairs(
    row_query: np.ndarray, row_rank: np.ndarray, row_level: np.ndarray, thr_ptr: np.ndarray, group_ptr: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One pair per tie group g and threshold t its rows reach: ``(group, flat threshold, r, b)``.

    r = rows of g with label >= t, b = rows of the same query ranked before g with label >= t.
    Memory is proportional to the pairs (at most the (row, threshold) pairs of the ranking).
    """
    starts = group_ptr[:-1]
    n_groups = len(starts)
    top = np.maximum.reduceat(row_level, starts).astype(np.int64) if n_groups else np.zeros(0, np.int64)
    pair_ptr = np.concatenate(([0], np.cumsum(top)))
    pair_group = np.repeat(np.arange(n_groups, dtype=np.int64), top)
    pair_t = np.arange(pair_ptr[-1], dtype=np.int64) - pair_ptr[pair_group]  # 0-based threshold index
    group = segment_ids(group_ptr)
    hit = row_level > 0
    exact = np.bincount(pair_ptr[group[hit]] + row_level[hit] - 1, minlength=pair_ptr[-1])
    r = segment_suffix_sums(exact, pair_ptr).astype(np.float64)  # rows with level >= t in the group
    flat = thr_ptr[row_query[starts]][pair_group] + pair_t
    order = np.lexsort((pair_group, flat))  # by threshold, then groups in rank order
    flat_sorted, r_sorted = flat[order], r[order]
    ptr = segment_ptr(flat_sorted, int(thr_ptr[-1]))
    before = np.cumsum(r_sorted) - r_sorted
    sizes = np.diff(ptr)
    before -= np.repeat(before[ptr[:-1][sizes > 0]], sizes[sizes > 0])  # restart at each threshold
    b = np.empty_like(before)
    b[order] = before
    return pair_group, flat, r, b


def group_rows_at_least(row_level: np.ndarray, group_ptr: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``count(g, t)``: how many rows of tie group g reach threshold t (level >= t, t 1-based), for
    any arrays of (group, threshold) — a binary search each in the rows sorted by (group, level).

    Memory ``O(rows)`` for the sorted keys, whatever the number of thresholds.
    """
    stride = int(row_level.max(initial=0)) + 2
    key = np.sort(segment_ids(group_ptr).astype(np.int64) * stride + row_level)  # groups stay contiguous

    def count(group: np.ndarray, t: np.ndarray) -> np.ndarray:
        return group_ptr[group + 1] - np.searchsorted(key, group.astype(np.int64) * stride + t, side="left")

    return count


def expected_thresholded_ap(
    row_query: np.ndarray,
    row_rank: np.ndarray,
    row_level: np.ndarray,
    thr_ptr: np.ndarray,
    n_relevant: np.ndarray,
    group_ptr: np.ndarray,
    cutoff: int | None = None,
) -> np.ndarray:
    """Expected AP^t over all orders of tied rows, for every flat threshold (as :func:`expected_ap`).

    ``row_level[i]`` is how many of its query's thresholds row i reaches (see kernels.levels).
    Per tie group g and threshold t (r relevant rows in g, b before it):
    Σ_j (r/n)(b + 1 + (j − 1)(r − 1)/(n − 1)) / (s + j) = α_g·r·(b + 1) + β_g·r·(r − 1)
    with α_g = H1_g / n, β_g = H2_g / (n(n − 1)), H1_g = Σ_j 1/(s + j) and H2_g = Σ_j (j − 1)/(s + j)
    over the group's positions (up to the cutoff).

    While the (group, threshold) pairs number at most ``PAIRS_PER_ROW`` per row, summed per pair;
    beyond (real-valued labels give a query as many thresholds as rows), never per pair: lowering
    the threshold one level at a time, the rows of level l join the relevant set at the l-th
    threshold, those of one level in rank order. When row x joins, the
    sum grows by α_x (its own r), α_x per relevant row of an earlier group and the α of every
    relevant row of a later group (the b's), and 2β_x per relevant row of its own group (r(r − 1)).
    Those counts are dominance sums over (query, level) and (group, level), found by merge sorts
    (:func:`~.dominance.earlier_at_least`); the sum at threshold t is the increments of the rows
    of level >= t (:func:`~.levels.sum_reaching`). Memory ``O(rows + thresholds)``, time
    ``O(rows log² rows)``, whatever the number of thresholds.
    """
    n_flat = int(thr_ptr[-1])
    if len(row_query) == 0 or n_flat == 0:
        return np.zeros(n_flat)
    starts = group_ptr[:-1]
    group = segment_ids(group_ptr)
    j = np.arange(len(row_query), dtype=np.float64) - starts[group] + 1
    inside = np.ones(len(row_query)) if cutoff is None else (row_rank <= cutoff).astype(np.float64)
    n = np.diff(group_ptr).astype(np.float64)
    h1 = np.add.reduceat(inside / row_rank, starts)
    h2 = np.add.reduceat(inside * (j - 1) / row_rank, starts)
    del j, inside
    if few_pairs(row_level, group_ptr):
        pair_group, flat, r, b = threshold_pairs(row_query, row_rank, row_level, thr_ptr, group_ptr)
        others = np.divide(r - 1, n[pair_group] - 1, out=np.zeros_like(r), where=n[pair_group] > 1)
        term = (r / n[pair_group]) * ((b + 1) * h1[pair_group] + others * h2[pair_group])
        sums = np.bincount(flat, weights=term, minlength=n_flat)
    else:
        sums = _ap_sums_by_counting(row_query, row_level, thr_ptr, group, (h1 / n)[group],
                                    np.divide(h2, n * (n - 1), out=np.zeros(len(n)), where=n > 1)[group])
    return np.divide(sums, n_relevant, out=np.zeros(n_flat), where=n_relevant > 0)


def few_pairs(row_level: np.ndarray, group_ptr: np.ndarray) -> bool:
    """Do the (tie group, threshold reached) pairs number at most ``PAIRS_PER_ROW`` per row?"""
    return int(np.maximum.reduceat(row_level, group_ptr[:-1]).sum()) <= PAIRS_PER_ROW * len(row_level)


def _ap_sums_by_counting(row_query: np.ndarray, row_level: np.ndarray, thr_ptr: np.ndarray, group: np.ndarray,
                         alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """The sums of :func:`expected_thresholded_ap` at every threshold from per-row increments (see
    there); ``alpha`` and ``beta``: each row's group's α_g and β_g."""
    level = row_level.astype(np.int64)
    top = int(level.max()) + 1
    ones = np.ones(len(level))

    def joined_before(segment: np.ndarray) -> np.ndarray:  # relevant rows ranked above x, in x's segment
        return earlier_at_least(segment * top + level, ones, strict=False)

    def joined_after(segment: np.ndarray, weight: np.ndarray) -> np.ndarray:  # ... ranked below x
        key = (int(segment[-1]) - segment) * top + level
        return earlier_at_least(key[::-1], weight[::-1], strict=True)[::-1]

    same_before, same_after = joined_before(group), joined_after(group, ones)
    increment = (alpha * (1.0 + joined_before(row_query) - same_before - same_after)
                 + joined_after(row_query, alpha) + 2.0 * beta * (same_before + same_after))
    return sum_reaching(row_query, level, thr_ptr, weights=increment)


def expected_thresholded_precision(
    row_query: np.ndarray, row_rank: np.ndarray, row_level: np.ndarray, thr_ptr: np.ndarray,
    group_ptr: np.ndarray, cutoff: int,
) -> np.ndarray:
    """Expected P^t@k over all orders of tied rows: a group with m of its n positions in the top k
    contributes m · r/n relevant rows at threshold t (m/n per row reaching t); divided by k as
    trec_eval's ``P_k``. Per (group, threshold) pair while they are few (as
    :func:`expected_thresholded_ap`), else summed per row (m/n for each row reaching t)."""
    n_flat = int(thr_ptr[-1])
    if len(row_query) == 0 or n_flat == 0:
        return np.zeros(n_flat)
    sizes = np.diff(group_ptr)
    in_top = np.add.reduceat((row_rank <= cutoff).astype(np.float64), group_ptr[:-1])
    if few_pairs(row_level, group_ptr):
        pair_group, flat, r, _ = threshold_pairs(row_query, row_rank, row_level, thr_ptr, group_ptr)
        return np.bincount(flat, weights=in_top[pair_group] * r / sizes[pair_group], minlength=n_flat) / cutoff
    share = np.repeat(in_top / sizes, sizes)
    return sum_reaching(row_query, row_level.astype(np.int64), thr_ptr, weights=share) / cutoff
