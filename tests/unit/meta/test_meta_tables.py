"""Tables people paste into papers: p-values, significance marks with a legend, LaTeX that compiles,
markdown that renders as a table, the same run names in every mode, and the --plot figure."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from markdown_it import MarkdownIt

from ir_measures_graded import meta
from ir_measures_graded.cli import args as cli_args
from ir_measures_graded.meta import statistics, tables
from ir_measures_graded.sample import graded_sample
from support.cli import error_of, run_main
from support.paths import ROOT, SAMPLE


@pytest.fixture(scope="module")
def sample_table():
    qrels, runs = graded_sample()
    return meta.per_query(qrels, runs, ["muMAP", "nDCG@10", "P@5"])


def odd_names_table() -> pd.DataFrame:
    """Per-query values of runs whose names hold every character LaTeX and markdown treat specially."""
    rng = np.random.default_rng(0)
    names = ["base_line", "run&1", "50%_better#2", "pipe|run"]
    rows = [(name, f"q{q}", measure, float(np.clip(0.3 + 0.1 * k + rng.normal(0, 0.15), 0, 1)))
            for k, name in enumerate(names) for measure in ("muAP", "nDCNG@10") for q in range(25)]
    return pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])


# --- p-values ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("p, test, shown", [
    (0.0432, "t", "0.043"), (1.0, "t", "1.000"), (0.001, "t", "0.001"), (3.8e-10, "t", "3.8e-10"),
    (8.7e-4, "wilcoxon", "8.7e-4"), (5e-5, "randomization", "< 1e-4"), (5e-5, "bootstrap", "< 1e-4"),
    (5e-5, "t", "5.0e-5"), (0.0, "t", "< 1e-300"), (float("nan"), "t", ""),
])
def test_p_values_are_never_zero_point_zero(p, test, shown):
    assert tables.format_p(p, test) == shown


def test_jsonl_p_values_keep_significant_digits_with_places(capsys):
    runs = [str(SAMPLE / f"{n}.run") for n in ("strong", "weak", "random")]
    out, _ = run_main(capsys, str(SAMPLE / "qrels.txt"), *runs, "muMAP", "-o", "jsonl", "-p", "4", "--compare", "random")
    records = [json.loads(line) for line in out.splitlines()]
    strong = next(r for r in records if r["run"] == "strong.run")  # jsonl: the comparison is the one table
    qrels, sample_runs = graded_sample()
    expected = meta.compare_runs(meta.per_query(qrels, sample_runs, ["muMAP"]), "random").set_index("run")
    assert 0 < strong["p_value"] < 1e-10  # 4.3e-15 with -p 4, not 0.0
    assert strong["p_value"] == pytest.approx(expected.loc["strong", "p_value"], rel=1e-3)
    assert strong["delta"] == round(strong["delta"], 4) and strong["wins"] == 30


# --- comparison table and marks ------------------------------------------------------------------------

def test_compare_runs_intervals_effect_sizes_and_counts(sample_table):
    result = meta.compare_runs(sample_table, "random", test="t", alternative="greater")
    runs, values = meta.judging._matrix(sample_table, "P@5")
    d = values[runs.index("weak")] - values[runs.index("random")]
    row = result[(result["run"] == "weak") & (result["measure"] == "P@5")].iloc[0]
    assert [row.ci_low, row.ci_high] == pytest.approx(statistics.t_interval(d[None])[0], abs=1e-12)
    assert [row.boot_low, row.boot_high] == pytest.approx(statistics.bootstrap_interval(d[None])[0], abs=1e-12)
    assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1), abs=1e-12)
    assert (row.wins, row.ties, row.losses) == (int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))
    two_sided = meta.compare_runs(sample_table, "random", test="t").set_index(["run", "measure"])
    assert row.p_value == pytest.approx(two_sided.loc[("weak", "P@5"), "p_value"] / 2, rel=1e-9)
    both = meta.compare_runs(sample_table, "random", family="all", correction="bonferroni")
    tested = both["p_value"].notna()
    assert np.allclose(both.loc[tested, "p_adjusted"], np.minimum(1, both.loc[tested, "p_value"] * tested.sum()))
    exact = meta.compare_runs(sample_table[sample_table["query_id"].isin(["S01", "S02", "S03", "S04", "S05"])],
                              "random", test="randomization", permutations=None)
    assert (exact["p_value"].dropna() * 2**5).round(9).apply(float.is_integer).all()  # exact: k / 2^5
    assert meta.compare_runs(sample_table, "random", permutations=None)["boot_low"].notna().sum() == 6  # 30 queries
    with pytest.raises(Exception, match="unknown family"):
        meta.compare_runs(sample_table, "random", family="measures")


@pytest.mark.parametrize("test", statistics.PAIRED_TESTS)
def test_every_paired_test_runs_against_a_baseline(sample_table, test):
    result = meta.compare_runs(sample_table, "weak", test=test, permutations=500).set_index(["run", "measure"])
    runs, values = meta.judging._matrix(sample_table, "muAP")
    expected = statistics.paired_test(test, values[runs.index("strong")], values[runs.index("weak")],
                                      permutations=500)[0]
    assert result.loc[("strong", "muAP"), "p_value"] == pytest.approx(expected, abs=1e-12)


def test_paper_table_marks_significance_and_prints_a_legend(sample_table):
    comparison = meta.compare_runs(sample_table, "weak", correction="holm")
    table, legend = tables.paper_table(comparison, places=3)
    assert list(table.columns) == ["run", "muAP", "Δ muAP [CI]", "nDCG@10", "Δ nDCG@10 [CI]", "P@5", "Δ P@5 [CI]"]
    for rec in comparison.itertuples():
        cell = table.set_index("run").loc[rec.run, rec.measure]
        expected = "‡" if rec.p_adjusted < 0.01 else "†" if rec.p_adjusted < 0.05 else ""
        assert cell == f"{rec.value:.3f}{expected}"
        if rec.run != "weak":
            interval = table.set_index("run").loc[rec.run, f"Δ {rec.measure} [CI]"]
            assert interval == f"{rec.delta:+.3f} [{rec.ci_low:+.3f}, {rec.ci_high:+.3f}]"
    assert legend.startswith("† p < 0.05, ‡ p < 0.01: paired t-test against weak (two-sided; Holm correction")
    assert "95% t confidence interval" in legend
    assert tables.mark(0.02) == "†" and tables.mark(0.002) == "‡" and tables.mark(0.2) == "" and tables.mark(np.nan) == ""


# --- LaTeX and markdown ----------------------------------------------------------------------------------

def test_latex_escapes_special_characters():
    comparison = meta.compare_runs(odd_names_table(), "base_line")
    latex = tables.render(*tables.paper_table(comparison)[:1], "latex", legend=tables.paper_table(comparison)[1])
    for raw, escaped in (("base_line", r"base\_line"), ("run&1", r"run\&1"), ("50%_better#2", r"50\%\_better\#2")):
        assert escaped in latex and raw not in latex
    assert r"\textdagger" in latex or r"\textdaggerdbl" in latex


def latex_engine() -> str | None:
    engine = shutil.which("pdflatex")
    if engine is None and os.environ.get("CI"):
        pytest.fail("pdflatex is missing on CI: .ci/run installs texlive-latex-base and texlive-latex-recommended")
    return engine


def test_generated_latex_compiles(tmp_path, capsys):
    engine = latex_engine()
    if engine is None:
        pytest.skip("no LaTeX engine here (pdflatex); install texlive-latex-base texlive-latex-recommended "
                    "(CI does, in .ci/run)")
    table = odd_names_table()
    comparison = meta.compare_runs(table, "base_line")
    paper, legend = tables.paper_table(comparison)
    runs = [str(SAMPLE / f"{n}.run") for n in ("random", "strong", "weak")]
    command, _ = run_main(  # every section of the compare command, as a user would paste it
        capsys, "compare", str(SAMPLE / "qrels.txt"), *runs, "-m", "muMAP", "nDCNG@10", "P@5", "--transform", "shift:1",
        "--samples", "5", "--permutations", "200", "-o", "latex")
    body = (tables.render(paper, "latex", title="paper", legend=legend)
            + tables.render(comparison, "latex", title="detail")
            + tables.render(meta.discriminative_power(table, permutations=200)[1], "latex")
            + command)
    (tmp_path / "table.tex").write_text("\\documentclass{article}\n"
                                        "\\usepackage{booktabs}\n\\usepackage{graphicx}\n\\begin{document}\n"
                                        f"\\resizebox{{\\textwidth}}{{!}}{{\\begin{{minipage}}{{2\\textwidth}}\n{body}"
                                        "\\end{minipage}}\n\\end{document}\n", encoding="utf-8")
    done = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", "table.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    assert (tmp_path / "table.pdf").stat().st_size > 1000


def markdown_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """``(header cells, body rows)`` of every table a CommonMark + GFM-tables parser finds in ``text``."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    found, row, section = [], None, None
    for token in tokens:
        if token.type == "table_open":
            found.append(([], []))
        elif token.type in ("thead_open", "tbody_open"):
            section = token.type
        elif token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None:  # the cell as rendered: its text, not its source
            row.append("".join(c.content for c in token.children or [] if c.type == "text"))
        elif token.type == "tr_close":
            (found[-1][0].extend(row) if section == "thead_open" else found[-1][1].append(row))
            row = None
    return found


