"""Our measures as first-class ir_measures measures: registration, parsing, every entry point, inputs."""

from __future__ import annotations

import importlib

import ir_measures
import pandas as pd
import pytest
from ir_measures import AP, P, Qrel, ScoredDoc, nDCG

import ir_measures_graded
from ir_measures_graded import GradedProvider, meanNDCG, meanNDCNG, muAP, muMAP, muP, nDCNG, μAP, μMAP, μP
from support.random_collections import random_collection

MIXED = [muMAP, nDCNG @ 10, AP, nDCG @ 10, P @ 5]


@pytest.fixture(scope="module")
def collection():
    qrels, run = random_collection(21, n_queries=60)
    other_run = random_collection(22, n_queries=60)[1]
    return qrels, [run, other_run]


def test_provider_registered_and_appended_to_default_pipeline():
    provider = ir_measures.providers.registry["graded"]
    assert isinstance(provider, GradedProvider)
    assert provider in ir_measures.DefaultPipeline.providers
    assert ir_measures.DefaultPipeline.providers[0].NAME == "runtime"  # appended, not replaced


def test_importing_again_is_harmless():
    n_providers = len(ir_measures.DefaultPipeline.providers)
    importlib.reload(ir_measures_graded.measures.muap)
    importlib.reload(ir_measures_graded)
    ir_measures_graded.install()
    assert len(ir_measures.DefaultPipeline.providers) == n_providers
    assert sum(p.NAME == "graded" for p in ir_measures.DefaultPipeline.providers) == 1


@pytest.mark.parametrize(
    "text, measure",
    [("muAP", muAP), ("muMAP", muAP), ("μAP", muAP), ("μMAP", muAP), ("µMAP", muAP), ("µAP", muAP),
     ("nDCNG@10", nDCNG @ 10), ("NDCNG@10", nDCNG @ 10), ("muP@5", muP @ 5), ("μP@5", muP @ 5),
     ("meanNDCG", meanNDCG), ("meanNDCNG", meanNDCNG), ("muAP(levels='2,3')@100", muAP(levels=(2, 3)) @ 100)],
)
def test_parse_measure_names_and_aliases(text, measure):
    assert ir_measures.parse_measure(text) == measure


def test_module_aliases_are_the_same_measure():
    assert muMAP is muAP and μAP is muAP and μMAP is muAP and μP is muP


@pytest.mark.parametrize("measure", [
    muAP, muAP @ 10, muAP(levels="collection"), muAP(levels=(2,)), muAP(levels=(1, 2.5)), muAP(weights="uniform"),
    muAP(floor=1, judged_only=True) @ 5, muP @ 5, muP(levels="collection") @ 10, nDCNG, nDCNG @ 10,
    nDCNG(dcg="log2", norm=4) @ 20, nDCNG(gains={1: 2, 2: 5}), nDCNG(norm="collection", floor=-1),
    meanNDCG @ 10, meanNDCNG(judged_only=True),
])
def test_str_round_trips_through_parse_measure(measure):
    parsed = ir_measures.parse_measure(str(measure))
    assert parsed == measure and str(parsed) == str(measure)


def test_measure_metadata_in_ir_measures_style():
    for measure in (muAP, muP, nDCNG, meanNDCG, meanNDCNG):
        assert measure.NAME and measure.PRETTY_NAME and measure.SHORT_DESC
        assert all(info.desc for info in measure.SUPPORTED_PARAMS.values())
        assert "Scheel" in type(measure).__doc__


def test_all_entry_points_agree_on_several_runs(collection):
    qrels, runs = collection
    evaluator = ir_measures.evaluator(MIXED, qrels)
    for run in runs:
        aggregate = ir_measures.calc_aggregate(MIXED, qrels, run)
        per_query = list(ir_measures.iter_calc(MIXED, qrels, run))
        calc = ir_measures.calc(MIXED, qrels, run)
        assert set(aggregate) == set(MIXED)
        assert evaluator.calc_aggregate(run) == pytest.approx(aggregate, abs=1e-12)
        assert calc.aggregated == pytest.approx(aggregate, abs=1e-12)
        assert sorted(map(tuple, calc.per_query), key=str) == sorted(map(tuple, per_query), key=str)
        for measure in MIXED:
            values = [m.value for m in per_query if m.measure == measure]
            assert len(values) == len(qrels)
            assert aggregate[measure] == pytest.approx(sum(values) / len(values), abs=1e-12)
    assert ir_measures.calc_aggregate(MIXED, qrels, runs[0]) != ir_measures.calc_aggregate(MIXED, qrels, runs[1])


def test_measure_shortcuts(collection):
    qrels, runs = collection
    assert muMAP.calc_aggregate(qrels, runs[0]) == ir_measures.calc_aggregate([muMAP], qrels, runs[0])[muMAP]
    assert muMAP.evaluator(qrels).calc_aggregate(runs[1])[muMAP] == muMAP.calc_aggregate(qrels, runs[1])


def as_frames(qrels, run):
    qdf = pd.DataFrame([(q, d, r) for q, ds in qrels.items() for d, r in ds.items()],
                       columns=["query_id", "doc_id", "relevance"])
    rdf = pd.DataFrame([(q, d, s) for q, ds in run.items() for d, s in ds.items()],
                       columns=["query_id", "doc_id", "score"])
    return qdf, rdf


