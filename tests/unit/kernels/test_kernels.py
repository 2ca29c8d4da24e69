"""The numeric kernels in isolation, on hand-checked arrays."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ir_measures_graded import kernels
from ir_measures_graded.io.ids import name_ranks
from ir_measures_graded.kernels import ap, levels
from support.examples import examples


def test_segments():
    ptr = kernels.segment_ptr(np.array([0, 0, 2, 2, 2]), 4)
    assert ptr.tolist() == [0, 2, 2, 5, 5]
    assert kernels.segment_ids(ptr).tolist() == [0, 0, 2, 2, 2]
    assert kernels.positions(ptr).tolist() == [0, 1, 0, 1, 2]
    assert kernels.segment_cumsum(np.array([1.0, 2, 3, 4, 5]), ptr).tolist() == [1, 3, 3, 7, 12]
    assert kernels.segment_suffix_sums(np.array([1, 2, 3, 4, 5]), ptr).tolist() == [3, 2, 12, 9, 5]
    means = kernels.segment_weighted_mean(np.array([1.0, 0, 1, 0, 1]), np.array([1.0, 3, 1, 1, 2]), ptr)
    assert means.tolist() == [0.25, 0.0, 0.75, 0.0]


@given(st.lists(st.integers(0, 4), max_size=12), st.data())
def test_segment_rows_are_the_rows_of_the_segments_asked(sizes, data):
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    asked = sorted(data.draw(st.sets(st.integers(0, max(len(sizes) - 1, 0)))) if sizes else [])
    want = [row for s in asked for row in range(ptr[s], ptr[s + 1])]
    assert kernels.segment_rows(ptr, np.array(asked, dtype=np.int64)).tolist() == want


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**31), st.integers(0, 3), st.integers(0, 9)), max_size=60),
       st.sampled_from([0, 2**20, 2**31 - 5]))
def test_ranking_order_equals_sorting_the_triples(rows, offset):
    """Both ways of sorting (row numbers packed beside narrow query spans, argsort for wide ones)
    rank as a plain sort of (query, descending score, descending doc code) does."""
    query = np.array([min(q, 3) + offset if q % 2 else q for q, _, _ in rows], dtype=np.int64)
    score = np.array([s / 2 for _, s, _ in rows])
    codes = np.array([d for *_, d in rows], dtype=np.int64)
    got = kernels.ranking_order(query, kernels.descending_score_key(score), codes)
    want = sorted(range(len(rows)), key=lambda i: (query[i], -score[i], -codes[i], i))
    key = [(query[i], -score[i], -codes[i]) for i in range(len(rows))]
    assert [key[i] for i in got.tolist()] == [key[i] for i in want]


def test_ranking_order_float32_ties_and_doc_id_descending():
    query = np.array([1, 0, 0, 0, 0, 1])
    score = np.array([5.0, 1.0, 1.0 + 1e-9, 2.0, 1.0, 0.0])  # rows 1, 2, 4 tie once read as float32
    doc_ids = np.array(["d10", "d9", "d2", "x", "d1", "y"], dtype=object)
    key = kernels.descending_score_key(score)
    order = kernels.ranking_order(query, key, np.arange(6), functools.partial(name_ranks, doc_ids))
    assert [doc_ids[i] for i in order] == ["x", "d9", "d2", "d1", "d10", "y"]
    in_byte_order = np.argsort(np.argsort(doc_ids.astype(str)))  # codes that sort as the ids do
    assert kernels.ranking_order(query, key, in_byte_order).tolist() == order.tolist()


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


# --- µAP in memory linear in the rows (many distinct labels per query) -----------------------------

@st.composite
def ranked_levels(draw):
    """Rows sorted by query then rank, with per-query thresholds and each row's level."""
    n_queries = draw(st.integers(1, 5))
    n_thresholds = draw(st.lists(st.integers(0, 12), min_size=n_queries, max_size=n_queries))
    thr_ptr = np.concatenate(([0], np.cumsum(n_thresholds))).astype(np.int64)
    query, rank, level = [], [], []
    for q in range(n_queries):
        levels = draw(st.lists(st.integers(0, n_thresholds[q]), max_size=25))
        query += [q] * len(levels)
        rank += list(range(1, len(levels) + 1))
        level += levels
    return (np.array(query, dtype=np.int64), np.array(rank, dtype=np.int64),
            np.array(level, dtype=np.int64), thr_ptr)


def ap_numerators_by_loops(query, rank, level, thr_ptr):
    """Textbook: for each flat threshold, sum P@rank over the rows of its query reaching it."""
    out = np.zeros(thr_ptr[-1])
    for q in range(len(thr_ptr) - 1):
        for j in range(thr_ptr[q + 1] - thr_ptr[q]):
            hits = 0
            for i in np.flatnonzero(query == q):
                if level[i] > j:
                    hits += 1
                    out[thr_ptr[q] + j] += hits / rank[i]
    return out


