"""µRR against the distance-weighted combination of pytrec_eval's RR(rel=t), and the slow reference."""

from __future__ import annotations

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import RR

from ir_measures_graded import GradedInputError, muRR
from support.measure_checks import (
    TOL,
    assert_reference,
    assert_ties_expected,
    assert_weighted_by_threshold,
    draw_params,
    per_query,
    tied_rows,
)
from support.random_collections import collections, random_collection


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("judged_only", [False, True])
def test_is_weighted_pytrec_eval_rr_rel_t(seed, judged_only):
    qrels, run = random_collection(seed)
    theirs = {t: RR(rel=t, judged_only=judged_only) for t in (1, 2, 3, 4)}
    values = per_query(list(theirs.values()), qrels, run)
    assert_weighted_by_threshold(muRR(judged_only=judged_only), lambda t: values[theirs[t]], qrels, run)


@pytest.mark.parametrize("seed", [0, 1])
def test_binary_labels_equal_rr(seed):
    qrels, run = random_collection(seed, labels=(0, 1))
    values = per_query([muRR, RR], qrels, run)
    assert values[muRR] == pytest.approx(values[RR], abs=TOL)


def test_hand_computed():
    # ranking: a(0) b(2) c(1) d(3); thresholds 1, 2, 3 (distance 1 each): RR^1 = 1/2, RR^2 = 1/2, RR^3 = 1/4
    qrels = {"q": {"a": 0, "b": 2, "c": 1, "d": 3}}
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    assert muRR.calc_aggregate(qrels, run) == pytest.approx((0.5 + 0.5 + 0.25) / 3, abs=1e-15)
    assert (muRR @ 3).calc_aggregate(qrels, run) == pytest.approx((0.5 + 0.5 + 0) / 3, abs=1e-15)
    assert muRR(levels=(3,)).calc_aggregate(qrels, run) == pytest.approx(0.25, abs=1e-15)


@pytest.mark.parametrize("params", [
    {}, {"cutoff": 3}, {"judged_only": True}, {"levels": "collection-all"}, {"levels": (1.5, 3)},
    {"weights": "uniform"}, {"floor": 1}, {"floor": -1, "cutoff": 10},
])
def test_equals_the_slow_reference(params):
    qrels, run = random_collection(5, n_queries=100)
    assert_reference(muRR(**params), "muRR", params, qrels, run)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(st.data())
def test_real_labels_and_any_parameters_equal_the_reference(data):
    qrels, run = data.draw(collections())
    params = draw_params(data, cutoff=[None, 1, 3, 12], floor=[0, -1, 1, 0.25], weights=["distance", "uniform"],
                         judged_only=[False, True])
    assert_reference(muRR(**params), "muRR", params, qrels, run)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(tied_rows, st.integers(0, 2), st.sampled_from([None, 1, 2, 4]))
def test_ties_expected_is_the_mean_over_every_tie_order(rows, unretrieved, cutoff):
    assert_ties_expected(muRR if cutoff is None else muRR @ cutoff, rows, unretrieved)


def test_collection_levels_and_names():
    qrels, run = random_collection(6, n_queries=50)
    values = per_query([muRR, muRR(levels="collection")], qrels, run)
    assert values[muRR] == pytest.approx(values[muRR(levels="collection")], abs=TOL)  # per query: the same
    for text in ("muRR", "muMRR", "μRR", "muRR(levels='1,2')@10", "muRR(floor='-1')"):
        measure = ir_measures.parse_measure(text)
        assert ir_measures.parse_measure(str(measure)) == measure
    with pytest.raises(GradedInputError, match=r"muRR: levels=\(0, 1\) must all lie above floor=0"):
        muRR(levels=(0, 1)).validate_params()


def test_rr_at_k_follows_trec_eval_ties_not_ir_measures_rr_at_k():
    # documented (#35.19): ir_measures serves RR@k by its msmarco provider (ties by doc id ascending),
    # RR without a cutoff by pytrec_eval (trec_eval's order: ties by doc id descending), as muRR@k
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0}}
    values = ir_measures.calc_aggregate([muRR @ 5, RR @ 5, RR], qrels, run)
    assert values[muRR @ 5] == values[RR] == 0.5 and values[RR @ 5] == 1.0
    assert "msmarco" in type(muRR).__doc__
