"""µRprec against the distance-weighted combination of pytrec_eval's Rprec(rel=t), and the slow reference."""

from __future__ import annotations

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import Rprec

from ir_measures_graded import GradedInputError, muRprec
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
def test_is_weighted_pytrec_eval_rprec_rel_t(seed, judged_only):
    qrels, run = random_collection(seed)
    theirs = {t: Rprec(rel=t, judged_only=judged_only) for t in (1, 2, 3, 4)}
    values = per_query(list(theirs.values()), qrels, run)
    assert_weighted_by_threshold(muRprec(judged_only=judged_only), lambda t: values[theirs[t]], qrels, run)


@pytest.mark.parametrize("seed", [0, 1])
def test_binary_labels_equal_rprec(seed):
    qrels, run = random_collection(seed, labels=(0, 1))
    values = per_query([muRprec, Rprec], qrels, run)
    assert values[muRprec] == pytest.approx(values[Rprec], abs=TOL)


def test_hand_computed():
    # ranking a(0) b(2) c(1) d(3), e(1) unretrieved; R^1 = 4: 3 of the top 4; R^2 = 2: 1 of the top 2; R^3 = 1: 0
    qrels = {"q": {"a": 0, "b": 2, "c": 1, "d": 3, "e": 1}}
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    assert muRprec.calc_aggregate(qrels, run) == pytest.approx((3 / 4 + 1 / 2 + 0) / 3, abs=1e-15)


@pytest.mark.parametrize("params", [
    {}, {"judged_only": True}, {"levels": "collection-all"}, {"levels": (1.5, 3)}, {"weights": "uniform"},
    {"floor": 1}, {"floor": -1},
])
def test_equals_the_slow_reference(params):
    qrels, run = random_collection(5, n_queries=100)
    assert_reference(muRprec(**params), "muRprec", params, qrels, run)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(st.data())
def test_real_labels_and_any_parameters_equal_the_reference(data):
    qrels, run = data.draw(collections())
    params = draw_params(data, floor=[0, -1, 1, 0.25], weights=["distance", "uniform"], judged_only=[False, True])
    assert_reference(muRprec(**params), "muRprec", params, qrels, run)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(tied_rows, st.integers(0, 2))
def test_ties_expected_is_the_mean_over_every_tie_order(rows, unretrieved):
    assert_ties_expected(muRprec, rows, unretrieved)


def test_names_and_errors():
    for text in ("muRprec", "muRPrec", "μRprec", "muRprec(levels='2,3')", "muRprec(floor='-1')"):
        measure = ir_measures.parse_measure(text)
        assert ir_measures.parse_measure(str(measure)) == measure
    with pytest.raises(GradedInputError, match=r"muRprec: unknown parameter\(s\) \['cutoff'\]"):
        (muRprec @ 10).validate_params()
