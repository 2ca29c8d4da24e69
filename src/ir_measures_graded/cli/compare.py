"""``ir-measures-graded compare``: the meta-evaluation tables for your qrels and runs.

    ir-measures-graded compare QRELS RUN RUN [RUN ...] -m MEASURE [MEASURE ...]
        [--transform scale:2 --transform merge:3,4 ...] [-o text|markdown|latex|tsv] [--plot out.png]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from ir_measures_graded.cli.args import UsageError, parse_measures
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.meta.transforms import SYNTAX

FORMATS = ("text", "markdown", "latex", "tsv")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ir-measures-graded compare",
        description="Does a measure depend on the rating scale, is it stable, is it discriminative? "
        "Evaluates every run with every measure on the original labels and on transformed ones, "
        "on random halves of the queries, and with paired tests between every pair of runs.",
        epilog="example:\n  ir-measures-graded compare qrels.txt runs/*.run -m muMAP nDCNG@10 nDCG@10 "
        "--transform scale:2 --transform merge:3,4 --plot meta.png",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", help="TREC qrels file (real-valued labels allowed) or an ir_datasets id")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="two or more TREC run files")
    parser.add_argument("-m", "--measures", nargs="+", required=True, metavar="MEASURE",
                        help="measures, e.g. muMAP nDCNG@10 nDCG@10 AP")
    parser.add_argument("--transform", action="append", metavar="T",
                        help=f"label transform, repeatable ({SYNTAX}); default: scale:2, shift:1, "
                        "merge of the two highest labels, real")
    parser.add_argument("--samples", type=int, default=200, help="random query halves for stability (default 200)")
    parser.add_argument("--test", choices=("randomization", "t"), default="randomization",
                        help="paired test for discriminative power (default randomization)")
    parser.add_argument("--permutations", type=int, default=10_000,
                        help="sign vectors of the randomization test (exact enumeration when 2^queries is "
                        "not more; default 10000)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random splits and permutations")
    parser.add_argument("-o", "--output_format", choices=FORMATS, default="text")
    parser.add_argument("-p", "--places", type=int, default=4, help="decimal places (default 4)")
    parser.add_argument("--plot", metavar="FILE", help="draw the report into FILE (.png, .svg, .pdf)")
    return parser


def run_names(paths: Sequence[str]) -> list[str]:
    """Short, distinct names for run files: the file name without its extension where that is unique."""
    stems = [Path(p).name.split(".")[0] or p for p in paths]
    return [s if stems.count(s) == 1 else p for s, p in zip(stems, paths, strict=True)]


def same_file(a: str, b: str) -> bool:
    """Do two run arguments name one file (also through another spelling or a link)?"""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a == b


def main(argv: Sequence[str], out: TextIO | None = None) -> int:
    """``compare`` subcommand; returns the exit status (2 with one line on stderr for bad input)."""
    from ir_measures_graded.cli import fail

    out = sys.stdout if out is None else out
    args = build_parser().parse_args(list(argv))
    try:
        return run(args, out)
    except (GradedInputError, ValueError, UsageError) as ex:
        return fail(str(ex))


def run(args: argparse.Namespace, out: TextIO) -> int:
    from ir_measures_graded import meta
    from ir_measures_graded.cli.writers import write_report_table
    from ir_measures_graded.engines.local import load_qrels
    from ir_measures_graded.io.readers import read_run, to_pandas

    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs")
    for i, path in enumerate(args.runs):
        again = next((other for other in args.runs[:i] if same_file(path, other)), None)
        if again is not None:
            raise UsageError(f"run {path} is given twice{'' if again == path else f' (as {again})'}: "
                             "compare needs different runs")
    if args.samples < 1 or args.permutations < 1 or not 0 < args.alpha < 1:
        raise UsageError("--samples and --permutations must be positive and --alpha between 0 and 1")
    measures = [m for text in args.measures for m in parse_measures(text)]
    qrels = load_qrels(args.qrels)
    if hasattr(qrels, "to_pandas"):  # an Arrow table from our reader: the meta-evaluation mixes in pytrec_eval
        qrels = to_pandas(qrels)
    runs = dict(zip(run_names(args.runs), (read_run(p) for p in args.runs), strict=True))
    report = meta.meta_evaluate(qrels, runs, measures, transforms=args.transform, samples=args.samples,
                                alpha=args.alpha, test=args.test, permutations=args.permutations, seed=args.seed)
    sections = {
        "Mean per run": report.scores.reset_index(),
        "Scale dependence: ranking of the runs on original vs transformed labels": report.scale,
        "Stability: Kendall tau between rankings on random halves of the queries": report.stability,
        f"Discriminative power: share of run pairs significant at alpha={args.alpha:g} ({args.test} test)": report.power,
        "Run pairs (the ASL curve: asl_rank 1 = smallest p-value)": report.pairs,
    }
    for title, table in sections.items():
        write_report_table(title, table, args.output_format, args.places, out)
    if args.plot:
        from ir_measures_graded.meta.plots import report_figure

        report_figure(report).savefig(args.plot, dpi=120)
    return 0
