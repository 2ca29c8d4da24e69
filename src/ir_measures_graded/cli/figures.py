"""``--figure NAME[:MEASURE] FILE`` of every subcommand that evaluates: which figures, checked before
anything is evaluated (:func:`figures_of`), what the experiment must keep for them (:func:`needs`),
and writing them after the tables (:func:`write_figures`). The figures are
:mod:`ir_measures_graded.meta.figures`'."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ir_measures_graded.cli.args import UsageError, testing_of

__all__ = ["FIGURES", "Figure", "figures_of", "needs", "write_figures"]

#: Each figure's name on the command line, and what it shows (for ``-h``).
FIGURES = {
    "thresholds": "a measure combined over relevance thresholds (muMAP, ...) at each threshold, a line per run",
    "differences": "each run's per-query differences against the baseline, sorted, one panel per run",
    "scale": "the scale check: Kendall tau-b per measure and label transform",
    "intervals": "each run against the baseline: its mean difference and interval per measure, marked as the tables",
}
SUFFIXES = (".pdf", ".svg", ".png")  # meta.figures.FORMATS, written out so that -h loads no numpy


@dataclass(frozen=True)
class Figure:
    """One ``--figure``: its name, the measure's label (None: the figure's default) and the file."""

    name: str
    measure: str | None
    path: str


def figures_of(args: argparse.Namespace, runs: Sequence[str], measures: Sequence[Any]) -> list[Figure]:
    """The figures asked for, each checked against the runs and measures (``(measure, label)`` pairs):
    one line for what cannot be drawn, before anything is evaluated."""
    asked = getattr(args, "figure", None) or []
    if not asked:
        return []
    from ir_measures_graded.cli.writers import output_file
    from ir_measures_graded.experiments.measure_lists import breakdown_names, broken_down
    from ir_measures_graded.lazy import require

    labels = {label: m for m, label in measures} | {str(m): m for m, _ in measures}
    found = []
    for given, path in asked:
        name, _, measure = given.partition(":")
        if name not in FIGURES:
            raise UsageError(f"--figure {given}: no figure named {name!r}; one of {', '.join(FIGURES)}")
        if measure and measure not in labels:
            raise UsageError(f"--figure {given}: {measure!r} is none of the measures given "
                             f"({', '.join(label for _, label in measures)})")
        if os.path.splitext(path)[1].lower() not in SUFFIXES:
            raise UsageError(f"--figure {name} {path}: name a .pdf, .svg or .png file (the suffix says the format)")
        output_file(args, f"--figure {name}", path, "draw the figure")  # a folder missing is made
        if name == "thresholds" and not broken_down([labels[measure]] if measure else [m for m, _ in measures]):
            raise UsageError(f"--figure {given} draws a measure combined over relevance thresholds "
                             f"({breakdown_names()}): add one of them to the measures")
        if name != "thresholds" and len(runs) < 2:
            raise UsageError(f"--figure {name} compares runs: give at least two")
        found.append(Figure(name, measure or None, path))
    require("matplotlib", "meta", "--figure")
    return found


def needs(figures: Sequence[Figure]) -> bool:
    """Whether the figures asked for need per-query values and the inputs as read (``per_query``): every one
    does (the differences and intervals test per query; the breakdown and the scale check take the runs)."""
    return bool(figures)


def write_figures(args: argparse.Namespace, exp: Any, figures: Sequence[Figure], scale: Any = None,
                  comparison: Any = None) -> None:
    """Draw and save each figure of ``exp``; ``scale`` and ``comparison``: the scale check and the
    comparison when the subcommand made them (else they are made here, with its ``--transform`` and
    testing options)."""
    if not figures:
        return
    from ir_measures_graded.meta import figures as drawn

    for figure in figures:
        label = None if figure.measure is None else exp.label[exp.measure(figure.measure)]
        if figure.name == "thresholds":
            made = drawn.threshold_curve(exp, label)
        elif figure.name == "differences":
            made = drawn.query_differences(exp, measure=label)
        elif figure.name == "intervals":
            if comparison is None:
                comparison = exp.compare(testing=testing_of(args))
            made = drawn.intervals(comparison, None if label is None else [label])
        else:
            if scale is None:
                from ir_measures_graded.meta import scale_dependence

                scale = scale_dependence(exp, transforms=getattr(args, "transform", None))
            made = drawn.scale_grid(scale if label is None else scale[scale["measure"] == label])
        drawn.save(made, figure.path)
