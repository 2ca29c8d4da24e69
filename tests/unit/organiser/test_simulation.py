"""Pool simulation (#51 item 5): the fast table against a slow, obviously correct reference (a pool built per
strategy and budget, the qrels filtered with pandas, a fresh experiment, scipy's Kendall tau), its invariants,
its views, and bad input in one line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ir_measures_graded as img
from ir_measures_graded.experiments.evaluation import Reading
from ir_measures_graded.experiments.rejudging import Rejudging
from ir_measures_graded.organiser.simulation import simulate_pools
from ir_measures_graded.pooling import STRATEGIES, build_pool
from ir_measures_graded.sample import graded_sample, shared_task
from support.cli import error_of, run_main
from support.paths import SAMPLE

MEASURES = ["muMAP", "nDCNG@10", "nDCG@10"]  # ours (the core) and ir_measures' (pytrec_eval): both re-evaluations


def quiet(message: str) -> None:
    pass


@pytest.fixture(scope="module")
def task():
    qrels, runs = shared_task(n_runs=8, n_queries=12, depth=10, seed=5)
    return qrels, runs, img.experiment(qrels, runs, MEASURES, warn=quiet)


def reference(qrels: pd.DataFrame, runs: dict, strategy: str, budget: int, seed: int) -> dict:
    """One strategy and budget the slow way: the pool built at that budget, the qrels kept where pooled
    (pandas), every run evaluated afresh, scipy's tau-b, ranks and bias written out."""
    pool = build_pool(runs, strategy, budget=budget, judgments=qrels, seed=seed)
    pooled = pool.table.rename(columns={"topic": "query_id", "document": "doc_id"})[["query_id", "doc_id"]]
    kept = qrels.merge(pooled, on=["query_id", "doc_id"], how="inner")
    full = img.experiment(qrels, runs, MEASURES, warn=quiet).aggregates
    again = img.experiment(kept, runs, MEASURES, warn=quiet).aggregates
    found = {}
    for m in MEASURES:
        a = full[full["measure"] == m].set_index("run")["value"].reindex(list(runs)).to_numpy()
        b = again[again["measure"] == m].set_index("run")["value"].reindex(list(runs)).to_numpy()
        rank_a, rank_b = stats.rankdata(-a, method="min"), stats.rankdata(-b, method="min")
        found[m] = {"tau": stats.kendalltau(a, b, variant="b").statistic, "bias": float(np.mean(b - a)),
                    "largest_rank_change": int(np.max(np.abs(rank_a - rank_b))), "values": (a, b)}
    grades = {g: int((kept["relevance"] == g).sum()) for g in sorted(qrels["relevance"].unique()) if g >= 1}
    return {"measures": found, "found": grades, "pooled": len(pool), "kept": len(kept),
            "relevant": int((kept["relevance"] >= 1).sum())}


@pytest.mark.slow
def test_the_table_is_the_slow_reference(task):
    qrels, runs, exp = task
    budgets = [2, 5, 10]
    simulated = simulate_pools(exp, budgets=budgets, seed=3)
    table, found = simulated.table.set_index(["strategy", "budget", "measure"]), simulated.found
    assert len(table) == len(STRATEGIES) * len(budgets) * len(MEASURES)
    for strategy in STRATEGIES:
        for budget in budgets:
            ref = reference(qrels, runs, strategy, budget, seed=3)
            for m, expected in ref["measures"].items():
                row = table.loc[(strategy, budget, m)]
                assert (row["pooled"], row["kept"], row["relevant"]) == (ref["pooled"], ref["kept"], ref["relevant"])
                assert row["tau"] == pytest.approx(expected["tau"], abs=1e-12), (strategy, budget, m)
                assert row["tau_ap"] == pytest.approx(img.organiser.simulation.statistics.tau_ap_b(
                    *expected["values"]), abs=1e-12)
                assert row["bias"] == pytest.approx(expected["bias"], abs=1e-12)
                assert row["largest_rank_change"] == expected["largest_rank_change"]
            of = found[(found["strategy"] == strategy) & (found["budget"] == budget)]
            assert dict(zip(of["grade"], of["found"], strict=True)) == ref["found"]
    assert (simulated.table["tau"] < 1).any()  # the budgets are small enough to change the leaderboard


