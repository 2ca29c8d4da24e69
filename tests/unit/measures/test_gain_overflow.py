"""Exponential gains far beyond float range: 2^label - 1 overflows, but nDCG never needs it (issue #14.3)."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import ir_measures
import pytest

import ir_measures_graded as g
from ir_measures_graded import meanNDCG, meanNDCNG, nDCNG
from ir_measures_graded.sample import graded_sample


def ranked(docs: dict) -> list[str]:
    return [d for d, _ in sorted(docs.items(), key=lambda x: (float(x[1]), x[0]), reverse=True)]


def exact_ndcg_at(gains: list[int], ideal: list[int], k: int) -> Fraction:
    """nDCG@k with exponents given as integers: 2^e - 1 as exact Python integers."""
    def dcg(exponents):
        return sum(Fraction(2**e - 1) / Fraction(math.log2(i + 2)) for i, e in enumerate(exponents[:k]))
    ideal_dcg = dcg(ideal)
    return dcg(gains) / ideal_dcg if ideal_dcg else Fraction(0)


def reference(qrels: dict, run: dict, exponent, cutoff: int | None = None, mean: bool = False) -> dict:
    out = {}
    for qid, judged in qrels.items():
        docs = ranked(run.get(qid, {}))
        gains = [exponent(qid, judged.get(d, 0)) for d in docs]
        ideal = sorted((exponent(qid, label) for label in judged.values()), reverse=True)
        if mean:
            n = cutoff or len(docs)
            out[qid] = float(sum(exact_ndcg_at(gains, ideal, k) for k in range(1, n + 1)) / n) if n else 0.0
        else:
            out[qid] = float(exact_ndcg_at(gains, ideal, cutoff or len(docs)))
    return out


QRELS = {"q1": {"a": 1030, "b": 3, "c": 0, "d": 1500}, "q2": {"a": 2000, "b": 2000, "c": 1999}, "q3": {"a": 2}}
RUN = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.1, "x": 0.5}, "q2": {"c": 3.0, "b": 2.0, "a": 1.0},
       "q3": {"a": 1.0, "z": 2.0}}


def per_query(measure, qrels, run):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning either
        return {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}


@pytest.mark.parametrize("measure, cutoff, mean", [(meanNDCG, None, True), (meanNDCG @ 3, 3, True)])
def test_labels_beyond_1024_mean_ndcg(measure, cutoff, mean):
    got = per_query(measure, QRELS, RUN)
    expected = reference(QRELS, RUN, lambda q, label: label, cutoff, mean)
    assert all(math.isfinite(v) for v in got.values())
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_mapped_gain_2000_and_tiny_norm_on_the_sample():
    qrels, runs = graded_sample()
    run = runs["strong"]
    as_dicts = ({q: dict(zip(g.doc_id, g.relevance, strict=True)) for q, g in qrels.groupby("query_id")},
                {q: dict(zip(g.doc_id, g.score, strict=True)) for q, g in run.groupby("query_id")})
    mapped = per_query(meanNDCG(gains={3: 2000}), qrels, run)
    expected = reference(*as_dicts, lambda q, label: 2000 if label == 3 else int(label), mean=True)
    assert mapped == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert sum(mapped.values()) / len(mapped) == pytest.approx(0.4397, abs=1e-4)
    # norm=0.001: exponents label / 0.001 = 1000 * label
    tiny = per_query(nDCNG(norm=0.001) @ 10, qrels, run)
    expected = reference(*as_dicts, lambda q, label: 1000 * int(label), cutoff=10)
    assert tiny == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert sum(tiny.values()) / len(tiny) > 0.5


def test_ordinary_labels_unchanged_and_normalised_forms_safe():
    # the shift is zero below 2^512: the plain formula, bit for bit
    qrels = {"q": {"a": 4, "b": 1, "c": 0}}
    run = {"q": {"a": 0.1, "b": 0.9, "c": 0.5}}
    value = per_query(meanNDCG, qrels, run)["q"]
    assert value == pytest.approx(float(reference(qrels, run, lambda q, label: label, mean=True)["q"]), abs=1e-15)
    big = {"q": {d: 1e6 * label for d, label in qrels["q"].items()}}
    assert per_query(meanNDCNG, big, run)["q"] == per_query(meanNDCNG, qrels, run)["q"]
    assert math.isfinite(per_query(nDCNG(norm="collection"), big, run)["q"])


def test_measures_with_other_gains_on_one_judgments_do_not_share_a_shift():
    # exponents beyond 512 are shifted per query; a shift belongs to its gains (600 -> 1200 needs its own)
    qrels = {"q": {"a": 600.0, "b": 1.0}}
    run = {"q": {"b": 2.0, "a": 1.0}}
    plain, mapped = g.meanNDCG @ 2, g.meanNDCG(gains={600: 1200}) @ 2
    values = ir_measures.calc_aggregate([plain, mapped], qrels, run)
    assert values[plain] == pytest.approx(0.5 / math.log2(3)) and values[mapped] == pytest.approx(0.5 / math.log2(3))


def test_mean_ndcg_beyond_the_ranking_by_hand():
    # depths past the ranking's end keep its DCG: one relevant document ranked first scores 1 at every depth
    one = {"q": {"a": 1}}
    assert ir_measures.calc_aggregate([g.meanNDCG @ 3], one, {"q": {"a": 1.0}})[g.meanNDCG @ 3] == 1.0
    # no relevant document: 0 at every depth, past the ranking's end too
    assert ir_measures.calc_aggregate([g.meanNDCG @ 3], {"q": {"a": 0}}, {"q": {"a": 1.0}})[g.meanNDCG @ 3] == 0.0
