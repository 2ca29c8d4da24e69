"""Is a measure stable and discriminative on these runs, and how many queries does it need?

- :func:`stability` — Kendall's τ-b between system rankings on random halves of the queries
  (Voorhees & Buckley 2002 style);
- :func:`discriminative_power` — a significance test for every pair of runs, the share of pairs that
  differ at α and the achieved significance level (ASL) curve (Sakai 2006);
- :func:`topic_set_sizes` — queries a paired t-test needs for a given difference (Sakai 2016).

Each takes an :class:`~ir_measures_graded.experiments.Experiment` or its per-query table. They rank
and test runs by per-query values, so of an Experiment they judge only the measures it tests
(:attr:`~ir_measures_graded.experiments.Experiment.untested`: one rule with the comparison); the others
get a row of NaN whose ``note`` says why.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded import statistics
from ir_measures_graded.experiments import Experiment
from ir_measures_graded.experiments.comparison import wide
from ir_measures_graded.experiments.testing import TESTS, Testing, pairwise_p
from ir_measures_graded.meta.inputs import per_query_table

__all__ = ["stability", "discriminative_power", "topic_set_sizes", "query_halves", "DEFAULT_TESTING", "TESTS"]


def _matrix(table: pd.DataFrame, measure: str) -> tuple[list[str], np.ndarray]:
    """``(run names, runs × queries matrix)`` of one measure's per-query values (the comparison's
    :func:`~ir_measures_graded.experiments.comparison.wide`: one query order)."""
    values = wide(table, measure)
    return list(values.index), values.to_numpy(dtype=np.float64)


def _untested(given: Any) -> dict[str, str]:
    """What an Experiment does not test, and why (a bare per-query table: nothing)."""
    return dict(given.untested) if isinstance(given, Experiment) else {}


def query_halves(n_queries: int, samples: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``samples`` random splits of ``n_queries`` query positions into two disjoint halves of
    ``n_queries // 2`` each: two (samples × half) index arrays. The same seed gives the same splits."""
    order = np.argsort(np.random.default_rng(seed).random((samples, n_queries)), axis=1)  # a permutation per sample
    half = n_queries // 2
    return order[:, :half], order[:, half:2 * half]


def _half_means(values: np.ndarray, halves: np.ndarray) -> np.ndarray:
    """(samples × runs) means of ``values`` (runs × queries) over each row of query positions ``halves``."""
    mask = np.zeros((len(halves), values.shape[1]))
    np.put_along_axis(mask, halves, 1.0, axis=1)
    return mask @ values.T / halves.shape[1]  # rounding noise is left to the tolerance of the comparisons


def stability(table: Any, samples: int = 200, seed: int = 0) -> pd.DataFrame:
    """Kendall's τ-b between the system rankings on two random, disjoint halves of the queries.

    ``table``: an Experiment or its per-query table. One row per measure: the mean, standard deviation
    and minimum of τ over ``samples`` splits, and the mean share of run pairs whose order differs
    between the halves (the swap rate). Every measure is split the same way (the splits depend on
    ``seed`` and the number of queries only), and half-means that differ by less than
    :func:`statistics.tolerance` are ties.
    """
    untested = _untested(table)
    table = per_query_table(table)
    rows = []
    for measure in pd.unique(table["measure"]):
        runs, values = _matrix(table, measure)
        n_queries = values.shape[1]
        if measure in untested or len(runs) < 2 or n_queries < 2 or np.isnan(values).any():
            rows.append({"measure": measure, "samples": 0, "tau_mean": np.nan, "tau_sd": np.nan,
                         "tau_min": np.nan, "swap_rate": np.nan, "note": untested.get(measure, "")})
            continue
        first, second = query_halves(n_queries, samples, seed)
        a, b = _half_means(values, first), _half_means(values, second)  # samples × runs
        tol = statistics.tolerance(values)
        taus = statistics.kendall_tau_rows(a, b, tol)
        swaps = statistics.swaps(a, b, tol)  # the agreement's count, with the ties of the per-query values
        taus = taus[~np.isnan(taus)]  # tau is undefined where one half ties every run (runs scoring the same)
        rows.append({"measure": measure, "samples": samples,
                     "tau_mean": float(taus.mean()) if len(taus) else np.nan,
                     "tau_sd": float(taus.std()) if len(taus) else np.nan,
                     "tau_min": float(taus.min()) if len(taus) else np.nan, "swap_rate": float(swaps.mean()),
                     "note": ""})
    return pd.DataFrame(rows, columns=["measure", "samples", "tau_mean", "tau_sd", "tau_min", "swap_rate", "note"])


def _pairs(table: pd.DataFrame, measure: str) -> tuple[list[tuple[str, str]], np.ndarray]:
    """The run pairs of one measure (``triu_indices`` order) and its runs × queries matrix."""
    runs, values = _matrix(table, measure)
    i, j = np.triu_indices(len(runs), k=1)
    return [(runs[a], runs[b]) for a, b in zip(i, j, strict=True)], values


