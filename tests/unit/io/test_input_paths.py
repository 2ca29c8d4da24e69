"""Every way of handing over qrels and a run gives the same per-query values, to the last bit.

Paths: TREC files (whole and streamed, spaces, tabs, mixed whitespace, gzip, tiny blocks), Parquet,
Arrow IPC (file and stream), pandas (object, Arrow-backed, categorical), pyarrow (Table,
RecordBatchReader), polars, dict of dicts, named tuples (list and one-shot iterator),
``ir_measures.read_trec_run`` and a run whose queries are not contiguous.
"""

from __future__ import annotations

import gzip
import subprocess
import sys

import ir_measures
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import Qrel, ScoredDoc

from ir_measures_graded import GradedInputError, muAP, muP, nDCNG
from ir_measures_graded.io.readers import read_qrels, read_qrels_table, read_run, read_run_table
from ir_measures_graded.io.stream import Prefetch, query_batches, scan_run
from ir_measures_graded.io.trec import Block
from support import registered
from support.random_collections import random_collection

#: Every registered measure (streamed and whole inputs must agree for each), and a few parameters.
MEASURES = [*registered.instances(cutoff=5), *registered.with_cutoff(10), muAP(judged_only=True),
            muAP(levels="collection"), nDCNG(norm="collection")]


def per_query(qrels, run, measures=MEASURES) -> dict:
    evaluator = ir_measures.providers.registry["graded"].evaluator(measures, qrels)
    return {(m.query_id, str(m.measure)): m.value for m in evaluator.iter_calc(run)}


@pytest.fixture(scope="module")
def collection():
    qrels, run = random_collection(7, n_queries=60)
    qrels = {q: docs for q, docs in qrels.items() if docs}  # files cannot hold a query without judgments
    return qrels, run


def rows(obj: dict, value: str) -> pd.DataFrame:
    return pd.DataFrame([(q, d, v) for q, docs in obj.items() for d, v in docs.items()],
                        columns=["query_id", "doc_id", value])


def write_trec(path, obj: dict, kind: str, style: str = "space") -> None:
    lines = []
    for i, (q, d, v) in enumerate(rows(obj, "v").itertuples(index=False)):
        fields = [q, "0", d, str(v)] if kind == "qrels" else [q, "Q0", d, str(i + 1), repr(v), "tag"]
        if style == "space":
            lines.append(" ".join(fields))
        elif style == "tab":
            lines.append("\t".join(fields))
        else:  # whitespace as trec_eval takes it: runs of spaces and tabs, indentation, CRLF, blank lines
            lines.append((" \t" if i % 3 == 0 else "") + "  \t ".join(fields) + (" \r" if i % 2 else "")
                         + ("\n" if i % 5 == 0 else ""))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def reference(collection):
    return per_query(*collection)


def test_reference_is_not_empty(reference):
    assert len(reference) > 100 and any(v > 0 for v in reference.values())


@pytest.mark.slow
@pytest.mark.parametrize("style", ["space", "tab", "mixed"])
def test_trec_files_whole_and_streamed(collection, reference, tmp_path, style):
    write_trec(tmp_path / "qrels", collection[0], "qrels", style)
    write_trec(tmp_path / "run", collection[1], "run", style)
    qrels = read_qrels_table(tmp_path / "qrels")
    assert per_query(qrels, read_run_table(tmp_path / "run")) == reference
    assert per_query(read_qrels(tmp_path / "qrels"), read_run(tmp_path / "run")) == reference
    assert per_query(qrels, scan_run(tmp_path / "run")) == reference
    assert per_query(qrels, scan_run(tmp_path / "run", block_size=64)) == reference  # many small batches
    assert per_query(qrels, ir_measures.read_trec_run(str(tmp_path / "run"))) == reference