@settings(max_examples=examples(150), deadline=None)
@given(ranked_levels())
def test_ap_by_counting_equals_the_pair_expansion_and_loops(case):
    query, rank, level, thr_ptr = case
    relevant = level > 0
    query, rank, level = query[relevant], rank[relevant], level[relevant]
    expected = ap_numerators_by_loops(query, rank, level, thr_ptr)
    pairs = ap.ap_numerators_by_pairs(query, rank, level, thr_ptr, int(thr_ptr[-1]))
    counting = ap.ap_numerators_by_counting(query, rank, level, thr_ptr) if len(level) else np.zeros(0)
    assert pairs == pytest.approx(expected, rel=1e-12, abs=1e-12)
    if len(level):
        assert counting == pytest.approx(expected, rel=1e-12, abs=1e-12)


@settings(max_examples=examples(150), deadline=None)
@given(ranked_levels(), st.one_of(st.none(), st.integers(1, 30)))
def test_thresholded_ap_takes_either_path_with_the_same_result(case, cutoff):
    query, rank, level, thr_ptr = case
    n_relevant = kernels.rows_reaching(query, level, thr_ptr) + 1  # as if one more were unretrieved
    keep = (level > 0) & (rank <= (cutoff or 10**9))
    expected = ap_numerators_by_loops(query[keep], rank[keep], level[keep], thr_ptr) / n_relevant
    assert kernels.thresholded_ap(query, rank, level, thr_ptr, n_relevant, cutoff) == pytest.approx(expected)
    with_counting = ap.PAIRS_PER_ROW
    try:
        ap.PAIRS_PER_ROW = 0  # every case through the counting path
        got = kernels.thresholded_ap(query, rank, level, thr_ptr, n_relevant, cutoff)
    finally:
        ap.PAIRS_PER_ROW = with_counting
    assert got == pytest.approx(expected)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-3, 3), max_size=40), st.booleans())
def test_earlier_at_least_is_a_dominance_sum(keys, strict):
    key = np.array(keys, dtype=np.int64)
    weight = np.arange(1.0, len(keys) + 1)
    expected = [sum(weight[b] for b in range(a) if (key[b] > key[a] if strict else key[b] >= key[a]))
                for a in range(len(keys))]
    assert ap.earlier_at_least(key, weight, strict).tolist() == pytest.approx(expected)


@settings(max_examples=150, deadline=None)
@given(ranked_levels())
def test_sum_reaching_and_level_of_rows_by_brute_force(case):
    query, rank, level, thr_ptr = case
    weights = 1.0 / rank if len(rank) else np.zeros(0)
    counts, sums = [], []
    for q in range(len(thr_ptr) - 1):
        for j in range(thr_ptr[q + 1] - thr_ptr[q]):
            reach = (query == q) & (level > j)
            counts.append(int(reach.sum()))
            sums.append(float(weights[reach].sum()))
    assert kernels.rows_reaching(query, level, thr_ptr).tolist() == counts
    assert levels.sum_reaching(query, level, thr_ptr, weights).tolist() == pytest.approx(sums)
    # level_of_rows inverts it: thresholds 1..n of each query; a label equal to the level reaches it
    thr_values = np.concatenate([np.arange(1.0, n + 1) for n in np.diff(thr_ptr)]) if thr_ptr[-1] else np.zeros(0)
    label = level + 0.5 * (rank % 2)  # between two thresholds or exactly on one
    label = np.where(rank % 5 == 0, np.nan, label)  # unjudged: level 0
    got = kernels.level_of_rows(query, label, thr_ptr, thr_values)
    assert got.tolist() == np.where(np.isnan(label), 0, level).tolist()


def test_mu_ap_with_thousands_of_distinct_labels_in_one_query():
    # 3,000 distinct real labels: the pair expansion would need 4.5 million pairs; the result is
    # the same either way. (Memory before and after: see CHANGELOG, measured with /usr/bin/time.)
    rng = np.random.default_rng(7)
    n = 3000
    label = rng.permutation(n) / 100 + 0.01
    thr_ptr, thr_values = np.array([0, n]), np.sort(label)
    query, rank = np.zeros(n, dtype=np.int64), np.arange(1, n + 1)
    level = kernels.level_of_rows(query, label, thr_ptr, thr_values)
    n_relevant = kernels.rows_reaching(query, level, thr_ptr)
    got = kernels.thresholded_ap(query, rank, level, thr_ptr, n_relevant)
    assert ap.PAIRS_PER_ROW * n < level.sum()  # took the counting path
    expected = ap.ap_numerators_by_pairs(query, rank, level, thr_ptr, n) / n_relevant
    assert got == pytest.approx(expected, rel=1e-12)


