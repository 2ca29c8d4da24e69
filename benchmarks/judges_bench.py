"""Two judges at shared-task scale (issue #53): ``agree`` against one ``leaderboard`` on the same data.

100 runs × 50 topics × 1,000 retrieved documents, two qrels of 60,000 judgments each (labels 0-3; judge B
confuses adjacent grades in 40% of the judgments), written as TREC files; both commands with the same four
measures (muMAP nDCNG@10 nDCG@10 AP(rel=2)) and the leaderboard's default test (randomised Tukey HSD,
10,000 permutations), in alternating pairs, each a fresh process; the parent reads each child's wall time
and peak RSS (``ru_maxrss`` from ``os.wait4``). Targets: ``agree`` ≤ 2× one ``leaderboard`` (paired median
ratio) and ≤ 800 MiB.

    python benchmarks/judges_bench.py                                   # the targets, printed
    python benchmarks/judges_bench.py --results benchmarks/RESULTS.md   # and a dated section appended
    python benchmarks/judges_bench.py --runs 5 --queries 3 --docs 50 --pairs 1   # quick
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

MEASURES = ["muMAP", "nDCNG@10", "nDCG@10", "AP(rel=2)"]


def write_data(folder: Path, runs: int, queries: int, docs: int, judged: int, seed: int = 0) -> list[str]:
    """The two qrels (``a.qrels``, ``b.qrels``) and the runs (``rNNN.run``) in ``folder``; the runs' names."""
    rng = np.random.default_rng(seed)
    q, d = np.repeat(np.arange(queries), judged), np.tile(np.arange(judged), queries)
    a = rng.choice(4, size=len(q), p=[0.55, 0.25, 0.12, 0.08])
    b = np.clip(a + rng.choice([-1, 0, 1], size=len(q), p=[0.2, 0.6, 0.2]), 0, 3)
    for name, grades in (("a.qrels", a), ("b.qrels", b)):
        (folder / name).write_text("".join(f"q{x} 0 d{y} {z}\n" for x, y, z in zip(q.tolist(), d.tolist(),
                                                                                    grades.tolist(), strict=True)))
    names = []
    for r in range(runs):
        lines = []
        for t in range(queries):
            chosen = rng.choice(judged, min(docs, judged), replace=False)
            score = a[t * judged + chosen] * (r / runs) + rng.random(len(chosen)) * 3
            lines += [f"q{t} Q0 d{chosen[i]} {k + 1} {score[i]:.5f} r{r}\n"
                      for k, i in enumerate(np.argsort(-score, kind="stable"))]
        names.append(f"r{r:03d}.run")
        (folder / names[-1]).write_text("".join(lines))
    return names


def measure(command: list[str], folder: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of ``command`` run in ``folder``."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{' '.join(command)} failed: {child.stderr.read().decode()}")
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--docs", type=int, default=1000, help="documents retrieved per query")
    parser.add_argument("--judged", type=int, default=1200, help="judgments per query of each qrels")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--results", help="append a dated section to this file (benchmarks/RESULTS.md)")
    args = parser.parse_args()
    script = shutil.which("ir-measures-graded", path=str(Path(sys.executable).parent)) or "ir-measures-graded"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs = write_data(folder, args.runs, args.queries, args.docs, args.judged)
        board = [script, "leaderboard", "a.qrels", *runs, "-m", *MEASURES, "--sections", "leaderboard", "--quiet"]
        agree = [script, "agree", "a.qrels", "b.qrels", *runs, "-m", *MEASURES, "--quiet"]
        found = [(measure(board, folder), measure(agree, folder)) for _ in range(args.pairs)]
    ratio = statistics.median(g[0] / b[0] for b, g in found)
    board_s, agree_s = statistics.median(b[0] for b, _ in found), statistics.median(g[0] for _, g in found)
    peak = max(g[1] for _, g in found)
    lines = [
        f"## {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC: `judges_bench.py` (#53)", "",
        f"`nproc` {os.cpu_count()}; load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} at the end; "
        f"{args.runs} runs × {args.queries} topics × {args.docs} documents, two qrels of "
        f"{args.queries * args.judged:,} judgments; {args.pairs} alternating pairs, each command a fresh process.", "",
        "| target | limit | measured | |", "|:--|--:|--:|:--|",
        f"| `agree` / one `leaderboard` (paired median) | ≤ 2× | {ratio:.2f}× ({agree_s:.1f} s vs {board_s:.1f} s) | "
        f"{'met' if ratio <= 2 else 'MISSED'} |",
        f"| `agree`: peak memory | ≤ 800 MiB | {peak:.0f} MiB | {'met' if peak <= 800 else 'MISSED'} |", ""]
    print("\n".join(lines))
    if args.results:
        with open(args.results, "a", encoding="utf-8") as out:
            out.write("\n" + "\n".join(lines))


if __name__ == "__main__":
    main()
