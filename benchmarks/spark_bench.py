"""Spark benchmark: µMAP + NDCNG@10 on Spark vs MLlib's MAP + nDCG@10, from Parquet, on one machine.

    python benchmarks/spark_bench.py              # 10,000 queries x 1,000 docs = 10M run rows, + scaling
    python benchmarks/spark_bench.py --quick      # 1,000 queries x 100 docs, one repeat: a look in ~2 minutes

Contenders, each in its own process (so peak memories are its own), on the same Parquet files:

- ours: ``ir_measures_graded.spark.calc_aggregate([muMAP, nDCNG@10], qrels, run)``;
- MLlib RankingMetrics: per-query arrays built with Spark SQL (run sorted by score, relevant docs
  collected), handed to ``pyspark.mllib.evaluation.RankingMetrics`` (``meanAveragePrecision``,
  ``ndcgAt(10)``); the array building is part of the time;
- MLlib RankingEvaluator: the same arrays (ids as doubles, as it requires) into
  ``pyspark.ml.evaluation.RankingEvaluator`` (``meanAveragePrecision``, ``ndcgAtK``);
- single machine: ``pandas.read_parquet`` + ``ir_measures.calc_aggregate`` (no Spark).

Times are wall-clock medians (reading Parquet to the final numbers) over ``--rounds`` processes per
contender, run in turn with the other contenders' (so that a slow spell of a shared machine falls
on all of them), each timing ``--repeats`` runs after one untimed warm-up. Peak memories are
resident-set high-water marks sampled every 0.1 s over the contender's process tree: the driver
(this Python process), the JVM, and the Python workers (sum).

Where our time goes (in ours' process, same session): (1) reading both Parquet files, grouping each
side's rows by query into arrays and joining the sides on the JVM as ours does (the engine's own
``rows_by_query``: the columns it needs, ids as the files' integers, values as doubles), ending in
a sum of the arrays' sizes; (2) the same rows also handed to Python workers as Arrow batches, each
worker only counting them; ours end to end minus (2) is the evaluation in the workers (and, for
measures that use the collection, the small job collecting the qrels' labels).

Scaling (``--scaling``): ours and MLlib's RankingEvaluator on ``local[1]`` and ``local[2]`` at the
base size x1, x2, x4 (one process per master; one warm-up, then one timed run per cell), and from
it an estimate for 10^9 run rows on N executors (assumptions printed beside it).
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


MASTER = "local[2]"  # of the comparison; the scaling experiment runs its own processes on other masters


def _session():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers run this interpreter
    builder = SparkSession.builder.master(MASTER).appName("spark_bench")
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


# --- where the time goes ----------------------------------------------------------------------------

def _rows_by_query(folder: Path):
    """Qrels and run rows shuffled by query exactly as ours hands them to its workers (the engine's
    own :func:`~ir_measures_graded.engines.spark.rows_by_query`)."""
    from ir_measures_graded.engines.spark import rows_by_query

    spark = _session()
    qrels = spark.read.parquet(str(folder / "qrels.parquet"))
    run = spark.read.parquet(str(folder / "run.parquet"))
    return rows_by_query(qrels, run, ("query_id", "doc_id", "relevance", "score"))[1]


def time_stages(folder: Path, repeats: int) -> dict[str, float]:
    """Median seconds of the JVM-only part and of handing the rows to Python workers (see the docstring)."""
    from pyspark.sql import functions as F

    try:
        from ir_measures_graded.engines.spark.jobs import job_settings as _job_settings
    except ImportError:  # the engine before its split into a package (issue 36): to compare with it
        from ir_measures_graded.engines.spark import _job_settings

    def count_rows(batches):  # defined here, so that workers get it by value (they cannot import this script)
        import pyarrow as pa

        n = sum(batch.num_rows for batch in batches)
        yield pa.RecordBatch.from_arrays([pa.array([n], pa.int64())], names=["n"])

    spark = _session()
    sent = ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in _rows_by_query(folder).schema)
    jobs = {
        # the arrays' sizes need the arrays: a count alone would let Spark drop them from the plan
        "read, group by query into arrays, join the sides (JVM)":
            lambda: _rows_by_query(folder).select((F.size("qrels_d") + F.size("run_d")).alias("n")).agg(F.sum("n")).collect(),
        f"+ rows to Python workers ({sent}), each only counting them":
            lambda: _rows_by_query(folder).mapInArrow(count_rows, "n long").agg(F.sum("n")).collect(),
    }
    result = {}
    with _job_settings(spark):  # the Arrow batches of ours
        for name, job in jobs.items():
            job()  # warm-up
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                job()
                times.append(time.perf_counter() - start)
            result[name] = statistics.median(times)
    return result


def run_contender(name: str, folder: Path, repeats: int, stages: bool = True) -> dict:
    """In this process: time ``name`` ``repeats`` times and record peak memories."""
    memory = PeakMemory()
    compute = globals()[name]
    if name != "single_machine":
        _session()  # start-up is not timed
    times, values = [], {}
    compute(folder)  # warm-up, not timed: Python workers start, the JVM compiles the plan's code
    for _ in range(repeats):
        start = time.perf_counter()
        values = compute(folder)
        times.append(time.perf_counter() - start)
    peak = memory.stop()
    breakdown = time_stages(folder, repeats) if name == "ours" and stages else {}
    return {"name": name, "times": times, "values": values, "peak_mib": peak, "stages": breakdown}


def run_scaling(master: str, folders: list[Path]) -> dict:
    """In this process, on ``master``: ours and MLlib's RankingEvaluator at each size (one warm-up each)."""
    global MASTER
    MASTER = master
    _session()
    result = {}
    for name in ("ours", "mllib_evaluator"):
        compute = globals()[name]
        compute(folders[0])  # warm-up
        for folder in folders:
            start = time.perf_counter()
            compute(folder)
            result[f"{name} {folder.name}"] = time.perf_counter() - start
    return result


