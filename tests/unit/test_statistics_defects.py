"""Defects of the statistics fixed in issue 24 (corrections with a NaN p-value, τ_AP under ties), each
pinned by a test that failed before the fix. (The judging's own are tests/unit/meta/test_meta_defects.py.)"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from ir_measures_graded import statistics
from support.examples import examples
from support.slow_statistics import slow_tau_ap

# --- 3. corrections with a NaN p-value ---------------------------------------------------------------

@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.one_of(st.floats(0, 1), st.just(float("nan"))), min_size=1, max_size=8))
def test_corrections_carry_nan_through_and_correct_the_rest_as_if_it_were_absent(p):
    """One behaviour for every correction: NaN stays NaN, the others are corrected as statsmodels
    corrects the list without the NaN (statsmodels itself counts a NaN in Holm/Bonferroni's m and
    returns all NaN for fdr_bh)."""
    p = np.array(p)
    finite = ~np.isnan(p)
    for method in ("holm", "bonferroni", "fdr_bh"):
        got = statistics.correct(p, method)
        assert np.isnan(got[~finite]).all()
        if finite.any():
            assert np.allclose(got[finite], multipletests(p[finite], method=method)[1], atol=1e-12)
    assert np.array_equal(statistics.correct(p, "none"), p, equal_nan=True)


# --- 4. τ_AP under ties --------------------------------------------------------------------------------

def tie_breaks(estimate):
    """Every way to break the ties of ``estimate`` (values stay in order, tied items get distinct ranks)."""
    groups = [[k for k in range(len(estimate)) if estimate[k] == v] for v in sorted(set(estimate), reverse=True)]
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        ranked = [k for order in orders for k in order]
        broken = np.empty(len(estimate))
        broken[ranked] = np.arange(len(estimate), 0, -1)
        yield broken


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(6))), st.lists(st.integers(0, 3), min_size=6, max_size=6))
def test_tau_ap_a_is_the_expected_tau_ap_over_every_tie_break(truth, estimate):
    """Urbano & Marrero (2017): τ_AP,a (accuracy: a truth without ties, an estimate with ties) is the
    mean of τ_AP over all orders of the tied items of the estimate."""
    truth = np.array(truth, dtype=float)
    expected = np.mean([slow_tau_ap(truth, broken) for broken in tie_breaks(estimate)])
    assert statistics.tau_ap_a(truth, np.array(estimate, dtype=float)) == pytest.approx(expected, abs=1e-12)


def slow_tau_ap_b_one_way(x, y):
    """Walk down ``y``: an item below the top tie group of ``y`` scores the share of the items strictly
    above it in ``y`` that ``x`` also places strictly above it (Urbano & Marrero 2017, τ_AP,b)."""
    shares = []
    for i in range(len(y)):
        above = [j for j in range(len(y)) if y[j] > y[i]]
        if above:
            shares.append(sum(1 for j in above if x[j] > x[i]) / len(above))
    return 2.0 * np.mean(shares) - 1.0 if shares else float("nan")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=2, max_size=8), st.data())
def test_tau_ap_b_equals_its_definition(x, data):
    y = data.draw(st.lists(st.integers(0, 4), min_size=len(x), max_size=len(x)))
    expected = (slow_tau_ap_b_one_way(x, y) + slow_tau_ap_b_one_way(y, x)) / 2
    got = statistics.tau_ap_b(np.array(x, dtype=float), np.array(y, dtype=float))
    assert (np.isnan(got) and np.isnan(expected)) or got == pytest.approx(expected, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.permutations(list(range(7))), st.permutations(list(range(7))))
def test_without_ties_the_variants_are_tau_ap_and_its_symmetric_version(x, y):
    x, y = np.array(x, dtype=float), np.array(y, dtype=float)
    assert statistics.tau_ap_a(x, y) == pytest.approx(slow_tau_ap(x, y), abs=1e-12)
    assert statistics.tau_ap(x, y) == pytest.approx(slow_tau_ap(x, y), abs=1e-12)
    assert statistics.tau_ap_b(x, y) == pytest.approx((slow_tau_ap(x, y) + slow_tau_ap(y, x)) / 2, abs=1e-12)


def test_an_all_tied_ranking_is_not_perfect_agreement():
    """Before: τ_AP counted a tie in the estimate as agreement, so an all-tied estimate scored 1.0."""
    truth = np.array([0.5, 0.4, 0.3, 0.2])
    tied = np.full(4, 0.3)
    assert np.isnan(statistics.kendall_tau(truth, tied))
    assert statistics.tau_ap_a(truth, tied) == pytest.approx(0.0, abs=1e-12)  # the mean over tie breaks
    assert np.isnan(statistics.tau_ap_b(truth, tied))  # undefined, as τ-b
    with pytest.raises(ValueError, match="tau_ap_a"):
        statistics.tau_ap(truth, tied)  # Yilmaz's τ_AP is not defined under ties
    with pytest.raises(ValueError, match="truth"):
        statistics.tau_ap_a(tied, truth)  # the accuracy variant needs a truth without ties
