"""The command line's arguments: the parser, run files then measures, and what the options allow."""

from __future__ import annotations

import argparse
import os
import re
import sys

import ir_measures

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures import MEASURES, GradedMeasure, base
from ir_measures_graded.measures.thresholded import ThresholdedMeasure

PROG = "ir-measures-graded"
FORMATS = ("tsv", "jsonl", "trec", "csv")
STDIN = "-"
#: Names of the standard input, which can be read once.
STANDARD_INPUT = frozenset({STDIN, "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
DEFAULT_PLACES = 4
USAGE_ORDER = "the arguments are QRELS RUN [RUN ...] MEASURE [MEASURE ...]"
#: meta.statistics.PAIRED_TESTS, written out so that --help does not load meta (a test keeps them equal).
COMPARE_TESTS = ("t", "randomization", "bootstrap", "wilcoxon", "sign")


class UsageError(Exception):
    """A problem with what the user asked for: printed as one line, exit status 2."""


class _Version(argparse.Action):
    """``--version``: ours and ir_measures'."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from ir_measures_graded._version import __version__

        sys.stdout.write(f"{parser.prog} {__version__} (ir_measures {ir_measures.__version__})\n")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Evaluate TREC run files with µMAP, NDCNG and every ir_measures measure. "
        f"'{PROG} demo' (or no arguments) evaluates the bundled sample data.",
        epilog="measures of this package (besides every ir_measures measure, e.g. AP, nDCG@10, P@5):\n"
        f"{measures_help()}\n\n"
        "examples:\n"
        f"  {PROG} qrels.txt run.txt muMAP nDCNG@10 AP nDCG@10\n"
        f"  {PROG} qrels.txt run.txt 'muMAP nDCNG@10' -q\n"
        f"  {PROG} qrels.txt runs/*.txt muMAP nDCNG@10 MAP\n"
        f"  {PROG} qrels.txt run.txt muMAP --thresholds\n"
        f"  zcat run.gz | {PROG} qrels.txt - muMAP\n"
        f"  {PROG} ohsumed run.txt muMAP",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", help="TREC qrels file (plain or .gz; real-valued labels allowed) or an ir_datasets id")
    parser.add_argument("inputs", nargs="+", metavar="RUN_OR_MEASURE",
                        help="one or more TREC run files ('-' reads standard input), then one or more "
                        "measures (e.g. muMAP 'nDCNG@10 AP')")
    parser.add_argument("--places", "-p", type=int, default=None,
                        help=f"decimal places (default {DEFAULT_PLACES}; -1: all digits; with -o jsonl, "
                        "values are rounded only when given)")
    parser.add_argument("--by_query", "-q", action="store_true",
                        help="per-query values (in the order ir_measures prints them), then the summary ('all')")
    parser.add_argument("--no_summary", "-n", action="store_true", help="with -q: omit the summary lines")
    parser.add_argument("--output_format", "-o", choices=FORMATS, default="tsv",
                        help="tsv (as ir_measures; a table for several runs), jsonl, trec (trec_eval's "
                        "'measure qid value', run tag from the run file), csv (a table: a row per run)")
    parser.add_argument("--provider", choices=sorted(ir_measures.providers.registry),
                        help="compute every measure with this ir_measures provider")
    parser.add_argument("--thresholds", action="store_true",
                        help="also print, for each muMAP / muP@k asked for, MAP (P@k) at every relevance "
                        "level of the qrels with its weight")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (shown on stderr when it is a terminal)")
    columns = parser.add_argument_group("Parquet / Arrow IPC inputs (default columns query_id, doc_id, score, "
                                        "relevance)")
    columns.add_argument("--query-column", metavar="NAME", help="column holding the query id")
    columns.add_argument("--doc-column", metavar="NAME", help="column holding the doc id")
    columns.add_argument("--score-column", metavar="NAME", help="column holding the run's score")
    columns.add_argument("--relevance-column", metavar="NAME", help="column holding the qrels' label")
    parser.add_argument("--compare", metavar="BASELINE",
                        help="after the results: every other run against this one (path, file name or run tag) "
                        "per measure: mean, delta, paired p-value and the p-value corrected for multiple runs")
    parser.add_argument("--test", choices=COMPARE_TESTS, default="t",
                        help="with --compare: paired t-test (default, as PyTerrier), randomization, bootstrap "
                        "(Sakai's), wilcoxon (signed-rank) or sign test")
    parser.add_argument("--alternative", choices=("two-sided", "greater", "less"), default="two-sided",
                        help="with --compare: two-sided (default) or one-sided, greater = the run beats the baseline")
    parser.add_argument("--correction", choices=("holm", "bonferroni", "fdr_bh", "none"), default="holm",
                        help="with --compare: multiple-testing correction (default holm) across the runs of "
                        "each measure, or across runs x measures with --family all")
    parser.add_argument("--family", choices=("runs", "all"), default="runs",
                        help="with --compare: the family of the correction, the runs of each measure (default) "
                        "or all runs x measures")
    parser.add_argument("--version", action=_Version, nargs=0, help="show the versions and exit")
    parser.add_argument("--engine", choices=("local", "spark"), default="local",
                        help="local (this process) or spark (inputs read and evaluated by Spark; TREC text or "
                        "Parquet files; needs the 'spark' extra and Java)")
    parser.add_argument("--master", help="with --engine spark: the Spark master URL (default local[*])")
    return parser


def measures_help() -> str:
    """One line per measure of this package: name, aliases and what it is."""
    aliases: dict[str, list[str]] = {}
    graded = {}
    for name, measure in ir_measures.measures.registry.items():
        if isinstance(measure, GradedMeasure):
            graded.setdefault(measure.NAME, measure)
            if name != measure.NAME:
                aliases.setdefault(measure.NAME, []).append(name)
    lines = []
    for name, measure in graded.items():
        cutoff = measure.SUPPORTED_PARAMS.get("cutoff")
        shown = name + ("@k" if cutoff is not None and cutoff.required else "")
        also = f" ({', '.join(aliases[name])})" if name in aliases else ""
        lines.append(f"  {shown + also:<26} {measure.SHORT_DESC}")
    return "\n".join(lines)



# --- arguments ------------------------------------------------------------------------------------

def is_run_input(item: str) -> bool:
    """``-`` or an existing path that is not a directory (regular file, pipe, ``/dev/stdin``, ...)."""
    return item == STDIN or (os.path.exists(item) and not os.path.isdir(item))


def looks_like_path(item: str) -> bool:
    return bool(re.search(r"[/\\]|\.[A-Za-z][\w-]*$", item))


def split_inputs(inputs: list[str]) -> tuple[list[str], list[ir_measures.Measure]]:
    """Run files first, then measures; every mistake in that order gets its own message."""
    runs: list[str] = []
    measures: list[ir_measures.Measure] = []
    for item in inputs:
        if not measures and is_run_input(item):
            if item == STDIN and STDIN in runs:
                raise UsageError("standard input ('-') can be only one of the runs")
            runs.append(item)
            continue
        if os.path.isdir(item):
            raise UsageError(f"run {item} is a directory, not a file")
        try:
            parsed = parse_measures(item)
        except UsageError:
            if measures and is_run_input(item):
                raise UsageError(f"run file {item} comes after the measures; {USAGE_ORDER}") from None
            if not measures and (not runs or looks_like_path(item)):
                raise UsageError(f"run file not found: {item}") from None
            raise
        if not runs:
            raise UsageError(f"{item!r} is a measure, but no run file comes before it; {USAGE_ORDER}")
        measures.extend(m for m in parsed if m not in measures)
    if not measures:
        raise UsageError(f"no measure given after the run file(s) (e.g. muMAP nDCNG@10 AP); {USAGE_ORDER}")
    return runs, measures


def measure_texts(text: str) -> list[str]:
    """The measures of one argument: split on whitespace outside parentheses, brackets and quotes, so
    that ``'muMAP nDCNG@10'`` is two and ``"muAP(levels='collection', weights='uniform')"`` one."""
    parts, current, depth, quote = [], [], 0, ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char.isspace() and depth <= 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [part for part in parts if part]


def parse_measures(text: str) -> list[ir_measures.Measure]:
    """The measures of one command-line argument (see :func:`measure_texts`)."""
    texts = measure_texts(text)
    try:
        return base.parse_measures(texts) if texts else []
    except GradedInputError as ex:
        raise UsageError(str(ex)) from None


def check_options(args: argparse.Namespace, measures: list[ir_measures.Measure]) -> None:
    if args.no_summary and not args.by_query:
        raise UsageError("--no_summary (-n) only goes with --by_query (-q)")
    if args.places is not None and args.places < -1:
        raise UsageError(f"--places (-p) must be -1 (all digits) or at least 0, got {args.places}")
    runs = split_inputs(args.inputs)[0]
    if args.qrels in STANDARD_INPUT and any(run in STANDARD_INPUT for run in runs):
        raise UsageError(f"standard input can be read once: {args.qrels!r} is the qrels, so no run can be "
                         f"{next(run for run in runs if run in STANDARD_INPUT)!r}; give the run as a file")
    if args.compare is not None and len(runs) < 2:
        raise UsageError("--compare needs at least two runs: the baseline and one to compare with it")
    if args.thresholds and not broken_down(measures):
        raise UsageError(f"--thresholds breaks down a measure over relevance thresholds ({thresholded_names()}): "
                         "add one of them to the measures")


def broken_down(measures: list[ir_measures.Measure]) -> list[ThresholdedMeasure]:
    """The measures --thresholds breaks down: every measure combined over relevance thresholds."""
    return [m for m in measures if isinstance(m, ThresholdedMeasure)]


def thresholded_names() -> str:
    """The registered measures --thresholds breaks down, for messages: ``muAP, muP``."""
    return ", ".join(name for name, m in MEASURES.items() if isinstance(m, ThresholdedMeasure))


# --- evaluation -----------------------------------------------------------------------------------

