"""ir_measures_graded.statistics: the significance tests, intervals, effect sizes, topic-set size, rank
correlations and corrections, each against scipy / statsmodels where they have it and against exact
enumeration or a slow count on small inputs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats as sp

from ir_measures_graded import statistics
from support.examples import examples
from support.slow_statistics import slow_randomization_p, slow_tau_ap, slow_tau_b

differences = st.lists(st.integers(-5, 5), min_size=2, max_size=6).map(lambda d: [v / 10 for v in d])


# --- Sakai's paired bootstrap test ------------------------------------------------------------------

def t_of(x):
    x = np.asarray(x, dtype=float)
    sd = x.std(ddof=1)
    if sd == 0:
        return 0.0 if x.mean() == 0 else math.copysign(math.inf, x.mean())
    return x.mean() / (sd / math.sqrt(len(x)))


def slow_bootstrap_p(d, alternative="two-sided"):
    """Every ordered resample of the mean-shifted differences, its studentized mean against the observed.
    A shifted difference within the package's tolerance (1e-9 of the largest |d|) is 0: it equals the
    mean but for rounding (statistics.bootstrap_test's documented rule)."""
    scale = 1e-9 * max(abs(v) for v in d)
    w = [0.0 if abs(v - sum(d) / len(d)) <= scale else v - sum(d) / len(d) for v in d]
    observed = t_of(d)
    hits = total = 0
    for pick in itertools.product(range(len(d)), repeat=len(d)):
        t = t_of([w[k] for k in pick])
        total += 1
        if alternative == "greater":
            hits += t >= observed - 1e-9
        elif alternative == "less":
            hits += t <= observed + 1e-9
        else:
            hits += abs(t) >= abs(observed) - 1e-9
    return hits / total


@settings(max_examples=examples(30), deadline=None)
@given(differences, st.sampled_from(statistics.ALTERNATIVES))
@example([0, 0, 0, 0, 0.1, 0.5], "two-sided")  # 0.1 - mean(d) is rounding: a resample of it alone has t 0, not inf
def test_bootstrap_test_exact_equals_enumeration(d, alternative):
    if all(v == 0 for v in d):
        assert statistics.bootstrap_test(np.array([d]), samples=None, alternative=alternative)[0] == 1.0
        return
    got = statistics.bootstrap_test(np.array([d]), samples=None, alternative=alternative)[0]
    assert got == pytest.approx(slow_bootstrap_p(d, alternative), abs=1e-12)


@pytest.mark.parametrize("test, n, draws, within", [
    (statistics.randomization_test, 12, 20_000, 0.02),  # 2^12 sign vectors
    (statistics.bootstrap_test, 7, 40_000, 0.01),  # 7^7 resamples
])
def test_sampled_tests_are_close_to_exact_seeded_and_never_zero(test, n, draws, within):
    rng = np.random.default_rng(4)
    d = rng.normal(0.03, 0.2, size=(3, n))
    exact = test(d, None)
    sampled = test(d, draws, seed=2)
    assert np.all(np.abs(sampled - exact) < within)
    assert np.array_equal(sampled, test(d, draws, seed=2))
    far = test(np.full((1, 30), 0.5) + rng.normal(0, 0.01, (1, 30)), 999)
    assert far[0] == pytest.approx(1 / 1000)  # (count + 1) / (draws + 1), never 0


def test_bootstrap_test_agrees_with_the_t_test_on_normal_data():
    rng = np.random.default_rng(8)
    d = rng.normal(0.05, 0.2, size=(5, 60))
    boot = statistics.bootstrap_test(d, samples=20_000, seed=1)
    t = statistics.paired_t_test(d, np.zeros_like(d))
    assert np.all(np.abs(boot - t) < 0.03)


# --- Wilcoxon, sign test, t-test -------------------------------------------------------------------

def slow_signed_rank_p(d, alternative):
    """Exact Wilcoxon signed-rank test: every sign assignment of the ranks of |d| (no ties, no zeros)."""
    ranks = sp.rankdata(np.abs(d))
    observed = sum(r for r, v in zip(ranks, d, strict=True) if v > 0)
    n, total = len(d), len(d) * (len(d) + 1) / 2
    hits = 0
    for signs in itertools.product((0, 1), repeat=n):
        w = sum(r for r, s in zip(ranks, signs, strict=True) if s)
        if alternative == "greater":
            hits += w >= observed
        elif alternative == "less":
            hits += w <= observed
        else:
            hits += abs(w - total / 2) >= abs(observed - total / 2)
    return hits / 2**n


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=3, max_size=10, unique=True), st.data(),
       st.sampled_from(statistics.ALTERNATIVES))
