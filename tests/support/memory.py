"""Memory in tests: the peak of what a piece of work allocates (tracemalloc counts numpy's and Python's
allocations), and the one-query-every-label input the linear tie kernels are held to."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

MB = 1 << 20


def peak_bytes(work: Callable[[], Any]) -> int:
    """The most bytes traced at once while ``work()`` runs."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def every_row_its_own_label(group: int, n: int = 2500) -> tuple[np.ndarray, ...]:
    """One query of ``n`` rows, each its own label (n thresholds: rows x thresholds would be n^2 pairs),
    tie groups of ``group`` rows: ``(query, rank, level, thr_ptr, ptr, n_relevant)`` for the kernels."""
    from ir_measures_graded.kernels.ties import tie_group_ptr

    rng = np.random.default_rng(1)
    query = np.zeros(n, dtype=np.int64)
    level = rng.permutation(n) + 1
    rank = np.arange(1, n + 1)
    thr_ptr = np.array([0, n], dtype=np.int64)
    ptr = tie_group_ptr(query, np.arange(n) // group)
    n_relevant = (n - np.arange(n)).astype(np.float64)
    return query, rank, level, thr_ptr, ptr, n_relevant
