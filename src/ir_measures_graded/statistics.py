"""The statistics behind the comparison against a baseline and the meta-evaluation, each a small
function over arrays.

- Rank correlations between system rankings: Kendall's τ-b, τ_AP (Yilmaz, Aslam & Robertson 2008)
  and its tie-aware variants τ_AP,a and τ_AP,b (Urbano & Marrero 2017).
- Paired significance tests between two systems, one row of per-query differences each: the
  randomization (permutation) test, Sakai's (2006) paired bootstrap test, the paired t-test, the
  Wilcoxon signed-rank test and the sign test — two-sided by default, one-sided on request.
- Tests of many systems at once: Tukey's HSD (two-way ANOVA without replication, the queries as
  blocks, or one-way) and Carterette's (2012) randomised Tukey HSD.
- Effect sizes and intervals: t and bootstrap confidence intervals of the mean difference (one-sided
  with a one-sided test: (low, ∞) or (−∞, high)), the standardised mean difference d_z, per-query
  wins/ties/losses; topic-set size (Sakai 2016).
- Multiple-testing corrections.

Nothing here knows about measures or runs.

**Ties.** Values closer than :func:`tolerance` (1e-9 of the largest absolute value) count as equal,
so two means that are equal in fact but were summed in a different order are a tie, not a
difference. Per-query differences are made in one place, :func:`differences` (``a - b`` with those
within the tolerance of ``a`` and ``b`` set to exactly 0), and every paired test, the wins/ties/losses
and :func:`paired_test` take them from there: 0.3 against 0.1 + 0.2 is a zero difference for each
test alike. The functions that take differences (:func:`randomization_test`, :func:`bootstrap_test`,
:func:`t_interval`, :func:`bootstrap_interval`, :func:`effect_size`) take them as given: pass
``differences(a, b)``. Rank correlations rank each vector with ties from its own scale.

**NaN (a value that could not be computed).** A pair — run against baseline, or two runs — with a
NaN per-query value on either side is not tested: its p-value is NaN (no significance mark; the
corrections leave it out), its intervals and effect size are NaN, and its wins, ties and losses are
all 0 (nothing is counted from a partial set of queries). A correlation is NaN when either vector
holds a NaN (as scipy's ``nan_policy='propagate'``). In Tukey's HSD and the randomised Tukey HSD a
run with a NaN value has NaN p-values against every other run, and the other pairs are computed on
the remaining runs alone (exactly the result without that run).

**No query.** A test made on 0 queries (empty qrels) is not made: every paired test's p-value, the
intervals and the effect size are NaN, as for a NaN value, without a numpy warning.

**p-values of the resampling tests.** Sampled p-values are (count + 1) / (draws + 1), never 0. Exact
ones (every outcome enumerated) are count / outcomes: the randomization test and the randomised
Tukey HSD enumerate the observed arrangement itself, so theirs are at least 1 / outcomes, but the
exact bootstrap test compares resamples of the mean-shifted differences with the observed t, and
gives 0 when none is as extreme (e.g. a constant shift on n ≤ 5 queries: every resample is 0).

**Wilcoxon signed-rank test** (computed here, the same under every scipy version): zero
differences dropped (``zero_method='wilcox'``), ties among the absolute differences given average
ranks; the exact null distribution of W+ (every sign vector of the remaining differences, ties
included) when there are at most 13 queries, or at most 50 without a zero or tied difference; else
the normal approximation with the tie-corrected variance and no continuity correction
(``correction=False``) — what scipy 1.17's ``wilcoxon(..., method='auto')`` does.

**Benjamini-Hochberg** (``fdr_bh``) is computed here (the step-up adjusted p-values, as statsmodels'
``multipletests(method='fdr_bh')``), so it needs no particular scipy.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np

#: Above this many sign vectors / resamples / permutations a test samples instead of enumerating.
_CHUNK = 1024

#: At most about this many doubles in one intermediate array of a resampling test (16 MiB).
_BLOCK = 1 << 21

#: Values closer than this share of the largest absolute value count as equal.
RELATIVE_TOLERANCE = 1e-9

ALTERNATIVES = ("two-sided", "greater", "less")
CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "none")


def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r}; expected one of {', '.join(ALTERNATIVES)}")


def tolerance(values: np.ndarray) -> float:
    """The distance below which two values (or means, or differences) of ``values`` count as equal."""
    values = np.asarray(values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    return float(RELATIVE_TOLERANCE * np.max(np.abs(finite))) if finite.size else 0.0


def _row_tolerance(values: np.ndarray) -> np.ndarray:
    """:func:`tolerance` of each row (along the last axis), shaped to broadcast against the rows."""
    x = np.abs(np.asarray(values, dtype=np.float64))
    return RELATIVE_TOLERANCE * np.max(np.where(np.isfinite(x), x, 0.0), axis=-1, keepdims=True, initial=0.0)


def _untested(*arrays: np.ndarray) -> np.ndarray:
    """Per row (rows × queries), whether any of ``arrays`` holds a NaN there: such a pair is not tested."""
    return np.logical_or.reduce([np.isnan(np.atleast_2d(x)).any(axis=-1) for x in arrays])


def differences(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise per-query differences ``a - b`` (rows × queries), those within :func:`tolerance` of
    ``a`` and ``b`` set to exactly 0 (0.3 − (0.1 + 0.2) is a tie, not a difference); NaN stays NaN.
    Every paired test, interval and count takes its differences from here."""
    a, b = np.atleast_2d(np.asarray(a, dtype=np.float64)), np.atleast_2d(np.asarray(b, dtype=np.float64))
    d = a - b
    tol = max(tolerance(a), tolerance(b))
    return np.where(np.abs(d) <= tol, 0.0, d)