def test_markdown_renders_as_tables():
    comparison = meta.compare_runs(odd_names_table(), "base_line")
    paper, legend = tables.paper_table(comparison)
    text = tables.render(paper, "markdown", title="Against the baseline", legend=legend)
    (header, rows), = markdown_tables(text)
    assert header == list(paper.columns)
    assert len(rows) == 4 and all(len(r) == len(header) for r in rows)
    assert [r[0] for r in rows] == ["base_line", "run&1", "50%_better#2", "pipe|run"]  # the pipe stays in its cell


def test_compare_command_prints_every_section_as_a_markdown_table(tmp_path, capsys):
    runs = [str(SAMPLE / f"{n}.run") for n in ("random", "strong", "weak")]
    out, _ = run_main(capsys, "compare", str(SAMPLE / "qrels.txt"), *runs, "-m", "muMAP", "P@5", "--transform", "scale:2",
                      "--samples", "10", "--permutations", "300", "--pairs-test", "tukey", "--compare-test", "wilcoxon",
                      "--alternative", "greater", "--family", "all", "-o", "markdown")
    found = markdown_tables(out)
    assert len(found) == 8 and all(rows for _, rows in found)
    assert "Wilcoxon signed-rank test against" in out and "(greater; Holm correction across all runs" in out
    assert "Topic-set size" in out


