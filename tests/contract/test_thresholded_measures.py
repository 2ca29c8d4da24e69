"""Every thresholded measure of the registry (µAP, µP, µR, µRR, µRprec: each ``ThresholdedMeasure`` of
``ir_measures_graded.measures.MEASURES``), each checked the same ways:

- per query, the distance-weighted combination of its binary measure at every relevance level t as
  pytrec_eval computes it (``AP(rel=t)``, ``P(rel=t)@k``, ``recall.k`` at relevance level t,
  ``RR(rel=t)``, ``Rprec(rel=t)``), and on binary labels that binary measure itself;
- the slow reference (tests/support/reference.py) on fixed parameters and, by hypothesis, on real
  labels with any parameters; ``ties='expected'`` against the mean over every tie order;
- a hand-computed ranking, per-query values with ``levels='collection'``, its names and its errors.

A thresholded measure registered without a :class:`Spec` here fails ``test_every_thresholded_measure_has_a_spec``.
(test_parity_pytrec_eval.py holds µAP's and µP's larger parity grids.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import ir_measures
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import AP, RR, P, R, Rprec

from ir_measures_graded import GradedInputError, muAP, muP, muR, muRprec, muRR
from ir_measures_graded.measures import MEASURES
from ir_measures_graded.measures.thresholded import ThresholdedMeasure
from support.examples import examples
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

THRESHOLDED = sorted(name for name, measure in MEASURES.items() if isinstance(measure, ThresholdedMeasure))


def pytrec_eval_recall(qrels: dict, run: dict, t: int, cutoff: int, judged_only: bool) -> dict[str, float]:
    """trec_eval's recall_k with relevance level t (ir_measures' R has no rel parameter)."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"recall.{cutoff}"}, relevance_level=t,
                                               judged_docs_only_flag=judged_only)
    return {q: v[f"recall_{cutoff}"] for q, v in evaluator.evaluate({q: d for q, d in run.items() if d}).items()}


def by_ir_measures(binary: Callable[[int, int | None, bool], ir_measures.Measure]) -> Callable:
    """``at_threshold`` through ir_measures (pytrec_eval serves ``binary(t, cutoff, judged_only)``)."""
    def at_threshold(qrels: dict, run: dict, t: int, cutoff: int | None, judged_only: bool) -> Mapping[str, float]:
        measure = binary(t, cutoff, judged_only)
        return per_query([measure], qrels, run)[measure]
    return at_threshold


# The ranking of the hand-computed cases: a(0) b(2) c(1) d(3), e(1) unretrieved; thresholds 1, 2, 3
# (distance 1 each); R^1 = 4 (b, c, d, e), R^2 = 2 (b, d), R^3 = 1 (d).
HAND_QRELS = {"q": {"a": 0, "b": 2, "c": 1, "d": 3, "e": 1}}
HAND_RUN = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
# muRR's own hand case had no unretrieved e (it changes none of its values: RR ignores R).
HAND_RR_QRELS = {"q": {"a": 0, "b": 2, "c": 1, "d": 3}}


@dataclass(frozen=True)
class Spec:
    """How one thresholded measure is checked."""

    #: ``(qrels, run, t, cutoff, judged_only) -> {query: value}``: its binary measure at level t (pytrec_eval).
    at_threshold: Callable
    #: ``cutoff -> binary measure``: what it equals on binary labels.
    binary: Callable[[int | None], ir_measures.Measure]
    #: ``(seed, cutoff)`` of the weighted parity checks, each with judged_only False and True.
    weighted: list[tuple[int, int | None]]
    #: The cutoff of the binary-label checks (None: none).
    binary_cutoff: int | None
    #: Parameters checked against the reference on a fixed collection.
    reference_params: list[dict]
    #: Hypothesis' choices of parameters (``draw_params``); the cutoff's choices first.
    drawn: dict
    #: The cutoffs of the tie checks (None: no cutoff).
    tie_cutoffs: list
    #: ``(measure, qrels, expected)`` on the hand-computed ranking.
    hand: list[tuple[ir_measures.Measure, dict, float]]
    #: Names that parse and print back to themselves.
    names: list[str]
    #: ``(measure, message)``: refused by ``validate_params`` with that message (a regex).
    errors: list[tuple[ir_measures.Measure, str]] = field(default_factory=list)


