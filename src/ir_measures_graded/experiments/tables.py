"""Tables of the meta-evaluation as people paste them into papers: text, markdown, LaTeX, TSV, JSON lines.

p-values print as ``0.043``, ``3.8e-10`` or — for resampling tests, whose resolution is the number
of draws — ``< 1e-4``, never ``0.0000``. A comparison against a baseline becomes a table with a row
per run and, per measure, the mean marked ``†`` (p < 0.05) or ``‡`` (p < 0.01) and the mean
difference with its confidence interval, followed by a legend saying what the marks mean. Any number
of levels can be given: from the loosest, the marks are ``†``, ``‡``, ``§``, ``¶``, then the same four
doubled (``††``, ``‡‡``, …), tripled and so on (the footnote-symbol convention); the legend lists each. LaTeX
cells are escaped by pylatexenc (``_``, ``&``, ``%``, ``#``, ``µ``, ``†``, …).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ir_measures_graded import statistics
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments.formats import (  # noqa: F401 (one registry, re-exported)
    FORMATS,
    HUMAN_FORMATS,
    MACHINE_FORMATS,
    format_of,
    json_number,
    number,
)
from ir_measures_graded.experiments.testing import percent  # noqa: F401 (re-exported: one definition)

#: Significance levels and their marks, strictest last.
LEVELS = (0.05, 0.01)
#: The marks of the loosest four levels; further levels repeat them (††, ‡‡, §§, ¶¶, †††, …).
MARKS = ("†", "‡", "§", "¶")
#: Below this a resampling test's p-value is shown as "< 1e-4".
RESAMPLED_FLOOR = 1e-4


def format_p(p: float, test: str | None = None, levels: Sequence[float] = LEVELS) -> str:
    """``0.043`` (3 decimals from 0.001 up), ``3.8e-10`` below; ``< 1e-4`` below 1e-4 for a resampling
    test (randomization, bootstrap, randomised Tukey); empty for no p-value. Never across a significance
    level of ``levels`` (those the marks use): a p-value just below one gets the digits that keep it
    below (0.009971 is ``0.00997``, not ``0.010`` beside ‡), one at or above a level never prints below it."""
    if p is None or (isinstance(p, float) and math.isnan(p)) or pd.isna(p):
        return ""
    p = float(p)
    if test in statistics.RESAMPLED and p < RESAMPLED_FLOOR:
        return f"< {RESAMPLED_FLOOR:.0e}".replace("e-0", "e-")
    if p == 0.0:
        return "< 1e-300"  # below what a double holds
    try:
        ordered = [float(level) for level in levels]
    except (TypeError, ValueError):
        ordered = list(LEVELS)
    fixed = p >= 0.001
    for digits in range(3 if fixed else 1, 18):
        text = f"{p:.{digits}f}" if fixed else f"{p:.{digits}e}".replace("e-0", "e-")
        if all((float(text) < level) == (p < level) for level in ordered):
            return text
    return f"< {min(level for level in ordered if p < level):g}"  # p a rounding error below a level


def json_p(p: float, places: int | None) -> float | None:
    """A p-value for JSON: ``places`` *significant* digits (so ``-p 4`` keeps 3.8e-10), None for NaN."""
    if p is None or pd.isna(p):
        return None
    return float(f"{float(p):.{max(places, 1)}g}") if places is not None and places >= 0 else float(p)


def marks(count: int) -> list[str]:
    """The marks of ``count`` significance levels, loosest first: †, ‡, §, ¶, ††, ‡‡, §§, ¶¶, †††, …"""
    return [MARKS[k % len(MARKS)] * (k // len(MARKS) + 1) for k in range(count)]


def _levels(levels: Sequence[float]) -> list[float]:
    """``levels`` loosest first, refused with one line unless distinct numbers between 0 and 1."""
    try:
        ordered = sorted((float(level) for level in levels), reverse=True)
    except (TypeError, ValueError):
        raise GradedInputError(f"significance levels must be numbers between 0 and 1, got {list(levels)!r}") from None
    if any(not 0 < level < 1 for level in ordered) or len(set(ordered)) < len(ordered):
        raise GradedInputError(f"significance levels must be distinct numbers between 0 and 1, got {list(levels)!r}")
    return ordered


def mark(p: float, levels: Sequence[float] = LEVELS) -> str:
    """The mark of the strictest level ``p`` is below (``‡`` below 0.01, ``†`` below 0.05 by default;
    see :func:`marks` for more levels), nothing otherwise (or without a p-value)."""
    ordered = _levels(levels)
    if p is None or pd.isna(p):
        return ""
    passed = sum(p < level for level in ordered)
    return marks(len(ordered))[passed - 1] if passed else ""


def interval_text(low: float, high: float, places: int = 4) -> str:
    """A confidence interval as every view prints it: ``[-0.0120, +0.1828]``, or one-sided with its open
    end (``[+0.0043, ∞)``, ``(−∞, +0.1828]``); empty when there is none (NaN)."""
    if pd.isna(low) or pd.isna(high):
        return ""
    return (f"{'(' if math.isinf(low) else '['}{number(low, places, True)}, "
            f"{number(high, places, True)}{')' if math.isinf(high) else ']'}")


def formatted(table: pd.DataFrame, places: int = 4) -> pd.DataFrame:
    """Every cell as text: floats with ``places`` decimals (-1: all digits), p-value columns (``p_*``)
    by :func:`format_p` (knowing the row's ``test`` where there is one), NaN empty."""
    shown = pd.DataFrame(index=table.index)
    tests = table["test"] if "test" in table.columns else pd.Series(None, index=table.index, dtype=object)
    for column in table.columns:
        values = table[column]
        if str(column).startswith("p_"):
            shown[column] = [format_p(p, t) for p, t in zip(values, tests, strict=True)]
        elif pd.api.types.is_float_dtype(values):
            shown[column] = [number(v, places) for v in values]
        else:
            shown[column] = ["" if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v) for v in values]
    return shown


