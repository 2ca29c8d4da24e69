"""The statistics' edges (#35): NaN per-query values, differences the package calls ties, Kendall's τ on
vectors of different scales, any number of significance levels in a paper table, bounded memory of the
resampling tests, and the documented variants (Wilcoxon, Benjamini-Hochberg, p-values of 0)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sp

from ir_measures_graded import statistics
from support.examples import examples
from support.memory import MB, peak_bytes


def _values(rows: int, queries: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 20, (rows, queries)) / 20


# --- 10. NaN: one policy ---------------------------------------------------------------------------------

PAIRED_CASES = [(test, alternative) for test in statistics.PAIRED_TESTS for alternative in statistics.ALTERNATIVES]


@pytest.mark.parametrize("test, alternative", PAIRED_CASES)
@pytest.mark.parametrize("permutations", [None, 500])  # exact (2^6 or 6^6 > 500: sampled) and sampled
def test_a_pair_with_a_nan_is_not_tested_and_the_others_are_as_without_it(test, alternative, permutations):
    a, b = _values(3, 6, 1), _values(3, 6, 2)
    a[1, 2] = np.nan
    if test == "bootstrap" and permutations is None:
        a, b = a[:, :5], b[:, :5]  # 5^5 resamples enumerated
    got = statistics.paired_test(test, a, b, alternative, permutations)
    assert np.isnan(got[1])
    without = statistics.paired_test(test, a[[0, 2]], b[[0, 2]], alternative, permutations)
    assert not np.isnan(without).any()
    assert got[[0, 2]].tolist() == without.tolist()


@pytest.mark.parametrize("test", statistics.PAIRED_TESTS)
def test_a_nan_baseline_value_leaves_every_pair_untested(test):
    a, b = _values(2, 6), _values(1, 6, 3)
    b[0, 4] = np.nan
    assert np.isnan(statistics.paired_test(test, a, np.broadcast_to(b, a.shape), permutations=200)).all()


@pytest.mark.parametrize("test", statistics.MULTI_TESTS)
@pytest.mark.parametrize("permutations", [None, 300])
def test_a_run_with_a_nan_is_left_out_of_the_tukey_tests(test, permutations):
    values = _values(4, 3 if permutations is None else 12, 4)  # (3!)^3 draws enumerated without the NaN run
    values[:, 0] += np.array([0.0, 0.5, 0.1, 0.9])  # some pairs differ
    values[2, 1] = np.nan
    pairs = (statistics.tukey_hsd if test == "tukey"
             else lambda x: statistics.randomized_tukey_hsd(x, permutations))
    p, kept = pairs(values), [0, 1, 3]
    assert np.isnan(p[2]).all() and np.isnan(p[:, 2]).all()
    assert np.array_equal(p[np.ix_(kept, kept)], pairs(values[kept]), equal_nan=True)
    assert (p[np.ix_(kept, kept)][~np.eye(3, dtype=bool)] > 0).all()  # a NaN makes no other pair "p = 0"


PER_PAIR = {  # each row: one pair's result, from per-query values a and b
    "t_interval": lambda a, b: statistics.t_interval(statistics.differences(a, b)),
    "bootstrap_interval": lambda a, b: statistics.bootstrap_interval(statistics.differences(a, b), samples=None),
    "effect_size": lambda a, b: statistics.effect_size(statistics.differences(a, b))[:, None],
    "win_tie_loss": lambda a, b: statistics.win_tie_loss(a, b).astype(float),
}


@pytest.mark.parametrize("name", PER_PAIR)
def test_a_nan_leaves_intervals_effect_size_and_counts_of_its_pair_empty(name):
    """Intervals and d_z were NaN already; wins/ties/losses counted 4 of 5 queries."""
    a, b = _values(3, 5, 5), _values(3, 5, 6)
    a[1, 0] = np.nan
    got = PER_PAIR[name](a, b)
    empty = [0.0, 0.0, 0.0] if name == "win_tie_loss" else [np.nan] * got.shape[1]
    assert np.array_equal(got[1], empty, equal_nan=True)
    assert np.array_equal(got[[0, 2]], PER_PAIR[name](a[[0, 2]], b[[0, 2]]), equal_nan=True)


CORRELATIONS = {
    "kendall_tau": statistics.kendall_tau, "tau_ap_b": statistics.tau_ap_b, "tau_ap": statistics.tau_ap,
    "tau_ap_a": statistics.tau_ap_a,
    "kendall_tau_rows": lambda x, y: statistics.kendall_tau_rows(x, y)[0],
}


@pytest.mark.parametrize("name", CORRELATIONS)
@pytest.mark.parametrize("side", ["first", "second"])
def test_a_correlation_with_a_nan_is_nan_as_scipy(name, side):
    x, y = np.array([0.1, 0.4, 0.2, 0.3, 0.5]), np.array([0.2, 0.3, 0.1, 0.5, 0.4])
    (x if side == "first" else y)[2] = np.nan
    assert np.isnan(sp.kendalltau(x, y).statistic)
    assert np.isnan(CORRELATIONS[name](x, y))


def test_kendall_tau_rows_is_nan_only_in_the_row_with_a_nan():
    a, b = _values(3, 6, 8), _values(3, 6, 9)
    a[1, 3] = np.nan
    got = statistics.kendall_tau_rows(a, b)
    assert np.isnan(got[1])
    assert got[[0, 2]] == pytest.approx([sp.kendalltau(a[k], b[k]).statistic for k in (0, 2)], abs=1e-12)


# --- 11. differences within the tolerance are zero differences, for every test and interval ------------

@pytest.mark.parametrize("test", statistics.PAIRED_TESTS)
def test_rounding_noise_is_no_difference_for_any_paired_test(test):
    a = np.full((1, 5), 0.3)
    b = np.full((1, 5), 0.1 + 0.2)  # 0.30000000000000004
    assert statistics.win_tie_loss(a, b).tolist() == [[0, 5, 0]]
    for permutations in (None, 100):
        assert statistics.paired_test(test, a, b, permutations=permutations)[0] == 1.0
        for alternative in ("greater", "less"):
            assert statistics.paired_test(test, a, b, alternative, permutations)[0] == 1.0


@pytest.mark.parametrize("test", statistics.PAIRED_TESTS)
def test_ties_within_the_tolerance_give_the_p_value_of_exact_ties(test):
    a = np.array([[0.3, 0.6, 0.7, 0.2, 0.9, 0.4, 0.55]])
    exact = a - np.array([[0.0, 0.1, -0.2, 0.0, 0.3, 0.15, 0.0]])
    noisy = exact.copy()
    noisy[0, [0, 3, 6]] = [0.1 + 0.2, 0.1 * 2, 0.45 + 0.1]  # a's values, rounded otherwise
    assert (noisy != a)[0, [0, 3, 6]].any()
    assert statistics.paired_test(test, a, noisy, permutations=None)[0] == pytest.approx(
        statistics.paired_test(test, a, exact, permutations=None)[0], rel=1e-9)


def test_intervals_and_effect_size_of_ties_within_the_tolerance_are_those_of_zero_differences():
    a, b = np.full((1, 5), 0.3), np.full((1, 5), 0.1 + 0.2)
    d = statistics.differences(a, b)
    assert d.tolist() == [[0.0] * 5]
    assert statistics.t_interval(d).tolist() == [[0.0, 0.0]]
    assert statistics.bootstrap_interval(d).tolist() == [[0.0, 0.0]]
    assert np.isnan(statistics.effect_size(d)).all()


def test_tukey_hsd_takes_means_within_the_tolerance_as_equal():
    values = np.array([[0.3] * 4, [0.1 + 0.2] * 4, [0.6] * 4])
    p = statistics.tukey_hsd(values)
    assert p[0, 1] == 1.0 and p[0, 2] < 0.05  # was 0.874 for 0.3 against 0.1 + 0.2
    assert statistics.randomized_tukey_hsd(values, 200)[0, 1] == 1.0


@pytest.mark.parametrize("n", [6, 12, 30])
@pytest.mark.parametrize("shift", [0.1, 0.3, 0.05, -0.1])
def test_the_bootstrap_test_of_a_constant_shift_is_not_rounding_noise(n, shift):
    """The mean-shifted differences of a constant shift are 0, not ±1e-17 whose resampled t is anything."""
    d = np.full((1, n), shift)
    assert statistics.bootstrap_test(d, samples=200)[0] == pytest.approx(1 / 201)  # was 1.0 for most of these
    toward = "greater" if shift > 0 else "less"
    assert statistics.bootstrap_test(d, samples=200, alternative=toward)[0] == pytest.approx(1 / 201)
    assert statistics.paired_t_test(d, np.zeros_like(d))[0] == 0.0


# --- 12. Kendall's tau: each vector's ties from its own scale ---------------------------------------------

def test_kendall_tau_does_not_take_ties_from_the_other_vectors_scale():
    a = np.array([0.1, 0.1005, 0.2, 0.3])
    b = np.array([1e6, 2e6, 3e6, 4e6])
    assert statistics.kendall_tau(a, b) == 1.0 == pytest.approx(sp.kendalltau(a, b).statistic)
    assert statistics.kendall_tau(b, a) == 1.0
    assert statistics.kendall_tau_rows(np.stack([a, b]), np.stack([b, a])).tolist() == [1.0, 1.0]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=2, max_size=12),
       st.sampled_from([1e-6, 1e-3, 0.1, 1.0, 1e3, 1e6, 1e9]), st.sampled_from([1e-6, 0.1, 1.0, 1e6, 1e9]),
       st.floats(-3, 3))
def test_kendall_tau_equals_scipy_on_vectors_of_any_scales(pairs, scale_a, scale_b, offset):
    """Values on a grid well apart at each vector's own scale: scipy's exact ties are the package's."""
    a = np.array([(k + offset) * scale_a for k, _ in pairs])
    b = np.array([(k - offset) * scale_b for _, k in pairs])
    expected = sp.kendalltau(a, b).statistic
    got = statistics.kendall_tau(a, b)
    assert (np.isnan(got) and np.isnan(expected)) or got == pytest.approx(expected, abs=1e-12)


