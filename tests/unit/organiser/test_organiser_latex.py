"""The organiser's LaTeX tables compile as pasted (#51): the per-topic table of 632 rows breaks across
pages (a longtable: no row lost to "Float too large"); the leaderboard of 4 measures × 10 runs fits one
column of a two-column article at its own size."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

import ir_measures_graded as img
from ir_measures_graded.experiments.testing import Testing as Options  # pytest would collect a "Test..." name
from ir_measures_graded.organiser import leaderboard, topics
from ir_measures_graded.sample import shared_task

MEASURES = ["nDCNG@10", "muMAP", "nDCG@10", "P@10"]


def _compile(tmp_path, preamble: str, body: str) -> str:
    engine = shutil.which("pdflatex")
    if engine is None:
        pytest.skip("no LaTeX engine here (pdflatex); install texlive-latex-base texlive-latex-recommended")
    (tmp_path / "t.tex").write_text(preamble + "\\begin{document}\n" + body + "\\end{document}\n", encoding="utf-8")
    done = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    return (tmp_path / "t.log").read_text(encoding="utf-8", errors="replace")


def test_the_per_topic_table_breaks_across_pages(tmp_path):
    qrels, runs = shared_task(n_runs=4, n_queries=158, depth=5, retrieved=20, seed=5)
    exp = img.experiment(qrels, runs, MEASURES)
    view = topics(exp)
    latex = view.to_latex()
    assert len(view.table) == 632
    assert latex.count(" \\\\\n") >= 632  # every row written
    log = _compile(tmp_path, "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{longtable}\n"
                   "\\usepackage{graphicx}\n", latex)
    assert "Float too large" not in log and "Overfull \\vbox" not in log
    pages = int(re.search(r"Output written on t\.pdf \((\d+) pages?", log).group(1))
    assert pages >= 10


def test_the_leaderboard_fits_one_column_of_a_two_column_article(tmp_path):
    qrels, runs = shared_task(n_runs=10, n_queries=20, depth=10, retrieved=30, seed=43)
    exp = img.experiment(qrels, runs, MEASURES)
    latex = leaderboard(exp, testing=Options(test="randomized_tukey", permutations=300)).to_latex()
    # the table's natural width, against the column's: shrunk to no less than 9 pt (of the article's 10 pt)
    measure = ("\\makeatletter\\renewcommand{\\resizebox}[3]{\\sbox0{#3}"
               "\\typeout{NATURAL=\\the\\wd0 COLUMN=\\the\\columnwidth}\\usebox0}\\makeatother\n")
    log = _compile(tmp_path, "\\documentclass[twocolumn]{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
                   + measure, latex)
    natural, column = (float(x) for x in re.search(r"NATURAL=([\d.]+)pt\s*COLUMN=([\d.]+)pt", log).groups())
    assert column / natural >= 0.9, (natural, column)
