"""``ir-measures-graded judge``: judging the measures on your qrels and runs, section by section.

Sections (``--sections``): each run's score per measure (its measure's aggregate), scale dependence,
stability, discriminative power, the run pairs (ASL curve), every run against the baseline (the
paper's view, and its details: intervals, effect size, wins/ties/losses), and the topic-set size.
Text, markdown and LaTeX write the sections asked for (default all); tsv, csv and jsonl write one tidy
table (default the comparison against the baseline). Every section ranks runs by their measures'
aggregates and tests only the measures the comparison tests (one rule: ``Experiment.untested``).
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ir_measures_graded.cli.args import SECTIONS, UsageError, experiment_of, places_of, testing_of
from ir_measures_graded.cli.figures import figures_of, write_figures
from ir_measures_graded.experiments.formats import FORMATS

__all__ = ["run", "sections_of"]


def sections_of(args: argparse.Namespace) -> list[str]:
    """The sections to write: one table per stream in a machine format."""
    machine = FORMATS[args.output_format].machine
    every = [s for s in SECTIONS if not (machine and s == "details")]  # the same tidy table
    chosen = list(dict.fromkeys(args.sections or (every if not machine or args.output_dir else ["baseline"])))
    if machine and len(chosen) > 1 and not args.output_dir:
        raise UsageError(f"-o {args.output_format} writes one table per stream: choose one of --sections "
                         f"({', '.join(chosen)}), give --output-dir DIR for a file per section, or use -o text, "
                         "markdown or latex")
    return chosen


def run(args: argparse.Namespace, runs: list[str], measures: list[Any], out: TextIO) -> int:
    """``judge``; returns the exit status."""
    from ir_measures_graded import meta
    from ir_measures_graded.cli.output import warn
    from ir_measures_graded.cli.writers import Streams
    from ir_measures_graded.experiments import tables

    if len(runs) < 2:
        raise UsageError("judge needs at least two runs")
    if args.samples < 1:
        raise UsageError(f"--samples must be positive, got {args.samples}")
    if not 0 < args.power < 1:
        raise UsageError(f"--power must be between 0 and 1, got {args.power:g}")
    if not args.min_difference > 0:
        raise UsageError(f"--min-difference must be positive, got {args.min_difference:g}")
    chosen = sections_of(args)
    testing = testing_of(args)
    figures = figures_of(args, runs, measures)
    if args.plot:
        from ir_measures_graded.cli.writers import output_file
        from ir_measures_graded.lazy import require

        require("matplotlib", "meta", "--plot")
        output_file(args, "--plot", args.plot, "draw the figure")
    streams = Streams(args, out, chosen)  # before evaluating: refuses an --output-dir that holds an input
    exp = experiment_of(args, runs, measures)
    pairs = testing.pairs(args.pairs_test, "none")  # Sakai's discriminative power: each pair uncorrected
    report = meta.meta_evaluate(exp, transforms=args.transform, samples=args.samples, testing=testing, pairs=pairs,
                                min_difference=args.min_difference, power=args.power)
    comparison = report.comparison_view()
    places = places_of(args)
    fmt = args.output_format
    machine = FORMATS[fmt].machine
    found = {
        "means": ("Each run's score (each measure's own aggregate)", exp.aggregates if machine else
                  report.scores.reset_index(), ""),
        "scale": ("Scale dependence: ranking of the runs on original vs transformed labels", report.scale,
                  "kendall_tau: Kendall's tau-b; tau_ap_b: AP correlation tau_AP,b (Urbano & Marrero 2017), ties allowed"),
        "stability": ("Stability: Kendall tau-b between rankings on random halves of the queries", report.stability, ""),
        "power": (f"Discriminative power: share of run pairs significant at alpha={pairs.alpha:g} "
                  f"({pairs.describe_pairs()}, two-sided)", report.power, ""),
        "pairs": ("Run pairs (the ASL curve: asl_rank 1 = smallest p-value)", report.pairs, ""),
        "baseline": None,
        "details": (f"Against the baseline {comparison.baseline}, per run: mean difference, {testing.percent} "
                    f"{testing.sided}intervals (t, bootstrap), effect size d_z, per-query wins/ties/losses",
                    comparison.table,
                    comparison.legend()),
        "sizes": (f"Topic-set size: queries a paired t-test needs to detect a difference of {args.min_difference:g} "
                  f"with power {args.power:g} at alpha={testing.alpha:g} (Sakai 2016)", report.sizes, ""),
    }
    for name in chosen:
        with streams.table(name) as stream:
            if name == "baseline":
                stream.write(comparison.render(fmt, places, title=f"Against the baseline {comparison.baseline}"))
                continue
            title, table, legend = found[name]
            stream.write(tables.render(table, fmt, places, title, legend))
    for note in comparison.notes:
        warn(note)
    write_figures(args, exp, figures, scale=report.scale, comparison=comparison)
    if args.plot:
        from ir_measures_graded.files import save_figure
        from ir_measures_graded.meta.plots import report_figure

        save_figure(report_figure(report), args.plot, dpi=120)
    return 0
