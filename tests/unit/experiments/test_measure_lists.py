"""Measure lists are read in one place (:func:`ir_measures_graded.measures.base.parse_measures`) by
every entry point: the command line, meta-evaluation, the report and Spark. Names and objects
parse alike, ``all`` expands everywhere, each measure comes once in the order given, and a bad
name gets the same one-line message wherever it is given."""

from __future__ import annotations

import ir_measures
import pandas as pd
import pytest

from ir_measures_graded import muMAP, nDCNG
from ir_measures_graded.cli import main
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import experiment
from ir_measures_graded.measures.base import ALL_NAME, all_measures, parse_measures

QRELS = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "relevance": [2, 0, 1]})
RUNS = {"x": pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "score": [2.0, 1.0, 1.0]})}


def test_names_and_objects_parse_alike_once_each_in_order():
    got = parse_measures(["nDCNG@10", muMAP, "AP", "muMAP", nDCNG @ 10])
    assert got == [nDCNG @ 10, muMAP, ir_measures.AP]
    assert parse_measures([ALL_NAME, "AP"]) == [*all_measures(), ir_measures.AP]


@pytest.mark.parametrize("given, message", [
    ("muMAPP", "unknown measure: muMAPP (did you mean muMAP, muAP, muP?)"),
    ("nDCNG(floor=-1)@5", "cannot parse measure 'nDCNG(floor=-1)@5'"),
])
def test_a_bad_name_gets_one_message_at_every_entry_point(given, message, tmp_path, capsys):
    with pytest.raises(GradedInputError) as raised:
        parse_measures([given])
    assert str(raised.value).startswith(message)
    with pytest.raises(GradedInputError) as from_experiment:
        experiment(QRELS, RUNS, [given])
    assert str(from_experiment.value) == str(raised.value)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("1 0 a 2\n")
    run.write_text("1 Q0 a 1 2.0 t\n")
    assert main([str(qrels), str(run), given]) == 2
    assert capsys.readouterr().err == f"ir-measures-graded: error: {' '.join(str(raised.value).split())}\n"


def test_a_negative_number_gets_the_quoting_hint():
    with pytest.raises(GradedInputError, match=r"write floor='-1', quoted"):
        parse_measures(["nDCNG(floor=-1)@5"])


def test_parameters_are_checked_and_an_empty_list_is_refused_unless_allowed():
    with pytest.raises(ValueError):
        parse_measures([nDCNG(dcg="nope") @ 5])
    with pytest.raises(GradedInputError, match="no measure given"):
        parse_measures([])
    assert parse_measures([], at_least_one=False) == []


def test_the_experiment_takes_all():
    table = experiment(QRELS, RUNS, [ALL_NAME]).per_query
    assert set(table["measure"]) == {str(m) for m in all_measures()}


@pytest.mark.parametrize("measure", [muMAP, ir_measures.nDCG @ 10])
def test_a_single_measure_object_is_a_list_of_one_at_every_entry_point(measure):
    from ir_measures_graded import experiment, report
    from ir_measures_graded.experiments.measure_lists import parse

    assert parse(measure) == [measure]
    exp = experiment(QRELS, RUNS, measure)
    assert exp.measures == [measure]
    assert exp.aggregates["value"].tolist() == [ir_measures.calc_aggregate([measure], QRELS, RUNS["x"])[measure]]
    two = {"x": RUNS["x"], "y": RUNS["x"].assign(score=[1.0, 2.0, 1.0])}
    assert report(experiment(QRELS, two, measure), transforms=[]).measures == [measure]


#: trec_eval's standard cutoffs, with which it reports P, recall and ndcg_cut.
STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@pytest.mark.parametrize("name, measure", [("P", ir_measures.P), ("Precision", ir_measures.P),
                                           ("R", ir_measures.R), ("Recall", ir_measures.R)])
def test_p_and_r_without_a_cutoff_expand_to_trec_evals_standard_cutoffs(name, measure, tmp_path, capsys):
    from ir_measures_graded.experiments.measure_lists import parse

    expanded = [measure @ k for k in STANDARD_CUTOFFS]
    assert parse([name]) == expanded
    assert parse(["recall" if measure is ir_measures.R else "P"]) == expanded  # as trec_eval's own name
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("1 0 a 2\n1 0 b 0\n")
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    assert main([str(qrels), str(run), name]) == 0
    out = capsys.readouterr().out
    # each named as trec_eval names it (the name given stands for several)
    trec = "recall" if measure is ir_measures.R else "P"
    assert [line.split("\t")[0] for line in out.splitlines()] == [f"{trec}_{k}" for k in STANDARD_CUTOFFS]


@pytest.mark.parametrize("name", ["SDCG", "BPM"])
def test_a_measure_that_needs_a_cutoff_without_one_gets_one_line(name):
    from ir_measures_graded.experiments.measure_lists import parse

    with pytest.raises(GradedInputError, match=rf"^{name} needs a cutoff: write {name}@k, e\.g\. {name}@10$"):
        parse([name])
