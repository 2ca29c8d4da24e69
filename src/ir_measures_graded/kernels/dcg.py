"""Discounted cumulative gain: gains, discounts, ideal rankings, nDCG@k and its mean over k."""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.segments import positions, segment_cumsum, segment_ptr


def discount(rank: np.ndarray) -> np.ndarray:
    """``1 / log2(rank + 1)`` for 1-based ranks (trec_eval's ``ndcg``)."""
    return 1.0 / np.log2(rank + 1.0)


def exponential_gain(exponent: np.ndarray, shift: np.ndarray | None = None) -> np.ndarray:
    """``2^e - 1`` (Järvelin & Kekäläinen; the paper's Eq. 3 and 5), scaled by ``2^-shift`` if given.

    ``2^(e - s) - 2^(-s)`` equals ``(2^e - 1) * 2^(-s)``: with ``s`` at least ``max(e) - 1000`` it
    stays finite for any exponent, and a factor shared by a ranking and its ideal cancels in nDCG.
    Unshifted, ``2^e - 1`` is ``expm1(e ln 2)``: ``exp2(e) - 1`` would lose the digits of a small
    exponent (``e = 1e-17`` gives 0; a normaliser far above the labels makes every exponent small).
    """
    if shift is None or not shift.any():  # the usual case: no query's exponents need a shift
        return np.expm1(exponent * _LN2)
    gain = np.exp2(exponent - shift) - np.exp2(-shift)
    plain = shift == 0
    gain[plain] = np.expm1(exponent[plain] * _LN2)
    return gain


_LN2 = np.log(2.0)


def ideal_dcg(judged_query: np.ndarray, judged_gain: np.ndarray, n_queries: int) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative DCG of each query's ideal ranking (all its judged documents by gain, descending).

    Returns ``(ptr, cum)``: ``cum[ptr[q] + i - 1]`` is the ideal DCG@i of query ``q`` for
    ``1 <= i <= ptr[q + 1] - ptr[q]`` (the number of documents with positive gain); beyond that
    the ideal DCG stays at its last value.
    """
    positive = judged_gain > 0
    query, gain = judged_query[positive], judged_gain[positive]
    order = np.lexsort((-gain, query))
    query, gain = query[order], gain[order]
    ptr = segment_ptr(query, n_queries)
    return ptr, segment_cumsum(gain * discount(positions(ptr) + 1.0), ptr)


def ideal_at(ideal_ptr: np.ndarray, ideal_cum: np.ndarray, query: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Ideal DCG@depth of each given query (0 where the query has no positive gain or depth is 0)."""
    n_ideal = np.diff(ideal_ptr)[query]
    take = np.minimum(depth, n_ideal)
    out = np.zeros(len(query))
    has = take > 0
    out[has] = ideal_cum[ideal_ptr[query[has]] + take[has] - 1]
    return out


def ndcg(
    row_query: np.ndarray,
    row_rank: np.ndarray,
    row_gain: np.ndarray,
    ideal_ptr: np.ndarray,
    ideal_cum: np.ndarray,
    cutoff: int | None = None,
) -> np.ndarray:
    """nDCG@cutoff of every query (whole ranking without cutoff); 0 where the ideal DCG is 0.

    Rows are sorted by query then rank; ``row_gain`` is the gain already transformed (linear or
    exponential). As trec_eval's ``ndcg``/``ndcg_cut_k``: the ideal ranking is cut at the same depth.
    """
    n_queries = len(ideal_ptr) - 1
    keep = slice(None) if cutoff is None else row_rank <= cutoff
    dcg = np.bincount(row_query[keep], weights=row_gain[keep] * discount(row_rank[keep]), minlength=n_queries)
    depth = np.full(n_queries, np.iinfo(np.int64).max if cutoff is None else cutoff, dtype=np.int64)
    idcg = ideal_at(ideal_ptr, ideal_cum, np.arange(n_queries), depth)
    return np.divide(dcg, idcg, out=np.zeros(n_queries), where=idcg > 0)


def mean_ndcg(
    row_query: np.ndarray,
    row_rank: np.ndarray,
    row_gain: np.ndarray,
    ideal_ptr: np.ndarray,
    ideal_cum: np.ndarray,
    cutoff: int | None = None,
) -> np.ndarray:
    """Mean of nDCG@1 ... nDCG@N of every query, N = cutoff if given, else the ranking's length.

    This is LETOR's MeanNDCG and the "mean" column of Table 2 in Scheel et al. (2011). With a
    cutoff beyond the ranking's end, nDCG@i for the missing ranks keeps the ranking's DCG while
    the ideal DCG grows. A query with N = 0 or no positive gain scores 0.
    """
    n_queries = len(ideal_ptr) - 1
    if cutoff is not None:
        keep = row_rank <= cutoff
        row_query, row_rank, row_gain = row_query[keep], row_rank[keep], row_gain[keep]
    ptr = segment_ptr(row_query, n_queries)
    length = np.diff(ptr)
    depth = length if cutoff is None else np.full(n_queries, cutoff, dtype=np.int64)

    dcg_at_row = segment_cumsum(row_gain * discount(row_rank), ptr)
    idcg_at_row = ideal_at(ideal_ptr, ideal_cum, row_query, row_rank)
    ndcg_at_row = np.divide(dcg_at_row, idcg_at_row, out=np.zeros(len(row_rank)), where=idcg_at_row > 0)
    total = np.bincount(row_query, weights=ndcg_at_row, minlength=n_queries).astype(np.float64)

    # Ranks length+1 .. depth (only with a cutoff past the ranking's end): DCG stays, ideal grows.
    tail = depth > length
    if tail.any():
        q = np.flatnonzero(tail)
        dcg_full = np.zeros(n_queries)
        has_rows = length > 0
        dcg_full[has_rows] = dcg_at_row[ptr[1:][has_rows] - 1]
        n_ideal = np.diff(ideal_ptr)
        # IDCGs in units of the query's top gain (its first ideal DCG): >= 1, so 1/IDCG cannot
        # overflow however small the gains (a subnormal gain's reciprocal is beyond float64)
        top = np.ones(n_queries)
        top[n_ideal > 0] = ideal_cum[ideal_ptr[:-1][n_ideal > 0]]
        scaled_cum = ideal_cum / np.repeat(top, n_ideal)
        inv_cum = segment_cumsum(1.0 / scaled_cum, ideal_ptr)
        # sum of top/IDCG@i over the ideal ranks i in (a, b], for each query in q
        a = np.minimum(length[q], n_ideal[q])
        b = np.minimum(depth[q], n_ideal[q])
        inside = ideal_at(ideal_ptr, inv_cum, q, b) - ideal_at(ideal_ptr, inv_cum, q, a)
        idcg_full = ideal_at(ideal_ptr, scaled_cum, q, n_ideal[q])
        beyond = np.maximum(depth[q] - np.maximum(length[q], n_ideal[q]), 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            tail_sum = inside + np.where(idcg_full > 0, beyond / idcg_full, 0.0)
        total[q] += (dcg_full[q] / top[q]) * tail_sum
    return np.divide(total, depth, out=np.zeros(n_queries), where=depth > 0)
