"""The experiment code behind the notebooks (ir_measures_graded.paper)."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest
from ir_measures import AP

from ir_measures_graded import GradedInputError, meanNDCG, meanNDCNG, muMAP
from ir_measures_graded.datasets import ohsumed
from ir_measures_graded.paper import paper_tables, strategies, swaps

# --- the artificial data set (Sec. 2.1) -----------------------------------------------------------


@pytest.mark.parametrize("n_levels", swaps.LEVEL_COUNTS)
def test_uniform_reference_uses_every_level_equally(n_levels):
    labels = swaps.reference_labels(100, n_levels, "uniform", np.random.default_rng(0))
    assert np.array_equal(np.bincount(labels, minlength=n_levels), np.full(n_levels, 100 // n_levels))
    assert np.all(np.diff(labels) <= 0)  # best first


def test_non_uniform_reference_is_seeded_unequal_and_has_relevant_items():
    draws = [swaps.reference_labels(100, 50, "non-uniform", np.random.default_rng(seed)) for seed in range(20)]
    assert all(np.all(np.diff(d) <= 0) and d.max() > 0 and d.min() >= 0 and d.max() < 50 for d in draws)
    assert any(len(np.unique(d)) < 50 for d in draws)  # some levels unused
    assert np.array_equal(draws[3], swaps.reference_labels(100, 50, "non-uniform", np.random.default_rng(3)))
    two = [swaps.reference_labels(10, 2, "non-uniform", np.random.default_rng(s)) for s in range(50)]
    assert all(d.max() == 1 for d in two)  # redrawn when nothing would be relevant


def test_reference_rejects_bad_arguments():
    with pytest.raises(GradedInputError, match="distribution"):
        swaps.reference_labels(100, 10, "zipf", np.random.default_rng(0))
    with pytest.raises(GradedInputError, match="2 levels"):
        swaps.reference_labels(100, 1, "uniform", np.random.default_rng(0))


def test_swapped_rankings_swap_one_pair_per_step():
    rankings = swaps.swapped_rankings(30, 12, 7, np.random.default_rng(1))
    assert rankings.shape == (7, 13, 30)
    assert np.array_equal(rankings[:, 0], np.tile(np.arange(30), (7, 1)))
    assert np.array_equal(np.sort(rankings, axis=2), np.broadcast_to(np.arange(30), rankings.shape))
    changed = (rankings[:, 1:] != rankings[:, :-1]).sum(axis=2)
    assert np.all(changed == 2)


def test_swap_experiment_is_seeded():
    one = swaps.swap_experiment("non-uniform", level_counts=(2, 10), max_swaps=5, repetitions=3, seed=5)
    two = swaps.swap_experiment("non-uniform", level_counts=(2, 10), max_swaps=5, repetitions=3, seed=5)
    pd.testing.assert_frame_equal(one, two)
    assert list(one.columns) == ["distribution", "levels", "measure", "swaps", "mean", "std"]


def test_two_level_mu_map_equals_trec_eval_ap():
    # With binary labels µAP is AP: the experiment's numbers through our provider and pytrec_eval agree.
    curves = swaps.swap_experiment("uniform", level_counts=(2,), max_swaps=30, repetitions=5,
                                   measures={"µMAP": muMAP, "AP": AP})
    wide = curves.pivot(index="swaps", columns="measure", values="mean")
    assert np.allclose(wide["µMAP"], wide["AP"], atol=1e-9)


def test_evaluate_rankings_matches_direct_evaluation():
    labels = np.array([3, 2, 2, 1, 0, 0])
    rankings = np.array([[[0, 1, 2, 3, 4, 5], [4, 1, 2, 3, 0, 5]]])  # one repetition: 0 swaps, 1 swap
    curves = swaps.evaluate_rankings(labels, rankings, {"m": meanNDCNG})
    qrels = pd.DataFrame({"query_id": "q", "doc_id": [f"d{i}" for i in range(6)], "relevance": labels})
    run = pd.DataFrame({"query_id": "q", "doc_id": [f"d{i}" for i in rankings[0, 1]], "score": np.arange(6, 0, -1.0)})
    assert curves["mean"].tolist() == pytest.approx([1.0, ir_measures.calc_aggregate([meanNDCNG], qrels, run)[meanNDCNG]])


# --- Tables 1 and 2 --------------------------------------------------------------------------------


def test_agreement_at_printed_precision():
    assert paper_tables.agreement(0.348, "0.35") == "rounds"
    assert paper_tables.agreement(114.607, "114") == "truncates"
    assert paper_tables.agreement(0.5, "0.4") == "DIFFERS"


def test_every_cell_of_tables_1_and_2_agrees():
    t1, t2 = paper_tables.table1(), paper_tables.table2()
    assert (t1["agrees"] == "rounds").all()
    assert t1.loc["t = 3", "A B C D E F G H"] == "- - + + - - - +"
    cells = t2.xs("agrees", level="source").stack()
    cells = cells[cells != ""]
    assert len(cells) == 3 * 5 * 8 + 3 and "DIFFERS" not in set(cells)
    # the only non-rounded cells: example two's integer DCG values, which the paper truncates
    truncated = cells[cells == "truncates"].index.get_level_values("row")
    assert set(truncated) == {"dcg", "dcg_opt"}


# --- OHSUMED strategies -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def standin():
    return strategies.standin_table()


def test_standin_has_the_shape_of_letor_ohsumed(standin):
    assert len(set(standin.query_id)) == 106 and standin.n_features == 25
    assert set(np.unique(standin.label)) == {0.0, 1.0, 2.0}
    tf = standin.features[:, 0]
    assert np.array_equal(np.unique(tf), np.arange(9.0))  # 9 levels, like TF of title
    assert strategies.level_count(strategies.reference_qrels(standin, 9)) > 100
    assert len(set(standin.doc_id)) == len(standin.doc_id)


def test_load_letor_falls_back_to_standin_without_files(home):
    table, source = strategies.load_letor()
    assert source == strategies.STANDIN and table.n_features == 25


def test_load_letor_uses_placed_files(placed):
    table, source = strategies.load_letor()
    assert source == "ohsumed/letor2"
    assert table.n_features == 25 and set(table.doc_id) <= {j.doc_id for j in ohsumed.judgements()}


def test_expert_map_by_threshold_equals_trec_eval(standin):
    levels, summary = strategies.compare_strategies(standin, "expert", strategies=(5, 11))
    qrels = strategies.reference_qrels(standin, "expert")
    for strategy in (5, 11):
        run = ohsumed.feature_run(standin, strategy)
        expected = ir_measures.calc_aggregate([meanNDCG], qrels, run)
        for t in (1, 2):  # MAP^t: trec_eval's AP at -l t over the queries with a label >= t
            reaching = set(qrels.loc[qrels["relevance"] >= t, "query_id"])
            ap = [m.value for m in ir_measures.iter_calc([AP(rel=t)], qrels, run) if m.query_id in reaching]
            assert levels.loc[strategy, float(t)] == pytest.approx(np.mean(ap), abs=1e-9)
        assert summary.loc[strategy, "mean NDCG"] == pytest.approx(expected[meanNDCG], abs=1e-12)


def test_virtual_user_rates_itself_perfectly(standin):
    levels, summary = strategies.compare_strategies(standin, 1, strategies=(1, 9, 5))
    assert summary.loc[1, ["µMAP", "mean NDCG", "mean NDCNG"]].tolist() == pytest.approx([1, 1, 1])
    assert (summary.loc[5] < 1).all()
    assert list(levels.columns) == [float(t) for t in range(1, 9)]  # 8 thresholds over 9 levels
    # "µMAP (collection levels)" is the distance-weighted mean of the per-threshold MAP row
    weights = np.diff(np.concatenate([[0.0], levels.columns.to_numpy(dtype=float)]))
    for strategy in (1, 9, 5):
        expected = np.average(levels.loc[strategy].to_numpy(), weights=weights)
        assert summary.loc[strategy, "µMAP (collection levels)"] == pytest.approx(expected, abs=1e-9)


def test_virtual_user_labels_are_the_feature_values(standin):
    qrels = strategies.reference_qrels(standin, 9)
    assert qrels["relevance"].to_numpy() == pytest.approx(standin.features[:, 8])
    with pytest.raises(GradedInputError, match="features 1..25"):
        strategies.reference_qrels(standin, 26)
