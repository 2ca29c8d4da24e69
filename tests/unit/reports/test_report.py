"""The HTML report: its numbers come from the package's functions, the page is self-contained, the command
works and bad input gets one clear line. (tests/e2e/test_report_browser.py opens the page in Chromium.)"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_measures_graded
from ir_measures_graded import GradedInputError, meta
from ir_measures_graded.reports import build, figures
from ir_measures_graded.sample import GRADED_SAMPLE_RUNS, graded_sample
from support.cli import error_of, run_main
from support.paths import SAMPLE

MEASURES = ["muMAP", "nDCNG@10", "nDCG@10", "GAP"]


@pytest.fixture(scope="module")
def sample_report():
    runs = {name: SAMPLE / f"{name}.run" for name in GRADED_SAMPLE_RUNS}
    return ir_measures_graded.report(ir_measures_graded.experiment(SAMPLE / "qrels.txt", runs, MEASURES), baseline="weak")


@pytest.fixture(scope="module")
def sample_html(sample_report):
    return sample_report.html()


def test_summary_values_are_calc_aggregate(sample_report):
    qrels, runs = graded_sample()
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    for name, run in runs.items():
        expected = ir_measures.calc_aggregate(measures, qrels, run)
        got = sample_report.summary[sample_report.summary["run"] == name].set_index("measure")["value"]
        assert {label: expected[m] for label, m in zip(MEASURES, measures, strict=True)} == got.to_dict()


def test_comparison_is_the_experiments_comparison_on_the_aggregates(sample_report):
    qrels, runs = graded_sample()
    evaluated = ir_measures_graded.experiment(qrels, runs, MEASURES, baseline="weak")
    aggregates = {(r.run, r.measure): r.value for r in sample_report.summary.itertuples()}
    expected = evaluated.compare(test="t", correction="holm", alpha=0.05).table
    got = sample_report.comparison
    pd.testing.assert_frame_equal(got, expected)
    for row in got[got["run"] != "weak"].itertuples():
        assert row.ci_low < row.delta < row.ci_high and row.wins + row.ties + row.losses == 30
        assert row.value == aggregates[row.run, row.measure]
    wide = build.wide_values(evaluated.per_query, "muMAP")
    assert list(wide.columns) == ["strong", "weak", "random"] and len(wide) == 30


def test_levels_are_by_level_for_mumap_and_mup10(sample_report):
    qrels, runs = graded_sample()
    assert list(pd.unique(sample_report.levels["measure"])) == ["muMAP", "muP@10"]
    for name, run in runs.items():
        for measure in ("muMAP", "muP@10"):
            got = sample_report.levels[(sample_report.levels.run == name) & (sample_report.levels.measure == measure)]
            expected = ir_measures_graded.by_level(measure, qrels, run)
            np.testing.assert_array_equal(got["value"].to_numpy(), expected["value"].to_numpy())
            np.testing.assert_array_equal(got["queries"].to_numpy(), expected["queries"].to_numpy())


def test_scale_is_meta_scale_dependence(sample_report):
    qrels, runs = graded_sample()
    pd.testing.assert_frame_equal(sample_report.scale, meta.scale_dependence(ir_measures_graded.experiment(qrels, runs, MEASURES)))


def test_header_names_files_with_their_sha256_and_every_parameter(sample_report, sample_html):
    for source in sample_report.sources:
        digest = hashlib.sha256(Path(source.origin).read_bytes()).hexdigest()
        assert source.sha256 == digest and digest in sample_html
    assert "levels=&#39;query&#39;" in sample_html and "weights=&#39;distance&#39;" in sample_html  # muAP's defaults
    assert "dcg=&#39;log2&#39;" in sample_html and "object object" not in sample_html
    assert f"ir_measures {ir_measures.__version__}" in sample_html
    assert sample_report.created[:4].isdigit() and sample_report.created in sample_html


def test_page_is_self_contained(sample_html):
    assert sample_html.startswith("<!DOCTYPE html>")
    assert not re.search(r"<link\b|<img\b|<iframe\b|@import|url\(", sample_html)
    assert not re.search(r"""\b(src|href)\s*=\s*["'](?!#|data:)""", sample_html)  # in-page anchors and data
    assert "<style>" in sample_html and "<script>" in sample_html
    assert sample_html.count("<svg class=\"chart\"") == 2 + 4  # two threshold figures, one per measure per query