# --- run names and the figure ------------------------------------------------------------------------------

def test_run_names_are_the_same_in_every_mode(tmp_path, capsys, monkeypatch):
    for name in ("strong", "weak", "random"):
        shutil.copy(SAMPLE / f"{name}.run", tmp_path / f"{name}.run")
    shutil.copy(SAMPLE / "qrels.txt", tmp_path / "qrels.txt")
    runs = ["strong.run", "weak.run", "random.run"]

    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> str:
        return run_main(capsys, *args)[0]

    trec_summary, trec_comparison = run("qrels.txt", *runs, "muMAP", "-o", "trec", "--compare", "random").split("\n\n")
    tags = [line.split("\t")[2] for line in trec_summary.splitlines() if line.startswith("runid")]
    assert tags == ["strong", "weak", "random"]  # trec_eval's runid lines: column 6 of the sample runs
    assert sorted(pd.read_csv(pd.io.common.StringIO(trec_comparison), sep="\t")["run"]) == sorted(runs)
    summary_names = list(pd.read_csv(pd.io.common.StringIO(run("qrels.txt", *runs, "muMAP")), sep="\t")["run"])
    compare_names = list(pd.read_csv(pd.io.common.StringIO(run("qrels.txt", *runs, "muMAP", "--compare", "random")),
                                     sep="\t")["run"])
    means = run("compare", "qrels.txt", *runs, "-m", "muMAP", "--samples", "5", "--permutations", "100",
                "--baseline", "random", "-o", "tsv", "--sections", "means")
    sub_names = list(pd.read_csv(pd.io.common.StringIO(means), sep="\t")["run"])
    against = run("compare", "qrels.txt", *runs, "-m", "muMAP", "--samples", "5", "--permutations", "100",
                  "--baseline", "random", "-o", "tsv")
    sub_compare = list(pd.read_csv(pd.io.common.StringIO(against), sep="\t")["run"])
    report = run("report", "qrels.txt", *runs, "-m", "muMAP", "--baseline", "random", "--html",
                 str(tmp_path / "r.html"), "--no-scale")
    report_names = list(pd.read_csv(pd.io.common.StringIO(report), sep="\t")["run"])
    assert summary_names == sub_names == runs
    assert compare_names == sub_compare == report_names == ["random.run", "strong.run", "weak.run"]  # baseline first


