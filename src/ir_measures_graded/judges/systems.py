"""Would the conclusions change with the judge? The same runs evaluated on judge A's qrels and on judge B's
(and on B relabelled onto A's scale by each monotone map given), measure by measure: Kendall's τ-b and τ_AP,b
between the two leaderboards, the largest change of a run's rank, the best run under each, the pairs the
leaderboard's test separates under one judge and not the other, and the runs whose significance group changes.

Every number is the leaderboard's own (:func:`~ir_measures_graded.organiser.leaderboard`) on each qrels, with
one :class:`~ir_measures_graded.experiments.testing.Testing`. The runs are evaluated on B from the runs as the
experiment on A read them (:meth:`~ir_measures_graded.experiments.Experiment.runs_as_read`): each qrels and
each run is read once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded import statistics
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import Experiment, experiment, formats
from ir_measures_graded.experiments.evaluation import Reading
from ir_measures_graded.experiments.testing import Testing
from ir_measures_graded.judges.grades import LabelAgreement, Table, label_agreement, relabel
from ir_measures_graded.measures import GradedMeasure
from ir_measures_graded.organiser import common
from ir_measures_graded.organiser.leaderboard import DEFAULT_TESTING, Leaderboard, leaderboard

__all__ = ["JudgeAgreement", "agree"]


@dataclass
class _Systems(Table):
    """The systems' table: its correlations with the table's places."""

    def display(self, places: int = 4, latex: bool = False) -> pd.DataFrame:
        shown = self.table.copy()
        for column in ("tau", "tau_ap"):
            shown[column] = [formats.number(v, places) for v in shown[column]]
        return shown


@dataclass
class JudgeAgreement:
    """Judges ``a`` and ``b`` side by side on one experiment's runs:

    - ``labels``: their :class:`~ir_measures_graded.judges.grades.LabelAgreement`;
    - ``systems``: a row per judge compared with A (``b``, then ``b`` relabelled by each map) and measure:
      ``scale_free`` (one of this package's measures, which do not depend on the rating scale), ``tau``,
      ``tau_ap``, ``largest_change`` (of a run's rank) and ``moved`` (that run), ``best_a``, ``best_b``,
      ``significant_a`` / ``significant_b`` (pairs separated), ``only_a`` / ``only_b`` (pairs separated under one
      judge only), ``group_changes`` (runs whose set of runs they are separated from changes); the last five
      empty for a measure the test does not apply to — the table that says which measures hold;
    - ``pairs``: each pair separated under one judge only (``measure``, ``judge``, ``run_1``, ``run_2``,
      ``separated_by``);
    - ``runs``: each run's value and rank under A and under each other judge (``measure``, ``judge``, ``run``,
      ``value_a``, ``value_b``, ``rank_a``, ``rank_b``);
    - ``experiments`` and ``boards``: the experiment and the leaderboard under each judge, by name.
    """

    a: str
    b: str
    labels: LabelAgreement
    systems: common.View
    pairs: common.View
    runs: common.View
    experiments: dict[str, Experiment]
    boards: dict[str, Leaderboard]

    def plot(self, path: Any = None, judge: str | None = None, measures: Sequence[str] | None = None) -> Any:
        """Each run's value under A against its value under ``judge`` (default B), a panel per measure, with the
        identity line; saved to ``path`` when given (.png, .svg, .pdf). Needs matplotlib (the ``meta`` extra)."""
        from ir_measures_graded.judges.figures import scatter

        return scatter(self, judge or self.b, measures, path)


# measures that count documents whatever their grade: defined on any qrels
_COUNTING = frozenset({"Judged", "NumQ", "NumRet"})


def _undefined(exp: Experiment, judge: str) -> None:
    """A measure that needs relevant documents is undefined on qrels none of whose grades reaches its relevance
    level (``rel``, else any grade above 0): every run would score 0 on every query, and its leaderboard would
    rank ties (trec_eval reports the 0s; comparing judges on them says nothing)."""
    grades = exp.qrels_frame["relevance"].to_numpy()
    top = grades.max() if len(grades) else 0
    for measure, label in zip(exp.measures, exp.labels, strict=True):
        if getattr(measure, "NAME", "") in _COUNTING:
            continue
        level = measure.params.get("rel")
        if (top < level) if level is not None else (top <= 0):
            reach = f"grade {level}" if level is not None else "a grade above 0"
            shown = ", ".join(f"{g:g}" for g in np.unique(grades)) or "none"
            raise GradedInputError(f"measure {label} is undefined on judge {judge}'s qrels: no judgment reaches "
                                   f"{reach} (its grades: {shown}), so every run scores 0")


def _check(exp: Experiment, other: Experiment, judge: str, a: str) -> None:
    for name in exp.runs:
        if exp.missing[name] == len(exp.judged) and other.missing[name] == len(other.judged):
            raise GradedInputError(f"run {name} ranks no query judged by {a} or by {judge}: it matches neither qrels")
    _undefined(other, judge)


def _separated(board: Leaderboard, measure: str, runs: list[str]) -> np.ndarray | None:
    sig = board.significant(measure)
    if sig is None:
        return None
    order = [board.runs.index(r) for r in runs]
    return np.asarray(sig, dtype=bool)[np.ix_(order, order)]


def _compare(exp: Experiment, board_a: Leaderboard, board_b: Leaderboard, judge: str, a: str,
             ) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    rows: list[dict[str, Any]] = []
    pairs: list[tuple[Any, ...]] = []
    runs: list[tuple[Any, ...]] = []
    names = list(exp.runs)
    for measure, label in zip(exp.measures, exp.labels, strict=True):
        ta = board_a.table[board_a.table["measure"] == label].set_index("run").reindex(names)
        tb = board_b.table[board_b.table["measure"] == label].set_index("run").reindex(names)
        va, vb = ta["value"].to_numpy(np.float64), tb["value"].to_numpy(np.float64)
        ra, rb = ta["rank"].to_numpy(np.float64, na_value=np.nan), tb["rank"].to_numpy(np.float64, na_value=np.nan)
        change = np.abs(ra - rb)
        moved = int(np.nanargmax(change)) if not np.isnan(change).all() else None
        row = {"measure": label, "judge": judge, "scale_free": isinstance(measure, GradedMeasure),
               "tau": statistics.kendall_tau(va, vb), "tau_ap": statistics.tau_ap_b(va, vb),
               "largest_change": None if moved is None else int(change[moved]),
               "moved": "" if moved is None or change[moved] == 0 else names[moved],
               "best_a": board_a.runs[0], "best_b": board_b.runs[0]}
        sa, sb = _separated(board_a, label, names), _separated(board_b, label, names)
        if sa is None or sb is None:
            row.update(significant_a=None, significant_b=None, only_a=None, only_b=None, group_changes=None)
        else:
            upper = np.triu(np.ones_like(sa), 1)
            row.update(significant_a=int((sa & upper).sum()), significant_b=int((sb & upper).sum()),
                       only_a=int((sa & ~sb & upper).sum()), only_b=int((sb & ~sa & upper).sum()),
                       group_changes=int((sa != sb).any(axis=1).sum()))
            for i, j in zip(*np.nonzero((sa != sb) & upper), strict=True):
                pairs.append((label, judge, names[i], names[j], a if sa[i, j] else judge))
        rows.append(row)
        runs += [(label, judge, n, va[k], vb[k], ra[k], rb[k]) for k, n in enumerate(names)]
    return rows, pairs, runs


def agree(exp: Experiment, qrels_b: Any, *, a: str = "A", b: str = "B", mapping: Any = None,
          maps: Sequence[Any] = (), testing: Testing | None = None) -> JudgeAgreement:
    """Judge A (the qrels of ``exp``) against judge B (``qrels_b``: a path, ``-``, an ir_datasets id or qrels in
    memory, read once, as :func:`~ir_measures_graded.experiments.experiment` reads qrels) on the runs of ``exp``,
    with its measures.

    - ``a``, ``b``: the judges' names in the tables;
    - ``mapping``: B's grades mapped onto A's scale for the label agreement (a monotone relabelling, e.g.
      ``map:1=1,2=3``; see :mod:`~ir_measures_graded.meta.transforms`); none is guessed;
    - ``maps``: each a monotone relabelling of B onto A's scale: the runs evaluated on B so relabelled too, a row
      per map in ``systems`` (named ``B map:...``);
    - ``testing``: the leaderboard's (default :data:`~ir_measures_graded.organiser.leaderboard.DEFAULT_TESTING`).
    """
    common.check_runs(exp, "comparing judges")
    testing = testing or DEFAULT_TESTING
    runs = exp.runs_as_read()
    measures = list(zip(exp.measures, exp.labels, strict=True))
    # judge B's qrels read as A's were (the same column names of a Parquet / Arrow input)
    reading = Reading(qrels_columns=dict(exp.qrels.columns or {}))
    judged_b = experiment(qrels_b, runs, measures, reading=reading, warn=lambda message: None)
    labels = label_agreement(exp.qrels_frame, judged_b.qrels_frame, a, b, mapping)
    experiments = {a: exp, b: judged_b}
    for given in maps:
        relabelled = relabel(judged_b.qrels_frame, given, b)
        name = f"{b} {getattr(given, 'name', given)}"
        experiments[name] = experiment(relabelled, runs, measures, reading=reading, warn=lambda message: None)
    _undefined(exp, a)
    for judge, other in experiments.items():
        if judge != a:
            _check(exp, other, judge, a)
    boards = {judge: leaderboard(other, testing=testing) for judge, other in experiments.items()}
    rows, pairs, values = [], [], []
    for judge in list(experiments)[1:]:
        found = _compare(exp, boards[a], boards[judge], judge, a)
        rows += found[0]
        pairs += found[1]
        values += found[2]
    systems = pd.DataFrame(rows)
    for column in ("largest_change", "significant_a", "significant_b", "only_a", "only_b", "group_changes"):
        systems[column] = systems[column].astype("Int64")
    tested = f"separated: {testing.describe_pairs()} at alpha = {testing.alpha:g}"
    notes = [f"Each judge's leaderboard against {a}'s, on the same runs. tau: Kendall's tau-b; tau_ap: tau_AP,b; "
             f"largest_change: the largest change of a run's rank (moved: that run); {tested}; only_a / only_b: "
             f"pairs separated under one judge only; group_changes: runs separated from a different set of runs. "
             "scale_free: a measure that does not depend on the rating scale."]
    return JudgeAgreement(
        a, b, labels,
        _Systems(systems, notes, f"Which measures hold from {a} to {b}", "tab:judges-systems"),
        Table(pd.DataFrame(pairs, columns=["measure", "judge", "run_1", "run_2", "separated_by"]),
                    [f"The pairs of runs separated under one judge only ({tested})."],
                    f"Pairs separated by one judge only ({a}, {b})", "tab:judges-pairs"),
        Table(pd.DataFrame(values, columns=["measure", "judge", "run", "value_a", "value_b", "rank_a",
                                                  "rank_b"]).astype({"rank_a": "Int64", "rank_b": "Int64"}),
                    [f"Each run's value and rank under {a} (value_a, rank_a) and under each other judge."],
                    f"Runs under {a} and {b}", "tab:judges-runs"),
        experiments, boards)