def test_wilcoxon_equals_exact_enumeration(magnitudes, data, alternative):
    signs = data.draw(st.lists(st.sampled_from([-1, 1]), min_size=len(magnitudes), max_size=len(magnitudes)))
    d = np.array([s * m / 100 for s, m in zip(signs, magnitudes, strict=True)])
    got = statistics.wilcoxon_test(d[None], np.zeros((1, len(d))), alternative=alternative)[0]
    assert got == pytest.approx(slow_signed_rank_p(d, alternative), abs=1e-12)


def test_wilcoxon_drops_zero_differences_and_ties_within_tolerance():
    a = np.array([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]])
    b = a - np.array([[0.0, 0.05, 0.02, -0.01, 0.03, 0.04, 0.06, 0.07]])
    b[0, 0] = 0.1 + 1e-17 * 0  # an exact tie
    expected = sp.wilcoxon((a - b)[0, 1:], alternative="two-sided").pvalue
    assert statistics.wilcoxon_test(a, b)[0] == pytest.approx(expected, abs=1e-12)
    noisy = a + np.array([[3e-16, 0, 0, 0, 0, 0, 0, 0]])  # rounding noise is a tie, not a win
    assert statistics.win_tie_loss(noisy, a).tolist() == [[0, 8, 0]]
    assert statistics.wilcoxon_test(a, a)[0] == 1.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([-1, 0, 1]), min_size=1, max_size=14), st.sampled_from(statistics.ALTERNATIVES))
def test_sign_test_equals_binomtest_statsmodels_and_enumeration(signs, alternative):
    from statsmodels.stats.descriptivestats import sign_test as sm_sign_test

    a = np.array([signs], dtype=float) * 0.1 + 0.5
    b = np.full_like(a, 0.5)
    got = statistics.sign_test(a, b, alternative=alternative)[0]
    wins, losses = signs.count(1), signs.count(-1)
    n = wins + losses
    if n == 0:
        assert got == 1.0
        return
    assert got == pytest.approx(sp.binomtest(wins, n, 0.5, alternative=alternative).pvalue, abs=1e-12)
    # exact enumeration of the 2^n equally likely win/loss outcomes
    outcomes = [sum(w) for w in itertools.product((0, 1), repeat=n)]
    if alternative == "greater":
        enumerated = sum(k >= wins for k in outcomes) / 2**n
    elif alternative == "less":
        enumerated = sum(k <= wins for k in outcomes) / 2**n
    else:
        enumerated = min(1.0, 2 * sum(k <= min(wins, losses) for k in outcomes) / 2**n)
        assert got == pytest.approx(sm_sign_test(np.array(signs, dtype=float), 0)[1], abs=1e-12)
    assert got == pytest.approx(enumerated, abs=1e-12)


