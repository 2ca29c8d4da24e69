"""``ir-measures-graded agree``: the API's tables, one per section, in every format; bad input in one line."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from ir_measures_graded.experiments import experiment
from ir_measures_graded.experiments.testing import Testing
from ir_measures_graded.judges import agree
from support.cli import error_of, run_main
from support.judges import write_collection


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    return write_collection(tmp_path_factory.mktemp("agree-cli"), runs=4, topics=8)


def test_every_section_is_the_apis_table(collection, capsys, tmp_path):
    qa, qb, runs, _, _ = collection
    found = agree(experiment(qa, runs, ["muMAP", "nDCG@10"]), qb, a="NIST", b="LLM", maps=["map:1=1,2=3,3=4"],
                  testing=Testing(test="t"))
    views = {"labels": found.labels.summary, "thresholds": found.labels.thresholds, "systems": found.systems,
             "confusion": found.labels.confusion, "one-side": found.labels.one_side, "pairs": found.pairs,
             "runs": found.runs}
    for section, view in views.items():
        out, _ = run_main(capsys, "agree", qa, qb, *runs, "-m", "muMAP", "nDCG@10", "--judges", "NIST", "LLM",
                          "--map", "map:1=1,2=3,3=4", "--test", "t", "--sections", section, "-o", "jsonl")
        got = pd.DataFrame([json.loads(line) for line in out.splitlines()])
        expected = pd.read_json(io.StringIO(view.render("jsonl")), lines=True) if len(view.table) else pd.DataFrame()
        assert got.shape == expected.shape, section
    out, _ = run_main(capsys, "agree", qa, qb, *runs, "-m", "muMAP", "--test", "t", "--plot", str(tmp_path / "a.svg"))
    assert out.startswith("Label agreement of A and B") and "Which measures hold from A to B" in out
    assert (tmp_path / "a.svg").read_text().startswith("<?xml")
    run_main(capsys, "agree", qa, qb, *runs, "-m", "muMAP", "--test", "t", "-o", "tsv", "--output-dir",
             str(tmp_path / "out"))
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["labels.tsv", "systems.tsv", "thresholds.tsv"]


def test_bad_input_is_one_line(collection, capsys, tmp_path):
    qa, qb, runs, _, _ = collection
    assert "one table per stream" in error_of(capsys, "agree", qa, qb, *runs, "-m", "muMAP", "-o", "csv")
    assert "at least two runs" in error_of(capsys, "agree", qa, qb, runs[0], "-m", "muMAP")
    assert "keep the order of the labels" in error_of(capsys, "agree", qa, qb, *runs, "-m", "muMAP", "--test", "t",
                                             "--mapping", "map:1=3,3=1")
    assert "standard input can be read once" in error_of(capsys, "agree", "-", "-", *runs, "-m", "muMAP")
    elsewhere = tmp_path / "elsewhere.qrels"
    elsewhere.write_text("z1 0 d1 1\n")
    assert "no (query, document) judged in common" in error_of(capsys, "agree", qa, str(elsewhere), *runs, "-m",
                                                               "muMAP", "--test", "t")
    coarse = tmp_path / "coarse.qrels"  # judge B on 0-1
    coarse.write_text("".join(line.rsplit(" ", 1)[0] + (" 1\n" if int(line.rsplit(" ", 1)[1]) else " 0\n")
                              for line in open(qb)))
    assert ("measure AP(rel=2) is undefined on judge B's qrels: no judgment reaches grade 2 (its grades: 0, 1)"
            in error_of(capsys, "agree", qa, str(coarse), *runs, "-m", "muMAP", "AP(rel=2)", "--test", "t"))