def test_summary_table_shows_the_values_the_report_holds(sample_report, sample_html):
    for row in sample_report.summary.itertuples():
        assert f'data-value="{row.value!r}"' in sample_html
    marked = re.findall(r'<tr data-run="(\w+)" class="baseline">', sample_html)
    assert marked == ["weak"]


def test_save_and_notebook_display(sample_report, tmp_path):
    path = sample_report.save(tmp_path / "r.html")
    assert path.read_text(encoding="utf-8") == sample_report.html()
    shown = sample_report._repr_html_()
    assert shown.startswith("<iframe srcdoc=\"&lt;!DOCTYPE html&gt;") and "<script>" not in shown
    with pytest.raises(GradedInputError, match="is a directory"):
        sample_report.save(tmp_path)


def test_frames_in_memory_are_hashed_by_rows_and_first_run_is_the_default_baseline():
    qrels, runs = graded_sample()
    report = ir_measures_graded.report(ir_measures_graded.experiment(qrels, runs, ["muMAP"]), transforms=[])
    assert report.baseline == "strong" and report.scale is None
    assert report.sources[0].origin is None and report.sources[0].sha256 == build.frame_sha256(qrels)
    assert build.frame_sha256(qrels) != build.frame_sha256(qrels.iloc[::-1])
    assert 'id="scale"' not in report.html()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"baseline": "bm25"}, r"baseline 'bm25' is none of the runs \(strong, weak, random\)"),
    ({"testing": {"alpha": 1.5}}, "alpha must be between 0 and 1"),
    ({"thresholds": ["nDCG@10"]}, "cannot be broken down per relevance threshold"),
    ({"testing": {"test": "ttest"}}, "unknown test 'ttest'"),
])
def test_bad_arguments_are_named(kwargs, message):
    from ir_measures_graded.experiments.testing import Testing

    qrels, runs = graded_sample()
    with pytest.raises(GradedInputError, match=message):
        if "testing" in kwargs:
            kwargs = {"testing": Testing(**kwargs["testing"])}
        ir_measures_graded.report(ir_measures_graded.experiment(qrels, runs, ["muMAP"]), transforms=[], **kwargs)


def test_real_valued_labels_work_with_our_measures_and_are_refused_for_trec_eval_ones():
    qrels, runs = graded_sample()
    real = qrels.assign(relevance=qrels["relevance"] * 0.7)
    report = ir_measures_graded.report(ir_measures_graded.experiment(real, runs, ["muMAP", "nDCNG@10"]), transforms=["scale:2"])
    assert report.summary["value"].notna().all()
    with pytest.raises(GradedInputError, match="real-valued labels, which nDCG@10 cannot take"):
        ir_measures_graded.report(ir_measures_graded.experiment(real, runs, ["muMAP", "nDCG@10"]))
    with pytest.raises(GradedInputError, match="unknown measure|cannot parse measure"):
        ir_measures_graded.report(ir_measures_graded.experiment(qrels, runs, ["muMAPx"]))


def test_command_writes_the_page_and_prints_the_comparison(tmp_path, capsys, monkeypatch):
    page = tmp_path / "report.html"
    monkeypatch.chdir(SAMPLE)
    out, err = run_main(capsys, "report", "qrels.txt", "strong.run", "weak.run", "random.run", "-m", "muMAP",
                        "nDCG@10", "--baseline", "weak", "--html", str(page), "--transform", "scale:2")
    assert not err, err
    lines = out.splitlines()
    assert lines[0].split("\t") == ["run", "measure", "value", "delta", "ci_low", "ci_high", "boot_low",
                                    "boot_high", "effect_size", "wins", "ties", "losses", "queries", "missing",
                                    "test", "p_value", "p_adjusted"]
    assert lines[2].startswith("strong.run\tmuMAP\t0.5126\t0.2951\t0.2298\t0.3603\t")
    assert lines[2].endswith("\t29\t0\t1\t30\t0\tt\t3.788e-10\t7.577e-10")  # p-values as numbers
    html = page.read_text(encoding="utf-8")
    assert "ir-measures-graded report qrels.txt strong.run" in html and "scale:2" in html
    jsonl, _ = run_main(capsys, "report", "qrels.txt", "strong.run", "weak.run", "-m", "muMAP", "--html", str(page),
                        "-o", "jsonl", "--no-scale")
    records = [json.loads(line) for line in jsonl.splitlines()]
    assert records[0] == {"run": "strong.run", "measure": "muMAP", "value": pytest.approx(0.512594, abs=1e-6),
                          "delta": 0.0, "ci_low": None, "ci_high": None, "p_value": None, "p_adjusted": None,
                          "boot_low": None, "boot_high": None, "effect_size": None, "queries": 30, "missing": 0,
                          "test": "t", "wins": None, "ties": None, "losses": None}
    assert 'id="scale"' not in page.read_text(encoding="utf-8")


