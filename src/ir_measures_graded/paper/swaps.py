"""The artificial data set of Scheel et al. (2011), Sec. 2.1 and Figs. 4-5.

A reference ranking of ``n_items`` items whose labels use ``n_levels`` relevance levels
(0 = irrelevant .. ``n_levels - 1``), either spread uniformly over the levels or with random,
unequal probabilities (some levels then stay unused). Test rankings are made from it by 0 ..
``max_swaps`` random pairwise swaps, each count repeated ``repetitions`` times; every measure is
averaged over the repetitions. The same swap sequences are applied to every level count, so the
curves of one distribution differ only by the labels. Each repetition draws its own reference
labels (identical for ``'uniform'``; a fresh random level usage for ``'non-uniform'``, so the curve
is the average over such data sets rather than the accident of one draw).

The paper's claim, quantified by :func:`level_spread`: at any number of swaps, µMAP and mean NDCNG
give (almost) the same value whatever the number of levels; mean NDCG does not.
"""

from __future__ import annotations

from collections.abc import Sequence

import ir_measures
import numpy as np
import pandas as pd

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures import meanNDCG, meanNDCNG, muMAP

LEVEL_COUNTS = (2, 10, 20, 50)
DISTRIBUTIONS = ("uniform", "non-uniform")
#: What Figs. 4-5 plot, by the paper's names.
SWAP_MEASURES = {"µMAP": muMAP, "mean NDCG": meanNDCG, "mean NDCNG": meanNDCNG}


def reference_labels(n_items: int, n_levels: int, distribution: str, rng: np.random.Generator) -> np.ndarray:
    """Labels of the reference ranking, best first (sorted descending), integers 0 .. n_levels - 1.

    ``'uniform'``: as equal a number of items per level as ``n_items`` allows (Fig. 2).
    ``'non-uniform'``: each item's level drawn with probabilities proportional to independent
    uniform(0, 1) weights, one per level, so levels are used unequally and some not at all (Fig. 3);
    drawn again in the rare case that no item is relevant.
    """
    if n_levels < 2 or n_items < 2:
        raise GradedInputError(f"need at least 2 items and 2 levels, got {n_items} items, {n_levels} levels")
    if distribution == "uniform":
        labels = np.arange(n_items) * n_levels // n_items
    elif distribution == "non-uniform":
        while True:
            weights = rng.random(n_levels)
            labels = rng.choice(n_levels, size=n_items, p=weights / weights.sum())
            if labels.max() > 0:
                break
    else:
        raise GradedInputError(f"distribution must be one of {DISTRIBUTIONS}, not {distribution!r}")
    return np.sort(labels)[::-1].copy()


def swapped_rankings(n_items: int, max_swaps: int, repetitions: int, rng: np.random.Generator) -> np.ndarray:
    """Test rankings as item positions: ``out[r, k]`` is repetition r after k random pairwise swaps.

    Shape ``(repetitions, max_swaps + 1, n_items)``; ``out[:, 0]`` is the reference order
    ``0 .. n_items - 1``. Swap k exchanges two distinct, uniformly chosen positions of ranking k - 1.
    """
    order = np.tile(np.arange(n_items, dtype=np.int32), (repetitions, 1))
    out = np.empty((repetitions, max_swaps + 1, n_items), dtype=np.int32)
    out[:, 0] = order
    rows = np.arange(repetitions)
    for k in range(1, max_swaps + 1):  # one vectorised step per swap, for all repetitions at once
        a = rng.integers(n_items, size=repetitions)
        b = (a + rng.integers(1, n_items, size=repetitions)) % n_items  # a position other than a
        order[rows, a], order[rows, b] = order[rows, b], order[rows, a]
        out[:, k] = order
    return out


def evaluate_rankings(labels: np.ndarray, rankings: np.ndarray, measures: dict) -> pd.DataFrame:
    """Mean and standard deviation over repetitions of each measure, per number of swaps.

    ``labels``: the reference labels, best first, either one array of ``n_items`` shared by all
    repetitions or one row per repetition.

    Every test ranking becomes one query of the same reference labels, scored through
    ``ir_measures.iter_calc`` (our provider), so this is exactly what a user would compute.
    """
    repetitions, n_counts, n_items = rankings.shape
    n_queries = repetitions * n_counts
    labels = np.broadcast_to(labels, (repetitions, n_items))  # one reference per repetition, or shared
    query_ids = np.arange(n_queries).astype(str).astype(object)  # query i: swaps i // repetitions
    doc_ids = np.char.add("item", np.arange(n_items).astype(str)).astype(object)
    qrels = pd.DataFrame({"query_id": np.repeat(query_ids, n_items), "doc_id": np.tile(doc_ids, n_queries),
                          "relevance": np.tile(labels, (n_counts, 1)).ravel()})
    items = rankings.transpose(1, 0, 2).reshape(n_queries, n_items)  # grouped by number of swaps
    run = pd.DataFrame({"query_id": np.repeat(query_ids, n_items), "doc_id": doc_ids[items.ravel()],
                        "score": np.tile(np.arange(n_items, 0, -1, dtype=np.float64), n_queries)})
    names = {measure: name for name, measure in measures.items()}
    values = pd.DataFrame([(int(m.query_id) // repetitions, names[m.measure], m.value)
                           for m in ir_measures.iter_calc(list(measures.values()), qrels, run)],
                          columns=["swaps", "measure", "value"])
    values["measure"] = pd.Categorical(values["measure"], categories=list(measures))  # keep the given order
    curves = values.groupby(["measure", "swaps"], observed=True)["value"].agg(["mean", "std"]).reset_index()
    curves["measure"] = curves["measure"].astype(str)
    return curves


def swap_experiment(distribution: str = "uniform", level_counts: Sequence[int] = LEVEL_COUNTS,
                    max_swaps: int = 99, repetitions: int = 100, n_items: int = 100, seed: int = 2011,
                    measures: dict | None = None) -> pd.DataFrame:
    """The curves of Fig. 4 (``'uniform'``) or Fig. 5 (``'non-uniform'``).

    Returns a long table: ``distribution``, ``levels``, ``measure``, ``swaps``, ``mean`` (over the
    repetitions) and ``std``. Seeded: the same arguments give the same numbers.
    """
    if max_swaps < 0 or repetitions < 1:
        raise GradedInputError(f"need max_swaps >= 0 and repetitions >= 1, got {max_swaps}, {repetitions}")
    measures = SWAP_MEASURES if measures is None else measures
    rng = np.random.default_rng(seed)
    rankings = swapped_rankings(n_items, max_swaps, repetitions, rng)
    frames = []
    for n_levels in level_counts:
        labels = np.stack([reference_labels(n_items, n_levels, distribution, rng) for _ in range(repetitions)])
        curves = evaluate_rankings(labels, rankings, measures)
        frames.append(curves.assign(distribution=distribution, levels=n_levels))
    columns = ["distribution", "levels", "measure", "swaps", "mean", "std"]
    return pd.concat(frames, ignore_index=True)[columns]


def level_spread(curves: pd.DataFrame, at: Sequence[int] = (30, 99)) -> pd.DataFrame:
    """How far apart the level counts' curves are: max - min over level counts of the mean value.

    One row per (distribution, swaps) in ``at`` (those the curves reach), one column per measure.
    Small means the measure does not depend on the number of relevance levels.
    """
    chosen = curves[curves["swaps"].isin(list(at))]
    spread = chosen.groupby(["distribution", "swaps", "measure"], sort=False)["mean"].agg(lambda v: v.max() - v.min())
    return spread.unstack("measure")
