"""A run read whole by the Arrow reader (a mixed list's, a kept one) evaluated by our measures by
query batches (:class:`HeldRun`): the values, and their order, of the whole table, on grouped,
ungrouped and shuffled runs, every registered measure (collection-level ones too)."""

from __future__ import annotations

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_measures_graded.engines.local import HELD_BATCH_ROWS, held
from ir_measures_graded.io.readers import read_qrels_table, read_run_table
from ir_measures_graded.io.stream import HeldRun
from support.examples import examples
from support.random_collections import collections, random_collection
from support.registered import instances


def write(tmp_path, qrels: dict, run: dict, order: str, seed: int = 0) -> tuple:
    import random

    lines = [f"{q} Q0 {d} 0 {s!r} t\n" for q, docs in run.items() for d, s in docs.items()]
    if order == "shuffled":
        random.Random(seed).shuffle(lines)
    elif order == "interleaved":  # queries seen again after others
        lines = lines[::2] + lines[1::2]
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {v!r}\n" for q, docs in qrels.items() for d, v in docs.items()))
    (tmp_path / "run").write_text("".join(lines))
    return read_qrels_table(str(tmp_path / "qrels")), read_run_table(str(tmp_path / "run"))


@pytest.mark.parametrize("order", ["grouped", "shuffled", "interleaved"])
@pytest.mark.parametrize("block_rows", [1, 13, 500])
def test_batches_of_a_held_run_give_the_values_of_the_whole(tmp_path, order: str, block_rows: int) -> None:
    qrels, run = random_collection(11, n_queries=40)
    q, r = write(tmp_path, qrels, run, order)
    evaluator = ir_measures.providers.registry["graded"].evaluator(instances(5), q)
    whole = list(evaluator.iter_calc(r))
    with evaluator.counting() as counts:
        batched = list(evaluator.iter_calc(HeldRun(r, block_rows=block_rows)))
    assert batched == whole
    assert [m.value for m in batched] == [m.value for m in whole]
    assert counts["ranked"] > 0


@settings(max_examples=examples(100), deadline=None)
@given(collections(), st.integers(1, 5), st.sampled_from(["grouped", "shuffled", "interleaved"]))
def test_held_run_matches_the_whole_on_any_collection(tmp_path_factory, collection, block_rows: int,
                                                      order: str) -> None:
    qrels, run = collection
    q, r = write(tmp_path_factory.mktemp("held"), qrels, run, order)
    evaluator = ir_measures.providers.registry["graded"].evaluator(instances(3), q)
    assert list(evaluator.iter_calc(HeldRun(r, block_rows=block_rows))) == list(evaluator.iter_calc(r))


def test_only_large_tables_are_batched(tmp_path) -> None:
    qrels, run = random_collection(2, n_queries=5)
    _, r = write(tmp_path, qrels, run, "grouped")
    assert held(r) is r and r.num_rows <= HELD_BATCH_ROWS
