"""Seeded random qrels and runs that exercise every ranking convention at once."""

from __future__ import annotations

import numpy as np


def random_collection(
    seed: int,
    n_queries: int = 200,
    labels: tuple[int, ...] = (0, 1, 2, 3, 4),
    max_judged: int = 25,
    max_retrieved: int = 40,
) -> tuple[dict, dict]:
    """(qrels, run) as dicts of dicts, with:

    - queries whose judgments are all irrelevant, and queries with one label only;
    - score ties (scores on a coarse grid) and float32 ties (scores 1e-9 apart);
    - doc ids whose string order differs from their numeric order ('d9' > 'd10');
    - unjudged retrieved documents and judged unretrieved ones;
    - queries only in the qrels and queries only in the run.
    """
    rng = np.random.default_rng(seed)
    qrels: dict = {}
    run: dict = {}
    for q in range(n_queries):
        qid = f"q{q}"
        pool = [f"d{i}" for i in rng.choice(200, size=max_judged + max_retrieved, replace=False)]
        n_judged = int(rng.integers(0, max_judged + 1))
        kind = rng.random()
        if kind < 0.05:
            judged_labels = np.zeros(n_judged, dtype=int)
        elif kind < 0.1:
            judged_labels = np.full(n_judged, labels[-1])
        else:
            judged_labels = rng.choice(labels, size=n_judged)
        if rng.random() > 0.05:  # 5% of queries only in the run
            qrels[qid] = {d: int(r) for d, r in zip(pool[:n_judged], judged_labels, strict=True)}
        if rng.random() < 0.05:  # 5% of queries only in the qrels
            continue
        n_ret = int(rng.integers(1, max_retrieved + 1))
        retrieved = list(rng.choice(pool, size=min(n_ret, len(pool)), replace=False))
        grid = rng.integers(1, 6)
        scores = np.round(rng.random(len(retrieved)) * grid) / grid
        near = rng.random(len(retrieved)) < 0.1
        scores = np.where(near, scores + 1e-9, scores)  # equal once read as float32
        run[qid] = {d: float(s) for d, s in zip(retrieved, scores, strict=True)}
    return qrels, run
