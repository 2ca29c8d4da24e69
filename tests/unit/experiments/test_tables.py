"""Tables people paste into papers (ir_measures_graded.experiments.tables): p-values, significance marks
with a legend, LaTeX that compiles, markdown that renders as a table, the same run names in every mode."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from markdown_it import MarkdownIt

from ir_measures_graded import meta, statistics
from ir_measures_graded.cli import args as cli_args
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import Experiment, experiment, tables
from ir_measures_graded.experiments.testing import Testing as Options  # pytest would collect a "Test..." name
from ir_measures_graded.sample import graded_sample
from support.chosen_values import chosen, hits_of
from support.cli import error_of, run_main
from support.paths import ROOT, SAMPLE


@pytest.fixture(scope="module")
def sample_experiment():
    qrels, runs = graded_sample()
    return experiment(qrels, runs, ["muMAP", "nDCG@10", "P@5"])


def odd_names() -> Experiment:
    """Runs whose names hold every character LaTeX and markdown treat specially, on 25 queries."""
    rng = np.random.default_rng(0)
    names = ["base_line", "run&1", "50%_better#2", "pipe|run"]
    hits = {name: hits_of(0.3 + 0.1 * k + rng.normal(0, 0.15, 25), 20) for k, name in enumerate(names)}
    return chosen(hits, 20, ["P@20", "P@10"])


def odd_names_comparison() -> pd.DataFrame:
    return odd_names().compare("base_line").table


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
    out, _ = run_main(capsys, str(SAMPLE / "qrels.txt"), *runs, "muMAP", "-o", "jsonl", "-p", "4", "--baseline", "random")
    records = [json.loads(line) for line in out.splitlines()]
    strong = next(r for r in records if r["run"] == "strong.run")  # jsonl: the comparison is the one table
    qrels, sample_runs = graded_sample()
    expected = experiment(qrels, sample_runs, ["muMAP"]).compare("random").table.set_index("run")
    assert 0 < strong["p_value"] < 1e-10  # 4.3e-15 with -p 4, not 0.0
    assert strong["p_value"] == pytest.approx(expected.loc["strong", "p_value"], rel=1e-3)
    assert strong["delta"] == round(strong["delta"], 4) and strong["wins"] == 30


# --- comparison table and marks ------------------------------------------------------------------------

def test_paper_table_marks_significance_and_prints_a_legend(sample_experiment):
    comparison = sample_experiment.compare("weak", correction="holm").table
    table, legend = tables.paper_table(comparison, places=3)
    assert list(table.columns) == ["run", "muMAP", "Δ muMAP [CI]", "nDCG@10", "Δ nDCG@10 [CI]", "P@5", "Δ P@5 [CI]"]
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


# --- any number of significance levels in a paper table (#35) ----------------------------------------

def _comparison() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    base = rng.random(30) * 0.7
    shifts = {"base": 0.0, "tiny": 0.02, "small": 0.06, "large": 0.3}
    hits = {run: hits_of(base + shift + rng.normal(0, 0.1, 30), 100) for run, shift in shifts.items()}
    return chosen(hits, 100).compare("base", correction="none").table


@pytest.mark.parametrize("levels", [(0.1, 0.05, 0.01), (0.2, 0.1, 0.05, 0.01, 0.001), (0.05,), (0.01, 0.05)])
def test_paper_table_takes_any_number_of_levels_and_lists_each_in_the_legend(levels):
    comparison = _comparison()
    table, legend = tables.paper_table(comparison, levels=levels)
    ordered = sorted(levels, reverse=True)
    symbols = tables.marks(len(levels))
    assert len(set(symbols)) == len(symbols)
    assert legend.startswith(", ".join(f"{m} p < {lv:g}" for m, lv in zip(symbols, ordered, strict=True)) + ": ")
    for rec in comparison.itertuples():
        passed = sum(rec.p_adjusted < lv for lv in ordered) if not np.isnan(rec.p_adjusted) else 0
        assert table.set_index("run").loc[rec.run, "P@100"] == f"{rec.value:.4f}" + (symbols[passed - 1] if passed else "")


def test_the_marks_beyond_four_levels_repeat_the_footnote_symbols():
    assert tables.marks(9) == ["†", "‡", "§", "¶", "††", "‡‡", "§§", "¶¶", "†††"]
    assert tables.mark(0.004, (0.1, 0.05, 0.01)) == "§" and tables.mark(0.03, (0.1, 0.05, 0.01)) == "‡"


@pytest.mark.parametrize("levels", [(0.05, 0.05), (0.0, 0.01), (1.5,), ("a",)])
def test_paper_table_refuses_levels_it_cannot_mark_in_one_line(levels):
    with pytest.raises(GradedInputError, match=r"^significance levels must be [^\n]*$"):
        tables.paper_table(_comparison(), levels=levels)


# --- LaTeX and markdown ----------------------------------------------------------------------------------

def test_latex_escapes_special_characters():
    comparison = odd_names_comparison()
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
    odd = odd_names()
    comparison = odd.compare("base_line").table
    paper, legend = tables.paper_table(comparison)
    runs = [str(SAMPLE / f"{n}.run") for n in ("random", "strong", "weak")]
    command, _ = run_main(  # every section of the compare command, as a user would paste it
        capsys, "judge", str(SAMPLE / "qrels.txt"), *runs, "-m", "muMAP", "nDCNG@10", "P@5", "--transform", "shift:1",
        "--samples", "5", "--permutations", "200", "-o", "latex")
    body = (tables.render(paper, "latex", title="paper", legend=legend)
            + tables.render(comparison, "latex", title="detail")
            + tables.render(meta.discriminative_power(odd.per_query, testing=Options("randomization", "none", permutations=200))[1], "latex"))
    # the command's sections are tabulars; its comparison is the one LaTeX table (a float of its own)
    marker = tables.COMPARISON_PACKAGES
    sections, found, floating = command.partition(marker)
    assert found and "\\begin{table}" in floating
    wide = "\\resizebox{\\textwidth}{!}{\\begin{minipage}{2\\textwidth}\n"
    (tmp_path / "table.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
                                        "\\begin{document}\n" + wide + body + sections + "\\end{minipage}}\n"
                                        + found + floating + "\\end{document}\n", encoding="utf-8")
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
    comparison = odd_names_comparison()
    paper, legend = tables.paper_table(comparison)
    text = tables.render(paper, "markdown", title="Against the baseline", legend=legend)
    (header, rows), = markdown_tables(text)
    assert header == list(paper.columns)
    assert len(rows) == 4 and all(len(r) == len(header) for r in rows)
    assert [r[0] for r in rows] == ["base_line", "run&1", "50%_better#2", "pipe|run"]  # the pipe stays in its cell


def test_compare_command_prints_every_section_as_a_markdown_table(tmp_path, capsys):
    runs = [str(SAMPLE / f"{n}.run") for n in ("random", "strong", "weak")]
    out, _ = run_main(capsys, "judge", str(SAMPLE / "qrels.txt"), *runs, "-m", "muMAP", "P@5", "--transform", "scale:2",
                      "--samples", "10", "--permutations", "300", "--pairs-test", "tukey", "--test", "wilcoxon",
                      "--alternative", "greater", "--family", "all", "-o", "markdown")
    found = markdown_tables(out)
    assert len(found) == 8 and all(rows for _, rows in found)
    assert "Wilcoxon signed-rank test against" in out and "(greater; Holm correction across all runs" in out
    assert "Topic-set size" in out


# --- run names ----------------------------------------------------------------------------------------------

def test_run_names_are_the_same_in_every_mode(tmp_path, capsys, monkeypatch):
    for name in ("strong", "weak", "random"):
        shutil.copy(SAMPLE / f"{name}.run", tmp_path / f"{name}.run")
    shutil.copy(SAMPLE / "qrels.txt", tmp_path / "qrels.txt")
    runs = ["strong.run", "weak.run", "random.run"]

    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> str:
        return run_main(capsys, *args)[0]

    trec_summary, trec_comparison = run("qrels.txt", *runs, "muMAP", "-o", "trec", "--baseline", "random").split("\n\n")
    tags = [line.split("\t")[2] for line in trec_summary.splitlines() if line.startswith("runid")]
    assert tags == ["strong", "weak", "random"]  # trec_eval's runid lines: column 6 of the sample runs
    assert sorted(pd.read_csv(pd.io.common.StringIO(trec_comparison), sep="\t")["run"]) == sorted(runs)
    summary_names = list(pd.read_csv(pd.io.common.StringIO(run("qrels.txt", *runs, "muMAP")), sep="\t")["run"])
    compare_names = list(pd.read_csv(pd.io.common.StringIO(run("qrels.txt", *runs, "muMAP", "--baseline", "random")),
                                     sep="\t")["run"])
    means = run("judge", "qrels.txt", *runs, "-m", "muMAP", "--samples", "5", "--permutations", "100",
                "--baseline", "random", "-o", "tsv", "--sections", "means")
    sub_names = list(pd.read_csv(pd.io.common.StringIO(means), sep="\t")["run"])
    against = run("judge", "qrels.txt", *runs, "-m", "muMAP", "--samples", "5", "--permutations", "100",
                  "--baseline", "random", "-o", "tsv")
    sub_compare = list(pd.read_csv(pd.io.common.StringIO(against), sep="\t")["run"])
    report = run("report", "qrels.txt", *runs, "-m", "muMAP", "--baseline", "random", "--html",
                 str(tmp_path / "r.html"), "--no-scale")
    report_names = list(pd.read_csv(pd.io.common.StringIO(report), sep="\t")["run"])
    assert summary_names == sub_names == runs
    assert compare_names == sub_compare == report_names == ["random.run", "strong.run", "weak.run"]  # baseline first


def test_command_line_choices_are_the_statistics_lists():
    """The parser's lists are written out (so --help loads no scipy); they are the statistics' lists,
    and every subcommand offers the same comparison options and output formats."""

    assert cli_args.COMPARE_TESTS == statistics.PAIRED_TESTS
    assert set(cli_args.PAIRS_TESTS) == set(meta.TESTS)
    assert cli_args.ALTERNATIVES == statistics.ALTERNATIVES and cli_args.CORRECTIONS == statistics.CORRECTIONS
    from ir_measures_graded.cli.parser import build_parser

    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    for name in ("evaluate", "judge", "report"):
        choices = {a.dest: a.choices for a in subparsers[name]._actions}
        assert tuple(choices["alternative"]) == statistics.ALTERNATIVES
        assert tuple(choices["correction"]) == statistics.CORRECTIONS
        assert tuple(choices["test"]) == statistics.PAIRED_TESTS
        assert list(choices["output_format"]) == list(cli_args.FORMATS)  # the one registry
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
    assert header[1:] == ["muMAP", "Δ muMAP [CI]", "nDCNG@10", "Δ nDCNG@10 [CI]", "P@5", "Δ P@5 [CI]"] and len(rows) == 3


def test_readme_scale_table_is_what_the_command_prints(tmp_path, capsys, monkeypatch):
    for name in ("random", "strong", "weak"):
        shutil.copy(SAMPLE / f"{name}.run", tmp_path / f"{name}.run")
    monkeypatch.chdir(tmp_path)
    out, _ = run_main(capsys, "judge", str(SAMPLE / "qrels.txt"), "random.run", "strong.run", "weak.run", "-m", "muMAP",
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
    assert message in error_of(capsys, "judge", str(SAMPLE / "qrels.txt"), str(SAMPLE / "strong.run"),
                               str(SAMPLE / "weak.run"), "-m", "muMAP", "--samples", "5", *extra)


def test_the_comparisons_latex_table_compiles_with_odd_names(tmp_path):
    """Issue 34: ``Comparison.to_latex()`` is a complete ``table`` environment (caption, label, the best
    value of each column in bold, the legend and the notes inside) that compiles as pasted, whatever the
    runs are called (LaTeX specials, a newline, a µ)."""
    engine = latex_engine()
    if engine is None:
        pytest.skip("no LaTeX engine here (pdflatex); install texlive-latex-base texlive-latex-recommended")
    runs = [str(SAMPLE / f"{n}.run") for n in ("weak", "strong", "random")]
    names = ["b&se_line %1", "µ{run}\n#2", "r^~\\3"]
    latex = experiment(str(SAMPLE / "qrels.txt"), runs, ["muMAP", "NumRet"], baseline=0, names=names).compare() \
        .to_latex(caption="Runs & baselines, 100% tested", label="tab:runs")
    assert latex.count("\\begin{table}") == 1 and "\\caption{" in latex and "\\label{tab:runs}" in latex
    assert latex.count("\\textbf{") >= 2  # the best of each column
    assert "NumRet: no p-value" in latex  # the note is inside
    (tmp_path / "t.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
                                    f"\\begin{{document}}\n{latex}\\end{{document}}\n", encoding="utf-8")
    done = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]


def test_the_one_latex_table_fits_a_column_with_five_measures_and_six_runs(tmp_path, capsys):
    """Issues 42 and 52: the command line's ``-o latex --baseline`` writes ONE table environment, the one
    ``Comparison.to_latex`` makes: values, Δ and intervals (those of the text table, digit for digit, with
    true minus signs), the legend inside, its packages named on its first line. With five measures, six runs
    and a baseline it fits one column of a two-column article at its natural size: never scaled (no
    ``\\resizebox``; ``\\footnotesize``) and no overfull box in pdflatex's log."""
    engine = latex_engine()
    if engine is None:
        pytest.skip("no LaTeX engine here (pdflatex); install texlive-latex-base texlive-latex-recommended")
    runs = [str(SAMPLE / f"{n}.run") for n in ("weak", "strong", "random")] * 2 + [str(SAMPLE / "strong.run")]
    names = ["bm25_baseline", "dense_retriever", "random_control", "bm25+rm3", "monoT5_rerank", "colbert_v2",
             "splade_pp_ed"]
    measures = ["muMAP", "nDCNG@10", "map", "ndcg_cut.10", "P@5"]
    exp = experiment(str(SAMPLE / "qrels.txt"), runs, measures, baseline=0, names=names)
    latex = exp.compare().to_latex()
    command = [str(SAMPLE / "qrels.txt"), *runs, *measures, "--names", *names, "--baseline", "0"]
    out, _ = run_main(capsys, *command, "-o", "latex")
    assert out == latex  # the one table, and nothing else
    assert latex.count("\\begin{table}") == 1 and latex.count("\\begin{tabular}") == 1
    assert latex.splitlines()[0] == "% requires: \\usepackage{booktabs}" == tables.COMPARISON_PACKAGES
    assert "resizebox" not in latex and "scalebox" not in latex and "\\footnotesize" in latex
    # every value, Δ and interval bound of the text table, its minus signs LaTeX's minus, and its legend
    text, _ = run_main(capsys, *command, "-o", "text")
    shown = re.findall(r"[+-]?\d\.\d{4}", text.split("Against the baseline")[1])
    in_latex = re.findall(r"(?:\+|\\ensuremath\{-\})?\d\.\d{4}", latex)
    assert sorted(shown) == sorted(n.replace("\\ensuremath{-}", "-") for n in in_latex)
    assert any(n.startswith("-") for n in shown) and not re.search(r"(?<![\\{])-\d", latex)
    legend = exp.compare().legend().replace("†", "{\\textdagger}").replace("‡", "{\\textdaggerdbl}") \
        .replace("<", "\\ensuremath{<}").replace("Δ", "\\ensuremath{\\Delta}").replace("_", "\\_").replace("%", "\\%")
    assert legend in latex
    (tmp_path / "t.tex").write_text("\\documentclass[twocolumn]{article}\n\\usepackage{booktabs}\n"
                                    "\\begin{document}\n" + latex + "\\end{document}\n", encoding="utf-8")
    done = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    log = (tmp_path / "t.log").read_text(encoding="utf-8", errors="replace")
    assert "Overfull \\hbox" not in log and "Float too large" not in log, log[-3000:]


def test_the_latex_table_without_intervals_and_with_places():
    """``to_latex(intervals=False)``: value and Δ, no interval column; ``places`` sets the decimals of each."""
    exp = experiment(str(SAMPLE / "qrels.txt"), [str(SAMPLE / f"{n}.run") for n in ("weak", "strong", "random")],
                     ["muMAP", "P@5"], baseline=0)
    latex = exp.compare().to_latex(places=2, intervals=False)
    body = latex.split("\\midrule")[1].split("\\bottomrule")[0]
    assert " CI " not in latex and "[" not in body
    assert "& \\ensuremath{-}0.08 \\\\" in body and "& +0.30 \\\\" in body  # random's and strong's muMAP Δ
    assert "\\ensuremath{\\Delta}: mean difference to the baseline." in latex