# --- 14. memory of the resampling tests ------------------------------------------------------------------

def test_blocks_change_no_p_value(monkeypatch):
    """The same draws, a few at a time: the p-values of the default blocks, bit for bit."""
    d = np.random.default_rng(0).normal(0.01, 0.1, (4, 30))
    values = _values(5, 20, 11)
    before = ([statistics.bootstrap_test(d, 2500, 1, alt) for alt in statistics.ALTERNATIVES],
              statistics.randomized_tukey_hsd(values, 2500, 1), statistics.randomized_tukey_hsd(values[:3, :3], None))
    monkeypatch.setattr(statistics, "_BLOCK", 50)
    after = ([statistics.bootstrap_test(d, 2500, 1, alt) for alt in statistics.ALTERNATIVES],
             statistics.randomized_tukey_hsd(values, 2500, 1), statistics.randomized_tukey_hsd(values[:3, :3], None))
    for x, y in zip(before[0], after[0], strict=True):
        assert x.tolist() == y.tolist()
    assert np.array_equal(before[1], after[1], equal_nan=True) and np.array_equal(before[2], after[2], equal_nan=True)


def test_randomized_tukey_hsd_draws_are_those_of_one_argsort():
    """The chunked draws are the former all-at-once ones (one rng.random((draws, n, m)) argsorted)."""
    values = _values(4, 9, 12)
    draws, seed = 3000, 5
    codes = np.argsort(np.random.default_rng(seed).random((draws, 9, 4)), axis=2)
    slot_means = values[codes, np.arange(9)[None, :, None]].mean(axis=1)
    spread = slot_means.max(axis=1) - slot_means.min(axis=1)
    means = values.mean(axis=1)
    observed = np.abs(means[:, None] - means[None, :])
    expected = ((spread[:, None, None] >= (observed - 1e-12 * np.maximum(1, observed))[None]).sum(axis=0) + 1) / (draws + 1)
    np.fill_diagonal(expected, np.nan)
    assert np.array_equal(statistics.randomized_tukey_hsd(values, draws, seed), expected, equal_nan=True)


