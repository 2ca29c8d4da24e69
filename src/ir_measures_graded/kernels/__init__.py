"""The math: small pure functions over numpy arrays, one per quantity (see each module)."""

from ir_measures_graded.kernels.ap import thresholded_ap
from ir_measures_graded.kernels.dcg import discount, exponential_gain, ideal_dcg, mean_ndcg, ndcg
from ir_measures_graded.kernels.levels import level_of_rows, level_weights, rows_reaching
from ir_measures_graded.kernels.precision import thresholded_precision
from ir_measures_graded.kernels.ranking import descending_score_key, ranking_order
from ir_measures_graded.kernels.segments import (
    positions,
    segment_cumprod,
    segment_cumsum,
    segment_ids,
    segment_ptr,
    segment_rows,
    segment_suffix_sums,
    segment_weighted_mean,
)
from ir_measures_graded.kernels.ties import (
    expected_thresholded_ap,
    expected_thresholded_precision,
    group_mean,
    tie_group_ptr,
)

__all__ = [
    "descending_score_key",
    "expected_thresholded_ap",
    "expected_thresholded_precision",
    "group_mean",
    "tie_group_ptr",
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
    "segment_cumprod",
    "segment_cumsum",
    "segment_ids",
    "segment_ptr",
    "segment_rows",
    "segment_suffix_sums",
    "segment_weighted_mean",
]
