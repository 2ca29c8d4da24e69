"""mkdocs hooks: the pages that are generated from the code at build time, so they cannot drift.

- ``measures.md``: every measure of :data:`ir_measures_graded.measures.MEASURES` with its aliases
  (read back from ``ir_measures.measures.registry``), formula and citation (its docstring), its
  value on binary labels (:data:`ON_BINARY`, checked by tests/test_docs.py), every parameter (the
  ``Param`` objects of measures/params.py: description, accepted values, default) and an example
  whose printed output is computed here by running it.
- ``command-line-options.md``: every option of the command line, by walking the argparse parser(s)
  (subcommands included), so it documents whatever parser exists at build time.
- ``<!-- import-contracts -->`` in a page: replaced by the layers and contracts of
  ``[tool.importlinter]`` in pyproject.toml (the ones ``lint-imports`` checks).

tests/test_docs.py imports this file to compare pages, run their examples and check ON_BINARY.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import io
import os
import re
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GENERATED = {"measures.md": "measures_page", "command-line-options.md": "cli_page"}
CONTRACTS_MARK = "<!-- import-contracts -->"

#: What each measure is on binary labels (0/1): the standard ir_measures measure it equals per query,
#: or None with a sentence. tests/test_docs.py checks every equality on the bundled sample, made
#: binary, and that every registered measure has an entry (a new measure needs one here).
ON_BINARY: dict[str, tuple[str | None, str]] = {
    "muAP": ("AP", ""),
    "muP": ("P@10", "at the same cutoff"),
    "muR": ("R@10", "at the same cutoff"),
    "muRR": ("RR", ""),
    "muRprec": ("Rprec", ""),
    "GAP": ("AP", ""),
    "Q": ("AP", "(and with `beta=0` it is `AP` on any labels)"),
    "nDCNG": ("nDCG@10", "at the same cutoff (gain 2^1 - 1 = 1 for a relevant document)"),
    "meanNDCG": (None, "the mean of binary nDCG@1 ... nDCG@N; no ir_measures measure computes it"),
    "meanNDCNG": (None, "equal to `meanNDCG` (gains 2^(1/1) - 1 = 1); no ir_measures measure computes it"),
    "gERR": (None, "ERR with stopping probability (2^1 - 1)/2^g_max for a relevant document "
                   "(1/16 at the default `g_max=4`); `norm='query'` makes it 1"),
    "gRBP": (None, "binary RBP: gain 1 for a relevant document"),
    "gRBP_residual": (None, "the residual of binary RBP"),
}


# --- mkdocs hooks -------------------------------------------------------------------------------------------

def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for name, function in GENERATED.items():
        files.append(File.generated(config, name, content=globals()[function]()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return markdown.replace(CONTRACTS_MARK, contracts_section()) if CONTRACTS_MARK in markdown else markdown


# --- measures -----------------------------------------------------------------------------------------------

def aliases(measure: Any) -> list[str]:
    """The names ir_measures' registry gives ``measure``, besides its own."""
    from ir_measures.measures import registry

    return [name for name, value in registry.items() if value is measure and name != measure.NAME]


def docstring_parts(measure: Any) -> tuple[str, str]:
    """(formula and definition, citation): the docstring, its last paragraph being the citation."""
    text = inspect.cleandoc(type(measure).__doc__ or "")
    *body, citation = text.split("\n\n")
    return "\n\n".join(body), " ".join(citation.split())


def as_markdown(rst: str) -> str:
    """The docstring's reStructuredText as markdown: math blocks as text blocks, roles and literals as code."""
    out, in_math = [], False
    for line in rst.splitlines():
        if line.strip() == ".. math::":
            out.append("```text")
            in_math = True
        elif in_math and line.strip() and not line.startswith(" "):
            out += ["```", "", inline(line)]
            in_math = False
        elif in_math:
            if line.strip() or out[-1] != "```text":
                out.append(line[4:])
        else:
            out.append(inline(line))
    if in_math:
        out.append("```")
    return re.sub(r"\n+```\n", "\n```\n", "\n".join(out) + "\n").strip("\n")


def inline(line: str) -> str:
    line = re.sub(r":(?:math|func|class|meth|data|mod|attr):`([^`]*)`", r"`\1`", line)
    return line.replace("``", "`")


