"""Pool construction and pool simulation at shared-task scale (#51 items 4 and 5): 100 runs × 50 topics × 1,000
documents, each strategy as the whole process (``ir-measures-graded pool``), timed by the caller with ``/usr/bin/time``.

    python benchmarks/pool_bench.py DIR              # writes DIR/run000.txt ... DIR/run099.txt and DIR/qrels.txt
    /usr/bin/time -f '%e s %M KiB' ir-measures-graded pool DIR/run*.txt --strategy depth --depth 10 --output DIR/pool.tsv

Pool simulation (#51 item 5; target: 5 strategies × 4 budgets ≤ 60 s, the whole process, evaluation included)::

    /usr/bin/time -f '%e s %M KiB' ir-measures-graded simulate DIR/qrels.txt DIR/run*.txt -m muMAP nDCNG@10 nDCG@10 \
        --budgets 10,20,50,100 -o tsv > DIR/simulation.tsv

Each run scores 1,000 of 3,000 documents per topic as ``quality · grade + N(0, 1.5)`` (qualities 1.2 … 0.1); the
qrels hold every document with a grade above 0 (labels 1-4) and the union of the runs' top 10.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np


def main(folder: str, runs: int = 100, topics: int = 50, depth: int = 1000, collection: int = 3000, seed: int = 0) -> None:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    grade = rng.choice(5, size=(topics, collection), p=[0.8, 0.08, 0.06, 0.04, 0.02])
    quality = np.linspace(1.2, 0.1, runs)
    docs = np.array([f"doc{i:05}" for i in range(collection)])
    tops = np.zeros((topics, collection), dtype=bool)
    for r in range(runs):
        picked = np.argsort(rng.random((topics, collection)), axis=1)[:, :depth]
        score = quality[r] * np.take_along_axis(grade, picked, 1) + rng.normal(0, 1.5, (topics, depth))
        order = np.argsort(-score, axis=1)
        picked, score = np.take_along_axis(picked, order, 1), np.take_along_axis(score, order, 1)
        np.put_along_axis(tops, picked[:, :10], True, 1)
        t = np.repeat(np.arange(topics), depth)
        lines = np.char.add(np.char.add(np.char.add(t.astype(str), " Q0 "), docs[picked.ravel()]), " ")
        ranks = np.tile(np.arange(1, depth + 1), topics).astype(str)
        text = np.char.add(np.char.add(np.char.add(np.char.add(lines, ranks), " "), np.char.mod("%.6f", score.ravel())),
                           f" run{r:03}\n")
        (out / f"run{r:03}.txt").write_text("".join(text.tolist()))
    judged = np.argwhere(tops | (grade > 0))
    (out / "qrels.txt").write_text("".join(f"{t} 0 {docs[d]} {grade[t, d]}\n" for t, d in judged))


if __name__ == "__main__":
    main(sys.argv[1])
