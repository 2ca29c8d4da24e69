"""Experiments whose per-query values a test chooses, evaluated by the real engine.

A query judges ``depth`` documents relevant; a run that ranks ``k`` of them first and unjudged documents
after scores P@depth = k / depth on it (P@10 = min(k, 10) / 10). So a test of the comparison or of the
tables picks its values (on a grid of 1 / depth) and still goes through :func:`experiment`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded.experiments import Experiment, experiment


def hits_of(values: np.ndarray | Sequence[float], depth: int) -> list[int]:
    """``values`` on the grid of 1 / ``depth`` (rounded, clipped to [0, 1]), as counts of relevant documents."""
    return np.clip(np.rint(np.asarray(values, dtype=float) * depth), 0, depth).astype(int).tolist()


def collection(hits: Mapping[str, Sequence[int]], depth: int) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Qrels and runs (``{name: run}``) over queries ``q0``, ``q1``, ...: run ``name`` ranks ``hits[name][q]``
    relevant documents of query ``q`` first."""
    queries = len(next(iter(hits.values())))
    qrels = pd.DataFrame([(f"q{q}", f"r{d}", 1) for q in range(queries) for d in range(depth)],
                         columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for name, counts in hits.items():
        rows = [(f"q{q}", doc, float(depth - rank)) for q, k in enumerate(counts)
                for rank, doc in enumerate([*(f"r{d}" for d in range(k)), *(f"n{d}" for d in range(depth - k))])]
        runs[name] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return qrels, runs


def chosen(hits: Mapping[str, Sequence[int]], depth: int = 20, measures: Sequence[str] | None = None,
           **options: Any) -> Experiment:
    """The experiment of :func:`collection` with ``measures`` (default ``P@depth``: hits / depth per query)."""
    qrels, runs = collection(hits, depth)
    return experiment(qrels, runs, list(measures or [f"P@{depth}"]), **options)