def _peak_mib(call) -> float:
    return peak_bytes(call) / MB


def test_randomized_tukey_hsd_memory_does_not_grow_with_the_draws():
    values = np.random.default_rng(0).random((8, 500))
    assert _peak_mib(lambda: statistics.randomized_tukey_hsd(values, permutations=3000)) < 80  # was ~290 MiB


def test_bootstrap_test_memory_does_not_grow_with_pairs_times_queries():
    d = np.random.default_rng(0).normal(0, 0.1, (45, 1000))
    assert _peak_mib(lambda: statistics.bootstrap_test(d, samples=1100)) < 80  # was ~700 MiB


# --- 19. what the documentation says -----------------------------------------------------------------------

def test_the_exact_bootstrap_test_can_give_0_as_documented_and_sampled_p_values_cannot():
    shift = np.full((1, 4), 0.1)
    assert statistics.bootstrap_test(shift, samples=None)[0] == 0.0  # every resample of the shifted 0s is 0
    assert "exact bootstrap test" in statistics.__doc__ and "gives 0" in statistics.__doc__
    assert statistics.bootstrap_test(np.full((1, 12), 0.1), samples=200)[0] == pytest.approx(1 / 201)
    assert statistics.randomization_test(shift, permutations=None)[0] == pytest.approx(2 / 16)  # the observed counts


