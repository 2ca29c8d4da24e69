"""Issue 42: one experiment, one truth. The Experiment owns its inputs (read once, with their options) and
every view — the command line's tables, the per-threshold breakdown, the report, LaTeX, the meta checks —
derives from one definition per number, so numbers shown side by side add up."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ir_measures_graded as g
from ir_measures_graded import meta
from ir_measures_graded.cli import main
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import experiment
from ir_measures_graded.experiments.evaluation import Reading
from ir_measures_graded.experiments.testing import Testing as Options  # pytest would collect a "Test..." name
from ir_measures_graded.per_level import by_level
from ir_measures_graded.sample import graded_sample
from support.cli import error_of, run_main
from support.examples import examples
from support.paths import QRELS, RANDOM, STRONG, WEAK
from support.random_collections import random_collection

RUNS = [STRONG, WEAK, RANDOM]

# --- every input is opened once -----------------------------------------------------------------------

_OPENED: list[str] | None = None


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _OPENED is not None and isinstance(args[0], (str, bytes, os.PathLike)):
        mode = args[1] if len(args) > 1 and isinstance(args[1], str) else "r"
        if "r" in mode or not mode:
            _OPENED.append(os.path.realpath(os.fsdecode(args[0])))


sys.addaudithook(_audit)  # a hook cannot be removed: it records only while a test asks


def opened_while(call) -> dict[str, int]:
    """How often each of the inputs was opened for reading while ``call()`` ran."""
    global _OPENED
    _OPENED = []
    try:
        call()
    finally:
        seen, _OPENED = _OPENED, None
    return {path: seen.count(os.path.realpath(path)) for path in [QRELS, *RUNS]}


def test_report_opens_the_qrels_and_each_run_at_most_twice(capsys, tmp_path):
    """Once to read, once to hash for the header (it was 5-6 times for the qrels, 4 for each run)."""
    counts = opened_while(lambda: run_main(capsys, "report", QRELS, *RUNS, "-m", "muMAP", "nDCNG@10",
                                           "--html", str(tmp_path / "r.html")))
    assert all(1 <= n <= 2 for n in counts.values()), counts


def test_the_evaluate_command_opens_each_input_once(capsys):
    counts = opened_while(lambda: run_main(capsys, QRELS, *RUNS, "muMAP", "nDCNG@10", "AP", "--thresholds",
                                           "-o", "text"))
    assert set(counts.values()) == {1}, counts
    counts = opened_while(lambda: run_main(capsys, QRELS, *RUNS, "muMAP", "AP", "--baseline", "weak"))
    assert set(counts.values()) == {1}, counts


def test_judge_opens_each_input_once(capsys):
    counts = opened_while(lambda: run_main(capsys, "judge", QRELS, *RUNS, "-m", "muMAP", "--samples", "5",
                                           "--permutations", "50"))
    assert set(counts.values()) == {1}, counts


def test_qrels_from_standard_input_are_read_once_by_report_and_judge(capsys, tmp_path, monkeypatch):
    """They were read again by the views: an empty per-threshold section, or KeyError: 'muAP'."""
    data = Path(QRELS).read_bytes()
    for args in (["report", "-", *RUNS, "-m", "muMAP", "--html", str(tmp_path / "r.html"), "-o", "jsonl"],
                 ["judge", "-", *RUNS, "-m", "muMAP", "--samples", "5", "--permutations", "50", "-o", "jsonl"]):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        out, _ = run_main(capsys, *args)
        records = [json.loads(line) for line in out.splitlines()]
        assert {r["measure"] for r in records} == {"muMAP"} and all(r["queries"] == 30 for r in records), args
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "MAP^t at each relevance threshold" in page and "t = 4" in page


def test_report_and_judge_take_the_column_options_of_parquet_inputs(capsys, tmp_path):
    qrels, runs = graded_sample()
    pq.write_table(pa.Table.from_pandas(qrels.rename(columns={"query_id": "qid", "doc_id": "docno",
                                                              "relevance": "label"})), tmp_path / "q.parquet")
    paths = []
    for name in ("strong", "weak"):
        path = tmp_path / f"{name}.parquet"
        pq.write_table(pa.Table.from_pandas(runs[name].rename(columns={"query_id": "qid", "doc_id": "docno"})), path)
        paths.append(str(path))
    options = ["--query-column", "qid", "--doc-column", "docno", "--relevance-column", "label"]
    expected, _ = run_main(capsys, str(tmp_path / "q.parquet"), *paths, "muMAP", *options, "-o", "csv")
    assert "0.5126" in expected
    for args in (["report", *[str(tmp_path / "q.parquet")], *paths, "-m", "muMAP", *options,
                  "--html", str(tmp_path / "r.html"), "-o", "csv"],
                 ["judge", str(tmp_path / "q.parquet"), *paths, "-m", "muMAP", *options, "--samples", "5",
                  "--permutations", "50", "-o", "csv"]):
        out, _ = run_main(capsys, *args)
        assert "strong.parquet,muMAP,0.5126" in out, args
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert f"{len(qrels):,} rows" in page  # rows as read, not newline bytes of a Parquet file


def test_the_spark_engine_refuses_the_column_options_in_one_line():
    with pytest.raises(GradedInputError, match="takes no column names"):
        experiment(QRELS, RUNS, ["muMAP"], engine="spark", reading=Reading(run_columns={"query_id": "qid"}))


# --- one definition per number -------------------------------------------------------------------------

def test_an_experiment_without_per_query_values_invents_none():
    """per_query=False gave a table of zeros, and compare() tested it (delta -0.2951, interval [0, 0])."""
    exp = experiment(QRELS, RUNS, ["muMAP"], per_query=False)
    assert exp.aggregates["value"].round(4).tolist() == [0.5126, 0.2175, 0.141]
    with pytest.raises(GradedInputError, match="without per-query values"):
        _ = exp.per_query
    with pytest.raises(GradedInputError, match="without per-query values"):
        exp.compare()


def test_a_measure_averaging_only_the_ranked_queries_is_not_tested():
    """ir_measures' Accuracy averages the queries a run ranks; zeros filled in for the others put its delta
    outside its own interval. Its aggregate is not the mean of the values a test compares: untested."""
    qrels, runs = graded_sample()
    partial = runs["strong"][runs["strong"]["query_id"].isin(["S01", "S02", "S03"])]
    exp = experiment(qrels, {"all": runs["strong"], "three": partial}, ["Accuracy", "muMAP"], warn=lambda _: None)
    assert list(exp.untested) == ["Accuracy"]
    row = exp.compare("all").table.set_index(["run", "measure"]).loc[("three", "Accuracy")]
    assert np.isnan(row["p_value"]) and np.isnan(row["ci_low"])
    power, pairs = meta.discriminative_power(exp, Options(test="randomization", correction="none", permutations=50))
    assert np.isnan(power.set_index("measure").loc["Accuracy", "discriminative_power"])
    assert "Accuracy" not in set(pairs["measure"])  # one rule in every section


def test_every_view_scores_a_run_by_its_measures_aggregate():
    """Scale check, stability's inputs and judge's means used per-query means: collection µMAP is 0.5142 as
    its aggregate and 0.5126 as its per-query mean."""
    collection = "muAP(levels='collection')"
    exp = experiment(QRELS, RUNS, ["muMAP", collection])
    assert meta.scores(exp).loc["strong.run", collection] == pytest.approx(0.514206, abs=1e-6)
    scale = meta.scale_dependence(exp, transforms=["scale:2"]).set_index("measure")
    assert scale.loc[collection, "max_abs_delta"] == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(meta.stability(exp, samples=5).set_index("measure").loc[collection, "tau_mean"])


def test_empty_qrels_get_a_report_and_a_judgement_not_a_key_error(capsys, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    out, err = run_main(capsys, "report", str(empty), STRONG, WEAK, "-m", "muMAP", "--html", str(tmp_path / "r.html"))
    assert "hold no judgments" in err and len(err.splitlines()) == 1 and (tmp_path / "r.html").exists()
    assert "nan" not in out.split("\n", 1)[0]  # the comparison table, with nothing tested
    out, err = run_main(capsys, "judge", str(empty), STRONG, WEAK, "-m", "muMAP", "--samples", "5")
    assert "Traceback" not in err and "hold no judgments" in err and "Topic-set size" in out


def test_warnings_name_runs_in_memory_by_their_names():
    qrels, runs = graded_sample()
    told: list[str] = []
    experiment(qrels, {"mine": runs["strong"].iloc[:0], "theirs": runs["weak"]}, ["muMAP"], warn=told.append)
    assert any("run mine is empty" in line for line in told) and not any("run 1" in line for line in told), told


# --- the per-threshold breakdown adds up ----------------------------------------------------------------

LEVELS = [{}, {"levels": "collection"}, {"levels": "collection-all"}, {"levels": (1, 3)}, {"weights": "uniform"},
          {"judged_only": True}, {"cutoff": 5}]


@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 10_000), options=st.sampled_from(LEVELS), name=st.sampled_from(["muAP", "muP", "muRR"]))
def test_the_contributions_add_up_to_the_measures_value(seed, options, name):
    qrels, run = random_collection(seed)
    if name == "muP":
        options = {**options, "cutoff": options.get("cutoff", 3)}
    measure = getattr(g, name)(**options)
    rows = by_level(measure, qrels, run)
    value = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    assert rows["contribution"].sum() == pytest.approx(value, abs=1e-12)
    assert rows["share"].sum() <= 1 + 1e-12  # below 1 by the queries with no relevant label (they score 0)


def test_each_thresholds_value_over_all_queries_is_ir_measures_ap_at_that_threshold():
    """The row labelled MAP(rel>=4) was the mean over the 27 queries with a label 4; AP(rel=4), trec_eval's
    -l4 map, averages all 30: both are shown, each named for what it is."""
    qrels, runs = graded_sample()
    rows = by_level(g.muMAP, qrels, runs["strong"]).set_index("threshold")
    for t in (1, 2, 3, 4):
        expected = ir_measures.calc_aggregate([ir_measures.AP(rel=t)], qrels, runs["strong"])
        assert rows.loc[t, "all_queries"] == pytest.approx(next(iter(expected.values())), abs=1e-12)
    assert rows.loc[4, "queries"] == 27 and rows.loc[4, "value"] == pytest.approx(0.517433, abs=1e-6)


def test_the_command_lines_breakdown_and_the_reports_add_up_to_the_headline(capsys, tmp_path):
    out, _ = run_main(capsys, QRELS, STRONG, WEAK, "muMAP", "muAP(levels='collection')", "--thresholds", "-o", "text")
    results, breakdown = out.split("\n\n", 1)
    headline = {(line.split()[0], m): float(v) for line in results.splitlines()[2:]
                for m, v in zip(["muMAP", "collection"], line.split()[1:], strict=True)}
    sums = [line.split() for line in breakdown.splitlines() if " sum " in line]
    assert len(sums) == 4
    for cells in sums:
        assert float(cells[-1]) == headline[(cells[0], "muMAP" if cells[1] == "muMAP" else "collection")]
    exp = experiment(QRELS, [STRONG, WEAK], ["muMAP", "muAP(levels='collection')"])
    table = exp.breakdown()
    totals = table.groupby(["run", "of"], sort=False)["contribution"].sum()
    values = exp.aggregates.set_index(["run", "measure"])["value"]
    assert np.allclose(totals.to_numpy(), values.loc[totals.index].to_numpy(), atol=1e-12)
    page = g.report(exp, transforms=[]).html()
    assert "sum = value" in page and "0.5126</b>" in page and "0.5142</b>" in page
    assert "µMAP is their weighted mean" not in page


# --- names as given -------------------------------------------------------------------------------------

def test_a_measure_keeps_the_name_it_was_given_in_every_output(capsys):
    names = ["µMAP", "map", "ndcg_cut.10"]
    for fmt in ("tsv", "csv", "text", "markdown"):
        out, _ = run_main(capsys, QRELS, STRONG, WEAK, *names, "-o", fmt)
        assert all(name in out for name in ["µMAP", "map", "cut.10"]), out
        assert "muAP" not in out and "nDCG@10" not in out, fmt
    out, _ = run_main(capsys, QRELS, STRONG, *names, "-o", "jsonl")
    assert [json.loads(line)["measure"] for line in out.splitlines()] == names
    exp = experiment(QRELS, [STRONG, WEAK], names)
    assert list(pd.unique(exp.per_query["measure"])) == names == list(pd.unique(exp.compare().table["measure"]))


def test_trec_output_prints_trec_eval_names_as_trec_eval_does(capsys):
    """``-o trec`` diffs against trec_eval's output for trec_eval names: map, ndcg_cut_10, P_5."""
    out, _ = run_main(capsys, QRELS, STRONG, "map", "ndcg_cut.10", "P.5", "-o", "trec")
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == ["runid", "map", "ndcg_cut_10", "P_5"]
    assert all(line[22] == "\t" for line in out.splitlines())  # trec_eval's %-22s


