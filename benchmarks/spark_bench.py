"""Spark benchmark: µMAP + NDCNG@10 on Spark vs MLlib's MAP + nDCG@10, from Parquet, on one machine.

    python benchmarks/spark_bench.py                      # 10,000 queries x 1,000 docs = 10M run rows
    python benchmarks/spark_bench.py --queries 200 --docs 50 --repeats 1   # a quick look

Contenders, each in its own process (so peak memories are its own), on the same Parquet files:

- ours: ``ir_measures_graded.spark.calc_aggregate([muMAP, nDCNG@10], qrels, run)``;
- MLlib RankingMetrics: per-query arrays built with Spark SQL (run sorted by score, relevant docs
  collected), handed to ``pyspark.mllib.evaluation.RankingMetrics`` (``meanAveragePrecision``,
  ``ndcgAt(10)``); the array building is part of the time;
- MLlib RankingEvaluator: the same arrays (ids as doubles, as it requires) into
  ``pyspark.ml.evaluation.RankingEvaluator`` (``meanAveragePrecision``, ``ndcgAtK``);
- single machine: ``pandas.read_parquet`` + ``ir_measures.calc_aggregate`` (no Spark).

Times are wall-clock medians over ``--repeats`` runs in one warm session (reading Parquet to the
final numbers); peak memories are resident-set high-water marks sampled every 0.1 s over the
contender's process tree: the driver (this Python process), the JVM, and the Python workers (sum).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

SPARK_CONF = {
    "spark.ui.enabled": "false",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.driver.memory": "4g",
    "spark.sql.shuffle.partitions": "8",
    "spark.ui.showConsoleProgress": "false",
}
CONTENDERS = ("ours", "mllib_metrics", "mllib_evaluator", "single_machine")
LABELS = {
    "ours": "ours: muMAP + nDCNG@10 on Spark",
    "mllib_metrics": "MLlib RankingMetrics: MAP + nDCG@10",
    "mllib_evaluator": "MLlib RankingEvaluator: MAP + nDCG@10",
    "single_machine": "single machine: muMAP + nDCNG@10",
}


def make_data(folder: Path, queries: int, docs: int, judged: int, seed: int = 0) -> None:
    """``run.parquet`` (queries x docs rows) and ``qrels.parquet`` (queries x judged rows, labels 0-4).

    Ids are integers (as in recommender data); two thirds of each query's judged documents are
    retrieved, the rest are not; scores are distinct within a query.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    pool = max(docs * 3, 1000)
    run_q = np.repeat(np.arange(queries, dtype=np.int64), docs)
    # Per query: a random permutation prefix of the doc pool (distinct docs), vectorised by argsort.
    retrieved = np.argsort(rng.random((queries, pool)), axis=1)[:, :docs + judged].astype(np.int64)
    run_d = retrieved[:, :docs].ravel()
    score = rng.random((queries, docs))
    n_retrieved_judged = min(judged * 2 // 3, docs)
    judged_docs = np.concatenate([retrieved[:, :n_retrieved_judged], retrieved[:, docs:docs + judged - n_retrieved_judged]],
                                 axis=1)
    qrels_q = np.repeat(np.arange(queries, dtype=np.int64), judged_docs.shape[1])
    label = rng.choice(np.array([0, 1, 2, 3, 4], dtype=np.int64), p=[0.5, 0.2, 0.15, 0.1, 0.05], size=len(qrels_q))
    score[:, :n_retrieved_judged] += 0.3 * label.reshape(queries, -1)[:, :n_retrieved_judged]  # better than random
    pq.write_table(pa.table({"query_id": run_q, "doc_id": run_d, "score": score.ravel()}), folder / "run.parquet")
    pq.write_table(pa.table({"query_id": qrels_q, "doc_id": judged_docs.ravel(), "relevance": label}),
                   folder / "qrels.parquet")


class PeakMemory:
    """High-water marks of resident memory (MiB) of this process, its JVM and its Python workers."""

    def __init__(self) -> None:
        import psutil

        self.me = psutil.Process()
        self.peak = {"driver": 0.0, "jvm": 0.0, "workers": 0.0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        import psutil

        while not self._stop.is_set():
            now = {"driver": self.me.memory_info().rss, "jvm": 0, "workers": 0}
            for child in self.me.children(recursive=True):
                try:
                    kind = "jvm" if "java" in child.name() else "workers" if "python" in child.name() else None
                    if kind:
                        now[kind] += child.memory_info().rss
                except psutil.Error:
                    continue
            for key, value in now.items():
                self.peak[key] = max(self.peak[key], value / 2**20)
            self._stop.wait(0.1)

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        return self.peak


def _session():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers run this interpreter
    builder = SparkSession.builder.master("local[2]").appName("spark_bench")
    for key, value in SPARK_CONF.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def ours(folder: Path) -> dict[str, float]:
    from ir_measures_graded import muMAP, nDCNG
    from ir_measures_graded import spark as graded_spark

    spark = _session()
    qrels = spark.read.parquet(str(folder / "qrels.parquet"))
    run = spark.read.parquet(str(folder / "run.parquet"))
    values = graded_spark.calc_aggregate([muMAP, nDCNG @ 10], qrels, run)
    return {str(m): v for m, v in values.items()}


def _mllib_arrays(folder: Path, as_double: bool):
    """Per query: retrieved docs by descending score, and the relevant (label >= 1) docs."""
    from pyspark.sql import functions as F

    spark = _session()
    qrels = spark.read.parquet(str(folder / "qrels.parquet"))
    run = spark.read.parquet(str(folder / "run.parquet"))
    id_type = "double" if as_double else "long"
    ranked = run.groupBy("query_id").agg(
        F.sort_array(F.collect_list(F.struct(F.col("score"), F.col("doc_id").cast(id_type).alias("doc"))),
                     asc=False).alias("pairs"))
    ranked = ranked.select("query_id", F.transform("pairs", lambda p: p["doc"]).alias("prediction"))
    relevant = qrels.where(F.col("relevance") >= 1).groupBy("query_id").agg(
        F.collect_list(F.col("doc_id").cast(id_type)).alias("label"))
    return ranked.join(relevant, "query_id").select("prediction", "label").persist()


def mllib_metrics(folder: Path) -> dict[str, float]:
    from pyspark.mllib.evaluation import RankingMetrics

    arrays = _mllib_arrays(folder, as_double=False)
    metrics = RankingMetrics(arrays.rdd.map(lambda row: (row[0], row[1])))
    values = {"MAP": metrics.meanAveragePrecision, "nDCG@10": metrics.ndcgAt(10)}
    arrays.unpersist()
    return values


def mllib_evaluator(folder: Path) -> dict[str, float]:
    from pyspark.ml.evaluation import RankingEvaluator

    arrays = _mllib_arrays(folder, as_double=True)
    evaluator = RankingEvaluator(predictionCol="prediction", labelCol="label")
    values = {"MAP": evaluator.evaluate(arrays, {evaluator.metricName: "meanAveragePrecision"}),
              "nDCG@10": evaluator.evaluate(arrays, {evaluator.metricName: "ndcgAtK", evaluator.k: 10})}
    arrays.unpersist()
    return values


def single_machine(folder: Path) -> dict[str, float]:
    import ir_measures
    import pandas as pd

    from ir_measures_graded import muMAP, nDCNG

    qrels = pd.read_parquet(folder / "qrels.parquet")
    run = pd.read_parquet(folder / "run.parquet")
    values = ir_measures.calc_aggregate([muMAP, nDCNG @ 10], qrels, run)
    return {str(m): v for m, v in values.items()}


def run_contender(name: str, folder: Path, repeats: int) -> dict:
    """In this process: time ``name`` ``repeats`` times and record peak memories."""
    memory = PeakMemory()
    compute = globals()[name]
    if name != "single_machine":
        _session()  # start-up is not timed
    times, values = [], {}
    for _ in range(repeats):
        start = time.perf_counter()
        values = compute(folder)
        times.append(time.perf_counter() - start)
    return {"name": name, "times": times, "values": values, "peak_mib": memory.stop()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000, help="retrieved documents per query")
    parser.add_argument("--judged", type=int, default=60, help="judged documents per query")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--contenders", default=",".join(CONTENDERS))
    parser.add_argument("--contender", help=argparse.SUPPRESS)  # internal: run one in this process
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.contender:
        print(json.dumps(run_contender(args.contender, Path(args.data), args.repeats)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_data(folder, args.queries, args.docs, args.judged)
        print(f"{args.queries:,} queries x {args.docs:,} docs = {args.queries * args.docs:,} run rows, "
              f"{args.judged} judged per query; Spark local[2]; median of {args.repeats}")
        results = {}
        for name in args.contenders.split(","):
            out = subprocess.run([sys.executable, __file__, "--contender", name, "--data", str(folder),
                                  "--repeats", str(args.repeats)], capture_output=True, text=True)
            if out.returncode:
                sys.stderr.write(out.stderr[-3000:])
                raise SystemExit(f"contender {name} failed")
            results[name] = json.loads(out.stdout.strip().splitlines()[-1])
    report(results)
    return 0


def report(results: dict) -> None:
    medians = {name: statistics.median(r["times"]) for name, r in results.items()}
    rows = []
    for name, r in results.items():
        peak = r["peak_mib"]
        ratio = {other: medians[name] / medians[other] for other in ("mllib_metrics", "mllib_evaluator")
                 if other in medians}
        rows.append([LABELS[name], f"{medians[name]:.2f}",
                     f"{ratio['mllib_metrics']:.2f}" if "mllib_metrics" in ratio else "",
                     f"{ratio['mllib_evaluator']:.2f}" if "mllib_evaluator" in ratio else "",
                     f"{peak['driver']:.0f}", f"{peak['jvm']:.0f}", f"{peak['workers']:.0f}",
                     ", ".join(f"{k}={v:.4f}" for k, v in r["values"].items())])
    header = ["contender", "seconds", "ratio to RankingMetrics", "ratio to RankingEvaluator",
              "peak MiB driver", "peak MiB JVM", "peak MiB Python workers", "values"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    sys.exit(main())
