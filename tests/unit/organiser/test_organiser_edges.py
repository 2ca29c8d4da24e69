"""The organiser's view at its edges (#51): a run none of whose documents is judged (passage ids against
document qrels), topics every run scores 0 on, empty qrels, more groups than letters, measures given as one
string or none, a ``--groups`` file that does not exist."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ir_measures_graded as img
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments.testing import Testing as Options  # pytest would collect a "Test..." name
from ir_measures_graded.organiser import agreement, bounds, compact_letters, leaderboard, pool, topics
from ir_measures_graded.organiser.letters import group_names
from ir_measures_graded.sample import data_path, shared_task
from support.cli import error_of, run_main

QUICK = Options(test="randomized_tukey", permutations=200)


@pytest.fixture(scope="module")
def passages():
    """Five runs of a shared task and one whose ids are of another level: none of its documents is judged."""
    qrels, runs = shared_task(n_runs=5, n_queries=6, depth=5, retrieved=20, seed=3)
    lost = next(iter(runs.values())).assign(doc_id=lambda r: r["doc_id"] + "#p1")
    return qrels, {**runs, "passages": lost}


@pytest.fixture(scope="module")
def mixed(passages):
    qrels, runs = passages
    with pytest.warns(UserWarning, match="none of its"):
        return img.experiment(qrels, runs, ["nDCNG@10", "AP"])


def test_a_run_with_no_judged_document_is_named_in_every_view(mixed):
    views = [leaderboard(mixed, testing=QUICK), agreement(mixed, testing=QUICK), topics(mixed), pool(mixed),
             bounds(mixed)]
    for view in views:
        for text in (view.to_text(), view.to_markdown(), view.to_latex()):
            assert "No judged document: passages" in text, type(view).__name__


def test_a_run_with_no_judged_document_leaves_the_pool_depth_alone(passages, mixed):
    qrels, runs = passages
    without = img.experiment(qrels, {k: v for k, v in runs.items() if k != "passages"}, ["nDCNG@10", "AP"])
    found, expected = pool(mixed), pool(without)
    assert found.depths["depth"].tolist() == expected.depths["depth"].tolist()
    assert (found.depths["depth"] > 0).all()
    assert found.notes[0] == expected.notes[0]  # the same judgments in the pool, the same contributed alone
    assert found.contributions.equals(expected.contributions)


def test_a_run_with_no_judged_document_has_no_bounds(mixed):
    found = bounds(mixed)
    rows = found.table[found.table["run"] == "passages"]
    assert rows[["floor", "top", "low", "high"]].isna().all().all() and rows["overlaps"].isna().all()
    assert "no judged document" in found.to_text()
    # the other rows' intervals with -p decimals, as every number shown
    shown = found.to_text(places=3)
    for value in found.table.loc[found.table["run"] != "passages", ["floor", "top"]].to_numpy().ravel():
        assert repr(float(value)) not in shown or len(repr(float(value))) <= 5
    # nor does it overlap anyone else's interval
    others = found.table[found.table["run"] != "passages"]
    assert (others["overlaps"] <= len(mixed.runs) - 2).all()


def test_a_run_with_no_judged_document_is_no_worst_query(passages):
    qrels, runs = passages
    with pytest.warns(UserWarning):
        exp = img.experiment(qrels, runs, ["nDCNG@10"], baseline="team1-2")
    report = img.report(exp, leaderboard=True, testing=Options(permutations=200))
    from ir_measures_graded.reports.page import per_query_sections

    worst = per_query_sections(report)[0]["worst"]
    assert worst and all(w["run"] != "passages" for w in worst)
    html = report.html()
    assert "No judged document: passages" in html


def test_topics_every_run_scores_zero_on_name_no_best_or_worst_run():
    qrels = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "c", "d"], "relevance": [2, 0, 1, 0]})
    runs = {name: pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": [first, "z", "d"], "score": [2.0, 1.0, 1.0]})
            for name, first in (("one", "a"), ("two", "z2"), ("three", "b"))}
    exp = img.experiment(qrels, runs, ["nDCNG@10"])
    found = topics(exp)
    zero = found.table[found.table["query_id"] == "2"].iloc[0]
    assert zero["best_runs"] == "" and zero["zero"] == 3
    on_two = found.runs[found.runs["query_id"] == "2"]
    assert not on_two["best"].any() and not on_two["worst"].any()
    assert found.table[found.table["query_id"] == "1"].iloc[0]["best_runs"] == "one"


@pytest.fixture(scope="module")
def empty():
    runs = {name: pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
            for name in ("one", "two", "three")}
    qrels = pd.DataFrame({"query_id": pd.Series([], dtype=str), "doc_id": pd.Series([], dtype=str),
                          "relevance": pd.Series([], dtype=np.int64)})
    with pytest.warns(UserWarning):
        return img.experiment(qrels, runs, ["AP", "nDCNG@10"])


@pytest.mark.parametrize("test", ["randomized_tukey", "tukey", "t"])
def test_empty_qrels_give_no_letters_and_no_crash(empty, test):
    board = leaderboard(empty, testing=Options(test=test, permutations=200))
    assert (board.table["group"] == "").all()
    assert "no judged query" in board.to_text()


def test_empty_qrels_give_no_negative_overlaps(empty):
    found = bounds(empty)
    assert not (found.table["overlaps"].fillna(0) < 0).any()


@given(st.integers(53, 70))
@settings(max_examples=5, deadline=None)
def test_more_groups_than_letters_are_named_apart(n):
    sig = ~np.eye(n, dtype=bool)  # every run apart from every other: n groups
    found = compact_letters(sig)
    assert len(set(found)) == n
    names = [group_names(g) for g in found]
    assert all(len(g) == 1 for g in names)  # one group each, read as one
    assert len({g[0] for g in names}) == n


def test_fewer_groups_read_letter_by_letter():
    assert group_names("abZ") == ["a", "b", "Z"] and group_names("") == []


def test_more_than_52_groups_in_every_view():
    n, nq = 54, 20
    rng = np.random.default_rng(0)
    qrels = pd.DataFrame({"query_id": np.repeat([str(q) for q in range(nq)], 2), "doc_id": ["rel", "x"] * nq,
                          "relevance": [1, 0] * nq})
    runs = {}
    for k in range(n):  # run k finds the relevant document at rank k + 1, or k + 2 on about a third of the topics
        parts = []
        for q in range(nq):
            ids = [f"z{i}" for i in range(k + int(rng.random() < 0.3))] + ["rel"]
            parts.append(pd.DataFrame({"query_id": str(q), "doc_id": ids, "score": -np.arange(len(ids), dtype=float)}))
        runs[f"r{k:02d}"] = pd.concat(parts)
    exp = img.experiment(qrels, runs, ["RR"])
    board = leaderboard(exp, testing=Options(test="t", correction="none", alpha=0.5))
    groups = board.table["group"].tolist()
    assert len({g for group in groups for g in group_names(group)}) == n
    assert all(g and g[0].isdigit() for g in groups)
    latex = board.to_latex()
    assert "\\textsuperscript{1}" in latex and "@@SUP" not in latex
    from ir_measures_graded.reports.leaderboard import rows

    shown = rows(board.table, board.by)
    assert len(shown["letters"]) == len({g for group in groups for g in group_names(group)})
    pytest.importorskip("matplotlib")
    fig = board.plot()
    labels = [t.get_text() for t in fig.axes[1].get_xticklabels()]
    assert labels == shown["letters"]


def test_measures_as_one_string_or_none(mixed):
    assert leaderboard(mixed, measures="AP", testing=QUICK).measures == ["AP"]
    assert set(topics(mixed, measures="AP").table["measure"]) == {"AP"}
    with pytest.raises(GradedInputError, match="no measure"):
        leaderboard(mixed, measures=[], testing=QUICK)
    with pytest.raises(GradedInputError, match="no measure"):
        bounds(mixed, measures=[])


def test_a_groups_file_that_does_not_exist_is_refused(capsys, tmp_path):
    sample = data_path("graded_sample")
    runs = [str(sample / f"{name}.run") for name in ("strong", "weak", "random")]
    missing = str(tmp_path / "groups.txt")
    error = error_of(capsys, "leaderboard", str(sample / "qrels.txt"), *runs, "-m", "AP", "--sections", "pool",
                     "--groups", missing)
    assert missing in error and "no such file" in error and len(error.strip().splitlines()) == 1
    out, _ = run_main(capsys, "leaderboard", str(sample / "qrels.txt"), *runs, "-m", "AP", "--sections", "pool",
                      "--groups", "n")
    assert "Leave-one-group-out" in out


def test_the_bounds_flag_marks_only_an_order_the_judgments_could_reverse():
    qrels, runs = shared_task(n_runs=9, n_queries=20, depth=10, retrieved=30, seed=43)
    exp = img.experiment(qrels, runs, ["P@10", "AP"])
    limits = bounds(exp)
    board = leaderboard(exp, testing=QUICK, bounds=limits)
    shown = board.display()
    unflagged_overlap = 0
    for measure in board.measures:
        of = limits.table[limits.table["measure"] == measure].set_index("run").reindex(board.runs)
        apart = board.significant(measure)
        for i, run in enumerate(board.runs):
            swaps = [j for j in range(len(board.runs)) if j != i and apart[i, j]
                     and of["low"].iloc[i] <= of["high"].iloc[j] and of["low"].iloc[j] <= of["high"].iloc[i]]
            cell = shown.loc[shown["run"] == run, measure].iloc[0]
            assert ("*" in cell) == bool(swaps), (measure, run, cell)
            unflagged_overlap += (not swaps) and of["overlaps"].iloc[i] > 0
    assert unflagged_overlap > 0  # an interval meeting only runs the test does not separate says nothing
