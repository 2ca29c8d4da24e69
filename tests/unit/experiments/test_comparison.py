"""Every run against a baseline (:meth:`Experiment.compare`): the delta, intervals, effect size,
wins/ties/losses and p-values against the statistics computed from the per-query table, every paired
test, the corrections, and a pair with an undefined per-query value left untested."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ir_measures_graded import muMAP, statistics
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import experiment, tables
from ir_measures_graded.sample import graded_sample
from support.chosen_values import chosen, hits_of


@pytest.fixture(scope="module")
def sample_experiment():
    qrels, runs = graded_sample()
    return experiment(qrels, runs, ["muMAP", "nDCG@10", "P@5"])


@pytest.fixture(scope="module")
def sample_table(sample_experiment):
    return sample_experiment.per_query


def wide(table: pd.DataFrame, measure: str) -> dict[str, np.ndarray]:
    """One measure's per-query values of each run, queries in one order."""
    of = table[table["measure"] == measure].pivot(index="query_id", columns="run", values="value")
    return {run: of[run].to_numpy() for run in of.columns}


def test_comparison_against_a_baseline():
    qrels, runs = graded_sample()
    evaluated = experiment(qrels, runs, [muMAP])
    result = evaluated.compare("random", correction="holm").table.set_index("run")
    assert np.isnan(result.loc["random", "p_value"])
    assert result.loc["strong", "delta"] == pytest.approx(result.loc["strong", "value"] - result.loc["random", "value"])
    raw = result.loc[["strong", "weak"], "p_value"].to_numpy()
    assert np.allclose(result.loc[["strong", "weak"], "p_adjusted"], statistics.correct(raw, "holm"))
    with pytest.raises(GradedInputError, match="baseline"):
        evaluated.compare("nope")


def test_compare_intervals_effect_sizes_and_counts(sample_experiment, sample_table):
    result = sample_experiment.compare("random", test="t", alternative="greater").table
    d = wide(sample_table, "P@5")["weak"] - wide(sample_table, "P@5")["random"]
    row = result[(result["run"] == "weak") & (result["measure"] == "P@5")].iloc[0]
    # a one-sided test, its one-sided intervals (#50): (low, ∞)
    assert [row.ci_low, row.ci_high] == pytest.approx(statistics.t_interval(d[None], 0.95, "greater")[0], abs=1e-12)
    assert [row.boot_low, row.boot_high] == pytest.approx(
        statistics.bootstrap_interval(d[None], alternative="greater")[0], abs=1e-12)
    assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1), abs=1e-12)
    assert (row.wins, row.ties, row.losses) == (int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))
    two_sided = sample_experiment.compare("random", test="t").table.set_index(["run", "measure"])
    assert row.p_value == pytest.approx(two_sided.loc[("weak", "P@5"), "p_value"] / 2, rel=1e-9)
    both = sample_experiment.compare("random", family="all", correction="bonferroni").table
    tested = both["p_value"].notna()
    assert np.allclose(both.loc[tested, "p_adjusted"], np.minimum(1, both.loc[tested, "p_value"] * tested.sum()))
    qrels, runs = graded_sample()
    five = experiment(qrels[qrels["query_id"].isin(["S01", "S02", "S03", "S04", "S05"])], runs,
                      ["muMAP", "nDCG@10", "P@5"])
    exact = five.compare("random", test="randomization", permutations=None).table
    assert (exact["p_value"].dropna() * 2**5).round(9).apply(float.is_integer).all()  # exact: k / 2^5
    assert sample_experiment.compare("random", permutations=None).table["boot_low"].notna().sum() == 6  # 30 queries
    with pytest.raises(Exception, match="unknown family"):
        sample_experiment.compare("random", family="measures")


@pytest.mark.parametrize("test", statistics.PAIRED_TESTS)
def test_every_paired_test_runs_against_a_baseline(sample_experiment, sample_table, test):
    result = sample_experiment.compare("weak", test=test, permutations=500).table.set_index(["run", "measure"])
    values = wide(sample_table, "muMAP")
    expected = statistics.paired_test(test, values["strong"], values["weak"], permutations=500)[0]
    assert result.loc[("strong", "muMAP"), "p_value"] == pytest.approx(expected, abs=1e-12)


def test_a_comparison_gives_an_untested_pair_no_p_value_mark_or_counts():
    rng = np.random.default_rng(7)
    hits = {run: hits_of(rng.random(8) / 2 + shift, 20) for run, shift in (("base", 0), ("good", 0.5), ("odd", 0.5))}
    evaluated = chosen(hits)
    undefined = evaluated.per_query.copy()
    undefined.loc[(undefined["run"] == "odd") & (undefined["query_id"] == "q3"), "value"] = np.nan
    evaluated.per_query = undefined  # a measure undefined on one query (no measure bundled here is)
    for test in statistics.PAIRED_TESTS:
        result = evaluated.compare("base", test=test, permutations=200).table.set_index("run")
        assert np.isnan(result.loc["odd", "p_value"]) and np.isnan(result.loc["odd", "p_adjusted"]), test
        assert (result.loc["odd", ["wins", "ties", "losses"]] == 0).all(), test
        assert result.loc["good", "p_value"] < 0.05, test
        paper, _ = tables.paper_table(result.reset_index())
        assert not paper.set_index("run").loc["odd", "P@20"].endswith(("†", "‡"))
