"""Names as a reader sees them (issue 44, items 12, 13): a LaTeX table's label is kept verbatim, so
that ``\\ref`` finds it once compiled, and one LaTeX cannot take is refused; a Markdown table's cells
render, in a CommonMark renderer, as the names themselves — no emphasis, raw HTML or link."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_measures_graded import GradedInputError, experiment
from support.examples import examples
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
    (folder / "t.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
                                  "\\begin{document}\n"
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


# --- Markdown --------------------------------------------------------------------------------------------

def rendered(text: str) -> tuple[list[str], list[list[str]], list[str]]:
    """What a CommonMark renderer (with GFM tables and strikethrough) shows of ``text``: the header cells,
    the body rows and the other paragraphs and headings, each as its text; markup (emphasis, a link, raw
    HTML, code, strikethrough) shows as ``<type>`` so that it can never equal a name."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(text)
    header: list[str] = []
    rows: list[list[str]] = []
    blocks: list[str] = []
    where = None
    for token in tokens:
        if token.type in ("thead_open", "tbody_open"):
            where = token.type
        elif token.type == "table_close":
            where = None
        elif token.type == "tr_open" and where == "tbody_open":
            rows.append([])
        elif token.type == "inline":
            shown = "".join(c.content if c.type == "text" else "\n" if c.type == "softbreak" else f"<{c.type}>"
                            for c in token.children or [])
            if where == "thead_open":
                header.append(shown)
            elif where == "tbody_open":
                rows[-1].append(shown)
            else:
                blocks.append(shown)
        elif token.type not in ("paragraph_open", "paragraph_close", "heading_open", "heading_close", "tr_open",
                                "tr_close", "th_open", "th_close", "td_open", "td_close", "thead_close",
                                "tbody_close", "table_open"):
            blocks.append(f"<{token.type}>")  # a list, quote, rule or code block made of a name
    return header, rows, blocks


ODD_NAMES = ["__init__", "x<b>y", "[a](http://e.com)", "*bold*", "`code`", "~~gone~~", "a&amp;b", "&#65;",
             "<http://e.com>", "pipe|run", "back\\slash\\", "$x^2$", "# heading", "1. first", "- item", "> quote",
             "---", "base_line", "50%_better#2", "![img](x.png)", "<!-- c -->", "a\\*b", "µ_x_"]


def markdown_of(names: list[str], title: str = "Runs", legend: str = "") -> str:
    import pandas as pd

    from ir_measures_graded.experiments import tables

    table = pd.DataFrame({"run": names, "value": [0.5] * len(names)})
    return tables.render(table, "markdown", title=title, legend=legend)


def test_names_render_in_markdown_as_typed():
    names = ODD_NAMES
    header, rows, blocks = rendered(markdown_of(names, title="Against __init__ <b>x</b>",
                                                legend="\n".join(["* † p < 0.05", *names])))
    assert header == ["run", "value"]
    assert [r[0] for r in rows] == names
    assert blocks == ["Against __init__ <b>x</b>", "* † p < 0.05", *names]


def test_the_comparison_names_its_runs_in_markdown_as_typed():
    names = ["__init__", "x<b>y", "[a](http://e.com)"]
    exp = experiment(QRELS, [WEAK, STRONG, RANDOM], ["muMAP"], names=names, baseline=0)
    header, rows, blocks = rendered(exp.compare().to_markdown())
    assert [r[0] for r in rows] == names
    assert any("against __init__" in b for b in blocks)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.text(st.sampled_from(list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ aZ09µ\t")), min_size=1,
                        max_size=12).filter(lambda n: n.strip()), min_size=1, max_size=5))
def test_any_name_of_ascii_punctuation_renders_as_typed(names):
    typed = [" ".join(n.split()) for n in names]
    header, rows, blocks = rendered(markdown_of(names, title=names[0], legend="\n".join(names)))
    assert [r[0] for r in rows] == typed
    assert blocks == [typed[0], *typed]


def test_latex_keeps_characters_tex_would_join_into_another_glyph(tmp_path):
    """``--`` is a dash, ```` `` ```` and ``''`` quotes, ``!``` ¡ in TeX's fonts: a name holding them is kept
    as typed (found by the fuzz test of names in LaTeX); and the table still compiles."""
    from pylatexenc.latex2text import LatexNodes2Text

    names = ["a--b", "``q''", "!`x", "x---y"]
    exp = experiment(QRELS, [WEAK, STRONG, RANDOM, WEAK], ["muMAP"], names=names, baseline=0)
    latex = exp.compare().to_latex(label="tab:ligatures")
    body = latex.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    rows = [row[len("\\quad "):] for row in body.strip().splitlines() if row.startswith("\\quad ")]  # a run's row
    cells = [row.split(" & ", 1)[0].replace("\\textbf{", "", 1) for row in rows]
    assert [LatexNodes2Text().latex_to_text(c).strip() for c in cells] == names
    compile_latex(tmp_path, latex)
