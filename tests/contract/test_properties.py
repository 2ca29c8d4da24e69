"""Invariants of the measures (hypothesis): range, ideal ranking, scale independence, real labels."""

from __future__ import annotations

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_measures_graded import meanNDCG, meanNDCNG, muAP, muP, nDCNG
from support.examples import examples

ALL = [muAP, muAP @ 5, muAP(levels="collection"), muP @ 3, nDCNG, nDCNG @ 5, meanNDCG, meanNDCNG,
       meanNDCNG @ 12, muAP(judged_only=True), nDCNG(dcg="log2")]
SCALE_FREE = [muAP, muAP @ 5, muAP(levels="collection"), muP @ 3, nDCNG, nDCNG @ 5, meanNDCNG, meanNDCNG @ 12]

label = st.one_of(st.integers(0, 4), st.floats(0, 10, allow_nan=False).map(lambda x: round(x, 3)))
docs = st.sampled_from([f"d{i}" for i in range(12)])


@st.composite
def collections(draw, labels=label):
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 4))):
        judged = draw(st.dictionaries(docs, labels, max_size=10))
        retrieved = draw(st.dictionaries(docs, st.floats(-5, 5, allow_nan=False), max_size=10))
        qrels[f"q{q}"] = judged
        if retrieved:
            run[f"q{q}"] = retrieved
    return qrels, run


def values(measures, qrels, run):
    return {(m.query_id, m.measure): m.value for m in ir_measures.iter_calc(measures, qrels, run)}


@settings(max_examples=examples(150), deadline=None)
@given(collections())
def test_values_lie_in_unit_interval(collection):
    qrels, run = collection
    for value in values(ALL, qrels, run).values():
        assert 0.0 <= value <= 1.0 + 1e-12


@settings(max_examples=examples(150), deadline=None)
@given(collections())
def test_ideal_ranking_scores_one(collection):
    qrels, _ = collection
    ideal_run = {q: {d: float(r) for d, r in judged.items()} for q, judged in qrels.items() if judged}
    # (not muAP@k: AP@k divides by all relevant documents, so R > k keeps it below 1, as in trec_eval)
    measures = [muAP, nDCNG, nDCNG @ 3, meanNDCG, meanNDCNG, meanNDCNG @ 20, muP @ 1]
    for (qid, measure), value in values(measures, qrels, ideal_run).items():
        if any(r > 0 for r in qrels[qid].values()):
            assert value == pytest.approx(1.0, abs=1e-12), (qid, measure)
        else:
            assert value == 0.0


@settings(max_examples=examples(150), deadline=None)
@given(collections(), st.sampled_from([0.01, 0.5, 2, 3.7, 100]))
def test_scale_free_measures_ignore_multiplying_labels(collection, c):
    qrels, run = collection
    scaled = {q: {d: r * c for d, r in judged.items()} for q, judged in qrels.items()}
    before, after = values(SCALE_FREE, qrels, run), values(SCALE_FREE, scaled, run)
    assert before.keys() == after.keys()
    for key, value in before.items():
        assert after[key] == pytest.approx(value, abs=1e-9), key


def test_exponential_ndcg_does_change_with_the_scale():
    # The paper's central claim, on its own example: doubling labels lowers mean NDCG, not mean NDCNG.
    qrels = {"q": {"A": 1, "B": 0, "C": 3, "D": 3, "E": 2, "F": 0, "G": 1, "H": 4}}
    doubled = {"q": {d: 2 * r for d, r in qrels["q"].items()}}
    run = {"q": {d: 8.0 - i for i, d in enumerate("ABCDEFGH")}}
    one = ir_measures.calc_aggregate([meanNDCG, meanNDCNG, nDCNG @ 5], qrels, run)
    two = ir_measures.calc_aggregate([meanNDCG, meanNDCNG, nDCNG @ 5], doubled, run)
    assert two[meanNDCG] < one[meanNDCG] - 0.1
    assert two[meanNDCNG] == pytest.approx(one[meanNDCNG], abs=1e-12)
    assert two[nDCNG @ 5] == pytest.approx(one[nDCNG @ 5], abs=1e-12)