def comparison_records(table: pd.DataFrame, places: int | None) -> list[dict[str, Any]]:
    """A comparison table's rows (:attr:`.comparison.Comparison.table`) for JSON lines: values rounded
    to ``places`` decimals when given, p-values to ``places`` significant digits, NaN as None."""
    records = []
    for rec in table.to_dict("records"):
        item: dict[str, Any] = {}
        for key, value in rec.items():
            if str(key).startswith("p_"):
                item[key] = json_p(value, places)
            else:
                item[key] = json_number(value.item() if hasattr(value, "item") else value, places)
        records.append(item)
    return records


def legend(testing: Any, baseline: str, deltas: bool = True, levels: Sequence[float] | None = None) -> str:
    """What a comparison's marks mean (one per level of ``levels``, by default ``testing.levels``) and, with
    ``deltas``, what its Δ column is: the one sentence every view of a comparison prints."""
    ordered = _levels(testing.levels if levels is None else levels)
    listed = ", ".join(f"{m} p < {lv:g}" for m, lv in zip(marks(len(ordered)), ordered, strict=True)) or "No marks"
    said = f"{listed}: {testing.describe(baseline)}."
    if deltas:
        said += f" Δ: mean difference to the baseline [{testing.interval()}]."
    return said


def testing_of(comparison: pd.DataFrame) -> Any:
    """The :class:`~ir_measures_graded.experiments.testing.Testing` a comparison table was made with (its attrs)."""
    from ir_measures_graded.experiments.testing import Testing

    a = comparison.attrs
    alpha = a.get("alpha", 1 - a.get("level", 0.95))
    return Testing(test=a.get("test") or "t", correction=a.get("correction", "holm"),
                   alternative=a.get("alternative", "two-sided"), family=a.get("family", "runs"), alpha=alpha)


