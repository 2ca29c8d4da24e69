"""Differential tests: our measures against ir_measures' real pytrec_eval provider, per query.

µAP must equal the distance-weighted combination of AP(rel=t) from ir_measures (likewise µP@k and
P(rel=t)@k), µAP must equal AP on binary labels, and NDCNG(dcg='log2') must equal nDCG.
Together the seeds below cover well over 1,000 random queries.
"""

from __future__ import annotations

from collections import defaultdict

import ir_measures
import pytest
from ir_measures import AP, P, nDCG

from ir_measures_graded import muAP, muP, nDCNG
from support.random_collections import random_collection

SEEDS = [0, 1, 2, 3, 4, 5]  # 6 x 200 = 1,200 queries
TOL = 1e-9


def per_query(measures, qrels, run, provider=ir_measures):
    out = defaultdict(dict)
    for metric in provider.iter_calc(measures, qrels, run):
        out[metric.measure][metric.query_id] = metric.value
    return out


def expected_mu(reference: dict, qrels: dict, levels_of) -> dict:
    """sum_t d_t * reference[t][q] / sum_t d_t over the query's levels (0 where it has none)."""
    expected = {}
    for qid, judged in qrels.items():
        levels = levels_of(judged)
        below, num, den = 0, 0.0, 0.0
        for t in levels:
            d = t - below
            num += d * reference[t].get(qid, 0.0)
            den += d
            below = t
        expected[qid] = num / den if den else 0.0
    return expected


def query_levels(judged: dict) -> list[int]:
    return sorted({r for r in judged.values() if r > 0})


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("cutoff", [None, 5, 20])
@pytest.mark.parametrize("judged_only", [False, True])
def test_mu_ap_is_weighted_ap_rel_t(seed, cutoff, judged_only):
    qrels, run = random_collection(seed)
    ours = muAP(judged_only=judged_only) if cutoff is None else muAP(judged_only=judged_only) @ cutoff
    theirs = {t: AP(rel=t, judged_only=judged_only) for t in (1, 2, 3, 4)}
    if cutoff is not None:
        theirs = {t: m @ cutoff for t, m in theirs.items()}
    values = per_query([ours, *theirs.values()], qrels, run)
    reference = {t: values[m] for t, m in theirs.items()}
    expected = expected_mu(reference, qrels, query_levels)
    assert set(values[ours]) == set(qrels)  # qrels queries only; run-only queries skipped
    for qid, value in values[ours].items():
        assert value == pytest.approx(expected[qid], abs=TOL), qid


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_mu_ap_collection_levels(seed):
    qrels, run = random_collection(seed)
    ours = muAP(levels="collection-all")  # every collection threshold for every query, AP^t = 0 if R^t = 0
    theirs = {t: AP(rel=t) for t in (1, 2, 3, 4)}
    values = per_query([ours, *theirs.values(), muAP, muAP(levels="collection")], qrels, run)
    expected = expected_mu({t: values[m] for t, m in theirs.items()}, qrels, lambda _: [1, 2, 3, 4])
    for qid, value in values[ours].items():
        assert value == pytest.approx(expected[qid], abs=TOL), qid
        # levels='collection' scores a query at the thresholds it reaches: Eq. 4, as levels='query'
        assert values[muAP(levels="collection")][qid] == pytest.approx(values[muAP][qid], abs=TOL), qid


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("cutoff", [1, 5, 10, 30])
@pytest.mark.parametrize("judged_only", [False, True])
def test_mu_p_is_weighted_p_rel_t(seed, cutoff, judged_only):
    qrels, run = random_collection(seed)
    ours = muP(judged_only=judged_only) @ cutoff
    theirs = {t: P(rel=t, judged_only=judged_only) @ cutoff for t in (1, 2, 3, 4)}
    values = per_query([ours, *theirs.values()], qrels, run)
    expected = expected_mu({t: values[m] for t, m in theirs.items()}, qrels, query_levels)
    for qid, value in values[ours].items():
        assert value == pytest.approx(expected[qid], abs=TOL), qid


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("cutoff", [None, 10])
def test_binary_labels_mu_ap_equals_ap_and_mu_p_equals_p(seed, cutoff):
    qrels, run = random_collection(seed, labels=(0, 1))
    mu, ap = (muAP, AP) if cutoff is None else (muAP @ cutoff, AP @ cutoff)
    values = per_query([mu, ap, muP @ 5, P @ 5], qrels, run)
    assert values[mu].keys() == values[ap].keys()
    for qid in values[ap]:
        assert values[mu][qid] == pytest.approx(values[ap][qid], abs=TOL), qid
        assert values[muP @ 5][qid] == pytest.approx(values[P @ 5][qid], abs=TOL), qid


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("cutoff", [None, 1, 5, 20])
@pytest.mark.parametrize("judged_only", [False, True])
def test_ndcng_linear_equals_ndcg(seed, cutoff, judged_only):
    qrels, run = random_collection(seed)
    ours = nDCNG(dcg="log2", judged_only=judged_only)
    theirs = nDCG(judged_only=judged_only)
    if cutoff is not None:
        ours, theirs = ours @ cutoff, theirs @ cutoff
    values = per_query([ours, theirs], qrels, run)
    assert values[ours].keys() == values[theirs].keys()
    for qid in values[theirs]:
        assert values[ours][qid] == pytest.approx(values[theirs][qid], abs=TOL), qid


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_ndcng_linear_with_gains_equals_ndcg_with_gains(seed):
    qrels, run = random_collection(seed)
    gains = {0: 0, 1: 1, 2: 3, 3: 7, 4: 15}
    ours, theirs = nDCNG(dcg="log2", gains=gains) @ 10, nDCG(gains=gains) @ 10
    values = per_query([ours, theirs], qrels, run)
    for qid in values[theirs]:
        assert values[ours][qid] == pytest.approx(values[theirs][qid], abs=TOL), qid


def test_mixed_list_served_by_two_providers_agrees_with_separate_calls():
    qrels, run = random_collection(11)
    mixed = per_query([muAP, nDCNG @ 10, AP, nDCG @ 10, P @ 5], qrels, run)
    alone = per_query([muAP, nDCNG @ 10], qrels, run, provider=ir_measures.providers.registry["graded"])
    assert mixed[muAP] == alone[muAP]
    assert mixed[nDCNG @ 10] == alone[nDCNG @ 10]


def test_differential_tests_cover_over_a_thousand_judged_queries():
    collections = [random_collection(seed) for seed in SEEDS]
    assert sum(len(qrels) for qrels, _ in collections) >= 1000
    assert sum(len(set(qrels) & set(run)) for qrels, run in collections) >= 1000
