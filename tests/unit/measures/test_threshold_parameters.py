"""Threshold parameters (levels, weights, floor) pinned on a hand-sized example against the reference."""

from __future__ import annotations

import ir_measures
import pytest

from ir_measures_graded import muAP, muP
from support import reference

# Labels at the floor (0 and, with floor=1, 1) must never become thresholds.
QRELS = {"q1": {"a": 2, "b": 1, "c": 0, "e": 3}, "q2": {"a": 1, "b": 0, "d": 0}}
RUN = {"q1": {"c": 4.0, "b": 3.0, "a": 2.0, "x": 1.0}, "q2": {"b": 3.0, "d": 2.0, "a": 1.0}}

CASES = [
    (muAP(weights="uniform"), "muAP", {"weights": "uniform"}),
    (muAP(weights="uniform", floor=1), "muAP", {"weights": "uniform", "floor": 1}),
    (muAP(weights="uniform", levels="collection"), "muAP", {"weights": "uniform", "levels": "collection"}),
    (muP(weights="uniform") @ 2, "muP", {"weights": "uniform", "cutoff": 2}),
    (muAP(levels=(2,)), "muAP", {"levels": (2.0,)}),
    (muAP(floor=-1), "muAP", {"floor": -1}),
    (muAP, "muAP", {}),
]


def test_threshold_parameters_evaluated_together_each_equal_the_reference():
    # One evaluator for all: thresholds cached for one (levels, floor) must not serve another.
    measures = [measure for measure, _, _ in CASES]
    together = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, QRELS, RUN)}
    for measure, name, params in CASES:
        for qid, value in reference.per_query(name, params, QRELS, RUN).items():
            assert together[(qid, str(measure))] == pytest.approx(value, rel=1e-12), (str(measure), qid)


def test_a_label_at_the_floor_is_not_a_threshold():
    # With uniform weights, a threshold at the floor would add AP^0 (every judged document relevant).
    q2 = {m.query_id: m.value for m in ir_measures.iter_calc([muAP(weights="uniform")], QRELS, RUN)}["q2"]
    assert q2 == pytest.approx(1 / 3)  # only t = 1: 'a' (label 1) at rank 3


def test_names_at_one_threshold_and_parameter_validation():
    # per-threshold tables name the aggregate at one threshold as trec_eval does
    assert muAP.at_threshold() == "MAP" and (muP @ 10).at_threshold() == "P@10"
    cutoff = muP.SUPPORTED_PARAMS["cutoff"]  # ir_measures' ParamInfo.validate: True or False, never raises
    assert cutoff.validate(5) is True and cutoff.validate(0) is False and cutoff.validate("5") is False
