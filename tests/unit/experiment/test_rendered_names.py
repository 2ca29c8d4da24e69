"""Names as a reader sees them (issue 44, items 12, 13): a LaTeX table's label is kept verbatim, so
that ``\\ref`` finds it once compiled, and one LaTeX cannot take is refused; a Markdown table's cells
render, in a CommonMark renderer, as the names themselves — no emphasis, raw HTML or link."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from ir_measures_graded import GradedInputError, experiment
from support.paths import QRELS, RANDOM, STRONG, WEAK


@pytest.fixture(scope="module")
def comparison():
    return experiment(QRELS, [WEAK, STRONG, RANDOM], ["muMAP", "nDCG@10"], baseline=0).compare()


def latex_engine() -> str | None:
    engine = shutil.which("pdflatex")
    if engine is None and os.environ.get("CI"):
        pytest.fail("pdflatex is missing on CI: .ci/run installs texlive-latex-base and texlive-latex-recommended")
    return engine


def compile_latex(folder, body: str) -> str:
    """``body`` in an article compiled twice (references resolve on the second run); its log."""
    engine = latex_engine()
    if engine is None:
        pytest.skip("no LaTeX engine here (pdflatex); install texlive-latex-base texlive-latex-recommended "
                    "(CI does, in .ci/run)")
    (folder / "t.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                                  f"{body}\n\\end{{document}}\n", encoding="utf-8")
    for _ in range(2):
        done = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=folder,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-3000:]
    return (folder / "t.log").read_text(encoding="latin-1")


@pytest.mark.parametrize("label", ["tab:main_results", "tab:runs-2024.v1", "results", "t:a_b:c/d"])
def test_a_latex_label_is_kept_verbatim_and_ref_finds_it(comparison, label, tmp_path):
    latex = comparison.to_latex(label=label)
    assert f"\\label{{{label}}}\n" in latex
    log = compile_latex(tmp_path, f"{latex}\nSee Table~\\ref{{{label}}}.")
    assert "undefined" not in log.lower(), log[-2000:]
    aux = (tmp_path / "t.aux").read_text(encoding="latin-1")
    assert f"\\newlabel{{{label}}}{{{{1}}" in aux


@pytest.mark.parametrize("label", ["tab:a b", "tab:50%", "tab:a&b", "tab:{x}", "tab:#1", "tab:~x", "tab:x^2",
                                   "tab:\\x", "tab:$x$", "tab:µ", "tab:a\nb", ""])
def test_a_label_latex_cannot_take_is_refused_in_one_line(comparison, label):
    with pytest.raises(GradedInputError) as raised:
        comparison.to_latex(label=label)
    message = str(raised.value)
    assert len(message.splitlines()) == 1 and ("LaTeX label" in message)
