"""Bad input gives one clear GradedInputError naming what is wrong; inputs are never modified."""

from __future__ import annotations

import copy
import gzip
import math
import re

import ir_measures
import numpy as np
import pandas as pd
import pytest
from ir_measures import Qrel, ScoredDoc

from ir_measures_graded import GradedInputError, meanNDCG, muAP, muP, nDCNG
from ir_measures_graded.io.readers import read_qrels, read_run

QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"a": 1}}
RUN = {"q1": {"a": 1.0, "b": 2.0, "d": 0.5}, "q2": {"a": 1.0}}


def calc(qrels, run, measures=(muAP, nDCNG @ 10)):
    return ir_measures.calc_aggregate(list(measures), qrels, run)


@pytest.mark.parametrize("bad, pattern", [
    (float("nan"), r"run row 1 \(query 'q1', doc 'b'\): score nan is not a finite number"),
    ("high", r"run row 1 \(query 'q1', doc 'b'\): score 'high' is a str, not a number"),
    ("2.5", r"run row 1 \(query 'q1', doc 'b'\): score '2.5' is a str, not a number"),  # not a false reason
    (None, r"score nan is not a finite number"),  # pandas stores None as NaN in a float column
    (math.inf, r"score inf is not a finite number"),
])
def test_bad_score_names_row_query_and_doc(bad, pattern):
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, bad]})
    with pytest.raises(GradedInputError, match=pattern):
        calc(QRELS, run)


@pytest.mark.parametrize("bad, reason", [(float("nan"), "nan is not a finite number"),
                                         ("relevant", "'relevant' is a str, not a number"),
                                         (None, "None is not a finite number")])
def test_bad_label_names_query_and_doc(bad, reason):
    qrels = {"q1": {"a": 2, "b": bad}}
    with pytest.raises(GradedInputError, match=rf"qrels row 1 \(query 'q1', doc 'b'\): relevance {reason}"):
        calc(qrels, RUN)


NUMERIC_TEXT = ["2", "1.5", " 3 ", "1e3", b"2", np.str_("2")]


@pytest.mark.parametrize("text", NUMERIC_TEXT, ids=repr)
@pytest.mark.parametrize("form", ["dict", "pandas object", "pandas string"])
def test_a_numeric_string_is_refused_for_its_type_not_as_non_finite(text, form):
    # '2' reads as a number but is text: the message names its type (#35.6), for qrels and runs alike
    kind = "str" if isinstance(text, str) else "bytes"  # numpy's str_ is a str to the user, whatever reads it
    if form == "pandas string" and not isinstance(text, str):
        pytest.skip("a pandas string column holds str")
    for side in ("qrels", "run"):
        field = "relevance" if side == "qrels" else "score"
        if form == "dict":
            bad = {"q1": {"a": 2 if side == "qrels" else 1.0, "b": text}}
        else:
            values = pd.array([text if form == "pandas string" else 2 if side == "qrels" else 1.0, text],
                              dtype="string" if form == "pandas string" else object)
            bad = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], field: values})
        qrels, run = (bad, RUN) if side == "qrels" else (QRELS, bad)
        row, doc = (0, "a") if form == "pandas string" else (1, "b")  # a string column holds text in every row
        shown = re.escape(repr(str(text) if form == "pandas string" else (text.item() if isinstance(text, np.generic)
                                                                             else text)))
        expected = "str" if form == "pandas string" else kind
        with pytest.raises(GradedInputError, match=rf"{side} row {row} \(query 'q1', doc '{doc}'\): {field} {shown} is a "
                                                   rf"{expected}, not a number$"):
            calc(qrels, run)


def test_duplicate_query_doc_in_run():
    run = [ScoredDoc("q1", "a", 1.0), ScoredDoc("q1", "b", 0.5), ScoredDoc("q1", "a", 0.2)]
    with pytest.raises(GradedInputError, match=r"run has the same \(query, doc\) more than once: query 'q1', doc 'a' at rows 0 and 2"):
        calc(QRELS, run)