def test_an_unlimited_budget_keeps_every_judgment_of_a_pool(task):
    _, _, exp = task  # the qrels are the runs' top-10 pool: every judgment is of a retrieved document
    simulated = simulate_pools(exp, budgets=[10_000])
    assert (simulated.table["tau"] == 1).all() and (simulated.table["tau_ap"] == 1).all()
    assert (simulated.table["bias"].abs() < 1e-12).all()
    assert (simulated.table["largest_rank_change"] == 0).all()
    assert (simulated.found["found"] == simulated.found["in_qrels"]).all()


def test_found_never_exceeds_the_qrels_and_grows_with_the_budget():
    qrels, runs = graded_sample()
    exp = img.experiment(qrels, runs, ["muMAP"])
    found = simulate_pools(exp, budgets=[1, 3, 10, 40], seed=1).found
    in_qrels = qrels[qrels["relevance"] >= 1].groupby("relevance").size()
    assert (found["in_qrels"].to_numpy() == in_qrels.reindex(found["grade"]).to_numpy()).all()
    assert (found["found"] <= found["in_qrels"]).all()
    growing = found.sort_values("budget").groupby(["strategy", "grade"])["found"].apply(
        lambda f: bool(np.all(np.diff(f.to_numpy()) >= 0)))
    assert growing.all()


def test_the_same_seed_gives_the_same_table_and_views():
    qrels, runs = graded_sample()
    exp = img.experiment(qrels, runs, ["nDCNG@10", "nDCG@10"])
    first = simulate_pools(exp, strategies=["mtf", "bandit"], budgets=[2, 4], seed=7)
    again = simulate_pools(exp, strategies=["mtf", "bandit"], budgets=[2, 4], seed=7)
    pd.testing.assert_frame_equal(first.table, again.table)
    pd.testing.assert_frame_equal(first.found, again.found)
    assert list(first.display().columns[-4:]) == ["found 1", "found 2", "found 3", "found 4"]
    text, latex, tsv = first.to_text(), first.to_latex(), first.render("tsv")
    assert text.startswith("Pool simulation") and "bias: the mean over the runs" in text
    assert "\\begin{table}" in latex and "found 4" in latex
    assert tsv.splitlines()[0].split("\t") == list(first.table.columns)


def test_the_figure_has_a_line_per_strategy_one_column_wide(tmp_path):
    pytest.importorskip("matplotlib")
    qrels, runs = graded_sample()
    exp = img.experiment(qrels, runs, ["muMAP", "nDCG@10"])
    simulated = simulate_pools(exp, strategies=["depth", "rbp", "bandit"], budgets=[2, 5, 10])
    fig = simulated.figure(tmp_path / "tau.png", measure="nDCG@10")
    assert (tmp_path / "tau.png").stat().st_size > 0
    assert fig.get_size_inches()[0] == pytest.approx(3.5)
    lines = fig.axes[0].get_lines()
    assert [line.get_label() for line in lines] == ["depth", "rbp", "bandit"]
    assert all(list(line.get_xdata()) == [2, 5, 10] for line in lines)
    with pytest.raises(img.GradedInputError, match="measure AP is not in the simulation"):
        simulated.figure(measure="AP")


