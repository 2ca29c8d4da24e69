"""Qrels and one run read in step by query (engines.merge, issue 54): values, their order and the counts
identical to the whole-qrels path on grouped, ungrouped and shuffled files; the merge is taken (and
holds a few queries' judgments) where both files are grouped; it falls back silently elsewhere."""

from __future__ import annotations

import math
import random
import tempfile
import warnings
from pathlib import Path

import ir_measures
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ir_measures_graded import experiment
from ir_measures_graded.engines import Request, merge
from ir_measures_graded.engines.local import LocalEngine
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments.evaluation import Reading
from support.random_collections import collections, random_collection

MEASURES = [ir_measures.parse_measure(m) for m in
            ("muMAP", "nDCNG@10", "muP@5", "meanNDCG", "muMAP(levels='1,3')", "nDCNG(floor=1)@5")]
ORDERS = ["grouped", "run in another order", "qrels shuffled", "run shuffled", "both shuffled"]


@pytest.fixture
def tiny(monkeypatch):
    """Every file taken by the merge (no small-file reader), read a few lines at a time."""
    monkeypatch.setenv("IR_MEASURES_GRADED_SMALL_FILE_BYTES", "0")
    monkeypatch.setattr(merge, "QRELS_SHARE", 0.0)
    monkeypatch.setattr(merge, "QRELS_BLOCK_BYTES", 48)
    monkeypatch.setattr(merge, "RUN_BLOCK_BYTES", 64)
    monkeypatch.setattr(merge, "RUN_BATCH_ROWS", 2)


def write(folder: Path, qrels: dict, run: dict, order: str, seed: int = 0) -> tuple[str, str]:
    rng = random.Random(seed)
    qrels_lines = [f"{q} 0 {d} {label:g}\n" for q, docs in qrels.items() for d, label in docs.items()]
    run_lines = [f"{q} Q0 {d} {k + 1} {score!r} tag\n" for q, docs in run.items()
                 for k, (d, score) in enumerate(docs.items())]
    if order in ("qrels shuffled", "both shuffled"):
        rng.shuffle(qrels_lines)
    if order in ("run shuffled", "both shuffled"):
        rng.shuffle(run_lines)
    if order == "run in another order":  # grouped, the queries reversed
        run_lines = [f"{q} Q0 {d} {k + 1} {score!r} tag\n" for q, docs in reversed(run.items())
                     for k, (d, score) in enumerate(docs.items())]
    (folder / "qrels.txt").write_text("".join(qrels_lines))
    (folder / "run.txt").write_text("".join(run_lines))
    return str(folder / "qrels.txt"), str(folder / "run.txt")


def evaluated(qrels: str, run: str, measures: list, whole: bool) -> object:
    request = Request(qrels=qrels, runs=[run], measures=measures, by_query=True, keep=False, progress=False)
    assert merge.applies(request)
    if whole:
        saved = merge.applies
        merge.applies = lambda request: False
        try:
            return LocalEngine().evaluate(request)[0]
        finally:
            merge.applies = saved
    return LocalEngine().evaluate(request)[0]


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def check_identical(qrels: str, run: str, measures: list = MEASURES) -> object:
    merged, whole = evaluated(qrels, run, measures, False), evaluated(qrels, run, measures, True)
    assert merged.merge is not None and whole.merge is None
    assert [(m.query_id, str(m.measure)) for m in merged.per_query] == \
        [(m.query_id, str(m.measure)) for m in whole.per_query]
    assert all(same(float(a.value), float(b.value)) for a, b in zip(merged.per_query, whole.per_query, strict=True))
    assert all(same(merged.summary[m], whole.summary[m]) for m in measures)
    assert (merged.rows, merged.matched, merged.judged, merged.ranked_rows, merged.judged_rows) == \
        (whole.rows, whole.matched, whole.judged, whole.ranked_rows, whole.judged_rows)
    return merged


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(collection=collections(), order=st.sampled_from(ORDERS), seed=st.integers(0, 3))
def test_values_identical_to_the_whole_qrels_path(tiny, collection, order, seed):
    qrels, run = collection
    if not any(qrels.values()):
        qrels = {**qrels, "q_only": {"d1": 1.0}}
    with tempfile.TemporaryDirectory() as folder:
        check_identical(*write(Path(folder), qrels, run, order, seed))


@pytest.mark.parametrize("order", ORDERS)
def test_a_seeded_collection_on_every_order(tiny, tmp_path, order):
    qrels, run = random_collection(7, n_queries=60)
    merged = check_identical(*write(tmp_path, qrels, run, order, seed=3))
    report = merged.merge
    assert report.qrels_grouped == (order not in ("qrels shuffled", "both shuffled"))
    assert report.run_grouped == (order not in ("run shuffled", "both shuffled"))
    assert (report.again > 0) == ("shuffled" in order)  # queries evaluated again: only where a file is not grouped


def test_grouped_files_hold_a_few_queries_judgments(tiny, tmp_path):
    """The observable of the grouped path: both files seen grouped, nothing evaluated again, and the most
    judgment rows held at once a small part of the qrels (each query has 10)."""
    qrels = {f"u{q}": {f"i{d}": (q + d) % 5 for d in range(10)} for q in range(300)}
    run = {f"u{q}": {f"i{d}": float(20 - d) for d in range(0, 20, 2)} for q in range(300)}
    merged = check_identical(*write(tmp_path, qrels, run, "grouped"))
    report = merged.merge
    assert (report.qrels_grouped, report.run_grouped, report.again) == (True, True, 0)
    assert 0 < report.peak_judgments <= 60  # of 3,000 rows