def paper_table(comparison: pd.DataFrame, places: int = 4, levels: Sequence[float] | None = None,
                interval: str = "t", deltas: bool = True, testing: Any = None) -> tuple[pd.DataFrame, str]:
    """``(table, legend)``: a comparison (:class:`~ir_measures_graded.experiments.comparison.Comparison`'s
    table) as papers show it: a row per run and, per measure, its value with a significance mark (the
    corrected p-value, one mark per level of ``levels``, by default the testing's: alpha and alpha / 5) and,
    with ``deltas``, the mean difference to the baseline with its confidence interval (``interval``: 't'
    or 'bootstrap'); the legend says what the marks and the Δ columns are. ``testing``: how it was
    tested (default: what the table's attrs say)."""
    testing = testing or testing_of(comparison)
    levels = _levels(testing.levels if levels is None else levels)
    low, high = ("ci_low", "ci_high") if interval == "t" else ("boot_low", "boot_high")
    baseline = comparison.attrs.get("baseline", "the baseline")
    runs = list(pd.unique(comparison["run"]))
    columns: dict[str, list[str]] = {"run": runs}
    for measure, rows in comparison.groupby("measure", sort=False):
        rows = rows.set_index("run").reindex(runs)
        columns[measure] = [number(r.value, places) + mark(r.p_adjusted, levels) for r in rows.itertuples()]
        if not deltas:
            continue
        columns[f"Δ {measure} [CI]"] = [
            "" if r.Index == baseline or pd.isna(r.delta) else
            number(r.delta, places, True) if pd.isna(r.p_value) else
            f"{number(r.delta, places, True)} {interval_text(getattr(r, low), getattr(r, high), places)}"
            for r in rows.itertuples()]
    said = legend(testing, baseline, deltas, levels)
    if deltas and interval != "t":
        said = said.replace(" t confidence interval", " percentile bootstrap confidence interval")
    return pd.DataFrame(columns), said


def best_cells(comparison: pd.DataFrame, runs: Sequence[str]) -> set[tuple[int, int]]:
    """(row, column) of the best value of each measure (columns from 1, in the comparison's order):
    every value within :func:`~ir_measures_graded.statistics.tolerance` of the highest, so tied bests are
    all marked."""
    import numpy as np

    bold = set()
    for j, (_, rows) in enumerate(comparison.groupby("measure", sort=False), start=1):
        values = rows.set_index("run")["value"].reindex(runs).to_numpy(dtype=np.float64)
        if np.isnan(values).all():
            continue
        top = np.nanmax(values)
        bold |= {(i, j) for i, v in enumerate(values) if not np.isnan(v) and top - v <= statistics.tolerance(values)}
    return bold


#: The packages the comparison's LaTeX table needs, named once: its first line and docs/comparing.md.
COMPARISON_PACKAGES = "% requires: \\usepackage{booktabs}"


def _tex_number(text: str) -> str:
    """A number as LaTeX sets it: its hyphens (a negative value, an exponent) as true minus signs."""
    return _latex(text.replace("-", "−"))