@pytest.mark.parametrize(("options", "message"), [
    ({"budgets": [0]}, "a budget is a whole number of documents per topic, at least 1; got 0"),
    ({"budgets": [10, -5]}, "at least 1; got -5"),
    ({"budgets": [2.5]}, "got 2.5"),
    ({"budgets": []}, "no budget given"),
    ({"strategies": ["depth", "fifo"]}, "unknown pooling strategy 'fifo': one of depth, rbp, rrf, mtf, bandit"),
    ({"strategies": []}, "no strategy given"),
])
def test_bad_input_is_one_clear_line(options, message):
    qrels, runs = graded_sample()
    exp = img.experiment(qrels, runs, ["muMAP"])
    with pytest.raises(img.GradedInputError) as caught:
        simulate_pools(exp, **options)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_subset_of_the_judgments_is_not_changed_by_filling_the_unjudged():
    qrels, runs = graded_sample()
    exp = img.experiment(qrels, runs, ["nDCG@10", "P@10"])
    prepared = Rejudging(exp, exp.measures)
    keep = np.zeros(len(prepared.judgments.query), dtype=bool)
    keep[::5] = True
    before = prepared.evaluate(0, keep=keep)
    filled = prepared.evaluate(0, keep=keep, fill=prepared.top)
    assert filled != before
    assert prepared.evaluate(0, keep=keep) == before


def test_the_command_writes_the_api_table(capsys, tmp_path):
    qrels, runs = str(SAMPLE / "qrels.txt"), [str(SAMPLE / f"{n}.run") for n in ("strong", "weak", "random")]
    out, _ = run_main(capsys, "simulate", qrels, *runs, "-m", "muMAP", "nDCG@10", "--budgets", "3,6",
                      "--strategies", "rbp", "mtf", "--seed", "2", "-o", "tsv", "--figure", str(tmp_path / "t.png"))
    exp = img.experiment(qrels, runs, ["muMAP", "nDCG@10"])
    assert out == simulate_pools(exp, strategies=["rbp", "mtf"], budgets=[3, 6], seed=2).render("tsv", 4)
    assert (tmp_path / "t.png").stat().st_size > 0
    # --pool-depth is the pool's depth k; -M (as in every subcommand that evaluates) trec_eval's depth of the runs
    out, _ = run_main(capsys, "simulate", qrels, *runs, "-m", "muMAP", "--budgets", "5", "--strategies", "depth",
                      "--pool-depth", "5", "-M", "20", "-o", "tsv")
    cut = img.experiment(qrels, runs, ["muMAP"], reading=Reading(depth=20))
    assert out == simulate_pools(cut, strategies=["depth"], budgets=[5], depth=5).render("tsv", 4)
    assert out != simulate_pools(exp, strategies=["depth"], budgets=[5], depth=5).render("tsv", 4)


@pytest.mark.parametrize(("args", "message"), [
    (["--budgets", "10,0"], "--budgets 10,0: a budget is at least 1 document per topic; got 0"),
    (["--budgets", "ten"], "'ten' is not a whole number"),
    (["--strategies", "fifo"], "unknown pooling strategy 'fifo': one of depth, rbp, rrf, mtf, bandit"),
    (["--pool-depth", "0"], "--pool-depth must be a whole number of at least 1; got 0"),
])
def test_the_commands_bad_input_is_one_line(capsys, args, message):
    runs = [str(SAMPLE / f"{n}.run") for n in ("strong", "weak")]
    assert message in error_of(capsys, "simulate", str(SAMPLE / "qrels.txt"), *runs, "-m", "muMAP", *args)


def test_budgets_past_the_pools_end_are_evaluated_once(monkeypatch):
    qrels, runs = graded_sample()
    exp = img.experiment(qrels, runs, ["muMAP"])
    calls = []
    evaluate = Rejudging.evaluate
    monkeypatch.setattr(Rejudging, "evaluate", lambda self, i, **kw: calls.append(i) or evaluate(self, i, **kw))
    simulated = simulate_pools(exp, strategies=["depth"], budgets=[5, 40, 100])  # depth 10: at most 30 per topic
    assert sorted(calls) == [0, 0, 1, 1, 2, 2]  # budget 40 and 100 keep the same judgments
    rows = simulated.table.set_index("budget").drop(columns="strategy")
    pd.testing.assert_series_equal(rows.loc[40], rows.loc[100], check_names=False)
