"""The command line's arguments: the option groups every subcommand shares, run files then measures, what the
options allow, and what they mean to the library (the experiment, the testing options, the places).
The whole parser is built by :mod:`.parser`."""

from __future__ import annotations

import argparse
import os
import re
from typing import Any

import ir_measures

from ir_measures_graded.cli.output import PROG
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments.formats import FORMATS
from ir_measures_graded.files import STANDARD_INPUT
from ir_measures_graded.measures import GradedMeasure

STDIN = "-"
DEFAULT_PLACES = 4
USAGE_ORDER = "the arguments are QRELS RUN [RUN ...] MEASURE [MEASURE ...]"
#: statistics.PAIRED_TESTS, written out so that --help does not load scipy (a test keeps them equal).
COMPARE_TESTS = ("t", "randomization", "bootstrap", "wilcoxon", "sign")


class UsageError(Exception):
    """A problem with what the user asked for: printed as one line, exit status 2."""


#: Every subcommand, in the order ``-h`` lists them; the first is the default (no subcommand named).
SUBCOMMANDS = {
    "evaluate": "evaluate runs with measures, as trec_eval / ir_measures (the default: no subcommand named)",
    "judge": "judge the measures on your runs: scale dependence, stability, discriminative power, topic-set size",
    "report": "one self-contained HTML page of the experiment, and the comparison table on standard output",
    "leaderboard": "the organiser's view: leaderboard with significance groups, agreement, pool reusability",
    "agree": "two judges side by side: label agreement (kappa, alpha), leaderboards and which measures hold",
    "pool": "build the pool to judge from runs: depth-k, RBP, RRF, move-to-front or a bandit, under a budget",
    "simulate": "pool simulation on existing qrels: per strategy and budget, relevant documents found and leaderboard "
                "fidelity",
    "demo": "evaluate the bundled sample data (also: no arguments)",
}
#: statistics.PAIRED_TESTS etc., written out so that --help does not load scipy (a test keeps them equal).
CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "none")
ALTERNATIVES = ("two-sided", "greater", "less")
PAIRS_TESTS = ("randomization", "bootstrap", "t", "wilcoxon", "sign", "tukey", "randomized_tukey")
SECTIONS = ("means", "scale", "stability", "power", "pairs", "baseline", "details", "sizes")


def add_inputs(parser: argparse.ArgumentParser, judges: int = 1) -> None:
    """QRELS (``judges`` of them: two for ``agree``), the runs and the measures (positional, or -m), the names of
    the runs, the columns."""
    parser.add_argument("qrels", help="qrels: TREC file (plain or .gz; real-valued labels allowed), Parquet, "
                        "Arrow IPC, '-' or an ir_datasets id" + (" (judge A's)" if judges == 2 else ""))
    if judges == 2:
        parser.add_argument("qrels_b", metavar="QRELS_B", help="judge B's qrels, read as QRELS")
    parser.add_argument("inputs", nargs="+", metavar="RUN_OR_MEASURE",
                        help="run files ('-' reads standard input), then measures (e.g. muMAP 'nDCNG@10 AP', "
                        "trec_eval's map ndcg_cut.10); with -m, runs only")
    parser.add_argument("-m", "--measures", nargs="+", metavar="MEASURE", help="the measures (instead of after the runs)")
    parser.add_argument("--names", nargs="+", metavar="NAME",
                        help="the runs' names, one per run (default: the file name, with parent folders where two "
                        "are equal)")
    columns = parser.add_argument_group("Parquet / Arrow IPC inputs (default columns query_id, doc_id, score, relevance)")
    columns.add_argument("--query-column", metavar="NAME", help="column holding the query id")
    columns.add_argument("--doc-column", metavar="NAME", help="column holding the doc id")
    columns.add_argument("--score-column", metavar="NAME", help="column holding the run's score")
    columns.add_argument("--relevance-column", metavar="NAME", help="column holding the qrels' label")
    parser.add_argument("-M", "--depth", type=int, metavar="N",
                        help="only the top N documents of each query of a run count, for every measure (trec_eval's "
                        "-M: ranked by score, ties by doc id, both descending; default: every document)")
    engine = parser.add_argument_group("engine")
    engine.add_argument("--engine", choices=("local", "spark"), default="local",
                        help="local (this process) or spark (TREC text or Parquet files; the 'spark' extra and Java)")
    engine.add_argument("--master", help="with --engine spark: the Spark master URL (default local[*])")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (shown on stderr when it is a terminal)")


