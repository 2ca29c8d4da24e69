"""A declared pool (#51): the organiser says which runs were pooled, and to which depth; leave-one-out then
re-evaluates each pooled run without what it alone brought among the pooled runs, the others (the new
systems) are not left out. Against a plain re-evaluation on filtered qrels, written here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ir_measures_graded as img
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.organiser import pool
from ir_measures_graded.sample import data_path, shared_task
from support.cli import error_of, run_main
from support.organiser import explicit_bounds

MEASURES = ["nDCNG@10", "AP", "P@5"]
POOLED = ["team1-1", "team1-3", "team2-2"]


@pytest.fixture(scope="module")
def task():
    return shared_task(n_runs=6, n_queries=8, depth=5, retrieved=30, seed=11)


@pytest.fixture(scope="module")
def exp(task):
    qrels, runs = task
    return img.experiment(qrels, runs, MEASURES)


def _top(run: pd.DataFrame, depth: int) -> set[tuple[str, str]]:
    """The run's top ``depth`` per query in ir_measures' order (score as float32 descending, ties by doc id
    descending)."""
    ordered = run.assign(key=run["score"].astype(np.float32)).sort_values(
        ["query_id", "key", "doc_id"], ascending=[True, False, False])
    ordered = ordered[ordered.groupby("query_id").cumcount() < depth]
    return set(zip(ordered["query_id"], ordered["doc_id"], strict=True))


def test_a_declared_pool_against_a_plain_re_evaluation(task, exp):
    qrels, runs = task
    found = pool(exp, depth=5, pooled=POOLED)
    judged = set(zip(qrels["query_id"], qrels["doc_id"], strict=True))
    tops = {r: _top(runs[r], 5) & judged for r in POOLED}
    for run in runs:
        rows = found.table[found.table["run"] == run].set_index("measure")
        if run not in POOLED:  # a new system: nothing of its own to leave out
            assert not rows["pooled"].any() and rows["value_without"].isna().all()
            continue
        assert rows["pooled"].all()
        alone = tops[run] - set().union(*(tops[r] for r in POOLED if r != run))
        keep = [(q, d) not in alone for q, d in zip(qrels["query_id"], qrels["doc_id"], strict=True)]
        again = img.experiment(qrels[keep], {run: runs[run]}, MEASURES).aggregates.set_index("measure")["value"]
        for m in MEASURES:
            assert rows.at[m, "value_without"] == pytest.approx(again[m], abs=1e-12)
        assert found.contributions[found.contributions["group"] == run]["unique"].sum() == len(alone)
    # only the pooled runs contributed; the reusability figure is over them
    assert set(found.contributions["group"]) <= set(POOLED)
    assert set(found.reusability["run"]) <= set(POOLED)
    assert "Declared pool: team1-1, team1-3, team2-2" in found.to_text()
    assert "pooled" in found.display().columns


def test_a_declared_pool_is_not_the_inferred_one(exp):
    inferred, declared = pool(exp, depth=5), pool(exp, depth=5, pooled=POOLED)
    assert inferred.table["pooled"].all() and "pooled" not in inferred.display().columns
    mine = declared.contributions.groupby("group")["unique"].sum()
    theirs = inferred.contributions.groupby("group")["unique"].sum()
    assert all(mine[r] >= theirs[r] for r in POOLED) and any(mine[r] > theirs[r] for r in POOLED)


def test_a_declared_pool_infers_its_depth_from_the_pooled_runs_only(task):
    qrels, runs = task
    first = runs["team1-1"]
    tops = first.groupby("query_id", as_index=False)["score"].max()
    late = pd.concat([first, tops.assign(doc_id="never-judged", score=tops["score"] + 1)])  # an unjudged doc first
    pooled = {**runs, "late": late}
    exp = img.experiment(qrels, pooled, ["AP"])
    assert set(pool(exp, pooled=list(runs)).depths["depth"]) == {5}
    assert set(pool(exp).depths["depth"]) == {0}  # the new run's unjudged documents limit the inferred depth


def test_a_declared_pool_refuses_what_it_cannot_name(exp):
    for given, message in [([], "names no run"), (["nobody"], "nobody")]:
        with pytest.raises(GradedInputError, match=message) as error:
            pool(exp, pooled=given)
        assert "\n" not in str(error.value)


def test_the_declared_pool_on_the_command_line(capsys, tmp_path):
    sample = data_path("graded_sample")
    qrels, runs = str(sample / "qrels.txt"), [str(sample / f"{n}.run") for n in ("strong", "weak", "random")]
    exp = img.experiment(qrels, runs, ["AP"])
    expected = pool(exp, depth=10, pooled=["strong.run", "weak.run"]).to_text()
    args = ["leaderboard", qrels, *runs, "-m", "AP", "--sections", "pool", "--pool-depth", "10"]
    out, _ = run_main(capsys, *args, "--pooled", "strong.run", "weak.run")
    assert out == expected
    listed = tmp_path / "pooled.txt"
    listed.write_text("strong.run\nweak.run\n")
    out, _ = run_main(capsys, *args, "--pooled", str(listed))
    assert out == expected
    assert "nobody" in error_of(capsys, *args, "--pooled", "nobody")


BOUNDED = ["nDCNG@10", "AP", "P@5", "muMAP", "nDCG@10"]


def test_bounds_of_a_declared_pool_leave_each_pooled_run_out(task):
    """A pooled run is bounded on the qrels without what it alone brought (among the pooled runs), its
    unjudged documents then added at the floor and at the topic's top grade; a new system as it is."""
    from ir_measures_graded.organiser import bounds

    qrels, runs = task
    exp = img.experiment(qrels, runs, BOUNDED)
    found = bounds(exp, pooled=POOLED, depth=5).table.set_index(["run", "measure"])
    top = qrels.groupby("query_id")["relevance"].max()
    judged = set(zip(qrels["query_id"], qrels["doc_id"], strict=True))
    tops = {r: _top(runs[r], 5) & judged for r in POOLED}
    for name, run in runs.items():  # the qrels without what it alone brought, its unjudged documents then judged
        alone = tops[name] - set().union(*(tops[r] for r in POOLED if r != name)) if name in POOLED else set()
        kept = qrels[[(q, d) not in alone for q, d in zip(qrels["query_id"], qrels["doc_id"], strict=True)]]
        for column, values in explicit_bounds(kept, run, top, BOUNDED).items():
            for measure, value in values.items():
                assert found.loc[(name, measure), column] == pytest.approx(value, abs=1e-12), (name, column, measure)
        assert found.loc[(name, "AP"), "pooled"] == (name in POOLED)
    plain = bounds(exp).table.set_index(["run", "measure"])
    for name in runs:  # a new system is bounded as without a declared pool
        if name not in POOLED:
            assert np.allclose(found.loc[name, ["floor", "top"]], plain.loc[name, ["floor", "top"]])


