"""Helpers for rows grouped into contiguous segments (one segment per query).

A segmentation is a ``ptr`` array of ``n_segments + 1`` offsets, as in CSR matrices: segment ``s``
holds rows ``ptr[s]:ptr[s + 1]``.
"""

from __future__ import annotations

from typing import Any

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


def segment_rows(ptr: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """The rows of the given segments (ascending ids), in row order."""
    starts = ptr[segments]
    lengths = ptr[segments + 1] - starts
    offsets = np.cumsum(lengths) - lengths  # where each segment's rows begin in the result
    return np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(starts - offsets, lengths)


def segment_cumsum(values: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Running sum restarting at each segment, summed in row order like a plain loop would.

    A global cumsum minus offsets would not be exact; see :func:`segment_scan`.
    """
    return segment_scan(values, ptr, np.cumsum)


def segment_cumprod(values: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Running product restarting at each segment, multiplied in row order like a plain loop would."""
    return segment_scan(values, ptr, np.cumprod)


def segment_scan(values: np.ndarray, ptr: np.ndarray, scan: Any) -> np.ndarray:
    """``scan`` (``np.cumsum`` or ``np.cumprod``) restarting at each segment, element after element.

    Segments of similar length (within a factor of two) become the rows of one zero-padded matrix
    scanned along its rows (the padding comes after each segment, so it changes nothing), so the
    padding costs at most as much as the values. Integers stay integers.
    """
    values = np.asarray(values)
    dtype = np.int64 if values.dtype.kind in "iub" else np.float64
    out = np.empty(len(values), dtype=dtype)
    lengths = np.diff(ptr)
    bucket = np.zeros(len(lengths), dtype=np.int64)
    filled = lengths > 0
    bucket[filled] = np.frexp(lengths[filled].astype(np.float64))[1]  # 2**(b-1) <= length < 2**b
    for b in np.flatnonzero(np.bincount(bucket[filled], minlength=1)):
        segments = np.flatnonzero(filled & (bucket == b))
        n = lengths[segments]
        row = np.repeat(np.arange(len(segments)), n)
        column = np.arange(len(row)) - np.repeat(np.cumsum(n) - n, n)
        at = np.repeat(ptr[segments], n) + column
        grid = np.zeros((len(segments), int(n.max())), dtype=dtype)
        grid[row, column] = values[at]
        scan(grid, axis=1, out=grid)
        out[at] = grid[row, column]
    return out


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