def comparison_latex(comparison: pd.DataFrame, testing: Any, baseline: str, places: int = 4,
                     caption: str | None = None, label: str = "tab:comparison", notes: Sequence[str] = (),
                     intervals: bool = True) -> str:
    """The one LaTeX table of a comparison (``Comparison.to_latex`` and the command line's ``-o latex``): one
    ``table`` environment, set in ``\\footnotesize`` at its natural width (never scaled) so that it fits one
    column of a two-column paper, its packages named on its first line (:data:`COMPARISON_PACKAGES`), true
    minus signs, the best value of each measure in bold, the legend and ``notes`` inside.

    A block of rows per measure (its name heading it), a row per run: its value with its mark, its difference
    to the baseline (Δ) and, with ``intervals`` (the default, as the text table), the confidence interval of
    that difference. Three or four columns, whatever the number of measures and runs: runs' names are the
    only cells of unbounded width."""
    runs = list(pd.unique(comparison["run"]))
    measures = list(pd.unique(comparison["measure"]))
    bold = best_cells(comparison, runs)
    indexed = comparison.set_index(["run", "measure"])

    def value(i: int, j: int) -> str:
        r = indexed.loc[(runs[i], measures[j - 1])]
        text = _tex_number(number(r["value"], places)) + _latex(mark(r["p_adjusted"], testing.levels))
        return f"\\textbf{{{text}}}" if (i, j) in bold else text

    def delta(run: str, measure: str) -> str:
        d = indexed.loc[(run, measure), "delta"]
        return "" if run == baseline or pd.isna(d) else _tex_number(number(d, places, True))

    columns = ["run", "value", "$\\Delta$", *([f"{_latex(testing.percent)} CI"] if intervals else [])]
    lines = []
    for j, measure in enumerate(measures, start=1):
        lines += [*(["\\addlinespace"] if j > 1 else []),
                  f"\\multicolumn{{{len(columns)}}}{{@{{}}l}}{{\\textit{{{_latex(measure)}}}}} \\\\"]
        for i, run in enumerate(runs):
            cells = [f"\\quad {_latex(run)}", value(i, j), delta(run, measure)]
            if intervals:
                r = indexed.loc[(run, measure)]
                cells.append("" if run == baseline or pd.isna(r["p_value"]) else
                             _tex_number(interval_text(r["ci_low"], r["ci_high"], places)))
            lines.append(" & ".join(cells) + " \\\\")
    said = legend(testing, baseline, deltas=intervals)
    if not intervals:
        said += " Δ: mean difference to the baseline."
    spec, header = "@{}l" + "r" * (len(columns) - 1) + "@{}", " & ".join(columns) + " \\\\"
    body = [COMPARISON_PACKAGES, "\\begin{table}", "\\centering",
            f"\\caption{{{_latex(caption or f'Runs against the baseline {baseline}.')}}}",
            f"\\label{{{latex_label(label)}}}", "{\\footnotesize", "\\setlength{\\tabcolsep}{3pt}",
            f"\\begin{{tabular}}{{{spec}}}", "\\toprule", header, "\\midrule", *lines, "\\bottomrule",
            "\\end{tabular}", *(f"\\par\\smallskip {_latex(n)}" for n in [said, *notes] if n), "\\par}",
            "\\end{table}"]
    return "\n".join(body) + "\n"


def latex_table(table: pd.DataFrame, caption: str, label: str, notes: Sequence[str] = (),
                bold: set[tuple[int, int]] = frozenset(), long: bool = False, narrow: bool = False) -> str:
    """A complete LaTeX ``table`` environment of ``table`` (booktabs rules, scaled to the column width only
    when wider); the cells at ``bold`` (row, column) in bold, ``notes`` under it. ``long``: a ``longtable``
    instead (needs ``\\usepackage{longtable}``), broken across pages, its header repeated on each.
    ``narrow``: half the space between the columns (a table for one column of a two-column page)."""
    rows = [" & ".join(f"\\textbf{{{_latex(c)}}}" if (i, j) in bold else _latex(c) for j, c in enumerate(r)) + " \\\\"
            for i, r in enumerate(table.astype(str).to_numpy(dtype=object).tolist())]
    header = " & ".join(_latex(str(h)) for h in table.columns) + " \\\\"
    spec = "l" + "r" * (len(table.columns) - 1)
    if long:
        return _long_environment(spec, header, rows, caption, label, notes)
    return _environment(spec, header, rows, caption, label, notes, narrow)


def _long_environment(spec: str, header: str, rows: Sequence[str], caption: str, label: str,
                      notes: Sequence[str]) -> str:
    """A ``longtable`` (a table longer than a page): caption and header on the first page, the header again
    on each page after, the notes under the last row."""
    body = ["% needs \\usepackage{booktabs} and \\usepackage{longtable}", "{\\small",
            f"\\begin{{longtable}}{{{spec}}}", f"\\caption{{{_latex(caption)}}}\\label{{{latex_label(label)}}} \\\\",
            "\\toprule", header, "\\midrule", "\\endfirsthead", "\\toprule", header, "\\midrule", "\\endhead",
            "\\bottomrule", "\\endlastfoot", *rows,
            "\\end{longtable}}", *(f"\\par{{\\footnotesize {_latex(n)}}}" for n in notes if n)]
    return "\n".join(body) + "\n"


