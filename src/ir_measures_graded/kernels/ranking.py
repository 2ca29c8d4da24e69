"""Ranking order with trec_eval's conventions, as used by ir_measures' default provider."""

from __future__ import annotations

import numpy as np


def ranking_order(
    query: np.ndarray, score: np.ndarray, doc_codes: np.ndarray, doc_ids: np.ndarray
) -> np.ndarray:
    """Permutation that ranks rows: by ``query`` ascending, then score descending, then doc id descending.

    Scores are compared as float32, because trec_eval reads them into a C ``float``; two scores
    that differ only beyond float32 precision are a tie. Ties are broken by the doc id string in
    descending order (trec_eval's ``strcmp(docno2, docno1)``). ``doc_ids[doc_codes[i]]`` is row
    ``i``'s doc id. Strings are compared only inside tie groups, which are usually few and small.
    """
    score32 = np.asarray(score, dtype=np.float32)
    order = np.lexsort((-score32, query))
    q_sorted = query[order]
    s_sorted = score32[order]
    tie_with_next = (q_sorted[1:] == q_sorted[:-1]) & (s_sorted[1:] == s_sorted[:-1])
    if not tie_with_next.any():
        return order
    in_tie = np.zeros(len(order), dtype=bool)
    in_tie[1:] |= tie_with_next
    in_tie[:-1] |= tie_with_next
    tied = np.flatnonzero(in_tie)
    starts_group = ~np.concatenate(([False], tie_with_next))[tied]
    group = np.cumsum(starts_group)
    rows = order[tied]
    _, name_rank = np.unique(doc_ids[doc_codes[rows]], return_inverse=True)
    order[tied] = rows[np.lexsort((-name_rank.ravel(), group))]
    return order
