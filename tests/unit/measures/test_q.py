"""Q-measure (Sakai 2004; Sakai & Kando 2008) against its definition, pytrec_eval's AP and the slow reference."""

from __future__ import annotations

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import AP

from ir_measures_graded import GradedInputError, Q
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

# a:3 b:0 c:1 e:2 ranked in that order; d:2 judged, not retrieved. Ideal gains 3 2 2 1: cg* = 3 5 7 8.
QRELS = {"q": {"a": 3, "b": 0, "c": 1, "d": 2, "e": 2}}
RUN = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "e": 1.0}}


def test_hand_computed_from_the_definition():
    # beta = 1: r=1 (3+1)/(3+1); r=3 (4+2)/(7+3); r=4 (6+3)/(8+4); R = 4
    assert Q.calc_aggregate(QRELS, RUN) == pytest.approx((1 + 0.6 + 0.75) / 4, abs=1e-15)
    # beta = 2: r=1 (6+1)/(6+1); r=3 (8+2)/(14+3); r=4 (12+3)/(16+4)
    assert Q(beta=2).calc_aggregate(QRELS, RUN) == pytest.approx((1 + 10 / 17 + 0.75) / 4, abs=1e-15)
    # beta = 0 is AP: (1/1 + 2/3 + 3/4) / 4
    assert Q(beta=0).calc_aggregate(QRELS, RUN) == pytest.approx((1 + 2 / 3 + 3 / 4) / 4, abs=1e-15)
    # Q@2 keeps dividing by R = 4 (as AP@k)
    assert (Q @ 2).calc_aggregate(QRELS, RUN) == pytest.approx(1 / 4, abs=1e-15)
    # per-grade gains: 1 -> 1, 2 -> 5, 3 -> 10; ideal 10 5 5 1 = cg* 10 15 20 21
    # r=1 (10+1)/(10+1); r=3 (11+2)/(20+3); r=4 (16+3)/(21+4)
    expected = (1 + 13 / 23 + 19 / 25) / 4
    assert Q(gains={2: 5, 3: 10}).calc_aggregate(QRELS, RUN) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("cutoff", [None, 5, 20])
@pytest.mark.parametrize("judged_only", [False, True])
def test_beta_zero_is_pytrec_eval_ap(seed, cutoff, judged_only):
    qrels, run = random_collection(seed)
    ours, theirs = Q(beta=0, judged_only=judged_only), AP(judged_only=judged_only)
    if cutoff is not None:
        ours, theirs = ours @ cutoff, theirs @ cutoff
    values = per_query([ours, theirs], qrels, run)
    assert values[ours].keys() == values[theirs].keys()
    for qid, value in values[theirs].items():
        assert values[ours][qid] == pytest.approx(value, abs=TOL), qid


@pytest.mark.parametrize("params", [
    {}, {"cutoff": 10}, {"cutoff": 1}, {"beta": 0.5}, {"beta": 10, "cutoff": 100}, {"judged_only": True},
    {"gains": {1: 1, 2: 3, 3: 7, 4: 15}}, {"floor": 1}, {"floor": -1, "beta": 2}, {"gains": {4: 0}},
])
@pytest.mark.parametrize("seed", [3, 4])
def test_equals_the_slow_reference(params, seed):
    qrels, run = random_collection(seed, n_queries=80)
    assert_reference(Q(**params), "Q", Q(**params).params, qrels, run)


@settings(max_examples=examples(80), deadline=None)
@given(st.data())
def test_real_labels_and_any_parameters_equal_the_reference(data):
    qrels, run = data.draw(collections())
    params = draw_params(data, cutoff=[None, 1, 3, 12], beta=[1.0, 0.0, 0.25, 3.0], floor=[0, -1, 1, 0.25],
                         judged_only=[False, True])
    assert_reference(Q(**params), "Q", params, qrels, run)


@settings(max_examples=examples(60), deadline=None)
@given(tied_rows, st.integers(0, 2), st.sampled_from([None, 2, 4]), st.sampled_from([0.0, 1.0, 3.0]))
def test_ties_expected_is_the_mean_over_every_tie_order(rows, unretrieved, cutoff, beta):
    measure = Q(beta=beta) if cutoff is None else Q(beta=beta) @ cutoff
    assert_ties_expected(measure, rows, unretrieved)


def test_parameters_round_trip_and_errors():
    for measure in (Q, Q @ 10, Q(beta=0.5), Q(beta=0, gains={1: 2}), Q(floor="-1", judged_only=True) @ 5):
        assert ir_measures.parse_measure(str(measure)) == measure
    assert str(Q(beta=1)) == "Q" and ir_measures.parse_measure("Qmeasure@5") == Q @ 5
    for bad, message in [
        (Q(beta=-1), r"Q: invalid beta=-1 \(out of range\); expected a number in \[0, inf\)"),
        (Q(beta="x"), r"Q: invalid beta='x'"),
        (Q(levels="query"), r"Q: unknown parameter\(s\) \['levels'\]"),
    ]:
        with pytest.raises(GradedInputError, match=message):
            bad.validate_params()


def test_q_equals_ap_on_binary_labels_at_beta_zero_only():
    # the docstring's example (#35.19): one relevant document at rank 3
    qrels, run = {"q": {"a": 1}}, {"q": {"x": 3.0, "y": 2.0, "a": 1.0}}
    values = ir_measures.calc_aggregate([Q, Q(beta=0), AP], qrels, run)
    assert values[Q] == 0.5 and values[Q(beta=0)] == values[AP] == pytest.approx(1 / 3)
    assert "AP at beta=0 only" in Q.SHORT_DESC and "Only β = 0 does" in type(Q).__doc__
