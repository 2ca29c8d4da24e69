"""The figure of two judges (matplotlib, imported only here), a :func:`~ir_measures_graded.canvas.new_figure` one
column wide: each run's value under judge A against its value under another judge, a panel per measure, the identity line."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ir_measures_graded.canvas import COLUMN, SMALL, new_figure
from ir_measures_graded.errors import GradedInputError


def scatter(agreement: Any, judge: str, measures: Sequence[str] | None = None, path: Any = None) -> Any:
    """A panel per measure (default: every measure of the comparison): a dot per run at (value under A, value
    under ``judge``), the identity line, and the panel's τ-b in its title; saved to ``path`` when given."""
    runs = agreement.runs.table
    judges = list(dict.fromkeys(runs["judge"]))
    if judge not in judges:
        raise GradedInputError(f"judge {judge} is none of the compared ones: {', '.join(judges)}")
    of = runs[runs["judge"] == judge]
    chosen = list(dict.fromkeys(of["measure"])) if measures is None else list(measures)
    unknown = [m for m in chosen if m not in set(of["measure"])]
    if unknown:
        raise GradedInputError(f"measure {unknown[0]} is none of the compared ones: {', '.join(dict.fromkeys(of['measure']))}")
    systems = agreement.systems.table.set_index(["judge", "measure"])
    columns = min(2, len(chosen))  # one column of a paper: at most two square panels a row
    rows = math.ceil(len(chosen) / columns)
    fig = new_figure(COLUMN, rows * (COLUMN / columns + 0.35))
    axes = np.atleast_1d(fig.subplots(rows, columns, squeeze=False)).ravel()
    for ax, measure in zip(axes, chosen, strict=False):
        values = of[of["measure"] == measure]
        x, y = values["value_a"].to_numpy(np.float64), values["value_b"].to_numpy(np.float64)
        finite = np.concatenate([x, y])
        finite = finite[np.isfinite(finite)]
        low, high = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 1.0)
        pad = 0.05 * (high - low or 1.0)
        ax.plot([low - pad, high + pad], [low - pad, high + pad], color="#888", linewidth=0.8, linestyle="--")
        ax.plot(x, y, "o", color="C0", markersize=4)
        ax.set_xlim(low - pad, high + pad)
        ax.set_ylim(low - pad, high + pad)
        ax.set_aspect("equal")
        tau = systems.loc[(judge, measure), "tau"]
        ax.set_title(f"{measure} (tau = {tau:.3f})", fontsize=SMALL)
        ax.set_xlabel(agreement.a, fontsize=SMALL)
        ax.set_ylabel(judge, fontsize=SMALL)
        ax.tick_params(labelsize=SMALL - 1)
        ax.grid(alpha=0.3)
    for ax in axes[len(chosen):]:
        ax.set_visible(False)
    if path is not None:
        if os.path.isdir(path):
            raise GradedInputError(f"{path} is a directory; give the figure's file name (.png, .svg, .pdf)")
        from ir_measures_graded.files import save_figure

        save_figure(fig, path)  # at its size: one column wide
    return fig
