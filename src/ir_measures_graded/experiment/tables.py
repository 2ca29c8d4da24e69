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

#: Every format a table is written in, wherever one is written: tidy machine tables and human ones.
MACHINE_FORMATS = ("tsv", "csv", "jsonl")
HUMAN_FORMATS = ("text", "markdown", "latex")
FORMATS = (*MACHINE_FORMATS, *HUMAN_FORMATS)
#: Significance levels and their marks, strictest last.
LEVELS = (0.05, 0.01)
#: The marks of the loosest four levels; further levels repeat them (††, ‡‡, §§, ¶¶, †††, …).
MARKS = ("†", "‡", "§", "¶")
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "Benjamini-Hochberg"}
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


def percent(level: float) -> str:
    """A confidence level as a percentage with the digits it has: ``95%``, ``99.9%``, ``97.5%`` (never
    rounded to a whole percent: 99.9% is not 100%)."""
    return f"{float(level) * 100:.10g}%"


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


def _number(value: Any, places: int, signed: bool = False) -> str:
    if value is None or pd.isna(value):
        return ""
    return f"{float(value):{'+' if signed else ''}.{places}f}" if places >= 0 else repr(float(value))


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
            shown[column] = [_number(v, places) for v in values]
        else:
            shown[column] = ["" if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v) for v in values]
    return shown


def comparison_records(table: pd.DataFrame, places: int | None) -> list[dict[str, Any]]:
    """:func:`~ir_measures_graded.meta.compare_runs`'s rows for JSON lines: values rounded to ``places``
    decimals when given, p-values to ``places`` significant digits, NaN as None."""
    records = []
    for rec in table.to_dict("records"):
        item: dict[str, Any] = {}
        for key, value in rec.items():
            if str(key).startswith("p_"):
                item[key] = json_p(value, places)
            elif isinstance(value, float):
                item[key] = (None if math.isnan(value) else
                             round(value, places) if places is not None and places >= 0 else value)
            else:
                item[key] = None if value is pd.NA else value.item() if hasattr(value, "item") else value
        records.append(item)
    return records


def paper_table(comparison: pd.DataFrame, places: int = 4, levels: Sequence[float] = LEVELS,
                interval: str = "t", deltas: bool = True) -> tuple[pd.DataFrame, str]:
    """``(table, legend)`` from :func:`~ir_measures_graded.meta.compare_runs`: a row per run and, per
    measure, its mean with a significance mark and the mean difference to the baseline with its
    confidence interval (``interval``: 't' or 'bootstrap'). Marks use the corrected p-values, one per
    level of ``levels`` (any number; :func:`marks`), and the legend lists each."""
    ordered = _levels(levels)
    low, high = ("ci_low", "ci_high") if interval == "t" else ("boot_low", "boot_high")
    attrs = comparison.attrs
    runs = list(pd.unique(comparison["run"]))
    columns: dict[str, list[str]] = {"run": runs}
    for measure, rows in comparison.groupby("measure", sort=False):
        rows = rows.set_index("run").reindex(runs)
        columns[measure] = [_number(r.value, places) + mark(r.p_adjusted, levels) for r in rows.itertuples()]
        if not deltas:
            continue
        columns[f"Δ {measure} [CI]"] = [
            "" if r.Index == attrs.get("baseline") or pd.isna(r.delta) else
            _number(r.delta, places, True) if pd.isna(r.p_value) else
            f"{_number(r.delta, places, True)} [{_number(getattr(r, low), places, True)}, "
            f"{_number(getattr(r, high), places, True)}]" for r in rows.itertuples()]
    level = attrs.get("level", 0.95)
    test = statistics.TEST_NAMES.get(attrs.get("test", ""), attrs.get("test", "test"))
    alternative = attrs.get("alternative", "two-sided")
    correction = CORRECTION_NAMES.get(attrs.get("correction", "holm"), attrs.get("correction"))
    family = "all runs × measures" if attrs.get("family") == "all" else "the runs of each measure"
    listed = ", ".join(f"{m} p < {lv:g}" for m, lv in zip(marks(len(ordered)), ordered, strict=True)) or "No marks"
    corrected = "uncorrected" if attrs.get("correction") == "none" else f"{correction} correction across {family}"
    legend = (f"{listed}: {test} against {attrs.get('baseline', 'the baseline')} ({alternative}; {corrected}). "
              f"Δ: mean difference to the baseline [{percent(level)} {'t' if interval == 't' else 'percentile bootstrap'}"
              f" confidence interval].")
    return pd.DataFrame(columns), legend


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
    cell) or JSON lines: numbers as numbers (p-values too), NaN empty (null in JSON)."""
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


def latex_table(table: pd.DataFrame, caption: str, label: str, notes: Sequence[str] = (),
                bold: set[tuple[int, int]] = frozenset()) -> str:
    """A complete LaTeX ``table`` environment (booktabs rules: needs ``\\usepackage{booktabs}``); the
    cells at ``bold`` (row, column) in bold; ``label`` verbatim (:func:`latex_label`)."""
    label = latex_label(label)
    spec = "l" + "r" * (len(table.columns) - 1)
    rows = [[f"\\textbf{{{_latex(c)}}}" if (i, j) in bold else _latex(c) for j, c in enumerate(r)]
            for i, r in enumerate(table.astype(str).to_numpy(dtype=object).tolist())]
    lines = ["% needs \\usepackage{booktabs}", "\\begin{table}", "\\centering",
             f"\\caption{{{_latex(caption)}}}", f"\\label{{{label}}}",
             f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(_latex(str(h)) for h in table.columns) + " \\\\",
             "\\midrule", *(" & ".join(r) + " \\\\" for r in rows), "\\bottomrule",
             "\\end{tabular}", *(f"\\par{{\\footnotesize {_latex(n)}}}" for n in notes if n), "\\end{table}"]
    return "\n".join(lines) + "\n"


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
    if output_format not in FORMATS:
        raise ValueError(f"unknown output format {output_format!r}; expected one of {', '.join(FORMATS)}")
    if output_format in MACHINE_FORMATS:
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