# --- the command line's seams ---------------------------------------------------------------------------

def test_demo_is_decided_once(capsys, tmp_path, monkeypatch):
    with pytest.raises(SystemExit) as done:  # argparse's help exits 0
        main(["demo", "-h"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("usage: ir-measures-graded demo")
    (tmp_path / "demo").write_text("a file called demo\n")
    monkeypatch.chdir(tmp_path)
    out, _ = run_main(capsys, "demo")
    assert "ir-measures-graded demo" in out


def test_help_lists_each_subcommand_once_and_its_examples_run(capsys, tmp_path, monkeypatch):
    with pytest.raises(SystemExit):
        main(["-h"])
    help_text = capsys.readouterr().out
    assert help_text.count("judge the measures") == 1 and help_text.count("subcommands:") == 1
    for name in ("qrels.txt", "run.txt"):
        shutil.copy(QRELS if name == "qrels.txt" else STRONG, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    examples_run = 0
    for line in help_text.splitlines():
        command = line.strip()
        if command.startswith("ir-measures-graded qrels.txt run.txt"):
            import shlex

            run_main(capsys, *shlex.split(command)[1:])
            examples_run += 1
    assert examples_run >= 3


def test_the_baseline_options_have_one_name_each(capsys):
    with pytest.raises(SystemExit):
        main([QRELS, STRONG, WEAK, "muMAP", "--compare", "weak"])
    assert "unrecognized arguments: --compare weak" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([QRELS, STRONG, WEAK, "muMAP", "--baseline", "weak", "--compare-test", "t"])
    assert "unrecognized arguments: --compare-test t" in capsys.readouterr().err
    assert "'compare' is neither a file" in error_of(capsys, "compare", QRELS, STRONG, WEAK, "-m", "muMAP")


def test_an_unknown_output_format_is_refused():
    exp = experiment(QRELS, [STRONG, WEAK], ["muMAP"])
    with pytest.raises(GradedInputError, match="unknown output format 'xml'"):
        exp.compare().render("xml")
    with pytest.raises(GradedInputError, match="unknown output format 'trec'"):
        exp.compare().render("trec")


# --- ties, testing options and the LaTeX table --------------------------------------------------------

def test_float_noise_is_a_tie_in_the_worst_queries_and_in_bold(tmp_path):
    from ir_measures_graded.reports import figures

    wide = pd.DataFrame({"base": [0.3, 0.5], "run": [0.1 + 0.2, 0.4]}, index=["q1", "q2"])
    worst = figures.worst_queries(wide, "base")
    assert worst["query_id"].tolist() == ["q2"]  # 0.1 + 0.2 - 0.3 is float noise, not a loss
    qrels, runs = graded_sample()
    exp = experiment(qrels, {"a": runs["strong"], "b": runs["strong"], "c": runs["weak"]}, ["muMAP"], baseline="c")
    latex = exp.compare().to_latex()
    assert latex.count("\\textbf{") == 2  # two tied bests, both bold


def test_one_alpha_drives_the_intervals_the_marks_and_every_description(capsys, tmp_path):
    out, _ = run_main(capsys, QRELS, *RUNS, "muMAP", "--baseline", "weak", "--alpha", "0.1", "-o", "text",
                      "--alternative", "greater", "--family", "all")
    assert "† p < 0.1, ‡ p < 0.02" in out and "90% one-sided t confidence interval" in out
    assert "(greater; Holm correction across all runs × measures)" in out
    out, _ = run_main(capsys, QRELS, *RUNS, "muMAP", "--baseline", "weak", "--alpha", "0.025", "-o", "text")
    assert "97.5% t confidence interval" in out
    run_main(capsys, "report", QRELS, *RUNS, "-m", "muMAP", "--baseline", "weak", "--alternative", "greater",
             "--family", "all", "--html", str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "(greater; Holm correction across all runs × measures)" in page
    assert "corrected across the runs per measure" not in page