def test_gzip_and_run_with_queries_not_contiguous(collection, reference, tmp_path):
    frame = rows(collection[1], "score").sample(frac=1.0, random_state=3)  # queries scattered
    lines = [f"{q} Q0 {d} 1 {s!r} x" for q, d, s in frame.itertuples(index=False)]
    with gzip.open(tmp_path / "run.gz", "wt") as f:
        f.write("\n".join(lines) + "\n")
    (tmp_path / "plain").write_text("\n".join(lines) + "\n")
    write_trec(tmp_path / "qrels", collection[0], "qrels")
    qrels = read_qrels_table(tmp_path / "qrels")
    for path in ("run.gz", "plain"):
        assert per_query(qrels, scan_run(tmp_path / path, block_size=256)) == reference
    # one-shot inputs (an iterator, standard input) are spooled to disk to be read again
    tuples = iter([ScoredDoc(q, d, s) for q, d, s in frame.itertuples(index=False)])
    assert per_query(qrels, tuples) == reference


def test_columnar_files(collection, reference, tmp_path):
    qrels, run = rows(collection[0], "relevance"), rows(collection[1], "score")
    pq.write_table(pa.Table.from_pandas(qrels), tmp_path / "qrels.parquet", row_group_size=50)
    pq.write_table(pa.Table.from_pandas(run), tmp_path / "run.parquet", row_group_size=50)
    feather.write_feather(pa.Table.from_pandas(run), tmp_path / "run.arrow")
    with pa.ipc.new_stream(tmp_path / "run.arrows", pa.Table.from_pandas(run).schema) as writer:
        writer.write_table(pa.Table.from_pandas(run), max_chunksize=70)
    judged = read_qrels_table(tmp_path / "qrels.parquet")
    for name in ("run.parquet", "run.arrow", "run.arrows"):
        assert per_query(judged, scan_run(tmp_path / name)) == reference, name
        assert per_query(judged, read_run_table(tmp_path / name)) == reference, name
    renamed = run.rename(columns={"query_id": "qid", "doc_id": "docno", "score": "s"})
    pq.write_table(pa.Table.from_pandas(renamed), tmp_path / "renamed.parquet")
    columns = {"query_id": "qid", "doc_id": "docno", "score": "s"}
    assert per_query(judged, scan_run(tmp_path / "renamed.parquet", columns=columns)) == reference


def test_in_memory_forms(collection, reference):
    qrels_dict, run_dict = collection
    qrels, run = rows(qrels_dict, "relevance"), rows(run_dict, "score")
    forms = {
        "dict": (qrels_dict, run_dict),
        "pandas object": (qrels.astype({"query_id": object, "doc_id": object}),
                          run.astype({"query_id": object, "doc_id": object})),
        "pandas Arrow strings": (qrels.astype({"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"}),
                                 run.astype({"query_id": pd.ArrowDtype(pa.string()),
                                             "doc_id": pd.ArrowDtype(pa.large_string())})),
        "pandas categorical": (qrels.astype({"query_id": "category", "doc_id": "category"}),
                               run.astype({"query_id": "category", "doc_id": "category"})),
        "pyarrow": (pa.Table.from_pandas(qrels), pa.Table.from_pandas(run)),
        "pyarrow dictionary": (pa.Table.from_pandas(qrels.astype({"doc_id": "category"})),
                               pa.Table.from_pandas(run.astype({"query_id": "category"}))),
        "polars": (pl.from_pandas(qrels), pl.from_pandas(run)),
        "polars categorical": (pl.from_pandas(qrels).with_columns(pl.col("doc_id").cast(pl.Categorical)),
                               pl.from_pandas(run).with_columns(pl.col("query_id").cast(pl.Categorical))),
        "named tuples": ([Qrel(*r) for r in qrels.itertuples(index=False)],
                         [ScoredDoc(*r) for r in run.itertuples(index=False)]),
    }
    for name, (q, r) in forms.items():
        assert per_query(q, r) == reference, name
    streamed = pa.Table.from_pandas(run).to_reader(max_chunksize=33)
    assert per_query(forms["pyarrow"][0], streamed) == reference
    assert per_query(qrels_dict, iter([ScoredDoc(*r) for r in run.itertuples(index=False)])) == reference


