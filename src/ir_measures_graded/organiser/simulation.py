"""Pool simulation on existing qrels (#51): had the judgments been made by a pooling strategy under a budget,
what would they have found, and would the leaderboard be the same?

For each strategy (:data:`ir_measures_graded.pooling.STRATEGIES`) and budget (documents judged per topic), the
pool is built from the experiment's runs by :func:`~ir_measures_graded.pooling.build_pool` (once per strategy, at
the largest budget: a smaller budget's pool is its first documents of each topic, in the pool's order, as every
strategy judges in order and stops at the budget); the adaptive strategies judge with the experiment's qrels as
the assessor. Only the judgments of pooled documents are kept: a document outside the pool is unjudged, so
non-relevant (trec_eval's convention; a judged document no run retrieved is never pooled, so it is lost even
with an unlimited budget). Every run is re-evaluated on the kept judgments (:class:`Rejudging`, the one way every
view re-evaluates) and its values compared with those on the full qrels:

- ``found``: per grade (the relevant ones, at least ``relevant``), the judgments kept and the qrels' count;
- ``tau``, ``tau_ap``: Kendall's τ-b and τ_AP,b between the runs' values on the full and on the kept judgments
  (the agreement's definitions, :func:`ir_measures_graded.statistics.kendall_tau` and ``tau_ap_b``);
- ``largest_rank_change``: the largest change of a run's competition rank (:func:`common.competition_ranks`);
- ``bias``: the mean over the runs of (value on the kept judgments − value on the full qrels).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded import statistics
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments.rejudging import Rejudging
from ir_measures_graded.organiser import common

__all__ = ["Simulation", "simulate_pools", "BUDGETS"]

#: The budgets (documents judged per topic) simulated by default.
BUDGETS = (10, 20, 50, 100)


@dataclass
class Simulation(common.View):
    """Pool simulation. ``table``: a row per strategy, budget and measure: ``pooled`` (documents in the pool,
    every topic), ``kept`` (of those, judged in the qrels), ``relevant`` (of those, relevant), ``tau``,
    ``tau_ap``, ``largest_rank_change`` and ``bias`` (mean over runs of pooled − full value); ``found``: a row
    per strategy, budget and relevant grade: ``found`` (judgments of that grade kept) and ``in_qrels`` (the
    qrels' judgments of that grade)."""

    table: pd.DataFrame
    found: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    title: str = "Pool simulation"
    label: str = "tab:pool-simulation"

    def display(self, places: int = 4, latex: bool = False) -> pd.DataFrame:
        """The table, with the relevant documents found per grade (``found 1``, ``found 2``, ...) beside."""
        wide = self.found.pivot(index=["strategy", "budget"], columns="grade", values="found")
        wide.columns = [f"found {g:g}" for g in wide.columns]
        shown = self.table.merge(wide.reset_index(), on=["strategy", "budget"], how="left", sort=False)
        for column in wide.columns:
            shown[column] = shown[column].astype("Int64")
        return shown

    def figure(self, path: Any = None, measure: str | None = None) -> Any:
        """τ against the budget, a line per strategy, for ``measure`` (default the first); written to
        ``path`` (whole or not at all) when given; returns the matplotlib Figure."""
        from ir_measures_graded.organiser.figures import simulation_figure

        return simulation_figure(self, measure, path)


def _budgets(budgets: Any) -> list[int]:
    if isinstance(budgets, (int, np.integer)) and not isinstance(budgets, bool):
        budgets = [budgets]
    found = []
    for b in budgets:
        if isinstance(b, bool) or not isinstance(b, (int, np.integer, float)) or int(b) != b or b < 1:
            raise GradedInputError(f"a budget is a whole number of documents per topic, at least 1; got {b!r}")
        found.append(int(b))
    if not found:
        raise GradedInputError("no budget given: give one or more budgets (documents judged per topic)")
    return sorted(set(found))


def _strategies(strategies: Any) -> list[str]:
    from ir_measures_graded.pooling import STRATEGIES

    if strategies is None:
        return list(STRATEGIES)
    if isinstance(strategies, str):
        strategies = [strategies]
    strategies = list(strategies)
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise GradedInputError(f"unknown pooling strategy {', '.join(map(repr, unknown))}: one of "
                               f"{', '.join(STRATEGIES)}")
    if not strategies:
        raise GradedInputError(f"no strategy given: one or more of {', '.join(STRATEGIES)}")
    return list(dict.fromkeys(strategies))


def _orders(prepared: Rejudging, pool_table: pd.DataFrame) -> np.ndarray:
    """Per judgment row, its order of judging in the pool (0: not pooled)."""
    rows = pd.DataFrame({"topic": prepared.judgment_query_ids(), "document": prepared.judgment_doc_ids(),
                         "row": np.arange(len(prepared.judgments.query))})
    joined = rows.merge(pool_table[["topic", "document", "order"]], how="inner", on=["topic", "document"])
    order = np.zeros(len(rows), dtype=np.int64)
    order[joined["row"].to_numpy()] = joined["order"].to_numpy()
    return order


def simulate_pools(exp: Any, strategies: Sequence[str] | str | None = None, budgets: Sequence[int] | int = BUDGETS,
                   measures: Sequence[Any] | None = None, *, depth: int | None = None, p: float = 0.8,
                   k: float = 60.0, relevant: float = 1.0, seed: int = 0) -> Simulation:
    """Pool simulation of ``exp`` (its runs and qrels, read once): per strategy (default all five) and budget
    (documents judged per topic; default 10, 20, 50, 100), the relevant documents the pool finds per grade and
    the fidelity of the leaderboard on the pooled judgments to the full qrels for ``measures`` (default all of
    ``exp``'s). ``depth``, ``p``, ``k``, ``seed`` as :func:`~ir_measures_graded.pooling.build_pool` takes them;
    ``relevant``: the lowest relevant label (the adaptive strategies' and the grades counted)."""
    from ir_measures_graded.pooling import build_pools

    common.check_runs(exp, "pool simulation")
    chosen_strategies = _strategies(strategies)
    chosen_budgets = _budgets(budgets)
    names = common.chosen(exp, measures)
    chosen = [m for m in exp.measures if exp.label[m] in names]
    runs = list(exp.runs)
    prepared = Rejudging(exp, chosen)
    labels = prepared.judgments.label
    held = {name: exp.run_input(name) for name in runs}
    orders = {}
    pooled_sizes = {}
    pools = build_pools(held, chosen_strategies, depth=depth, budget=max(chosen_budgets), p=p, k=k,
                        judgments=exp.qrels_table, relevant=relevant, seed=seed)
    for strategy, built in pools.items():
        orders[strategy] = _orders(prepared, built.table)
        pool_orders = built.table["order"].to_numpy()
        pooled_sizes[strategy] = {b: int((pool_orders <= b).sum()) for b in chosen_budgets}
    variants = [(s, b) for s in chosen_strategies for b in chosen_budgets]
    keeps = [(orders[s] > 0) & (orders[s] <= b) for s, b in variants]
    # every run re-evaluated on each distinct set of kept judgments (a pool that stops growing keeps the same):
    # one run's ranking at a time
    distinct: dict[bytes, int] = {}
    same = [distinct.setdefault(keep.tobytes(), len(distinct)) for keep in keeps]
    once = [keeps[same.index(d)] for d in range(len(distinct))]
    found_values = np.full((len(once), len(names), len(runs)), np.nan)
    for i in range(len(runs)):
        for d, keep in enumerate(once):
            found = prepared.evaluate(i, keep=None if keep.all() else keep)
            found_values[d, :, i] = [found[m] for m in chosen]
        prepared.release(i)
    values = found_values[same]
    full = np.array([common.aggregate(exp, m) for m in names])
    full_ranks = [common.competition_ranks(f) for f in full]
    rows = []
    for v, (strategy, budget) in enumerate(variants):
        keep = keeps[v]
        kept, good = int(keep.sum()), int((keep & (labels >= relevant)).sum())
        for j, m in enumerate(names):
            pooled = values[v, j]
            change = np.abs(common.competition_ranks(pooled) - full_ranks[j])
            rows.append((strategy, budget, m, pooled_sizes[strategy][budget], kept, good,
                         statistics.kendall_tau(full[j], pooled), statistics.tau_ap_b(full[j], pooled),
                         np.nan if np.isnan(change).all() else float(np.nanmax(change)),
                         float(np.mean(pooled - full[j]))))
    table = pd.DataFrame(rows, columns=["strategy", "budget", "measure", "pooled", "kept", "relevant", "tau",
                                        "tau_ap", "largest_rank_change", "bias"])
    table["largest_rank_change"] = table["largest_rank_change"].astype("Int64")
    grades = np.unique(labels[labels >= relevant])
    in_qrels = np.array([int((labels == g).sum()) for g in grades], dtype=np.int64)
    found_rows = [(s, b, float(g), int((keeps[v] & (labels == g)).sum()), int(n))
                  for v, (s, b) in enumerate(variants) for g, n in zip(grades, in_qrels, strict=True)]
    found = pd.DataFrame(found_rows, columns=["strategy", "budget", "grade", "found", "in_qrels"])
    per_grade = ", ".join(f"{g:g}: {n}" for g, n in zip(grades, in_qrels, strict=True))
    notes = [f"{len(runs)} runs, {prepared.n_queries} topics; budgets in documents judged per topic. The qrels' "
             f"relevant judgments per grade: {per_grade or 'none'}. pooled: documents in the pool; kept: of those, "
             "judged in the qrels (the others and every document outside the pool: unjudged, so non-relevant); "
             "relevant: of those, relevant; found g: of those, of grade g.",
             "tau: Kendall's tau-b, tau_ap: tau_AP,b between the runs' values on the full qrels and on the kept "
             "judgments; largest_rank_change: the largest change in a run's rank; bias: the mean over the runs of "
             "(value on the kept judgments - value on the full qrels).",
             *exp.unjudged_note]
    return Simulation(table, found, notes)
