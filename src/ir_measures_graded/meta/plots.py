"""Figures of a :class:`~ir_measures_graded.meta.MetaReport` (matplotlib, imported only here)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np


def _short(name: Any) -> str:
    """A run's name as a label: its file name."""
    return os.path.basename(str(name)) or str(name)


def _pyplot() -> Any:
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _heatmap(fig: Any, ax: Any, report: Any, column: str, title: str) -> None:
    """One value per measure (rows) and transform (columns), -1 … 1."""
    grid = report.scale.pivot(index="measure", columns="transform", values=column)
    grid = grid.reindex(index=list(report.scores.columns), columns=list(dict.fromkeys(report.scale["transform"])))
    image = ax.imshow(grid.to_numpy(dtype=float), vmin=-1, vmax=1, cmap="RdYlGn", aspect="auto")
    ax.set_xticks(range(grid.shape[1]), grid.columns, rotation=30, ha="right")
    ax.set_yticks(range(grid.shape[0]), grid.index)
    for (i, j), value in np.ndenumerate(grid.to_numpy(dtype=float)):
        ax.text(j, i, "n/a" if np.isnan(value) else f"{value:.2f}", ha="center", va="center", fontsize=8)
    ax.set_title(title, fontsize=10)
    fig.colorbar(image, ax=ax, shrink=0.8)


def differences_axes(ax: Any, per_query: Any, baseline: str, measure: str) -> None:
    """Per-query differences of every run against ``baseline`` on one measure, each run's sorted
    from largest gain to largest loss (bars side by side)."""
    from matplotlib.collections import PolyCollection

    of = per_query[per_query["measure"] == measure].pivot(index="query_id", columns="run", values="value")
    others = [r for r in dict.fromkeys(per_query["run"]) if r != baseline]
    width = 0.8 / max(1, len(others))
    for k, run in enumerate(others):
        d = np.sort((of[run] - of[baseline]).to_numpy(dtype=float))[::-1]
        # one collection of rectangles per run, as ax.bar draws them (centred on the query's place);
        # a patch per bar would cost a second per thousand queries
        left = np.arange(len(d)) + k * width - width / 2
        zero = np.zeros_like(d)
        corners = [np.column_stack(c) for c in ((left, zero), (left, d), (left + width, d), (left + width, zero))]
        ax.add_collection(PolyCollection(np.stack(corners, axis=1), facecolors=f"C{k}", edgecolors="none",
                                         label=_short(run)))
    ax.autoscale_view()
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("queries, sorted by difference")
    ax.set_ylabel(f"Δ {measure} (run − baseline)")
    ax.set_title(f"{measure}: per-query Δ against {_short(baseline)}", fontsize=10)
    if others:
        ax.legend(fontsize=7, loc="upper right")  # "best" would test every bar against each place: seconds


def report_figure(report: Any, title: str = "") -> Any:
    """Top row: Kendall τ-b and τ_AP,b per transform and measure, the ASL curves, τ across query
    halves; bottom row: per measure, the per-query differences of every run against the baseline."""
    plt = _pyplot()
    measures = list(report.scores.columns)
    columns = max(4, len(measures))
    fig = plt.figure(figsize=(4.6 * columns, 9.6), constrained_layout=True)
    grid = fig.add_gridspec(2, columns)
    tau_ax, ap_ax, asl_ax, stab_ax = (fig.add_subplot(grid[0, k]) for k in range(4))
    _heatmap(fig, tau_ax, report, "kendall_tau", "Kendall τ-b, original vs transformed labels")
    _heatmap(fig, ap_ax, report, "tau_ap_b", "τ_AP,b, original vs transformed labels")

    for measure, pairs in report.pairs.groupby("measure", sort=False):
        p = np.sort(pairs["p_value"].to_numpy())
        asl_ax.plot(np.arange(1, len(p) + 1), p, marker=".", label=measure)
    alpha = float(report.power["alpha"].iloc[0]) if len(report.power) else 0.05
    test = str(report.power["test"].iloc[0]) if len(report.power) else ""
    asl_ax.axhline(alpha, color="grey", linestyle="--", linewidth=1)
    asl_ax.xaxis.get_major_locator().set_params(integer=True)
    asl_ax.set_xlabel("run pairs sorted by ASL")
    asl_ax.set_ylabel(f"achieved significance level ({test})")
    asl_ax.set_title("Discriminative power (Sakai 2006)", fontsize=10)
    asl_ax.legend(fontsize=7)

    stab = report.stability
    stab_ax.barh(stab["measure"], stab["tau_mean"], xerr=stab["tau_sd"], color="tab:blue", alpha=0.7)
    stab_ax.invert_yaxis()
    stab_ax.set_xlim(min(0.0, float(np.nanmin(stab["tau_mean"] - stab["tau_sd"])) if len(stab) else 0.0), 1.0)
    stab_ax.set_title("Kendall τ-b between random query halves", fontsize=10)

    baseline = report.comparison.attrs.get("baseline")
    for k, measure in enumerate(measures):
        differences_axes(fig.add_subplot(grid[1, k]), report.per_query, baseline, measure)
    if title:
        fig.suptitle(title)
    return fig
