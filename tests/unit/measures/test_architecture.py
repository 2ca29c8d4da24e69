"""One place per measure: tables derived from the measure classes, parameter objects, read-only
shared state and a thread-safe evaluator."""

from __future__ import annotations

import ast
import inspect
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import ir_measures
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ir_measures_graded
from ir_measures_graded import GAP, GradedInputError, derived, meanNDCG, meanNDCNG, muAP, muP, nDCNG
from ir_measures_graded.measures import MEASURES, GradedMeasure
from ir_measures_graded.measures.params import Param
from ir_measures_graded.prepare import Judgments, Ranking
from support.examples import examples
from support.random_collections import random_collection

SRC = Path(ir_measures_graded.__file__).parent


def test_provider_tables_are_derived_from_the_registered_measures():
    provider = ir_measures.providers.registry["graded"]
    supported = {m.NAME: m for m in provider.SUPPORTED_MEASURES}
    assert list(supported) == list(MEASURES) and {"muAP", "muP", "nDCNG", "meanNDCG", "meanNDCNG", "GAP"} <= set(MEASURES)
    for name, measure in MEASURES.items():
        # AnyParam only for the parameters the measure really has
        assert set(supported[name].params) == set(measure.SUPPORTED_PARAMS)
        assert type(measure).per_query is not GradedMeasure.per_query, name
        for alias in (measure.NAME, *measure.ALIASES):
            assert ir_measures.measures.registry[alias] is measure
            assert getattr(ir_measures_graded, alias) is measure
    assert "meanNDCG" in supported and "norm" not in supported["meanNDCG"].params


def test_measure_modules_document_themselves():
    for measure in MEASURES.values():
        doc = type(measure).__doc__
        # the formula, and the citation: "A. Author, B. Author. Title. Venue, year."
        assert ".. math::" in doc and re.search(r"\n\s+[A-Z]\. [A-Z][\w'-]+[,.].*?\b(19|20)\d\d\b", doc, re.S), measure.NAME
        assert measure.PRETTY_NAME and measure.SHORT_DESC
        for param in measure.SUPPORTED_PARAMS.values():
            assert isinstance(param, Param) and param.desc and param.accepts


def test_no_sentinel_workarounds_and_one_vocabulary_in_messages():
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "_NOT_PROVIDED" not in text, path
    for measure in MEASURES.values():
        for param in measure.SUPPORTED_PARAMS.values():
            # 'level' is not a word of the vocabulary (label, threshold, floor); 'levels' is the parameter's name
            assert " level " not in f" {param.desc} {param.accepts} ".replace("levels", ""), param.desc


@pytest.mark.parametrize("measure", [
    muAP, muAP @ 10, muAP(levels="collection"), muAP(levels="collection-all"), muAP(levels=(2,)),
    muAP(levels=(1, 2.5)), muAP(weights="uniform"), muAP(floor=1, judged_only=True) @ 5, muAP(floor=-1.5),
    muP @ 5, muP(levels="collection") @ 10, nDCNG, nDCNG @ 10, nDCNG(dcg="log2", norm=4) @ 20,
    nDCNG(gains={1: 2, 2: 5}), nDCNG(gains={1: -1, 2: 5}), nDCNG(norm="collection", floor=-1), nDCNG(norm=0.5),
    meanNDCG @ 10, meanNDCNG(judged_only=True), GAP, GAP(probs={1: 1, 3: 2}) @ 7,
])
def test_str_round_trips_through_parse_measure(measure):
    parsed = ir_measures.parse_measure(str(measure))
    assert parsed == measure and str(parsed) == str(measure)


def test_one_normal_form_per_measure():
    assert muAP(levels=(2, 1)) == muAP(levels="1,2") == muAP(levels=[1.0, 2.0])
    assert muAP(floor=0) == muAP(floor="0") == muAP and str(muAP(floor="-1")) == "muAP(floor='-1')"
    assert nDCNG(gains={1: 1, 2: 5}) == nDCNG(gains={2: 5}) and nDCNG(gains={1: 1}) == nDCNG
    assert nDCNG(norm=4) == nDCNG(norm=4.0)
    assert muAP(levels="1,2")["levels"] == (1.0, 2.0) and (muAP @ 5)["cutoff"] == 5 and muAP["cutoff"] is None
    assert (muAP @ 10**30)["cutoff"] == 2**62  # deeper than any ranking; stays an int64


@pytest.fixture(scope="module")
def prepared():
    qrels, run = random_collection(3, n_queries=80)
    judgments = Judgments.from_qrels(qrels)
    return qrels, run, judgments, Ranking.from_run(run, judgments)