@settings(max_examples=examples(120), deadline=None)
@given(st.lists(st.integers(-8, 8), min_size=1, max_size=70), st.sampled_from(statistics.ALTERNATIVES))
def test_wilcoxon_is_scipys_explicit_variant(values, alternative):
    """zero_method='wilcox', no continuity correction; exact with at most 13 queries or at most 50 without a
    zero or tie, else the tie-corrected normal approximation: each named explicitly to scipy here."""
    d = np.array(values) / 8
    got = statistics.wilcoxon_test(d[None], np.zeros((1, len(d))), alternative)[0]
    nonzero = d[d != 0]
    if not len(nonzero):
        assert got == 1.0
        return
    untied = len(np.unique(np.abs(nonzero))) == len(nonzero)
    if len(d) <= 13 and not untied:
        expected = sp.wilcoxon(nonzero, zero_method="wilcox", correction=False, alternative=alternative,
                               method=sp.PermutationMethod(n_resamples=2**len(nonzero))).pvalue  # every sign vector
    elif len(d) <= 13 or (len(d) <= 50 and untied and len(nonzero) == len(d)):
        expected = sp.wilcoxon(nonzero, zero_method="wilcox", correction=False, alternative=alternative,
                               method="exact").pvalue
    else:
        expected = sp.wilcoxon(d, zero_method="wilcox", correction=False, alternative=alternative,
                               method="asymptotic").pvalue
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.floats(0, 1), st.just(float("nan"))), min_size=1, max_size=30))
def test_fdr_bh_equals_statsmodels_multipletests(p):
    from statsmodels.stats.multitest import multipletests

    p = np.array(p)
    made = ~np.isnan(p)
    got = statistics.correct(p, "fdr_bh")
    assert np.isnan(got[~made]).all()
    if made.any():
        assert got[made] == pytest.approx(multipletests(p[made], method="fdr_bh")[1], rel=1e-12, abs=1e-15)
