"""trec_eval's own multi-graded test data against trec_eval's own reference output.

``trec_eval -m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test`` (tests/data): its
``map`` is AP with labels >= 2 relevant, its ``ndcg`` the linear-gain nDCG with negative labels
contributing nothing. µAP with ``levels=(2,)`` and ``NDCNG(dcg='log2')`` must reproduce both,
per query and overall, to trec_eval's printed 4 decimals.
"""

from __future__ import annotations

import ir_measures
import pytest

from ir_measures_graded import muAP, nDCNG
from ir_measures_graded.sample import trec_eval_example
from support.paths import DATA

REFERENCE = DATA / "trec_eval_out.test.aql"


def reference(measure_name: str) -> dict[str, float]:
    values = {}
    for line in REFERENCE.read_text().splitlines():
        name, qid, value = line.split()
        if name == measure_name:
            values[qid] = float(value)
    return values


@pytest.mark.parametrize(
    "ours, trec_name",
    [(muAP(levels=(2,)), "map"), (muAP(levels="2"), "map"), (nDCNG(dcg="log2"), "ndcg")],
    ids=["muAP-levels-2", "muAP-levels-str", "NDCNG-log2"],
)
def test_matches_trec_eval_reference_output(ours, trec_name):
    qrels, run = trec_eval_example()
    expected = reference(trec_name)
    result = ours.calc(qrels, run)
    per_query = {m.query_id: m.value for m in result.per_query}
    assert set(per_query) == set(expected) - {"all"}
    for qid, value in per_query.items():
        assert round(value, 4) == expected[qid], qid
    assert round(result.aggregated, 4) == expected["all"]


def test_fixture_is_multi_graded_with_negative_labels():
    qrels, _ = trec_eval_example()
    assert set(qrels["relevance"]) == {-1, 0, 1, 2, 3, 4}


def test_mu_ap_on_fixture_is_weighted_ap_from_pytrec_eval():
    qrels, run = trec_eval_example()
    aps = [ir_measures.AP(rel=t) for t in (1, 2, 3, 4)]
    values = {(m.query_id, m.measure): m.value for m in ir_measures.iter_calc([muAP, *aps], qrels, run)}
    for qid in ("301", "302", "303"):
        levels = sorted({int(r) for r in qrels[qrels.query_id == qid].relevance if r > 0})
        below, num = 0, 0.0
        for t in levels:
            num += (t - below) * values[(qid, ir_measures.AP(rel=t))]
            below = t
        assert values[(qid, muAP)] == pytest.approx(num / levels[-1], abs=1e-12)
