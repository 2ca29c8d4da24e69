"""µRR and µRprec with ``ties='expected'`` in memory linear in the rows and thresholds (issue #35.4).

Real-valued labels give a query as many thresholds as rows; the expected values used to expand
every (tie group, threshold reached) pair — 12,000 rows took 44 s and 3.8 GB. The kernels now
find, per threshold, the one group that matters (RR: the first group reaching it; Rprec: the group
straddling depth R^t) and count its rows by binary search. These tests hold them to the previous
pair expansion and to the formulas written out with binomial coefficients, on random small inputs,
and bound their memory on a large query.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ir_measures_graded as g
from ir_measures_graded.kernels import ties
from ir_measures_graded.kernels.cascade import err
from ir_measures_graded.kernels.first_hit import expected_thresholded_rr
from ir_measures_graded.kernels.rprec import thresholded_rprec
from ir_measures_graded.kernels.segments import segment_ptr
from ir_measures_graded.kernels.ties import threshold_pairs
from support.measure_checks import tied_threshold_arrays
from support.memory import MB, every_row_its_own_label, peak_bytes


def previous_expected_rr(row_query, row_rank, row_level, thr_ptr, group_ptr, cutoff=None):
    """The kernel before #35.4: a pair per (group, threshold reached), a cascade over every position."""
    n_flat = int(thr_ptr[-1])
    out = np.zeros(n_flat)
    if not len(row_query) or not n_flat:
        return out
    pair_group, flat, r, before = threshold_pairs(row_query, row_rank, row_level, thr_ptr, group_ptr)
    first = before == 0
    group, flat, r = pair_group[first], flat[first], r[first]
    start = row_rank[group_ptr[:-1][group]] - 1
    n = np.diff(group_ptr)[group]
    if cutoff is not None:
        n = np.clip(np.minimum(n, cutoff - start), 0, None)
    position = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n) + 1
    pair = np.repeat(np.arange(len(n)), n)
    size = np.diff(group_ptr)[group][pair]
    stop = r[pair] / (size - position + 1.0)
    out[flat] = err(pair, start[pair] + position, stop, segment_ptr(pair, len(n)))
    return out


def by_formula(query, rank, level, thr_ptr, n_relevant, group_ptr, cutoff):
    """Expected RR^t and Rprec^t written out: the first of r hits among a group's n positions is at
    j with probability C(n - j, r - 1) / C(n, r); a group with m of its positions in the first R^t
    adds m r / n hits. Exact fractions, one (group, threshold) at a time."""
    n_flat = int(thr_ptr[-1])
    rr, rprec = [Fraction(0)] * n_flat, [Fraction(0)] * n_flat
    found = [False] * n_flat
    for start, end in zip(group_ptr[:-1].tolist(), group_ptr[1:].tolist(), strict=True):
        q, n, s = int(query[start]), end - start, int(rank[start]) - 1
        for t in range(int(thr_ptr[q + 1] - thr_ptr[q])):
            flat = int(thr_ptr[q]) + t
            r = int((level[start:end] > t).sum())
            depth = int(n_relevant[flat])
            rprec[flat] += Fraction(min(max(depth - s, 0), n) * r, n)
            if r and not found[flat]:
                found[flat] = True
                rr[flat] = sum((Fraction(math.comb(n - j, r - 1), math.comb(n, r)) / (s + j)
                                for j in range(1, n - r + 2) if cutoff is None or s + j <= cutoff), Fraction(0))
    rprec = [x / int(d) if d > 0 else Fraction(0) for x, d in zip(rprec, n_relevant, strict=True)]
    return np.array([float(x) for x in rr]), np.array([float(x) for x in rprec])


def arrays(queries):
    # R^t: the ranked rows >= t plus some unretrieved ones (non-increasing in t, as judgments give)
    return tied_threshold_arrays(queries, lambda t: 2 if t == 0 else 1)


QUERIES = st.lists(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 9)), min_size=1, max_size=14),
                   min_size=1, max_size=3)


