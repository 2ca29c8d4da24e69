"""Figures of the organiser's view (matplotlib, imported only here, as for the meta-evaluation's), each a
:func:`~ir_measures_graded.canvas.new_figure` one column wide (:data:`~ir_measures_graded.canvas.COLUMN`),
laid out so that everything fits inside it and saved at that size: the caller's backend and pyplot's figures
are left alone."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ir_measures_graded.canvas import COLUMN, FONT, SMALL, labels, new_figure, short
from ir_measures_graded.errors import GradedInputError


def _saved(fig: Any, path: Any) -> Any:
    if path is not None:
        if os.path.isdir(path):
            raise GradedInputError(f"{path} is a directory; give the figure's file name (.png, .svg, .pdf)")
        from ir_measures_graded.files import save_figure

        save_figure(fig, path)  # at its size: one column wide
    return fig


def leaderboard_figure(board: Any, measure: str, path: Any = None) -> Any:
    """Each run's ``measure`` value (a dot) with its confidence interval (a line), best on top; on the
    right a column per letter of its compact letter display, shaded for the runs in that group."""
    if measure not in board.measures:
        raise GradedInputError(f"measure {measure} is not on the leaderboard: {', '.join(board.measures)}")
    rows = board.table[board.table["measure"] == measure].set_index("run").reindex(board.runs)
    from ir_measures_graded.organiser.letters import group_names, ordered_names

    letters = ordered_names(list(rows["group"]))
    n = len(rows)
    fig = new_figure(COLUMN, 1.1 + 0.2 * n)
    ax, groups = fig.subplots(1, 2, sharey=True,
                              gridspec_kw={"width_ratios": [4, max(1, len(letters)) * 0.25 + 0.2]})
    y = np.arange(n)[::-1]
    values = rows["value"].to_numpy(dtype=float)
    low, high = rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float)
    ax.hlines(y, low, high, color="#555", linewidth=1.2)
    ax.plot(values, y, "o", color="C0", markersize=3.5)
    ax.set_yticks(y, labels(list(rows.index), 22))
    ax.set_xlabel(f"{measure} (dot: the run's value;\nline: {board.testing.interval()} of the mean)", fontsize=FONT)
    ax.tick_params(labelsize=SMALL)
    ax.grid(axis="x", alpha=0.3)
    for k, letter in enumerate(letters):
        held = np.array([letter in group_names(g) for g in rows["group"]])
        groups.barh(y[held], 0.9, left=k + 0.05, height=0.9, color=f"C{k % 10}", alpha=0.45)
    groups.set_xlim(0, max(1, len(letters)))
    groups.set_xticks(np.arange(len(letters)) + 0.5, letters)
    groups.tick_params(axis="y", length=0)
    groups.tick_params(labelsize=SMALL)
    groups.set_title("groups", fontsize=SMALL)
    ax.set_title(f"Leaderboard by {board.by}", fontsize=FONT)
    return _saved(fig, path)


def topics_figure(topics: Any, run: str, measure: str, path: Any = None) -> Any:
    """``run``'s per-topic difference from the median run on ``measure``: bars, topics sorted from the
    largest gain to the largest loss; topics where it is the best in green, the worst in red."""
    of = topics.runs[(topics.runs["run"] == run) & (topics.runs["measure"] == measure)]
    if of.empty:
        raise GradedInputError(f"no per-topic values of run {run} for {measure}")
    of = of.sort_values("difference", ascending=False, kind="stable")
    colours = np.where(of["best"], "#1a7f37", np.where(of["worst"], "#b3261e", "#7a8ca3"))
    fig = new_figure(COLUMN, 2.6)
    ax = fig.add_subplot()
    x = np.arange(len(of))
    ax.bar(x, of["difference"].to_numpy(dtype=float), color=colours, width=0.85)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlim(-0.6, len(of) - 0.4)
    step = max(1, -(-len(of) // 28))  # at most 28 topic ids under the bars (rotated, 7 pt apart at least)
    ax.set_xticks(x[::step], of["query_id"].astype(str).tolist()[::step], rotation=90, fontsize=SMALL - 1)
    ax.tick_params(axis="y", labelsize=SMALL)
    ax.set_ylabel(f"{measure} − median run", fontsize=FONT)
    ax.set_xlabel("topics, the largest gain first" + ("" if step == 1 else f" (1 in {step} named)"), fontsize=FONT)
    ax.set_title(f"{short(run, 40)} against the median run\n(green: best run, red: worst)", fontsize=FONT)
    return _saved(fig, path)


def simulation_figure(simulation: Any, measure: str | None = None, path: Any = None) -> Any:
    """Pool simulation: Kendall's τ between the leaderboards on the pooled and on the full judgments against
    the budget (documents judged per topic), a line per strategy; one column of a page (3.5 in) wide."""
    table = simulation.table
    measures = list(dict.fromkeys(table["measure"]))
    measure = measures[0] if measure is None else measure
    if measure not in measures:
        raise GradedInputError(f"measure {measure} is not in the simulation: {', '.join(measures)}")
    of = table[table["measure"] == measure]
    fig = new_figure(3.5, 2.6)
    ax = fig.add_subplot()
    for k, (strategy, rows) in enumerate(of.groupby("strategy", sort=False)):
        rows = rows.sort_values("budget")
        ax.plot(rows["budget"].to_numpy(), rows["tau"].to_numpy(dtype=float), marker="o", markersize=3,
                color=f"C{k % 10}", label=strategy)
    budgets = sorted(of["budget"].unique())
    if len(budgets) > 1 and budgets[-1] / budgets[0] >= 5:
        ax.set_xscale("log")
    ax.set_xticks(budgets, [str(b) for b in budgets])
    ax.minorticks_off()
    ax.set_xlabel("budget (documents judged per topic)", fontsize=8)
    ax.set_ylabel(f"Kendall's τ ({measure})", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, frameon=False)
    return _saved(fig, path)
