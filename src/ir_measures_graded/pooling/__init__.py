"""Pool construction: the pool to judge, built from runs before any judgment (:mod:`.build`).

The strategies' names and what each does are here (light: the command line's parser lists them without
loading numpy or pandas); :func:`build_pool` and :class:`JudgingPool` load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ir_measures_graded.lazy import lazy_attributes

if TYPE_CHECKING:
    from ir_measures_graded.pooling.build import JudgingPool, build_pool, build_pools, rank_runs

__all__ = ["build_pool", "build_pools", "JudgingPool", "rank_runs", "STRATEGIES", "ADAPTIVE"]

#: The strategies, by name, with what each does.
STRATEGIES = {
    "depth": "every document some run ranks within --depth (TREC's top-k pool)",
    "rbp": "RBP-weighted: sum over runs of (1 - p) p^(rank - 1), highest first (Moffat, Webber & Zobel 2007)",
    "rrf": "reciprocal rank fusion: sum over runs of 1 / (k + rank), highest first",
    "mtf": "move-to-front (Cormack, Palmer & Clarke 1998): adaptive, needs the judgments",
    "bandit": "multi-armed bandit, MaxMean (Losada, Parapar & Barreiro 2016): adaptive, needs the judgments",
}
ADAPTIVE = ("mtf", "bandit")

__getattr__ = lazy_attributes(__name__, {name: "ir_measures_graded.pooling.build"
                                         for name in ("build_pool", "build_pools", "JudgingPool",
                                                                   "rank_runs")})
