"""OHSUMED and LETOR through the real ir_datasets, on fixture files in the exact formats.

IR_DATASETS_HOME points at a temporary folder holding the fixture, as a user would place the
real files: extracted, or as archives.
"""

from __future__ import annotations

import shutil
import tarfile
import zipfile

import ir_datasets
import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_measures_graded import GradedInputError, meanNDCG, meanNDCNG, muMAP, nDCNG
from ir_measures_graded.datasets import ohsumed
from support.paths import OHSUMED_FIXTURE as FIXTURE

ORIGINAL = ["ohsumed.87", "ohsumed.88", "ohsumed.89", "ohsumed.90", "ohsumed.91", "queries", "judged"]


@pytest.fixture()
def archived(home):
    """The same, as archives: the original files in a .tar.gz, LETOR folders in .zip files."""
    target = home / "ohsumed"
    target.mkdir()
    with tarfile.open(target / "ohsumed.tar.gz", "w:gz") as tf:
        for name in ORIGINAL:
            tf.add(FIXTURE / name, arcname=f"ohsumed-v1/{name}")
    for version in ("letor3", "letor2"):
        (target / version).mkdir()
        with zipfile.ZipFile(target / version / "OHSUMED.zip", "w") as zf:
            for path in sorted((FIXTURE / version).rglob("*.txt")):
                zf.write(path, path.relative_to(FIXTURE / version).as_posix())
    return home


def test_datasets_registered_with_documentation():
    for dataset_id in ("ohsumed", "ohsumed/letor3", "ohsumed/letor3/raw", "ohsumed/letor2"):
        dataset = ir_datasets.load(dataset_id)
        assert dataset.has_docs() and dataset.has_queries() and dataset.has_qrels()
        assert dataset.documentation()["pretty_name"].startswith("OHSUMED")
    assert ir_datasets.load("ohsumed").qrels_defs() == {0: "not relevant", 1: "possibly relevant",
                                                        2: "definitely relevant"}


@pytest.mark.parametrize("layout", ["placed", "archived"])
def test_docs_queries_qrels_field_by_field(layout, request):
    request.getfixturevalue(layout)
    dataset = ir_datasets.load("ohsumed")
    docs = list(dataset.docs_iter())
    assert [d.doc_id for d in docs] == ["87049087", "87049088", "88010001", "88010002", "89010002", "90010003",
                                        "91010004"]
    first = docs[0]
    assert first.seq_id == "1"
    assert first.title == "Refibrillation managed by EMT-Ds: incidence and outcome without paramedic back-up."
    assert first.abstract.startswith("Some patients converted from ventricular fibrillation") and \
        first.abstract.endswith("will refibrillate before hospital arrival.")  # two lines joined
    assert first.mesh.startswith("Allied Health Personnel/*; Electric Countershock/*;")
    assert first.authors == "Stults KR; Brown DD." and first.source == "Am J Emerg Med 8703; 4(6):491-5"
    assert first.publication_type == "JOURNAL ARTICLE."
    assert docs[1].abstract == ""  # no .W field
    assert first.default_text() == f"{first.title} {first.abstract}"

    queries = list(dataset.queries_iter())
    assert [q.query_id for q in queries] == ["1", "2", "3"]
    assert queries[0].patient == "60 year old menopausal woman without hormone replacement therapy"
    assert queries[0].text.startswith("Are there adverse effects on lipids")

    qrels = list(dataset.qrels_iter())
    assert len(qrels) == 10
    by_pair = {(q.query_id, q.doc_id): q.relevance for q in qrels}
    assert by_pair[("1", "88010001")] == 2 and by_pair[("1", "88010002")] == 1  # first judgement: p (of p n d)
    assert by_pair[("3", "91010004")] == 1 and by_pair[("2", "87049087")] == 0
    assert {q.iteration for q in qrels} == {"0"}


def test_docs_store_lookup(placed):
    store = ir_datasets.load("ohsumed").docs_store()
    doc = store.get("89010002")
    assert doc.title == "Heparin in the treatment of coagulation disorders associated with sepsis."
    assert ir_datasets.load("ohsumed").docs_count() == 7
    assert (placed / "ohsumed" / "docs.pklz4").exists()


@pytest.mark.parametrize("layout", ["placed", "archived"])
def test_letor_qrels_map_docids_to_medline_uis(layout, request):
    request.getfixturevalue(layout)
    letor = list(ir_datasets.load("ohsumed/letor3").qrels_iter())
    original = {(q.query_id, q.doc_id): q.relevance for q in ir_datasets.load("ohsumed").qrels_iter()}
    assert len(letor) == 10  # Fold1's train, vali and test together, each pair once
    assert {(q.query_id, q.doc_id): q.relevance for q in letor} == original  # joins on UI
    table = ohsumed.letor_table("letor3")
    assert table.n_features == 45
    assert dict(zip(table.letor_doc_id, table.doc_id, strict=True))["4"] == "88010002"
    assert ohsumed.letor_table("letor2").n_features == 25
    with pytest.raises(ValueError, match="read-only"):  # cached for every caller: nobody may change it
        table.label[0] = 99
    assert len(list(ir_datasets.load("ohsumed/letor2").qrels_iter())) == 10


