"""``ir-measures-graded compare``: the meta-evaluation tables for your qrels and runs.

    ir-measures-graded compare QRELS RUN RUN [RUN ...] -m MEASURE [MEASURE ...]
        [--transform scale:2 --transform merge:3,4 ...] [--baseline RUN] [-o text|markdown|latex|tsv]
        [--plot out.png]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from ir_measures_graded.cli.args import UsageError, parse_measures
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.meta.statistics import ALTERNATIVES, CORRECTIONS, MULTI_TESTS, PAIRED_TESTS
from ir_measures_graded.meta.tables import FORMATS
from ir_measures_graded.meta.transforms import SYNTAX

ALL_PAIRS_TESTS = ("randomization", "bootstrap", "t", "wilcoxon", "sign", *MULTI_TESTS)


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
    parser.add_argument("--test", choices=ALL_PAIRS_TESTS, default="randomization",
                        help="test between every pair of runs for discriminative power (default randomization; "
                        "tukey and randomized_tukey are family-wise over the pairs)")
    parser.add_argument("--permutations", type=int, default=10_000,
                        help="sign vectors / resamples / permutations of the resampling tests and of the "
                        "bootstrap interval (exact enumeration when there are not more; default 10000)")
    parser.add_argument("--baseline", metavar="RUN",
                        help="the run the others are compared with (its path or file name; default the first)")
    parser.add_argument("--compare-test", choices=PAIRED_TESTS, default="t",
                        help="paired test against the baseline (default t)")
    parser.add_argument("--alternative", choices=ALTERNATIVES, default="two-sided",
                        help="against the baseline: two-sided (default) or one-sided, greater = the run is better")
    parser.add_argument("--correction", choices=CORRECTIONS, default="holm",
                        help="multiple-testing correction against the baseline (default holm)")
    parser.add_argument("--family", choices=("runs", "all"), default="runs",
                        help="correct across the runs of each measure (default) or across all runs x measures")
    parser.add_argument("--min-difference", type=float, default=0.05,
                        help="topic-set size: the smallest true difference to detect (default 0.05)")
    parser.add_argument("--power", type=float, default=0.8, help="topic-set size: the power wanted (default 0.8)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random splits and permutations")
    parser.add_argument("-o", "--output_format", choices=FORMATS, default="text")
    parser.add_argument("-p", "--places", type=int, default=4, help="decimal places (default 4)")
    parser.add_argument("--plot", metavar="FILE", help="draw the report into FILE (.png, .svg, .pdf): tau and tau_AP "
                        "per transform, ASL curves, stability, per-query differences against the baseline")
    return parser


def run_names(paths: Sequence[str]) -> list[str]:
    """The runs' names: their paths as given, as the main command's summary prints them."""
    return list(paths)


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
    from ir_measures_graded.engines.local import load_qrels
    from ir_measures_graded.io.readers import read_run, to_pandas
    from ir_measures_graded.meta import tables

    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs")
    for i, path in enumerate(args.runs):
        again = next((other for other in args.runs[:i] if same_file(path, other)), None)
        if again is not None:
            raise UsageError(f"run {path} is given twice{'' if again == path else f' (as {again})'}: "
                             "compare needs different runs")
    if args.samples < 1 or args.permutations < 1 or not 0 < args.alpha < 1 or not 0 < args.power < 1:
        raise UsageError("--samples and --permutations must be positive, --alpha and --power between 0 and 1")
    if not args.min_difference > 0:
        raise UsageError("--min-difference must be positive")
    measures = [m for text in args.measures for m in parse_measures(text)]
    qrels = load_qrels(args.qrels)
    if hasattr(qrels, "to_pandas"):  # an Arrow table from our reader: the meta-evaluation mixes in pytrec_eval
        qrels = to_pandas(qrels)
    names = run_names(args.runs)
    runs = dict(zip(names, (read_run(p) for p in args.runs), strict=True))
    report = meta.meta_evaluate(
        qrels, runs, measures, transforms=args.transform, samples=args.samples, alpha=args.alpha, test=args.test,
        permutations=args.permutations, seed=args.seed,
        baseline=names[0] if args.baseline is None else meta.find_run(names, args.baseline, option="--baseline"),
        compare_test=args.compare_test, correction=args.correction, alternative=args.alternative,
        family=args.family, min_difference=args.min_difference, power=args.power)
    baseline = report.comparison.attrs["baseline"]
    paper, legend = tables.paper_table(report.comparison, places=args.places)
    sections = [
        ("Mean per run", report.scores.reset_index(), ""),
        ("Scale dependence: ranking of the runs on original vs transformed labels", report.scale,
         "kendall_tau: Kendall's tau-b; tau_ap_b: AP correlation tau_AP,b (Urbano & Marrero 2017), ties allowed"),
        ("Stability: Kendall tau-b between rankings on random halves of the queries", report.stability, ""),
        (f"Discriminative power: share of run pairs significant at alpha={args.alpha:g} ({args.test} test, "
         "two-sided)", report.power, ""),
        ("Run pairs (the ASL curve: asl_rank 1 = smallest p-value)", report.pairs, ""),
        (f"Against the baseline {baseline}", paper, legend),
        (f"Against the baseline {baseline}, per run: mean difference, {report.comparison.attrs['level']:.0%} "
         "intervals (t, bootstrap), effect size d_z, per-query wins/ties/losses", report.comparison, ""),
        (f"Topic-set size: queries a paired t-test needs to detect a difference of {args.min_difference:g} with "
         f"power {args.power:g} at alpha={args.alpha:g} (Sakai 2016)", report.sizes, ""),
    ]
    for title, table, note in sections:
        out.write(tables.render(table, args.output_format, args.places, title, note))
    if args.plot:
        from ir_measures_graded.meta.plots import report_figure

        report_figure(report).savefig(args.plot, dpi=120)
    return 0
