"""GAP against the paper's direct definition (Robertson, Kanoulas & Yilmaz, SIGIR 2010), computed slowly."""

from __future__ import annotations

from collections import defaultdict

import ir_measures
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import AP

from ir_measures_graded import GAP, GradedInputError
from support import reference
from support.examples import examples
from support.random_collections import random_collection

TOL = 1e-9


def ranked(docs: dict) -> list[str]:
    """ir_measures' default order: score descending as float32, ties by doc id descending."""
    return [d for d, _ in sorted(docs.items(), key=lambda x: (np.float32(x[1]), x[0]), reverse=True)]


def reference_gap(qrels: dict, run: dict, probs: dict | None = None, cutoff: int | None = None,
                  judged_only: bool = False, floor: float = 0.0) -> dict:
    """GAP per query from the paper's pairwise definition (:func:`reference.gap`)."""
    return {qid: reference.gap(qrels, run, qid, cutoff, judged_only, floor, probs or "uniform") for qid in qrels}


def per_query(measures, qrels, run):
    out = defaultdict(dict)
    for metric in ir_measures.iter_calc(measures, qrels, run):
        out[metric.measure][metric.query_id] = metric.value
    return out


def test_hand_computed_example():
    # grades 1, 2 equally likely; ranking a(2) b(0) c(1); d(2) judged, unretrieved
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "d": 2}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    # n=1: δ11 = 1; n=3: (δ13 + δ33)/3 = (0.5 + 0.5)/3; denominator 1 + 0.5 + 1 = 2.5
    expected = (1 + 1 / 3) / 2.5
    assert GAP.calc_aggregate(qrels, run) == pytest.approx(expected, abs=1e-12)
    assert reference_gap(qrels, run)["q"] == pytest.approx(expected, abs=1e-12)
    # grade 2 only: AP with relevant {a, d}: (1/1) / 2
    assert GAP(probs={2: 1}).calc_aggregate(qrels, run) == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("measure, kwargs", [
    (GAP, {}),
    (GAP @ 5, {"cutoff": 5}),
    (GAP @ 1, {"cutoff": 1}),
    (GAP @ 100, {"cutoff": 100}),
    (GAP(judged_only=True) @ 10, {"judged_only": True, "cutoff": 10}),
    (GAP(probs={1: 0.1, 3: 0.6, 4: 0.3}), {"probs": {1: 0.1, 3: 0.6, 4: 0.3}}),
    (GAP(probs={2.5: 1, 4: 3}), {"probs": {2.5: 1, 4: 3}}),
    (GAP(floor=1), {"floor": 1}),
    (GAP(floor="-1"), {"floor": -1}),
])
def test_equals_the_direct_definition(seed, measure, kwargs):
    qrels, run = random_collection(seed, n_queries=60)
    got = per_query([measure], qrels, run)[measure]
    expected = reference_gap(qrels, run, **kwargs)
    assert set(got) == set(expected)
    for qid, value in got.items():
        assert value == pytest.approx(expected[qid], abs=TOL), qid


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_real_valued_labels_equal_the_direct_definition(data):
    labels = st.floats(-1, 3, allow_nan=False).map(lambda x: round(x, 1))
    docs = st.sampled_from([f"d{i}" for i in range(8)])
    qrels = {f"q{i}": data.draw(st.dictionaries(docs, labels, max_size=8)) for i in range(3)}
    run = {f"q{i}": data.draw(st.dictionaries(docs, st.floats(-3, 3, allow_nan=False), max_size=8)) for i in range(3)}
    cutoff = data.draw(st.sampled_from([None, 1, 3, 20]))
    measure = GAP if cutoff is None else GAP @ cutoff
    got = per_query([measure], qrels, run)[measure]
    expected = reference_gap(qrels, run, cutoff=cutoff)
    for qid in qrels:
        assert got[qid] == pytest.approx(expected[qid], abs=TOL)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("cutoff", [None, 5])
