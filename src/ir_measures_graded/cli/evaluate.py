"""The evaluate command (the default subcommand): results as the ``ir_measures`` command or trec_eval
print them, the per-threshold breakdown (``--thresholds``) and, with ``--baseline``, the comparison."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ir_measures_graded.cli import writers
from ir_measures_graded.cli.args import check_options, experiment_of, testing_of
from ir_measures_graded.cli.figures import figures_of, needs, write_figures
from ir_measures_graded.experiments.formats import FORMATS

__all__ = ["run"]


def run(args: argparse.Namespace, runs: list[str], measures: list[Any], out: TextIO) -> int:
    """The evaluate command: the results (and the tables asked for)."""
    check_options(args, runs, measures)
    compared = args.baseline is not None
    testing = testing_of(args) if compared else None
    figures = figures_of(args, runs, measures)
    machine = FORMATS[args.output_format].machine
    # every table written, in order (the one list the --output-dir check and the writing both go by)
    # on standard output a machine format holds one table, and latex one table environment: the comparison (which
    # holds every run's values) replaces the results there
    alone = compared and (machine or args.output_format == "latex") and not args.output_dir
    tables = [*(["results"] if not alone else []),
              *(["thresholds"] if args.thresholds and args.output_format != "trec" else []),  # trec: in the results
              *(["comparison"] if compared else [])]
    streams = writers.Streams(args, out, tables)  # before evaluating: refuses an --output-dir that holds an input
    # per-query values for -q, --baseline and the figures; the runs as read only for what takes them again
    exp = experiment_of(args, runs, measures, per_query=args.by_query or compared or args.thresholds or needs(figures),
                        keep=args.thresholds or needs(figures), provider=args.provider)
    breakdown = exp.breakdown() if args.thresholds else None
    comparison = exp.compare(testing=testing) if compared else None
    for table in tables:
        with streams.table(table) as stream:
            if table == "results":
                writers.write_results(exp, args, stream, breakdown)
            elif table == "thresholds":
                writers.write_breakdown(exp, breakdown, args, stream)
            else:
                writers.write_comparison(comparison, args, stream)
    write_figures(args, exp, figures, comparison=comparison)
    return 0