@pytest.mark.parametrize("alternative", statistics.ALTERNATIVES)
def test_t_test_and_randomization_one_sided(alternative):
    from statsmodels.stats.weightstats import DescrStatsW

    rng = np.random.default_rng(5)
    a, b = rng.random((2, 12)), rng.random((2, 12))
    sm = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}[alternative]
    expected = [DescrStatsW(a[k] - b[k]).ttest_mean(0.0, alternative=sm)[1] for k in range(2)]
    assert np.allclose(statistics.paired_t_test(a, b, alternative), expected, atol=1e-12)
    d = (a - b)[:, :8]
    got = statistics.randomization_test(d, permutations=None, alternative=alternative)
    for k in range(2):
        means = [np.mean(np.array(s) * d[k]) for s in itertools.product((-1, 1), repeat=8)]
        observed = d[k].mean()
        if alternative == "greater":
            hits = sum(m >= observed - 1e-12 for m in means)
        elif alternative == "less":
            hits = sum(m <= observed + 1e-12 for m in means)
        else:
            hits = sum(abs(m) >= abs(observed) - 1e-12 for m in means)
        assert got[k] == pytest.approx(hits / 256, abs=1e-12)
    with pytest.raises(ValueError, match="alternative"):
        statistics.paired_t_test(a, b, "bigger")


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_t_test_of_a_constant_shift_is_the_limit_of_nearly_constant_ones(alternative):
    """Every difference equal (t infinite): decided without scipy's precision-loss warning, as the
    limit of shifts with a little noise — 0 two-sided and in the shift's direction, 1 against it;
    1 for no difference, NaN for a single query."""
    import warnings

    base = np.linspace(0.1, 0.5, 6)
    shifted = np.stack([base + 0.25, base - 0.25, base])
    noise = np.array([1, -1, 1, -1, 1, -1]) * 1e-9
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = statistics.paired_t_test(shifted, np.broadcast_to(base, shifted.shape), alternative)
        near = statistics.paired_t_test(shifted[:2] + noise, np.broadcast_to(base, (2, 6)), alternative)
        single = statistics.paired_t_test(shifted[:, :1], base[None, :1].repeat(3, axis=0), alternative)
    assert got[:2] == pytest.approx(near, abs=1e-6)
    assert got[2] == 1.0
    assert np.isnan(single[:2]).all() and single[2] == 1.0


# --- Tukey HSD and the randomised Tukey HSD --------------------------------------------------------

def test_tukey_hsd_one_way_equals_statsmodels_and_scipy():
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    rng = np.random.default_rng(2)
    values = rng.random((4, 20)) + np.array([[0.0], [0.05], [0.2], [0.1]])
    got = statistics.tukey_hsd(values, blocked=False)
    reference = pairwise_tukeyhsd(values.ravel(), np.repeat(np.arange(4), 20))
    for (i, j), p in zip(itertools.combinations(range(4), 2), reference.pvalues, strict=True):
        assert got[i, j] == pytest.approx(p, abs=1e-6) and got[j, i] == got[i, j]
    assert np.allclose(np.nan_to_num(got, nan=1.0), np.nan_to_num(sp.tukey_hsd(*values).pvalue, nan=1.0),
                       atol=1e-6)
    assert np.isnan(np.diag(got)).all()


def test_tukey_hsd_blocked_uses_the_two_way_anova_residual_of_statsmodels():
    import pandas as pd
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm
    from statsmodels.stats.libqsturng import psturng

    rng = np.random.default_rng(3)
    topic = rng.normal(0, 0.3, size=15)
    values = topic[None, :] + rng.normal(0, 0.05, size=(3, 15)) + np.array([[0.0], [0.04], [0.07]])
    frame = pd.DataFrame({"value": values.ravel(), "run": np.repeat(["a", "b", "c"], 15),
                          "query": np.tile(np.arange(15), 3)})
    table = anova_lm(smf.ols("value ~ C(run) + C(query)", data=frame).fit())
    mse, df = table.loc["Residual", "mean_sq"], int(table.loc["Residual", "df"])
    assert statistics.residual_variance(values) == (pytest.approx(mse, rel=1e-10), df)
    got = statistics.tukey_hsd(values)
    means = values.mean(axis=1)
    checked = []
    for i, j in itertools.combinations(range(3), 2):
        q = abs(means[i] - means[j]) / math.sqrt(mse / 15)
        assert got[i, j] == pytest.approx(sp.studentized_range.sf(q, 3, df), abs=1e-9)
        if 0.001 < got[i, j] < 0.5:  # where psturng, which interpolates tables, is accurate to 1e-3
            checked.append(got[i, j] == pytest.approx(float(np.ravel(psturng(q, 3, df))[0]), abs=2e-3))
    assert checked and all(checked)
    one_way = statistics.tukey_hsd(values, blocked=False)
    assert got[0, 2] < one_way[0, 2]  # blocking on queries removes the topic variance


