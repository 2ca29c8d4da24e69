"""OHSUMED retrieval strategies judged by experts and by "virtual users" (Scheel et al. 2011, Figs. 6-8).

LETOR's OHSUMED features serve both as retrieval strategies (a run ranks each query's documents by
one feature) and, for feature 1 (TF of title) and feature 9 (TF-IDF of title), as virtual users
whose feature values become real-valued relevance labels. For each reference (the experts' 0/1/2
labels or a virtual user) :func:`compare_strategies` gives MAP at every threshold (the left half of
the figures) and µMAP, mean NDCG and mean NDCNG (the right half).

Without the LETOR files (see the README's OHSUMED section), :func:`standin_table` makes a synthetic
table of the same shape, clearly not OHSUMED, so the analysis still runs.
"""

from __future__ import annotations

from collections.abc import Sequence

import ir_measures
import numpy as np
import pandas as pd

from ir_measures_graded.datasets.letor import LetorTable
from ir_measures_graded.datasets.ohsumed import (
    LETOR_DATASETS,
    feature_qrels,
    feature_run,
    label_qrels,
    letor_table,
)
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures import meanNDCG, meanNDCNG, muMAP
from ir_measures_graded.per_level import by_level

#: The eight strategies the paper plots (LETOR OHSUMED feature numbers).
STRATEGIES = (1, 5, 9, 11, 15, 19, 21, 22)
#: The features the paper uses as virtual users.
VIRTUAL_USERS = {1: "TF of title", 9: "TF-IDF of title"}
#: LETOR versions tried in this order: 2.0 (25 features, the paper's), then 3.0 unnormalised, then 3.0.
LETOR_PREFERENCE = ("ohsumed/letor2", "ohsumed/letor3/raw", "ohsumed/letor3")
STANDIN = "stand-in"
#: The right half of the figures. µMAP is Eq. 4, each query over its own levels (with which the
#: reference strategy scores 1, as the paper reports); "µMAP (collection levels)" is the weighted
#: mean of the left half, where a query with no document at or above t has AP^t = 0.
SUMMARY_MEASURES = {"µMAP": muMAP, "µMAP (collection levels)": muMAP(levels="collection"),
                    "mean NDCG": meanNDCG, "mean NDCNG": meanNDCNG}


def load_letor(preference: Sequence[str] = LETOR_PREFERENCE) -> tuple[LetorTable, str]:
    """The first LETOR OHSUMED version whose files are in place, and its id; else the stand-in.

    Returns ``(table, dataset_id)``, with ``dataset_id == 'stand-in'`` when no LETOR data is found.
    """
    for dataset_id in preference:
        try:
            return letor_table(*LETOR_DATASETS[dataset_id]), dataset_id
        except GradedInputError:
            continue
    return standin_table(), STANDIN


def standin_table(seed: int = 2011, n_queries: int = 106, docs_per_query: int = 152,
                  n_features: int = 25) -> LetorTable:
    """A synthetic LETOR-shaped table: NOT OHSUMED, only its shape (106 queries, ~152 pairs, 25 features).

    Labels 0/1/2 drawn with probabilities .70/.16/.14. Feature 1 imitates TF of title: integer
    counts 0-8 that grow with the label. Feature 9 imitates TF-IDF of title: feature 1 times a
    per-query and a per-document weight, rounded to one decimal (many more levels, strongly
    correlated with feature 1). Every other feature j is ``a_j * tf + b_j * label + noise_j`` with random
    a_j, b_j and noise scale: strategies of unequal quality. Document ids are ``S<query>-<n>``.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(docs_per_query // 2, docs_per_query * 3 // 2 + 1, size=n_queries)
    query_id = np.repeat(np.arange(1, n_queries + 1).astype(str), sizes).astype(object)
    position = np.concatenate([np.arange(size) for size in sizes])
    doc_id = np.char.add(np.char.add("S", query_id.astype(str)), np.char.add("-", position.astype(str))).astype(object)
    n = len(query_id)
    label = rng.choice(3, size=n, p=[0.70, 0.16, 0.14]).astype(np.float64)
    features = np.empty((n, n_features))
    tf = np.minimum(rng.poisson(0.5 + 1.2 * label), 8).astype(np.float64)
    features[:, 0] = tf
    for j in range(1, n_features):
        a, b, noise = rng.uniform(0, 1), rng.uniform(0, 1.5), rng.uniform(0.5, 3)
        features[:, j] = a * tf + b * label + rng.normal(0, noise, n)
    if n_features >= 9:
        weight = np.repeat(rng.uniform(1, 4, size=n_queries), sizes) * rng.uniform(0.8, 1.2, size=n)
        features[:, 8] = np.round(tf * weight, 1)
    return LetorTable(query_id, doc_id.copy(), label, features, doc_id)


def reference_qrels(table: LetorTable, reference: str | int = "expert") -> pd.DataFrame:
    """The experts' labels (``'expert'``) or a virtual user: feature ``reference``'s values as labels."""
    if reference == "expert":
        return label_qrels(table)
    return feature_qrels(table, reference)


def level_count(qrels: pd.DataFrame) -> int:
    """Distinct relevance levels used in the qrels (the irrelevant level 0 included)."""
    return int(qrels["relevance"].nunique())


def compare_strategies(table: LetorTable, reference: str | int = "expert",
                       strategies: Sequence[int] = STRATEGIES) -> tuple[pd.DataFrame, pd.DataFrame]:
    """MAP per threshold and the summary measures of each strategy against one reference.

    Returns ``(map_by_threshold, summary)``: the first has one row per strategy and one column per
    threshold t (MAP with "relevant" meaning label >= t, over the queries with a label >= t: the
    paper's Figs. 6-8, see :func:`~ir_measures_graded.by_level`); the second one row per strategy and one column per :data:`SUMMARY_MEASURES`.
    """
    qrels = reference_qrels(table, reference)
    evaluator = ir_measures.evaluator(list(SUMMARY_MEASURES.values()), qrels)
    by_threshold, summary = {}, {}
    for strategy in strategies:
        run = feature_run(table, strategy)
        levels = by_level(muMAP, qrels, run)
        by_threshold[strategy] = pd.Series(levels["value"].to_numpy(), index=levels["threshold"].to_numpy())
        values = evaluator.calc_aggregate(run)
        summary[strategy] = {name: values[measure] for name, measure in SUMMARY_MEASURES.items()}
    map_by_threshold = pd.DataFrame(by_threshold).T.rename_axis(index="strategy", columns="threshold")
    return map_by_threshold, pd.DataFrame(summary).T.rename_axis(index="strategy")
