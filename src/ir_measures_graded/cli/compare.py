"""``ir-measures-graded compare``: judging the measures on your qrels and runs, section by section.

Sections (``--sections``): the mean per run, scale dependence, stability, discriminative power, the
run pairs (ASL curve), every run against the baseline (the paper's view, and its details: intervals,
effect size, wins/ties/losses), and the topic-set size. Text, markdown and
LaTeX write the sections asked for (default all); tsv, csv and jsonl write one tidy table (default
the comparison against the baseline).
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ir_measures_graded.cli.args import DEFAULT_PLACES, SECTIONS, UsageError

MACHINE = ("tsv", "csv", "jsonl")


def sections_of(args: argparse.Namespace) -> list[str]:
    """The sections to write: one table per stream in a machine format."""
    every = [s for s in SECTIONS if not (args.output_format in MACHINE and s == "details")]  # the same tidy table
    chosen = list(dict.fromkeys(args.sections or (every if args.output_format not in MACHINE or args.output_dir
                                                  else ["baseline"])))
    if args.output_format in MACHINE and len(chosen) > 1 and not args.output_dir:
        raise UsageError(f"-o {args.output_format} writes one table per stream: choose one of --sections "
                         f"({', '.join(chosen)}), give --output-dir DIR for a file per section, or use -o text, "
                         "markdown or latex")
    if args.output_format == "trec":
        raise UsageError("-o trec writes trec_eval's result lines (the evaluate command); compare writes tables: "
                         "tsv, csv, jsonl, text, markdown or latex")
    return chosen


def run(args: argparse.Namespace, runs: list[str], measures: list[Any], out: TextIO) -> int:
    """``compare``; returns the exit status."""
    from ir_measures_graded import meta
    from ir_measures_graded.cli import evaluate, warn
    from ir_measures_graded.cli.writers import Streams
    from ir_measures_graded.experiment import tables
    from ir_measures_graded.experiment.comparison import Comparison

    if len(runs) < 2:
        raise UsageError("compare needs at least two runs")
    if args.samples < 1:
        raise UsageError(f"--samples must be positive, got {args.samples}")
    if not 0 < args.power < 1:
        raise UsageError(f"--power must be between 0 and 1, got {args.power:g}")
    if not args.min_difference > 0:
        raise UsageError(f"--min-difference must be positive, got {args.min_difference:g}")
    chosen = sections_of(args)
    if args.plot:
        from ir_measures_graded.lazy import require

        require("matplotlib", "meta", "--plot")
    streams = Streams(args, out)  # before evaluating: refuses an --output-dir that holds an input
    if args.plot:
        from ir_measures_graded.cli.writers import input_at

        input_at(args, args.plot, f"--plot {args.plot} would draw the figure", "give another file")
    exp = evaluate(args, runs, measures, keep_runs=True)
    report = meta.meta_evaluate(
        exp, transforms=args.transform, samples=args.samples, alpha=args.alpha, test=args.pairs_test,
        permutations=args.permutations, seed=args.seed, compare_test=args.test, correction=args.correction,
        alternative=args.alternative, family=args.family, min_difference=args.min_difference, power=args.power,
        level=1 - args.alpha)
    comparison = Comparison.of_table(report.comparison, report.notes)
    places = DEFAULT_PLACES if args.places is None else args.places
    fmt = args.output_format
    found = {
        "means": ("Mean per run (each measure's own aggregate)", exp.aggregates if fmt in MACHINE else
                  exp.aggregates.pivot(index="run", columns="measure", values="value").reindex(
                      index=exp.runs, columns=[str(m) for m in exp.measures]).reset_index(), ""),
        "scale": ("Scale dependence: ranking of the runs on original vs transformed labels", report.scale,
                  "kendall_tau: Kendall's tau-b; tau_ap_b: AP correlation tau_AP,b (Urbano & Marrero 2017), ties allowed"),
        "stability": ("Stability: Kendall tau-b between rankings on random halves of the queries", report.stability, ""),
        "power": (f"Discriminative power: share of run pairs significant at alpha={args.alpha:g} ({args.pairs_test} "
                  "test, two-sided)", report.power, ""),
        "pairs": ("Run pairs (the ASL curve: asl_rank 1 = smallest p-value)", report.pairs, ""),
        "baseline": None,
        "details": (f"Against the baseline {comparison.baseline}, per run: mean difference, {tables.percent(1 - args.alpha)} "
                    "intervals (t, bootstrap), effect size d_z, per-query wins/ties/losses", comparison.table, ""),
        "sizes": (f"Topic-set size: queries a paired t-test needs to detect a difference of {args.min_difference:g} "
                  f"with power {args.power:g} at alpha={args.alpha:g} (Sakai 2016)", report.sizes, ""),
    }
    for name in chosen:
        with streams.table(name) as stream:
            if name == "baseline":
                stream.write(comparison.render(fmt, args.places if fmt == "jsonl" else places,
                                               title=f"Against the baseline {comparison.baseline}"))
                continue
            title, table, legend = found[name]
            stream.write(tables.render(table, fmt, args.places if fmt == "jsonl" else places, title, legend))
    for note in comparison.notes:
        warn(note)
    if args.plot:
        from ir_measures_graded.meta.plots import report_figure

        report_figure(report).savefig(args.plot, dpi=120)
    return 0
