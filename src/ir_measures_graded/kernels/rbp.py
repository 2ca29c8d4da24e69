"""Rank-biased precision (Moffat & Zobel 2008): geometric rank weights, the score and its residual."""

from __future__ import annotations

import numpy as np


def rank_weights(row_rank: np.ndarray, p: float, cutoff: int | None = None) -> np.ndarray:
    """``(1 − p) p^(r − 1)`` for every row at rank r (0 beyond the cutoff): the chance a user sees it."""
    weight = (1.0 - p) * np.power(p, row_rank - 1.0)
    return weight if cutoff is None else np.where(row_rank <= cutoff, weight, 0.0)


def rbp(row_query: np.ndarray, row_rank: np.ndarray, row_gain: np.ndarray, n_queries: int, p: float,
        cutoff: int | None = None) -> np.ndarray:
    """RBP of every query: ``(1 − p) Σ_{r ≤ k} g_r p^(r − 1)`` with gains ``g_r`` in [0, 1]."""
    return np.bincount(row_query, weights=rank_weights(row_rank, p, cutoff) * row_gain, minlength=n_queries)


def rbp_residual(row_query: np.ndarray, row_rank: np.ndarray, row_unknown: np.ndarray, n_queries: int, p: float,
                 cutoff: int | None = None) -> np.ndarray:
    """How much RBP could still rise: the weight of the unjudged rows seen (``row_unknown``: 1 for an
    unjudged row, or its probability) plus ``p^d``, the weight of everything below the depth d
    evaluated (d = the ranking's length, at most the cutoff); a query without rows gives 1."""
    seen = np.bincount(row_query, weights=rank_weights(row_rank, p, cutoff) * row_unknown, minlength=n_queries)
    depth = np.bincount(row_query, minlength=n_queries)
    if cutoff is not None:
        depth = np.minimum(depth, cutoff)
    return seen + np.power(p, depth.astype(np.float64))