def test_duplicate_query_doc_in_qrels():
    qrels = [Qrel("q1", "a", 1), Qrel("q1", "a", 2)]
    with pytest.raises(GradedInputError, match=r"qrels has the same \(query, doc\) more than once"):
        calc(qrels, RUN)


@pytest.mark.parametrize("columns, kind, missing", [
    (["query_id", "doc_id"], "run", "['score']"),
    (["qid", "docno", "score"], "run", "['query_id', 'doc_id']"),
])
def test_missing_run_columns(columns, kind, missing):
    run = pd.DataFrame([["q1", "a", 1.0][: len(columns)]], columns=columns)
    with pytest.raises(GradedInputError, match=rf"{kind} DataFrame is missing column\(s\) {missing.replace('[', '.').replace(']', '.')}"):
        ir_measures.providers.registry["graded"].calc_aggregate([muAP], QRELS, run)


def test_missing_qrels_column():
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "label": [1]})
    with pytest.raises(GradedInputError, match=r"qrels DataFrame is missing column\(s\) \['relevance'\]"):
        ir_measures.providers.registry["graded"].calc_aggregate([muAP], qrels, RUN)


def test_wrong_container_types():
    with pytest.raises(GradedInputError, match="run must be a pandas DataFrame, a dict of dicts or an iterable"):
        ir_measures.providers.registry["graded"].calc_aggregate([muAP], QRELS, 42)
    with pytest.raises(GradedInputError, match="run iterable must yield named tuples"):
        ir_measures.providers.registry["graded"].calc_aggregate([muAP], QRELS, [("q1", "a", 1.0)])
    with pytest.raises(GradedInputError, match=r"qrels dict for query 'q1' must map doc_id -> value"):
        calc({"q1": [("a", 1)]}, RUN)


@pytest.mark.parametrize("measure, pattern", [
    (muAP(foo=1), r"muAP: unknown parameter\(s\) \['foo'\]; supported: cutoff, judged_only, ties, levels, weights, floor"),
    (muAP(levels="some"), r"muAP: invalid levels='some'; expected 'query': every label above the floor"),
    (muAP(levels=()), r"muAP: invalid levels=\(\)"),
    (muAP(levels=(0, 1)), r"muAP: levels=\(0, 1\) must all lie above floor=0"),
    (muAP(weights="log"), r"muAP: invalid weights='log'; expected 'distance' \(the distance from t"),
    (muAP @ 0, r"muAP: invalid cutoff=0 \(cutoff must be a positive integer\); expected a positive integer"),
    (muAP(cutoff=2.5), r"muAP: invalid cutoff=2.5; expected a positive integer \(the ranking depth k\)"),
    (muAP(judged_only=1), r"muAP: invalid judged_only=1"),
    (muAP(floor="low"), r"muAP: invalid floor='low' \(floor must be a finite number\); expected a finite number"),
    (muP, r"muP: parameter cutoff \(ranking depth k\) is required, e.g. muP@10"),
    (nDCNG(norm=0), r"nDCNG: invalid norm=0"),
    (nDCNG(norm="max"), r"nDCNG: invalid norm='max'"),
    (nDCNG(dcg="exp"), r"nDCNG: invalid dcg='exp'"),
    (nDCNG(gains={"a": 1}), r"nDCNG: invalid gains=\{'a': 1\} \(it must map distinct numbers to numbers\)"),
    (meanNDCG(norm=2), r"meanNDCG: unknown parameter\(s\) \['norm'\]"),
])
def test_invalid_parameters_fail_at_validation(measure, pattern):
    with pytest.raises(GradedInputError, match=pattern):
        measure.validate_params()
    with pytest.raises(GradedInputError, match=pattern):
        calc(QRELS, RUN, [measure, ir_measures.AP])


def test_bad_value_from_dict_run_is_shown_as_given():
    with pytest.raises(GradedInputError, match=r"run row 3 \(query 'q2', doc 'a'\): score None is not a finite number"):
        calc(QRELS, {"q1": RUN["q1"], "q2": {"a": None}})


def test_parse_measure_unknown_parameter_fails_at_use():
    measure = ir_measures.parse_measure("muMAP(level='query')")
    with pytest.raises(GradedInputError, match=r"unknown parameter\(s\) \['level'\]"):
        calc(QRELS, RUN, [measure])


