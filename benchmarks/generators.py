"""ir_measures' own readers as inputs: ``calc_aggregate([muMAP, nDCNG@10], read_trec_qrels(Q),
read_trec_run(R))`` against the floor, the readers alone (issue #46's target).

The floor is a fresh process that only iterates the two generators (``for _ in read_trec_qrels(Q):
pass`` and the same for the run): what any consumer of those generators pays. Ours is a fresh
process evaluating µMAP and NDCNG@10 on the same generators. The two run in turn (A B A B ...), the
ratio is the median of the per-pair ratios; peak RSS is each child's ``ru_maxrss`` (from
``os.wait4``, as ``/usr/bin/time -v`` reports it). Also printed: the CPU seconds (user + system) of
each child, steadier than wall time on a shared machine. The files are ``bench.py``'s (1,000
documents per query, 150 judgments per query), written when missing.

    python benchmarks/generators.py --queries 5000              # 5M run lines
    python benchmarks/generators.py --queries 20000 --repeats 1 # 20M run lines (issue #46's size)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402 - the data and the helpers of the whole-process benchmark

FLOOR = ("import sys, ir_measures\n"
         "for _ in ir_measures.read_trec_qrels(sys.argv[1]): pass\n"
         "for _ in ir_measures.read_trec_run(sys.argv[2]): pass\n")
OURS = bench.API
TARGET_WALL, TARGET_MIB = 1.5, 1024.0


def child(code: str, qrels: Path, run: Path) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds, peak RSS (MiB) and standard output of one fresh process running ``code``."""
    wall, cpu, peak_mib, stdout = bench.process([sys.executable, "-c", code, str(qrels), str(run)])
    return wall, cpu, peak_mib, stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5000, help="queries x 1,000 run lines (default 5000: 5M)")
    parser.add_argument("--repeats", type=int, default=3, help="pairs (default 3)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "ir_measures_graded-bench")
    parser.add_argument("--results", type=Path, default=bench.ROOT / "benchmarks" / "RESULTS.md",
                        help="the dated section is appended here ('-': printed only)")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    qrels, run = bench.collection(args.cache, args.queries)
    lines = args.queries * bench.DOCS_PER_QUERY
    child(FLOOR, qrels, run)  # warm-up: the files in the page cache, modules compiled
    floor, ours = [], []
    values = ""
    for _ in range(args.repeats):
        floor.append(child(FLOOR, qrels, run))
        ours.append(child(OURS, qrels, run))
        values = ours[-1][3]
    wall = statistics.median(o[0] / f[0] for o, f in zip(ours, floor, strict=True))
    cpu = statistics.median(o[1] / f[1] for o, f in zip(ours, floor, strict=True))
    peak = max(o[2] for o in ours)

    def median(rows: list, i: int) -> float:
        return statistics.median(r[i] for r in rows)

    body = "\n".join([
        f"{bench.machine()}",
        "",
        f"`python benchmarks/generators.py --queries {args.queries} --repeats {args.repeats}`: "
        f"{bench._lines(args.queries)} ({lines:,} run lines, {args.queries * bench.JUDGED_PER_QUERY:,} judgments), "
        f"median of {args.repeats} pairs.",
        "",
        "| process | wall s | CPU s | peak MiB |",
        "|:--|--:|--:|--:|",
        f"| floor: `for _ in read_trec_qrels(Q)` + `for _ in read_trec_run(R)` | {median(floor, 0):.2f} | "
        f"{median(floor, 1):.2f} | {max(f[2] for f in floor):.0f} |",
        f"| ours: `calc_aggregate([muMAP, nDCNG@10], read_trec_qrels(Q), read_trec_run(R))` | {median(ours, 0):.2f} | "
        f"{median(ours, 1):.2f} | {peak:.0f} |",
        "",
        "```text",
        f"target    wall ours / floor: {bench._verdict(wall, TARGET_WALL)} (CPU ratio {cpu:.2f})",
        f"target    peak RSS: {peak:.0f} MiB (target <= {TARGET_MIB:.0f}) {'ok' if peak <= TARGET_MIB else 'MISSED'}",
        f"values    {values}",
        "```",
    ])
    print(body)
    if str(args.results) != "-":
        bench.append_results(args.results, f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
                             f"ir_measures' generators (`generators.py`, {bench._lines(args.queries)})", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
