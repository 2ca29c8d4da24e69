"""``ir-measures-graded pool``: the pool to judge, built from runs before any judgment (no qrels, no measures):
per topic, the documents and the order to judge them in, by one strategy (:mod:`ir_measures_graded.pooling`)
under a budget per topic or in total, written as the file an assessment tool reads (``topic  document  order
runs``, tab-separated) to ``--output FILE`` or standard output. Each run (and ``--judgments``, which the adaptive
strategies judge with) is read once.

Its inputs are its own (runs only, no measures after them), so the shared input group (:func:`.args.add_inputs`,
QRELS then runs then measures) does not fit; ``--names``, the checks of the run files and of standard input are
the shared ones (:func:`.args.pool_inputs`). The file is given with ``--output`` (``-o`` is every other
subcommand's output format)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ir_measures_graded.cli.output import PROG


def strategies_epilog(examples: str) -> str:
    """A parser's epilog: the pooling strategies, each with what it does, then ``examples``."""
    from ir_measures_graded.pooling import STRATEGIES

    return "strategies:\n" + "\n".join(f"  {name}: {what}" for name, what in STRATEGIES.items()) + "\n\n" + examples


def add_strategy_options(group: Any, depth: str, read: str) -> None:
    """The strategies' parameters (``depth``: the option of depth's k, ``read`` what it sets), each once."""
    group.add_argument(depth, type=int, metavar="K", help=f"{read}: depth's k (default 10); the other strategies: "
                       "default the whole run")
    group.add_argument("--p", type=float, default=0.8, help="rbp: the persistence p (default 0.8)")
    group.add_argument("--k", type=float, default=60.0, help="rrf: the constant k (default 60)")
    group.add_argument("--seed", type=int, default=0, help="mtf, bandit: the seed of the order that breaks ties "
                       "between runs (default 0)")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``pool`` subcommand's parser, added to the subparsers ``sub``."""
    from ir_measures_graded.cli.args import SUBCOMMANDS
    from ir_measures_graded.pooling import STRATEGIES

    parser = sub.add_parser("pool", help=SUBCOMMANDS["pool"], formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="The pool to judge, from runs (no qrels, no measures): per topic, the "
                            "documents and the order to judge them in, as the file an assessment tool reads: "
                            "topic, document, order (from 1 per topic), runs (the contributing runs, "
                            "comma-separated), tab-separated with a header line. Runs are ranked as trec_eval "
                            "ranks them (score descending, ties by doc id descending).",
                            epilog=strategies_epilog(
                                f"examples:\n  {PROG} pool runs/*.run --strategy depth --depth 10 --output pool.tsv"
                                f"\n  {PROG} pool runs/*.run --strategy bandit --judgments qrels.txt --total 500 --seed 1"))
    parser.add_argument("inputs", nargs="+", metavar="RUN", help="run files ('-' reads standard input)")
    parser.add_argument("--names", nargs="+", metavar="NAME", help="the runs' names in the runs column, one per run "
                        "(default: the file name)")
    group = parser.add_argument_group("the pool")
    group.add_argument("--strategy", choices=list(STRATEGIES), default="depth", help="how documents are chosen and "
                       "ordered (default depth)")
    add_strategy_options(group, "--depth", "how deep each run is read")
    budget = group.add_mutually_exclusive_group()
    budget.add_argument("--budget", type=int, metavar="N", help="documents judged per topic at most")
    budget.add_argument("--total", type=int, metavar="N", help="documents judged over all topics at most, shared "
                        "equally (what a topic cannot use goes to the others)")
    group.add_argument("--judgments", dest="qrels", metavar="QRELS", help="mtf, bandit: the judgments they judge "
                       "with as they go (a document they do not judge is non-relevant)")
    group.add_argument("--relevant", type=float, default=1.0, help="mtf, bandit: the lowest relevant label "
                       "(default 1)")
    group.add_argument("--output", metavar="FILE", help="write the pool to FILE (whole or not at all; default: "
                       "standard output)")
    parser.set_defaults(measures=None, output_format="tsv", places=None, engine="local", output_dir=None)
    return parser


def run(args: argparse.Namespace, runs: list[str], measures: list[Any], out: TextIO) -> int:
    """``pool``; returns the exit status."""
    from ir_measures_graded.cli.writers import output_file
    from ir_measures_graded.pooling import build_pool

    if args.output:
        output_file(args, "--output", args.output, "write the pool")
    names = args.names or None
    given = dict(zip(names, runs, strict=True)) if names else runs
    pool = build_pool(given, args.strategy, depth=args.depth, budget=args.budget, total=args.total, p=args.p,
                      k=args.k, judgments=args.qrels, relevant=args.relevant, seed=args.seed)
    if args.output:
        pool.write(args.output)
    else:
        out.write(pool.text())
    return 0
