"""Gain parameters pinned on hand-sized examples, each against the slow reference and against the
value the parameter would give if it were ignored (mutation testing found both unpinned)."""

from __future__ import annotations

import ir_measures
import pytest

from ir_measures_graded import meanNDCG, meanNDCNG, muAP, nDCNG
from support import reference

QRELS = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"a": 4, "b": 1, "d": 3}}
RUN = {"q1": {"c": 3.0, "b": 2.0, "a": 1.0}, "q2": {"b": 3.0, "d": 2.0, "a": 1.0}}


def per_query(measure):
    return {m.query_id: m.value for m in ir_measures.iter_calc([measure], QRELS, RUN)}


@pytest.mark.parametrize("measure, name, params", [
    (nDCNG(norm="collection"), "nDCNG", {"norm": "collection"}),
    (nDCNG(norm="collection") @ 2, "nDCNG", {"norm": "collection", "cutoff": 2}),
    (meanNDCNG(norm="collection"), "meanNDCNG", {"norm": "collection"}),
])
def test_norm_collection_divides_by_the_highest_gain_of_the_qrels(measure, name, params):
    got = per_query(measure)
    assert got == pytest.approx(reference.per_query(name, params, QRELS, RUN), rel=1e-12)
    # q1's own highest gain is 2, the collection's 4: the values must differ from norm='query'
    by_query = per_query(measure(norm="query"))
    assert got["q1"] != pytest.approx(by_query["q1"], rel=1e-6)
    assert got["q2"] == pytest.approx(by_query["q2"], rel=1e-12)  # q2 holds the collection's top


@pytest.mark.parametrize("measure, name, params", [
    (nDCNG(gains={1: 3, 2: 5}, floor=2), "nDCNG", {"gains": {1: 3, 2: 5}, "floor": 2}),
    (meanNDCG(gains={1: 3, 2: 5, 4: 6}, floor=2), "meanNDCG", {"gains": {1: 3, 2: 5, 4: 6}, "floor": 2}),
    (meanNDCG(gains={0: 1, 1: 2}, floor=-1) @ 3, "meanNDCG", {"gains": {0: 1, 1: 2}, "floor": -1, "cutoff": 3}),
])
def test_floor_applies_to_mapped_gains(measure, name, params):
    got = per_query(measure)
    assert got == pytest.approx(reference.per_query(name, params, QRELS, RUN), rel=1e-12)
    without_floor = {k: v for k, v in params.items() if k != "floor"}
    ignored = reference.per_query(name, without_floor, QRELS, RUN)
    assert any(got[q] != pytest.approx(ignored[q], rel=1e-6) for q in got)


def test_measures_differing_only_in_gains_do_not_share_cached_tables():
    # One evaluator, one qrels: each gains mapping has its own normaliser and ideal ranking.
    measures = [nDCNG(gains={2: 10}), nDCNG(gains={1: 10}), meanNDCG(gains={4: 0}), meanNDCG(gains={4: 9})]
    together = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, QRELS, RUN)}
    for measure in measures:
        name, params = measure.NAME, {"gains": measure["gains"]}
        expected = reference.per_query(name, params, QRELS, RUN)
        for qid, value in expected.items():
            assert together[(qid, str(measure))] == pytest.approx(value, rel=1e-12), (str(measure), qid)


@pytest.mark.parametrize("measure", [muAP(floor=0.5), muAP(floor=-1), nDCNG(floor=0.25, norm=0.5) @ 3])
def test_printed_measure_parses_back_to_itself(measure):
    assert ir_measures.parse_measure(str(measure)) == measure
