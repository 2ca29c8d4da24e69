"""Ranking order with trec_eval's conventions, as used by ir_measures' default provider."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def descending_score_key(score: np.ndarray) -> np.ndarray:
    """uint32 keys that sort ascending exactly as the scores, read as float32, sort descending.

    Equal float32 values (including -0.0 and +0.0) get equal keys. Scores must not be NaN. A
    score beyond float32's range becomes +-inf, as in trec_eval's C ``float`` (so 1e39 and 2e39 tie).
    """
    with np.errstate(over="ignore"):
        single = np.asarray(score, dtype=np.float32)
    bits = (single + np.float32(0.0)).view(np.uint32)  # + 0.0 turns -0.0 into 0.0
    negative = (bits >> np.uint32(31)).astype(bool)
    ascending = np.where(negative, ~bits, bits | np.uint32(0x80000000))  # IEEE bits -> order-preserving
    return ~ascending


def ranking_order(query: np.ndarray, score_key: np.ndarray, doc_codes: np.ndarray,
                  name_rank: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """Permutation that ranks rows: by ``query`` ascending, then score descending, then doc id descending.

    ``score_key``: :func:`descending_score_key` of the scores, which compares them as float32,
    because trec_eval reads them into a C ``float``; two scores that differ only beyond float32
    precision are a tie. Ties are broken by the doc id string in
    descending order (trec_eval's ``strcmp(docno2, docno1)``): ``name_rank(codes)`` is the dense
    rank, in that order, of the doc ids of ``codes`` (:func:`..io.ids.name_ranks`); None: the codes
    themselves are in the ids' byte order. ``query`` holds non-negative integers below 2**32. One
    integer sort orders (query, score); ids are compared only inside tie groups, which are usually
    few and small.
    """
    order, key = _sorted_by_query_and_score(query, score_key)
    tie_with_next = key[1:] == key[:-1]
    del key
    if not tie_with_next.any():
        return order
    in_tie = np.zeros(len(order), dtype=bool)
    in_tie[1:] |= tie_with_next
    in_tie[:-1] |= tie_with_next
    tied = np.flatnonzero(in_tie)
    starts_group = ~np.concatenate(([False], tie_with_next))[tied]
    group = np.cumsum(starts_group)
    rows = order[tied]
    names = doc_codes[rows] if name_rank is None else name_rank(doc_codes[rows])
    order[tied] = rows[np.lexsort((-names, group))]
    return order


def _sorted_by_query_and_score(query: np.ndarray, score_key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, key)``: the permutation sorting rows by (query, score key) and the sorted
    (query, score key) keys, equal exactly where two rows are tied.

    Where the span of query codes and the row numbers fit beside the 32-bit score key in 64 bits
    (a batch of a few hundred queries), each row's number is packed into its key and the keys
    sorted in place: about half the time of an argsort, and stable. Else an argsort.
    """
    n = len(query)
    low = int(query.min()) if n else 0
    row_bits = max(int(n - 1).bit_length(), 1)
    query_bits = max(int(query.max() - low).bit_length(), 1) if n else 1
    if row_bits + query_bits + 32 <= 64:
        packed = (query - low).astype(np.uint64) << np.uint64(32 + row_bits)
        packed |= score_key.astype(np.uint64) << np.uint64(row_bits)
        packed |= np.arange(n, dtype=np.uint64)
        packed.sort()
        order = (packed & np.uint64((1 << row_bits) - 1)).astype(np.int64)
        packed >>= np.uint64(row_bits)  # the (query - low, score key) key of each sorted row
        return order, packed
    key = (query.astype(np.uint64) << np.uint64(32)) | score_key.astype(np.uint64)
    order = np.argsort(key)
    return order, key[order]
