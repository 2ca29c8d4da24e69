"""trec_eval's ``-M`` (issue 52, item 5): ``Reading(depth=N)`` / ``-M N`` count only the top N documents of each
query of a run, for every measure (ours and ir_measures'), on every path a run takes: read whole (in memory, an
Arrow table, a file), streamed (a one-shot iterator, a file scanned by query batches). Each is checked against
the run cut by a slow, obviously correct pandas reference and evaluated without a depth."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ir_measures_graded import experiment, muAP, muP, nDCNG
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments.evaluation import Reading
from ir_measures_graded.prepare import top_rows
from support.cli import ERROR, run_main
from support.paths import QRELS, STRONG
from support.random_collections import collections

OURS = [muAP, muP @ 3, nDCNG @ 5, nDCNG]
THEIRS = [ir_measures.AP, ir_measures.nDCG @ 5, ir_measures.P @ 3, ir_measures.RR, ir_measures.R @ 4]


def reference_cut(run: dict, depth: int) -> dict:
    """The top ``depth`` documents of each query, as trec_eval ranks them: score read as float32 descending,
    ties by doc id descending (Python's string order is the byte order on these ASCII ids)."""
    rows = [(q, d, float(np.float32(s)) + 0.0) for q, docs in run.items() for d, s in docs.items()]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    frame = frame.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
    kept = frame.groupby("query_id", sort=False).head(depth)
    cut: dict = {q: {} for q in run}  # a query with no document stays one
    for q, d in zip(kept["query_id"], kept["doc_id"], strict=True):
        cut[q][d] = run[q][d]
    return cut


def values(qrels, run, measures, depth=None, **reading) -> tuple[pd.DataFrame, dict]:
    done = experiment(qrels, [run], measures, names=["r"], reading=Reading(depth=depth, **reading),
                      warn=lambda _: None)
    per_query = done.per_query.sort_values(["measure", "query_id"]).reset_index(drop=True)
    return per_query, {m: v for m, v in zip(done.aggregates["measure"], done.aggregates["value"], strict=True)}


def same(got, expected) -> None:
    pd.testing.assert_frame_equal(got[0], expected[0], rtol=1e-12, atol=1e-12)
    assert got[1].keys() == expected[1].keys()
    for m, v in expected[1].items():
        assert got[1][m] == pytest.approx(v, rel=1e-12, abs=1e-12, nan_ok=True), m


def as_table(run: dict) -> pa.Table:
    rows = [(q, d, float(s)) for q, docs in run.items() for d, s in docs.items()]
    return pa.table({"query_id": pa.array([r[0] for r in rows], pa.string()),
                     "doc_id": pa.array([r[1] for r in rows], pa.string()),
                     "score": pa.array([r[2] for r in rows], pa.float64())})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.integers(1, 10))
def test_our_measures_at_a_depth_equal_them_on_the_run_cut_by_the_reference(collection, depth):
    qrels, run = collection
    expected = values(qrels, reference_cut(run, depth), OURS)
    same(values(qrels, run, OURS, depth), expected)  # in memory: columns cut once
    same(values(qrels, as_table(run), OURS, depth), expected)  # an Arrow table: cut as a table


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.integers(1, 10))
def test_ir_measures_measures_at_a_depth_equal_them_on_the_run_cut_by_the_reference(collection, depth):
    qrels, run = collection
    qrels = {q: {d: int(round(v)) for d, v in docs.items()} for q, docs in qrels.items()}  # pytrec_eval's labels
    measures = [*THEIRS, muAP]  # a mixed list: pytrec_eval and ours on the same cut run
    same(values(qrels, run, measures, depth), values(qrels, reference_cut(run, depth), measures))
    same(values(qrels, as_table(run), measures, depth), values(qrels, reference_cut(run, depth), measures))


@settings(max_examples=40, deadline=None)
@given(collections(), st.integers(1, 10))
def test_a_streamed_run_is_cut_per_query_as_a_run_read_whole(collection, depth):
    qrels, run = collection
    scored = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    streamed = values(qrels, iter(scored), OURS, depth, keep=False)
    expected = values(qrels, reference_cut(run, depth), OURS, keep=False)
    same(streamed, expected)


