"""Named tuples streamed by query give exactly the values of the held path (issue 46 item 1).

A run given as a one-shot iterator of ``ScoredDoc`` (``ir_measures.read_trec_run(path)``, a generator)
is read a chunk at a time and evaluated query batch by query batch when it comes grouped by query;
a query seen again after others (an ungrouped run) is evaluated again from all its rows at the end.
Qrels given as an iterator are read a chunk at a time into Arrow columns. Chunks, blocks and batches
are made tiny here so that a handful of rows crosses every boundary (a query cut between blocks,
seen again three batches later, a duplicate in another batch than its first row).

Compared: the per-query values and aggregates of ``ir_measures.iter_calc`` / ``calc_aggregate`` and of
``experiment()`` on a grouped generator, an ungrouped one, a list and a pandas DataFrame: identical
floats, or the identical one-line error (a (query, doc) twice names the same two rows everywhere).
"""

from __future__ import annotations

import random

import ir_measures
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_measures import Qrel, ScoredDoc

import ir_measures_graded
from ir_measures_graded import GradedInputError, gERR, meanNDCNG, muMAP, muP, nDCNG
from support.examples import examples

MEASURES = [muMAP, nDCNG @ 5, muP @ 3, meanNDCNG, gERR]
SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])

queries = st.sampled_from(["q1", "q2", "q10", "Q2", "q3"])
docs = st.sampled_from(["d1", "d2", "d10", "D2", "d3", "d4", "dé"])


@st.composite
def collection(draw) -> tuple[list[tuple], list[tuple]]:
    """(qrels rows, run rows): few queries and documents, scores on a coarse grid (ties), and
    sometimes one (query, doc) twice in the run."""
    qrels = draw(st.lists(st.tuples(queries, docs, st.sampled_from([0, 1, 2, 3])), max_size=14,
                          unique_by=lambda r: r[:2]))
    run = draw(st.lists(st.tuples(queries, docs, st.sampled_from([0.5, 1.0, 1.5, 2.0, -1.0])), max_size=20,
                        unique_by=lambda r: r[:2]))
    run.sort(key=lambda r: r[0])  # grouped by query, as TREC files and read_trec_run give them
    if run and draw(st.booleans()) and draw(st.booleans()):
        twice = draw(st.sampled_from(run))
        run.insert(draw(st.integers(0, len(run))), (twice[0], twice[1], 0.25))
        run.sort(key=lambda r: r[0])  # still grouped, the duplicate inside its query
    return qrels, run


def _outcome(call) -> tuple[str, object]:
    try:
        return "values", call()
    except GradedInputError as ex:
        return "error", str(ex)


def _per_query(qrels, run) -> dict:
    return {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(MEASURES, qrels, run)}


def _tiny_batches(monkeypatch: pytest.MonkeyPatch, chunk: int, block: int) -> None:
    from ir_measures_graded.io import stream, tuples

    monkeypatch.setattr(tuples, "CHUNK", chunk)
    monkeypatch.setattr(tuples, "BLOCK", block)
    monkeypatch.setattr(stream, "ROWS_PER_QUERY", 0)  # a batch ends at the first query end in a block


@SETTINGS
@given(collection(), st.integers(1, 3), st.integers(1, 5), st.randoms(use_true_random=False))
def test_streamed_generators_equal_the_held_path(data, chunk, block, rng: random.Random):
    qrels_rows, run_rows = data
    shuffled = run_rows[:]
    rng.shuffle(shuffled)  # queries seen again after others
    frame = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    held_qrels = [Qrel(*r) for r in qrels_rows]
    with pytest.MonkeyPatch.context() as monkeypatch:
        _tiny_batches(monkeypatch, chunk, block)
        held = _outcome(lambda: _per_query(held_qrels, [ScoredDoc(*r) for r in run_rows]))
        assert held == _outcome(lambda: _per_query(iter(held_qrels), frame))
        assert held == _outcome(lambda: _per_query(iter(held_qrels), (ScoredDoc(*r) for r in run_rows)))
        # the same rows in another order: the values of each query are the same (an error names other rows)
        ungrouped = _outcome(lambda: _per_query(held_qrels, (ScoredDoc(*r) for r in shuffled)))
        assert ungrouped == _outcome(lambda: _per_query(held_qrels, [ScoredDoc(*r) for r in shuffled]))
        if held[0] == "values":
            assert ungrouped == held
            aggregate = ir_measures.calc_aggregate(MEASURES, held_qrels, [ScoredDoc(*r) for r in run_rows])
            assert ir_measures.calc_aggregate(MEASURES, iter(held_qrels),
                                              (ScoredDoc(*r) for r in shuffled)) == aggregate


@SETTINGS
@given(collection(), st.integers(1, 3), st.integers(1, 5))
def test_experiment_on_generators_equals_experiment_on_lists(data, chunk, block):
    qrels_rows, run_rows = data
    names = ["muMAP", "nDCNG@5", "AP"]  # with a measure of another provider: the run is read once, kept

    def table(qrels, run):
        exp = ir_measures_graded.experiment(qrels, {"r": run}, names, warn=lambda _: None)
        exact = {"value": lambda v: repr(float(v))}  # every digit, and nan equal to nan
        return ({c: [exact.get(c, str)(v) for v in exp.per_query[c]] for c in exp.per_query.columns},
                {c: [exact.get(c, str)(v) for v in exp.aggregates[c]] for c in exp.aggregates.columns})

    with pytest.MonkeyPatch.context() as monkeypatch:
        _tiny_batches(monkeypatch, chunk, block)
        held = _outcome(lambda: table([Qrel(*r) for r in qrels_rows], [ScoredDoc(*r) for r in run_rows]))
        got = _outcome(lambda: table((Qrel(*r) for r in qrels_rows), (ScoredDoc(*r) for r in run_rows)))
        assert got == held


def test_a_duplicate_in_a_streamed_run_gets_the_message_of_the_held_path():
    """Before: the streamed run said "run: row 3: ... appears again ... in a run file", the held one
    "run has the same (query, doc) more than once ... at rows 1 and 3"."""
    rows = [("q1", "d1", 1.0), ("q1", "d2", 2.0), ("q2", "d1", 1.0), ("q1", "d2", 0.5)]
    qrels = [Qrel("q1", "d1", 1), Qrel("q2", "d1", 1)]
    messages = set()
    for run in ([ScoredDoc(*r) for r in rows], (ScoredDoc(*r) for r in rows),
                pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])):
        with pytest.raises(GradedInputError) as info:
            ir_measures.calc_aggregate([muMAP], qrels, run)
        messages.add(str(info.value))
    assert messages == {"run has the same (query, doc) more than once: query 'q1', doc 'd2' at rows 1 and 3 "
                        "(ids are compared as strings: 1 and '1' are the same id)"}


@pytest.mark.parametrize("run", [[], [ScoredDoc("q1", "d1", 1.0)]])
@pytest.mark.parametrize("qrels", [[], [Qrel("q1", "d1", 1)]])
def test_empty_and_one_query_inputs(qrels, run):
    held = _outcome(lambda: _per_query(qrels, run))
    assert _outcome(lambda: _per_query(iter(qrels), iter(run))) == held
    assert _outcome(lambda: _per_query(iter(qrels), (x for x in run))) == held