def main(argv: list[str] | None = None) -> int:
    global MASTER
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000, help="retrieved documents per query")
    parser.add_argument("--judged", type=int, default=60, help="judged documents per query")
    parser.add_argument("--repeats", type=int, default=5,
                        help="timed runs per contender process, after one warm-up (default 5)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="processes per contender, run in turn with the others' (default 2); times pooled")
    parser.add_argument("--no-stages", action="store_true", help=argparse.SUPPRESS)  # internal: skip the breakdown
    parser.add_argument("--master", default=MASTER, help=f"Spark master of the comparison (default {MASTER})")
    parser.add_argument("--contenders", default=",".join(CONTENDERS))
    parser.add_argument("--scaling", type=int, default=2_500, metavar="QUERIES",
                        help="base size of the scaling experiment in queries (x --docs rows; run at x1, x2, x4; "
                        "0: none; default 2,500)")
    parser.add_argument("--quick", action="store_true",
                        help="1,000 queries x 100 docs, one repeat, scaling from 250 queries: a look in minutes")
    parser.add_argument("--contender", help=argparse.SUPPRESS)  # internal: run one in this process
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--scaling-run", nargs="+", help=argparse.SUPPRESS)  # internal: MASTER FOLDER...
    args = parser.parse_args(argv)
    if args.quick:
        args.queries, args.docs, args.repeats, args.scaling, args.rounds = 1_000, 100, 1, 250, 1
        if args.contenders == ",".join(CONTENDERS):
            args.contenders = "ours,mllib_evaluator"
    MASTER = args.master
    if args.contender:
        print(json.dumps(run_contender(args.contender, Path(args.data), args.repeats, stages=not args.no_stages)))
        return 0
    if args.scaling_run:
        master, *folders = args.scaling_run
        print(json.dumps(run_scaling(master, [Path(f) for f in folders])))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_data(folder, args.queries, args.docs, args.judged)
        print(f"{args.queries:,} queries x {args.docs:,} docs = {args.queries * args.docs:,} run rows, "
              f"{args.judged} judged per query; Spark {MASTER}; median of {args.rounds} x {args.repeats} runs "
              f"({args.rounds} processes per contender, in turn); "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores")
        results: dict[str, dict] = {}
        for round_ in range(args.rounds):  # contenders in turn, round after round: drifts hit all alike
            for name in args.contenders.split(","):
                got = json.loads(_child(["--contender", name, "--data", str(folder), "--repeats",
                                         str(args.repeats), "--master", MASTER, *(["--no-stages"] if round_ else [])]))
                if name not in results:
                    results[name] = got
                    continue
                pooled = results[name]
                pooled["times"] += got["times"]
                pooled["peak_mib"] = {k: max(v, got["peak_mib"][k]) for k, v in pooled["peak_mib"].items()}
        report(results)
        if args.scaling:
            scaling_report(_scaling(folder, args), args)
    return 0


def _child(arguments: list[str]) -> str:
    out = subprocess.run([sys.executable, __file__, *arguments], capture_output=True, text=True)
    if out.returncode:
        sys.stderr.write(out.stderr[-3000:])
        raise SystemExit(f"{' '.join(arguments)} failed")
    return out.stdout.strip().splitlines()[-1]


FACTORS = (1, 2, 4)


def _scaling(folder: Path, args: argparse.Namespace) -> dict:
    folders = []
    for factor in FACTORS:
        sub = folder / f"x{factor}"
        sub.mkdir()
        make_data(sub, args.scaling * factor, args.docs, args.judged, seed=factor)
        folders.append(sub)
    return {master: json.loads(_child(["--scaling-run", master, *map(str, folders)]))
            for master in ("local[1]", "local[2]")}


def scaling_report(times: dict, args: argparse.Namespace) -> None:
    """The scaling table, and an estimate for 10^9 rows from ours' cost per row on one core."""
    rows = [args.scaling * f * args.docs for f in FACTORS]
    print()
    print(f"scaling: seconds (one run after a warm-up) at {', '.join(f'{r:,}' for r in rows)} run rows")
    print("| contender | master | " + " | ".join(f"x{f} ({r / 1e6:g}M rows)" for f, r in zip(FACTORS, rows,
                                                                                         strict=True)) + " |")
    print("|---|---|" + "---|" * len(FACTORS))
    for name in ("ours", "mllib_evaluator"):
        for master in times:
            cells = [f"{times[master][f'{name} x{f}']:.2f}" for f in FACTORS]
            print(f"| {LABELS[name]} | {master} | " + " | ".join(cells) + " |")
    one, two = times["local[1]"], times["local[2]"]
    x1, x4 = (f"ours x{f}" for f in (FACTORS[0], FACTORS[-1]))
    per_row_1 = (one[x4] - one[x1]) / (rows[-1] - rows[0])  # marginal seconds per row, one core
    per_row_2 = (two[x4] - two[x1]) / (rows[-1] - rows[0])
    if per_row_1 <= 0 or per_row_2 <= 0:
        print("ours: no estimate: the time does not grow with the rows at these sizes (fixed costs dominate)")
        return
    speedup = per_row_1 / per_row_2
    print(f"ours: {per_row_1 * 1e6:.2f} us per row on local[1], {per_row_2 * 1e6:.2f} us on local[2] (marginal, "
          f"from x1 to x4): 2 cores give x{speedup:.2f}; growth x1 -> x4: {one[x4] / one[x1]:.2f} (local[1]), "
          f"{two[x4] / two[x1]:.2f} (local[2])")
    efficiency = min(speedup / 2, 1.0)
    for executors in (10, 50, 100):
        cores = executors * 4
        estimate = per_row_1 * 1e9 / (cores * efficiency)
        print(f"estimate, 10^9 run rows on {executors} executors x 4 cores: {estimate / 60:.1f} min "
              f"(one core's marginal cost per row / (cores x {efficiency:.2f} efficiency as measured on 2 cores); "
              "network shuffle and start-up not included)")


def report(results: dict) -> None:
    breakdown = next((r["stages"] for r in results.values() if r.get("stages")), None)
    _table(results)
    if "ours" in results and "mllib_evaluator" in results:
        ratio = statistics.median(results["ours"]["times"]) / statistics.median(results["mllib_evaluator"]["times"])
        print(f"\ntarget 4  ours (muMAP + nDCNG@10) vs MLlib RankingEvaluator (MAP + nDCG@10), end to end on {MASTER}: "
              f"{ratio:.2f} (target <= 1) {'ok' if ratio <= 1 else 'MISSED'}")
    if breakdown:
        ours_time = statistics.median(results["ours"]["times"])
        print()
        print("where ours' time goes (medians, same session):")
        print("| stage | seconds | share of ours |")
        print("|---|---|---|")
        for stage, seconds in breakdown.items():
            print(f"| {stage} | {seconds:.2f} | {seconds / ours_time:.0%} |")
        evaluation = ours_time - list(breakdown.values())[-1]
        print(f"| evaluation in the Python workers (ours minus the line above) | "
              f"{evaluation:.2f} | {evaluation / ours_time:.0%} |")
        print(f"| ours end to end | {ours_time:.2f} | 100% |")


def _table(results: dict) -> None:
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