def test_a_scanned_file_is_cut_as_the_small_reader_cuts_it(tmp_path):
    """A run file scanned by query batches (qrels in memory, the run not kept) and the same file read whole."""
    qrels = pd.read_csv(QRELS, sep=r"\s+", header=None, names=["query_id", "it", "doc_id", "relevance"],
                        dtype={"query_id": str, "doc_id": str}).drop(columns="it")
    for depth in (1, 3, 10):
        scanned = values(qrels, STRONG, OURS, depth, keep=False)
        whole = values(QRELS, STRONG, OURS, depth)
        same(scanned, whole)
        assert scanned[1] != values(QRELS, STRONG, OURS)[1]  # the depth changes the values


def test_top_rows_keeps_the_first_rows_of_each_query_in_trec_eval_order():
    query = np.array([0, 0, 0, 1, 1, 0])
    score = np.array([1.0, 2.0, 2.0 + 1e-9, 5.0, 4.0, 0.5])  # rows 1 and 2 tie once read as float32
    ids = pa.array(["a", "b", "c", "x", "y", "z"])
    assert top_rows(query, None, ids, score, 1).tolist() == [2, 3]  # the tie goes to the doc id descending: c
    assert top_rows(query, None, ids, score, 2).tolist() == [1, 2, 3, 4]
    assert top_rows(query, None, ids, score, 10).tolist() == [0, 1, 2, 3, 4, 5]


def test_the_kept_run_is_the_cut_run_so_every_view_takes_what_was_evaluated():
    done = experiment(QRELS, [STRONG], [muAP], reading=Reading(depth=3), warn=lambda _: None)
    kept = done.run_input(done.runs[0])
    assert len(kept) == 3 * len(done.judged) and done.inputs[0].rows > len(kept)  # rows: as read
    table = done.breakdown().groupby("of")["contribution"].sum()  # the breakdown adds up to the cut run's value
    assert table[done.labels[0]] == pytest.approx(done.aggregates["value"].iloc[0], abs=1e-12)


@pytest.mark.parametrize("depth", [0, -1, 2.5, True, "3"])
def test_a_depth_below_one_or_not_whole_is_one_line(depth):
    with pytest.raises(GradedInputError, match=r"^the depth \(-M\) is how many documents of each query count: a "
                                               r"whole number of at least 1, got "):
        Reading(depth=depth)


@pytest.mark.parametrize("depth", ["0", "-3"])
def test_the_command_line_refuses_a_depth_below_one_in_one_line(capsys, depth):
    _, err = run_main(capsys, QRELS, STRONG, "muMAP", "-M", depth, rc=2)
    assert err == f"{ERROR}the depth (-M) is how many documents of each query count: a whole number of at least 1, " \
                  f"got {int(depth)}\n"


def test_the_command_line_depth_is_the_api_depth(capsys):
    out, _ = run_main(capsys, QRELS, STRONG, "muMAP", "AP", "nDCNG@10", "-M", "5", "-p", "-1")
    done = experiment(QRELS, [STRONG], ["muMAP", "AP", "nDCNG@10"], reading=Reading(depth=5), warn=lambda _: None)
    printed = {line.split("\t")[-2]: float(line.split("\t")[-1]) for line in out.splitlines() if line}
    assert printed == dict(zip(done.aggregates["measure"], done.aggregates["value"], strict=True))
    full, _ = run_main(capsys, QRELS, STRONG, "muMAP", "AP", "nDCNG@10", "-p", "-1")
    assert full != out


def test_the_spark_engine_refuses_a_depth_in_one_line():
    from ir_measures_graded import engines

    with pytest.raises(GradedInputError, match=r"^the Spark engine reads every document of a run: it has no depth "
                                               r"\(-M\); use the local engine$"):
        experiment(QRELS, [STRONG], [muAP], engine="spark", reading=Reading(depth=5))
    request = engines.Request(qrels=QRELS, runs=[STRONG], measures=[muAP], depth=5)
    pytest.importorskip("pyspark")
    from ir_measures_graded.engines.spark import SparkEngine

    with pytest.raises(GradedInputError, match=r"^--engine spark reads every document of a run: it has no depth"):
        SparkEngine(None).evaluate(request)
