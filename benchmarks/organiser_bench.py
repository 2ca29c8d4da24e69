"""The organiser's view at shared-task scale (issue #43): 100 runs × 50 topics × 4 measures.

Each phase runs in a fresh child process on the simulated shared task of
:func:`ir_measures_graded.sample.shared_task` (runs of graded quality, 100 documents per topic, pooled
to depth 10), evaluated once (``keep_runs=True``); the child times only its phase on that experiment
and the parent reads the child's peak RSS (``ru_maxrss`` from ``os.wait4``: the whole process,
evaluation included, so an upper bound of the phase's memory).

- ``board``: :func:`leaderboard` with randomised Tukey HSD groups (10,000 permutations) and
  :func:`agreement` on it — target ≤ 10 s and ≤ 1 GiB;
- ``pool``: leave-one-run-out re-evaluation of every run (:func:`pool`) — target ≤ 20 s;
- ``bounds``: :func:`bounds` for every run and measure (information, no target).

    python benchmarks/organiser_bench.py                          # the targets, printed
    python benchmarks/organiser_bench.py --results benchmarks/RESULTS.md   # and a dated section appended
    python benchmarks/organiser_bench.py --runs 10 --queries 5 --permutations 100   # quick
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEASURES = ["muMAP", "nDCNG@10", "AP", "nDCG@10"]
TARGETS = {"board": ("leaderboard (randomised Tukey groups) + agreement", 10.0, 1024.0),
           "pool": ("leave-one-run-out, every run", 20.0, None),
           "bounds": ("incompleteness bounds, every run and measure (info)", None, None)}


def phase(name: str, runs: int, queries: int, permutations: int) -> dict:
    """In the child: evaluate the shared task, then time the phase."""
    import ir_measures_graded as img
    from ir_measures_graded.sample import shared_task

    qrels, run_frames = shared_task(n_runs=runs, n_queries=queries, depth=10, retrieved=100)
    start = time.perf_counter()
    exp = img.experiment(qrels, run_frames, MEASURES)
    evaluated = time.perf_counter() - start
    start = time.perf_counter()
    if name == "board":
        board = img.leaderboard(exp, testing=img.Testing(test="randomized_tukey", permutations=permutations))
        img.agreement(exp, board=board)
        said = f"{sum(1 for g in board.table['group'] if len(g) > 1)} run-measure cells in several groups"
    elif name == "pool":
        found = img.pool(exp)
        said = "; ".join(f"{r.measure} largest drop {r.largest_drop:.4f}" for r in found.reusability.itertuples())
    else:
        img.bounds(exp)
        said = ""
    return {"seconds": time.perf_counter() - start, "evaluated": evaluated, "said": said,
            "judgments": len(qrels)}


def child(name: str, args: argparse.Namespace) -> tuple[dict, float]:
    """Run phase ``name`` in a fresh process: (its report, its peak RSS in MiB)."""
    cmd = [sys.executable, __file__, "--phase", name, "--runs", str(args.runs), "--queries", str(args.queries),
           "--permutations", str(args.permutations)]
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out)
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"phase {name} failed")
        out.seek(0)
        return json.loads(out.read().decode().strip().splitlines()[-1]), usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per phase (median time, max RSS)")
    parser.add_argument("--results", type=Path, help="append a dated section to this results file")
    parser.add_argument("--note", default="", help="what the section should say about the machine (e.g. shared)")
    parser.add_argument("--phase", choices=list(TARGETS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(args.phase, args.runs, args.queries, args.permutations)))
        return
    shape = f"{args.runs} runs × {args.queries} topics × {len(MEASURES)} measures ({', '.join(MEASURES)})"
    rows = []
    started = time.time()
    for name, (what, limit, memory) in TARGETS.items():
        reports = [child(name, args) for _ in range(args.repeats)]
        seconds = statistics.median(r["seconds"] for r, _ in reports)
        peak = max(rss for _, rss in reports)
        verdict = []
        if limit is not None:
            verdict.append(f"{seconds:.2f} s (target ≤ {limit:g} s) {'met' if seconds <= limit else 'MISSED'}")
        else:
            verdict.append(f"{seconds:.2f} s")
        if memory is not None:
            verdict.append(f"peak {peak:.0f} MiB (target ≤ {memory:.0f} MiB) {'met' if peak <= memory else 'MISSED'}")
        else:
            verdict.append(f"peak {peak:.0f} MiB")
        first = reports[0][0]
        line = (f"| {what} | {'; '.join(verdict)} | {first['evaluated']:.2f} s | {first['said']} |")
        print(line, flush=True)
        rows.append(line)
    if args.results:
        import numpy
        import pandas

        import ir_measures_graded

        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).parent).stdout.strip()
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        text = ["\n## The organiser's view (issue #43): `benchmarks/organiser_bench.py`\n",
                f"{stamp}; `nproc` {os.cpu_count()} ({platform.processor() or platform.machine()}); load average "
                f"{load} at the end; Python {platform.python_version()}; ir-measures-graded "
                f"{ir_measures_graded.__version__} at {commit}; numpy {numpy.__version__}, pandas {pandas.__version__}; "
                f"{time.time() - started:.0f} s. {shape}; median of {args.repeats} fresh processes per phase, peak RSS "
                f"of the whole process (evaluation included). {args.note}".rstrip() + "\n",
                "| phase | time of the phase; peak memory | evaluating the experiment first | what it found |",
                "|:--|:--|--:|:--|", *rows]
        with open(args.results, "a", encoding="utf-8") as out:
            out.write("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