def show_default(param: Any) -> str:
    if param.required:
        return "required"
    if param.default is None:
        return "none"
    return f"`{param.show(param.normalise(param.default))}`"


def measure_example(measure: Any) -> str:
    """A runnable example for ``measure`` on the bundled sample, with its printed output."""
    cutoff = getattr(measure.SUPPORTED_PARAMS.get("cutoff"), "required", False)
    name = f"{measure.NAME}@10" if cutoff else measure.NAME
    code = (
        "import ir_measures\n"
        f"from ir_measures_graded import {measure.NAME}\n"
        "from ir_measures_graded.sample import graded_sample\n\n"
        "qrels, runs = graded_sample()\n"
        f"print(round(ir_measures.calc_aggregate([{name}], qrels, runs['strong'])[{name}], 4))\n"
    )
    return f"```python\n{code}{outputs(code)}```\n"


def outputs(code: str) -> str:
    """What ``code`` prints, as the ``# -> `` lines the docs tests compare."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "<docs example>", "exec"), {})
    return "".join(f"# -> {line}\n" for line in printed.getvalue().splitlines())


def measures_page() -> str:
    import ir_measures_graded  # noqa: F401 - registers the measures
    from ir_measures_graded.measures import MEASURES
    from ir_measures_graded.measures.base import ALL_NAME

    out = [
        "# Measures",
        "",
        "<!-- generated by docs/hooks.py from ir_measures_graded.measures.MEASURES: edit the measures, not this page -->",
        "",
        "This page is generated from the measure registry when the site is built: every measure, its",
        "names, its definition and citation (the measure's docstring), its parameters (the `Param`",
        "objects of `measures/params.py`) and an example whose output was printed by that build.",
        "See [Definitions and conventions](definitions.md) for the formulas in detail and the",
        "conventions shared with trec_eval.",
        "",
        f"`{ALL_NAME}` (on the command line, in the meta-evaluation's measure lists,",
        "`ir_measures_graded.measures.base.all_measures()`) stands for every measure below at its defaults,",
        "in this order (a measure that needs a cutoff at `@10`), as trec_eval's `-m all_trec`.",
        "",
        "| measure | aliases | what | on binary labels |",
        "| --- | --- | --- | --- |",
    ]
    for name, measure in MEASURES.items():
        equal, note = ON_BINARY.get(name, (None, "?"))
        binary = f"= `{equal}`" if equal else "—"
        out.append(f"| [`{name}`](#{anchor(name)}) | {', '.join(f'`{a}`' for a in aliases(measure)) or '—'} | "
                   f"{measure.SHORT_DESC} | {binary} |")
    for name, measure in MEASURES.items():
        body, citation = docstring_parts(measure)
        equal, note = ON_BINARY.get(name, (None, "not documented"))
        binary = f"equal to `{equal}` per query{' ' + note if note else ''}" if equal else note
        out += [
            "",
            f"## {name}",
            "",
            f"**{measure.PRETTY_NAME}.** {measure.SHORT_DESC}",
            "",
            f"- **Aliases:** {', '.join(f'`{a}`' for a in aliases(measure)) or 'none'}",
            f"- **On binary labels:** {binary}.",
            f"- **Citation:** {citation}",
            "",
            "### Definition",
            "",
            as_markdown(body),
            "",
            "### Parameters",
            "",
            "| parameter | what | accepted values | default |",
            "| --- | --- | --- | --- |",
        ]
        for pname, param in measure.SUPPORTED_PARAMS.items():
            shown = f"`{pname}` (`@k`)" if pname == getattr(measure, "AT_PARAM", None) else f"`{pname}`"
            out.append(f"| {shown} | {cell(param.desc)} | {cell(param.accepts)} | {show_default(param)} |")
        out += ["", "### Example", "", measure_example(measure).rstrip("\n")]
    return "\n".join(out) + "\n"


def anchor(name: str) -> str:
    return re.sub(r"[^a-z0-9_-]", "", name.lower())


def cell(text: str) -> str:
    """Text for a markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|").replace("*", "\\*")


# --- command line -------------------------------------------------------------------------------------------

def parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """(command, parser) for the command line and each of its subcommands.

    Subcommands are the top-level parser's ``_SubParsersAction`` choices; while the command line
    has no subparsers, ``compare`` and ``report`` have parsers of their own (``cli/compare.py``,
    ``cli/report.py``), which are documented instead.
    """
    from ir_measures_graded.cli.args import PROG, build_parser

    top = build_parser()
    found = [(PROG, top)]
    subparsers = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    for action in subparsers:
        seen: set[int] = set()
        for name, sub in action.choices.items():
            if id(sub) not in seen:  # an alias maps to the same parser
                seen.add(id(sub))
                found.append((f"{PROG} {name}", sub))
    if not subparsers:
        for name in ("compare", "report"):
            try:
                module = importlib.import_module(f"ir_measures_graded.cli.{name}")
            except ImportError:
                continue
            if hasattr(module, "build_parser"):
                found.append((f"{PROG} {name}", module.build_parser()))
    return found


@contextlib.contextmanager
def _columns(width: int) -> Any:
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def help_text(action: argparse.Action, parser: argparse.ArgumentParser) -> str:
    if not action.help:
        return ""
    try:  # argparse's own expansion of %(default)s, %(choices)s, ...
        return action.help % {**vars(action), "prog": parser.prog}
    except (KeyError, TypeError, ValueError):
        return action.help


def action_name(action: argparse.Action) -> str:
    if action.option_strings:
        metavar = "" if action.nargs == 0 else f" {action.metavar or action.dest.upper()}"
        return ", ".join(f"`{o}{metavar}`" for o in action.option_strings)
    return f"`{action.metavar or action.dest}`"


def action_values(action: argparse.Action) -> str:
    parts = []
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        parts.append(" \\| ".join(f"`{c}`" for c in action.choices))
    if action.nargs in ("+", "*"):
        parts.append("one or more" if action.nargs == "+" else "any number")
    elif action.nargs == 0:
        parts.append("flag")
    if isinstance(action, argparse._AppendAction):
        parts.append("repeatable")
    default = action.default
    if default not in (None, False, argparse.SUPPRESS, []) and action.nargs != 0:
        parts.append(f"default `{default}`")
    return "; ".join(parts)


def cli_page() -> str:
    out = [
        "# Command-line options",
        "",
        "<!-- generated by docs/hooks.py from the argparse parsers: edit the command line, not this page -->",
        "",
        "This page is generated from the command line's parsers when the site is built; see",
        "[The command line](command-line.md) for what the commands do, with examples.",
    ]
    for command, parser in parsers():
        out += ["", f"## `{command}`", ""]
        with _columns(100):  # argparse wraps the usage to the terminal's width
            usage = parser.format_usage().replace("usage: ", "", 1).strip()
        out += ["```text", usage, "```", ""]
        if parser.description:
            out += [cell(parser.description), ""]
        for group in parser._action_groups:
            actions = [a for a in group._group_actions
                       if a.help != argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)]
            if not actions:
                continue
            title = {"positional arguments": "Arguments", "options": "Options",
                     "optional arguments": "Options"}.get(group.title or "", group.title or "")
            out += [f"**{cell(title)}**", "", "| argument | what | values |", "| --- | --- | --- |"]
            for action in actions:
                if isinstance(action, argparse._SubParsersAction):
                    what = "subcommand: " + ", ".join(f"`{c}`" for c in action.choices)
                else:
                    what = cell(help_text(action, parser))
                out.append(f"| {action_name(action)} | {what} | {action_values(action)} |")
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# --- architecture -------------------------------------------------------------------------------------------

def contracts_section() -> str:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    root = config["root_package"]
    out = [f"<!-- generated by docs/hooks.py from [tool.importlinter] in pyproject.toml -->", ""]
    for contract in config["contracts"]:
        out += [f"**{contract['name']}** ({contract['type']})", ""]
        if contract["type"] == "layers":
            out += ["| layer (top imports bottom, never the reverse) | modules of `" + root + "` |", "| --- | --- |"]
            for i, layer in enumerate(contract["layers"], 1):
                modules = [m.strip() for m in layer.split(":")]
                out.append(f"| {i} | {', '.join(f'`{m}`' for m in modules)} |")
        else:
            out.append(f"- from: {', '.join(f'`{m}`' for m in contract['source_modules'])}")
            out.append(f"- never imports: {', '.join(f'`{m}`' for m in contract['forbidden_modules'])}")
        out.append("")
    return "\n".join(out)