#: The former name of :func:`differences`.
_snapped = differences


def tied_ranks(values: np.ndarray, tol: float | np.ndarray | None = None) -> np.ndarray:
    """Dense ranks along the last axis (0 = lowest); values within ``tol`` of their neighbour in sorted
    order share a rank. ``tol`` (a number, or one per row shaped rows × 1) defaults to
    :func:`tolerance` of ``values``."""
    x = np.asarray(values, dtype=np.float64)
    tol = tolerance(x) if tol is None else tol
    order = np.argsort(x, axis=-1, kind="stable")
    ordered = np.take_along_axis(x, order, axis=-1)
    steps = np.diff(ordered, axis=-1) > tol
    groups = np.concatenate([np.zeros(x.shape[:-1] + (1,), dtype=np.int64), np.cumsum(steps, axis=-1)], axis=-1)
    ranks = np.empty_like(groups)
    np.put_along_axis(ranks, order, groups, axis=-1)
    return ranks


def _pair_signs(ranks: np.ndarray) -> np.ndarray:
    """sign(rank_i - rank_j) for every pair i < j of the last axis."""
    i, j = np.triu_indices(ranks.shape[-1], k=1)
    return np.sign(ranks[..., i] - ranks[..., j])


def kendall_tau_rows(a: np.ndarray, b: np.ndarray, tol: float | None = None) -> np.ndarray:
    """Kendall's τ-b between ``a[k]`` and ``b[k]`` for every row k (NaN where a row is all tied or holds
    a NaN). Ties within ``tol`` in both; without it, each row of ``a`` and of ``b`` has the ties of its
    own scale (:func:`tolerance`), so a vector in the millions does not make ties in one near 0.1."""
    a, b = np.atleast_2d(np.asarray(a, dtype=np.float64)), np.atleast_2d(np.asarray(b, dtype=np.float64))
    if a.shape[-1] < 2:
        return np.full(a.shape[0], np.nan)
    tol_a, tol_b = (_row_tolerance(a), _row_tolerance(b)) if tol is None else (tol, tol)
    sa, sb = _pair_signs(tied_ranks(a, tol_a)), _pair_signs(tied_ranks(b, tol_b))
    untied_a, untied_b = (sa != 0).sum(axis=-1), (sb != 0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (sa * sb).sum(axis=-1) / np.sqrt(untied_a * untied_b)
    return np.where((untied_a == 0) | (untied_b == 0) | _untested(a, b), np.nan, tau)


def swaps(a: np.ndarray, b: np.ndarray, tol: float | None = None) -> np.ndarray:
    """Per row of ``a`` and ``b`` (rows × systems), for every pair of systems i < j (``triu_indices``
    order), whether the two order it oppositely: a swap. Ties within ``tol`` in both; without it each
    row of ``a`` and of ``b`` has the ties of its own scale, as :func:`kendall_tau_rows`. A tie in either
    is no swap, nor is a pair holding a NaN. The one count of swaps (the agreement between measures, the
    stability's swap rate)."""
    a, b = np.atleast_2d(np.asarray(a, dtype=np.float64)), np.atleast_2d(np.asarray(b, dtype=np.float64))
    tol_a, tol_b = (_row_tolerance(a), _row_tolerance(b)) if tol is None else (tol, tol)
    ra, rb = tied_ranks(a, tol_a).astype(np.float64), tied_ranks(b, tol_b).astype(np.float64)
    ra[np.isnan(a)] = rb[np.isnan(b)] = np.nan
    with np.errstate(invalid="ignore"):
        return _pair_signs(ra) * _pair_signs(rb) < 0


def kendall_tau(a: np.ndarray, b: np.ndarray) -> float:
    """Kendall's τ-b between two score vectors of the same systems (NaN if either is all tied or holds
    a NaN); each vector's ties from its own scale."""
    return float(kendall_tau_rows(a, b)[0])


def _ranks_pair(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("two score vectors of the same systems expected")
    return tied_ranks(x), tied_ranks(y)


def _any_nan(x: np.ndarray, y: np.ndarray) -> bool:
    return bool(np.isnan(np.asarray(x, dtype=np.float64)).any() or np.isnan(np.asarray(y, dtype=np.float64)).any())


def tau_ap(truth: np.ndarray, estimate: np.ndarray) -> float:
    """AP rank correlation τ_AP (Yilmaz, Aslam & Robertson, SIGIR 2008) of ``estimate`` against ``truth``.

    Walking down the ranking by ``estimate`` (descending), the system at position i ≥ 2 scores the
    share C(i)/(i-1) of the systems above it that ``truth`` also ranks above it; τ_AP = 2/(N-1) · Σ
    C(i)/(i-1) − 1, so swaps near the top cost more than swaps near the bottom. Defined for rankings
    without ties only: use :func:`tau_ap_a` or :func:`tau_ap_b` when there are ties. NaN when
    either vector holds a NaN.
    """
    rt, re = _ranks_pair(truth, estimate)
    if _any_nan(truth, estimate):
        return float("nan")
    if len(np.unique(rt)) < len(rt) or len(np.unique(re)) < len(re):
        raise ValueError("tau_ap is defined for rankings without ties; use tau_ap_a (a truth without ties) "
                         "or tau_ap_b (ties in both)")
    return tau_ap_a(truth, estimate)


def tau_ap_a(truth: np.ndarray, estimate: np.ndarray) -> float:
    """τ_AP,a (Urbano & Marrero, ICTIR 2017): the *accuracy* of ``estimate`` against a ``truth`` without ties.

    Ties in ``estimate`` are allowed: τ_AP,a is the expected τ_AP over every order of the tied
    systems (each equally likely), in closed form. A system whose tie group starts after p systems
    and holds t of them sits at each of the positions p+1 … p+t with probability 1/t: the systems
    above its group that ``truth`` also ranks higher weigh 1/t · Σ_k 1/(p+k), and each other member
    of its group is above it and right in half of the orders. Equals τ_AP without ties; an all-tied
    estimate scores 0, as τ_a does. NaN when either vector holds a NaN.
    """
    rt, re = _ranks_pair(truth, estimate)
    n = len(rt)
    if n < 2 or _any_nan(truth, estimate):
        return float("nan")
    if len(np.unique(rt)) < n:
        raise ValueError("tau_ap_a needs a truth without ties; use tau_ap_b for ties in both rankings")
    above = re[None, :] > re[:, None]  # above[i, j]: the estimate puts j strictly above i
    p = above.sum(axis=1)
    t = (re[None, :] == re[:, None]).sum(axis=1)
    correct = (above & (rt[None, :] > rt[:, None])).sum(axis=1)
    weight_above, within = np.zeros(n), np.zeros(n)
    for start, size in {(int(a), int(b)) for a, b in zip(p, t, strict=True)}:  # one pass per tie group
        k = np.arange(size)
        group = (p == start) & (t == size)
        weight_above[group] = np.sum(1.0 / (start + k)) / size if start > 0 else 0.0
        within[group] = np.sum(k[1:] / (start + k[1:])) / (2 * size)
    return float(2.0 / (n - 1) * np.sum(correct * weight_above + within) - 1.0)


def _tau_ap_b_one_way(rx: np.ndarray, ry: np.ndarray) -> float:
    above = ry[None, :] > ry[:, None]  # above[i, j]: y puts j strictly above i
    p = above.sum(axis=1)
    below_top = p > 0
    if not below_top.any():
        return float("nan")
    correct = (above & (rx[None, :] > rx[:, None])).sum(axis=1)
    return float(2.0 * np.mean(correct[below_top] / p[below_top]) - 1.0)


def tau_ap_b(x: np.ndarray, y: np.ndarray) -> float:
    """τ_AP,b (Urbano & Marrero, ICTIR 2017): the *agreement* of two rankings, ties allowed in both.

    Walking down ``y``, every system below ``y``'s top tie group scores the share of the systems
    strictly above it in ``y`` that ``x`` also puts strictly above it (a tie in ``x`` is not
    agreement); the mean share, times 2, minus 1 — and the same walking down ``x``; τ_AP,b is the
    average of the two, so it is symmetric. Without ties it is the symmetric τ_AP; NaN when either
    ranking is all tied or holds a NaN (as τ-b). This is the τ_AP the meta-evaluation reports.
    """
    rx, ry = _ranks_pair(x, y)
    if len(rx) < 2 or _any_nan(x, y):
        return float("nan")
    return (_tau_ap_b_one_way(rx, ry) + _tau_ap_b_one_way(ry, rx)) / 2


# --- paired tests of two systems ------------------------------------------------------------------------

def sign_matrix(n: int, permutations: int | None, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """All 2^n sign vectors when that is at most ``permutations`` (or ``permutations`` is None),
    else ``permutations`` random ones. Returns ``(signs, exact)``; rows are sign vectors (int8)."""
    if permutations is None or (n < 63 and 2**n <= permutations):
        if n > 20:
            raise ValueError(f"exact enumeration of 2^{n} sign vectors is too large; give a number of permutations")
        codes = np.arange(2**n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)
        return ((codes & 1) * 2 - 1).astype(np.int8), True
    return rng.choice(np.array([-1, 1], dtype=np.int8), size=(permutations, n)), False


def sign_chunks(n: int, permutations: int | None, rng: np.random.Generator,
                rows: int = _CHUNK) -> tuple[Iterator[np.ndarray], int, bool]:
    """The sign vectors of :func:`sign_matrix` (the same vectors, in the same order, from the same
    generator), made ``rows`` at a time: ``(chunks, count, exact)``, so that ``permutations`` × n of them
    (and of the indices the generator draws them from, 8 bytes each) are never held at once."""
    rows = max(2, rows - rows % 2)  # an even number of draws per chunk: the generator's stream is the one call's
    if permutations is None or (n < 63 and 2**n <= permutations):
        if n > 20:
            raise ValueError(f"exact enumeration of 2^{n} sign vectors is too large; give a number of permutations")
        bits = np.arange(n, dtype=np.int64)
        return ((((np.arange(s, min(2**n, s + rows), dtype=np.int64)[:, None] >> bits) & 1) * 2 - 1).astype(np.int8)
                for s in range(0, 2**n, rows)), 2**n, True
    signs = np.array([-1, 1], dtype=np.int8)
    return (rng.choice(signs, size=(min(rows, permutations - s), n)) for s in range(0, permutations, rows)), \
        permutations, False


def _p_value(extreme: np.ndarray, draws: int, exact: bool) -> np.ndarray:
    """count / draws when every outcome was enumerated; (count + 1) / (draws + 1) when sampled, counting
    the observed outcome once, so a sampled p-value is never 0 (Phipson & Smyth 2010)."""
    return extreme / draws if exact else (extreme + 1) / (draws + 1)


def _beyond(statistic: np.ndarray, observed: np.ndarray, alternative: str) -> np.ndarray:
    """Which resampled statistics (pairs × draws) are at least as extreme as the observed ones (pairs)."""
    scale = 1e-12 * np.maximum(1.0, np.abs(np.where(np.isfinite(observed), observed, 0.0)))
    observed, scale = observed[:, None], scale[:, None]
    if alternative == "greater":
        return statistic >= observed - scale
    if alternative == "less":
        return statistic <= observed + scale
    return np.abs(statistic) >= np.abs(observed) - scale


def randomization_test(
    differences: np.ndarray, permutations: int | None = 10_000, seed: int = 0, alternative: str = "two-sided"
) -> np.ndarray:
    """Paired randomization (permutation) test for every row of ``differences``.

    ``differences`` is (pairs × queries): per query, system A minus system B. Under the null
    hypothesis the sign of each query's difference is arbitrary, so the p-value is the share of
    sign vectors whose mean difference is at least as extreme as the observed one (two-sided: as far
    from 0; ``greater``: A better by at least as much; ``less``: the mirror). All pairs share one
    set of sign vectors (seeded); every 2^n vector is enumerated when there are at most
    ``permutations`` of them (or ``permutations=None``), which makes the test exact (p = count / 2^n).
    A row holding a NaN is not tested (NaN).
    """
    _check_alternative(alternative)
    d = np.atleast_2d(np.asarray(differences, dtype=np.float64))
    n_pairs, n = d.shape
    if n == 0:
        return np.full(n_pairs, np.nan)
    untested = _untested(d)
    d = np.where(untested[:, None], 0.0, d)  # computed as a zero row, then set NaN
    # sign vectors drawn a chunk at a time, each chunk's draws, signs and means at most about _BLOCK entries
    # (all at once, 10,000 permutations of 10,000 queries took 895 MiB), the same vectors as in one draw
    chunks, count, exact = sign_chunks(n, permutations, np.random.default_rng(seed),
                                       rows=min(_CHUNK, _BLOCK // max(1, n, n_pairs)))
    observed = d.mean(axis=1)
    extreme = np.zeros(n_pairs, dtype=np.int64)
    for signs in chunks:  # one matrix product per chunk of sign vectors
        means = d @ signs.T.astype(np.float64) / n
        extreme += _beyond(means, observed, alternative).sum(axis=1)
    return np.where(untested, np.nan, _p_value(extreme, count, exact))


def resample_chunks(n: int, samples: int | None, rng: np.random.Generator) -> tuple[Iterator[np.ndarray], int, bool]:
    """All n^n ordered resamples (with replacement) of n queries when that is at most ``samples`` (or
    ``samples`` is None), else ``samples`` random ones; as ``(chunks, count, exact)``, the resamples'
    query indices a chunk of rows at a time, so that ``samples`` × n of them (800 MB at 10,000 ×
    10,000) are never held at once."""
    if samples is None or n**n <= samples:
        if n > 8:
            raise ValueError(f"exact enumeration of {n}^{n} resamples is too large; give a number of samples")
        codes = np.arange(n**n, dtype=np.int64)[:, None] // n ** np.arange(n, dtype=np.int64)
        return (codes[s:s + _CHUNK] % n for s in range(0, n**n, _CHUNK)), n**n, True
    return (rng.integers(0, n, size=(min(_CHUNK, samples - s), n)) for s in range(0, samples, _CHUNK)), samples, False


def _t_statistic(x: np.ndarray) -> np.ndarray:
    """Student's t of the mean of the last axis (0 where every value is 0; ±inf where they are equal)."""
    n = x.shape[-1]
    mean = x.mean(axis=-1)
    sd = x.std(axis=-1, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = mean / (sd / np.sqrt(n))
    return np.where(np.isnan(t), 0.0, t)


def bootstrap_test(
    differences: np.ndarray, samples: int | None = 10_000, seed: int = 0, alternative: str = "two-sided"
) -> np.ndarray:
    """Sakai's (SIGIR 2006) paired bootstrap test for every row of ``differences`` (pairs × queries).

    The differences are shifted to mean 0 (the null hypothesis), resampled with replacement, and the
    studentized mean t* of each resample is compared with the observed t: p is the share of
    resamples at least as extreme. All pairs share one set of resamples (seeded); every n^n ordered
    resample is enumerated when there are at most ``samples`` of them (exact: p can be 0, see the
    module's note), otherwise p = (count + 1) / (samples + 1). A row holding a NaN is not tested (NaN).
    """
    _check_alternative(alternative)
    d = np.atleast_2d(np.asarray(differences, dtype=np.float64))
    n_pairs, n = d.shape
    if n < 2:
        return np.full(n_pairs, np.nan)
    untested = _untested(d)
    d = np.where(untested[:, None], 0.0, d)
    chunks, count, exact = resample_chunks(n, samples, np.random.default_rng(seed))
    shifted = d - d.mean(axis=1, keepdims=True)
    # a difference equal to the mean but for rounding is 0 after the shift: else a constant shift's
    # resamples are rounding noise whose t is anything, and p was 1 for 0.1 on 12 queries
    shifted = np.where(np.abs(shifted) <= _row_tolerance(d), 0.0, shifted)
    observed = _t_statistic(d)
    extreme = np.zeros(n_pairs, dtype=np.int64)
    # pairs × resamples × n doubles per block, not per chunk (45 pairs × 1,024 × 1,000 queries would be 369 MB);
    # each resample's t is reduced along its own row, so the blocks change no value
    block = max(1, _BLOCK // max(1, n_pairs * n))
    for indices in chunks:
        for start in range(0, len(indices), block):
            t = _t_statistic(shifted[:, indices[start:start + block]])  # pairs × block
            extreme += _beyond(t, observed, alternative).sum(axis=1)
    p = np.where(np.all(d == 0, axis=1), 1.0, _p_value(extreme, count, exact))
    return np.where(untested, np.nan, p)


def paired_t_test(a: np.ndarray, b: np.ndarray, alternative: str = "two-sided") -> np.ndarray:
    """Paired t-test p-values (scipy's ``ttest_1samp`` of :func:`differences`) row by row; 1.0 where
    every difference is 0 (within the tolerance). Where every difference is the same non-zero number
    over two queries or more (t is infinite: a shift on every query), decided here without scipy's
    precision-loss warning: 0.0 two-sided and in the shift's direction, 1.0 against it; NaN for a
    difference on a single query (no degrees of freedom) and for a row holding a NaN (not tested)."""
    import warnings

    from scipy import stats

    _check_alternative(alternative)
    difference = differences(a, b)
    if difference.shape[1] == 0:  # no query: nothing to test
        return np.full(len(difference), np.nan)
    untested = _untested(difference)
    shift = difference[:, 0]
    constant = np.all(difference == shift[:, None], axis=1)
    if difference.shape[1] < 2:  # one query: no test
        p = np.full(len(difference), np.nan)
    elif alternative == "greater":
        p = np.where(shift > 0, 0.0, 1.0)
    elif alternative == "less":
        p = np.where(shift < 0, 0.0, 1.0)
    else:
        p = np.zeros(len(difference))
    p[np.all(difference == 0, axis=1)] = 1.0
    varied = ~constant & ~untested
    if varied.any():
        # runs that score almost the same: scipy warns of precision loss; the p-value is still its own
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            p[varied] = np.asarray(stats.ttest_1samp(difference[varied], 0.0, axis=1, alternative=alternative).pvalue,
                                   dtype=np.float64)
    p[untested] = np.nan
    return p


def _signed_rank_counts(values: np.ndarray) -> np.ndarray:
    """How many of the 2^n sign vectors give each sum of the positive ``values`` (non-negative integers):
    the exact null distribution of W+ (in doubled ranks, so that average ranks of ties are integers)."""
    counts = np.zeros(int(values.sum()) + 1, dtype=np.float64)  # exact integers up to 2^53 (n <= 50)
    counts[0] = 1.0
    for v in values.tolist():  # one step per non-zero difference (at most 50), not per row of data
        if v:
            counts[v:] = counts[v:] + counts[:-v]
        else:
            counts *= 2
    return counts


def _signed_rank_p(row: np.ndarray, alternative: str) -> float:
    from scipy import stats

    n_all = len(row)
    d = row[row != 0]  # zero_method='wilcox': zero differences dropped
    n = len(d)
    if n == 0:
        return 1.0
    magnitude = np.abs(d)
    ranks = stats.rankdata(magnitude)  # average ranks of ties
    r_plus = float(ranks[d > 0].sum())
    _, tie_sizes = np.unique(magnitude, return_counts=True)
    tied = bool((tie_sizes > 1).any())
    if n_all <= 13 or (n_all <= 50 and not tied and n == n_all):
        doubled = np.rint(2 * ranks).astype(np.int64)
        counts = _signed_rank_counts(doubled)
        k = int(round(2 * r_plus))
        greater, less = counts[k:].sum() / 2.0**n, counts[:k + 1].sum() / 2.0**n
    else:  # normal approximation, tie-corrected variance, no continuity correction
        mean = n * (n + 1) / 4
        se = math.sqrt((n * (n + 1) * (2 * n + 1) - np.sum(tie_sizes**3 - tie_sizes) / 2) / 24)
        z = (r_plus - mean) / se
        greater, less = float(stats.norm.sf(z)), float(stats.norm.cdf(z))
    if alternative == "greater":
        return float(greater)
    if alternative == "less":
        return float(less)
    return float(min(1.0, 2 * min(greater, less)))


def wilcoxon_test(a: np.ndarray, b: np.ndarray, alternative: str = "two-sided") -> np.ndarray:
    """Wilcoxon signed-rank test row by row on :func:`differences`: zero differences dropped
    (``zero_method='wilcox'``), ties as average ranks; the exact distribution of W+ over every sign
    vector with at most 13 queries, or at most 50 without a zero or tied difference, else the normal
    approximation (tie-corrected, no continuity correction) — scipy 1.17's ``method='auto'``, computed
    here so that no scipy version changes it. 1.0 where every difference is 0; NaN for a row holding a
    NaN (not tested)."""
    _check_alternative(alternative)
    d = differences(a, b)
    untested = _untested(d) | (d.shape[1] == 0)  # no query: nothing to test
    return np.array([np.nan if skip else _signed_rank_p(row, alternative)
                     for row, skip in zip(d, untested, strict=True)], dtype=np.float64)


def win_tie_loss(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per row, how many queries A wins, ties and loses against B (:func:`differences` > 0, = 0, < 0): an
    (rows × 3) integer array. A row holding a NaN is not compared: 0, 0, 0 (not a count of some queries)."""
    d = differences(a, b)
    counted = ~_untested(d)[:, None]
    return np.stack([((d > 0) & counted).sum(axis=1), ((d == 0) & counted).sum(axis=1),
                     ((d < 0) & counted).sum(axis=1)], axis=1)


def sign_test(a: np.ndarray, b: np.ndarray, alternative: str = "two-sided") -> np.ndarray:
    """Sign test row by row: the number of queries A wins among those it does not tie with B is
    Binomial(n, 1/2) under the null hypothesis (exact binomial p-value; 1.0 without a non-tie; NaN on no query and for a
    row holding a NaN)."""
    from scipy import stats

    _check_alternative(alternative)
    wins, _, losses = win_tie_loss(a, b).T
    n = wins + losses
    if alternative == "greater":
        p = stats.binom.sf(wins - 1, n, 0.5)
    elif alternative == "less":
        p = stats.binom.cdf(wins, n, 0.5)
    else:
        p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(wins, losses), n, 0.5))
    no_query = np.atleast_2d(a).shape[-1] == 0  # nothing to test (without a non-tie among queries: 1.0)
    return np.where(_untested(a, b) | no_query, np.nan, np.where(n == 0, 1.0, p))


# --- many systems at once -------------------------------------------------------------------------------

def residual_variance(values: np.ndarray, blocked: bool = True) -> tuple[float, int]:
    """``(mean square error, degrees of freedom)`` of the systems × queries matrix ``values``: of a
    two-way ANOVA without replication (systems and queries as factors; ``blocked``) or one-way."""
    x = np.asarray(values, dtype=np.float64)
    m, n = x.shape
    if blocked:
        residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
        df = (m - 1) * (n - 1)
    else:
        residual = x - x.mean(axis=1, keepdims=True)
        df = m * (n - 1)
    return float(np.sum(residual**2) / df) if df > 0 else float("nan"), df


def _without_untested_runs(values: np.ndarray, pairs: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``pairs`` (an m × m matrix of p-values from a systems × queries matrix) on the runs without a NaN
    value alone; the runs with one get NaN against every other run."""
    x = np.asarray(values, dtype=np.float64)
    kept = np.flatnonzero(~_untested(x))
    if len(kept) == len(x):
        return pairs(x)
    p = np.full((len(x), len(x)), np.nan)
    if len(kept) >= 2:
        p[np.ix_(kept, kept)] = pairs(x[kept])
    return p


def tukey_hsd(values: np.ndarray, blocked: bool = True) -> np.ndarray:
    """Tukey's HSD for every pair of systems of the systems × queries matrix ``values``: an m × m
    matrix of p-values, family-wise over the m(m-1)/2 pairs (symmetric, NaN on the diagonal).

    ``blocked`` (default): the residual variance of a two-way ANOVA without replication, queries
    as blocks — the form used for IR (Carterette 2012; Sakai 2018); ``blocked=False``: one-way ANOVA
    (statsmodels' ``pairwise_tukeyhsd``, ranx's Tukey), which ignores that the runs share queries.
    Means within :func:`tolerance` of each other are equal (p = 1). A run with a NaN value is left
    out: NaN against every run, the other pairs as without it.
    """
    return _without_untested_runs(values, lambda x: _tukey_hsd(x, blocked))


def _tukey_hsd(x: np.ndarray, blocked: bool) -> np.ndarray:
    from scipy import stats

    m, n = x.shape
    mse, df = residual_variance(x, blocked)
    means = x.mean(axis=1)
    p = np.full((m, m), np.nan)
    i, j = np.triu_indices(m, k=1)
    gap = np.abs(means[i] - means[j])
    with np.errstate(invalid="ignore", divide="ignore"):
        q = gap / np.sqrt(mse / n)
    if df > 0 and len(q):
        upper = np.ones(len(q))  # equal means (with or without residual variance): no evidence
        differs = gap > tolerance(x)
        upper[differs] = stats.studentized_range.sf(q[differs], m, df) if mse > 0 else 0.0  # one numerical integral per pair
        p[i, j] = p[j, i] = upper
    return p


def _permutation_chunks(
    m: int, n: int, permutations: int | None, rng: np.random.Generator
) -> tuple[Iterator[np.ndarray], int, bool]:
    """Per draw and query, an order of the m systems: all (m!)^n combinations when at most
    ``permutations`` (exact), else ``permutations`` random ones; as ``(chunks, count, exact)``, each
    chunk (draws × n × m) of at most about :data:`_BLOCK` entries. The random draws are those of one
    ``argsort(rng.random((permutations, n, m)), axis=2)``, made a chunk at a time (the generator's
    stream does not depend on how it is split)."""
    import itertools

    count = math.factorial(m) ** n
    per = max(1, _BLOCK // max(1, n * m))
    if permutations is None or count <= permutations:
        if count > 2_000_000:
            raise ValueError(f"exact enumeration of ({m}!)^{n} permutations is too large; give a number of permutations")
        orders = np.array(list(itertools.permutations(range(m))), dtype=np.int64)
        # combination c as itertools.product(range(m!), repeat=n) orders them: the last query varies fastest
        place = len(orders) ** np.arange(n - 1, -1, -1, dtype=np.int64)
        return (orders[(np.arange(s, min(count, s + per), dtype=np.int64)[:, None] // place) % len(orders)]
                for s in range(0, count, per)), count, True
    return (np.argsort(rng.random((min(per, permutations - s), n, m)), axis=2)
            for s in range(0, permutations, per)), permutations, False


def randomized_tukey_hsd(values: np.ndarray, permutations: int | None = 10_000, seed: int = 0) -> np.ndarray:
    """Carterette's (2012) randomised Tukey HSD for every pair of systems of ``values`` (systems × queries).

    Under the null hypothesis the systems are exchangeable within each query: each draw permutes the
    systems' values of every query independently and records the range (largest minus smallest
    system mean). A pair's p-value is the share of draws whose range is at least its observed
    absolute mean difference — family-wise over all pairs. Exact (all (m!)^n draws) when there are
    at most ``permutations``; otherwise (count + 1) / (permutations + 1). Returns an m × m matrix.
    The draws are made a block at a time (memory bounded whatever the numbers of draws and queries).
    A run with a NaN value is left out: NaN against every run, the other pairs as without it.
    """
    return _without_untested_runs(values, lambda x: _randomized_tukey_hsd(x, permutations, seed))


def _randomized_tukey_hsd(x: np.ndarray, permutations: int | None, seed: int) -> np.ndarray:
    return _randomized_tukey_shared([x], permutations, seed)[0]


def _randomized_tukey_shared(matrices: list[np.ndarray], permutations: int | None, seed: int) -> list[np.ndarray]:
    """:func:`_randomized_tukey_hsd` of each of ``matrices`` (all m × n), on one set of draws: the draws
    depend only on m, n, ``permutations`` and ``seed``, so each result is the one it has alone."""
    m, n = matrices[0].shape
    chunks, count, exact = _permutation_chunks(m, n, permutations, np.random.default_rng(seed))
    observed = []
    for x in matrices:
        means = x.mean(axis=1)
        gap = np.abs(means[:, None] - means[None, :])
        observed.append(gap - 1e-12 * np.maximum(1.0, gap))
    extreme = [np.zeros((m, m), dtype=np.int64) for _ in matrices]
    columns = np.arange(n)
    for chunk in chunks:  # draws × n × m: the system whose value goes to slot k
        for x, limit, counted in zip(matrices, observed, extreme, strict=True):
            slot_means = x[chunk, columns[None, :, None]].mean(axis=1)  # draws × m
            spread = slot_means.max(axis=1) - slot_means.min(axis=1)
            counted += (spread[:, None, None] >= limit[None]).sum(axis=0)
    found = []
    for counted in extreme:
        p = _p_value(counted, count, exact)
        np.fill_diagonal(p, np.nan)
        found.append(p)
    return found


def randomized_tukey_hsd_many(matrices: list[np.ndarray], permutations: int | None = 10_000,
                              seed: int = 0) -> list[np.ndarray]:
    """:func:`randomized_tukey_hsd` of each systems × queries matrix of ``matrices`` (several measures of
    the same systems and queries), each exactly as alone; the draws are made once for all of them when
    they have one shape and no NaN (drawing them is most of the work), else for each."""
    xs = [np.asarray(x, dtype=np.float64) for x in matrices]
    if len(xs) > 1 and len({x.shape for x in xs}) == 1 and not any(_untested(x).any() for x in xs):
        return _randomized_tukey_shared(xs, permutations, seed)
    return [randomized_tukey_hsd(x, permutations, seed) for x in xs]


# --- effect sizes, intervals, power --------------------------------------------------------------------

def _open_side(interval: np.ndarray, alternative: str) -> np.ndarray:
    """A one-sided interval's unbounded end: ``greater`` (low, ∞), ``less`` (−∞, high)."""
    _check_alternative(alternative)
    if alternative == "greater":
        interval[:, 1] = np.inf
    elif alternative == "less":
        interval[:, 0] = -np.inf
    return interval


def t_interval(differences: np.ndarray, level: float = 0.95, alternative: str = "two-sided") -> np.ndarray:
    """t confidence interval of the mean of every row: an (rows × 2) array (NaN for a row holding a NaN).
    Two-sided by default; ``greater`` gives (low, ∞) and ``less`` (−∞, high), the interval of the
    one-sided test (scipy's ``ttest_rel(...).confidence_interval()``), so that it excludes 0 exactly
    when that test's p-value is below 1 - ``level``. Pass :func:`differences` so that ties are zero
    differences."""
    from scipy import stats

    _check_alternative(alternative)
    d = np.atleast_2d(np.asarray(differences, dtype=np.float64))
    n = d.shape[1]
    if n < 2:  # no interval from one query or none (and no numpy warning for the mean of nothing)
        return np.full((len(d), 2), np.nan)
    quantile = (1 + level) / 2 if alternative == "two-sided" else level
    half = stats.t.ppf(quantile, n - 1) * d.std(axis=1, ddof=1) / np.sqrt(n)
    mean = d.mean(axis=1)
    interval = _open_side(np.stack([mean - half, mean + half], axis=1), alternative)
    interval[_untested(d)] = np.nan
    return interval


def bootstrap_interval(
    differences: np.ndarray, level: float = 0.95, samples: int | None = 10_000, seed: int = 0,
    alternative: str = "two-sided",
) -> np.ndarray:
    """Percentile bootstrap confidence interval of the mean of every row: an (rows × 2) array; the
    queries are resampled with replacement (all n^n resamples when at most ``samples``). Two-sided by
    default; ``greater`` gives (the 1 - ``level`` quantile, ∞), ``less`` (−∞, the ``level`` quantile).
    NaN for a row holding a NaN. Pass :func:`differences` so that ties are zero differences."""
    _check_alternative(alternative)
    d = np.atleast_2d(np.asarray(differences, dtype=np.float64))
    n = d.shape[1]
    if n < 2:
        return np.full((len(d), 2), np.nan)
    untested = _untested(d)
    d = np.where(untested[:, None], 0.0, d)
    chunks, _, _ = resample_chunks(n, samples, np.random.default_rng(seed))
    means = []
    for indices in chunks:  # each resample's mean from how often it draws each query
        drawn = indices + (np.arange(len(indices)) * n)[:, None]
        counts = np.bincount(drawn.ravel(), minlength=len(indices) * n).reshape(len(indices), n)
        means.append(d @ counts.T.astype(np.float64) / n)
    means = np.concatenate(means, axis=1)
    tail = 1 - level if alternative != "two-sided" else (1 - level) / 2
    interval = _open_side(np.quantile(means, [tail, 1 - tail], axis=1).T, alternative)
    interval[untested] = np.nan
    return interval


def effect_size(differences: np.ndarray) -> np.ndarray:
    """Standardised mean difference for paired data, d_z = mean(d) / sd(d) (sd with n-1; Cohen's
    d_z, Lakens 2013) per row; t = d_z · √n. NaN where every difference is equal or one is NaN.
    Pass :func:`differences` so that ties are zero differences."""
    d = np.atleast_2d(np.asarray(differences, dtype=np.float64))
    if d.shape[1] < 2:  # no spread from one query or none
        return np.full(len(d), np.nan)
    sd = d.std(axis=1, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((sd > 0) & ~_untested(d), d.mean(axis=1) / sd, np.nan)


def t_test_power(n: int, effect: float, alpha: float = 0.05, alternative: str = "two-sided") -> float:
    """Power of the paired t-test with n queries for a true standardised difference ``effect`` (d_z)."""
    from scipy import stats

    _check_alternative(alternative)
    df, shift = n - 1, math.sqrt(n) * effect
    if alternative == "two-sided":
        critical = stats.t.ppf(1 - alpha / 2, df)
        return float(stats.nct.sf(critical, df, shift) + stats.nct.cdf(-critical, df, shift))
    critical = stats.t.ppf(1 - alpha, df)
    return float(stats.nct.sf(critical, df, abs(shift)))


def topic_set_size(
    variance: float, min_difference: float, alpha: float = 0.05, power: float = 0.8,
    alternative: str = "two-sided",
) -> int:
    """The smallest number of queries with which a paired t-test detects a true mean difference of
    ``min_difference`` with probability ``power`` at level ``alpha``, the per-query differences
    having variance ``variance`` (Sakai 2016, topic set size design; Sakai estimates the variance of
    a difference as twice the residual variance of a two-way ANOVA, see :func:`residual_variance`).
    """
    if not variance > 0 or not min_difference > 0 or not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError("topic_set_size needs a positive variance and difference, alpha and power in (0, 1)")
    effect = min_difference / math.sqrt(variance)
    high = 2
    while t_test_power(high, effect, alpha, alternative) < power:
        high *= 2
        if high > 2**40:
            raise ValueError("topic_set_size: no number of queries reaches that power")
    low = max(2, high // 2)
    while low < high:  # the power grows with n: the first n that reaches it
        mid = (low + high) // 2
        if t_test_power(mid, effect, alpha, alternative) >= power:
            high = mid
        else:
            low = mid + 1
    return high


# --- multiple testing ----------------------------------------------------------------------------------

def correct(p_values: np.ndarray, method: str) -> np.ndarray:
    """p-values adjusted for multiple comparisons: 'holm', 'bonferroni', 'fdr_bh' (Benjamini-Hochberg)
    or 'none'. A NaN p-value (a test that could not be made) stays NaN and the others are corrected
    as if it were absent: m counts only the tests made, for every method alike."""
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; expected holm, bonferroni, fdr_bh or none")
    p = np.asarray(p_values, dtype=np.float64)
    out = p.copy()
    made = ~np.isnan(p)
    q = p[made]
    m = len(q)
    if method == "none" or m == 0:
        return out
    if method == "bonferroni":
        out[made] = np.minimum(q * m, 1.0)
    elif method == "holm":
        order = np.argsort(q, kind="stable")
        stepped = np.maximum.accumulate(q[order] * (m - np.arange(m)))
        adjusted = np.empty(m)
        adjusted[order] = np.minimum(stepped, 1.0)
        out[made] = adjusted
    else:  # Benjamini-Hochberg step-up: min over j >= rank of p_(j) · m / j, from the largest p down
        order = np.argsort(q, kind="stable")[::-1]
        stepped = np.minimum.accumulate(q[order] * m / np.arange(m, 0, -1))
        adjusted = np.empty(m)
        adjusted[order] = np.minimum(stepped, 1.0)
        out[made] = adjusted
    return out


# --- one entry point per kind of test ---------------------------------------------------------------------

#: Paired tests of two systems (one row of per-query values each): the names the API and command line take.
PAIRED_TESTS = ("t", "randomization", "bootstrap", "wilcoxon", "sign")
#: Tests of all pairs of many systems at once, family-wise over the pairs.
MULTI_TESTS = ("tukey", "randomized_tukey")
#: Tests whose p-values come from random draws (below 1e-4 they are printed as "< 1e-4").
RESAMPLED = ("randomization", "bootstrap", "randomized_tukey")

TEST_NAMES = {
    "t": "paired t-test", "randomization": "paired randomization test", "bootstrap": "paired bootstrap test",
    "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test", "tukey": "Tukey HSD",
    "randomized_tukey": "randomised Tukey HSD",
}


def paired_test(
    test: str, a: np.ndarray, b: np.ndarray, alternative: str = "two-sided",
    permutations: int | None = 10_000, seed: int = 0,
) -> np.ndarray:
    """p-values of ``test`` (one of :data:`PAIRED_TESTS`) for every row pair of ``a`` and ``b``
    (rows × queries): does A differ from B (``greater``: is A better; ``less``: is A worse)?
    ``permutations``: sign vectors or resamples of the randomization and bootstrap tests. Every test
    takes the :func:`differences` (ties are zero differences); a pair holding a NaN gets NaN."""
    a, b = np.atleast_2d(np.asarray(a, dtype=np.float64)), np.atleast_2d(np.asarray(b, dtype=np.float64))
    if test == "t":
        return paired_t_test(a, b, alternative)
    if test == "randomization":
        return randomization_test(differences(a, b), permutations, seed, alternative)
    if test == "bootstrap":
        return bootstrap_test(differences(a, b), permutations, seed, alternative)
    if test == "wilcoxon":
        return wilcoxon_test(a, b, alternative)
    if test == "sign":
        return sign_test(a, b, alternative)
    raise ValueError(f"unknown paired test {test!r}; expected one of {', '.join(PAIRED_TESTS)}")
