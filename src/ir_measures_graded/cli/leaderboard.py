"""``ir-measures-graded leaderboard``: the organiser's view of many runs on one set of judgments —
the leaderboard with significance groups, the agreement between measures, the per-topic view, pool
reusability and incompleteness bounds (:mod:`ir_measures_graded.organiser`), one table each."""

from __future__ import annotations

import argparse
import os
from typing import Any, TextIO

from ir_measures_graded.cli.args import (
    PROG,
    UsageError,
    add_inputs,
    add_output,
    add_pairs_testing,
    experiment_of,
    places_of,
    testing_of,
)
from ir_measures_graded.experiments.formats import FORMATS

#: The tables the subcommand writes, in this order; the default ones first.
SECTIONS = ("leaderboard", "agreement", "pool", "topics", "bounds")
DEFAULT_SECTIONS = ("leaderboard", "agreement", "pool")
HELP = "the organiser's view: leaderboard with significance groups, agreement, per-topic, pool reusability, bounds"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``leaderboard`` subcommand's parser, added to the subparsers ``sub``."""
    parser = sub.add_parser("leaderboard", help=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Many runs on one set of graded judgments: runs sorted by a measure with "
                            "the groups an all-pairs test cannot separate (compact letter display), Kendall's tau "
                            "and tau_AP between the measures, per-topic best/median/worst, leave-one-run-out pool "
                            "reusability and incompleteness bounds.",
                            epilog=f"example:\n  {PROG} leaderboard qrels.txt runs/*.run -m nDCNG@10 AP nDCG@10 "
                            "--groups - --pool-depth 10 --sections leaderboard agreement pool")
    add_inputs(parser)
    group = parser.add_argument_group("the organiser's view")
    group.add_argument("--by", metavar="MEASURE", help="sort by this measure (default: the first)")
    group.add_argument("--sections", nargs="+", choices=SECTIONS, metavar="SECTION",
                       help=f"the tables to write ({', '.join(SECTIONS)}; default: {' '.join(DEFAULT_SECTIONS)}, the "
                       "agreement only with two measures or more)")
    add_pairs_testing(group)
    group.add_argument("--pool-depth", type=int, metavar="K", help="pool depth (default: inferred per topic, the "
                       "deepest k at which every run's top k is judged)")
    group.add_argument("--pooled", nargs="+", metavar="RUN_OR_FILE",
                       help="the runs that formed the pool (names, paths, file names or run tags, or a file of one "
                       "run a line); the others are scored as new systems, not left out. Default: every run with a "
                       "judged document; with --pool-depth, the depth they were pooled to")
    group.add_argument("--groups", metavar="SEP_OR_FILE",
                       help="leave groups of runs out together: a separator (runs sharing the name before it are one "
                       "group, e.g. '-') or a file of 'RUN GROUP' lines")
    group.add_argument("--plot", metavar="FILE", help="draw the leaderboard (values with intervals, groups shaded) "
                       "into FILE (.png, .svg, .pdf; needs matplotlib: the 'meta' extra)")
    parser.set_defaults(baseline=None, alternative="two-sided", family="runs")  # every pair, both ways
    add_output(parser, "text")
    return parser


def _groups(given: str | None, runs: list[str]) -> Any:
    """``--groups``: a file of 'RUN GROUP' lines, else a separator some run's name holds (neither: refused)."""
    if given is None:
        return None
    if not os.path.isfile(given):
        if any(given in run for run in runs):
            return given
        raise UsageError(f"--groups {given}: no such file, and no run's name holds it as a separator")
    mapping = {}
    with open(given, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 2:
                raise UsageError(f"--groups {given} line {number}: expected 'RUN GROUP', got {line.strip()!r}")
            mapping[fields[0]] = fields[1]
    return mapping


def _pooled(given: list[str] | None, exp: Any) -> list[str] | None:
    """``--pooled``: each a run of the experiment, else a file of one run a line (neither: refused)."""
    if given is None:
        return None
    from ir_measures_graded.errors import GradedInputError

    found: list[str] = []
    for key in given:
        try:
            found.append(exp.find(key, "--pooled"))
        except GradedInputError:
            if not os.path.isfile(key):
                raise
            with open(key, encoding="utf-8") as lines:
                found += [exp.find(line.strip(), f"--pooled {key}") for line in lines if line.strip()]
    return found


def run(args: argparse.Namespace, runs: list[str], measures: list[Any], out: TextIO) -> int:
    """``leaderboard``; returns the exit status."""
    from ir_measures_graded import organiser
    from ir_measures_graded.cli.writers import Streams, output_file

    # by default, the agreement only where there are measures to agree
    sections = list(dict.fromkeys(args.sections or [s for s in DEFAULT_SECTIONS
                                                     if s != "agreement" or len(measures) > 1]))
    if args.plot:
        output_file(args, "--plot", args.plot, "draw the figure")
    machine = FORMATS[args.output_format].machine
    if machine and not args.output_dir and len(sections) > 1:
        raise UsageError(f"-o {args.output_format} writes one table per stream: give one --sections, or "
                         "--output-dir DIR for a file per table")
    if len(runs) < 2:
        raise UsageError(f"leaderboard needs at least two runs; got {len(runs)}")
    streams = Streams(args, out, sections)  # before evaluating: refuses an --output-dir that holds an input
    testing = testing_of(args)
    exp = experiment_of(args, runs, measures)
    places = places_of(args)
    pooled = _pooled(args.pooled, exp)
    groups = _groups(args.groups, exp.runs)
    # with a declared pool, each pooled run is bounded as if it had not contributed
    declared = {"pooled": pooled, "depth": args.pool_depth, "groups": groups} if pooled is not None else {}
    limits = organiser.bounds(exp, **declared) if "bounds" in sections else None
    board = organiser.leaderboard(exp, by=args.by, testing=testing, bounds=limits) \
        if {"leaderboard", "agreement"} & set(sections) or args.plot else None
    found = {}  # every table made before any is written: an error leaves nothing half written
    for section in sections:
        if section == "leaderboard":
            found[section] = board
        elif section == "agreement":
            if len(exp.measures) < 2:
                raise UsageError("the agreement section needs at least two measures")
            found[section] = organiser.agreement(exp, board=board)
        elif section == "pool":
            found[section] = organiser.pool(exp, depth=args.pool_depth, groups=groups, pooled=pooled)
        elif section == "topics":
            found[section] = organiser.topics(exp)
        else:
            found[section] = limits
    if args.plot:
        board.plot(args.plot)
    for section, result in found.items():
        with streams.table(section) as stream:
            stream.write(result.render(args.output_format, places))
    return 0