@pytest.mark.parametrize(("args", "message"), [
    (["strong.run", "weak.run", "-m", "muMAP", "--baseline", "bm25"], "baseline 'bm25' is none of the runs"),
    (["strong.run", "nothere.run", "-m", "muMAP"], "file not found: nothere.run"),
    (["strong.run", "-m", "muMAPx"], "unknown measure: muMAPx (did you mean"),
    (["strong.run", "-m", "muMAP", "--no-scale", "--transform", "scale:2"], "contradict"),
    (["strong.run", "weak.run", "-m", "muMAP", "--transform", "zoom:2"], "unknown transform 'zoom:2'"),
])
def test_command_reports_bad_input_in_one_line(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(SAMPLE)
    assert message in error_of(capsys, "report", "qrels.txt", *args, "--html", str(tmp_path / "r.html"))
    assert not (tmp_path / "r.html").exists()


def test_worst_queries_are_the_largest_losses():
    wide = pd.DataFrame({"base": [0.5, 0.2, 0.9, 0.4], "a": [0.1, 0.3, 0.2, 0.4]}, index=["q1", "q2", "q3", "q4"])
    worst = figures.worst_queries(wide, "base", count=5)
    assert worst["query_id"].tolist() == ["q3", "q1"] and worst["delta"].tolist() == pytest.approx([-0.7, -0.4])


def test_difference_figure_draws_every_query_or_bins(tmp_path):
    small = pd.DataFrame({"base": [0.5, 0.2, 0.9], "a": [0.1, 0.3, 0.9], "b": [0.6, 0.6, 0.6]}, index=["x", "y", "z"])
    figure = figures.difference_figure(small, "AP", "base")
    assert figure.series == 2 and figure.svg.count('class="series"') == 2
    assert "<title>y: a 0.3000 vs base 0.2000 (Δ +0.1000)</title>" in figure.svg
    rng = np.random.default_rng(0)
    n = 10 * figures.MAX_POINTS
    big = pd.DataFrame({"base": rng.random(n), "a": rng.random(n)}, index=[f"q{i}" for i in range(n)])
    binned = figures.difference_figure(big, "AP", "base")
    assert binned.svg.count('<rect class="hover"') == figures.BINS and "<circle" not in binned.svg
    assert "bins" in binned.note


def test_one_run_gives_a_page_without_comparisons():
    qrels, runs = graded_sample()
    report = ir_measures_graded.report(ir_measures_graded.experiment(qrels, {"strong": runs["strong"]}, ["muMAP"]), transforms=["scale:2"])
    html = report.html()
    assert 'id="queries"' not in html and 'id="summary-table"' in html and 'id="scale"' in html
    assert report.comparison["p_value"].isna().all()


def test_an_aggregate_that_is_not_the_mean_of_the_per_query_values_is_flagged():
    qrels, runs = graded_sample()
    collection = ir_measures_graded.muAP(levels="collection")
    report = ir_measures_graded.report(ir_measures_graded.experiment(qrels, runs, [collection, "nDCG@10"]), transforms=[])
    value = report.summary.set_index(["run", "measure"])["value"]["strong", str(collection)]
    assert value == ir_measures.calc_aggregate([collection], qrels, runs["strong"])[collection]
    html = report.html()
    assert "‡ muAP(levels=&#39;collection&#39;): the aggregate is not the mean" in html
    assert html.count("<sup") == 1


def test_ids_and_names_are_escaped():
    qrels, runs = graded_sample()
    odd = "<u>&\"'"
    qrels = qrels.assign(query_id=odd + qrels["query_id"])
    runs = {f"<em>{name}</em>": run.assign(query_id=odd + run["query_id"]) for name, run in runs.items()}
    html = ir_measures_graded.report(ir_measures_graded.experiment(qrels, runs, ["muMAP"]), transforms=[]).html()
    assert "<u>" not in html and "<em>" not in html
    assert "<code>&lt;u&gt;&amp;&#34;&#39;S" in html  # in the worst queries (Jinja2)
    assert "<title>&lt;u&gt;&amp;&quot;&#x27;S" in html  # in the figures' hover texts (html.escape)
    assert "&lt;em&gt;weak&lt;/em&gt;" in html


def test_many_thresholds_are_drawn_thinned():
    """Real-valued labels give a threshold per distinct label: curves through at most 1000 of them,
    200 with a hover text."""
    levels = pd.DataFrame({"measure": "muAP", "run": "a", "threshold": np.linspace(0.01, 5, 3000),
                           "weight": 1.0, "value": np.linspace(0.5, 0.1, 3000), "queries": 30})
    figure = figures.threshold_figure(levels, "muAP", ["a"], None)
    assert figure.svg.count("<circle") == figures.MAX_MARKED_THRESHOLDS
    (line,) = re.findall(r'<polyline class="line" points="([^"]*)"', figure.svg)
    assert len(line.split()) == figures.MAX_LINE_POINTS
    assert "3000 thresholds, 30–30 queries behind a point" in figure.svg


def test_p_values_are_in_the_page_and_the_per_query_table_downloads(sample_report, sample_html):
    """Issue 34: p-values printed in the cells (not only on hover, so printing keeps them), and the
    per-query values offered as a CSV inside the page."""
    from urllib.parse import unquote

    shown = re.findall(r'<span class="p">p = ([^<]+)</span>', sample_html)
    tested = sample_report.comparison.dropna(subset=["p_adjusted"])
    assert len(shown) == len(tested) > 0
    link = re.search(r'<a download="per-query.csv" href="data:text/csv;charset=utf-8,([^"]+)"', sample_html)
    csv = unquote(link.group(1))
    assert csv.splitlines()[0] == "run,query_id,measure,value"
    assert len(csv.splitlines()) == len(sample_report.per_query) + 1


def test_the_command_adds_the_organisers_leaderboard_when_asked(capsys, tmp_path):
    runs = [str(SAMPLE / f"{n}.run") for n in ("strong", "weak", "random")]
    run_main(capsys, "report", str(SAMPLE / "qrels.txt"), *runs, "-m", "muMAP", "--html", str(tmp_path / "a.html"))
    run_main(capsys, "report", str(SAMPLE / "qrels.txt"), *runs, "-m", "muMAP", "--html", str(tmp_path / "b.html"),
             "--leaderboard")
    without, with_board = ((tmp_path / n).read_text(encoding="utf-8") for n in ("a.html", "b.html"))
    assert 'id="leaderboard"' not in without and 'id="leaderboard"' in with_board


def test_save_never_writes_over_an_input(tmp_path):
    """Issue 50: ``Report.save`` goes through the one writer: the page is not written over the qrels or a
    run, under another spelling or a link."""
    import os
    import shutil

    for name in ("qrels.txt", "strong.run", "weak.run"):
        shutil.copy(SAMPLE / name, tmp_path / name)
    exp = ir_measures_graded.experiment(str(tmp_path / "qrels.txt"), [str(tmp_path / "strong.run"),
                                                                       str(tmp_path / "weak.run")], ["muMAP"])
    page = ir_measures_graded.report(exp, transforms=[])
    os.link(tmp_path / "weak.run", tmp_path / "hard.html")
    before = (tmp_path / "weak.run").read_bytes()
    for target in (tmp_path / "weak.run", tmp_path / "." / "qrels.txt", tmp_path / "hard.html"):
        with pytest.raises(GradedInputError, match=r"would write the page over the input .*\(inputs are never written\)"):
            page.save(target)
    assert (tmp_path / "weak.run").read_bytes() == before
    assert page.save(tmp_path / "r.html").read_text(encoding="utf-8") == page.html()