def integer_ids(obj: dict) -> dict:
    """The collection with doc ids 'd123' as the integer 123 (string order differs: '9' > '10')."""
    return {q: {int(d[1:]): v for d, v in docs.items()} for q, docs in obj.items()}


def test_integer_doc_ids_equal_their_decimal_strings(collection, tmp_path):
    """Integer doc ids stay integers in the core: the values are those of their decimal strings,
    with either side integers and the other strings, and through Parquet files."""
    qrels_int, run_int = (integer_ids(side) for side in collection)
    as_strings = [{q: {str(d): v for d, v in docs.items()} for q, docs in side.items()} for side in (qrels_int, run_int)]
    reference = per_query(*as_strings)
    assert len(reference) > 1000
    qrels, run = (pa.Table.from_pandas(rows(side, value))
                  for side, value in ((qrels_int, "relevance"), (run_int, "score")))
    assert pa.types.is_integer(qrels.schema.field("doc_id").type)
    strings = [t.set_column(1, "doc_id", t.column("doc_id").cast(pa.string())) for t in (qrels, run)]
    int32 = qrels.set_column(1, "doc_id", qrels.column("doc_id").cast(pa.int32()))
    forms = {"integers": (qrels, run), "int32 qrels": (int32, run), "integer qrels, string run": (qrels, strings[1]),
             "string qrels, integer run": (strings[0], run), "run as batches": (qrels, run.to_reader(max_chunksize=33)),
             "uint64 run": (qrels, run.set_column(1, "doc_id", run.column("doc_id").cast(pa.uint64())))}
    for name, (q, r) in forms.items():
        assert per_query(q, r) == reference, name
    pq.write_table(qrels, tmp_path / "qrels.parquet", row_group_size=50)
    pq.write_table(run, tmp_path / "run.parquet", row_group_size=50)
    judged = read_qrels_table(tmp_path / "qrels.parquet")
    assert per_query(judged, read_run_table(tmp_path / "run.parquet")) == reference
    assert per_query(judged, scan_run(tmp_path / "run.parquet")) == reference
    assert per_query(*as_strings[:1], run) == reference
    top = 2**64 - 1  # beyond int64: taken as its string
    big = pa.table({"query_id": ["q"], "doc_id": pa.array([top], pa.uint64()), "relevance": [1]})
    assert per_query(big, {"q": {str(top): 1.0, "1": 2.0}}, [muAP]) == {("q", "muAP"): 0.5}


@pytest.mark.slow
def test_cli_paths_agree(collection, reference, tmp_path):
    write_trec(tmp_path / "qrels", collection[0], "qrels")
    write_trec(tmp_path / "run", collection[1], "run", "mixed")
    pq.write_table(pa.Table.from_pandas(rows(collection[1], "score")), tmp_path / "run.parquet")
    script = [sys.executable, "-m", "ir_measures_graded"]
    named = {"muAP": "muMAP", "nDCNG@10": "nDCNG@10"}  # each measure as given
    expected = [f"{q}\t{named[m]}\t{v!r}" for (q, m), v in sorted(reference.items()) if m in named]

    def lines(*args, **kw):
        out = subprocess.run([*script, *args, "muMAP", "nDCNG@10", "-q", "-n", "-p", "-1"], capture_output=True,
                             text=True, check=True, **kw).stdout
        return sorted(out.splitlines())

    assert lines(str(tmp_path / "qrels"), str(tmp_path / "run")) == sorted(expected)
    assert lines(str(tmp_path / "qrels"), str(tmp_path / "run.parquet")) == sorted(expected)
    with open(tmp_path / "run", "rb") as stdin:
        assert lines(str(tmp_path / "qrels"), "-", stdin=stdin) == sorted(expected)
    with open(tmp_path / "run", "rb") as stdin:
        assert lines(str(tmp_path / "qrels"), "/dev/stdin", stdin=stdin) == sorted(expected)
    bash = subprocess.run(["bash", "-c", f"{sys.executable} -m ir_measures_graded {tmp_path / 'qrels'} "
                           f"<(cat {tmp_path / 'run'}) muMAP nDCNG@10 -q -n -p -1"],
                          capture_output=True, text=True, check=True).stdout
    assert sorted(bash.splitlines()) == sorted(expected)


