"""The statistics behind the meta-evaluation, each a small function over arrays.

Rank correlations between system rankings (Kendall's τ from scipy, τ_AP of Yilmaz, Aslam &
Robertson 2008), paired significance tests between systems (a seeded randomization test that
flips the signs of all per-query differences at once, and scipy's paired t-test), and
multiple-testing corrections. Nothing here knows about measures or runs.
"""

from __future__ import annotations

import numpy as np

#: Above this many sign vectors a randomization test samples instead of enumerating all 2^n.
_CHUNK = 1024


def kendall_tau(a: np.ndarray, b: np.ndarray) -> float:
    """Kendall's τ-b between two score vectors of the same systems (scipy; NaN if undefined)."""
    from scipy import stats

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(stats.kendalltau(a, b).statistic)


def tau_ap(truth: np.ndarray, estimate: np.ndarray) -> float:
    """AP rank correlation τ_AP (Yilmaz, Aslam & Robertson, SIGIR 2008) of ``estimate`` against ``truth``.

    Systems are ordered by ``estimate`` (descending; ties keep the order of ``truth``); for the
    system at position i (1-based, i ≥ 2), C(i) counts the systems above it that ``truth`` also
    places at or above it. τ_AP = 2/(N-1) · Σ_{i≥2} C(i)/(i-1) − 1: swaps near the top cost more
    than swaps near the bottom. Ties in ``truth`` count as agreeing.
    """
    truth, estimate = np.asarray(truth, dtype=np.float64), np.asarray(estimate, dtype=np.float64)
    n = len(truth)
    if n < 2:
        return float("nan")
    by_truth = np.argsort(-truth, kind="stable")
    order = by_truth[np.argsort(-estimate[by_truth], kind="stable")]
    t = truth[order]
    agree = np.tril(t[:, None] <= t[None, :], k=-1)  # agree[i, j]: j above i, truth[j] >= truth[i]
    c = agree.sum(axis=1)[1:]
    return float(2.0 / (n - 1) * np.sum(c / np.arange(1, n)) - 1.0)


def sign_matrix(n: int, permutations: int | None, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """All 2^n sign vectors when that is at most ``permutations`` (or ``permutations`` is None),
    else ``permutations`` random ones. Returns ``(signs, exact)``; rows are sign vectors (int8)."""
    if permutations is None or (n < 63 and 2**n <= permutations):
        if n > 20:
            raise ValueError(f"exact enumeration of 2^{n} sign vectors is too large; give a number of permutations")
        codes = np.arange(2**n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)
        return ((codes & 1) * 2 - 1).astype(np.int8), True
    return rng.choice(np.array([-1, 1], dtype=np.int8), size=(permutations, n)), False


def randomization_test(
    differences: np.ndarray, permutations: int | None = 10_000, seed: int = 0
) -> np.ndarray:
    """Two-sided paired randomization (permutation) test for every row of ``differences``.

    ``differences`` is (pairs × queries): per query, system A minus system B. Under the null
    hypothesis the sign of each query's difference is arbitrary, so the p-value is the share of
    sign vectors whose mean difference is at least as far from 0 as the observed one. All pairs
    share one set of sign vectors (seeded); every 2^n vector is enumerated when there are at most
    ``permutations`` of them (or ``permutations=None``), which makes the test exact (p = count / 2^n).
    Sampled sign vectors give p = (count + 1) / (permutations + 1), counting the observed
    assignment once, so a sampled p-value is never 0 (Phipson & Smyth 2010).
    """
    d = np.atleast_2d(np.asarray(differences, dtype=np.float64))
    n_pairs, n = d.shape
    if n == 0:
        return np.full(n_pairs, np.nan)
    signs, exact = sign_matrix(n, permutations, np.random.default_rng(seed))
    observed = np.abs(d.mean(axis=1))
    tolerance = 1e-12 * np.maximum(1.0, observed)  # a permuted mean equal to the observed one counts
    extreme = np.zeros(n_pairs, dtype=np.int64)
    for start in range(0, len(signs), _CHUNK):  # one matrix product per chunk of sign vectors
        means = np.abs(d @ signs[start:start + _CHUNK].T.astype(np.float64)) / n
        extreme += (means >= (observed - tolerance)[:, None]).sum(axis=1)
    return extreme / len(signs) if exact else (extreme + 1) / (len(signs) + 1)


def paired_t_test(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two-sided paired t-test p-values (scipy) row by row; 1.0 where every difference is 0, 0.0
    where every difference is the same non-zero number over two queries or more (t is infinite: a
    shift on every query); NaN for a difference on a single query (no degrees of freedom)."""
    import warnings

    from scipy import stats

    a, b = np.atleast_2d(a).astype(np.float64), np.atleast_2d(b).astype(np.float64)
    difference = a - b
    constant = np.all(difference == difference[:, :1], axis=1)
    p = np.where(np.all(difference == 0, axis=1), 1.0, 0.0 if a.shape[1] > 1 else np.nan)  # one query: no test
    varied = ~constant
    if varied.any():
        # runs that score almost the same: scipy warns of precision loss; the p-value is still its own
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            p[varied] = np.asarray(stats.ttest_rel(a[varied], b[varied], axis=1).pvalue, dtype=np.float64)
    return p


def correct(p_values: np.ndarray, method: str) -> np.ndarray:
    """p-values adjusted for multiple comparisons: 'holm', 'bonferroni', 'fdr_bh' or 'none'."""
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    if method == "none" or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    if method == "holm":
        order = np.argsort(p, kind="stable")
        stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
        out = np.empty(m)
        out[order] = np.minimum(stepped, 1.0)
        return out
    if method == "fdr_bh":
        from scipy import stats

        return np.asarray(stats.false_discovery_control(p, method="bh"))
    raise ValueError(f"unknown correction {method!r}; expected holm, bonferroni, fdr_bh or none")


CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "none")
