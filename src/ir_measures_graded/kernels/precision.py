"""Precision at a cutoff, at every threshold of every query."""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.levels import rows_reaching


def thresholded_precision(
    row_query: np.ndarray, row_rank: np.ndarray, row_reached: np.ndarray, thr_ptr: np.ndarray, cutoff: int
) -> np.ndarray:
    """``P^t@k`` for every flat threshold: relevant rows (label >= t) among the top ``k``, divided by ``k``.

    ``row_reached[i]`` is how many of its query's thresholds row i's label reaches (rows sorted by
    query, then rank). Divides by ``k`` even when fewer than ``k`` documents were retrieved, as trec_eval's ``P_k``.
    """
    top = row_rank <= cutoff
    return rows_reaching(row_query[top], row_reached[top], thr_ptr) / cutoff