def add_comparison(parser: argparse.ArgumentParser) -> None:
    """The comparison against a baseline, the same options in every subcommand."""
    group = parser.add_argument_group("comparison against a baseline")
    group.add_argument("--baseline", metavar="RUN",
                       help="every other run against this one (name, path, file name, run tag or position from 0; "
                       "judge and report: default the first) per measure: value, delta, intervals, paired p-value "
                       "and the p-value corrected for multiple runs")
    group.add_argument("--test", choices=COMPARE_TESTS, default="t",
                       help="the paired test against the baseline: t (default, as PyTerrier), randomization, "
                       "bootstrap (Sakai's), wilcoxon (signed-rank) or sign")
    group.add_argument("--alternative", choices=ALTERNATIVES, default="two-sided",
                       help="two-sided (default) or one-sided, greater = the run beats the baseline")
    group.add_argument("--correction", choices=CORRECTIONS, default="holm",
                       help="multiple-testing correction (default holm) across the runs of each measure, or across "
                       "runs x measures with --family all")
    group.add_argument("--family", choices=("runs", "all"), default="runs",
                       help="the family of the correction: the runs of each measure (default) or all runs x measures")
    group.add_argument("--alpha", type=float, default=0.05,
                       help="significance level (default 0.05): the marks † p < alpha and ‡ p < alpha/5, the "
                       "report's ▲/▼, and the intervals at 1 - alpha")
    group.add_argument("--permutations", type=int, default=10_000,
                       help="draws of the resampling tests and of the bootstrap interval (exact enumeration when "
                       "there are not more; default 10000)")
    group.add_argument("--seed", type=int, default=0, help="seed of the resampling (default 0)")


def add_pairs_testing(group: Any) -> None:
    """The all-pairs test of a leaderboard's groups (``leaderboard``, ``agree``): every pair, both ways."""
    group.add_argument("--test", choices=PAIRS_TESTS, default="randomized_tukey",
                       help="the all-pairs test of the groups: randomized_tukey (default), tukey (blocked by query) "
                       "or a paired test of every pair with --correction")
    group.add_argument("--correction", choices=CORRECTIONS, default="holm",
                       help="with a paired --test: the correction across the pairs of a measure (default holm)")
    group.add_argument("--alpha", type=float, default=0.05, help="significance level of every pair (default 0.05)")
    group.add_argument("--permutations", type=int, default=10_000,
                       help="draws of the randomised tests (default 10000)")
    group.add_argument("--seed", type=int, default=0, help="seed of the randomised tests (default 0)")


def add_output(parser: argparse.ArgumentParser, default: str) -> None:
    group = parser.add_argument_group("output")
    group.add_argument("--output_format", "--output-format", "-o", choices=list(FORMATS), default=default,
                       help=f"tsv, csv, jsonl (one tidy table per stream, numbers as numbers), trec (trec_eval's "
                       f"lines; evaluate only), text, markdown, latex (default {default})")
    group.add_argument("--output-dir", metavar="DIR", help="write each table to its own file in DIR (results, "
                       "thresholds, comparison, or the sections: e.g. DIR/comparison.tsv) instead of standard "
                       "output; made when missing, each file written whole, never over an input")
    group.add_argument("--places", "-p", type=int, default=None,
                       help=f"decimal places (default {DEFAULT_PLACES}; -1: all digits; with -o jsonl, values are "
                       "rounded only when given)")


def evaluate_epilog() -> str:
    return ("measures of this package (besides every ir_measures measure, e.g. AP, nDCG@10, P@5, and trec_eval's "
            f"names, e.g. map, ndcg_cut.10):\n{measures_help()}\n\n"
            "examples:\n"
            f"  {PROG} qrels.txt run.txt muMAP nDCNG@10 AP nDCG@10\n"
            f"  {PROG} qrels.txt run.txt 'muMAP nDCNG@10' -q\n"
            f"  {PROG} qrels.txt runs/*.txt -m muMAP nDCNG@10 map --baseline bm25.txt\n"
            f"  {PROG} qrels.txt run.txt muMAP --thresholds -o text\n"
            f"  zcat run.gz | {PROG} qrels.txt - muMAP\n"
            f"  {PROG} ohsumed run.txt muMAP")


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


