"""Precision at a cutoff, at every threshold of every query."""

from __future__ import annotations

import numpy as np

from ir_measures_graded.kernels.levels import rows_reaching
from ir_measures_graded.kernels.ties import expected_thresholded_precision


def thresholded_precision(
    row_query: np.ndarray, row_rank: np.ndarray, row_reached: np.ndarray, thr_ptr: np.ndarray, cutoff: int,
    tie_ptr: np.ndarray | None = None,
) -> np.ndarray:
    """``P^t@k`` for every flat threshold: relevant rows (label >= t) among the top ``k``, divided by ``k``.

    ``row_reached[i]`` is how many of its query's thresholds row i's label reaches (rows sorted by
    query, then rank). Divides by ``k`` even when fewer than ``k`` documents were retrieved, as trec_eval's ``P_k``.
    With ``tie_ptr`` (the rows' tie groups) the expected value over every order of tied rows.
    """
    if tie_ptr is not None:
        return expected_thresholded_precision(row_query, row_rank, row_reached, thr_ptr, tie_ptr, cutoff)
    top = row_rank <= cutoff
    return rows_reaching(row_query[top], row_reached[top], thr_ptr) / cutoff