def _environment(spec: str, header: str, rows: Sequence[str], caption: str, label: str, notes: Sequence[str],
                 narrow: bool = False) -> str:
    """The one ``table`` environment every LaTeX table is written in."""
    body = ["% needs \\usepackage{booktabs} and \\usepackage{graphicx}", "\\begin{table}", "\\centering",
            *(["\\setlength{\\tabcolsep}{3pt}"] if narrow else []),
            f"\\caption{{{_latex(caption)}}}", f"\\label{{{latex_label(label)}}}",
            # the tabular at its own width, or the column's when wider (\width: the box's natural width)
            "\\resizebox{\\ifdim\\width>\\columnwidth\\columnwidth\\else\\width\\fi}{!}{%",
            f"\\begin{{tabular}}{{{spec}}}", "\\toprule", header, "\\midrule", *rows, "\\bottomrule",
            "\\end{tabular}}", *(f"\\par{{\\footnotesize {_latex(n)}}}" for n in notes if n), "\\end{table}"]
    return "\n".join(body) + "\n"


#: Pairs of characters TeX's fonts join into another glyph (`` `` `` a quote, ``--`` a dash, ``!` `` ¡): a
#: ``{}`` between them keeps both as typed.
_LIGATURES = re.compile(r"(?<!\\)(-(?=-)|`(?=`)|'(?=')|[!?](?=`))")


def _latex(text: str) -> str:
    from pylatexenc.latexencode import unicode_to_latex

    return _LIGATURES.sub(r"\1{}", unicode_to_latex(" ".join(str(text).split())))


def _plain(text: str) -> str:
    """A cell of a text table: one line."""
    return " ".join(str(text).split())


def machine(table: pd.DataFrame, output_format: str, places: int | None = None) -> str:
    """``table`` as one tidy tsv / csv (RFC 4180 quoting: a tab or newline in a name stays in its
    cell) or JSON lines: numbers as numbers (p-values too), NaN empty (null in JSON), the open end of a
    one-sided interval ``inf`` / ``-inf`` (``Infinity`` / ``-Infinity`` in JSON, as Python, pandas and
    jq read it)."""
    import io
    import json

    if output_format == "jsonl":
        return "".join(json.dumps(rec, ensure_ascii=False) + "\n" for rec in comparison_records(table, places))
    buffer = io.StringIO()
    shown = table.copy()
    for column in shown.columns:
        if str(column).startswith("p_"):
            shown[column] = [json_p(p, places) for p in shown[column]]
    for column in shown.columns:  # values to ``places`` decimals; p-values (above) to significant digits
        if not str(column).startswith("p_") and pd.api.types.is_float_dtype(shown[column]) and places is not None \
                and places >= 0:
            shown[column] = shown[column].round(places)
    shown.to_csv(buffer, sep="," if output_format == "csv" else "\t", index=False, na_rep="", lineterminator="\n")
    return buffer.getvalue()


#: What a ``\\label`` cannot hold: LaTeX's special characters (``_`` is fine in a label), braces and spaces.
_NOT_IN_LABELS = set("\\{}#%&~^$")


def latex_label(label: str) -> str:
    """``label`` as ``\\label{...}`` takes it, verbatim (``tab:main_results`` stays that: ``\\ref`` must
    find it as typed); a GradedInputError naming the first character LaTeX cannot take in a label
    (``\\ { } # % & ~ ^ $``, whitespace, a control or non-ASCII character)."""
    label = str(label)
    if not label:
        raise GradedInputError("the LaTeX label is empty: give one such as 'tab:results'")
    bad = next((c for c in label if c in _NOT_IN_LABELS or not (c.isascii() and c.isprintable()) or c.isspace()),
               None)
    if bad is not None:
        raise GradedInputError(f"the LaTeX label {label!r} holds {bad!r}, which a \\label cannot take: use letters, "
                               "digits and punctuation such as : - _ . (e.g. 'tab:main_results')")
    return label


#: Inline Markdown that a name could start, escaped so that it renders as typed (CommonMark, GFM): backslash
#: escapes, code, emphasis, strikethrough, math, table cells.
_MARKDOWN_ESCAPED = set("\\`*|~$")
#: A link or image: ``](`` or ``][``; raw HTML and autolinks: < and one of ``A-Za-z/!?``; an entity or a
#: character reference: ``&name;``, ``&#123;``, ``&#x1F;``.
_LINK_END = re.compile(r"\](?=[(\[])")
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_ENTITY_START = re.compile(r"&(?=(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});)")
#: What starts a block at the beginning of a paragraph (a title or a note): a quote, list, heading, rule or
#: link reference definition.
_BLOCK_START = re.compile(r"^(?:([>+=\[-])|(\d{1,9})([.)]))")