Named = tuple  # (measure, label): a measure with the name it was given by


def split_inputs(inputs: list[str]) -> tuple[list[str], list[Named]]:
    """Run files first, then measures (each with its label); every mistake in that order gets its own message."""
    runs: list[str] = []
    measures: list[Named] = []
    for item in inputs:
        if not measures and is_run_input(item):
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
        measures.extend(pair for pair in parsed if pair[0] not in {m for m, _ in measures})
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


def parse_measures(text: str) -> list[Named]:
    """The measures of one command-line argument (see :func:`measure_texts`), each with its label."""
    from ir_measures_graded.experiments import measure_lists

    texts = measure_texts(text)
    try:
        return measure_lists.parse_named(texts) if texts else []
    except GradedInputError as ex:
        raise UsageError(str(ex)) from None


def inputs_of(args: argparse.Namespace) -> tuple[list[str], list[Named]]:
    """The runs and measures (with their labels) of any subcommand (measures after the runs, or with
    -m), checked alike."""
    if args.command == "pool":
        return pool_inputs(args), []
    if args.measures:
        runs = run_files(args.inputs)
        measures: list[Named] = []
        for text in args.measures:
            measures += [pair for pair in parse_measures(text) if pair[0] not in {m for m, _ in measures}]
    else:
        runs, measures = split_inputs(args.inputs)
    read_once(runs)
    if args.places is not None and args.places < -1:
        raise UsageError(f"--places (-p) must be -1 (all digits) or at least 0, got {args.places}")
    if args.output_format == "trec" and args.command != "evaluate":
        raise UsageError(f"-o trec writes trec_eval's result lines (the evaluate command); {args.command} writes "
                         "tables: tsv, csv, jsonl, text, markdown or latex")
    if getattr(args, "qrels_b", None) in STANDARD_INPUT and (args.qrels in STANDARD_INPUT or any(
            run in STANDARD_INPUT for run in runs)):
        raise UsageError(f"standard input can be read once: {args.qrels_b!r} is judge B's qrels, so neither judge A's "
                         "qrels nor a run can be read from it; give them as files")
    if args.qrels in STANDARD_INPUT and any(run in STANDARD_INPUT for run in runs):
        raise UsageError(f"standard input can be read once: {args.qrels!r} is the qrels, so no run can be "
                         f"{next(run for run in runs if run in STANDARD_INPUT)!r}; give the run as a file")
    if args.names is not None and len(args.names) != len(runs):
        raise UsageError(f"--names gives {len(args.names)} name(s) for {len(runs)} run(s): one name per run")
    testing_of(args)  # the testing options, checked (by Testing, their one validation) before reading anything
    if args.depth is not None:  # checked by the one check Reading makes, before reading anything
        from ir_measures_graded.prepare import check_depth

        try:
            check_depth(args.depth)
        except GradedInputError as ex:
            raise UsageError(str(ex)) from None
    if args.engine == "spark":
        from ir_measures_graded.lazy import require

        require("pyspark", "spark", "--engine spark")
    return runs, measures


def run_files(given: list[str]) -> list[str]:
    """The runs given (all of them run files: no measure among them), each an existing file or ``-``."""
    runs = list(given)
    for item in runs:
        if os.path.isdir(item):
            raise UsageError(f"run {item} is a directory, not a file")
        if not is_run_input(item):
            raise UsageError(f"run file not found: {item}")
    return runs


def pool_inputs(args: argparse.Namespace) -> list[str]:
    """The runs of ``pool`` (no qrels, no measures), checked as every subcommand's runs."""
    runs = run_files(args.inputs)
    read_once(runs)
    if args.qrels is not None and args.qrels in STANDARD_INPUT and any(run in STANDARD_INPUT for run in runs):
        raise UsageError(f"standard input can be read once: {args.qrels!r} is the judgments, so no run can be "
                         f"{next(run for run in runs if run in STANDARD_INPUT)!r}; give the run as a file")
    if args.names is not None and len(args.names) != len(runs):
        raise UsageError(f"--names gives {len(args.names)} name(s) for {len(runs)} run(s): one name per run")
    if args.names is not None and len(set(args.names)) != len(args.names):
        raise UsageError("--names: two runs share a name")
    return runs