@pytest.mark.slow
def test_mixed_list_in_cli_equals_ir_measures(tmp_path):
    qrels, run = random_collection(11, n_queries=40)
    qrels = {q: docs for q, docs in qrels.items() if docs}
    write_trec(tmp_path / "qrels", qrels, "qrels")
    write_trec(tmp_path / "run", run, "run")
    theirs = subprocess.run([sys.executable, "-m", "ir_measures", str(tmp_path / "qrels"), str(tmp_path / "run"),
                             "AP", "nDCG@10", "-q", "-n", "-p", "10"], capture_output=True, text=True,
                            check=True).stdout
    ours = subprocess.run([sys.executable, "-m", "ir_measures_graded", str(tmp_path / "qrels"),
                           str(tmp_path / "run"), "AP", "nDCG@10", "muMAP", "-q", "-n", "-p", "10"],
                          capture_output=True, text=True, check=True).stdout
    standard = [line for line in ours.splitlines() if "\tmuMAP\t" not in line]
    assert sorted(standard) == sorted(theirs.splitlines())
    assert len(ours.splitlines()) == len(standard) * 3 // 2


def test_values_equal_between_whole_and_streamed_at_every_block_size(collection, reference, tmp_path):
    write_trec(tmp_path / "qrels", collection[0], "qrels")
    write_trec(tmp_path / "run", collection[1], "run")
    qrels = read_qrels_table(tmp_path / "qrels")
    for block_size in (1, 17, 1000, 1 << 20):
        assert per_query(qrels, scan_run(tmp_path / "run", block_size=block_size)) == reference


def test_labels_as_integers_only_when_exact(tmp_path):
    (tmp_path / "q").write_text("q1 0 a 2\nq1 0 b 99999999999999999999\n")
    labels = read_qrels_table(tmp_path / "q").column("relevance")
    assert labels.type == pa.float64() and labels.to_pylist() == [2.0, 1e20]
    assert np.array_equal(read_qrels(tmp_path / "q")["relevance"].to_numpy(), [2.0, 1e20])


def test_collection_levels_streamed_equal_whole(collection, tmp_path):
    write_trec(tmp_path / "qrels", collection[0], "qrels")
    write_trec(tmp_path / "run", collection[1], "run")
    qrels = read_qrels_table(tmp_path / "qrels")
    measures = [muAP(levels="collection"), nDCNG @ 5]
    whole = ir_measures.calc_aggregate(measures, qrels, read_run_table(tmp_path / "run"))
    streamed = ir_measures.calc_aggregate(measures, qrels, scan_run(tmp_path / "run", block_size=200))
    assert streamed == whole and 0 < whole[measures[0]] < 1


def test_ties_expected_streamed_equal_whole(tmp_path):
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1}, "q3": {"y": 3}}  # q3: judged, never ranked
    run = {"q1": {"a": 1.0, "b": 1.0, "c": 0.5, "z": 0.5}, "q2": {"x": 2.0, "w": 2.0}}
    write_trec(tmp_path / "run", run, "run")
    measures = [muAP(ties="expected"), nDCNG(ties="expected") @ 2, muP(ties="expected") @ 1]
    streamed = per_query(qrels, scan_run(tmp_path / "run", block_size=7), measures)
    assert streamed == per_query(qrels, read_run_table(tmp_path / "run"), measures)
    # q2: x tied with an unjudged document, first or second: AP 1 or 1/2, P@1 1 or 0
    assert streamed[("q2", "muAP(ties='expected')")] == 0.75
    assert streamed[("q2", "muP(ties='expected')@1")] == 0.5


