"""The paper's figures drawn with matplotlib (extra ``notebooks``), axes labelled as in the paper; each a
:func:`~ir_measures_graded.canvas.new_figure`: the caller's backend and pyplot's figures are left alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from ir_measures_graded.canvas import new_figure

try:
    import matplotlib  # noqa: F401 (what the figures need, said when this module is imported)
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError("plots need matplotlib: pip install 'ir-measures-graded[notebooks]'") from error

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def swap_curves(curves: pd.DataFrame, title: str = "") -> Figure:
    """Figs. 4-5: one panel per measure, performance against swapped pairs, one line per level count."""
    measures = list(dict.fromkeys(curves["measure"]))
    fig = new_figure(4.2 * len(measures), 3.6, layout=None)
    axes = fig.subplots(1, len(measures), sharey=True, squeeze=False)
    for ax, measure in zip(axes[0], measures, strict=True):
        for levels, curve in curves[curves["measure"] == measure].groupby("levels"):
            ax.plot(curve["swaps"], curve["mean"], label=f"{levels} levels")
        ax.set_title(measure)
        ax.set_xlabel("number of swapped pairs")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("performance (mean of the repetitions)")
    axes[0][0].set_ylim(0, 1.02)
    axes[0][-1].legend(title="relevance levels")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def strategy_performance(map_by_threshold: pd.DataFrame, summary: pd.DataFrame, title: str = "") -> Figure:
    """Figs. 6-8: left, MAP at each threshold t per strategy; right, the summary measures per strategy."""
    fig = new_figure(13, 4.2, layout=None)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.2, 1]})
    thresholds = map_by_threshold.columns.to_numpy(dtype=float)
    marker = "o" if len(thresholds) <= 20 else None
    for strategy, row in map_by_threshold.iterrows():
        left.plot(thresholds, row.to_numpy(), marker=marker, label=f"strategy {strategy}")
    left.set_xlabel("threshold t")
    left.set_ylabel("MAP")
    left.set_ylim(0, 1.02)
    left.grid(alpha=0.3)
    left.legend(fontsize="small", ncol=2)
    summary.plot.bar(ax=right, rot=0, width=0.8)
    right.set_xlabel("strategy (OHSUMED feature id)")
    right.set_ylabel("performance")
    right.set_ylim(0, 1.3)
    right.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    right.legend(fontsize="small", loc="upper center", ncol=2)
    right.grid(alpha=0.3, axis="y")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
