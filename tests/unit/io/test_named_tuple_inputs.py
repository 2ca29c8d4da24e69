"""Named tuples as inputs (issue 46 item 1, issue 44 items 4 and 6): ir_measures' ``Qrel`` / ``ScoredDoc``
in a list or a one-shot iterator (``read_trec_qrels(path)``, ``read_trec_run(path)``, a generator) are
converted a small chunk at a time, never held as Python objects; a one-shot input is read once."""

from __future__ import annotations

import collections

import ir_measures
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from ir_measures import Qrel, ScoredDoc

import ir_measures_graded
from ir_measures_graded import GradedInputError, muMAP, nDCNG
from ir_measures_graded.io.columns import qrels_columns, run_columns


class Alive:
    """Yields named tuples made from rows and records the most alive at once (yielded, not yet freed)."""

    def __init__(self) -> None:
        self.made = self.freed = self.most = 0

    def items(self, rows: list[tuple], fields: str):
        counter = self

        class Tracked(collections.namedtuple("Tracked", fields)):
            __slots__ = ()

            def __del__(self) -> None:  # a tuple takes no weak reference: counted as it is freed
                counter.freed += 1

        for row in rows:
            self.made += 1
            self.most = max(self.most, self.made - self.freed)
            yield Tracked(*row)


#: Named tuples alive at once while an input of tens of thousands is read: a few chunks, not the input.
FEW = 2_000


def _run_rows(n_queries: int, docs: int) -> list[tuple]:
    rng = np.random.default_rng(3)
    return [(f"q{q}", f"d{d}", float(s)) for q in range(n_queries) for d, s in
            zip(range(docs), np.round(rng.normal(size=docs), 2), strict=True)]


def _qrels_rows(n_queries: int, docs: int) -> list[tuple]:
    return [(f"q{q}", f"d{d}", (q + d) % 4) for q in range(n_queries) for d in range(0, docs, 3)]


def test_a_qrels_generator_is_never_held_as_python_tuples():
    """Before: ``list(qrels)`` held every judgment (a named tuple, two strings and a number each)."""
    alive = Alive()
    rows = _qrels_rows(50, 3000)  # 50,000 judgments
    cols = qrels_columns(alive.items(rows, "query_id doc_id relevance"))
    assert len(cols) == len(rows)
    assert alive.most <= FEW, alive.most


def test_a_run_generator_is_evaluated_holding_a_chunk_of_tuples_at_a_time():
    """The run through ``ir_measures.calc_aggregate`` (our provider streams it by query batches)."""
    alive = Alive()
    qrels = [Qrel(*r) for r in _qrels_rows(40, 2000)]
    run = _run_rows(40, 2000)  # 80,000 rows
    got = ir_measures.calc_aggregate([muMAP, nDCNG @ 10], iter(qrels), alive.items(run, "query_id doc_id score"))
    assert alive.most <= FEW, alive.most
    frame = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    assert got == ir_measures.calc_aggregate([muMAP, nDCNG @ 10], qrels, frame)


@pytest.mark.parametrize("form", ["list", "generator"])
def test_named_tuples_give_the_columns_of_a_frame(form):
    rows = [("q1", "d1", 2.0), ("q1", 7, 0.5), ("q2", "d1", 1.0)]  # an integer id is its decimal string
    items = [ScoredDoc(*r) for r in rows]
    cols = run_columns(iter(items) if form == "generator" else items)
    frame = run_columns(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    assert cols.query_ids.tolist() == frame.query_ids.tolist() == ["q1", "q2"]
    assert np.array_equal(cols.values, frame.values)
    assert [str(d) for d in cols.doc_ids.take(pa.array(cols.doc_codes)).to_pylist()] == ["d1", "7", "d1"]


@pytest.mark.parametrize("bad, message", [
    (True, "run row 600 (query 'q2', doc 'd0'): score True is a bool, not a real number"),
    ("2", "run row 600 (query 'q2', doc 'd0'): score '2' is a str, not a number"),
    (float("nan"), "run row 600 (query 'q2', doc 'd0'): score nan is not a finite number"),
])
def test_a_bad_value_past_the_first_chunk_is_named_by_its_row_in_the_whole_input(bad, message):
    rows = _run_rows(3, 300)
    rows[600] = (rows[600][0], rows[600][1], bad)
    for form in (lambda: iter([ScoredDoc(*r) for r in rows]), lambda: [ScoredDoc(*r) for r in rows]):
        with pytest.raises(GradedInputError) as info:
            run_columns(form())
        assert str(info.value) == message


def test_a_bad_id_past_the_first_chunk_is_named_by_its_row():
    rows = _run_rows(3, 300)
    rows[700] = (rows[700][0], b"d1", 1.0)
    with pytest.raises(GradedInputError, match=r"^run row 700: doc_id b'd1' is a bytes; ids must be strings"):
        run_columns(iter([ScoredDoc(*r) for r in rows]))


def test_items_of_other_kinds_are_refused_as_before():
    with pytest.raises(GradedInputError, match=r"run iterable must yield named tuples \(e.g. ir_measures.ScoredDoc\)"):
        run_columns(iter([("q", "d", 1.0)]))
    with pytest.raises(GradedInputError, match=r"missing field\(s\) \['score'\]"):
        run_columns([Qrel("q", "d", 1)])
    with pytest.raises(GradedInputError, match="run item without the fields query_id, doc_id, score"):
        run_columns([ScoredDoc("q", "d", 1.0)] * 300 + [("q", "d", 1.0)])


def test_a_one_shot_input_read_again_is_refused_not_scored_zero():
    """Before: the spent generator held no rows, and the query scored 0 in silence."""
    qrels = [Qrel("q1", "d1", 1)]
    generator = (x for x in [ScoredDoc("q1", "d1", 1.0)])
    assert ir_measures.calc_aggregate([muMAP], qrels, generator)[muMAP] == 1.0
    with pytest.raises(GradedInputError, match=r"^the run generator was read already \(an iterator or record batch "
                                               r"reader can be read once\): give a new one"):
        ir_measures.calc_aggregate([muMAP], qrels, generator)


def test_a_record_batch_reader_read_again_is_refused(tmp_path):
    table = pa.table({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    ir_measures_graded.experiment([Qrel("q1", "d1", 1)], [reader], ["muMAP"])
    with pytest.raises(GradedInputError, match="the run RecordBatchReader was read already"):
        ir_measures_graded.experiment([Qrel("q1", "d1", 1)], [reader], ["muMAP"])


def test_one_run_given_as_named_tuples_is_one_run_not_a_run_per_tuple():
    from ir_measures_graded.io import tuples

    assert tuples.is_tuple_sequence([ScoredDoc("q", "d", 1.0)], "score")
    assert not tuples.is_tuple_sequence([[ScoredDoc("q", "d", 1.0)]], "score")  # a list of runs
    assert not tuples.is_tuple_sequence(["run.txt"], "score")
    assert not tuples.is_tuple_sequence([Qrel("q", "d", 1)], "score")


def test_the_readers_of_ir_measures_are_one_shot(tmp_path):
    from ir_measures_graded.io import tuples

    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.0 t\n")
    assert tuples.is_one_shot(ir_measures.read_trec_run(str(path)))
    assert not tuples.is_one_shot([ScoredDoc("q1", "d1", 2.0)])
    assert not tuples.is_one_shot(pa.table({"a": [1]}))
    assert not tuples.is_one_shot("run.txt")
