"""PyTerrier's pt.Experiment with our measures, using the real pyterrier package (no Java needed)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import warnings

import ir_measures
import pandas as pd
import pytest
from ir_measures import AP, nDCG

from ir_measures_graded import meanNDCNG, muMAP, nDCNG
from ir_measures_graded.sample import graded_sample
from support.paths import OHSUMED_FIXTURE

pytestmark = pytest.mark.slow  # see pyproject.toml: the everyday subset is -m 'not slow'

pt = pytest.importorskip("pyterrier")  # the 'test' extra installs it; skip only in a bare install

TO_PT = {"query_id": "qid", "doc_id": "docno", "relevance": "label"}
MEASURES = [muMAP, nDCNG @ 10, AP, nDCG @ 10]


@pytest.fixture(scope="module")
def collection():
    qrels, runs = graded_sample()
    pt_qrels = qrels.rename(columns=TO_PT)
    pt_runs = {name: run.rename(columns=TO_PT)[["qid", "docno", "score"]] for name, run in runs.items()}
    topics = pd.DataFrame({"qid": sorted(pt_qrels["qid"].unique()), "query": "unused"})
    return qrels, runs, topics, pt_qrels, pt_runs


def experiment(collection, **kwargs):
    _, _, topics, pt_qrels, pt_runs = collection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pt.Experiment([pt_runs["strong"], pt_runs["weak"]], topics, pt_qrels, names=["strong", "weak"], **kwargs)


def test_experiment_means_equal_ir_measures(collection):
    qrels, runs, *_ = collection
    table = experiment(collection, eval_metrics=MEASURES).set_index("name")
    for name in ("strong", "weak"):
        expected = ir_measures.calc_aggregate(MEASURES, qrels, runs[name])
        for measure in MEASURES:
            assert table.loc[name, str(measure)] == pytest.approx(expected[measure], abs=1e-12)


def test_experiment_per_query_and_significance(collection):
    qrels, runs, *_ = collection
    per_query = experiment(collection, eval_metrics=[muMAP, nDCNG @ 10], perquery=True)
    assert set(per_query.columns) >= {"name", "qid", "measure", "value"}
    ours = per_query[(per_query.name == "weak") & (per_query.measure == "muAP")].set_index("qid")["value"]
    for metric in muMAP.iter_calc(qrels, runs["weak"]):
        assert ours[metric.query_id] == pytest.approx(metric.value, abs=1e-12)

    table = experiment(collection, eval_metrics=[muMAP, nDCNG @ 10], baseline=0).set_index("name")
    for column in ("muAP +", "muAP -", "muAP p-value", "nDCNG@10 p-value"):
        assert column in table.columns
    assert table.loc["weak", "muAP p-value"] < 0.05  # 30 queries, strong >> weak
    assert table.loc["weak", "muAP -"] > table.loc["weak", "muAP +"]


def test_real_valued_labels_in_the_qrels(collection):
    qrels, runs, topics, pt_qrels, pt_runs = collection
    real = pt_qrels.assign(label=pt_qrels["label"] * 0.37)
    table = pt.Experiment([pt_runs["strong"]], topics, real, eval_metrics=[muMAP, nDCNG @ 10, meanNDCNG],
                          names=["strong"]).set_index("name")
    integer = ir_measures.calc_aggregate([muMAP, nDCNG @ 10, meanNDCNG], qrels, runs["strong"])
    for measure in (muMAP, nDCNG @ 10, meanNDCNG):  # scale-free: same values as with labels 0-4
        assert table.loc["strong", str(measure)] == pytest.approx(integer[measure], abs=1e-12)
    with pytest.raises(TypeError, match="integer"):  # trec_eval-based measures cannot take them
        pt.Experiment([pt_runs["strong"]], topics, real, eval_metrics=[AP], names=["strong"])


def test_metric_strings_name_our_measures_next_to_trec_names(collection):
    qrels, runs, *_ = collection
    names = ["muMAP", "nDCNG@10", "map", "meanNDCNG", "muP@5", "muAP(judged_only=True)"]
    table = experiment(collection, eval_metrics=names, round={"muMAP": 3}).set_index("name")
    assert set(table.columns) == set(names)  # columns named as written
    measures = [muMAP, nDCNG @ 10, AP, meanNDCNG, ir_measures.parse_measure("muP@5"),
                muMAP(judged_only=True)]
    expected = ir_measures.calc_aggregate(measures, qrels, runs["weak"])
    assert table.loc["weak", "muMAP"] == round(expected[muMAP], 3) != expected[muMAP]  # round= applies
    for name, measure in zip(names[1:], measures[1:], strict=True):
        assert table.loc["weak", name] == pytest.approx(expected[measure], abs=1e-12), name

    micro = experiment(collection, eval_metrics=["µMAP", "ndcg_cut_10"], baseline=0).set_index("name")
    assert micro.loc["weak", "µMAP"] == pytest.approx(expected[muMAP], abs=1e-12)  # micro sign
    greek = experiment(collection, eval_metrics=["μMAP"]).set_index("name")
    assert greek.loc["weak", "μMAP"] == pytest.approx(expected[muMAP], abs=1e-12)  # Greek mu
    assert "µMAP p-value" in micro.columns and "ndcg_cut_10" in micro.columns
    per_query = experiment(collection, eval_metrics=["muMAP", "map"], perquery=True)
    assert set(per_query["measure"]) == {"muMAP", "map"}
    with pytest.raises(ValueError, match="muMAPP"):  # a typo is still an error
        experiment(collection, eval_metrics=["muMAPP"])


def test_trec_names_parse_as_before():
    assert ir_measures.parse_trec_measure("map") == [AP]
    assert ir_measures.parse_trec_measure("ndcg_cut_10") == [nDCG @ 10]
    assert len(ir_measures.parse_trec_measure("P")) == 9
    assert ir_measures.parse_trec_measure("muMAP") == [muMAP]
    with pytest.raises(ValueError):
        ir_measures.parse_trec_measure("nDCG@10")  # an ir_measures name, not trec_eval's: as before


@pytest.mark.parametrize("order", ["pyterrier first", "ours first"])
def test_pt_measures_whatever_the_import_order(order):
    imports = ["import pyterrier as pt", "import ir_measures_graded"]
    if order == "ours first":
        imports.reverse()
    code = "; ".join([*imports, "print(pt.measures.muMAP, pt.measures.nDCNG @ 10, pt.measures.μMAP, pt.measures.meanNDCG)"])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["muAP", "nDCNG@10", "muAP", "meanNDCG"]


def test_ohsumed_from_pyterrier_datasets(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path))
    shutil.copytree(OHSUMED_FIXTURE, tmp_path / "ohsumed")
    from ir_measures_graded.datasets import ohsumed

    ohsumed._cached_table.cache_clear()
    dataset = pt.get_dataset("irds:ohsumed/letor3")
    topics, qrels = dataset.get_topics("text"), dataset.get_qrels()
    assert list(topics["qid"]) == ["1", "2", "3"] and len(qrels) == 10
    runs = [ohsumed.feature_run("ohsumed/letor3", feature=f).rename(columns=TO_PT) for f in (1, 11)]
    table = pt.Experiment(runs, topics, qrels, eval_metrics=[muMAP, nDCNG @ 10, AP], names=["f1", "f11"])
    expected = ir_measures.calc_aggregate([muMAP, AP], ir_datasets_qrels(), ohsumed.feature_run("ohsumed/letor3", 11))
    row = table.set_index("name").loc["f11"]
    assert row["muAP"] == pytest.approx(expected[muMAP]) and row["AP"] == pytest.approx(expected[AP])


def ir_datasets_qrels():
    import ir_datasets

    return list(ir_datasets.load("ohsumed/letor3").qrels_iter())
