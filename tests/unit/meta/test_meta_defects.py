"""Defects of the meta-evaluation fixed in issue 24, each pinned by a test that failed before the fix."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from ir_measures_graded import meta, statistics
from support.examples import examples


def discrete_table(n_runs: int = 15, n_queries: int = 40, seed: int = 7, scale: float = 0.1) -> pd.DataFrame:
    """Per-query values on a discrete scale (P@10-like: multiples of ``scale``), so runs tie often."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n_runs):
        strength = rng.integers(2, 8)
        hits = np.clip(rng.binomial(10, strength / 10, size=n_queries), 0, 10)
        rows += [(f"run{r:02d}", f"q{q:03d}", "P@10", float(h) * scale) for q, h in enumerate(hits)]
    return pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])


# --- 1. stability counts rounding noise as differences ---------------------------------------------

def test_stability_ties_are_ties_whatever_the_scale():
    """Values k/10 and the same values as integers k give the same splits; integer sums are exact, so
    the second is the truth. Before the fix the half-means of k/10 came from a matrix product with
    weights 1/half and were compared exactly: equal half-means differed in the last bits."""
    tenths = discrete_table()
    integers = tenths.assign(value=(tenths["value"] * 10).round())
    got = meta.stability(tenths, samples=100, seed=3).iloc[0]
    exact = meta.stability(integers, samples=100, seed=3).iloc[0]
    assert got["swap_rate"] == exact["swap_rate"]
    assert got["tau_mean"] == pytest.approx(exact["tau_mean"], abs=1e-12)


def test_stability_swap_rate_equals_exact_rational_counting():
    """The swap rate against counting with exact integer sums on the very splits stability uses."""
    table = discrete_table(n_runs=6, n_queries=12, seed=2)
    runs, values = meta.judging._matrix(table, "P@10")
    counts = np.rint(values * 10).astype(np.int64)
    first, second = meta.query_halves(counts.shape[1], samples=30, seed=5)
    swaps = total = 0
    for a, b in zip(first, second, strict=True):
        sa, sb = counts[:, a].sum(axis=1), counts[:, b].sum(axis=1)
        for i, j in itertools.combinations(range(len(runs)), 2):
            swaps += np.sign(sa[i] - sa[j]) * np.sign(sb[i] - sb[j]) < 0
            total += 1
    assert meta.stability(table, samples=30, seed=5).iloc[0]["swap_rate"] == pytest.approx(swaps / total, abs=1e-15)


# --- 2. every measure gets the same query splits -----------------------------------------------------

def test_every_measure_gets_the_same_splits():
    """A measure's stability does not depend on which measures come before it in the table."""
    one = discrete_table(seed=1)
    two = one.assign(measure="copy")
    both = meta.stability(pd.concat([one, two], ignore_index=True), samples=40, seed=9).set_index("measure")
    alone = meta.stability(two, samples=40, seed=9).set_index("measure")
    assert both.loc["copy"].to_dict() == alone.loc["copy"].to_dict()
    assert both.loc["P@10"].drop("measure", errors="ignore").to_dict() == both.loc["copy"].to_dict()


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

def slow_tau_ap(truth, estimate):
    """τ_AP of Yilmaz et al. (2008) for rankings without ties: walk down ``estimate``."""
    items = sorted(range(len(truth)), key=lambda k: -estimate[k])
    total = sum(sum(1 for j in range(i) if truth[items[j]] > truth[items[i]]) / i for i in range(1, len(items)))
    return 2.0 / (len(items) - 1) * total - 1.0


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


def test_scale_dependence_reports_tau_ap_b():
    from ir_measures_graded.sample import graded_sample

    qrels, runs = graded_sample()
    table = meta.scale_dependence(qrels, runs, ["muMAP"], ["scale:2"])
    assert "tau_ap_b" in table.columns and "tau_ap" not in table.columns
    assert table["tau_ap_b"].iloc[0] == 1.0
