"""Two judges of one small collection, and runs, written as files (the tests of :mod:`ir_measures_graded.judges`)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def write_collection(root, seed: int = 3, runs: int = 6, topics: int = 12, docs: int = 30):
    """Qrels on 0-3, a second judge that confuses adjacent grades, and runs of graded quality."""
    rng = np.random.default_rng(seed)
    rows = [(f"q{q}", f"d{d}", int(rng.choice(4, p=[0.5, 0.25, 0.15, 0.1]))) for q in range(topics) for d in range(docs)]
    a = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])
    noise = rng.choice([-1, 0, 1], size=len(a), p=[0.2, 0.6, 0.2])
    b = a.assign(relevance=np.clip(a["relevance"] + noise, 0, 3))
    paths = {}
    for name, frame in (("a.qrels", a), ("b.qrels", b)):
        paths[name] = root / name
        paths[name].write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in frame.itertuples(index=False)))
    run_paths = []
    for k in range(runs):
        lines = []
        for q, group in a.groupby("query_id"):
            score = group["relevance"].to_numpy() * (k / runs) + rng.random(len(group)) * 2
            order = np.argsort(-score, kind="stable")
            lines += [f"{q} Q0 {group['doc_id'].iloc[i]} {r + 1} {score[i]:.6f} run{k}\n" for r, i in enumerate(order)]
        path = root / f"run{k}.run"
        path.write_text("".join(lines))
        run_paths.append(str(path))
    return str(paths["a.qrels"]), str(paths["b.qrels"]), run_paths, a, b
