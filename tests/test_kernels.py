"""The numeric kernels in isolation, on hand-checked arrays."""

from __future__ import annotations

import numpy as np
import pytest

from ir_measures_graded import kernels


def test_segments():
    ptr = kernels.segment_ptr(np.array([0, 0, 2, 2, 2]), 4)
    assert ptr.tolist() == [0, 2, 2, 5, 5]
    assert kernels.segment_ids(ptr).tolist() == [0, 0, 2, 2, 2]
    assert kernels.positions(ptr).tolist() == [0, 1, 0, 1, 2]
    assert kernels.segment_cumsum(np.array([1.0, 2, 3, 4, 5]), ptr).tolist() == [1, 3, 3, 7, 12]
    assert kernels.segment_suffix_sums(np.array([1, 2, 3, 4, 5]), ptr).tolist() == [3, 2, 12, 9, 5]
    means = kernels.segment_weighted_mean(np.array([1.0, 0, 1, 0, 1]), np.array([1.0, 3, 1, 1, 2]), ptr)
    assert means.tolist() == [0.25, 0.0, 0.75, 0.0]


def test_ranking_order_float32_ties_and_doc_id_descending():
    query = np.array([1, 0, 0, 0, 0, 1])
    score = np.array([5.0, 1.0, 1.0 + 1e-9, 2.0, 1.0, 0.0])  # rows 1, 2, 4 tie once read as float32
    doc_ids = np.array(["d10", "d9", "d2", "x", "d1", "y"], dtype=object)
    order = kernels.ranking_order(query, score, np.arange(6), doc_ids)
    assert [doc_ids[i] for i in order] == ["x", "d9", "d2", "d1", "d10", "y"]


def test_level_of_rows_per_query_thresholds():
    thr_ptr = np.array([0, 2, 2, 5])
    thr_values = np.array([1.0, 3.0, 0.5, 1.0, 2.0])
    query = np.array([0, 0, 0, 0, 1, 2, 2, 2, 2])
    label = np.array([0.0, 1.0, 2.9, 3.0, 4.0, np.nan, 0.5, 1.7, 9.0])
    assert kernels.level_of_rows(query, label, thr_ptr, thr_values).tolist() == [0, 1, 1, 2, 0, 0, 1, 2, 3]


def test_rows_reaching_and_level_weights():
    thr_ptr = np.array([0, 2, 5])
    level = np.array([0, 1, 2, 2, 3, 1])
    query = np.array([0, 0, 0, 1, 1, 1])
    assert kernels.rows_reaching(query, level, thr_ptr).tolist() == [2, 1, 3, 2, 1]
    values = np.array([1.0, 3.0, 0.5, 1.0, 2.0])
    assert kernels.level_weights(thr_ptr, values, 0.0, "distance").tolist() == [1.0, 2.0, 0.5, 0.5, 1.0]
    assert kernels.level_weights(thr_ptr, values, -1.0, "uniform").tolist() == [1.0] * 5


def test_thresholded_ap_table1():
    # Table 1: labels 1 0 3 3 2 0 1 4 ranked as listed, thresholds 1..4.
    label = np.array([1, 0, 3, 3, 2, 0, 1, 4], dtype=float)
    thr_ptr, thr_values = np.array([0, 4]), np.array([1.0, 2, 3, 4])
    query, rank = np.zeros(8, dtype=np.int64), np.arange(1, 9)
    level = kernels.level_of_rows(query, label, thr_ptr, thr_values)
    n_rel = kernels.rows_reaching(query, level, thr_ptr)
    ap = kernels.thresholded_ap(query, rank, level, thr_ptr, n_rel)
    assert np.round(ap, 3).tolist() == [0.780, 0.483, 0.403, 0.125]
    # AP@4 still divides by every relevant document (trec_eval's map_cut)
    ap4 = kernels.thresholded_ap(query, rank, level, thr_ptr, n_rel, cutoff=4)
    assert ap4.tolist() == pytest.approx([(1 + 2 / 3 + 3 / 4) / 6, (1 / 3 + 2 / 4) / 4, (1 / 3 + 2 / 4) / 3, 0.0])
    assert kernels.thresholded_precision(query, rank, level, thr_ptr, 4).tolist() == [0.75, 0.5, 0.5, 0.0]


def test_dcg_ideal_and_ndcg():
    assert kernels.discount(np.array([1, 3])).tolist() == [1.0, 0.5]
    assert kernels.exponential_gain(np.array([0.0, 1, 2])).tolist() == [0.0, 1.0, 3.0]
    ptr, cum = kernels.ideal_dcg(np.array([0, 0, 0, 1]), np.array([1.0, 3.0, 0.0, 0.0]), 2)
    assert ptr.tolist() == [0, 2, 2]  # zero gains are not part of the ideal ranking
    assert cum.tolist() == pytest.approx([3.0, 3.0 + 1 / np.log2(3)])
    query, rank, gain = np.array([0, 0, 1]), np.array([1, 2, 1]), np.array([1.0, 3.0, 0.0])
    dcg = 1.0 + 3.0 / np.log2(3)
    assert kernels.ndcg(query, rank, gain, ptr, cum).tolist() == pytest.approx([dcg / cum[1], 0.0])
    assert kernels.ndcg(query, rank, gain, ptr, cum, cutoff=1).tolist() == pytest.approx([1 / 3, 0.0])


def test_mean_ndcg_with_cutoff_past_the_ranking():
    # Ideal gains 3, 1, 1; the ranking has one row of gain 1; mean over nDCG@1..@5.
    ptr, cum = kernels.ideal_dcg(np.zeros(3, dtype=np.int64), np.array([3.0, 1.0, 1.0]), 1)
    query, rank, gain = np.array([0]), np.array([1]), np.array([1.0])
    idcg = [3.0, 3.0 + 1 / np.log2(3), 3.0 + 1 / np.log2(3) + 0.5]
    expected = (1 / idcg[0] + 1 / idcg[1] + 1 / idcg[2] + 1 / idcg[2] + 1 / idcg[2]) / 5
    assert kernels.mean_ndcg(query, rank, gain, ptr, cum, cutoff=5).tolist() == pytest.approx([expected])
    assert kernels.mean_ndcg(query, rank, gain, ptr, cum).tolist() == pytest.approx([1 / 3])
