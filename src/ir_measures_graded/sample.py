"""Bundled sample data, and the tables the demo (``ir-measures-graded demo``) prints.

- ``paper_example``: Tables 1 and 2 of Scheel et al. (2011).
- ``graded_sample``: a small synthetic multi-graded collection (30 queries, labels 0-4 used
  non-uniformly, unjudged documents in the runs) with three runs of decreasing quality, made by
  :func:`write_graded_sample` (the bundled files are exactly its output; a test checks that).
- ``trec_eval_example``: trec_eval's own multi-graded test collection (TREC topics 301-303).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd

from ir_measures_graded.io.readers import read_qrels, read_run
from ir_measures_graded.measures import meanNDCG, meanNDCNG, muMAP, nDCNG
from ir_measures_graded.pytrec import judgments_for

#: Measures the demo shows side by side: ours, then the standard ones.
DEMO_MEASURES = [muMAP, nDCNG @ 10, meanNDCG, meanNDCNG, ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 5]
GRADED_SAMPLE_RUNS = ("strong", "weak", "random")


def data_path(name: str) -> Path:
    """Path of a bundled data file (see ``ir_measures_graded/data``)."""
    return Path(str(resources.files("ir_measures_graded") / "data" / name))


def paper_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Tables 1 and 2 of Scheel et al. (2011): items A..H with labels 1 0 3 3 2 0 1 4, ranked A..H."""
    return read_qrels(data_path("paper_example.qrels")), read_run(data_path("paper_example.run"))


def trec_eval_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """trec_eval's multi-graded test collection: TREC topics 301-303, labels -1..4, one run."""
    return (read_qrels(data_path("trec_eval_test/qrels.rel_level")),
            read_run(data_path("trec_eval_test/results.test")))


def graded_sample() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """The bundled synthetic collection: qrels and ``{run name: run}``."""
    folder = data_path("graded_sample")
    return read_qrels(folder / "qrels.txt"), {name: read_run(folder / f"{name}.run") for name in GRADED_SAMPLE_RUNS}


