"""The command line's one parser: a subparser per subcommand, built from the option groups they share
(:mod:`.args`) and the subcommands' own (:mod:`.leaderboard`, :mod:`.figures`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import ir_measures

from ir_measures_graded.cli.agree import add_parser as add_agree
from ir_measures_graded.cli.args import (
    PAIRS_TESTS,
    PROG,
    SECTIONS,
    SUBCOMMANDS,
    add_comparison,
    add_inputs,
    add_output,
    evaluate_epilog,
)
from ir_measures_graded.cli.figures import FIGURES
from ir_measures_graded.cli.leaderboard import add_parser as add_leaderboard
from ir_measures_graded.cli.pool import add_parser as add_pool
from ir_measures_graded.cli.simulate import add_parser as add_simulate

__all__ = ["build_parser", "add_figures"]


class _Version(argparse.Action):
    """``--version``: ours and ir_measures'."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from ir_measures_graded._version import __version__

        sys.stdout.write(f"{parser.prog} {__version__} (ir_measures {ir_measures.__version__})\n")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line: one parser, a subparser per subcommand, the option groups they share.

    ``command``: the subcommand about to be parsed; only its options are built (the others are
    listed by name and help, as the top-level ``--help`` shows them). None: every subcommand's.
    """
    parser = argparse.ArgumentParser(
        prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Evaluate TREC run files with µMAP, NDCNG and every ir_measures measure, compare runs "
        "and judge measures. Without a subcommand: evaluate.",
        epilog=f"'{PROG} SUBCOMMAND -h' for each one's options.\n\n" + evaluate_epilog())
    parser.add_argument("--version", action=_Version, nargs=0, help="show the versions and exit")
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", title="subcommands")
    for name, add in _BUILDERS.items():
        if command is None or name == command:
            add(sub)
        else:
            sub.add_parser(name, help=SUBCOMMANDS[name])
    return parser


def _evaluate(sub: Any) -> None:
    evaluate = sub.add_parser("evaluate", help=SUBCOMMANDS["evaluate"], formatter_class=argparse.RawDescriptionHelpFormatter,
                              description="Evaluate runs: a line per measure (tsv, as ir_measures), trec_eval's "
                              "lines, or a table per run; with --baseline, every run against it.",
                              epilog=evaluate_epilog())
    add_inputs(evaluate)
    evaluate.add_argument("--by_query", "-q", action="store_true",
                          help="per-query values (in the order ir_measures prints them), then the summary ('all')")
    evaluate.add_argument("--no_summary", "-n", action="store_true", help="with -q: omit the summary lines")
    evaluate.add_argument("--provider", choices=sorted(ir_measures.providers.registry),
                          help="compute every measure with this ir_measures provider")
    evaluate.add_argument("--thresholds", action="store_true",
                          help="also print, for each measure combined over relevance thresholds (muMAP, muP@k, ...), "
                          "its value at every relevance level of the qrels with its weight")
    add_comparison(evaluate)
    add_figures(evaluate)
    add_output(evaluate, "tsv")


def _judge(sub: Any) -> None:
    judge = sub.add_parser("judge", help=SUBCOMMANDS["judge"], formatter_class=argparse.RawDescriptionHelpFormatter,
                           description="Does a measure depend on the rating scale, is it stable, is it "
                           "discriminative? Every run with every measure on the original and transformed labels, "
                           "on random halves of the queries, with paired tests between every pair of runs, and "
                           "every run against the baseline.",
                           epilog=f"example:\n  {PROG} judge qrels.txt runs/*.run -m muMAP nDCNG@10 nDCG@10 "
                           "--transform scale:2 --sections scale baseline")
    add_inputs(judge)
    add_comparison(judge)
    judging = judge.add_argument_group("judging the measures")
    judging.add_argument("--sections", nargs="+", choices=SECTIONS, metavar="SECTION",
                         help=f"the tables to write ({', '.join(SECTIONS)}); default: all in text, markdown and "
                         "latex, the comparison with the baseline in tsv, csv and jsonl (one table per stream: "
                         "baseline and details are then the same tidy table)")
    judging.add_argument("--transform", action="append", metavar="T",
                         help="label transform, repeatable (scale:F, shift:C, merge:A,B, insert:L, map:A=B,..., real); "
                         "default: scale:2, shift:1, merge of the two highest labels, real")
    judging.add_argument("--samples", type=int, default=200, help="random query halves for stability (default 200)")
    judging.add_argument("--pairs-test", choices=PAIRS_TESTS, default="randomization",
                         help="test between every pair of runs for discriminative power (default randomization; "
                         "tukey and randomized_tukey are family-wise over the pairs)")
    judging.add_argument("--min-difference", type=float, default=0.05,
                         help="topic-set size: the smallest true difference to detect (default 0.05)")
    judging.add_argument("--power", type=float, default=0.8, help="topic-set size: the power wanted (default 0.8)")
    judging.add_argument("--plot", metavar="FILE", help="draw the judging into FILE (.png, .svg, .pdf; needs "
                         "matplotlib: the 'meta' extra)")
    add_figures(judge)
    add_output(judge, "text")


def _report(sub: Any) -> None:
    report = sub.add_parser("report", help=SUBCOMMANDS["report"], formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Evaluate runs and write one self-contained HTML page: the summary with deltas "
                            "to the baseline, intervals, corrected significance and win/tie/loss, measures per relevance "
                            "threshold, per-query differences and the scale check. Standard output gets the comparison.",
                            epilog=f"example:\n  {PROG} report qrels.txt runs/*.txt -m muMAP nDCNG@10 nDCG@10 "
                            "--baseline bm25.txt --html report.html")
    add_inputs(report)
    add_comparison(report)
    page = report.add_argument_group("the page")
    page.add_argument("--html", required=True, metavar="FILE", help="where to write the page")
    page.add_argument("--transform", action="append", metavar="T", help="label transform of the scale check, "
                      "repeatable (as judge's); default: scale:2, shift:1, merge of the two highest labels, real")
    page.add_argument("--no-scale", action="store_true", help="leave out the scale check")
    page.add_argument("--by-level", nargs="+", metavar="MEASURE", help="measures shown per relevance threshold "
                      "(muMAP, muP@k, ...); default: those given, with muMAP and muP@10 added")
    page.add_argument("--title", help="the page's title")
    page.add_argument("--judge-b", dest="qrels_b", metavar="QRELS_B", help="add the section of two judges: how "
                      "these qrels (judge B's) agree with QRELS and which measures' rankings hold (as agree)")
    page.add_argument("--leaderboard", action="store_true", help="add the organiser's leaderboard: runs sorted by "
                      "the first measure with the groups a randomised Tukey HSD cannot separate")
    add_figures(report)
    add_output(report, "tsv")


def _demo(sub: Any) -> None:
    sub.add_parser("demo", help=SUBCOMMANDS["demo"], description=SUBCOMMANDS["demo"])


#: Each subcommand's parser, added to the subparsers (in the order --help lists them).
_BUILDERS: dict[str, Callable[[Any], object]] = {"evaluate": _evaluate, "judge": _judge, "report": _report,
                                                 "leaderboard": add_leaderboard, "agree": add_agree, "pool": add_pool,
                                                 "simulate": add_simulate, "demo": _demo}


def add_figures(parser: argparse.ArgumentParser) -> None:
    """``--figure NAME FILE``: a one-column figure of the experiment (:mod:`.figures`), after the tables."""
    group = parser.add_argument_group("figures (one column wide, for a paper; needs matplotlib: the 'meta' extra)")
    group.add_argument("--figure", nargs=2, action="append", metavar=("NAME", "FILE"),
                       help="write the figure NAME to FILE (.pdf, .svg, .png), repeatable: "
                       + "; ".join(f"{name}: {what}" for name, what in FIGURES.items())
                       + ". NAME:MEASURE draws that measure (default: the first that fits)")