def test_a_doc_given_twice_inside_one_streamed_batch_names_file_lines_query_and_doc(tmp_path):
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0 t\nq2 Q0 x 1 1.0 t\nq2 Q0 y 2 0.5 t\nq2 Q0 x 3 0.2 t\n")
    qrels = {"q1": {"a": 1}, "q2": {"x": 1}}
    with pytest.raises(GradedInputError) as error:
        per_query(qrels, scan_run(run), [muAP])
    assert str(error.value) == (f"{run}:5: query 'q2', doc 'x' appears again (first at line 3); "
                                "each (query, doc) may appear once in a run file")


@pytest.mark.parametrize("text, rows, matched", [("", 0, 0), ("q9 Q0 a 1 1.0 t\n", 1, 0),
                                                 ("q1 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0 t\nq9 Q0 a 1 1 t\n", 3, 1)])
def test_a_streamed_run_counts_its_rows_and_the_judged_queries_it_ranks(tmp_path, text, rows, matched):
    # the command line's warnings (an empty run; a run sharing no query with the qrels) read these
    (tmp_path / "run").write_text(text)
    scan = scan_run(tmp_path / "run", block_size=7)
    values = per_query({"q1": {"a": 1}, "q2": {"x": 1}}, scan, [muAP])
    assert (scan.rows, scan.matched) == (rows, matched)
    assert values[("q1", "muAP")] == (1.0 if matched else 0.0)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["q1", "q2", "q10", "b"]), min_size=1, max_size=40),
       st.lists(st.integers(1, 9), min_size=1, max_size=10), st.integers(0, 12))
def test_each_batch_holds_whole_queries_encoded_by_its_own_ids(queries, sizes, min_rows):
    """However the rows come in blocks, the batches are the rows in order, each cut where a query
    ends, and encode their query column with exactly the ids they hold, in order of appearance."""
    table = pa.table({"query_id": queries, "doc_id": [f"d{i}" for i in range(len(queries))],
                      "value": np.zeros(len(queries))})
    blocks, start = [], 0
    while start < len(queries):
        size = sizes[len(blocks) % len(sizes)]
        blocks.append(Block(table.slice(start, size).combine_chunks(), start + 1))
        start += size
    batches = list(query_batches(iter(blocks), min_rows=min_rows))
    assert [q for b in batches for q in b.table.column("query_id").to_pylist()] == queries
    assert [line for b in batches for line in b.lines.tolist()] == list(range(1, len(queries) + 1))
    for batch, following in zip(batches, batches[1:], strict=False):
        assert batch.table.column("query_id")[-1] != following.table.column("query_id")[0]
    for batch in batches:
        ids = batch.table.column("query_id").to_pylist()
        assert batch.query_ids.to_pylist() == list(dict.fromkeys(ids))
        assert [batch.query_ids[c].as_py() for c in batch.query_codes] == ids
        assert batch.doc_ids.to_pylist() == batch.table.column("doc_id").to_pylist()


def test_prefetch_reads_before_it_is_asked_and_stops_when_closed():
    import threading

    started = threading.Event()

    def items():
        started.set()
        yield from range(100)  # more than the queue holds: the thread waits to put the next

    with Prefetch(items()) as ahead:
        assert started.wait(10)  # reading began before any item was asked for
    assert not ahead._worker.is_alive()  # closed without being iterated: the thread ended
    assert list(Prefetch(iter(range(5)))) == list(range(5))

    def failing():
        yield 1
        raise GradedInputError("bad line")

    with pytest.raises(GradedInputError, match="bad line"):
        list(Prefetch(failing()))