def test_ungrouped_fallback_is_silent(tiny, tmp_path):
    qrels, run = random_collection(11, n_queries=40)
    q, r = write(tmp_path, qrels, run, "both shuffled", seed=1)
    said = {}
    for whole in (False, True):
        told: list[str] = []
        if whole:
            saved, merge.applies = merge.applies, lambda request: False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                exp = experiment(q, [r], ["muMAP", "nDCNG@10"], per_query=False, warn=told.append)
        finally:
            if whole:
                merge.applies = saved
        assert (exp.results[0].merge is None) == whole
        said[whole] = (told, exp.aggregates.to_dict("list"))
    assert said[False] == said[True]


def test_the_experiment_and_the_command_lines_default_take_it(tiny, tmp_path):
    qrels, run = random_collection(5, n_queries=30)
    q, r = write(tmp_path, qrels, run, "grouped")
    warnings.simplefilter("ignore")  # the run misses judged queries: told by every path alike
    exp = experiment(q, [r], ["muMAP", "nDCNG@10"], per_query=False)
    assert exp.results[0].merge is not None and exp.results[0].merge.qrels_grouped
    # not where something needs the whole qrels or the run kept: several runs, a mixed list, per-query views
    assert experiment(q, [r, r], ["muMAP"], per_query=False).results[0].merge is None
    mixed = experiment(q, [r], ["AP", "nDCG@10", "muMAP", "nDCNG@10"], per_query=False)
    assert mixed.results[0].merge is None
    assert experiment(q, [r], ["muMAP"]).results[0].merge is None
    assert experiment(q, [r], ["muMAP(levels='collection')"], per_query=False).results[0].merge is None
    # nor with trec_eval's -M: the run cut as every other path cuts it
    cut = experiment(q, [r], ["muMAP", "nDCNG@10"], per_query=False, reading=Reading(depth=2))
    assert cut.results[0].merge is None
    kept = experiment(q, [r], ["muMAP", "nDCNG@10"], reading=Reading(depth=2))  # the run read whole, then cut
    assert cut.aggregates["value"].tolist() == kept.aggregates["value"].tolist()
    # the mixed list's values are those of the merge for our measures, of ir_measures for its own
    ours = dict(zip(exp.aggregates["measure"], exp.aggregates["value"], strict=True))
    got = dict(zip(mixed.aggregates["measure"], mixed.aggregates["value"], strict=True))
    assert ours == {m: got[m] for m in ours}
    reference = ir_measures.calc_aggregate([ir_measures.AP, ir_measures.nDCG @ 10], ir_measures.read_trec_qrels(q),
                                           ir_measures.read_trec_run(r))
    assert got["AP"] == pytest.approx(reference[ir_measures.AP], abs=1e-12)
    assert got["nDCG@10"] == pytest.approx(reference[ir_measures.nDCG @ 10], abs=1e-12)


def test_a_judgment_given_twice_is_told_by_its_lines(tiny, tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq1 0 b 2\nq2 0 c 1\nq2 0 d 0\nq2 0 c 3\nq3 0 e 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 a 1 2.0 t\nq2 Q0 c 1 1.0 t\nq3 Q0 e 1 1.0 t\n")
    with pytest.raises(GradedInputError) as merged:
        evaluated(str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), MEASURES[:1], False)
    with pytest.raises(GradedInputError) as whole:
        evaluated(str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), MEASURES[:1], True)
    assert str(merged.value) == str(whole.value)
    assert "qrels.txt:5" in str(merged.value)


def test_taken_for_qrels_as_large_as_the_run_only(monkeypatch, tmp_path):
    """The merge reads qrels in step with the run where they are about as large as it (a recommender's); a
    TREC collection's (a tenth of the run) and the small-file reader's are held whole, as before."""
    monkeypatch.setenv("IR_MEASURES_GRADED_SMALL_FILE_BYTES", "1000")
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"

    def taken(qrels_lines: int, run_lines: int) -> bool:
        qrels.write_text("".join(f"q{k // 10} 0 d{k} 1\n" for k in range(qrels_lines)))
        run.write_text("".join(f"q{k // 10} Q0 d{k} 1 1.0 tag\n" for k in range(run_lines)))
        return merge.applies(Request(qrels=str(qrels), runs=[str(run)], measures=MEASURES[:2]))

    assert taken(200, 200)  # qrels about half the run's bytes
    assert not taken(200, 2000)  # about a twentieth
    assert not taken(20, 20)  # read by the small-file reader


def test_parquet_and_arrow_files_are_merged_too(tiny, tmp_path):
    """Columnar files are read by blocks (record batches) as text is: the merge takes them, values unchanged."""
    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    qrels, run = random_collection(7, n_queries=20)
    q, r = write(tmp_path, qrels, run, "grouped")
    text = check_identical(q, r)
    judged = pa.table({"query_id": [k for k, docs in qrels.items() for _ in docs],
                       "doc_id": [d for docs in qrels.values() for d in docs],
                       "relevance": [float(v) for docs in qrels.values() for v in docs.values()]})
    ranked = pa.table({"query_id": [k for k, docs in run.items() for _ in docs],
                       "doc_id": [d for docs in run.values() for d in docs],
                       "score": [float(s) for docs in run.values() for s in docs.values()]})
    for name, write_table in (("parquet", pq.write_table), ("arrow", feather.write_feather)):
        qf, rf = tmp_path / f"qrels.{name}", tmp_path / f"run.{name}"
        if name == "parquet":  # several row groups / record batches: the qrels read by blocks
            write_table(judged, qf, row_group_size=7)
        else:
            write_table(judged, qf, chunksize=7)
        write_table(ranked, rf)
        merged = check_identical(str(qf), str(rf))
        assert merged.merge is not None and merged.merge.qrels_grouped, name
        assert merged.summary == text.summary, name
