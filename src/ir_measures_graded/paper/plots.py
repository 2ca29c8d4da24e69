"""The paper's figures drawn with matplotlib (extra ``notebooks``), axes labelled as in the paper; each a
:func:`~ir_measures_graded.canvas.new_figure` one column wide: the caller's backend and pyplot's figures are left alone."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd

from ir_measures_graded.canvas import COLUMN, FONT, SMALL, new_figure

try:
    import matplotlib  # noqa: F401 (what the figures need, said when this module is imported)
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError("plots need matplotlib: pip install 'ir-measures-graded[notebooks]'") from error

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def swap_curves(curves: pd.DataFrame, title: str = "") -> Figure:
    """Figs. 4-5, one column wide: a panel per measure (two a row, sharing the y axis), performance against
    swapped pairs, one line per level count; the legend under the panels."""
    measures = list(dict.fromkeys(curves["measure"]))
    columns = min(2, len(measures))
    rows = math.ceil(len(measures) / columns)
    fig = new_figure(COLUMN, 0.6 + 1.9 * rows)
    axes = fig.subplots(rows, columns, sharey=True, squeeze=False)
    for ax, measure in zip(axes.flat, measures, strict=False):
        for levels, curve in curves[curves["measure"] == measure].groupby("levels"):
            ax.plot(curve["swaps"], curve["mean"], label=f"{levels} levels", linewidth=1.2)
        ax.set_title(measure, fontsize=FONT)
        ax.set_xlabel("swapped pairs", fontsize=FONT)
        ax.tick_params(labelsize=SMALL)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(measures):]:
        ax.remove()
    for ax in axes[:, 0]:
        ax.set_ylabel("performance (mean)", fontsize=FONT)
    axes[0][0].set_ylim(0, 1.02)
    handles, names = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, names, loc="outside lower center", ncols=min(4, len(names)), fontsize=SMALL,
                   frameon=False, title="relevance levels", title_fontsize=SMALL)
    if title:
        fig.suptitle(title, fontsize=FONT)
    return fig


def strategy_performance(map_by_threshold: pd.DataFrame, summary: pd.DataFrame, title: str = "") -> Figure:
    """Figs. 6-8, one column wide: above, MAP at each threshold t per strategy; under it, the summary measures
    per strategy."""
    fig = new_figure(COLUMN, 5.2)
    upper, lower = fig.subplots(2, 1)
    thresholds = map_by_threshold.columns.to_numpy(dtype=float)
    marker = "o" if len(thresholds) <= 20 else None
    for strategy, row in map_by_threshold.iterrows():
        upper.plot(thresholds, row.to_numpy(), marker=marker, markersize=3, linewidth=1.2, label=f"strategy {strategy}")
    upper.set_xlabel("threshold t", fontsize=FONT)
    upper.set_ylabel("MAPᵗ", fontsize=FONT)
    upper.set_ylim(0, 1.02)
    upper.grid(alpha=0.3)
    upper.tick_params(labelsize=SMALL)
    upper.legend(fontsize=SMALL - 1, ncol=2, frameon=False)
    summary.plot.bar(ax=lower, rot=0, width=0.8)
    lower.set_xlabel("strategy (OHSUMED feature id)", fontsize=FONT)
    lower.set_ylabel("performance", fontsize=FONT)
    lower.set_ylim(0, 1.3)
    lower.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    lower.tick_params(labelsize=SMALL)
    lower.legend(fontsize=SMALL - 1, loc="upper center", ncol=3, frameon=False)
    lower.grid(alpha=0.3, axis="y")
    if title:
        fig.suptitle(title, fontsize=FONT)
    return fig