def test_inputs_are_never_modified():
    qrels_df = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q1"], "doc_id": ["b", "a", "a", "c"],
                             "relevance": [0.0, 2.0, 1.0, 1.0]})
    run_df = pd.DataFrame({"query_id": ["q1", "q2", "q1", "q1"], "doc_id": ["d", "a", "b", "a"],
                           "score": np.array([0.5, 1.0, 2.0, 1.0])})
    qrels_before, run_before = qrels_df.copy(deep=True), run_df.copy(deep=True)
    dict_qrels, dict_run = copy.deepcopy(QRELS), copy.deepcopy(RUN)
    measures = [muAP, muAP(judged_only=True), nDCNG @ 2, meanNDCG @ 5, muP @ 2, nDCNG(gains={1: 3})]
    calc(qrels_df, run_df, measures)
    calc(dict_qrels, dict_run, measures)
    ir_measures.evaluator(measures, qrels_df).calc_aggregate(run_df)
    pd.testing.assert_frame_equal(qrels_df, qrels_before)
    pd.testing.assert_frame_equal(run_df, run_before)
    assert dict_qrels == QRELS and dict_run == RUN


# --- TREC files -----------------------------------------------------------------------------------

def test_read_qrels_keeps_real_labels_and_integer_labels(tmp_path):
    (tmp_path / "int.qrels").write_text("q1 0 a 2\nq1 0 b 0\n\nq2 0 a 1\n")
    (tmp_path / "real.qrels").write_text("q1 0 a 0.37\nq1 0 b 1\n")
    assert read_qrels(tmp_path / "int.qrels")["relevance"].dtype == np.int64
    real = read_qrels(tmp_path / "real.qrels")
    assert real["relevance"].tolist() == [0.37, 1.0]
    assert real["doc_id"].tolist() == ["a", "b"]


def test_read_gzip_run(tmp_path):
    with gzip.open(tmp_path / "run.gz", "wt") as f:
        f.write("q1 Q0 007 1 2.5 x\nq1 Q0 a 2 1e-3 x\n")
    run = read_run(tmp_path / "run.gz")
    assert run["doc_id"].tolist() == ["007", "a"]  # ids stay strings, leading zeros kept
    assert run["score"].tolist() == [2.5, 0.001]


@pytest.mark.parametrize("content, message", [
    ("q1 Q0 a 1 2.5 x\nq1 Q0 b 2 x\n", r"run.txt:2: malformed run line \(expected 6 columns, found 5\): 'q1 Q0 b 2 x'"),
    ("q1 Q0 a 1 2.5 x\nq1 Q0 b 2 high x\n", r"run.txt:2: malformed run line \(column 5 \('high'\) is not a number\)"),
    ("q1 Q0 a 1 nan x\n", r"run.txt:1: malformed run line \(column 5 is not a finite number\)"),
])
def test_malformed_run_line_named_by_file_and_line(tmp_path, content, message):
    (tmp_path / "run.txt").write_text(content)
    with pytest.raises(GradedInputError, match=message):
        read_run(tmp_path / "run.txt")


def test_malformed_qrels_and_missing_and_bad_gzip(tmp_path):
    (tmp_path / "q.txt").write_text("q1 0 a 1\nq1 0 b\n")
    with pytest.raises(GradedInputError, match=r"q.txt:2: malformed qrels line \(expected 4 columns, found 3\)"):
        read_qrels(tmp_path / "q.txt")
    with pytest.raises(GradedInputError, match=r"qrels file not found: .*nope.txt"):
        read_qrels(tmp_path / "nope.txt")
    (tmp_path / "bad.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(GradedInputError, match=r"cannot read run file .*bad.gz"):
        read_run(tmp_path / "bad.gz")


def test_a_measure_with_unknown_parameters_prints_them_as_given():
    # repr must work before validation reports the problem (error messages and tables print it)
    assert repr(muAP(foo=1, bar="x") @ 5) == "muAP(foo=1,bar='x')@5"
    assert str(nDCNG(levels=(1, 2))) == "nDCNG(levels=(1, 2))"
