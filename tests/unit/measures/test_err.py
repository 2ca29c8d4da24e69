"""gERR (Chapelle et al. 2009) against ir_measures' ERR (gdeval, Perl), its definition and the slow reference."""

from __future__ import annotations

import shutil

import ir_measures
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import ERR

import ir_measures_graded
from ir_measures_graded import GradedInputError, gERR, meta
from ir_measures_graded.meta.transforms import parse_transform
from ir_measures_graded.sample import graded_sample
from support.examples import examples
from support.measure_checks import TOL, assert_reference, draw_params, per_query
from support.random_collections import collections, random_collection


def gdeval_collection(seed: int) -> tuple[dict, dict]:
    """A random collection gdeval can read: numeric query ids, integer labels 0-4, and scores that
    tie exactly or not at all (gdeval compares doubles, trec_eval float32)."""
    qrels, run = random_collection(seed, n_queries=120)
    rng = np.random.default_rng(seed)
    run = {q: {d: float(np.round(s * 4) / 4 if rng.random() < 0.5 else rng.random()) for d, s in docs.items()}
           for q, docs in run.items()}
    return ({q[1:]: judged for q, judged in qrels.items()}, {q[1:]: docs for q, docs in run.items()})


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval (ir_measures' ERR) needs perl")
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("cutoff", [1, 5, 20, 1000])
def test_equals_ir_measures_err_from_gdeval(seed, cutoff):
    qrels, run = gdeval_collection(seed)
    values = per_query([ERR @ cutoff, gERR @ cutoff], qrels, run)
    theirs, ours = values[ERR @ cutoff], values[gERR @ cutoff]
    assert len(theirs) > 100 and theirs.keys() <= ours.keys()
    for qid, value in theirs.items():
        assert ours[qid] == pytest.approx(value, abs=5e-6 + 1e-12), qid  # gdeval prints 5 decimals
    assert sum(1 for v in theirs.values() if v > 0) > 10  # not a comparison of zeros


def test_hand_computed_from_the_definition():
    qrels = {"q": {"a": 4, "b": 0, "c": 2, "d": 3}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    r_a, r_c = 15 / 16, 3 / 16
    assert gERR.calc_aggregate(qrels, run) == pytest.approx(r_a + (1 - r_a) * r_c / 3, abs=1e-15)
    assert (gERR @ 2).calc_aggregate(qrels, run) == pytest.approx(r_a, abs=1e-15)
    # norm='query': the query's top label (4) becomes g_max, so g_max=8 means grades 8 and 4
    r_a, r_c = 255 / 256, 15 / 256
    assert gERR(g_max=8, norm="query").calc_aggregate(qrels, run) == pytest.approx(r_a + (1 - r_a) * r_c / 3)


@pytest.mark.parametrize("params", [
    {}, {"cutoff": 10}, {"judged_only": True}, {"norm": "query"}, {"norm": "collection", "g_max": 2},
    {"norm": 8.0}, {"g_max": 6}, {"gains": {1: 0.5, 4: 3}}, {"floor": 1}, {"floor": -1, "g_max": 5},
])
@pytest.mark.parametrize("seed", [3, 4])
def test_equals_the_slow_reference(params, seed):
    qrels, run = random_collection(seed, n_queries=80)
    assert_reference(gERR(**params), "gERR", gERR(**params).params, qrels, run)


@settings(max_examples=examples(80), deadline=None)
@given(st.data())
def test_string_ids_real_and_large_labels_equal_the_reference(data):
    # where gdeval cannot go: string query ids, real-valued labels, labels above 4
    qrels, run = data.draw(collections())
    params = draw_params(data, cutoff=[None, 1, 3, 12], norm=[None, "query", "collection"], floor=[0, -1, 0.25],
                         judged_only=[False, True], g_max=[12.5])  # g_max above every label drawn (10 at most)
    assert_reference(gERR(**params), "gERR", params, qrels, run)


def test_norm_query_does_not_depend_on_the_rating_scale():
    qrels, run = random_collection(5, n_queries=60)
    doubled = {q: {d: 2.5 * label for d, label in judged.items()} for q, judged in qrels.items()}
    measure = gERR(norm="query") @ 10
    assert per_query([measure], qrels, run)[measure] == pytest.approx(per_query([measure], doubled, run)[measure])
    with pytest.raises(GradedInputError, match="above g_max=4"):
        per_query([gERR @ 10], doubled, run)  # the plain scale-dependent value refuses labels above g_max


def test_refuses_labels_above_g_max_and_expected_ties():
    qrels, run = {"q1": {"a": 1, "b": 5}}, {"q1": {"a": 1.0}}
    with pytest.raises(GradedInputError, match=r"gERR: label 5 of query q1, document b gives grade 5 above g_max=4 "
                                               r"\(a stopping probability above 1\); set g_max .*g_max=5"):
        gERR.calc_aggregate(qrels, run)
    assert gERR(g_max=5).calc_aggregate(qrels, run) == pytest.approx(1 / 32)
    with pytest.raises(GradedInputError) as error:
        gERR(ties="expected").validate_params()
    assert str(error.value) == (
        "gERR: ties='expected' is not available: ERR's expected value over every order of tied documents has no "
        "closed form here, and it is not approximated; use ties='first' (trec_eval's order)")


def test_parameters_round_trip_and_is_not_ir_measures_err():
    for measure in (gERR, gERR @ 10, gERR(g_max=3), gERR(norm="query") @ 5, gERR(norm=4, floor="-1")):
        assert ir_measures.parse_measure(str(measure)) == measure
    assert ir_measures.parse_measure("ERR@10") == ERR @ 10 and ERR @ 10 != gERR @ 10
    with pytest.raises(GradedInputError, match=r"gERR: invalid g_max=0"):
        gERR(g_max=0).validate_params()
    assert per_query([gERR], {"q": {"a": 1}}, {"q": {"a": 1.0}})[gERR] == {"q": pytest.approx(1 / 16, abs=TOL)}


def test_g_max_is_the_scale_top_and_moves_with_the_labels():
    scale, shift = parse_transform("scale:2").threshold, parse_transform("shift:1").threshold
    assert str(gERR.relabelled(scale)) == str(gERR(g_max=8))
    assert str(gERR(g_max=3).relabelled(shift)) == str(gERR(g_max=3, floor=1))  # a distance above the floor
    # with a normaliser the grades are g_max * g / m: g_max is a constant, the numeric norm moves
    assert str(gERR(norm="query").relabelled(scale)) == str(gERR(norm="query"))
    assert str(gERR(norm=4, g_max=5).relabelled(scale)) == str(gERR(norm=8, g_max=5))
    qrels, runs = graded_sample()
    table = meta.scale_dependence(ir_measures_graded.experiment(qrels, runs, [gERR @ 10]), ["shift:1", "scale:2"]).set_index("transform")
    scale_free = meta.scale_dependence(ir_measures_graded.experiment(qrels, runs, [gERR(norm="query") @ 10]), ["scale:2", "scale:0.5"])
    assert (scale_free["max_abs_delta"] < 1e-12).all() and scale_free["same_ranking"].all()
    assert table.loc["shift:1", "max_abs_delta"] == 0 and table.loc["shift:1", "note"] == "computed as gERR(floor=1)@10"
    assert table.loc["scale:2", "max_abs_delta"] > 0 and table.loc["scale:2", "note"] == "computed as gERR(g_max=8)@10"


def test_grades_scaled_to_g_max_by_a_norm_by_hand():
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 2.0, "b": 1.0}}  # a, b
    # norm='query' (m = 2), g_max = 3: grades 3 * 1/2 and 3 * 2/2; stop (2^x - 1) / 2^3
    stop = [(2 ** 1.5 - 1) / 8, (2 ** 3 - 1) / 8]
    want = stop[0] / 1 + (1 - stop[0]) * stop[1] / 2
    measure = gERR(norm="query", g_max=3)
    assert ir_measures.calc_aggregate([measure], qrels, run)[measure] == pytest.approx(want, abs=1e-15)
    # a scale whose top is below 1: labels up to it are grades, no error
    small = gERR(g_max=0.5)
    qrels = {"q": {"a": 0.5, "b": 0}}
    want = (2 ** 0.5 - 1) / 2 ** 0.5
    assert ir_measures.calc_aggregate([small], qrels, run)[small] == pytest.approx(want, abs=1e-15)
