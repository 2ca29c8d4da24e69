"""``experiment()`` and ``report()`` take what ``ir_measures.calc_aggregate`` takes (issue 44 items 4 and 6):
``ir_measures.read_trec_qrels(path)`` / ``read_trec_run(path)`` generators, a ``pyarrow.RecordBatchReader``,
and a run given as a list of ``ScoredDoc``. A one-shot input is read once; what reads it again (the
report, the scale check) reads what the experiment kept."""

from __future__ import annotations

import ir_measures
import pandas as pd
import pyarrow as pa
import pytest
from ir_measures import Qrel, ScoredDoc

import ir_measures_graded
from ir_measures_graded import GradedInputError
from support.random_collections import random_collection

pytestmark = pytest.mark.filterwarnings("ignore:run .* ranks no document")
MEASURES = ["muMAP", "nDCNG@10", "AP", "nDCG@10"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("one-shot")
    qrels, run = random_collection(5, n_queries=30)
    other = random_collection(6, n_queries=30)[1]
    qrels_path = folder / "qrels.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, ds in qrels.items() for d, r in ds.items()))
    paths = []
    for name, docs in (("a.run", run), ("b.run", other)):
        path = folder / name
        lines = []
        for q, ds in docs.items():
            ranked = sorted(ds.items(), key=lambda x: -x[1])
            lines += [f"{q} Q0 {d} {i + 1} {s!r} {name}\n" for i, (d, s) in enumerate(ranked)]
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(qrels_path), paths


def _values(exp) -> pd.DataFrame:
    return exp.per_query.drop(columns="run").reset_index(drop=True)


def _reader(path: str) -> pa.RecordBatchReader:
    table = ir_measures_graded.read_run_table(path).select(["query_id", "doc_id", "score"])
    return pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=100))


@pytest.mark.parametrize("per_query", [False, True])
def test_experiment_takes_the_readers_of_ir_measures(files, per_query):
    """Before: ``TypeError: object of type 'generator' has no len()``."""
    qrels, runs = files
    expected = ir_measures_graded.experiment(qrels, runs, MEASURES)
    got = ir_measures_graded.experiment(ir_measures.read_trec_qrels(qrels),
                                        [ir_measures.read_trec_run(r) for r in runs], MEASURES, per_query=per_query)
    assert got.aggregates["value"].tolist() == expected.aggregates["value"].tolist()
    assert [r.rows for r in got.results] == [r.rows for r in expected.results]
    if per_query:  # the run as read, kept: what the report and the meta layer take
        pd.testing.assert_frame_equal(_values(got), _values(expected))
        assert got.missing == {"run 1": expected.missing["a.run"], "run 2": expected.missing["b.run"]}
        assert [i.data.num_rows for i in got.inputs] == [r.rows for r in expected.results]
    else:  # streamed: nothing kept
        assert not any(i.kept for i in got.inputs)


def test_experiment_takes_a_record_batch_reader(files):
    qrels, runs = files
    expected = ir_measures_graded.experiment(qrels, runs, MEASURES)
    for per_query in (False, True):
        got = ir_measures_graded.experiment(qrels, [_reader(r) for r in runs], MEASURES, per_query=per_query)
        assert got.aggregates["value"].tolist() == expected.aggregates["value"].tolist()
        if per_query:
            pd.testing.assert_frame_equal(_values(got), _values(expected))


def test_a_run_as_a_list_of_scored_docs_is_one_run(files):
    """Before: each ScoredDoc was taken for a run ("run iterable must yield named tuples")."""
    qrels, runs = files
    expected = ir_measures_graded.experiment(qrels, runs[0], ["muMAP", "AP"])
    docs = list(ir_measures.read_trec_run(runs[0]))
    judged = list(ir_measures.read_trec_qrels(qrels))
    assert all(isinstance(d, ScoredDoc) for d in docs) and all(isinstance(q, Qrel) for q in judged)
    got = ir_measures_graded.experiment(judged, docs, ["muMAP", "AP"])
    assert got.runs == ["run 1"]
    pd.testing.assert_frame_equal(_values(got), _values(expected))
    assert ir_measures.calc_aggregate([ir_measures_graded.muMAP], judged, docs)[ir_measures_graded.muMAP] == \
        pytest.approx(expected.aggregates["value"].iloc[0], abs=0)


def test_report_takes_generators_and_record_batch_readers(files):
    """The report reads the runs again (per threshold, the scale check): the experiment keeps what it read."""
    pytest.importorskip("jinja2")
    qrels, runs = files
    expected = ir_measures_graded.report(ir_measures_graded.experiment(qrels, runs, ["muMAP", "nDCG@10"]))
    for given in ([ir_measures.read_trec_run(runs[0]), _reader(runs[1])], [list(ir_measures.read_trec_run(runs[0]))]):
        got = ir_measures_graded.report(ir_measures_graded.experiment(ir_measures.read_trec_qrels(qrels), given,
                                                                      ["muMAP", "nDCG@10"]))
        n = len(given)
        assert got.summary["value"].tolist() == expected.summary["value"].tolist()[: 2 * n]
        assert got.levels["value"].tolist() == expected.levels[expected.levels["run"].isin(
            ["a.run", "b.run"][:n])]["value"].tolist()
        assert got.scale is not None and len(got.scale)


def test_a_generator_read_by_an_experiment_is_not_read_again_in_silence(files):
    """With per_query=False the run is streamed and gone: a view that needs it says so, not a run scoring 0."""
    qrels, runs = files
    exp = ir_measures_graded.experiment(qrels, [ir_measures.read_trec_run(runs[0])], ["muMAP"], per_query=False)
    with pytest.raises(GradedInputError, match="not kept"):
        ir_measures_graded.meta.scale_dependence(exp)
    kept = ir_measures_graded.experiment(qrels, [ir_measures.read_trec_run(runs[0])], ["muMAP"])
    assert len(ir_measures_graded.meta.scale_dependence(kept))
