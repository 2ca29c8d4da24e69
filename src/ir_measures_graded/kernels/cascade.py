"""Cascade user models: the probability that a user reaches each rank, and ERR."""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.segments import segment_cumprod


def reach_probability(row_stop: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """``Π_{i < r} (1 − R_i)`` for every row: the probability that a cascade user who stops at a row
    with probability ``row_stop`` reaches it (rows grouped into segments by ``ptr``, in rank order).

    A plain running product restarting per segment (exact where a stop probability is 1).
    """
    if len(row_stop) == 0:
        return np.zeros(0)
    through = segment_cumprod(1.0 - row_stop, ptr)
    reach = np.ones(len(row_stop))
    reach[1:] = through[:-1]
    reach[ptr[:-1][np.diff(ptr) > 0]] = 1.0  # every segment starts with probability 1
    return reach


def err(row_query: np.ndarray, row_rank: np.ndarray, row_stop: np.ndarray, ptr: np.ndarray,
        cutoff: int | None = None) -> np.ndarray:
    """ERR@k of every segment: ``Σ_{r ≤ k} (1/r) R_r Π_{i < r} (1 − R_i)`` (Chapelle et al. 2009).

    Rows are sorted by query, then rank (1-based, consecutive), segmented by ``ptr``; ``row_stop``
    is each row's stopping probability R in [0, 1].
    """
    term = reach_probability(row_stop, ptr) * row_stop / row_rank
    if cutoff is not None:
        term = np.where(row_rank <= cutoff, term, 0.0)
    return np.bincount(row_query, weights=term, minlength=len(ptr) - 1)