def slow_randomized_tukey(values):
    """Every way to permute the systems' values within each query: the range of the system means."""
    m, n = values.shape
    spreads = []
    for orders in itertools.product(itertools.permutations(range(m)), repeat=n):
        permuted = np.array([[values[order[k], q] for q, order in enumerate(orders)] for k in range(m)])
        means = permuted.mean(axis=1)
        spreads.append(means.max() - means.min())
    spreads = np.array(spreads)
    means = values.mean(axis=1)
    p = np.full((m, m), np.nan)
    for i, j in itertools.permutations(range(m), 2):
        p[i, j] = np.mean(spreads >= abs(means[i] - means[j]) - 1e-12)
    return p


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=12, max_size=12))
def test_randomized_tukey_hsd_exact_equals_enumeration(flat):
    values = np.array(flat, dtype=float).reshape(3, 4) / 4
    got = statistics.randomized_tukey_hsd(values, permutations=None)
    assert np.allclose(got, slow_randomized_tukey(values), atol=1e-12, equal_nan=True)


def test_randomized_tukey_hsd_sampled_is_close_to_exact_and_near_tukey():
    rng = np.random.default_rng(6)
    values = rng.random((3, 5)) + np.array([[0.0], [0.2], [0.4]])
    exact = statistics.randomized_tukey_hsd(values, permutations=None)  # 6^5 = 7776 draws
    sampled = statistics.randomized_tukey_hsd(values, permutations=5000, seed=3)
    assert np.allclose(sampled, exact, atol=0.025, equal_nan=True)
    # near the complete null hypothesis (which the permutations draw from) it is close to Tukey's HSD
    big = rng.random((4, 40)) * 0.5 + np.array([[0.0], [0.02], [0.04], [0.06]])
    assert np.allclose(statistics.randomized_tukey_hsd(big, permutations=4000), statistics.tukey_hsd(big),
                       atol=0.05, equal_nan=True)


# --- intervals, effect size, topic-set size ------------------------------------------------------------

def test_t_interval_equals_statsmodels():
    from statsmodels.stats.weightstats import DescrStatsW

    d = np.random.default_rng(1).normal(0.02, 0.1, size=(3, 25))
    got = statistics.t_interval(d, level=0.95)
    for k in range(3):
        assert got[k] == pytest.approx(DescrStatsW(d[k]).tconfint_mean(alpha=0.05), abs=1e-12)
    assert statistics.t_interval(d, level=0.9)[0, 0] > got[0, 0]


def test_bootstrap_interval_exact_equals_enumeration_and_sampled_is_near_scipy():
    d = np.array([[0.1, -0.2, 0.3, 0.05, 0.0]])
    means = [np.mean(d[0, list(pick)]) for pick in itertools.product(range(5), repeat=5)]
    assert statistics.bootstrap_interval(d, samples=None)[0] == pytest.approx(np.quantile(means, [0.025, 0.975]),
                                                                            abs=1e-12)
    wide = np.random.default_rng(9).normal(0.03, 0.15, size=(1, 40))
    got = statistics.bootstrap_interval(wide, samples=20_000, seed=4)[0]
    reference = sp.bootstrap((wide[0],), np.mean, method="percentile", n_resamples=20_000,
                             rng=np.random.default_rng(0)).confidence_interval
    assert got == pytest.approx([reference.low, reference.high], abs=0.005)


def test_effect_size_is_d_z():
    d = np.random.default_rng(2).normal(0.05, 0.1, size=(4, 30))
    t = sp.ttest_1samp(d, 0.0, axis=1).statistic
    assert np.allclose(statistics.effect_size(d), t / math.sqrt(30), atol=1e-12)
    assert np.isnan(statistics.effect_size(np.full((1, 5), 0.2)))[0]


