"""Files read whole (the Arrow reader: qrels, and runs for a mixed list) block by block into compact
columns: the table one encoding of the whole file gives — query ids in order of first appearance,
every row in file order — on grouped, ungrouped and shuffled files, whatever the block size; a
(query, doc) given twice in different blocks is refused with both lines."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io import readers
from ir_measures_graded.io.trec import QRELS, RUN
from support.examples import examples

queries = st.lists(st.sampled_from(["q1", "q2", "10", "9", "x"]), min_size=1, max_size=60)


def lines_of(qs: list[str], order: str, seed: int, run: bool) -> list[tuple[str, str, float]]:
    rows = [(q, f"d{i}", float(i % 5) if not run else round(1.0 / (i + 1), 3)) for i, q in enumerate(qs)]
    if order == "grouped":
        rows.sort(key=lambda r: r[0])  # stable: each query's rows in their order
    elif order == "shuffled":
        random.Random(seed).shuffle(rows)
    return rows


@settings(max_examples=examples(200), deadline=None)
@given(queries, st.sampled_from(["grouped", "ungrouped", "shuffled"]), st.integers(0, 9), st.integers(16, 200),
       st.booleans())
def test_whole_file_as_one_encoding_of_it(tmp_path_factory, qs, order, seed, block_size, run) -> None:
    rows = lines_of(qs, order, seed, run)
    path = tmp_path_factory.mktemp("whole") / "file"
    path.write_text("".join(f"{q} Q0 {d} 0 {v} t\n" if run else f"{q} 0 {d} {v:g}\n" for q, d, v in rows))
    table = readers._read_whole(str(path), RUN if run else QRELS, None, block_size=block_size)
    query = table.column("query_id").combine_chunks()
    assert query.dictionary.to_pylist() == list(dict.fromkeys(q for q, _, _ in rows))  # first appearance
    assert query.cast(query.type.value_type).to_pylist() == [q for q, _, _ in rows]
    assert table.column("doc_id").to_pylist() == [d for _, d, _ in rows]
    assert table.column(2).to_pylist() == [v for _, _, v in rows]
    assert table.column(0).num_chunks == table.column(1).num_chunks == 1


@pytest.mark.parametrize("block_size", [16, 40, 1 << 20])
def test_a_pair_given_twice_in_other_blocks_names_both_lines(tmp_path, block_size: int) -> None:
    path = tmp_path / "qrels"
    path.write_text("".join(f"q{i % 3} 0 d{i} 1\n" for i in range(30)) + "q1 0 d4 2\n")
    with pytest.raises(GradedInputError) as error:
        readers._read_whole(str(path), QRELS, None, block_size=block_size)
    message = str(error.value)
    assert "\n" not in message and str(path) in message and "5" in message and "31" in message


@settings(max_examples=examples(100), deadline=None)
@given(queries, st.sampled_from(["grouped", "ungrouped", "shuffled"]), st.integers(0, 9), st.integers(1, 7))
def test_named_tuples_as_one_compact_table(qs, order, seed, block) -> None:
    """ir_measures' generators (read_trec_qrels / read_trec_run) held whole: blocks joined compactly."""
    import ir_measures

    from ir_measures_graded.io import tuples

    rows = lines_of(qs, order, seed, run=False)
    saved = tuples.CHUNK, tuples.BLOCK
    tuples.CHUNK, tuples.BLOCK = 2, block  # many blocks
    try:
        table = tuples.tuple_table(iter([ir_measures.Qrel(q, d, int(v)) for q, d, v in rows]), "qrels", "relevance")
    finally:
        tuples.CHUNK, tuples.BLOCK = saved
    query = table.column("query_id").combine_chunks()
    assert query.dictionary.to_pylist() == list(dict.fromkeys(q for q, _, _ in rows))
    assert query.cast(query.type.value_type).to_pylist() == [q for q, _, _ in rows]
    assert table.column("doc_id").to_pylist() == [d for _, d, _ in rows]
    assert table.column("relevance").to_pylist() == [v for _, _, v in rows]


@pytest.mark.parametrize("order", ["grouped", "shuffled"])
def test_calc_aggregate_on_generators_as_on_frames(tmp_path, order: str) -> None:
    """The generators' path (tuples joined compactly) gives the values of the same data as frames."""
    import ir_measures
    import pandas as pd

    from ir_measures_graded import muMAP, nDCNG
    from support.random_collections import random_collection

    qrels, run = random_collection(4, n_queries=40)
    q = [(a, d, v) for a, docs in qrels.items() for d, v in docs.items()]
    r = [(a, d, s) for a, docs in run.items() for d, s in docs.items()]
    if order == "shuffled":
        random.Random(1).shuffle(q)
        random.Random(2).shuffle(r)
    (tmp_path / "q").write_text("".join(f"{a} 0 {d} {v}\n" for a, d, v in q))
    (tmp_path / "r").write_text("".join(f"{a} Q0 {d} 0 {s!r} t\n" for a, d, s in r))
    measures = [muMAP, nDCNG @ 10]
    lazy = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(str(tmp_path / "q")),
                                      ir_measures.read_trec_run(str(tmp_path / "r")))
    frames = ir_measures.calc_aggregate(measures, pd.DataFrame(q, columns=["query_id", "doc_id", "relevance"]),
                                        pd.DataFrame(r, columns=["query_id", "doc_id", "score"]))
    assert lazy == frames


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=50), st.sampled_from(["int32", "int64"]),
       st.integers(0, 2**31 - 1))
def test_pair_keys_in_place_are_the_pair_keys(doc_keys, dtype, top) -> None:
    """Codes of any integer type added as uint64 (int32 codes once went through float64, which made
    equal keys of different pairs and sent every file to the slow exact check)."""
    import numpy as np

    from ir_measures_graded.io.ids import pair_keys, pair_keys_in_place

    keys = np.array(doc_keys, dtype=np.uint64)
    codes = (np.arange(len(keys)) * 7919 % (top + 1)).astype(dtype)
    assert (pair_keys_in_place(keys.copy(), codes) == pair_keys(keys, codes)).all()
