"""``ir-measures-graded agree``: two judges side by side on one experiment — how their grades agree
(Cohen's κ, Krippendorff's α, the confusion matrix, agreement at every threshold, the documents one side
judged), and whether the leaderboard holds measure by measure (:mod:`ir_measures_graded.judges`), one table
each. Judge A's qrels, judge B's and each run are read once."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ir_measures_graded.cli import args as options
from ir_measures_graded.experiments.formats import FORMATS

#: The tables the subcommand writes, in this order; the default ones first.
SECTIONS = ("labels", "thresholds", "systems", "confusion", "one-side", "pairs", "runs")
DEFAULT_SECTIONS = ("labels", "thresholds", "systems")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``agree`` subcommand's parser, added to the subparsers ``sub``."""
    parser = sub.add_parser("agree", help="two judges side by side: label agreement (kappa, alpha), leaderboards and "
                            "which measures hold", formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Two sets of graded judgments of the same topics (judge A: QRELS, judge B: "
                            "QRELS_B) side by side: Cohen's kappa (unweighted, linear, quadratic) and Krippendorff's "
                            "alpha (ordinal, interval) per topic and overall, the confusion matrix of grades, agreement "
                            "on relevance at every threshold of each scale, the documents one judge alone judged; then "
                            "the runs' leaderboard under A and under B, measure by measure: tau, tau_AP, the largest "
                            "rank change, the best run, the pairs separated under one judge only.",
                            epilog=f"example:\n  {options.PROG} agree nist.qrels llm.qrels runs/*.run -m muMAP nDCNG@10 "
                            "nDCG@10 'AP(rel=2)' --map map:1=1,2=3 --sections labels systems")
    options.add_inputs(parser, judges=2)
    group = parser.add_argument_group("the two judges")
    group.add_argument("--judges", nargs=2, metavar=("A", "B"), default=("A", "B"),
                       help="the judges' names in the tables (default A B)")
    group.add_argument("--mapping", metavar="MAP", help="B's grades mapped onto A's scale for the label agreement "
                       "(a monotone relabelling: map:1=1,2=3, scale:C, shift:C, merge:A,B); none is guessed")
    group.add_argument("--map", action="append", metavar="MAP", dest="maps", default=[],
                       help="the runs evaluated on B relabelled by MAP too (repeatable): a row per MAP in systems")
    group.add_argument("--sections", nargs="+", choices=SECTIONS, metavar="SECTION",
                       help=f"the tables to write ({', '.join(SECTIONS)}; default: {' '.join(DEFAULT_SECTIONS)})")
    options.add_pairs_testing(group)
    group.add_argument("--plot", metavar="FILE", help="each run's value under A against under B, a panel per measure, "
                       "into FILE (.png, .svg, .pdf; needs matplotlib: the 'meta' extra)")
    parser.set_defaults(baseline=None, alternative="two-sided", family="runs")  # every pair, both ways
    options.add_output(parser, "text")
    return parser


def run(args: argparse.Namespace, runs: list[str], measures: list[Any], out: TextIO) -> int:
    """``agree``; returns the exit status."""
    from ir_measures_graded.cli.writers import Streams, output_file
    from ir_measures_graded.judges import agree

    sections = list(dict.fromkeys(args.sections or DEFAULT_SECTIONS))
    if args.plot:
        output_file(args, "--plot", args.plot, "draw the figure")
    if FORMATS[args.output_format].machine and not args.output_dir and len(sections) > 1:
        raise options.UsageError(f"-o {args.output_format} writes one table per stream: give one --sections, or "
                         "--output-dir DIR for a file per table")
    if len(runs) < 2:
        raise options.UsageError(f"agree needs at least two runs; got {len(runs)}")
    streams = Streams(args, out, sections)  # before evaluating: refuses an --output-dir that holds an input
    testing = options.testing_of(args)
    exp = options.experiment_of(args, runs, measures)
    a, b = args.judges
    found = agree(exp, args.qrels_b, a=a, b=b, mapping=args.mapping, maps=args.maps, testing=testing)
    views = {"labels": found.labels.summary, "thresholds": found.labels.thresholds, "systems": found.systems,
             "confusion": found.labels.confusion, "one-side": found.labels.one_side, "pairs": found.pairs,
             "runs": found.runs}
    if args.plot:
        found.plot(args.plot)
    places = options.places_of(args)
    for section in sections:
        with streams.table(section) as stream:
            stream.write(views[section].render(args.output_format, places))
    return 0
