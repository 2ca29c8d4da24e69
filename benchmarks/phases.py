"""Where the large-file path spends its time: one run file evaluated in ONE thread, phase by phase.

    python benchmarks/phases.py                 # the 5M-line files of bench.py --full (written if missing)
    python benchmarks/phases.py --queries 500   # 500k lines

The command line does the same work, but parses the next block and cuts, encodes and hashes the
next batch in a second thread while it evaluates the current one; here every step runs in turn, so
the seconds add up and show what bounds the whole. CPU seconds of the process (all threads) are
printed beside the wall time: the floor of the two-thread pipeline on two cores is about half of
them. Phases, in the order the data flows:

imports (numpy, pyarrow, ir_measures, this package); qrels read (Arrow CSV) and judgments prepared
(sorted by query); run blocks parsed (Arrow CSV); blocks cut into batches of whole queries, query
ids encoded, the duplicate check (a 64-bit key per (query, doc), sorted) (these in the reading
thread of the command line); per batch: the ranking sort (float32 scores, ties by doc id), labels
joined (Arrow's hash join on the query and the doc id itself), the measures.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5_000, help="queries x 1,000 run lines (default 5,000)")
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "fastbench-cache")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(HERE))
    from bench import collection  # the same files as bench.py (written by a child process when missing)

    qrels_path, run_path = collection(args.cache, args.queries)
    spent: dict[str, float] = defaultdict(float)
    start = time.perf_counter()
    cpu_start = time.process_time()

    def lap(name: str, since: float) -> float:
        now = time.perf_counter()
        spent[name] += now - since
        return now

    t = time.perf_counter()
    import numpy as np
    import pyarrow  # noqa: F401

    import ir_measures_graded
    from ir_measures_graded import core, kernels
    from ir_measures_graded.arrow import to_numpy
    from ir_measures_graded.io.ids import name_ranks
    from ir_measures_graded.io.readers import iter_blocks, read_qrels_table
    from ir_measures_graded.io.stream import ROWS_PER_QUERY, query_batches
    from ir_measures_graded.io.trec import BLOCK_SIZE, RUN
    from ir_measures_graded.prepare import Judgments, Ranking

    measures = [ir_measures_graded.muMAP, ir_measures_graded.nDCNG @ 10]
    t = lap("imports", t)
    qrels = read_qrels_table(str(qrels_path))
    t = lap("qrels: read", t)
    judgments = Judgments.from_qrels(qrels)
    t = lap("qrels: judgments prepared", t)
    def parsed():  # the run's blocks, the time spent parsing each one counted apart
        blocks = iter_blocks(str(run_path), RUN, None, BLOCK_SIZE, None)
        while True:
            since = time.perf_counter()
            block = next(blocks, None)
            lap("run: blocks parsed", since)
            if block is None:
                return
            yield block

    batches = query_batches(parsed(), min_rows=ROWS_PER_QUERY * judgments.n_queries)
    rows = n_batches = 0
    while True:
        t = time.perf_counter()
        parse_before = spent["run: blocks parsed"]
        batch = next(batches, None)
        # cutting, encoding and hashing: the time of next() less the parsing inside it
        spent["run: batches cut, query ids encoded, doc ids hashed, duplicates checked"] += (
            time.perf_counter() - t - (spent["run: blocks parsed"] - parse_before))
        if batch is None:
            break
        t = time.perf_counter()
        rows += batch.table.num_rows
        n_batches += 1
        query = judgments.codes_of(batch.query_ids)[batch.query_codes]
        score = to_numpy(batch.table.column("value"))
        keep = None  # as from_codes does: rows of queries the qrels lack are dropped, if any
        if query.min(initial=0) < 0:
            keep = np.flatnonzero(query >= 0)
            query, score = query[keep], score[keep]
        t = lap("per batch: ranking sort", t)
        label = judgments.labels_of(query, keep, batch.doc_ids)  # as from_codes does: before the sort
        t = lap("per batch: labels joined", t)
        score_key = kernels.descending_score_key(score)
        doc_rows = np.arange(len(query), dtype=np.int64) if keep is None else keep
        order = kernels.ranking_order(query, score_key, doc_rows, functools.partial(name_ranks, batch.doc_ids))
        query, label, score_key = query[order], label[order], score_key[order]
        t = lap("per batch: ranking sort", t)
        present = np.zeros(judgments.n_queries, dtype=bool)
        present[query] = True
        ranking = Ranking._ranked(query, label, present, judgments.n_queries, score_key)  # as from_codes does
        for _ in core.evaluate(measures, judgments, ranking):
            pass
        t = lap("per batch: measures", t)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(f"{rows:,} run lines, {qrels.num_rows:,} judgments, {n_batches} batches; "
          f"one thread: {wall:.2f} s wall, {cpu:.2f} s CPU")
    print("| phase | seconds | share |\n|:--|--:|--:|")
    for name, seconds in spent.items():
        print(f"| {name} | {seconds:.2f} | {seconds / wall:.0%} |")


if __name__ == "__main__":
    main()
