"""µR@k against the distance-weighted combination of pytrec_eval's recall at level t, and the slow reference."""

from __future__ import annotations

import ir_measures
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import R

from ir_measures_graded import GradedInputError, muR
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


def pytrec_eval_recall(qrels: dict, run: dict, t: int, cutoff: int, judged_only: bool) -> dict[str, float]:
    """trec_eval's recall_k with relevance level t (ir_measures' R has no rel parameter)."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"recall.{cutoff}"}, relevance_level=t,
                                               judged_docs_only_flag=judged_only)
    return {q: v[f"recall_{cutoff}"] for q, v in evaluator.evaluate({q: d for q, d in run.items() if d}).items()}


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("cutoff", [1, 5, 20, 100])
@pytest.mark.parametrize("judged_only", [False, True])
def test_is_weighted_pytrec_eval_recall_at_level_t(seed, cutoff, judged_only):
    qrels, run = random_collection(seed)
    assert_weighted_by_threshold(muR(judged_only=judged_only) @ cutoff,
                                 lambda t: pytrec_eval_recall(qrels, run, t, cutoff, judged_only), qrels, run)


@pytest.mark.parametrize("seed", [0, 1])
def test_binary_labels_equal_r(seed):
    qrels, run = random_collection(seed, labels=(0, 1))
    values = per_query([muR @ 10, R @ 10], qrels, run)
    assert values[muR @ 10] == pytest.approx(values[R @ 10], abs=TOL)


def test_hand_computed():
    # ranking a(0) b(2) c(1) d(3), e(1) unretrieved; R^1 = 4, R^2 = 2, R^3 = 1
    qrels = {"q": {"a": 0, "b": 2, "c": 1, "d": 3, "e": 1}}
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    assert (muR @ 3).calc_aggregate(qrels, run) == pytest.approx((2 / 4 + 1 / 2 + 0) / 3, abs=1e-15)
    assert (muR(weights="uniform", levels=(1, 3)) @ 4).calc_aggregate(qrels, run) == pytest.approx((3 / 4 + 1) / 2)


@pytest.mark.parametrize("params", [
    {"cutoff": 5}, {"cutoff": 1}, {"cutoff": 50, "judged_only": True}, {"cutoff": 10, "levels": "collection-all"},
    {"cutoff": 10, "levels": (1.5, 3)}, {"cutoff": 10, "weights": "uniform"}, {"cutoff": 10, "floor": 1},
])
def test_equals_the_slow_reference(params):
    qrels, run = random_collection(5, n_queries=100)
    assert_reference(muR(**params), "muR", params, qrels, run)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(st.data())
def test_real_labels_and_any_parameters_equal_the_reference(data):
    qrels, run = data.draw(collections())
    params = draw_params(data, cutoff=st.integers(1, 12), floor=[0, -1, 1, 0.25], weights=["distance", "uniform"],
                         judged_only=[False, True])
    assert_reference(muR(**params), "muR", params, qrels, run)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(tied_rows, st.integers(0, 2), st.sampled_from([1, 2, 4]))
def test_ties_expected_is_the_mean_over_every_tie_order(rows, unretrieved, cutoff):
    assert_ties_expected(muR @ cutoff, rows, unretrieved)


def test_names_and_errors():
    for text in ("muR@10", "muRecall@5", "μR@3", "muR(levels='collection')@10"):
        measure = ir_measures.parse_measure(text)
        assert ir_measures.parse_measure(str(measure)) == measure
    with pytest.raises(GradedInputError, match="muR: parameter cutoff .* is required, e.g. muR@10"):
        muR.validate_params()
