"""``ir-measures-graded report``: the evaluation report of an experiment as one HTML page; standard
output gets the comparison table (``-o``: tsv, csv, jsonl as one tidy table; text, markdown, latex)."""

from __future__ import annotations

import argparse
import os
from typing import Any, TextIO

from ir_measures_graded.cli.args import DEFAULT_PLACES, UsageError, parse_measures


def run(args: argparse.Namespace, runs: list[str], measures: list[Any], out: TextIO, command: str) -> int:
    """``report``; returns the exit status."""
    from ir_measures_graded.cli import evaluate, warn
    from ir_measures_graded.experiment.comparison import Comparison
    from ir_measures_graded.lazy import require
    from ir_measures_graded.report import report as make_report

    require("jinja2", "report", "the report")
    if args.no_scale and args.transform:
        raise UsageError("--no-scale and --transform contradict each other")
    if args.output_format == "trec":
        raise UsageError("-o trec writes trec_eval's result lines (the evaluate command); report writes the "
                         "comparison table: tsv, csv, jsonl, text, markdown or latex")
    if os.path.isdir(args.html):
        raise UsageError(f"--html {args.html} is a directory; give the HTML file's path")
    from ir_measures_graded.cli.writers import input_at

    input_at(args, args.html, f"--html {args.html} would write the page", "give another file")
    by_level = None if args.by_level is None else [m for text in args.by_level for m in parse_measures(text)]
    exp = evaluate(args, runs, measures, keep_runs=True)
    page = make_report(exp, baseline=args.baseline, test=args.test, correction=args.correction, alpha=args.alpha,
                       alternative=args.alternative, family=args.family,
                       transforms=[] if args.no_scale else args.transform, thresholds=by_level,
                       permutations=args.permutations, seed=args.seed, title=args.title, command=command)
    page.save(args.html)
    comparison = Comparison.of_table(page.comparison, page.notes)
    places = args.places if args.output_format == "jsonl" else DEFAULT_PLACES if args.places is None else args.places
    out.write(comparison.render(args.output_format, places))
    for note in comparison.notes:
        warn(note)
    return 0