def _markdown(text: str, block: bool = False) -> str:
    """``text`` as Markdown that renders as ``text`` itself (a table cell; with ``block``, a paragraph or
    heading of its own): what could start inline markup is escaped — ``\\ ` * | ~ $``, ``_`` where it is
    not between two letters or digits (which CommonMark never takes for emphasis), ``]`` before ``(`` or
    ``[`` (a link), ``&`` before a reference, ``<`` before a tag or autolink (as ``&lt;``); with ``block``
    also ``#`` and what would make a paragraph a quote, list, heading, rule or link definition. Other
    characters stay as they are, so that the source stays readable (``Δ muAP [CI]``)."""
    out = []
    for i, char in enumerate(text):
        if char in _MARKDOWN_ESCAPED or (block and char == "#") or (char == "_" and not (
                0 < i < len(text) - 1 and text[i - 1].isascii() and text[i - 1].isalnum()
                and text[i + 1].isascii() and text[i + 1].isalnum())):
            out.append("\\" + char)
        else:
            out.append(char)
    escaped = _TAG_START.sub("&lt;", _ENTITY_START.sub(r"\\&", _LINK_END.sub(r"\\]", "".join(out))))
    if block:
        escaped = _BLOCK_START.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", escaped)
    return escaped


def _numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def render(table: pd.DataFrame, output_format: str, places: int = 4, title: str = "", legend: str = "") -> str:
    """``table`` as ``text``, ``markdown`` or ``latex`` with its title and legend (each line of the
    legend a note; p-value columns by :func:`format_p`; every name escaped, titles too), or as one tidy
    machine table (``tsv``, ``csv``, ``jsonl``: :func:`machine`, numbers as numbers, no title). Each ends
    with one newline: whoever writes several puts a blank line between them (``cli.writers.Streams``)."""
    if format_of(output_format, table=True).machine:
        return machine(table, output_format, places)
    cells = formatted(table, places)
    right = [_numeric(table[c]) or str(c).startswith("p_") or str(c).startswith("Δ") or
             (c != "run" and table[c].astype(str).str.match(r"^[+-]?\d").all()) for c in table.columns]
    headers = [str(c) for c in table.columns]
    rows = cells.to_numpy(dtype=object).tolist()
    notes = [_one_line(line) for line in str(legend).splitlines() if line.strip()]
    title = _one_line(title)
    if output_format == "latex":
        spec = "".join("r" if r else "l" for r in right)
        lines = [f"% {_latex(title)}" if title else None, "% needs \\usepackage{booktabs}",
                 f"\\begin{{tabular}}{{{spec}}}", "\\toprule",
                 " & ".join(_latex(h) for h in headers) + " \\\\", "\\midrule",
                 *(" & ".join(_latex(c) for c in r) + " \\\\" for r in rows), "\\bottomrule", "\\end{tabular}",
                 *(f"\\par{{\\footnotesize {_latex(n)}}}" for n in notes)]
        return "\n".join(line for line in lines if line is not None) + "\n"
    from tabulate import tabulate

    align = ["right" if r else "left" for r in right]
    if output_format == "markdown":
        grid = tabulate([[_markdown(_plain(c)) for c in r] for r in rows], headers=[_markdown(_plain(h)) for h in headers],
                        tablefmt="pipe", colalign=align, disable_numparse=True)
        return "".join([f"### {_markdown(title, block=True)}\n\n" if title else "", grid, "\n",
                        *(f"\n{_markdown(n, block=True)}\n" for n in notes)])
    grid = tabulate([[_plain(c) for c in r] for r in rows], headers=[_plain(h) for h in headers], tablefmt="simple",
                    colalign=align, disable_numparse=True)
    return "".join([f"{title}\n" if title else "", grid, "\n", *(f"{n}\n" for n in notes)])