def test_mean_ndcg_cutoff_boundaries():
    # One query, ideal gains 3, 1, 1, 1; the ranking has gains 0, 3 (length 2).
    ptr, cum = kernels.ideal_dcg(np.zeros(4, dtype=np.int64), np.array([3.0, 1.0, 1.0, 1.0]), 1)
    query, rank, gain = np.array([0, 0]), np.array([1, 2]), np.array([0.0, 3.0])
    idcg = np.cumsum([3.0, 1 / np.log2(3), 0.5, 1 / np.log2(5)])
    dcg2 = 3 / np.log2(3)
    # cutoff = 2 keeps the relevant row at rank 2 exactly
    assert kernels.mean_ndcg(query, rank, gain, ptr, cum, cutoff=2).tolist() == pytest.approx([(dcg2 / idcg[1]) / 2])
    # cutoff 3, beyond the ranking (length 2) but within the ideal ranking (4): nDCG@3 keeps DCG@2
    expected3 = (0 + dcg2 / idcg[1] + dcg2 / idcg[2]) / 3
    assert kernels.mean_ndcg(query, rank, gain, ptr, cum, cutoff=3).tolist() == pytest.approx([expected3])
    # cutoff 6, beyond both: the ideal DCG stops growing after rank 4
    expected6 = (0 + dcg2 / idcg[1] + dcg2 / idcg[2] + 3 * dcg2 / idcg[3]) / 6
    assert kernels.mean_ndcg(query, rank, gain, ptr, cum, cutoff=6).tolist() == pytest.approx([expected6])


def test_mean_ndcg_without_positive_gains_is_zero_without_warnings():
    # A query whose judgments are all irrelevant, ranked with a cutoff past its end: 0, and no
    # division-by-zero warning on the way.
    ptr, cum = kernels.ideal_dcg(np.zeros(2, dtype=np.int64), np.array([0.0, 0.0]), 2)
    query, rank, gain = np.array([0, 1]), np.array([1, 1]), np.array([0.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kernels.mean_ndcg(query, rank, gain, ptr, cum, cutoff=5).tolist() == [0.0, 0.0]
        assert kernels.ndcg(query, rank, gain, ptr, cum, cutoff=5).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("strict", [False, True])
def test_earlier_at_least_on_a_long_array_full_of_ties(strict):
    # Blocks longer than numpy's insertion-sort threshold, full of equal keys on both sides.
    key = np.random.default_rng(3).integers(0, 4, 1000)
    weight = np.arange(1.0, 1001.0)
    earlier = np.tri(1000, k=-1, dtype=bool)  # earlier[a, b]: b < a
    dominates = key[np.newaxis, :] > key[:, np.newaxis] if strict else key[np.newaxis, :] >= key[:, np.newaxis]
    expected = (earlier & dominates) @ weight
    assert ap.earlier_at_least(key, weight, strict).tolist() == pytest.approx(expected.tolist())


@pytest.mark.parametrize("scan, start, step", [(kernels.segment_cumsum, 0.0, lambda a, b: a + b),
                                               (kernels.segment_cumprod, 1.0, lambda a, b: a * b)])
def test_segment_scans_equal_a_plain_loop_to_the_last_bit(scan, start, step):
    """Running sums and products per segment, element after element (as trec_eval's loops), for
    segments of very different lengths (the scan pads similar lengths together) and empty ones."""
    rng = np.random.default_rng(11)
    for trial in range(60):
        lengths = rng.integers(0, 40, size=int(rng.integers(1, 30))) * (rng.random(1) < 0.9)
        if trial % 5 == 0:
            lengths[0] = 2_000
        ptr = np.concatenate([[0], np.cumsum(lengths)])
        values = rng.random(int(ptr[-1])) * rng.choice([1e-9, 1.0, 1e9], int(ptr[-1]))
        if scan is kernels.segment_cumprod:
            values = 1.0 - rng.random(int(ptr[-1])) * 0.1
        expected = []
        for i in range(len(lengths)):
            acc = start
            for v in values[ptr[i]:ptr[i + 1]].tolist():
                acc = step(acc, v)
                expected.append(acc)
        assert scan(values, ptr).tolist() == expected
    counts = np.array([1, 2, 3, 4], dtype=np.int64)
    assert kernels.segment_cumsum(counts, np.array([0, 2, 4])).dtype == np.int64  # integers stay exact


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(["a", "b", "\x00", "\x7f", "é", "z"]), max_size=9), min_size=1,
                max_size=30), st.booleans())
@example(["a", "a\x00", ""], False)
@example(["a\x00", "a", "aaaaaaaa", "aaaaaaaab"], True)
def test_name_ranks_are_the_dense_byte_order(names, large):
    """Ids of at most 8 bytes are ranked as packed integers, longer ones by Arrow: both as the bytes
    sort (a string before its extensions, NUL bytes included)."""
    import pyarrow as pa

    ids = pa.array(["zzz", *names], pa.large_string() if large else pa.string()).slice(1)  # at an offset
    for codes in (np.arange(len(names))[::-1].copy(), np.array([*range(len(names))[::-2], 0, 0])):
        distinct = sorted({names[c].encode() for c in codes})  # of the ids asked for only
        want = [distinct.index(names[c].encode()) for c in codes]
        got = name_ranks(ids, codes)
        assert (got - got.min()).tolist() == want  # dense: from 0 or 1 by path
