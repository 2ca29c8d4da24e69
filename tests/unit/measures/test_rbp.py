"""gRBP and gRBP_residual (Moffat & Zobel 2008) against cwl_eval, their definition and the slow reference."""

from __future__ import annotations

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import RBP

from ir_measures_graded import GradedInputError, gRBP, gRBP_residual
from support import reference
from support.examples import examples
from support.measure_checks import (
    TOL,
    assert_reference,
    assert_ties_expected,
    draw_params,
    per_query,
    tied_rows,
)
from support.random_collections import collections, random_collection


def test_hand_computed_from_the_definition():
    qrels = {"q": {"a": 4, "b": 0, "c": 2, "d": 3}, "missing": {"a": 1}}
    run = {"q": {"a": 4.0, "b": 3.0, "x": 2.0, "c": 1.0}}  # x unjudged
    p = 0.5
    assert gRBP(p=p).calc(qrels, run)[1][0].value == pytest.approx((1 - p) * (1 + p**3 * 0.5), abs=1e-15)
    residual = {m.query_id: m.value for m in gRBP_residual(p=p).iter_calc(qrels, run)}
    assert residual == {"q": pytest.approx((1 - p) * p**2 + p**4, abs=1e-15), "missing": 1.0}
    # with a cutoff, the tail starts at the cutoff
    at2 = {m.query_id: m.value for m in (gRBP_residual(p=p) @ 2).iter_calc(qrels, run)}
    assert at2["q"] == pytest.approx(p**2, abs=1e-15)


@pytest.mark.parametrize("seed", [2, 3])
def test_judging_the_unjudged_with_the_top_label_adds_the_residual_but_the_tail(seed):
    """The residual is exact: RBP of the best completion of the judgments minus RBP is the residual
    without its tail p^d (documents below the ranking can only be added by the system)."""
    qrels, run = random_collection(seed, n_queries=60)
    completed = {q: {**judged, **{d: 4 for d in run.get(q, {}) if d not in judged}} for q, judged in qrels.items()}
    before = per_query([gRBP, gRBP_residual], qrels, run)
    after = per_query([gRBP], completed, run)[gRBP]
    for qid in qrels:
        depth = len(run.get(qid, {}))
        rise = before[gRBP_residual][qid] - 0.8**depth
        assert after[qid] - before[gRBP][qid] == pytest.approx(rise, abs=TOL), qid


@pytest.mark.parametrize("params", [
    {}, {"cutoff": 5}, {"p": 0.5}, {"p": 0.95, "cutoff": 100}, {"judged_only": True}, {"norm": "query"},
    {"norm": 10}, {"gains": {1: 0.5, 2: 1, 3: 2, 4: 2}}, {"floor": 1}, {"floor": -1, "norm": "query"},
])
@pytest.mark.parametrize("seed", [4, 5])
def test_equals_the_slow_reference(params, seed):
    qrels, run = random_collection(seed, n_queries=80)
    assert_reference(gRBP(**params), "gRBP", gRBP(**params).params, qrels, run)
    residual = gRBP_residual(**params)
    expected = {q: reference.rbp_residual(qrels, run, q, **params) for q in qrels}
    assert per_query([residual], qrels, run)[residual] == pytest.approx(expected, abs=TOL)


@settings(max_examples=examples(80), deadline=None)
@given(st.data())
def test_real_labels_and_any_parameters_equal_the_reference(data):
    qrels, run = data.draw(collections())
    params = draw_params(data, cutoff=[None, 1, 3, 12], p=[0.8, 0.3, 0.99], norm=["collection", "query", 20],
                         floor=[0, -2.5, 0.25], judged_only=[False, True])
    assert_reference(gRBP(**params), "gRBP", params, qrels, run)
    assert_reference(gRBP_residual(**params), "gRBP_residual", params, qrels, run)


@settings(max_examples=examples(60), deadline=None)
@given(tied_rows, st.integers(0, 2), st.sampled_from([None, 2, 4]))
def test_ties_expected_is_the_mean_over_every_tie_order(rows, unretrieved, cutoff):
    for measure in (gRBP, gRBP_residual):
        assert_ties_expected(measure if cutoff is None else measure @ cutoff, rows, unretrieved)


def test_parameters_round_trip_errors_and_not_ir_measures_rbp():
    for measure in (gRBP, gRBP(p=0.5) @ 10, gRBP(norm="query"), gRBP_residual(p=0.9, judged_only=True)):
        assert ir_measures.parse_measure(str(measure)) == measure
    assert ir_measures.parse_measure("RBP(p=0.8)") == RBP(p=0.8) and RBP(p=0.8) != gRBP(p=0.8)
    for bad, message in [
        (gRBP(p=1), r"gRBP: invalid p=1 \(out of range\); expected a number in \(0, 1\)"),
        (gRBP_residual(p=0), r"gRBP_residual: invalid p=0"),
    ]:
        with pytest.raises(GradedInputError, match=message):
            bad.validate_params()
    with pytest.raises(GradedInputError, match=r"gRBP\(norm=2\): a gain reaches 2 > 1 with norm=2"):
        gRBP(norm=2).calc_aggregate({"q": {"a": 4}}, {"q": {"a": 1.0}})


def test_gains_mapping_and_a_numeric_norm_by_hand():
    qrels = {"q": {"a": 1, "b": 2, "c": 0}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}  # a, b, c
    # gains {1: 2}: a's label becomes 2; norm 2 (the top): gains a 1, b 1, c 0
    measure = gRBP(gains={1: 2}, norm=2)
    assert ir_measures.calc_aggregate([measure], qrels, run)[measure] == pytest.approx(0.2 * (1 + 0.8), abs=1e-15)
    # a norm equal to the highest gain is accepted (gains up to 1); below it, refused
    assert ir_measures.calc_aggregate([gRBP(norm=2)], qrels, run)[gRBP(norm=2)] == pytest.approx(0.2 * (0.5 + 0.8))
    with pytest.raises(GradedInputError) as error:
        ir_measures.calc_aggregate([gRBP(norm=1.5)], qrels, run)
    assert str(error.value) == ("gRBP(norm=1.5): a gain reaches 1.33333 > 1 with norm=1.5: RBP's gains lie in [0, 1], "
                                "so norm must be at least the highest (label - floor) of the qrels (or use "
                                "norm='collection')")


def test_cutoff_residual_and_a_judged_query_without_rows_by_hand():
    qrels = {"q": {"a": 2, "b": 1}, "r": {"x": 2}}  # r: judged, never ranked
    run = {"q": {"a": 3.0, "u": 2.0, "b": 1.0}}  # a (1), u unjudged, b (1/2); norm: the collection's top 2
    values = per_query([gRBP @ 2, gRBP, gRBP_residual @ 2, gRBP_residual], qrels, run)
    assert values[gRBP @ 2] == pytest.approx({"q": 0.2 * 1.0, "r": 0.0}, abs=1e-15)
    assert values[gRBP] == pytest.approx({"q": 0.2 * (1.0 + 0.64 * 0.5), "r": 0.0}, abs=1e-15)
    # residual: the unjudged u (p^1) and everything below the depth evaluated (p^d)
    assert values[gRBP_residual @ 2] == pytest.approx({"q": 0.2 * 0.8 + 0.8 ** 2, "r": 1.0}, abs=1e-15)
    assert values[gRBP_residual] == pytest.approx({"q": 0.2 * 0.8 + 0.8 ** 3, "r": 1.0}, abs=1e-15)