def test_feature_runs_and_virtual_users(placed):
    run = ohsumed.feature_run("ohsumed/letor3", feature=11)
    assert list(run.columns) == ["query_id", "doc_id", "score"] and len(run) == 10
    raw = ohsumed.feature_qrels("ohsumed/letor3/raw", feature=1)  # TF of title: integer levels
    assert list(raw.columns) == ["query_id", "doc_id", "relevance"]
    assert np.array_equal(raw["relevance"], np.round(raw["relevance"]))
    tfidf = ohsumed.feature_qrels("ohsumed/letor3/raw", feature=9)  # TF-IDF of title: real-valued
    assert not np.array_equal(tfidf["relevance"], np.round(tfidf["relevance"]))
    # The fixture's raw file holds these values for query 1, docid 3 (UI 88010001)
    line = (FIXTURE / "letor3/OHSUMED/Feature_min/Fold1/train.txt").read_text().splitlines()[2]
    values = dict(item.split(":") for item in line.split("#")[0].split()[2:])
    row = tfidf[(tfidf.query_id == "1") & (tfidf.doc_id == "88010001")]
    assert row["relevance"].item() == float(values["9"])

    # A virtual user's own feature ranks perfectly by its own labels, as in the paper's Fig. 7
    own = ohsumed.feature_run("ohsumed/letor3/raw", feature=9)
    perfect = ir_measures.calc_aggregate([muMAP, nDCNG @ 10, meanNDCNG], tfidf, own)
    assert all(v == pytest.approx(1.0) for v in perfect.values())
    # Query-level normalisation keeps each query's ranking: same values for the normalised run
    normalised = ohsumed.feature_run("ohsumed/letor3", feature=9)
    assert ir_measures.calc_aggregate([muMAP], tfidf, normalised)[muMAP] == pytest.approx(1.0)


def test_end_to_end_from_python(placed):
    qrels = ir_datasets.load("ohsumed").qrels_iter()
    run = ohsumed.feature_run("ohsumed/letor3", feature=11)
    values = ir_measures.calc_aggregate([muMAP, nDCNG @ 10, meanNDCG, ir_measures.AP], qrels, run)
    qrels_frame = pd.DataFrame(ir_datasets.load("ohsumed/letor3").qrels_iter())
    assert ir_measures.calc_aggregate([muMAP], qrels_frame, run)[muMAP] == values[muMAP]
    per_query = {m.query_id: m.value for m in muMAP.iter_calc(list(ir_datasets.load("ohsumed").qrels_iter()), run)}
    levels = [ir_measures.AP(rel=t) for t in (1, 2)]
    ap = {(m.query_id, m.measure): m.value for m in ir_measures.iter_calc(levels, qrels_frame, run)}
    for qid in ("1", "2", "3"):  # every fixture query has labels 1 and 2: µAP = mean of AP(rel=1), AP(rel=2)
        assert per_query[qid] == pytest.approx((ap[(qid, levels[0])] + ap[(qid, levels[1])]) / 2)


def test_missing_data_names_path_files_and_source(home):
    with pytest.raises(GradedInputError) as info:
        list(ir_datasets.load("ohsumed").queries_iter())
    message = str(info.value)
    assert "OHSUMED file 'queries' not found: place ohsumed.87" in message
    assert str(home / "ohsumed") in message and "judged" in message and "TREC-9 Filtering" in message

    with pytest.raises(GradedInputError) as info:
        ohsumed.feature_run("ohsumed/letor3", feature=1)
    assert str(home / "ohsumed" / "letor3") in str(info.value) and "QueryLevelNorm/Fold1" in str(info.value)
    assert "LETOR (Microsoft Research" in str(info.value)


def test_letor_without_the_ui_mapping_says_what_is_needed(home):
    shutil.copytree(FIXTURE / "letor3", home / "ohsumed" / "letor3")
    with pytest.raises(GradedInputError, match=r"'judged' file \(or the documents\), needed to map LETOR's docids"):
        ohsumed.feature_run("ohsumed/letor3", feature=1)


def test_bad_feature_numbers_and_dataset_ids(placed):
    with pytest.raises(GradedInputError, match=r"ohsumed/letor2 has features 1\.\.25, not 26"):
        ohsumed.feature_run("ohsumed/letor2", 26)
    with pytest.raises(GradedInputError, match=r"'ohsumed' is not a LETOR dataset"):
        ohsumed.feature_qrels("ohsumed", 1)


def test_malformed_files_name_file_and_line(placed):
    (placed / "ohsumed" / "judged").write_text("1\t87049087\t1\tx\n")
    with pytest.raises(GradedInputError, match=r"judged:1: expected 'query<TAB>UI<TAB>sequential id<TAB>d\|p\|n'"):
        list(ir_datasets.load("ohsumed").qrels_iter())
    bad = placed / "ohsumed" / "letor3" / "OHSUMED" / "QueryLevelNorm" / "Fold1" / "vali.txt"
    bad.write_text("2 qid:2 1:0.5 2:abc #docid = 4\n")
    with pytest.raises(GradedInputError, match=r"vali.txt:1: malformed label or feature"):
        ohsumed.feature_run("ohsumed/letor3", 1)