def test_one_grade_equals_ap(seed, cutoff):
    qrels, run = random_collection(seed, labels=(0, 1))
    gap, ap = (GAP, AP) if cutoff is None else (GAP @ cutoff, AP @ cutoff)
    values = per_query([gap, ap], qrels, run)  # AP from pytrec_eval
    for qid, value in values[gap].items():
        assert value == pytest.approx(values[ap][qid], abs=TOL), qid
    # any single threshold: GAP(probs={t: 1}) is AP(rel=t)
    qrels, run = random_collection(seed)
    values = per_query([GAP(probs={3: 1}), AP(rel=3)], qrels, run)
    for qid, value in values[GAP(probs={3: 1})].items():
        assert value == pytest.approx(values[AP(rel=3)][qid], abs=TOL), qid


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("cutoff", [None, 10])
def test_weighted_combination_of_ap_at_each_threshold(seed, cutoff):
    """Verified, not assumed: GAP = Σ_j g_j R_j AP^j / Σ_j g_j R_j (R_j = judged docs with label >= j)."""
    qrels, run = random_collection(seed)
    probs = {1: 0.4, 2: 0.1, 3: 0.2, 4: 0.3}
    gap = GAP(probs=probs) if cutoff is None else GAP(probs=probs) @ cutoff
    aps = {t: AP(rel=t) if cutoff is None else AP(rel=t) @ cutoff for t in probs}
    values = per_query([gap, *aps.values()], qrels, run)
    for qid, judged in qrels.items():
        r = {t: sum(1 for label in judged.values() if label >= t) for t in probs}
        weight = {t: probs[t] * r[t] for t in probs}
        total = sum(weight.values())
        expected = sum(weight[t] * values[aps[t]][qid] for t in probs) / total if total else 0.0
        assert values[gap][qid] == pytest.approx(expected, abs=TOL), qid
        assert reference_gap(qrels, run, probs, cutoff)[qid] == pytest.approx(expected, abs=TOL), qid


def test_parameters_round_trip_and_errors():
    for measure in (GAP, GAP @ 10, GAP(probs={1: 1, 2: 3}), GAP(floor="-1", judged_only=True) @ 5):
        assert ir_measures.parse_measure(str(measure)) == measure
    assert str(GAP(probs={1: 1, 2: 3})) == "GAP(probs={1:0.25,2:0.75})"
    assert GAP(probs={2: 2, 1: 2}) == GAP(probs={1: 0.5, 2: 0.5})
    for bad, message in [
        (GAP(probs={1: -1}), r"GAP: invalid probs=\{1: -1\} \(weights must be non-negative"),
        (GAP(probs={0: 1}), r"GAP: probs=\{0: 1\} must give thresholds above floor=0"),
        (GAP(probs="equal"), r"GAP: invalid probs='equal'"),
        (GAP(levels="query"), r"GAP: unknown parameter\(s\) \['levels'\]"),
    ]:
        with pytest.raises(GradedInputError, match=message):
            bad.validate_params()


def test_registered_and_served_by_the_graded_provider():
    assert ir_measures.parse_measure("GAP@10") == GAP @ 10
    provider = ir_measures.providers.registry["graded"]
    assert provider.supports(GAP @ 10)
    assert any(m.NAME == "GAP" for m in provider.SUPPORTED_MEASURES)


def test_probabilities_may_be_zero_or_fractional_but_not_negative_or_all_zero():
    assert str(GAP(probs={1: 0, 2: 1})) == str(GAP(probs={2: 1}))  # a zero drops its threshold
    assert str(GAP(probs={1: 0.25, 2: 0.75})) == "GAP(probs={1:0.25,2:0.75})"
    for bad, message in [
        (GAP(probs={1: -1, 2: 2}), r"GAP: invalid probs=\{1: -1, 2: 2\} \(weights must be non-negative"),
        (GAP(probs={1: 0, 2: 0}), r"GAP: invalid probs=\{1: 0, 2: 0\} \(weights must be non-negative and not all zero"),
        (GAP(floor=2, probs={1: 1}), r"GAP: probs=\{1: 1\} must give thresholds above floor=2"),
    ]:
        with pytest.raises(GradedInputError, match=message):
            bad.validate_params()
