"""``ir-measures-graded simulate``: pool simulation on existing qrels (#51): for each pooling strategy and budget,
only the pooled judgments kept, the relevant documents found per grade and the leaderboard's fidelity to the full
qrels (tau, tau_AP, the largest rank change, each measure's bias) — :func:`ir_measures_graded.organiser.simulation.
simulate_pools`, one table in the ``-o`` format, and with ``--figure FILE`` tau against the budget, a line per
strategy. Its inputs are every evaluating subcommand's (QRELS, runs, measures: :func:`.args.add_inputs`)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ir_measures_graded.cli.args import (
    PROG,
    SUBCOMMANDS,
    UsageError,
    add_inputs,
    add_output,
    experiment_of,
    places_of,
)
from ir_measures_graded.cli.pool import add_strategy_options, strategies_epilog


def _budgets(text: str) -> list[int]:
    """``--budgets 10,20,50,100``: whole numbers of at least 1."""
    found = []
    for item in text.split(","):
        try:
            value = int(item)
        except ValueError:
            raise UsageError(f"--budgets {text}: {item.strip()!r} is not a whole number of documents per topic") \
                from None
        if value < 1:
            raise UsageError(f"--budgets {text}: a budget is at least 1 document per topic; got {value}")
        found.append(value)
    return found


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``simulate`` subcommand's parser, added to the subparsers ``sub``."""
    from ir_measures_graded.pooling import STRATEGIES

    parser = sub.add_parser("simulate", help=SUBCOMMANDS["simulate"], formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Pool simulation on existing qrels: for each strategy and budget (documents "
                            "judged per topic), the pool is built from the runs (the adaptive strategies judging with "
                            "QRELS), only the pooled judgments are kept (a document outside the pool is unjudged, so "
                            "non-relevant) and every run is re-evaluated on them: the relevant documents found per "
                            "grade, Kendall's tau and tau_AP between the leaderboards on the kept and on the full "
                            "qrels, the largest rank change and the bias (mean over runs of kept - full value).",
                            epilog=strategies_epilog(f"example:\n  {PROG} simulate qrels.txt runs/*.run -m muMAP "
                                                     "nDCNG@10 nDCG@10 --budgets 10,20,50,100 --figure tau.pdf -o latex"))
    add_inputs(parser)
    group = parser.add_argument_group("the simulation")
    group.add_argument("--strategies", nargs="+", metavar="STRATEGY",
                       help=f"the pooling strategies ({', '.join(STRATEGIES)}; default: all)")
    group.add_argument("--budgets", type=_budgets, default=[10, 20, 50, 100], metavar="N,N,...",
                       help="documents judged per topic, comma-separated (default 10,20,50,100)")
    # not --depth: that is -M, trec_eval's depth of every run evaluated, as in every subcommand that evaluates
    add_strategy_options(group, "--pool-depth", "how deep each run is read to build the pool (pool's --depth)")
    group.add_argument("--relevant", type=float, default=1.0, help="the lowest relevant label: the grades counted "
                       "and what mtf and bandit count as relevant (default 1)")
    group.add_argument("--figure", metavar="FILE", help="draw tau against the budget, a line per strategy (the "
                       "first measure; one column wide) into FILE (.pdf, .svg, .png; needs matplotlib: the 'meta' "
                       "extra)")
    # no test is made: the testing options every subcommand's inputs are checked with, at their defaults
    parser.set_defaults(baseline=None, test="t", correction="holm", alternative="two-sided", family="runs",
                        alpha=0.05, permutations=10_000)
    add_output(parser, "text")
    return parser


def run(args: argparse.Namespace, runs: list[str], measures: list[Any], out: TextIO) -> int:
    """``simulate``; returns the exit status."""
    from ir_measures_graded.cli.writers import Streams, output_file
    from ir_measures_graded.organiser.simulation import _strategies, simulate_pools

    if len(runs) < 2:
        raise UsageError(f"simulate needs at least two runs; got {len(runs)}")
    if args.pool_depth is not None and args.pool_depth < 1:
        raise UsageError(f"--pool-depth must be a whole number of at least 1; got {args.pool_depth}")
    _strategies(args.strategies)  # an unknown one refused before anything is read
    if args.figure:
        output_file(args, "--figure", args.figure, "draw the figure")
    streams = Streams(args, out, ["simulation"])  # before evaluating: refuses an --output-dir that holds an input
    exp = experiment_of(args, runs, measures)
    found = simulate_pools(exp, strategies=args.strategies, budgets=args.budgets, depth=args.pool_depth, p=args.p,
                           k=args.k, relevant=args.relevant, seed=args.seed)
    if args.figure:
        found.figure(args.figure)
    with streams.table("simulation") as stream:
        stream.write(found.render(args.output_format, places_of(args)))
    return 0