@settings(max_examples=80, deadline=None)
@given(QUERIES, st.one_of(st.none(), st.integers(1, 12)))
def test_rr_and_rprec_equal_the_previous_pairs_and_the_formulas(queries, cutoff):
    query, rank, level, thr_ptr, n_relevant, ptr = arrays(queries)
    want_rr, want_rprec = by_formula(query, rank, level, thr_ptr, n_relevant, ptr, cutoff)
    got_rr = expected_thresholded_rr(query, rank, level, thr_ptr, ptr, cutoff)
    assert got_rr == pytest.approx(previous_expected_rr(query, rank, level, thr_ptr, ptr, cutoff), rel=1e-15,
                                   abs=1e-17)
    assert got_rr == pytest.approx(want_rr, rel=1e-12, abs=1e-15)
    paired = thresholded_rprec(query, rank, level, thr_ptr, n_relevant, ptr)
    with pytest.MonkeyPatch.context() as patch:  # the path taken when thresholds are many
        patch.setattr(ties, "PAIRS_PER_ROW", -1)
        linear = thresholded_rprec(query, rank, level, thr_ptr, n_relevant, ptr)
    assert linear == pytest.approx(paired, rel=1e-15, abs=1e-17)
    assert linear == pytest.approx(want_rprec, rel=1e-12, abs=1e-15)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 400), st.data())
def test_rr_of_one_large_tie_group_where_the_tail_is_cut(n, data):
    # many positions, few of them possibly hits: the cascade stops where what remains is below 4e-18
    r = data.draw(st.integers(1, n))
    s = data.draw(st.integers(0, 3))
    cutoff = data.draw(st.one_of(st.none(), st.integers(1, 500)))
    level = np.zeros(s + n, dtype=np.int64)
    level[s + np.asarray(data.draw(st.permutations(range(n))))[:r]] = 1
    query = np.zeros(s + n, dtype=np.int64)
    rank = np.arange(1, s + n + 1)
    ptr = np.array([0, *range(1, s + 1), s + n], dtype=np.int64) if s else np.array([0, n], dtype=np.int64)
    thr_ptr = np.array([0, 1], dtype=np.int64)
    got = expected_thresholded_rr(query, rank, level, thr_ptr, ptr, cutoff)[0]
    exact = sum((Fraction(math.comb(n - j, r - 1), math.comb(n, r)) / (s + j)
                 for j in range(1, n - r + 2) if cutoff is None or s + j <= cutoff), Fraction(0))
    assert got == pytest.approx(float(exact), rel=1e-13, abs=1e-17)
    assert got == pytest.approx(previous_expected_rr(query, rank, level, thr_ptr, ptr, cutoff)[0], rel=1e-13)


@pytest.mark.parametrize("group", [1, 7, 2500])
def test_no_pair_per_row_and_threshold(group):
    # one query, every row its own label (2,500 thresholds): rows x thresholds would be 3 million pairs
    query, rank, level, thr_ptr, ptr, n_relevant = every_row_its_own_label(group)
    bound = 8 if group < len(query) else 40  # one group of all rows: O(n log n) positions of the first hit
    for kernel in (lambda: expected_thresholded_rr(query, rank, level, thr_ptr, ptr, None),
                   lambda: thresholded_rprec(query, rank, level, thr_ptr, n_relevant, ptr)):
        peak = peak_bytes(kernel)
        assert peak < bound * MB, f"{peak / MB:.0f} MB"


@pytest.mark.parametrize("distinct_scores", [True, False])
def test_one_large_real_valued_query_through_the_provider(distinct_scores):
    n = 3000
    rng = np.random.default_rng(35)
    docs = [f"d{i}" for i in range(n)]
    qrels = pd.DataFrame({"query_id": "q", "doc_id": docs, "relevance": rng.random(n) * 10})
    score = rng.random(n) if distinct_scores else rng.integers(0, 300, n).astype(float)
    run = pd.DataFrame({"query_id": "q", "doc_id": docs, "score": score})
    measures = [g.muRR(ties="expected"), g.muRprec(ties="expected"), g.muRR(ties="expected") @ 50]
    evaluator = ir_measures.evaluator(measures, qrels)
    values = {}
    peak = peak_bytes(lambda: values.update(evaluator.calc_aggregate(run)))
    assert peak < 24 * MB, f"{peak / MB:.0f} MB"
    if distinct_scores:  # no ties: the expected value is the value
        first = ir_measures.calc_aggregate([g.muRR, g.muRprec, g.muRR @ 50], qrels, run)
        assert [values[m] for m in measures] == pytest.approx(list(first.values()), rel=1e-12)