def test_real_valued_labels_and_explicit_levels():
    # Sec. 3.1's example levels 0.0, 0.3, 1.0: thresholds 0.3 and 1.0 weigh 0.3 and 0.7.
    qrels = {"q": {"a": 1.0, "b": 0.3, "c": 0.0, "d": 0.3}}
    run = {"q": {"b": 3.0, "a": 2.0, "c": 1.0, "d": 0.5}}
    ap_03 = (1 / 1 + 2 / 2 + 3 / 4) / 3  # a, b, d relevant at t = 0.3
    ap_10 = (1 / 2) / 1  # only a at t = 1.0
    expected = (0.3 * ap_03 + 0.7 * ap_10) / 1.0
    for measure in (muAP, muAP(levels=(0.3, 1.0)), muAP(levels="0.3,1"), muAP(levels="collection")):
        assert measure.calc_aggregate(qrels, run) == pytest.approx(expected, abs=1e-12)
    assert muAP(levels=(1.0, 0.3)) == muAP(levels="0.3,1")  # one normal form


@settings(max_examples=100, deadline=None)
@given(collections(labels=st.integers(0, 1)))
def test_binary_real_labels_mu_ap_equals_ap(collection):
    qrels, run = collection
    got = values([muAP, ir_measures.AP], qrels, run)
    for (qid, measure), value in got.items():
        if measure == muAP:
            assert value == pytest.approx(got[(qid, ir_measures.AP)], abs=1e-9)


def _with_collection_params():
    """Every registered measure, and each with every parameter value that takes something from the
    whole qrels, and some that do not (numbers in their place)."""
    from ir_measures_graded import GAP, gERR, gRBP
    from support import registered

    variants = [muAP(levels="collection"), muAP(levels="collection-all"), muP(levels="collection") @ 3,
                muAP(levels=(1, 2.5)), nDCNG(norm="collection") @ 5, meanNDCNG(norm="collection"), nDCNG(norm=7.0),
                GAP(probs={1: 0.25, 3: 0.75}), gERR(norm="collection"), gERR(norm=9.0), gRBP(norm=9.0),
                gRBP(norm="query")]
    return [*registered.instances(cutoff=5), *variants]


COLLECTION_PROBES = _with_collection_params()


@settings(max_examples=examples(60), deadline=None)
@given(collections(labels=st.integers(0, 3)), st.sampled_from([(4.0,), (4.0, 0.5, 1.5), (0.25, 8.5)]))
def test_a_measure_not_using_the_collection_ignores_other_queries_judgments(collection, extra_labels):
    """``uses_collection()`` False means a query's value never depends on other queries' judgments
    (the Spark engine then skips gathering the qrels' labels): a query with other labels added to
    the qrels changes no other query's value. Those using the collection do change somewhere."""
    qrels, run = collection
    more = {**qrels, "extra": {f"x{i}": label for i, label in enumerate(extra_labels)}}
    for measure in COLLECTION_PROBES:
        if not measure.uses_collection():
            assert others(values([measure], more, run)) == values([measure], qrels, run), measure


def others(per_query: dict) -> dict:
    return {key: value for key, value in per_query.items() if key[0] != "extra"}


def test_the_probe_sees_measures_that_use_the_collection():
    qrels = {"q0": {"a": 1, "b": 2}, "q1": {"c": 1}}
    run = {"q0": {"a": 2.0, "b": 1.0, "z": 3.0}, "q1": {"c": 1.0, "a": 2.0}}
    more = {**qrels, "extra": {"x": 4.0, "y": 0.5}}
    changed = [str(m) for m in COLLECTION_PROBES if others(values([m], more, run)) != values([m], qrels, run)]
    assert all(m.uses_collection() for m in COLLECTION_PROBES if str(m) in changed)
    assert {"GAP", "gRBP", "muAP(levels='collection-all')", "nDCNG(norm='collection')@5"} <= set(changed), changed
