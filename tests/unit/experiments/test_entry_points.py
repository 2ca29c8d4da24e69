"""Issue 34: every entry point — the evaluate command, ``compare``, ``report``, ``experiment()`` and
``report()`` — takes the same inputs and gives the same run names, the same baseline, the same values
and the same refusal message (as tests/unit/experiments/test_measure_lists.py does for measure lists)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import ir_measures_graded as g
from ir_measures_graded.cli import main
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import experiment
from support.paths import QRELS, RANDOM, SAMPLE, STRONG, WEAK

RUNS = [WEAK, STRONG, RANDOM]
MEASURES = ["muMAP", "ndcg_cut.10", "NumRet"]  # ours, trec_eval's spelling, and a sum
NAMES = ["weak.run", "strong.run", "random.run"]


def records(text: str) -> pd.DataFrame:
    return pd.DataFrame([json.loads(line) for line in text.splitlines() if line.strip()])


def command_tables(capsys, tmp_path) -> dict[str, pd.DataFrame]:
    found = {}
    for name, args in {
        "evaluate": [QRELS, *RUNS, *MEASURES, "--baseline", "strong", "-o", "jsonl"],
        "judge": ["judge", QRELS, *RUNS, "-m", *MEASURES, "--baseline", "strong", "-o", "jsonl",
                    "--sections", "baseline", "--samples", "2"],
        "report": ["report", QRELS, *RUNS, "-m", *MEASURES, "--baseline", "strong", "-o", "jsonl",
                   "--html", str(tmp_path / "r.html"), "--no-scale"],
    }.items():
        assert main(args) == 0, capsys.readouterr().err
        out, err = capsys.readouterr()
        assert "NumRet: no p-value" in err  # one line saying why the sum is not tested, in every command
        found[name] = records(out)
    return found


def test_every_entry_point_names_compares_and_values_alike(capsys, tmp_path):
    exp = experiment(QRELS, RUNS, MEASURES, baseline="strong")
    python = exp.compare().to_dataframe()
    page = g.report(g.experiment(QRELS, RUNS, MEASURES), baseline="strong", transforms=[]).comparison
    tables = {**command_tables(capsys, tmp_path), "experiment": python, "report()": page}
    assert exp.runs == NAMES and exp.baseline == "strong.run"
    for where, table in tables.items():
        assert list(pd.unique(table["run"])) == ["strong.run", "weak.run", "random.run"], where  # baseline first
        assert list(pd.unique(table["measure"])) == MEASURES, where  # each measure by the name it was given
        merged = table.merge(exp.aggregates, on=["run", "measure"], suffixes=("", "_aggregate"))
        assert len(merged) == 9 and (merged["value"] - merged["value_aggregate"]).abs().max() < 1e-12, where
        tested = table[table["measure"] != "NumRet"].dropna(subset=["p_value"])
        assert len(tested) == 4, where  # two runs x two measures; the baseline and the sum untested
        assert table[table["measure"] == "NumRet"]["p_value"].isna().all(), where
        p = tested.set_index(["run", "measure"])["p_value"]
        expected = python.dropna(subset=["p_value"]).set_index(["run", "measure"])["p_value"]
        assert (p.sort_index() - expected.sort_index()).abs().max() < 1e-12, where


def test_a_baseline_that_is_none_of_the_runs_gets_one_message_everywhere(capsys, tmp_path):
    with pytest.raises(GradedInputError) as raised:
        experiment(QRELS, RUNS, MEASURES, baseline="bm25")
    message = str(raised.value)
    assert message == "baseline 'bm25' is none of the runs (weak.run, strong.run, random.run)"
    with pytest.raises(GradedInputError, match="^" + message.replace("(", r"\(").replace(")", r"\)") + "$"):
        g.report(g.experiment(QRELS, RUNS, MEASURES, baseline="bm25"))
    for args in ([QRELS, *RUNS, *MEASURES, "--baseline", "bm25"],
                 ["judge", QRELS, *RUNS, "-m", *MEASURES, "--baseline", "bm25"],
                 ["report", QRELS, *RUNS, "-m", *MEASURES, "--baseline", "bm25", "--html", str(tmp_path / "r.html")]):
        assert main(args) == 2
        assert capsys.readouterr().err == f"ir-measures-graded: error: {message}\n", args


def test_names_override_the_rule_and_name_the_baseline(capsys):
    exp = experiment(QRELS, RUNS, ["muMAP"], baseline="B", names=["A", "B", "C"])
    assert exp.runs == ["A", "B", "C"] and exp.compare().baseline == "B"
    assert main([QRELS, *RUNS, "muMAP", "--names", "A", "B", "C", "--baseline", "B", "-o", "csv"]) == 0
    out = capsys.readouterr().out
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == ["B", "A", "C"]


def test_real_labels_with_a_trec_eval_measure_are_refused_alike(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 0.5\nq1 0 b 1\n")
    run = tmp_path / "a.run"
    run.write_text("q1 Q0 a 1 2.0 x\nq1 Q0 b 2 1.0 x\n")
    other = tmp_path / "b.run"
    other.write_text("q1 Q0 b 1 2.0 y\nq1 Q0 a 2 1.0 y\n")
    with pytest.raises(GradedInputError) as raised:
        experiment(str(qrels), [str(run), str(other)], ["AP"])
    for args in ([str(qrels), str(run), str(other), "AP"],
                 ["judge", str(qrels), str(run), str(other), "-m", "AP"],
                 ["report", str(qrels), str(run), str(other), "-m", "AP", "--html", str(tmp_path / "r.html")]):
        assert main(args) == 2
        assert capsys.readouterr().err == f"ir-measures-graded: error: {' '.join(str(raised.value).split())}\n"


def test_file_names_that_are_not_utf8_and_names_with_newlines_are_shown_safely(tmp_path, capsys):
    import os

    folder = os.fsencode(tmp_path)
    paths = []
    for raw in (b"r\xff.run", b"s\xfe.run"):
        path = os.path.join(folder, raw)
        with open(path, "wb") as out:
            out.write((SAMPLE / "strong.run").read_bytes() if raw.startswith(b"r") else (SAMPLE / "weak.run").read_bytes())
        paths.append(os.fsdecode(path))
    assert main([QRELS, *paths, "muMAP", "-o", "csv"]) == 0
    assert "r\\xff.run" in capsys.readouterr().out
    exp = experiment(QRELS, RUNS[:2], ["muMAP"], names=["a\nb %x", "c\td"], baseline=0)
    latex = exp.compare().render("latex", title="runs a\nb")
    assert "\na\n" not in latex and "a b \\%x" in latex
    tsv = exp.compare().render("tsv")
    assert len(pd.read_csv(__import__("io").StringIO(tsv), sep="\t")) == 2


def test_iter_calc_yields_each_providers_values_ours_last_in_the_order_given():
    """What README and docs say of the order (#35 item 19): calc_aggregate in the order given;
    iter_calc per provider, this package's measures last, in the order given."""
    import ir_measures

    from ir_measures_graded.sample import graded_sample

    qrels, runs = graded_sample()
    given = [g.nDCNG @ 10, ir_measures.parse_measure("P@5"), g.muMAP, ir_measures.parse_measure("AP")]
    assert list(ir_measures.calc_aggregate(given, qrels, runs["strong"])) == given
    first = [m.measure for m in ir_measures.iter_calc(given, qrels, runs["strong"]) if m.query_id == "S01"]
    assert sorted(map(str, first[:2])) == ["AP", "P@5"] and first[2:] == [g.nDCNG @ 10, g.muMAP]


@pytest.mark.parametrize("alternative, family", [("greater", "runs"), ("two-sided", "all")])
def test_every_entry_point_tests_with_the_alternative_and_family_asked_for(capsys, tmp_path, alternative, family):
    """The comparison options reach the numbers in every subcommand and in report() (the report took
    --alternative and --family but tested two-sided per measure)."""
    options = ["--alternative", alternative, "--family", family, "-o", "jsonl"]
    expected = experiment(QRELS, RUNS, ["muMAP", "P@5"], baseline=0).compare(alternative=alternative, family=family)
    want = expected.to_dataframe().set_index(["run", "measure"])["p_adjusted"].dropna().sort_index()
    from ir_measures_graded.experiments.testing import Testing

    page = g.report(experiment(QRELS, RUNS, ["muMAP", "P@5"]), baseline=0, transforms=[],
                    testing=Testing(alternative=alternative, family=family))
    tables = {"report()": page.comparison}
    for name, args in {
        "evaluate": [QRELS, *RUNS, "muMAP", "P@5", "--baseline", "0", *options],
        "judge": ["judge", QRELS, *RUNS, "-m", "muMAP", "P@5", "--baseline", "0", "--samples", "2", *options],
        "report": ["report", QRELS, *RUNS, "-m", "muMAP", "P@5", "--baseline", "0", "--no-scale", "--html",
                   str(tmp_path / "r.html"), *options],
    }.items():
        assert main(args) == 0, name
        tables[name] = records(capsys.readouterr().out)
    for name, table in tables.items():
        got = table.set_index(["run", "measure"])["p_adjusted"].dropna().sort_index()
        assert list(got.index) == list(want.index), name
        assert (got - want).abs().max() < 1e-12, name
