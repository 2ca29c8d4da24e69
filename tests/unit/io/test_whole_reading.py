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
