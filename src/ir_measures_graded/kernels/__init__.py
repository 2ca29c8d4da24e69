"""The math: small pure functions over numpy arrays, one per quantity (see each module)."""

from ir_measures_graded.kernels.ap import thresholded_ap
from ir_measures_graded.kernels.dcg import discount, exponential_gain, ideal_dcg, mean_ndcg, ndcg
from ir_measures_graded.kernels.levels import level_of_rows, level_weights, rows_reaching
from ir_measures_graded.kernels.precision import thresholded_precision
from ir_measures_graded.kernels.ranking import ranking_order
from ir_measures_graded.kernels.segments import (
    positions,
    segment_cumsum,
    segment_ids,
    segment_ptr,
    segment_suffix_sums,
    segment_weighted_mean,
)

__all__ = [
    "thresholded_ap",
    "thresholded_precision",
    "discount",
    "exponential_gain",
    "ideal_dcg",
    "ndcg",
    "mean_ndcg",
    "level_of_rows",
    "level_weights",
    "rows_reaching",
    "ranking_order",
    "positions",
    "segment_cumsum",
    "segment_ids",
    "segment_ptr",
    "segment_suffix_sums",
    "segment_weighted_mean",
]