def write_graded_sample(directory: str | Path, seed: int = 2011, n_queries: int = 30) -> None:
    """Write the synthetic collection: ``qrels.txt`` and ``strong.run``, ``weak.run``, ``random.run``.

    Per query, 40 judged documents with labels 0-4 drawn with probabilities .45/.25/.15/.10/.05 and
    40 unjudged ones; each run ranks 50 documents of those 80 by a noisy score: ``label + N(0, 1)``
    (strong), ``0.4 * label + N(0, 1.5)`` (weak) or uniform noise (random).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    qrels_lines: list[str] = []
    run_lines: dict[str, list[str]] = {name: [] for name in GRADED_SAMPLE_RUNS}
    for q in range(1, n_queries + 1):
        qid = f"S{q:02d}"
        docs = [f"doc{d:04d}" for d in rng.choice(10_000, size=80, replace=False)]
        labels = rng.choice(5, size=40, p=[0.45, 0.25, 0.15, 0.10, 0.05])
        qrels_lines += [f"{qid} 0 {doc} {label}" for doc, label in zip(docs[:40], labels, strict=True)]
        truth = np.concatenate([labels, np.zeros(40)])
        scores = {
            "strong": truth + rng.normal(0, 1.0, 80),
            "weak": 0.4 * truth + rng.normal(0, 1.5, 80),
            "random": rng.random(80),
        }
        for name, score in scores.items():
            picked = rng.choice(80, size=50, replace=False)
            picked = picked[np.argsort(-score[picked], kind="stable")]
            run_lines[name] += [f"{qid} Q0 {docs[i]} {rank} {score[i]:.4f} {name}" for rank, i in enumerate(picked, 1)]
    (directory / "qrels.txt").write_text("\n".join(qrels_lines) + "\n")
    for name, lines in run_lines.items():
        (directory / f"{name}.run").write_text("\n".join(lines) + "\n")


def demo_tables(measures: list | None = None) -> dict[str, pd.DataFrame]:
    """Mean values (rows: runs, columns: measures) for each bundled collection, computed now."""
    measures = DEMO_MEASURES if measures is None else measures
    qrels, runs = graded_sample()
    doubled = qrels.assign(relevance=qrels["relevance"] * 2)
    paper_qrels, paper_run = paper_example()
    te_qrels, te_run = trec_eval_example()
    sections = {
        "The paper's example (Tables 1 and 2)": (paper_qrels, {"A..H": paper_run}),
        "Sample collection: 30 queries, labels 0-4, three runs": (qrels, runs),
        "The same runs with every label doubled (0-8): muAP, nDCNG and meanNDCNG do not change, "
        "meanNDCG (exponential gain) does": (doubled, runs),
        "trec_eval's test collection (TREC 301-303, labels -1..4)": (te_qrels, {"STANDARD": te_run}),
    }
    tables = {}
    for title, (section_qrels, section_runs) in sections.items():
        # pytrec_eval crashes on labels below 0 (trec_eval's -1..4): its measures get the judgments without them
        judged = {q: dict(zip(g["doc_id"], g["relevance"].tolist(), strict=True)) for q, g in section_qrels.groupby("query_id")}
        evaluators = [ir_measures.evaluator(group, section_qrels if given is None else given)
                      for group, given, _ in judgments_for(judged, measures, ir_measures.DefaultPipeline,
                                                           float(section_qrels["relevance"].min()))]
        rows = {name: {m: v for e in evaluators for m, v in e.calc_aggregate(run).items()}
                for name, run in section_runs.items()}
        tables[title] = pd.DataFrame([[rows[name][m] for m in measures] for name in rows],
                                     index=list(rows), columns=[str(m) for m in measures])
    return tables


def shared_task(n_runs: int = 12, n_queries: int = 30, depth: int = 10, retrieved: int = 100,
                seed: int = 43) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """A simulated shared task: ``(qrels, {run name: run})`` of ``n_runs`` runs pooled to ``depth``.

    Per query, 400 documents with hidden grades 0-4 (probabilities .75/.12/.07/.04/.02); run k scores
    each document ``quality_k · grade + N(0, 1.5)`` with qualities spread from 1.2 down to 0.1, and ranks its
    top ``retrieved``; the qrels judge the union of every run's top ``depth`` at the hidden grade (a
    TREC-style pool). Runs are named ``team<t>-<k>``: teams of three runs (groups for :func:`pool`).
    """
    rng = np.random.default_rng(seed)
    n_docs = 400
    quality = np.linspace(1.2, 0.1, n_runs)
    names = [f"team{k // 3 + 1}-{k % 3 + 1}" for k in range(n_runs)]
    qrels_parts, run_parts = [], []
    for q in range(n_queries):
        qid = f"T{q + 1:03d}"
        docs = np.array([f"d{q + 1:03d}-{d:04d}" for d in range(n_docs)], dtype=object)
        grade = rng.choice(5, size=n_docs, p=[0.75, 0.12, 0.07, 0.04, 0.02])
        score = np.round(quality[:, None] * grade[None, :] + rng.normal(0, 1.5, (n_runs, n_docs)), 4)
        top = np.argsort(-score, axis=1, kind="stable")[:, :retrieved]
        pooled = np.unique(top[:, :depth])
        qrels_parts.append(pd.DataFrame({"query_id": qid, "doc_id": docs[pooled], "relevance": grade[pooled]}))
        run_parts.append(pd.DataFrame({"run": np.repeat(names, retrieved), "query_id": qid, "doc_id": docs[top.ravel()],
                                       "score": np.take_along_axis(score, top, axis=1).ravel()}))
    qrels = pd.concat(qrels_parts, ignore_index=True)
    runs = pd.concat(run_parts, ignore_index=True)
    return qrels, {name: frame.drop(columns="run").reset_index(drop=True) for name, frame in runs.groupby("run", sort=False)}