SPECS = {
    "muAP": Spec(
        at_threshold=by_ir_measures(lambda t, cutoff, judged_only: AP(rel=t, judged_only=judged_only)),
        binary=lambda cutoff: AP, weighted=[(0, None)], binary_cutoff=None,
        reference_params=[{}, {"cutoff": 3}, {"judged_only": True}, {"levels": "collection-all"},
                          {"levels": (1.5, 3)}, {"weights": "uniform"}, {"floor": 1}, {"floor": -1}],
        drawn=dict(cutoff=[None, 1, 3, 12], floor=[0, -1, 1, 0.25], weights=["distance", "uniform"],
                   judged_only=[False, True]),
        tie_cutoffs=[None, 2, 4],
        # AP^1 = (1/2 + 2/3 + 3/4) / 4, AP^2 = (1/2 + 2/4) / 2, AP^3 = 1/4
        hand=[(muAP, HAND_QRELS, ((1 / 2 + 2 / 3 + 3 / 4) / 4 + 1 / 2 + 1 / 4) / 3)],
        names=["muAP", "µAP", "muAP@10", "muAP(levels='collection')"],
        errors=[(muAP(levels=(0, 1)), r"muAP: levels=\(0, 1\) must all lie above floor=0")]),
    "muP": Spec(
        at_threshold=by_ir_measures(lambda t, cutoff, judged_only: P(rel=t, judged_only=judged_only) @ cutoff),
        binary=lambda cutoff: P @ cutoff, weighted=[(0, 5)], binary_cutoff=10,
        reference_params=[{"cutoff": 5}, {"cutoff": 1}, {"cutoff": 50, "judged_only": True},
                          {"cutoff": 10, "levels": "collection-all"}, {"cutoff": 10, "levels": (1.5, 3)},
                          {"cutoff": 10, "weights": "uniform"}, {"cutoff": 10, "floor": 1}],
        drawn=dict(cutoff=st.integers(1, 12), floor=[0, -1, 1, 0.25], weights=["distance", "uniform"],
                   judged_only=[False, True]),
        tie_cutoffs=[1, 2, 4],
        # P^1@3 = 2/3, P^2@3 = 1/3, P^3@3 = 0
        hand=[(muP @ 3, HAND_QRELS, (2 / 3 + 1 / 3 + 0) / 3)],
        names=["muP@5", "µP@5", "muP(levels='collection')@10"],
        errors=[(muP, "muP: parameter cutoff .* is required, e.g. muP@10")]),
    "muR": Spec(
        at_threshold=pytrec_eval_recall, binary=lambda cutoff: R @ cutoff,
        weighted=[(seed, cutoff) for seed in (0, 1, 2) for cutoff in (1, 5, 20, 100)], binary_cutoff=10,
        reference_params=[{"cutoff": 5}, {"cutoff": 1}, {"cutoff": 50, "judged_only": True},
                          {"cutoff": 10, "levels": "collection-all"}, {"cutoff": 10, "levels": (1.5, 3)},
                          {"cutoff": 10, "weights": "uniform"}, {"cutoff": 10, "floor": 1}],
        drawn=dict(cutoff=st.integers(1, 12), floor=[0, -1, 1, 0.25], weights=["distance", "uniform"],
                   judged_only=[False, True]),
        tie_cutoffs=[1, 2, 4],
        hand=[(muR @ 3, HAND_QRELS, (2 / 4 + 1 / 2 + 0) / 3),
              (muR(weights="uniform", levels=(1, 3)) @ 4, HAND_QRELS, (3 / 4 + 1) / 2)],
        names=["muR@10", "muRecall@5", "μR@3", "muR(levels='collection')@10"],
        errors=[(muR, "muR: parameter cutoff .* is required, e.g. muR@10")]),
    "muRR": Spec(
        at_threshold=by_ir_measures(lambda t, cutoff, judged_only: RR(rel=t, judged_only=judged_only)),
        binary=lambda cutoff: RR, weighted=[(seed, None) for seed in (0, 1, 2, 3)], binary_cutoff=None,
        reference_params=[{}, {"cutoff": 3}, {"judged_only": True}, {"levels": "collection-all"},
                          {"levels": (1.5, 3)}, {"weights": "uniform"}, {"floor": 1}, {"floor": -1, "cutoff": 10}],
        drawn=dict(cutoff=[None, 1, 3, 12], floor=[0, -1, 1, 0.25], weights=["distance", "uniform"],
                   judged_only=[False, True]),
        tie_cutoffs=[None, 1, 2, 4],
        # RR^1 = 1/2, RR^2 = 1/2, RR^3 = 1/4
        hand=[(muRR, HAND_RR_QRELS, (0.5 + 0.5 + 0.25) / 3), (muRR @ 3, HAND_RR_QRELS, (0.5 + 0.5 + 0) / 3),
              (muRR(levels=(3,)), HAND_RR_QRELS, 0.25)],
        names=["muRR", "muMRR", "μRR", "muRR(levels='1,2')@10", "muRR(floor='-1')"],
        errors=[(muRR(levels=(0, 1)), r"muRR: levels=\(0, 1\) must all lie above floor=0")]),
    "muRprec": Spec(
        at_threshold=by_ir_measures(lambda t, cutoff, judged_only: Rprec(rel=t, judged_only=judged_only)),
        binary=lambda cutoff: Rprec, weighted=[(seed, None) for seed in (0, 1, 2, 3)], binary_cutoff=None,
        reference_params=[{}, {"judged_only": True}, {"levels": "collection-all"}, {"levels": (1.5, 3)},
                          {"weights": "uniform"}, {"floor": 1}, {"floor": -1}],
        drawn=dict(floor=[0, -1, 1, 0.25], weights=["distance", "uniform"], judged_only=[False, True]),
        tie_cutoffs=[None],
        # Rprec^1: 3 of the top 4; Rprec^2: 1 of the top 2; Rprec^3: 0 of the top 1
        hand=[(muRprec, HAND_QRELS, (3 / 4 + 1 / 2 + 0) / 3)],
        names=["muRprec", "muRPrec", "μRprec", "muRprec(levels='2,3')", "muRprec(floor='-1')"],
        errors=[(muRprec @ 10, r"muRprec: unknown parameter\(s\) \['cutoff'\]")]),
}