def read_once(runs: list[str]) -> None:
    """Standard input can be only one of the runs, under any of its names (``- /dev/stdin`` too): a second
    would read nothing, and which one did was a race between the threads reading the runs."""
    named = [run for run in runs if run in STANDARD_INPUT]
    if len(named) > 1:
        if named[0] == named[1] == STDIN:
            raise UsageError("standard input ('-') can be only one of the runs")
        raise UsageError(f"standard input can be only one of the runs: {named[0]!r} and {named[1]!r} both name it")


def check_options(args: argparse.Namespace, runs: list[str], measures: list[Named]) -> None:
    """What the evaluate command's options allow together."""
    from ir_measures_graded.experiments.measure_lists import breakdown_names, broken_down

    measures = [m for m, _ in measures]
    if args.no_summary and not args.by_query:
        raise UsageError("--no_summary (-n) only goes with --by_query (-q)")
    if args.baseline is not None and len(runs) < 2:
        raise UsageError("--baseline needs at least two runs: the baseline and one to compare with it")
    if args.thresholds and not broken_down(measures):
        raise UsageError(f"--thresholds breaks down a measure over relevance thresholds ({breakdown_names()}): "
                         "add one of them to the measures")
    machine = FORMATS[args.output_format].machine
    if machine and not args.output_dir and args.baseline is not None and args.by_query:
        raise UsageError(f"-o {args.output_format} writes one table per stream: with --baseline, the comparison; "
                         "leave out -q, give --output-dir DIR for a file per table, or use -o text, markdown or latex")
    if machine and not args.output_dir and args.thresholds:
        raise UsageError(f"-o {args.output_format} writes one table per stream: --thresholds adds a second; give "
                         "--output-dir DIR for a file per table, or use -o trec, text, markdown or latex")


# --- the options as the library takes them: decided here, once, for every subcommand -----------------

def places_of(args: argparse.Namespace) -> int | None:
    """Decimal places of the values written: ``-p`` as given, else :data:`DEFAULT_PLACES`; JSON lines keep
    every digit unless ``-p`` is given (None)."""
    if args.places is not None:
        return args.places
    return None if args.output_format == "jsonl" else DEFAULT_PLACES


def testing_of(args: argparse.Namespace) -> Any:
    """The testing options (:class:`~ir_measures_graded.experiments.testing.Testing`) of any subcommand."""
    from ir_measures_graded.experiments.testing import Testing

    try:
        return Testing(test=args.test, correction=args.correction, alternative=args.alternative, family=args.family,
                       alpha=args.alpha, permutations=args.permutations, seed=args.seed)
    except GradedInputError as ex:
        raise UsageError(str(ex)) from None


def column_names(args: argparse.Namespace, value: str) -> dict[str, str]:
    """Column names of Parquet / Arrow inputs from the options; ``value``: 'relevance' or 'score'."""
    given = (("query_id", args.query_column), ("doc_id", args.doc_column),
             (value, args.relevance_column if value == "relevance" else args.score_column))
    return {k: v for k, v in given if v}


def experiment_of(args: argparse.Namespace, runs: list[str], measures: list[Named], per_query: bool = True,
                  keep: bool = True, provider: str | None = None) -> Any:
    """The experiment every subcommand evaluates, from its options (one place): the inputs read once,
    with their column options, the measures with their labels. ``per_query``: keep per-query values;
    ``keep``: and the inputs as read (the views that take them: the breakdown, the report, judging, the
    organiser's); else each run is streamed in bounded memory."""
    from ir_measures_graded import engines
    from ir_measures_graded.cli.output import warn
    from ir_measures_graded.experiments import experiment
    from ir_measures_graded.experiments.evaluation import Reading

    reading = Reading(column_names(args, "relevance"), column_names(args, "score"), progress=not args.quiet,
                      keep=keep, depth=args.depth)
    return experiment(args.qrels, runs, measures, baseline=args.baseline, names=args.names,
                      engine=engines.engine(args.engine, args.master), provider=provider, reading=reading,
                      per_query=per_query, warn=warn)
