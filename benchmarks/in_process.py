"""In-process benchmark: µMAP and NDCNG against ir_measures' AP / nDCG (pytrec_eval) and ranx on DataFrames.

The whole-process, file-based benchmark (trec_eval, ``python -m ir_measures``, ranx, our command
line and streaming API) is ``bench.py``; this one times the Python API on in-memory data.

Generates a seeded run (queries x retrieved documents, as a DataFrame) and graded qrels, times each
contender in this one process (a warm-up on a small slice first, then the median of --repeats
runs), and measures each contender's peak memory in a fresh child process. Prints absolute times
and ratios to ``ir_measures`` AP on the same data.

    python benchmarks/in_process.py                       # full size: 5,000 queries x 1,000 documents
    python benchmarks/in_process.py --queries 500 --docs 200 --repeats 1
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import ir_measures
import numpy as np
import pandas as pd
from ir_measures import AP, nDCG

from ir_measures_graded import muMAP, nDCNG


@dataclass
class Data:
    qrels: pd.DataFrame
    run: pd.DataFrame
    second_run: pd.DataFrame
    real_qrels: pd.DataFrame  # real-valued labels with many levels


def make_data(queries: int, docs: int, judged: int, levels: int, real_levels: int, seed: int) -> Data:
    """Run: ``docs`` documents per query with float scores (some ties); qrels: ``judged`` documents per
    query, two thirds of them retrieved, labels 0..levels-1 skewed towards 0; a second run re-scores
    the same documents; real-valued qrels use ``real_levels`` distinct labels (the paper's TF-IDF
    virtual user has 158)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(queries), docs)
    doc = rng.integers(0, 50 * docs, size=queries * docs)
    frame = pd.DataFrame({"query_id": qid, "doc_id": doc}).drop_duplicates()
    score = np.round(rng.normal(size=len(frame)), 3)  # 3 decimals: ties happen
    run = pd.DataFrame({"query_id": "q" + frame["query_id"].astype(str),
                        "doc_id": "D" + frame["doc_id"].astype(str), "score": score})
    second_run = run.assign(score=np.round(score + rng.normal(scale=0.5, size=len(run)), 3))

    per_query = run.groupby("query_id", sort=False).head(judged * 2 // 3)[["query_id", "doc_id"]]
    unretrieved = pd.DataFrame({
        "query_id": "q" + pd.Series(np.repeat(np.arange(queries), judged - judged * 2 // 3)).astype(str),
        "doc_id": "U" + pd.Series(rng.integers(0, 10**9, size=queries * (judged - judged * 2 // 3))).astype(str),
    })
    judged_docs = pd.concat([per_query, unretrieved], ignore_index=True).drop_duplicates(["query_id", "doc_id"])
    weights = 0.5 ** np.arange(levels)
    labels = rng.choice(levels, size=len(judged_docs), p=weights / weights.sum())
    qrels = judged_docs.assign(relevance=labels.astype(np.int64))
    values = np.sort(rng.choice(np.arange(1, 10_000), size=real_levels, replace=False)) / 1000
    real = np.where(rng.random(len(judged_docs)) < 0.5, 0.0,
                    values[np.minimum(rng.geometric(0.03, size=len(judged_docs)) - 1, len(values) - 1)])
    real_qrels = judged_docs.assign(relevance=real)
    return Data(qrels.reset_index(drop=True), run, second_run, real_qrels.reset_index(drop=True))


def contenders(data: Data) -> dict[str, Callable[[], object]]:
    graded_evaluator = ir_measures.evaluator([muMAP], data.qrels)
    ap_evaluator = ir_measures.evaluator([AP], data.qrels)
    found = {
        "ir_measures AP": lambda: ir_measures.calc_aggregate([AP], data.qrels, data.run),
        "ir_measures AP(rel=1..4)": lambda: ir_measures.calc_aggregate(
            [AP(rel=t) for t in range(1, int(data.qrels["relevance"].max()) + 1)], data.qrels, data.run),
        "ir_measures nDCG@10": lambda: ir_measures.calc_aggregate([nDCG @ 10], data.qrels, data.run),
        "ir_measures AP, 2nd run on evaluator": lambda: ap_evaluator.calc_aggregate(data.second_run),
        "muMAP": lambda: ir_measures.calc_aggregate([muMAP], data.qrels, data.run),
        "nDCNG@10": lambda: ir_measures.calc_aggregate([nDCNG @ 10], data.qrels, data.run),
        "muMAP + nDCNG@10": lambda: ir_measures.calc_aggregate([muMAP, nDCNG @ 10], data.qrels, data.run),
        "muMAP, real-valued levels": lambda: ir_measures.calc_aggregate([muMAP], data.real_qrels, data.run),
        "muMAP, 2nd run on evaluator": lambda: graded_evaluator.calc_aggregate(data.second_run),
    }
    try:
        import ranx
    except ImportError:
        return found

    def ranx_eval(metric: str) -> Callable[[], object]:
        def go() -> object:
            # ranx asserts object-dtype id columns; pandas >= 3 makes them "str": convert (timed too)
            ids = {"query_id": object, "doc_id": object}
            qrels = ranx.Qrels.from_df(data.qrels.astype(ids), q_id_col="query_id", doc_id_col="doc_id",
                                       score_col="relevance")
            run = ranx.Run.from_df(data.run.astype(ids), q_id_col="query_id", doc_id_col="doc_id", score_col="score")
            return ranx.evaluate(qrels, run, metric)
        return go

    found["ranx map (incl. Run/Qrels)"] = ranx_eval("map")
    found["ranx ndcg@10 (incl. Run/Qrels)"] = ranx_eval("ndcg@10")
    return found


TARGETS = {  # ratio to ir_measures AP at full size (issue #5)
    "muMAP": 0.5,
    "muMAP + nDCNG@10": 0.6,
    "muMAP, real-valued levels": 1.0,
    "muMAP, 2nd run on evaluator": 0.45,
}
MEMORY_TARGETS = {"muMAP": 1.0}


def time_contenders(data: Data, warmup: Data, repeats: int) -> dict[str, float]:
    times = {}
    for (name, call), (_, warm) in zip(contenders(data).items(), contenders(warmup).items(), strict=True):
        warm()
        samples = []
        for _ in range(repeats):
            gc.collect()
            start = time.perf_counter()
            call()
            samples.append(time.perf_counter() - start)
        times[name] = statistics.median(samples)
        print(f"  timed {name}: {times[name]:.2f} s", file=sys.stderr, flush=True)
    return times


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        return int(re.search(rf"{field}:\s+(\d+)", f.read()).group(1))


def child_peak_memory(args: argparse.Namespace, name: str) -> float:
    """Peak RSS increase (MiB) of one contender, measured in a fresh process."""
    cmd = [sys.executable, __file__, "--measure-memory", name, *_size_args(args)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["peak_mib"]


def _size_args(args: argparse.Namespace) -> list[str]:
    return ["--queries", str(args.queries), "--docs", str(args.docs), "--judged", str(args.judged),
            "--levels", str(args.levels), "--real-levels", str(args.real_levels), "--seed", str(args.seed)]


def measure_memory(args: argparse.Namespace) -> None:
    data = generate(args)
    contenders(generate(args, scale=0.01))[args.measure_memory]()  # imports, JIT, caches: not the peak
    call = contenders(data)[args.measure_memory]
    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:  # reset the peak (VmHWM) to the current RSS
        f.write("5")
    before = _status_kib("VmRSS")
    call()
    print(json.dumps({"peak_mib": (_status_kib("VmHWM") - before) / 1024}))


def generate(args: argparse.Namespace, scale: float = 1.0) -> Data:
    return make_data(max(2, int(args.queries * scale)), args.docs, args.judged, args.levels, args.real_levels,
                     args.seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--docs", type=int, default=1000, help="retrieved documents per query")
    parser.add_argument("--judged", type=int, default=150, help="judged documents per query")
    parser.add_argument("--levels", type=int, default=5, help="integer labels 0..levels-1")
    parser.add_argument("--real-levels", type=int, default=158, help="distinct real-valued labels above 0")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-memory children")
    parser.add_argument("--measure-memory", metavar="CONTENDER", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure_memory:
        measure_memory(args)
        return 0

    data = generate(args)
    warmup = generate(args, scale=0.01)
    n_levels = data.real_qrels.loc[data.real_qrels["relevance"] > 0, "relevance"].nunique()
    print(f"data: {data.qrels['query_id'].nunique()} queries, {len(data.run):,} run rows, {len(data.qrels):,} "
          f"qrels rows (labels 0-{args.levels - 1}); real-valued qrels with {n_levels} levels above 0; "
          f"median of {args.repeats}", flush=True)
    times = time_contenders(data, warmup, args.repeats)
    memory = {}
    if not args.no_memory:
        for name in times:
            memory[name] = child_peak_memory(args, name)
    base = times["ir_measures AP"]
    rows = []
    for name, seconds in times.items():
        ratio = seconds / base
        target = TARGETS.get(name)
        mem = memory.get(name)
        mem_ratio = mem / memory["ir_measures AP"] if mem is not None and memory.get("ir_measures AP") else None
        mem_target = MEMORY_TARGETS.get(name)
        rows.append({
            "contender": name,
            "seconds": f"{seconds:.2f}",
            "ratio to AP": f"{ratio:.2f}",
            "target": f"<= {target}" + (" ok" if ratio <= target else " MISSED") if target else "",
            "peak MiB": f"{mem:.0f}" if mem is not None else "",
            "mem ratio": f"{mem_ratio:.2f}" if mem_ratio is not None else "",
            "mem target": (f"<= {mem_target}" + (" ok" if mem_ratio <= mem_target else " MISSED"))
            if mem_target and mem_ratio is not None else "",
        })
    table = pd.DataFrame(rows)
    print(table.to_markdown(index=False) if _has_tabulate() else table.to_string(index=False))
    return 0


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