#: How :func:`discriminative_power` tests the pairs unless told: Sakai's paired randomization test of each
#: pair, uncorrected, at alpha 0.05 with 10,000 sign vectors.
DEFAULT_TESTING = Testing(test="randomization", correction="none")


def discriminative_power(table: Any, testing: Testing | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Paired tests between every pair of runs, per measure (Sakai 2006).

    ``testing``: a :class:`~ir_measures_graded.experiments.testing.Testing` (default
    :data:`DEFAULT_TESTING`), two-sided. Its ``test``: a paired test (``randomization``, ``bootstrap`` —
    Sakai's —, ``t``, ``wilcoxon``, ``sign``) of every pair, its p-values corrected by its
    ``correction`` across the pairs of a measure (``none``: Sakai's), or a test of all pairs at once
    (``tukey``: Tukey's HSD with the queries as blocks, ``randomized_tukey``: Carterette's randomised
    Tukey HSD), whose p-values are already family-wise over the pairs: the leaderboard's test
    (:func:`~ir_measures_graded.experiments.testing.pairwise_p`). Returns ``(summary, pairs)``:
    ``summary`` has one row per measure with the number of run pairs and the share significant at its
    ``alpha`` (the discriminative power); ``pairs`` has one row per measure and run pair with the mean
    difference (run_a − run_b), the p-value and the pair's position in the measure's ASL curve
    (``asl_rank``: 1 = smallest p-value).
    """
    testing = Testing.of(testing or DEFAULT_TESTING).check_pairs("the discriminative power")
    test, alpha = testing.test, testing.alpha
    untested = _untested(table)
    table = per_query_table(table)
    summary, rows = [], []
    for measure in pd.unique(table["measure"]):
        pairs, values = _pairs(table, measure)
        if measure in untested or not pairs or np.isnan(values).any():
            summary.append({"measure": measure, "pairs": len(pairs), "test": test, "alpha": alpha,
                            "significant": 0, "discriminative_power": np.nan, "note": untested.get(measure, "")})
            continue
        i, j = np.triu_indices(len(values), k=1)
        p = pairwise_p([values], testing)[0][i, j]
        ranks = np.empty(len(p), dtype=np.int64)
        ranks[np.argsort(p, kind="stable")] = np.arange(1, len(p) + 1)
        for (run_a, run_b), delta, pk, rank in zip(pairs, (values[i] - values[j]).mean(axis=1), p, ranks, strict=True):
            rows.append({"measure": measure, "run_a": run_a, "run_b": run_b, "delta": float(delta),
                         "test": test, "p_value": float(pk), "asl_rank": int(rank)})
        significant = int(testing.significant(p).sum())
        summary.append({"measure": measure, "pairs": len(pairs), "test": test, "alpha": alpha,
                        "significant": significant, "discriminative_power": significant / len(pairs), "note": ""})
    return (pd.DataFrame(summary, columns=["measure", "pairs", "test", "alpha", "significant", "discriminative_power",
                                           "note"]),
            pd.DataFrame(rows, columns=["measure", "run_a", "run_b", "delta", "test", "p_value", "asl_rank"]))


def topic_set_sizes(table: Any, min_difference: float = 0.05, power: float = 0.8,
                    testing: Testing | None = None) -> pd.DataFrame:
    """How many queries a collection needs, per measure, for a paired t-test to detect a true mean
    difference of ``min_difference`` between two runs with probability ``power`` at the ``alpha`` and
    with the ``alternative`` of ``testing`` (a :class:`~ir_measures_graded.experiments.testing.Testing`;
    default 0.05, two-sided) (Sakai 2016): the variance of a difference is estimated as twice the
    residual variance of a two-way ANOVA (runs × queries) on the observed per-query values."""
    testing = Testing.of(testing)
    alpha, alternative = testing.alpha, testing.alternative
    untested = _untested(table)
    table = per_query_table(table)
    rows = []
    for measure in pd.unique(table["measure"]):
        _, values = _matrix(table, measure)
        variance, _ = (statistics.residual_variance(values) if values.shape[0] > 1 and measure not in untested
                       else (np.nan, 0))
        needed = (statistics.topic_set_size(2 * variance, min_difference, alpha, power, alternative)
                  if variance > 0 else np.nan)
        rows.append({"measure": measure, "queries": values.shape[1], "residual_variance": variance,
                     "min_difference": min_difference, "alpha": alpha, "power": power, "queries_needed": needed,
                     "note": untested.get(measure, "")})
    result = pd.DataFrame(rows, columns=["measure", "queries", "residual_variance", "min_difference", "alpha",
                                         "power", "queries_needed", "note"])
    result["queries_needed"] = result["queries_needed"].astype("Int64")
    return result


