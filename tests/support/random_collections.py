"""Random qrels and runs that exercise every ranking convention at once: seeded (:func:`random_collection`)
and drawn by hypothesis (:func:`collections`)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st


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


# Hypothesis: small collections for the differential tests against the reference.
DOCS = [f"d{i}" for i in (1, 2, 9, 10, 11, 100)] + ["a", "B", "b"]
int_label = st.integers(-2, 4).map(float)
real_label = st.floats(-2, 10, allow_nan=False).map(lambda x: round(x, 2))
label = st.one_of(int_label, int_label, real_label)
# A coarse grid gives exact ties; +1e-9 gives ties once read as float32; -0.0 ties with 0.0.
score = st.one_of(st.sampled_from([0.0, -0.0, 0.5, 1.0, 1.0 + 1e-9, 2.0, -1.0]),
                  st.floats(-5, 5, allow_nan=False, width=32))


@st.composite
def collections(draw) -> tuple[dict, dict]:
    qrels: dict = {}
    run: dict = {}
    for q in range(draw(st.integers(1, 5))):
        qid = f"q{q}"
        kind = draw(st.sampled_from(["both", "both", "both", "qrels only", "run only"]))
        if kind != "run only":
            qrels[qid] = draw(st.dictionaries(st.sampled_from(DOCS), label, max_size=8))  # may be empty
        if kind != "qrels only":
            run[qid] = draw(st.dictionaries(st.sampled_from(DOCS), score, max_size=9))  # may be empty
    if not qrels:
        qrels["q_only"] = {"d1": 1.0}
    return qrels, run
