"""Helpers for rows grouped into contiguous segments (one segment per query).

A segmentation is a ``ptr`` array of ``n_segments + 1`` offsets, as in CSR matrices: segment ``s``
holds rows ``ptr[s]:ptr[s + 1]``.
"""

from __future__ import annotations

import numpy as np


def segment_ptr(segment_of_row: np.ndarray, n_segments: int) -> np.ndarray:
    """Offsets of the segments of rows already sorted by segment id (ids in ``[0, n_segments)``)."""
    ptr = np.zeros(n_segments + 1, dtype=np.int64)
    np.cumsum(np.bincount(segment_of_row, minlength=n_segments), out=ptr[1:])
    return ptr


def segment_ids(ptr: np.ndarray) -> np.ndarray:
    """The segment id of every row."""
    return np.repeat(np.arange(len(ptr) - 1, dtype=np.int64), np.diff(ptr))


def positions(ptr: np.ndarray) -> np.ndarray:
    """0-based position of every row inside its segment."""
    return np.arange(ptr[-1], dtype=np.int64) - np.repeat(ptr[:-1], np.diff(ptr))


def segment_cumsum(values: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Running sum restarting at each segment, summed in row order like a plain loop would."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.float64)
    # groupby-cumsum adds sequentially per group; a global cumsum minus offsets would not be exact.
    import pandas as pd  # lazily: importing the package must not load pandas

    return pd.Series(values).groupby(segment_ids(ptr), sort=False).cumsum().to_numpy()


def segment_suffix_sums(values: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """For each row, the sum of the rows from it to the end of its segment (exact for integers)."""
    suffix = np.append(np.cumsum(values[::-1])[::-1], 0)
    return suffix[:-1] - np.repeat(suffix[ptr[1:]], np.diff(ptr))


def segment_weighted_mean(values: np.ndarray, weights: np.ndarray, ptr: np.ndarray,
                          total: float | None = None) -> np.ndarray:
    """Per segment ``sum(w * v) / sum(w)``; 0 for a segment with no rows or zero total weight.

    ``total``: divide every segment's ``sum(w * v)`` by this instead of its own ``sum(w)``.
    """
    n = len(ptr) - 1
    seg = segment_ids(ptr)
    num = np.bincount(seg, weights=values * weights, minlength=n)
    den = np.bincount(seg, weights=weights, minlength=n) if total is None else np.full(n, float(total))
    return np.divide(num, den, out=np.zeros(n), where=den > 0)