@pytest.mark.parametrize("alternative, sm_alternative", [("two-sided", "two-sided"), ("greater", "larger")])
@pytest.mark.parametrize("variance, difference", [(0.02, 0.05), (0.1, 0.05), (0.005, 0.1), (0.04, 0.02)])
def test_topic_set_size_equals_statsmodels_power(variance, difference, alternative, sm_alternative):
    from statsmodels.stats.power import TTestPower

    got = statistics.topic_set_size(variance, difference, alpha=0.05, power=0.8, alternative=alternative)
    effect = difference / math.sqrt(variance)
    fractional = TTestPower().solve_power(effect_size=effect, alpha=0.05, power=0.8, alternative=sm_alternative)
    assert got == math.ceil(fractional)
    assert TTestPower().power(effect, got, 0.05, alternative=sm_alternative) >= 0.8
    assert TTestPower().power(effect, got - 1, 0.05, alternative=sm_alternative) < 0.8
    with pytest.raises(ValueError, match="positive"):
        statistics.topic_set_size(0.0, difference)


# --- Kendall's τ, τ_AP, the exact randomization and t-tests, Holm and Bonferroni -------------------

scores_strategy = st.lists(st.sampled_from([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]), min_size=3, max_size=8)


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_kendall_tau_equals_pair_counting(data):
    x = data.draw(scores_strategy)
    y = data.draw(st.lists(st.sampled_from([0.1, 0.2, 0.3, 0.4]), min_size=len(x), max_size=len(x)))
    if len(set(x)) < 2 or len(set(y)) < 2:
        assert math.isnan(statistics.kendall_tau(np.array(x), np.array(y)))
        return
    assert statistics.kendall_tau(np.array(x), np.array(y)) == pytest.approx(slow_tau_b(x, y), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(7))), st.permutations(list(range(7))))
def test_tau_ap_equals_its_definition(truth, estimate):
    truth, estimate = np.array(truth, dtype=float), np.array(estimate, dtype=float)
    assert statistics.tau_ap(truth, estimate) == pytest.approx(slow_tau_ap(truth, estimate), abs=1e-12)


def test_tau_ap_penalises_swaps_at_the_top_more():
    truth = np.array([5.0, 4, 3, 2, 1])
    assert statistics.tau_ap(truth, truth) == 1.0
    assert statistics.tau_ap(truth, -truth) == pytest.approx(-1.0)
    top = statistics.tau_ap(truth, np.array([4.0, 5, 3, 2, 1]))
    bottom = statistics.tau_ap(truth, np.array([5.0, 4, 3, 1, 2]))
    assert top < bottom < 1.0
    assert statistics.kendall_tau(truth, np.array([4.0, 5, 3, 2, 1])) == statistics.kendall_tau(
        truth, np.array([5.0, 4, 3, 1, 2]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=10))
def test_randomization_test_exact_equals_full_enumeration(d):
    d = [v / 10 for v in d]
    got = statistics.randomization_test(np.array([d]), permutations=None)[0]
    assert got == pytest.approx(slow_randomization_p(d), abs=1e-12)


def test_paired_t_test_equals_the_formula():
    from scipy import stats as sp

    rng = np.random.default_rng(0)
    a, b = rng.random((3, 15)), rng.random((3, 15))
    d = a - b
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(15))
    expected = 2 * sp.t.sf(np.abs(t), df=14)
    assert np.allclose(statistics.paired_t_test(a, b), expected, atol=1e-12)
    assert statistics.paired_t_test(a[:1], a[:1])[0] == 1.0


def slow_holm(p):
    order = sorted(range(len(p)), key=lambda k: p[k])
    out, running = [0.0] * len(p), 0.0
    for rank, k in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[k]))
        out[k] = running
    return out


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=8))
def test_holm_and_bonferroni(p):
    assert np.allclose(statistics.correct(np.array(p), "holm"), slow_holm(p))
    assert np.allclose(statistics.correct(np.array(p), "bonferroni"), [min(1.0, v * len(p)) for v in p])
    with pytest.raises(ValueError, match="unknown correction"):
        statistics.correct(np.array(p), "sidak")
