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

import numpy as np

from ir_measures_graded.kernels.segments import segment_ids


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