def at(name: str, cutoff: int | None) -> ir_measures.Measure:
    """The registered measure ``name``, at ``cutoff`` unless None."""
    return MEASURES[name] if cutoff is None else MEASURES[name] @ cutoff


def cases(what: Callable[[Spec], list]) -> list:
    """``(name, case)`` for every thresholded measure and each of its cases, as pytest parameters."""
    return [pytest.param(name, case, id=f"{name}-{case!r}") for name in THRESHOLDED for case in what(SPECS[name])]


def test_every_thresholded_measure_has_a_spec():
    assert THRESHOLDED and sorted(SPECS) == THRESHOLDED


@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("name, case", cases(lambda spec: spec.weighted))
def test_is_the_weighted_binary_measure_at_each_level(name, case, judged_only):
    seed, cutoff = case
    qrels, run = random_collection(seed)
    assert_weighted_by_threshold(at(name, cutoff)(judged_only=judged_only),
                                 lambda t: SPECS[name].at_threshold(qrels, run, t, cutoff, judged_only), qrels, run)


@pytest.mark.parametrize("name", THRESHOLDED)
@pytest.mark.parametrize("seed", [0, 1])
def test_binary_labels_equal_the_binary_measure(name, seed):
    qrels, run = random_collection(seed, labels=(0, 1))
    cutoff = SPECS[name].binary_cutoff
    ours, theirs = at(name, cutoff), SPECS[name].binary(cutoff)
    values = per_query([ours, theirs], qrels, run)
    assert values[ours] == pytest.approx(values[theirs], abs=TOL)


@pytest.mark.parametrize("name", THRESHOLDED)
def test_hand_computed(name):
    for measure, qrels, expected in SPECS[name].hand:
        assert measure.calc_aggregate(qrels, HAND_RUN) == pytest.approx(expected, abs=1e-15), str(measure)


@pytest.mark.parametrize("name, params", cases(lambda spec: spec.reference_params))
def test_equals_the_slow_reference(name, params):
    qrels, run = random_collection(5, n_queries=100)
    assert_reference(MEASURES[name](**params), name, params, qrels, run)


@pytest.mark.parametrize("name", THRESHOLDED)
@settings(max_examples=examples(80), deadline=None)
@given(st.data())
def test_real_labels_and_any_parameters_equal_the_reference(name, data):
    qrels, run = data.draw(collections())
    params = draw_params(data, **SPECS[name].drawn)
    assert_reference(MEASURES[name](**params), name, params, qrels, run)


@pytest.mark.parametrize("name", THRESHOLDED)
@settings(max_examples=examples(80), deadline=None)
@given(tied_rows, st.integers(0, 2), st.data())
def test_ties_expected_is_the_mean_over_every_tie_order(name, rows, unretrieved, data):
    cutoff = data.draw(st.sampled_from(SPECS[name].tie_cutoffs))
    assert_ties_expected(at(name, cutoff), rows, unretrieved)


@pytest.mark.parametrize("name", THRESHOLDED)
def test_collection_levels_give_the_same_values_per_query(name):
    qrels, run = random_collection(6, n_queries=50)
    cutoff = SPECS[name].binary_cutoff
    query, collection = at(name, cutoff), at(name, cutoff)(levels="collection")
    values = per_query([query, collection], qrels, run)
    assert values[query] == pytest.approx(values[collection], abs=TOL)  # per query: the same


@pytest.mark.parametrize("name", THRESHOLDED)
def test_names_and_errors(name):
    for text in SPECS[name].names:
        measure = ir_measures.parse_measure(text)
        assert ir_measures.parse_measure(str(measure)) == measure
    for measure, message in SPECS[name].errors:
        with pytest.raises(GradedInputError, match=message):
            measure.validate_params()


def test_rr_at_k_follows_trec_eval_ties_not_ir_measures_rr_at_k():
    # documented (#35.19): ir_measures serves RR@k by its msmarco provider (ties by doc id ascending),
    # RR without a cutoff by pytrec_eval (trec_eval's order: ties by doc id descending), as muRR@k
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0}}
    values = ir_measures.calc_aggregate([muRR @ 5, RR @ 5, RR], qrels, run)
    assert values[muRR @ 5] == values[RR] == 0.5 and values[RR @ 5] == 1.0
    assert "msmarco" in type(muRR).__doc__
