"""Pool reusability and incompleteness: what the judgments owe each run.

:func:`pool` (Zobel 1998; Büttcher et al. 2007): with the pool depth given or inferred — per topic,
the deepest k at which every run's top k is judged — the judged documents each run (or group of
runs) contributed and those it alone contributed, by grade; then each run is re-evaluated without
the judgments its group alone contributed (leave-one-run-out, or group-out), and the change in its
value and in its rank among the others (at their values) is reported. The largest drop over the runs
is the collection's reusability figure, per measure.

:func:`bounds`: per run and measure, judged@k and the values with the run's unjudged retrieved
documents judged at the floor and at the top grade of their topic (each added to the qrels, the
ideal ranking included, as an assessor would add them). The interval between the two is where the
value moves when those documents are judged one way or the other: a leaderboard row whose interval
overlaps another's may swap with it.

Rankings follow ir_measures' conventions (score descending as float32, ties by doc id descending).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments.formats import number
from ir_measures_graded.experiments.naming import display as shown_name
from ir_measures_graded.experiments.rejudging import Rejudging
from ir_measures_graded.organiser import common

__all__ = ["Pool", "pool", "Bounds", "bounds", "UNBOUNDED", "run_groups", "declared", "contributed"]

#: Measures that cannot be bounded by judging the unjudged documents, and why (one line each).
UNBOUNDED = {
    "Judged": "it measures the judging, not the ranking: with the unjudged documents judged it is 1 whatever "
              "their grade",
    "NumRet": "it counts retrieved documents whatever their labels",
    "NumQ": "it counts queries whatever their labels",
    "NumRel": "it counts the qrels' relevant documents, not the run's",
    "gRBP_residual": "it is already an interval: the residual of gRBP left by the unjudged documents",
}


def run_groups(runs: Sequence[str], groups: Any, find: Callable[[Any], str] | None = None) -> list[str]:
    """The group of each run: ``None`` (each run its own), a separator (runs sharing the prefix before
    its first occurrence: ``"-"`` groups ``uva-bm25`` and ``uva-dense``), a mapping ``{run: group}``
    (runs it does not name are their own group; ``find`` turns a key into a run's name) or a function
    of the run's name."""
    if groups is None:
        return list(runs)
    if isinstance(groups, str):
        return [run.split(groups, 1)[0] if groups in run else run for run in runs]
    if isinstance(groups, Mapping):
        named: dict[str, str] = {}
        unknown = []
        for key, group in groups.items():
            try:
                named[find(key) if find else str(key)] = str(group)
            except GradedInputError:
                unknown.append(str(key))
        unknown += [k for k in named if k not in runs]
        if unknown:
            raise GradedInputError(f"groups name runs the experiment does not have: {', '.join(unknown)} "
                                   f"(its runs: {', '.join(runs)})")
        return [named.get(run, run) for run in runs]
    if callable(groups):
        return [str(groups(run)) for run in runs]
    raise GradedInputError(f"groups must be a separator, a mapping {{run: group}} or a function, got {groups!r}")


@dataclass
class Pool(common.View):
    """Leave-one-run-out (or group-out). ``table``: a row per run and measure (``group``, ``pooled``: whether
    the run formed the pool, ``value``,
    ``value_without`` its group's unique judgments, ``delta``, ``rank``, ``rank_without``,
    ``rank_change``: positive is a drop); ``contributions``: per group and grade, the judged documents
    it contributed within the pool depth and those only it contributed (``unique``); ``depths``: the
    pool depth of each topic; ``reusability``: per measure, the largest drop in value and in rank over
    the runs (and whose)."""

    table: pd.DataFrame
    contributions: pd.DataFrame
    depths: pd.DataFrame
    reusability: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    title: str = "Leave-one-run-out"
    label: str = "tab:pool"

    def legend(self, places: int = 4) -> str:
        """The notes, then per measure its largest drop (``places`` decimals, as the table's values)."""
        drops = [f"{r.measure}: largest drop {number(r.largest_drop, places)} ({r.run}), largest rank "
                 f"drop {r.largest_rank_drop:g}." for r in self.reusability.itertuples()]
        return "\n".join([*(n for n in self.notes if n), *drops])

    def display(self, places: int = 4, latex: bool = False) -> pd.DataFrame:
        """The leave-out table; without groups (each run its own) the group column is the run's: left out;
        the ``pooled`` column only when some run was not (a declared pool)."""
        shown = self.table.drop(columns="group") if (self.table["group"] == self.table["run"]).all() else self.table
        return shown if not shown["pooled"].all() else shown.drop(columns="pooled")


def _lengths(prepared: Rejudging, n_runs: int) -> np.ndarray:
    """runs × topics: how many documents each run ranks for each topic."""
    lengths = np.zeros((n_runs, prepared.n_queries), dtype=np.int64)
    for i in range(n_runs):
        ranked = prepared.ranking(i)
        lengths[i] = np.bincount(ranked.query, minlength=prepared.n_queries)
    return lengths


def inferred_depths(prepared: Rejudging, n_runs: int, skip: Sequence[int] = ()) -> np.ndarray:
    """Per topic, the deepest k at which every run's top k is judged (a run judged to its end does not
    limit it; a topic no run leaves unjudged gets its longest ranking). The runs ``skip`` (those with no
    judged document: they were not pooled) limit nothing."""
    depth = np.full(prepared.n_queries, np.iinfo(np.int64).max, dtype=np.int64)
    for i in range(n_runs):
        if i in skip:
            continue
        ranked = prepared.ranking(i)
        unjudged = np.isnan(ranked.label)
        np.minimum.at(depth, ranked.query[unjudged], ranked.rank[unjudged] - 1)
    lengths = _lengths(prepared, n_runs)
    pooled = [i for i in range(n_runs) if i not in skip]
    longest = lengths[pooled].max(axis=0) if pooled else np.zeros(prepared.n_queries, dtype=np.int64)
    return np.where(depth == np.iinfo(np.int64).max, longest, depth)


def declared(exp: Any, pooled: Any) -> list[int]:
    """The positions of the runs ``pooled`` names (names, positions, paths, file names or run tags), once
    each in the experiment's order; an empty declaration is refused."""
    if isinstance(pooled, (str, int)):
        pooled = [pooled]
    found = {exp.find(key, "pooled") for key in pooled}
    if not found:
        raise GradedInputError("the declared pool names no run: give the runs that were pooled, or None to infer the "
                               "pool from every run")
    return [i for i, run in enumerate(exp.runs) if run in found]


def contributed(prepared: Rejudging, members: Sequence[int], group_code: np.ndarray,
                depths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Which judged documents the runs ``members`` have within ``depths`` (per topic), by group:
    ``(group, judgment row)`` pairs once each, whether the row is held by that group alone, and per
    judgment row the number of groups holding it."""
    n_rows = len(prepared.judgments.query)
    pairs = [np.zeros(0, dtype=np.int64)]
    for i in members:
        ranked = prepared.ranking(int(i))
        inside = ~np.isnan(ranked.label) & (ranked.rank <= depths[ranked.query])
        pairs.append(group_code[i] * n_rows + ranked.label[inside].astype(np.int64))
    pair = np.unique(np.concatenate(pairs))
    pair_group, pair_row = pair // n_rows, pair % n_rows
    holders = np.bincount(pair_row, minlength=n_rows)
    return pair_group, pair_row, holders[pair_row] == 1, holders


def _formed(exp: Any, prepared: Rejudging, depth: int | None, groups: Any, pooled: Any
            ) -> tuple[list[int], list[str], list[str], np.ndarray, np.ndarray]:
    """How the pool was formed: the pooled runs' positions (declared, else every run with a judged
    document), each run's group, the pooled groups' names, each run's group code (-1: not pooled) and
    the depth of each topic (given, else inferred from the pooled runs)."""
    runs = list(exp.runs)
    group_of = run_groups(runs, groups, lambda key: exp.find(key, "groups"))
    lost = set(exp.unjudged)
    members = declared(exp, pooled) if pooled is not None else [i for i, r in enumerate(runs) if r not in lost]
    names_of_groups = list(dict.fromkeys(group_of[i] for i in members)) or list(dict.fromkeys(group_of))
    if depth is not None:
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
            raise GradedInputError(f"the pool depth must be a positive whole number, got {depth!r}")
        deepest = _lengths(prepared, len(runs)).max(axis=1)
        short = [f"{shown_name(runs[i])} ranks at most {deepest[i]}" for i in members if deepest[i] < depth]
        if short:
            raise GradedInputError(f"pool depth {depth} is deeper than some runs: {'; '.join(short)} documents "
                                   "per query")
        depths = np.full(prepared.n_queries, int(depth), dtype=np.int64)
    else:
        depths = inferred_depths(prepared, len(runs), [i for i in range(len(runs)) if i not in members])
    group_code = np.array([names_of_groups.index(g) if g in names_of_groups else -1 for g in group_of],
                          dtype=np.int64)
    return members, group_of, names_of_groups, group_code, depths


def pool(exp: Any, depth: int | None = None, groups: Any = None, measures: Sequence[Any] | None = None,
         pooled: Sequence[Any] | None = None) -> Pool:
    """Pool reusability of ``exp``'s judgments for ``measures`` (default: all of ``exp``'s).

    - ``pooled``: the runs that formed the pool (names, positions, paths, file names or run tags), as the
      organiser declares it; the others are the new systems the reusability question is about: they
      contributed nothing and are not left out (their row has no ``value_without``). None: every run
      with a judged document formed the pool;
    - ``depth``: the pool depth (every topic); None infers it per topic from the pooled runs (see
      :func:`inferred_depths`); deeper than some pooled run's rankings is refused;
    - ``groups``: runs left out together (a separator, a mapping or a function: :func:`run_groups`).
    """
    common.check_runs(exp, "pool reusability")
    runs = list(exp.runs)
    names = common.chosen(exp, measures)
    chosen = [m for m in exp.measures if exp.label[m] in names]
    prepared = Rejudging(exp, chosen)
    n_runs, n_rows = len(runs), len(prepared.judgments.query)
    members, group_of, names_of_groups, group_code, depths = _formed(exp, prepared, depth, groups, pooled)
    if pooled is None and len(names_of_groups) < 2:
        raise GradedInputError(f"pool reusability needs at least two groups of runs; every run is in "
                               f"{names_of_groups[0]}")
    pair_group, pair_row, alone, holders = contributed(prepared, members, group_code, depths)
    grade = prepared.judgments.label[pair_row]
    contributions = (pd.DataFrame({"group": np.asarray(names_of_groups, dtype=object)[pair_group], "grade": grade,
                                   "unique": alone})
                     .groupby(["group", "grade"], sort=False)
                     .agg(contributed=("unique", "size"), unique=("unique", "sum")).reset_index())
    contributions["unique"] = contributions["unique"].astype(np.int64)
    contributions = contributions.sort_values(["group", "grade"], key=lambda c: c.map(
        names_of_groups.index) if c.name == "group" else c, ignore_index=True)
    # leave each group out: its unique judgments removed, its runs re-evaluated
    before = {m: common.aggregate(exp, m) for m in names}
    rank_before = {m: common.competition_ranks(before[m]) for m in names}
    rows = []
    for g, group in enumerate(names_of_groups):
        keep = np.ones(n_rows, dtype=bool)
        keep[pair_row[(pair_group == g) & alone]] = False
        left_out = [i for i in members if group_code[i] == g]
        after = {}
        for i in left_out:
            after[i] = {exp.label[m]: v for m, v in prepared.evaluate(i, keep=None if keep.all() else keep).items()}
            prepared.release(i)  # each run is left out once: one run's ranking and dict at a time
        for m in names:
            scores = before[m].copy()
            scores[left_out] = [after[i][m] for i in left_out]
            ranks = common.competition_ranks(scores)
            rows += [(group, runs[i], m, before[m][i], scores[i], rank_before[m][i], ranks[i], True) for i in left_out]
    # the runs that did not form the pool: nothing of theirs to leave out
    rows += [(group_of[i], runs[i], m, before[m][i], np.nan, rank_before[m][i], np.nan, False)
             for i in range(n_runs) if i not in members for m in names]
    table = pd.DataFrame(rows, columns=["group", "run", "measure", "value", "value_without", "rank", "rank_without",
                                        "pooled"])
    table["delta"] = table["value_without"] - table["value"]
    table["rank_change"] = table["rank_without"] - table["rank"]
    for column in ("rank", "rank_without", "rank_change"):
        table[column] = table[column].astype("Int64")
    table = table[["group", "run", "measure", "pooled", "value", "value_without", "delta", "rank", "rank_without",
                   "rank_change"]]
    reusability = _reusability(table[table["pooled"]], names)
    pooled_rows = int((holders > 0).sum())
    depth_text = f"{depth}" if depth is not None else (
        f"inferred per topic, {int(depths.min())} to {int(depths.max())}" if len(depths) else "none")
    kind = "group" if groups is not None else "run"
    notes = [f"Pool depth: {depth_text}. {pooled_rows} of the {n_rows} judgments are in some run's pool; "
             f"{int(alone.sum())} were contributed by one {kind} alone."]
    if pooled is not None:
        notes.append(_declared_note(prepared, runs, members, depths))
    notes += exp.unjudged_note
    return Pool(table, contributions,
                pd.DataFrame({"query_id": prepared.judgments.query_ids.astype(str), "depth": depths}),
                reusability, notes, title="Leave-one-group-out" if groups is not None else "Leave-one-run-out")


def _declared_note(prepared: Rejudging, runs: list[str], members: list[int], depths: np.ndarray) -> str:
    """What the declared pool is, which runs are new to it, and whether the judgments hold its documents."""
    others = [shown_name(r) for i, r in enumerate(runs) if i not in members]
    missing = 0
    for i in members:
        ranked = prepared.ranking(i)
        missing += int((np.isnan(ranked.label) & (ranked.rank <= depths[ranked.query])).sum())
    text = (f"Declared pool: {', '.join(shown_name(runs[i]) for i in members)}. "
            + (f"Not pooled (scored as new systems, not left out): {', '.join(others)}. " if others else ""))
    return text + (f"{missing} documents of the pooled runs within the depth are unjudged: is the depth right?"
                   if missing else "Every document of the pooled runs within the depth is judged.")


def _reusability(table: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    rows = []
    for m in names:
        of = table[table["measure"] == m]
        drop = of["value"] - of["value_without"]
        worst = drop.idxmax() if drop.notna().any() else None
        rows.append((m, float(drop.max()) if worst is not None else np.nan, "" if worst is None else of.at[worst, "run"],
                     float(drop.mean()), of["rank_change"].max()))
    found = pd.DataFrame(rows, columns=["measure", "largest_drop", "run", "mean_drop", "largest_rank_drop"])
    found["largest_rank_drop"] = found["largest_rank_drop"].astype("Int64")
    return found


@dataclass
class Bounds(common.View):
    """A row per run and measure: ``value`` (the experiment's), ``judged`` (judged@k: the share of the run's
    top k that is judged, k the measure's cutoff or the whole ranking, averaged over the judged topics),
    ``floor`` and ``top`` (the values with the run's unjudged documents judged at the floor and at the
    topic's top grade), ``low`` and ``high`` (the smaller and the larger of the two: the interval) and
    ``overlaps`` (how many other runs' intervals overlap this run's, for the measure)."""

    table: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    title: str = "Incompleteness bounds"
    label: str = "tab:bounds"
    lost: list[str] = field(default_factory=list)  # runs with no judged document: no interval

    def display(self, places: int = 4, latex: bool = False) -> pd.DataFrame:
        """The table; a run with no judged document says so where its interval would be."""
        if not self.lost:
            return self.table
        shown = self.table.astype({c: object for c in ("floor", "top", "low", "high", "overlaps")})
        for column in ("floor", "top", "low", "high"):  # as text: ``places`` decimals, as every number shown
            shown[column] = [number(v, places) for v in self.table[column]]
        at = shown["run"].isin(self.lost)
        shown.loc[at, ["floor", "top", "low", "high"]] = "no judged document"
        shown.loc[at, "overlaps"] = ""
        return shown

    def interval(self, measure: str) -> pd.DataFrame:
        return self.table[self.table["measure"] == measure].set_index("run")[["low", "high", "overlaps"]]


def _floor(measure: Any) -> float:
    """The label the measure counts as irrelevant (its ``floor``; ir_measures' measures: 0)."""
    try:
        return float(measure.value("floor"))
    except (AttributeError, KeyError, TypeError, ValueError):
        return 0.0


def bounds(exp: Any, measures: Sequence[Any] | None = None, pooled: Sequence[Any] | None = None,
           depth: int | None = None, groups: Any = None) -> Bounds:
    """Incompleteness bounds of ``exp``'s runs for ``measures`` (default: all of ``exp``'s); a measure
    in :data:`UNBOUNDED` is refused, saying why.

    With a declared pool (``pooled``, ``depth``, ``groups`` as :func:`pool` takes them), each pooled run is
    bounded as if it had not contributed: the judgments its group alone brought to the pool are unjudged
    too (judged@k, floor and top without them): where a run like it, new to the pool, would land."""
    common.check_runs(exp, "incompleteness bounds")
    names = common.chosen(exp, measures)
    chosen = [m for m in exp.measures if exp.label[m] in names]
    refused = [f"{m} ({UNBOUNDED[m.NAME]})" for m in chosen if getattr(m, "NAME", None) in UNBOUNDED]
    if refused:
        raise GradedInputError(f"cannot bound {'; '.join(refused)}: leave it out of the measures")
    prepared = Rejudging(exp, chosen)
    runs = list(exp.runs)
    keeps: dict[int, np.ndarray] = {}
    if pooled is not None:
        members, _, _, group_code, depths = _formed(exp, prepared, depth, groups, pooled)
        pair_group, pair_row, alone, _ = contributed(prepared, members, group_code, depths)
        for i in members:
            keeps[i] = np.ones(len(prepared.judgments.query), dtype=bool)
            keeps[i][pair_row[(pair_group == group_code[i]) & alone]] = False
    by_floor: dict[float, list[Any]] = {}
    for m in chosen:
        by_floor.setdefault(_floor(m), []).append(m)
    rows = []
    lost = set(exp.unjudged)
    for i, run in enumerate(runs):
        found: dict[str, tuple[float, float]] = {}
        for floor, ms in by_floor.items():
            if run in lost:  # nothing judged: no interval (not [floor, top], which says nothing of the run)
                found.update({exp.label[m]: (np.nan, np.nan) for m in ms})
                continue
            keep = keeps.get(i)
            low = prepared.evaluate(i, keep=keep, fill=np.full(prepared.n_queries, floor), measures=ms)
            high = prepared.evaluate(i, keep=keep, fill=np.maximum(prepared.top, floor), measures=ms)
            found.update({exp.label[m]: (low[m], high[m]) for m in ms})
        ranked = prepared.ranking(i)
        prepared.release(i)  # each run bounded once: one run's ranking and dict at a time
        for m in chosen:
            rows.append((run, exp.label[m], _judged_at(ranked, m.params.get("cutoff"), prepared.n_queries, keeps.get(i)),
                         *found[exp.label[m]]))
    table = pd.DataFrame(rows, columns=["run", "measure", "judged", "floor", "top"])
    if pooled is not None:
        table.insert(2, "pooled", table["run"].isin([runs[i] for i in keeps]))
    values = exp.aggregates.set_index(["run", "measure"])["value"]
    table.insert(2, "value", values.reindex(pd.MultiIndex.from_frame(table[["run", "measure"]])).to_numpy())
    table["low"] = table[["floor", "top"]].min(axis=1)
    table["high"] = table[["floor", "top"]].max(axis=1)
    overlaps = np.zeros(len(table), dtype=np.int64)
    for m in names:
        at = np.flatnonzero(table["measure"].to_numpy() == m)
        low, high = table["low"].to_numpy()[at], table["high"].to_numpy()[at]
        meet = (low[:, None] <= high[None, :]) & (low[None, :] <= high[:, None])  # NaN (no interval) meets none
        np.fill_diagonal(meet, False)
        overlaps[at] = meet.sum(axis=1)
    table["overlaps"] = pd.array(overlaps, dtype="Int64")
    table.loc[table["low"].isna(), "overlaps"] = pd.NA
    notes = ["judged: judged@k, the share of the top k judged (k: the measure's cutoff, else the whole ranking), "
             "averaged over the judged topics; floor / top: the value with the run's unjudged documents judged at "
             "the floor / at the top grade of their topic; overlaps: other runs whose interval meets this one's.",
             *exp.unjudged_note]
    if pooled is not None:
        notes.append("Declared pool: each pooled run bounded as if it had not contributed (the judgments its "
                     "group alone brought are unjudged for it); pooled: whether the run formed the pool.")
    return Bounds(table, notes, lost=[r for r in runs if r in lost])


def _judged_at(ranked: Any, cutoff: int | None, n_queries: int, keep: np.ndarray | None = None) -> float:
    """Mean over the judged topics of the share of the top ``cutoff`` (all) that is judged (0 unranked);
    with ``keep``, only the judgment rows it keeps count as judged."""
    inside = ranked.rank <= cutoff if cutoff else np.ones(len(ranked.rank), dtype=bool)
    counted = np.bincount(ranked.query[inside], minlength=n_queries)
    known = ~np.isnan(ranked.label)
    if keep is not None:
        known &= keep[np.nan_to_num(ranked.label, nan=0).astype(np.int64)]
    judged = np.bincount(ranked.query[inside], weights=known[inside], minlength=n_queries)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(counted > 0, judged / np.maximum(counted, 1), 0.0)
    return float(share.mean()) if n_queries else float("nan")