def test_cached_tables_are_read_only(prepared):
    _, _, judgments, ranking = prepared
    for measure in (muAP, muAP(levels="collection"), muP @ 5, nDCNG @ 10, meanNDCG, meanNDCNG, GAP):
        measure.per_query(judgments, ranking)
    assert judgments._cache
    for key, value in judgments._cache.items():
        arrays = value if isinstance(value, tuple) else (value,)
        for array in arrays:
            assert isinstance(array, np.ndarray) and not array.flags.writeable, key
            with pytest.raises(ValueError):
                array[...] = 0
    thr_ptr, thr_values = derived.thresholds(judgments, "query", 0.0)
    assert thr_values is derived.thresholds(judgments, "query", 0.0)[1]  # cached, the same read-only array


def test_per_query_values_do_not_depend_on_what_was_computed_before(prepared):
    _, _, judgments, ranking = prepared
    fresh = Judgments.from_qrels(prepared[0])
    for measure in (GAP, nDCNG @ 5, muAP):
        assert np.array_equal(measure.per_query(judgments, ranking), measure.per_query(fresh, ranking))


def test_one_evaluator_shared_by_threads():
    qrels, _ = random_collection(5, n_queries=120)
    runs = [random_collection(seed, n_queries=120)[1] for seed in range(5, 13)]
    measures = [muAP, muAP(levels="collection"), muP @ 5, nDCNG @ 10, meanNDCG, meanNDCNG @ 20, GAP @ 10,
                nDCNG(norm="collection"), muAP(judged_only=True), ir_measures.AP]
    expected = [ir_measures.evaluator(measures, qrels).calc_aggregate(run) for run in runs]
    shared = ir_measures.evaluator(measures, qrels)  # first use of its caches happens in the threads
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(shared.calc_aggregate, runs * 3))
    for i, result in enumerate(got):
        assert result == expected[i % len(runs)]


def test_adding_a_measure_needs_no_edit_outside_its_module():
    # GAP is registered, exported and served without being named anywhere but in its module
    for path in SRC.rglob("*.py"):
        if path.name == "gap.py":
            continue
        names = {n.id for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Name)}
        assert "GAP" not in names and "_GAP" not in names, path
    assert "GAP" in inspect.getsource(ir_measures_graded.measures.gap)


number = st.one_of(st.integers(-10**6, 10**6), st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False))
PARAM_VALUES = {
    "cutoff": st.one_of(st.integers(-3, 10**25), st.floats(0, 10)),
    "judged_only": st.one_of(st.booleans(), st.integers(0, 1)),
    "floor": st.one_of(number, number.map(str), st.text(max_size=3)),
    "levels": st.one_of(st.sampled_from(["query", "collection", "collection-all", "x", ""]),
                        st.lists(number, max_size=4).map(tuple), st.lists(number, max_size=4).map(
                            lambda v: ",".join(map(str, v)))),
    "weights": st.sampled_from(["distance", "uniform", "log"]),
    "ties": st.sampled_from(["first", "expected", "random", 1]),
    "gains": st.one_of(st.none(), st.dictionaries(number, number, max_size=4)),
    "dcg": st.sampled_from(["exp-log2", "log2", "exp"]),
    "norm": st.one_of(st.sampled_from(["query", "collection", "max"]), number),
    "probs": st.one_of(st.just("uniform"), st.dictionaries(number, number, max_size=4)),
}
#: Any other parameter (a measure's own number, say): numbers, numbers as text, other text, booleans.
ANY_VALUE = st.one_of(number, st.floats(-1, 2), number.map(str), st.text(max_size=3), st.booleans())


@settings(max_examples=examples(300), deadline=None)
@given(st.sampled_from(sorted(MEASURES)), st.data())
def test_any_valid_parameters_round_trip_and_invalid_ones_say_why(name, data):
    measure = MEASURES[name]
    chosen = data.draw(st.lists(st.sampled_from(sorted(measure.SUPPORTED_PARAMS)), unique=True, max_size=4))
    params = {p: data.draw(PARAM_VALUES.get(p, ANY_VALUE)) for p in chosen}
    candidate = measure(**params)
    try:
        candidate.validate_params()
    except GradedInputError as e:
        assert str(e).startswith(f"{name}: ") and "\n" not in str(e)
        return
    parsed = ir_measures.parse_measure(str(candidate))
    assert parsed == candidate and str(parsed) == str(candidate)
    parsed.validate_params()
    assert all(parsed[p] == candidate[p] for p in measure.SUPPORTED_PARAMS)
