"""Defects of the meta-evaluation fixed in issue 24, each pinned by a test that failed before the fix."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import ir_measures_graded
from ir_measures_graded import meta


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


def test_scale_dependence_reports_tau_ap_b():
    from ir_measures_graded.sample import graded_sample

    qrels, runs = graded_sample()
    table = meta.scale_dependence(ir_measures_graded.experiment(qrels, runs, ["muMAP"]), ["scale:2"])
    assert "tau_ap_b" in table.columns and "tau_ap" not in table.columns
    assert table["tau_ap_b"].iloc[0] == 1.0
