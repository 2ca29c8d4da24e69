"""Agreement between measures: do they rank the runs alike? Per pair of measures, Kendall's τ-b and
τ_AP (the tie-aware, symmetric τ_AP,b of Urbano & Marrero 2017, Yilmaz et al.'s τ_AP averaged both
ways when there are no ties) between the runs' scores, the pairs of runs the two measures order
oppositely, and how many of those swaps are significant for both measures (a swap between runs
the test separates matters; one inside a group does not)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded import statistics
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments.testing import Testing
from ir_measures_graded.organiser import common
from ir_measures_graded.organiser.leaderboard import Leaderboard, leaderboard

__all__ = ["Agreement", "agreement"]


@dataclass
class Agreement(common.View):
    """A row per pair of measures: ``tau``, ``tau_ap``, ``swaps`` (pairs of runs ordered oppositely),
    ``significant_swaps`` (of those, separated by the test under both measures; NaN when either
    measure is not tested) and ``pairs`` (pairs of runs)."""

    table: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    title: str = "Agreement between measures"
    label: str = "tab:agreement"


def agreement(exp: Any, measures: Sequence[Any] | None = None, board: Leaderboard | None = None,
              testing: Testing | None = None) -> Agreement:
    """τ, τ_AP and swaps between the run rankings of every pair of ``measures`` (default: all of
    ``exp``'s). The significance of a swap comes from ``board`` (a :func:`leaderboard` of ``exp``: its
    testing), else from a leaderboard made here with ``testing`` (a
    :class:`~ir_measures_graded.experiments.testing.Testing`; default the leaderboard's); not both."""
    if board is not None and testing is not None:
        raise GradedInputError("give the agreement a leaderboard (board=) or a testing, not both: the board's "
                               "testing decides which swaps are significant")
    common.check_runs(exp, "agreement between measures")
    names = common.chosen(exp, measures)
    if len(names) < 2:
        raise ValueError("agreement needs at least two measures")
    if board is None:
        board = leaderboard(exp, measures=names, testing=testing)
    runs = list(exp.runs)
    order = [board.runs.index(r) for r in runs]  # the board's matrices in the experiment's order
    sig = {m: _reordered(board.significant(m), order) for m in names}
    scores = {m: common.aggregate(exp, m) for m in names}
    rows = []
    i, j = np.triu_indices(len(runs), k=1)  # the pairs of runs, in the order statistics.swaps lists them
    for first, second in combinations(names, 2):
        a, b = scores[first], scores[second]
        swaps = statistics.swaps(a, b)[0]
        sig_a, sig_b = sig[first], sig[second]
        both = None if sig_a is None or sig_b is None else (sig_a & sig_b)[i, j]
        rows.append((first, second, statistics.kendall_tau(a, b), statistics.tau_ap_b(a, b), int(swaps.sum()),
                     np.nan if both is None else float((swaps & both).sum()), len(i)))
    table = pd.DataFrame(rows, columns=["measure", "other", "tau", "tau_ap", "swaps", "significant_swaps", "pairs"])
    table["significant_swaps"] = table["significant_swaps"].astype("Int64")  # missing: a measure not tested
    notes = ["tau: Kendall's tau-b; tau_ap: tau_AP,b (Urbano & Marrero 2017; Yilmaz et al.'s tau_AP both ways "
             "without ties). swaps: pairs of runs the two measures order oppositely; significant_swaps: those "
             f"separated under both measures ({board.testing.describe_pairs()}, alpha = {board.testing.alpha:g})."]
    untested = [m for m in names if sig[m] is None]
    if untested:
        notes.append(f"No significant swaps for {', '.join(untested)}: not tested (its aggregate is not the mean "
                     "of its per-query values).")
    notes += exp.unjudged_note
    return Agreement(table, notes)


def _reordered(significant: np.ndarray | None, order: Sequence[int]) -> np.ndarray | None:
    """A leaderboard's significance matrix with its runs in ``order`` (None: the measure was not tested)."""
    return None if significant is None else significant[np.ix_(order, order)]
