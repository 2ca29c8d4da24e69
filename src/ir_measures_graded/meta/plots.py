"""Figures of a :class:`~ir_measures_graded.meta.MetaReport` (matplotlib, imported only here)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ir_measures_graded.canvas import COLUMN, new_figure
from ir_measures_graded.meta.figures import (
    FONT,
    SMALL,
    labels,
    legend_columns,
    scale_axes,
    short,
    sorted_differences,
)


def _heatmap(ax: Any, report: Any, column: str, title: str) -> Any:
    """One value per measure (rows) and transform (columns), -1 … 1: the scale grid's cells."""
    image = scale_axes(ax, report.scale, column, details=None)
    ax.set_title(title, fontsize=FONT)
    return image


def difference_lines(ax: Any, per_query: Any, baseline: str, measure: str) -> None:
    """Per-query differences of every run against ``baseline`` on one measure, each run's sorted from
    its largest gain to its largest loss as one line (lines of several runs stay readable where bars
    laid over each other do not)."""
    found = sorted_differences(per_query, baseline, measure)
    for k, ((run, d), name) in enumerate(zip(found.items(), labels(list(found)), strict=True)):
        ax.plot(np.arange(1, len(d) + 1), d, color=f"C{k % 10}", linestyle=("-", "--", ":", "-.")[k // 10 % 4],
                linewidth=1.2, label=name, gid=f"run:{run}")  # past 10 runs the colours repeat: the dashes not
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xlabel("queries, by Δ", fontsize=FONT)
    ax.set_ylabel(f"Δ {measure} (run − baseline)", fontsize=SMALL)
    ax.set_title(f"{measure}: per-query Δ\nagainst {short(baseline, 20)}", fontsize=SMALL)
    ax.tick_params(labelsize=SMALL)


def report_figure(report: Any, title: str = "") -> Any:
    """One column wide (:data:`~ir_measures_graded.canvas.COLUMN`), growing downwards: Kendall τ-b and τ_AP,b
    per transform and measure; the ASL curves; τ across query halves; then per measure (two a row, the last
    alone across the width) the per-query differences of every run against the baseline. Each row fills the
    width; legends stand beside or under the axes, never over them."""
    measures = list(report.scores.columns)
    pairs_of_rows = math.ceil(len(measures) / 2)
    heat = 0.9 + 0.22 * len(measures) + 0.1 * max((len(str(t)) for t in dict.fromkeys(report.scale["transform"])),
                                                  default=0)
    stable = 0.8 + 0.2 * len(measures)
    top_height = 2 * heat + 2.2 + stable
    bottom_height = 1.8 * pairs_of_rows + 0.2
    fig = new_figure(COLUMN, top_height + bottom_height)
    top, bottom = fig.subfigures(2, 1, height_ratios=[top_height, bottom_height])
    tau_ax, ap_ax, asl_ax, stab_ax = top.subplots(4, 1, gridspec_kw={"height_ratios": [heat, heat, 2.2, stable]})
    _heatmap(tau_ax, report, "kendall_tau", "Kendall τ-b, original vs transformed labels")
    image = _heatmap(ap_ax, report, "tau_ap_b", "τ_AP,b, original vs transformed labels")
    top.colorbar(image, ax=[tau_ax, ap_ax], shrink=0.8, aspect=15).ax.tick_params(labelsize=SMALL)

    for measure, pairs in report.pairs.groupby("measure", sort=False):
        p = np.sort(pairs["p_value"].to_numpy())
        asl_ax.plot(np.arange(1, len(p) + 1), p, marker=".", label=measure)
    alpha = float(report.power["alpha"].iloc[0]) if len(report.power) else 0.05
    test = str(report.power["test"].iloc[0]) if len(report.power) else ""
    asl_ax.axhline(alpha, color="grey", linestyle="--", linewidth=1)
    asl_ax.xaxis.get_major_locator().set_params(integer=True)
    asl_ax.set_xlabel("run pairs sorted by ASL", fontsize=FONT)
    asl_ax.set_ylabel(f"ASL ({test})", fontsize=FONT)
    asl_ax.set_title("Discriminative power\n(Sakai 2006)", fontsize=FONT)
    asl_ax.tick_params(labelsize=SMALL)
    if len(report.pairs):
        asl_ax.legend(fontsize=SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.22), frameon=False,
                      ncols=min(3, report.pairs["measure"].nunique()))

    stab = report.stability
    mean, sd = stab["tau_mean"].to_numpy(dtype=float), stab["tau_sd"].to_numpy(dtype=float)
    # τ lies in [-1, 1]: the bars of one standard deviation stop there
    errors = np.vstack([np.minimum(sd, mean + 1), np.minimum(sd, 1 - mean)])
    stab_ax.barh(stab["measure"], mean, xerr=errors, color="tab:blue", alpha=0.7)
    stab_ax.invert_yaxis()
    stab_ax.set_xlim(min(0.0, float(np.nanmin(mean - errors[0], initial=0.0))), 1.0)
    stab_ax.set_xlabel("τ-b (mean ± sd)", fontsize=FONT)
    stab_ax.set_title("Kendall τ-b between\nrandom query halves", fontsize=FONT)
    stab_ax.tick_params(labelsize=SMALL)

    grid = bottom.add_gridspec(pairs_of_rows, 2)
    for k, measure in enumerate(measures):
        alone = k == len(measures) - 1 and len(measures) % 2  # the last of an odd number: across the width
        ax = bottom.add_subplot(grid[k // 2, :] if alone else grid[k // 2, k % 2])
        difference_lines(ax, report.per_query, report.baseline, measure)
    handles, labels = fig.axes[-1].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", fontsize=SMALL, frameon=False,
                      ncols=legend_columns(fig, handles, labels, fig.get_figwidth()))
    if title:
        fig.suptitle(title)
    return fig
