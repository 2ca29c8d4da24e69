"""Dominance sums: for every position, a sum over the earlier positions whose key is at least its own.

The counting step behind AP at every threshold in memory linear in the rows (see :mod:`.ap` and
:mod:`.ties`).
"""

from __future__ import annotations

import numpy as np


def earlier_at_least(key: np.ndarray, weight: np.ndarray, strict: bool) -> np.ndarray:
    """For every position ``a``: ``sum(weight[b] for b < a if key[b] >= key[a])`` (``>`` if strict).

    A bottom-up merge sort over blocks of 1, 2, 4, ... positions: when a left and a right block
    merge, each element of the right block gains the weight of the left block's elements whose key
    is at least its own. Memory ``O(n)``; ``log2 n`` passes, each a stable sort of rows made of two
    sorted runs, which timsort merges in linear time: ``O(n log n)`` in all.
    """
    n = len(key)
    size = 1 << max(n - 1, 0).bit_length()
    # Keys shifted left by one bit leave room for the tie-break: on equal keys, right elements sort
    # before left ones for ">=" (so equal left keys count), after them for ">".
    keys = np.zeros(size, dtype=np.int64)
    keys[:n] = key.astype(np.int64) << 1
    weights = np.zeros(size)
    weights[:n] = weight
    position = np.arange(size, dtype=np.int64)  # original position of what sits at each slot
    result = np.zeros(size)
    width = 1
    while width < size:
        rows = (size // (2 * width), 2 * width)
        is_left = (np.arange(2 * width) < width)[np.newaxis, :]
        tie = np.where(is_left, 0 if strict else 1, 1 if strict else 0)
        order = np.argsort((keys.reshape(rows) | tie), axis=1, kind="stable")
        keys = np.take_along_axis(keys.reshape(rows), order, axis=1)
        position = np.take_along_axis(position.reshape(rows), order, axis=1)
        left = np.take_along_axis(np.broadcast_to(is_left, rows), order, axis=1)
        w = np.take_along_axis(weights.reshape(rows), order, axis=1)
        left_weight = np.where(left, w, 0.0)
        before = np.cumsum(left_weight, axis=1) - left_weight  # left weight sorted before each slot
        gained = left_weight.sum(axis=1, keepdims=True) - before
        right = ~left
        result[position[right]] += gained[right]
        keys, position, weights = keys.ravel(), position.ravel(), w.ravel()
        width *= 2
    return result[:n]