def test_the_declared_pool_bounds_on_the_command_line(capsys):
    from ir_measures_graded.organiser import bounds

    sample = data_path("graded_sample")
    qrels, runs = str(sample / "qrels.txt"), [str(sample / f"{n}.run") for n in ("strong", "weak", "random")]
    exp = img.experiment(qrels, runs, ["AP"])
    out, _ = run_main(capsys, "leaderboard", qrels, *runs, "-m", "AP", "--sections", "bounds", "--pool-depth", "10",
                      "--pooled", "strong.run", "weak.run")
    assert out == bounds(exp, pooled=["strong.run", "weak.run"], depth=10).to_text()


def test_a_topic_whose_judgments_one_pooled_run_alone_brought_is_still_bounded():
    """Every judgment of topic 2 came from run a alone: bounded as if a had not contributed, topic 2 has only
    a's unjudged documents, at the floor and at the top grade; ir_measures' AP as ours (one definition)."""
    from ir_measures_graded.organiser import bounds

    qrels = pd.DataFrame({"query_id": ["1", "1", "1", "2"], "doc_id": ["x", "y", "w", "p"], "relevance": [1, 0, 1, 2]})
    runs = {"a": pd.DataFrame({"query_id": ["1", "1", "1", "2", "2"], "doc_id": ["x", "y", "w", "p", "q"],
                               "score": [3.0, 2.0, 1.0, 2.0, 1.0]}),
            "b": pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["y", "x", "z"], "score": [2.0, 1.0, 1.0]})}
    exp = img.experiment(qrels, runs, ["AP", "nDCNG@10"])
    found = bounds(exp, pooled=["a", "b"], depth=1).table.set_index(["run", "measure"])
    kept = qrels[~qrels["doc_id"].isin(["x", "p"])]  # a's top 1 (b's is y and z): x, and p, topic 2's one judgment
    top = qrels.groupby("query_id")["relevance"].max()
    for column, values in explicit_bounds(kept, runs["a"], top, ["AP", "nDCNG@10"]).items():
        for measure, value in values.items():
            assert found.loc[("a", measure), column] == pytest.approx(value, abs=1e-12), (column, measure)