def test_plot_shows_tau_ap_and_per_query_differences(tmp_path):
    qrels, runs = graded_sample()
    report = meta.meta_evaluate(qrels, runs, ["muMAP", "P@5"], transforms=["scale:2"], samples=5,
                                permutations=200, baseline="random")
    from ir_measures_graded.meta.plots import report_figure

    figure = report_figure(report)
    titles = [ax.get_title() for ax in figure.axes]
    assert "τ_AP,b, original vs transformed labels" in titles
    differences = [ax for ax in figure.axes if "per-query Δ against random" in ax.get_title()]
    assert len(differences) == 2
    runs = differences[0].collections  # the bars of each run against the baseline
    assert [len(bars.get_paths()) for bars in runs] == [30, 30]  # two runs, 30 queries each
    assert [t.get_text() for t in differences[0].get_legend().get_texts()] == ["strong", "weak"]
    heights = np.array([path.vertices[1, 1] for path in runs[0].get_paths()])
    assert np.all(np.diff(heights) <= 0) and heights[0] > 0  # sorted, from the largest gain
    figure.savefig(tmp_path / "meta.svg")
    figure.savefig(tmp_path / "meta.png")
    assert (tmp_path / "meta.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "meta.png").read_bytes()[:4] == b"\x89PNG"


def test_command_line_choices_are_the_statistics_lists():
    """The parser's lists are written out (so --help loads no scipy); they are the statistics' lists,
    and every subcommand offers the same comparison options and output formats."""
    from ir_measures_graded.experiment import tables as experiment_tables

    assert cli_args.COMPARE_TESTS == statistics.PAIRED_TESTS
    assert set(cli_args.PAIRS_TESTS) == set(meta.TESTS)
    assert cli_args.ALTERNATIVES == statistics.ALTERNATIVES and cli_args.CORRECTIONS == statistics.CORRECTIONS
    assert set(experiment_tables.FORMATS) < set(cli_args.FORMATS)
    parser = cli_args.build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    for name in ("evaluate", "compare", "report"):
        choices = {a.dest: a.choices for a in subparsers[name]._actions}
        assert tuple(choices["alternative"]) == statistics.ALTERNATIVES
        assert tuple(choices["correction"]) == statistics.CORRECTIONS
        assert tuple(choices["test"]) == statistics.PAIRED_TESTS
        assert tuple(choices["output_format"]) == cli_args.FORMATS
        assert {"baseline", "names", "measures", "family", "alpha", "permutations", "seed"} <= set(choices)


# --- the README shows what the code prints ------------------------------------------------------------------

# The documentation's pages on comparing runs and on judging measures (they were the README's section).
SECTION = "\n".join((ROOT / "docs" / name).read_text(encoding="utf-8")
                    for name in ("comparing.md", "meta-evaluation.md"))


def test_readme_paper_table_is_the_python_blocks_output():
    """The rendered table equals the `# -> ` lines, which tests/e2e/test_readme.py checks against the code."""
    printed = [line[len("# -> "):] for line in SECTION.splitlines() if line.startswith("# -> |")]
    rendered = SECTION.split("which renders as\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert printed and rendered == printed
    (header, rows), = markdown_tables("\n".join(rendered))
    assert header[1:] == ["muAP", "Δ muAP [CI]", "nDCNG@10", "Δ nDCNG@10 [CI]", "P@5", "Δ P@5 [CI]"] and len(rows) == 3


def test_readme_scale_table_is_what_the_command_prints(tmp_path, capsys, monkeypatch):
    for name in ("random", "strong", "weak"):
        shutil.copy(SAMPLE / f"{name}.run", tmp_path / f"{name}.run")
    monkeypatch.chdir(tmp_path)
    out, _ = run_main(capsys, "compare", str(SAMPLE / "qrels.txt"), "random.run", "strong.run", "weak.run", "-m", "muMAP",
                      "nDCNG@10", "nDCG@10", "meanNDCG", "--transform", "scale:2", "--transform", "shift:1",
                      "-o", "markdown", "--samples", "5", "--permutations", "100")
    printed = out.split("### Scale dependence", 1)[1].split("\n\n", 2)[1]
    assert printed in SECTION


@pytest.mark.parametrize("extra, message", [
    (["--baseline", "nope"], "baseline 'nope' is none of the runs"),
    (["--min-difference", "0"], "--min-difference must be positive"),
    (["--power", "1.5"], "--power must be between 0 and 1"),
])
def test_compare_command_refuses_bad_options_in_one_line(capsys, extra, message):
    assert message in error_of(capsys, "compare", str(SAMPLE / "qrels.txt"), str(SAMPLE / "strong.run"),
                               str(SAMPLE / "weak.run"), "-m", "muMAP", "--samples", "5", *extra)


def test_the_comparisons_latex_table_compiles_with_odd_names(tmp_path):
    """Issue 34: ``Comparison.to_latex()`` is a complete ``table`` environment (caption, label, the best
    value of each column in bold, the legend and the notes inside) that compiles as pasted, whatever the
    runs are called (LaTeX specials, a newline, a µ)."""
    engine = latex_engine()
    if engine is None:
        pytest.skip("no LaTeX engine here (pdflatex); install texlive-latex-base texlive-latex-recommended")
    from ir_measures_graded.experiment import experiment

    runs = [str(SAMPLE / f"{n}.run") for n in ("weak", "strong", "random")]
    names = ["b&se_line %1", "µ{run}\n#2", "r^~\\3"]
    latex = experiment(str(SAMPLE / "qrels.txt"), runs, ["muMAP", "NumRet"], baseline=0, names=names).compare() \
        .to_latex(caption="Runs & baselines, 100% tested", label="tab:runs")
    assert latex.count("\\begin{table}") == 1 and "\\caption{" in latex and "\\label{tab:runs}" in latex
    assert latex.count("\\textbf{") >= 2  # the best of each column
    assert "NumRet: no p-value" in latex  # the note is inside
    (tmp_path / "t.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                                    f"{latex}\\end{{document}}\n", encoding="utf-8")
    done = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
