"""``ir-measures-graded report``: the evaluation report of an experiment as one HTML page; standard
output gets the comparison table (``-o``: tsv, csv, jsonl as one tidy table; text, markdown, latex)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ir_measures_graded.cli.args import UsageError, experiment_of, parse_measures, places_of, testing_of
from ir_measures_graded.cli.figures import figures_of, write_figures

__all__ = ["run"]


def run(args: argparse.Namespace, runs: list[str], measures: list[Any], out: TextIO) -> int:
    """``report``; returns the exit status."""
    from ir_measures_graded.cli.output import warn
    from ir_measures_graded.lazy import require
    from ir_measures_graded.reports import report as make_report

    require("jinja2", "report", "the report")
    if args.no_scale and args.transform:
        raise UsageError("--no-scale and --transform contradict each other")
    from ir_measures_graded.cli.writers import Streams, output_file

    output_file(args, "--html", args.html, "write the page")
    streams = Streams(args, out, ["comparison"])  # before evaluating: refuses an --output-dir that holds an input
    testing = testing_of(args)
    figures = figures_of(args, runs, measures)
    by_level = None if args.by_level is None else [pair for text in args.by_level for pair in parse_measures(text)]
    exp = experiment_of(args, runs, measures)
    page = make_report(exp, baseline=args.baseline, testing=testing, transforms=[] if args.no_scale else args.transform,
                       thresholds=None if by_level is None else [m for m, _ in by_level], title=args.title,
                       command=getattr(args, "command_line", None), leaderboard=args.leaderboard,
                       judge_b=args.qrels_b)
    page.save(args.html)
    comparison = page.comparison_view()
    with streams.table("comparison") as stream:
        stream.write(comparison.render(args.output_format, places_of(args)))
    for note in comparison.notes:
        warn(note)
    write_figures(args, exp, figures, scale=page.scale, comparison=comparison)
    return 0