def test_every_input_format_gives_the_same_values(collection):
    qrels, runs = collection
    measures = [muMAP, nDCNG @ 10, meanNDCG]
    expected = ir_measures.calc_aggregate(measures, qrels, runs[0])
    qdf, rdf = as_frames(qrels, runs[0])
    qiter = [Qrel(q, d, r) for q, ds in qrels.items() for d, r in ds.items()]
    riter = [ScoredDoc(q, d, s) for q, ds in runs[0].items() for d, s in ds.items()]
    provider = ir_measures.providers.registry["graded"]
    # (empty qrels dicts are queries too; the frames cannot hold them, so compare on non-empty ones)
    nonempty = {q: ds for q, ds in qrels.items() if ds}
    expected = provider.calc_aggregate(measures, nonempty, runs[0])
    for q_in, r_in in [(qdf, rdf), (iter(qiter), iter(riter)), (qdf, runs[0]), (nonempty, rdf)]:
        assert provider.calc_aggregate(measures, q_in, r_in) == pytest.approx(expected, abs=1e-12)


def test_integer_query_ids_in_frames_match_string_ids():
    qdf = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": ["a", "b", "a"], "relevance": [2, 1, 1]})
    rdf = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["b", "a", "a"], "score": [2.0, 1.0, 1.0]})
    result = muAP.calc(qdf, rdf)
    assert {m.query_id for m in result.per_query} == {"1", "2"}
    assert result.aggregated == pytest.approx(((0.5 * (1 + 2 / 2) / 2 + 0.5 * 0.5) + 1.0) / 2)


def test_query_conventions():
    qrels = {"both": {"a": 1}, "qrels_only": {"a": 2}, "irrelevant_only": {"a": 0}}
    run = {"both": {"a": 1.0}, "run_only": {"a": 1.0}, "irrelevant_only": {"a": 1.0}}
    got = {m.query_id: m.value for m in muAP.iter_calc(qrels, run)}
    assert got == {"both": 1.0, "qrels_only": 0.0, "irrelevant_only": 0.0}


def test_real_valued_labels_rejected_by_pytrec_eval_but_not_by_us():
    qrels = {"q": {"a": 0.37, "b": 1.5}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    assert ir_measures.calc_aggregate([muAP, nDCNG], qrels, run)[muAP] == pytest.approx(
        (0.37 * (1 + 1) / 2 + (1.5 - 0.37) * 0.5) / 1.5)
    with pytest.raises(TypeError):
        ir_measures.calc_aggregate([AP], qrels, run)


# --- which inputs go through ir_measures (issue #35.17) ------------------------------------------

def _in_form(form: str, frame: pd.DataFrame, path):
    """``frame`` as a TREC file path, an Arrow table or a polars DataFrame."""
    if form == "path":
        if "score" in frame.columns:
            lines = [f"{q} Q0 {d} 1 {s!r} t" for q, d, s in frame[["query_id", "doc_id", "score"]].itertuples(index=False)]
        else:
            lines = [f"{q} 0 {d} {r}" for q, d, r in frame[["query_id", "doc_id", "relevance"]].itertuples(index=False)]
        path.write_text("\n".join(lines) + "\n")
        return str(path)
    if form == "arrow":
        import pyarrow as pa

        return pa.Table.from_pandas(frame, preserve_index=False)
    polars = pytest.importorskip("polars")
    return polars.from_pandas(frame)


@pytest.mark.parametrize("names", [["AP"], ["AP", "Judged@10"], ["AP", "muMAP"], ["muMAP"]])
@pytest.mark.parametrize("form", ["path", "arrow", "polars"])
def test_files_arrow_and_polars_are_read_for_every_list_of_measures(names, form, tmp_path):
    """One rule (issue #35.17): with the package imported, qrels and runs given to ir_measures'
    default pipeline as a path, an Arrow table or a polars frame are read for any list of measures,
    ours or not (standard-only lists failed on the run: 'unknown run format'), with the values of the
    same data as pandas frames, through calc_aggregate, iter_calc and an evaluator."""
    measures = [ir_measures.parse_measure(n) for n in names]
    qdf = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "a", "d"],
                        "relevance": [2, 0, 1, 1, 0]})
    rdf = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2", "q2"], "doc_id": ["c", "b", "a", "d", "a", "e"],
                        "score": [3.0, 2.0, 1.0, 2.5, 1.5, 0.5]})
    expected = ir_measures.calc_aggregate(measures, qdf, rdf)
    per_query = sorted((str(m.measure), m.query_id, m.value) for m in ir_measures.iter_calc(measures, qdf, rdf))
    qrels, run = _in_form(form, qdf, tmp_path / "qrels"), _in_form(form, rdf, tmp_path / "run")
    assert ir_measures.calc_aggregate(measures, qrels, run) == expected
    assert sorted((str(m.measure), m.query_id, m.value) for m in ir_measures.iter_calc(measures, qrels, run)) == per_query
    evaluator = ir_measures.evaluator(measures, qrels)
    assert evaluator.calc_aggregate(run) == expected and evaluator.calc_aggregate(run) == expected  # runs twice
    assert ir_measures.calc_aggregate(measures, qdf, run) == expected  # and mixed with a pandas qrels
    assert measures[0].calc_aggregate(qrels, run) == expected[measures[0]]
