"""Two judges on the same runs: every number equals the leaderboard's own on each qrels read on its own, and
Kendall's tau scipy's; a judge against itself changes nothing; bad input in one line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from ir_measures_graded import statistics
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import experiment
from ir_measures_graded.experiments.testing import Testing
from ir_measures_graded.judges.systems import agree
from ir_measures_graded.organiser.leaderboard import leaderboard
from support.judges import write_collection

MEASURES = ["µMAP", "nDCNG@10", "nDCG@10", "AP(rel=2)"]
TESTING = Testing(test="t", correction="holm")


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    return write_collection(tmp_path_factory.mktemp("judges"))


def test_every_number_is_the_leaderboards_on_each_qrels(collection):
    qa, qb, runs, _, _ = collection
    exp = experiment(qa, runs, MEASURES)
    found = agree(exp, qb, a="NIST", b="LLM", testing=TESTING)
    alone = experiment(qb, runs, MEASURES)  # judge B's qrels and the runs read on their own
    board_a, board_b = leaderboard(exp, testing=TESTING), leaderboard(alone, testing=TESTING)
    systems = found.systems.table.set_index("measure")
    for label in MEASURES:
        va = board_a.table[board_a.table.measure == label].set_index("run").reindex(exp.runs)
        vb = board_b.table[board_b.table.measure == label].set_index("run").reindex(exp.runs)
        row = systems.loc[label]
        assert row.tau == pytest.approx(scipy.stats.kendalltau(va.value, vb.value).statistic)
        assert row.tau_ap == pytest.approx(statistics.tau_ap_b(va.value.to_numpy(), vb.value.to_numpy()))
        assert row.largest_change == int((va["rank"] - vb["rank"]).abs().max())
        assert (row.best_a, row.best_b) == (board_a.runs[0], board_b.runs[0])
        runs_table = found.runs.table
        values = runs_table[runs_table.measure == label].set_index("run").reindex(exp.runs)
        np.testing.assert_allclose(values.value_b, vb.value)
        sa = pd.DataFrame(board_a.significant(label), board_a.runs, board_a.runs).loc[exp.runs, exp.runs].to_numpy()
        sb = pd.DataFrame(board_b.significant(label), board_b.runs, board_b.runs).loc[exp.runs, exp.runs].to_numpy()
        upper = np.triu(np.ones_like(sa, dtype=bool), 1)
        assert (row.only_a, row.only_b) == ((sa & ~sb & upper).sum(), (sb & ~sa & upper).sum())
        assert row.group_changes == (sa != sb).any(axis=1).sum()
        flipped = found.pairs.table[found.pairs.table.measure == label]
        expected = {(exp.runs[i], exp.runs[j], "NIST" if sa[i, j] else "LLM")
                    for i, j in zip(*np.nonzero((sa != sb) & upper), strict=True)}
        assert set(zip(flipped.run_1, flipped.run_2, flipped.separated_by, strict=True)) == expected
    assert systems["scale_free"].tolist() == [True, True, False, False]


def test_a_judge_against_itself_changes_nothing(collection):
    qa, _, runs, a, _ = collection
    found = agree(experiment(qa, runs, MEASURES), a, testing=TESTING)
    table = found.systems.table
    assert (table.tau == 1).all() and (table.largest_change == 0).all() and (table.moved == "").all()
    assert (table.only_a == 0).all() and (table.only_b == 0).all() and found.pairs.table.empty


def test_a_map_relabels_b_as_the_relabelled_qrels_would_be_judged(collection, tmp_path):
    qa, qb, runs, _, b = collection
    exp = experiment(qa, runs, MEASURES)
    found = agree(exp, qb, maps=["map:1=1,2=3,3=4"], testing=TESTING)
    relabelled = b.assign(relevance=b.relevance.map({0: 0, 1: 1, 2: 3, 3: 4}))
    path = tmp_path / "mapped.qrels"
    path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in relabelled.itertuples(index=False)))
    alone = experiment(str(path), runs, MEASURES).aggregates
    mapped = found.runs.table.query("judge == 'B map:1=1,2=3,3=4'")
    for label in MEASURES:
        expected = alone[alone.measure == label].set_index("run").value.reindex(exp.runs)
        np.testing.assert_allclose(mapped[mapped.measure == label].value_b, expected)
    assert list(dict.fromkeys(found.systems.table.judge)) == ["B", "B map:1=1,2=3,3=4"]


def test_views_and_figure(collection, tmp_path):
    qa, qb, runs, _, _ = collection
    found = agree(experiment(qa, runs, MEASURES[:2]), qb, testing=TESTING)
    for view in (found.systems, found.pairs, found.runs):
        for output in ("text", "markdown", "latex", "tsv", "csv", "jsonl"):
            assert isinstance(view.render(output, 3), str)
    assert found.systems.to_latex().count("\\begin{table}") == 1
    figure = found.plot(tmp_path / "judges.png")
    assert (tmp_path / "judges.png").stat().st_size > 0 and len([a for a in figure.axes if a.get_visible()]) == 2
    with pytest.raises(GradedInputError, match="judge C is none"):
        found.plot(judge="C")


def test_bad_input_is_one_line(collection, tmp_path):
    qa, qb, runs, _, _ = collection
    exp = experiment(qa, runs, MEASURES[:1])
    with pytest.raises(GradedInputError, match="mapping of judge B's grades"):
        agree(exp, qb, maps=["map:1=3,3=1"], testing=TESTING)
    elsewhere = pd.DataFrame({"query_id": ["z1"], "doc_id": ["d1"], "relevance": [1]})
    stray = tmp_path / "stray.run"
    stray.write_text("z9 Q0 d1 1 1.0 stray\n")
    with pytest.raises(GradedInputError, match="no \\(query, document\\) judged in common"):
        agree(exp, elsewhere, testing=TESTING)
    with pytest.warns(UserWarning):
        lost = experiment(qa, [*runs[:2], str(stray)], MEASURES[:1])
    with pytest.raises(GradedInputError, match="run stray.run ranks no query judged by A or by B"):
        agree(lost, qb, testing=TESTING)


def test_a_measure_undefined_on_one_side_is_one_line(collection, tmp_path):
    """A judge none of whose grades reaches a measure's relevance level would score every run 0 (trec_eval's
    convention): its leaderboard is all ties, so the comparison is refused, naming the measure, the judge and its
    grades — on either side."""
    qa, _, runs, a, b = collection
    coarse = b.assign(relevance=b["relevance"].clip(upper=1))  # a judge on 0-1
    exp = experiment(qa, runs, ["µMAP", "AP(rel=2)"])
    with pytest.raises(GradedInputError, match=r"measure AP\(rel=2\) is undefined on judge LLM's qrels: no judgment "
                       r"reaches grade 2 \(its grades: 0, 1\), so every run scores 0"):
        agree(exp, coarse, a="NIST", b="LLM", testing=TESTING)
    with pytest.raises(GradedInputError, match=r"AP\(rel=2\) is undefined on judge A's qrels"):
        agree(experiment(coarse, runs, ["AP(rel=2)"]), qa, testing=TESTING)
    nothing = b.assign(relevance=0)
    with pytest.raises(GradedInputError, match="µMAP is undefined on judge B's qrels: no judgment reaches a grade "
                       "above 0"):
        agree(experiment(qa, runs, ["µMAP"]), nothing, testing=TESTING)
    # a measure that counts documents whatever their grade stays defined, as does a level the judge reaches
    counted = agree(experiment(qa, runs, ["Judged@10", "AP(rel=1)"]), coarse, testing=TESTING)
    assert counted.systems.table["measure"].tolist() == ["Judged@10", "AP(rel=1)"]

