"""ir_measures' own measures of a mixed list computed a chunk of queries at a time (large qrels):
the values, and their order, of one pytrec_eval evaluator on the whole, on grouped, ungrouped and
shuffled inputs."""

from __future__ import annotations

import ir_measures
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import AP, RR, Judged, P, R, nDCG

from ir_measures_graded.engines.local import Others, dict_of_dict
from ir_measures_graded.io.readers import read_qrels_table, read_run_table
from support.examples import examples
from support.random_collections import collections, random_collection

MEASURES = [AP, nDCG @ 10, P(rel=2) @ 5, R @ 20, RR(rel=3), nDCG(gains={0: 0, 1: 1, 2: 5, 3: 9, 4: 20})]


def frame(collection: dict, field: str, order: str, seed: int = 0) -> pd.DataFrame:
    rows = [(q, d, v) for q, docs in collection.items() for d, v in docs.items()]
    out = pd.DataFrame(rows, columns=["query_id", "doc_id", field])
    if order == "shuffled" and len(out):
        out = out.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    elif order == "reversed":  # grouped, the queries in another order than the qrels'
        out = out.iloc[::-1].reset_index(drop=True)
    return out


def whole(measures: list, qrels, run) -> list:
    """The values as one evaluator gives them on the whole (what the engine did for all qrels before)."""
    return list(ir_measures.DefaultPipeline.evaluator(measures, dict_of_dict(qrels, "relevance"))
                .iter_calc(dict_of_dict(run, "score")))


@pytest.mark.parametrize("order", ["grouped", "shuffled", "reversed"])
@pytest.mark.parametrize("chunk_rows", [1, 7, 100, 10**6])
def test_chunks_give_the_values_of_the_whole_in_its_order(order: str, chunk_rows: int) -> None:
    qrels, run = random_collection(3, n_queries=60)
    q, r = frame(qrels, "relevance", order, 1), frame(run, "score", order, 2)
    expected = whole(MEASURES, q, r)
    got = list(Others(ir_measures.DefaultPipeline, MEASURES, q, chunk_rows=min(chunk_rows, len(q) - 1)).iter_calc(r))
    assert got == expected
    assert [m.value for m in got] == [m.value for m in expected]  # equal floats, bit for bit


@settings(max_examples=examples(200), deadline=None)
@given(collections(), st.integers(1, 6), st.sampled_from(["grouped", "shuffled", "reversed"]))
def test_chunks_match_the_whole_on_any_collection(collection, chunk_rows: int, order: str) -> None:
    # integral labels (pytrec_eval refuses others) and none below 0: pytrec_eval 0.5 crashes (SIGSEGV)
    # on a query judged only below 0, on the whole as on a chunk
    qrels, run = collection
    qrels = {q: {d: float(max(0, int(v))) for d, v in docs.items()} for q, docs in qrels.items()}
    q, r = frame(qrels, "relevance", order, 3), frame(run, "score", order, 4)
    if len(q) < 2:
        return
    measures = [AP, nDCG @ 10, P(rel=2) @ 5]
    expected = whole(measures, q, r)
    got = list(Others(ir_measures.DefaultPipeline, measures, q, chunk_rows=min(chunk_rows, len(q) - 1)).iter_calc(r))
    assert got == expected


def test_read_files_and_a_run_judging_nothing(tmp_path) -> None:
    qrels, run = random_collection(5, n_queries=30)
    qpath, rpath = tmp_path / "qrels", tmp_path / "run"
    qpath.write_text("".join(f"{q} 0 {d} {v}\n" for q, docs in qrels.items() for d, v in docs.items()))
    rpath.write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in run.items() for d, s in docs.items()))
    q, r = read_qrels_table(str(qpath)), read_run_table(str(rpath))
    others = Others(ir_measures.DefaultPipeline, MEASURES, q, chunk_rows=9)
    assert others.whole is None  # chunked
    assert list(others.iter_calc(r)) == whole(MEASURES, q, r)
    nothing = frame({"elsewhere": {"d1": 1.0}}, "score", "grouped")
    assert list(others.iter_calc(nothing)) == whole(MEASURES, q, nothing)


def test_another_providers_evaluator_gets_the_whole() -> None:
    qrels, run = random_collection(7, n_queries=20)
    q, r = frame(qrels, "relevance", "shuffled"), frame(run, "score", "shuffled")
    measures = [Judged @ 10, AP]  # Judged: not pytrec_eval's
    got = list(Others(ir_measures.DefaultPipeline, measures, q, chunk_rows=5).iter_calc(r))
    assert sorted(map(repr, got)) == sorted(map(repr, whole(measures, q, r)))
    assert len(got) == len(whole(measures, q, r))
