"""``ir-measures-graded report``: the evaluation report of an experiment as one HTML page.

    ir-measures-graded report QRELS RUN [RUN ...] -m MEASURE [MEASURE ...] --html report.html
        [--baseline RUN] [-o tsv|csv|jsonl] [-p PLACES] [--test t|randomization] [--correction holm|...]
        [--transform T ...] [--no-scale] [--by-level MEASURE ...]

The page goes to ``--html``; standard output gets the comparison table (``-o`` is the output format,
as in the ``ir_measures`` command): a row per run and measure with the value, the delta to the
baseline and its interval, the p-values and the win/tie/loss counts.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from collections.abc import Sequence
from typing import TextIO

from ir_measures_graded.cli.args import UsageError, parse_measures
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.meta.statistics import CORRECTIONS, PAIRED_TESTS
from ir_measures_graded.meta.transforms import SYNTAX

PROG = "ir-measures-graded report"
FORMATS = ("tsv", "csv", "jsonl")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Evaluate runs and write one self-contained HTML page: the summary table with deltas to the "
        "baseline, intervals, corrected significance and win/tie/loss (sortable), MAP and P@k per relevance "
        "threshold, per-query differences with the worst queries, and the scale-dependence check. Standard "
        "output gets the comparison table.",
        epilog="example:\n  ir-measures-graded report qrels.txt runs/*.txt -m muMAP nDCNG@10 nDCG@10 GAP "
        "--baseline bm25 --html report.html",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", help="TREC qrels file (plain or .gz, Parquet, Arrow IPC; real-valued labels allowed)")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (named by file name up to the first dot)")
    parser.add_argument("-m", "--measures", nargs="+", required=True, metavar="MEASURE",
                        help="measures, e.g. muMAP nDCNG@10 nDCG@10 GAP")
    parser.add_argument("--html", required=True, metavar="FILE", help="where to write the page")
    parser.add_argument("--baseline", metavar="RUN", help="the run the others are compared with (name, path or "
                        "file name; default: the first)")
    parser.add_argument("-o", "--output_format", choices=FORMATS, default="tsv",
                        help="format of the comparison table on standard output (default tsv)")
    parser.add_argument("-p", "--places", type=int, default=4, help="decimal places on standard output (default 4)")
    parser.add_argument("--test", choices=PAIRED_TESTS, default="t",
                        help="paired test against the baseline (default t, as PyTerrier)")
    parser.add_argument("--correction", choices=CORRECTIONS, default="holm",
                        help="multiple-testing correction across the runs (default holm)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="significance level; the intervals are at 1 - alpha (default 0.05)")
    parser.add_argument("--permutations", type=int, default=10_000, help="sign vectors of the randomization test")
    parser.add_argument("--seed", type=int, default=0, help="seed of the randomization test (default 0)")
    parser.add_argument("--transform", action="append", metavar="T",
                        help=f"label transform of the scale check, repeatable ({SYNTAX}); default: scale:2, "
                        "shift:1, merge of the two highest labels, real")
    parser.add_argument("--no-scale", action="store_true", help="leave out the scale check")
    parser.add_argument("--by-level", nargs="+", metavar="MEASURE",
                        help="measures shown per relevance threshold (muMAP, muP@k); default: those given, with "
                        "muMAP and muP@10 added")
    parser.add_argument("--title", help="the page's title")
    return parser


def main(argv: Sequence[str], out: TextIO | None = None) -> int:
    """``report`` subcommand; returns the exit status (2 with one line on stderr for bad input)."""
    from ir_measures_graded.cli import fail

    out = sys.stdout if out is None else out
    args = build_parser().parse_args(list(argv))
    try:
        return run(args, out, " ".join(shlex.quote(a) for a in ["ir-measures-graded", "report", *argv]))
    except (GradedInputError, ValueError, OSError, UsageError) as ex:
        return fail(str(ex))


def run(args: argparse.Namespace, out: TextIO, command: str) -> int:
    import os

    from ir_measures_graded.report import report as make_report

    for path in [args.qrels, *args.runs]:
        if os.path.isdir(path):
            raise UsageError(f"{path} is a directory, not a file")
        if not os.path.exists(path):
            raise UsageError(f"file not found: {path}")
    if args.no_scale and args.transform:
        raise UsageError("--no-scale and --transform contradict each other")
    measures = [m for text in args.measures for m in parse_measures(text)]
    by_level = None if args.by_level is None else [m for text in args.by_level for m in parse_measures(text)]
    report = make_report(
        args.qrels, args.runs, measures, baseline=args.baseline, test=args.test, correction=args.correction,
        alpha=args.alpha, transforms=[] if args.no_scale else args.transform, thresholds=by_level,
        permutations=args.permutations, seed=args.seed, title=args.title, command=command,
    )
    report.save(args.html)
    write_comparison(report, args.output_format, args.places, out)
    return 0


COLUMNS = ["run", "measure", "value", "delta", "ci_low", "ci_high", "boot_low", "boot_high", "effect_size", "wins",
           "ties", "losses", "p_value", "p_adjusted"]


def write_comparison(report: object, output_format: str, places: int, out: TextIO) -> None:
    """The comparison table (:func:`meta.compare_runs`; ``value`` is calc_aggregate's)."""
    import pandas as pd

    table = report.comparison[COLUMNS]
    if output_format == "jsonl":
        for rec in table.to_dict("records"):
            out.write(json.dumps({k: None if pd.isna(v) else v for k, v in rec.items()}) + "\n")
        return
    table = table.assign(**{c: table[c].map(lambda p: "" if math.isnan(p) else f"{p:.3g}")
                            for c in ("p_value", "p_adjusted")})
    table.to_csv(out, sep="," if output_format == "csv" else "\t", index=False, float_format=f"%.{places}f",
                 na_rep="", lineterminator="\n")
