"""Recommender scale (issue 54): qrels as large as the run, whole processes against trec_eval and
``python -m ir_measures``, at growing numbers of users.

The data are MovieLens-shaped: every user rated ``--ratings`` items (1-5 stars, integer ids from a
catalogue of 20,000 items) and gets a top-``--top`` list (scores with four decimals, best first), 40
of its items rated; both files are sorted by user, as exports are. At 100,000 users × 100 ratings
× top-100 that is 10M qrels lines (153 MB) and 10M run lines (281 MB).

For each size: our command line (``muMAP nDCNG@10``) paired with trec_eval (``-m map -m
ndcg_cut.10``); the mixed list (``AP nDCG@10 muMAP nDCNG@10``) paired with ``python -m ir_measures
AP nDCG@10``; ir_measures' generators through ``calc_aggregate`` and ``experiment()`` measured
alone. Ratios are medians of paired ratios (A B A B ..., after one warm-up each); peak RSS is each
process's high-water mark. ``--before SRC`` also runs our two commands with ``PYTHONPATH=SRC`` (a
``src`` folder of another version, e.g. ``git archive 45c2bc7 src | tar -x -C /tmp/before``), each
paired with this version's, in the same run. The peak RSS of our command at the sizes measured is
fitted by least squares to ``a + b × users`` to extrapolate to 1M users (said as such).

    python benchmarks/recommender.py                                # 10k, 30k, 100k users (~10 minutes)
    python benchmarks/recommender.py --users 100000 --before /tmp/before/src
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402 - the helpers of the whole-process benchmark

USERS = (10_000, 30_000, 100_000)
CATALOGUE = 20_000
SHARED = 40  # items of a user's top list that it rated
EXTRAPOLATE_TO = 1_000_000
TARGETS = {"cli wall": 0.25, "cli rss": 0.6, "mixed wall": 1.0, "mixed rss": 0.5, "api GiB": 1.0}

API = bench.API
EXPERIMENT = ("import sys\nfrom ir_measures_graded import experiment\n"
              "print(experiment(sys.argv[1], [sys.argv[2]], ['muMAP', 'nDCNG@10'], per_query=False))")


def write(folder: Path, users: int, ratings: int, top: int, seed: int = 11) -> None:
    """The qrels and run files of ``users`` users (see the module's docstring), 10,000 users at a time."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pcsv

    rng = np.random.default_rng(seed)
    options = pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    qrels_path, run_path = paths(folder, users, ratings, top)
    qrels_schema = pa.schema([("q", pa.int64()), ("it", pa.string()), ("d", pa.int64()), ("r", pa.int8())])
    run_schema = pa.schema([("q", pa.int64()), ("it", pa.string()), ("d", pa.int64()), ("rank", pa.int64()),
                            ("s", pa.float64()), ("name", pa.string())])
    width = ratings + top - min(SHARED, ratings, top)  # a user's distinct items: rated, listed, both
    with pcsv.CSVWriter(qrels_path.with_suffix(".tmp"), qrels_schema, write_options=options) as qrels, \
            pcsv.CSVWriter(run_path.with_suffix(".tmp"), run_schema, write_options=options) as run:
        for first in range(0, users, 10_000):
            n = min(10_000, users - first)
            # distinct items per user: sorted draws plus their position, then shuffled
            items = np.sort(rng.integers(0, CATALOGUE - width, (n, width)), axis=1) + np.arange(width)
            items = np.take_along_axis(items, np.argsort(rng.random((n, width)), axis=1), axis=1)
            user = np.repeat(np.arange(first + 1, first + n + 1), ratings)
            zero = np.zeros(len(user), dtype=np.int64)
            qrels.write_table(pa.table({"q": user, "it": pa.array(["0"]).take(zero), "d": items[:, :ratings].ravel(),
                                        "r": rng.integers(1, 6, len(user)).astype(np.int8)}, schema=qrels_schema))
            user = np.repeat(np.arange(first + 1, first + n + 1), top)
            zero = np.zeros(len(user), dtype=np.int64)
            scores = np.sort(np.round(rng.random((n, top)), 4), axis=1)[:, ::-1].ravel()
            run.write_table(pa.table({"q": user, "it": pa.array(["Q0"]).take(zero),
                                      "d": items[:, width - top:].ravel(), "rank": np.tile(np.arange(1, top + 1), n),
                                      "s": scores, "name": pa.array(["rec"]).take(zero)}, schema=run_schema))
    qrels_path.with_suffix(".tmp").rename(qrels_path)
    run_path.with_suffix(".tmp").rename(run_path)


def paths(folder: Path, users: int, ratings: int, top: int) -> tuple[Path, Path]:
    stem = f"rec-{users}u-{ratings}r-top{top}"
    return folder / f"{stem}-qrels.txt", folder / f"{stem}-run.txt"


def files(folder: Path, users: int, ratings: int, top: int) -> tuple[Path, Path]:
    """The two files, written by a child process when missing (this process's memory stays small)."""
    qrels, run = paths(folder, users, ratings, top)
    if not (qrels.exists() and run.exists()):
        subprocess.run([sys.executable, __file__, "--write", str(users), "--ratings", str(ratings), "--top", str(top),
                        "--cache", str(folder)], check=True)
    return qrels, run


def cell(m: bench.Measured) -> str:
    return f"{m.seconds:.2f} | {m.peak_mib:,.0f}"


def ratio(value: float, limit: float | None = None) -> str:
    return f"{value:.2f}" if limit is None else f"{value:.2f} ({'ok' if value <= limit else 'MISSED'}, <= {limit:g})"


def measure_size(args: argparse.Namespace, trec_eval: Path | None, users: int) -> tuple[list[str], dict]:
    """The table rows of one size, and what the summary needs."""
    qrels, run = files(args.cache, users, args.ratings, args.top)
    lines = users * args.ratings
    rows, seen = [], {}
    size = f"{users:,} users ({lines / 1e6:g}M + {users * args.top / 1e6:g}M lines)"
    graded = bench.ours(qrels, run)
    mixed = bench.ours(qrels, run, "AP", "nDCG@10", "muMAP", "nDCNG@10")
    if trec_eval is not None:
        pair = bench.paired(graded, [str(trec_eval), "-m", "map", "-m", "ndcg_cut.10", str(qrels), str(run)],
                            args.repeats)
        rows.append(f"| {size} | {bench.CLI_NAME} | {cell(pair.a)} | {bench.TREC_EVAL_NAME} | {cell(pair.b)} | "
                    f"{ratio(pair.wall, TARGETS['cli wall'])} | {ratio(pair.rss, TARGETS['cli rss'])} |")
        seen["cli"] = pair.a
    else:
        seen["cli"] = bench.measure(graded, args.repeats)
        rows.append(f"| {size} | {bench.CLI_NAME} | {cell(seen['cli'])} | (no trec_eval) | | | |")
    pair = bench.paired(mixed, bench.ir_measures_cli(qrels, run), args.repeats)
    rows.append(f"| {size} | {bench.MIXED_NAME} | {cell(pair.a)} | {bench.IRM_NAME} | {cell(pair.b)} | "
                f"{ratio(pair.wall, TARGETS['mixed wall'])} | {ratio(pair.rss, TARGETS['mixed rss'])} |")
    same = bench._standard_lines(pair.a.stdout) == bench._standard_lines(pair.b.stdout)
    seen["same"] = same
    api = bench.measure([*bench.python(API), str(qrels), str(run)])
    rows.append(f"| {size} | ours API `calc_aggregate([muMAP, nDCNG@10], read_trec_qrels(Q), read_trec_run(R))` | "
                f"{cell(api)} | | | | {ratio(api.peak_mib / bench.GIB, TARGETS['api GiB'])} GiB |")
    exp = bench.measure([*bench.python(EXPERIMENT), str(qrels), str(run)])
    rows.append(f"| {size} | ours `experiment(Q, [R], ['muMAP', 'nDCNG@10'], per_query=False)` | {cell(exp)} "
                "| | | | |")
    if args.before:
        env = {"PYTHONPATH": str(args.before)}
        for name, command in (("cli", graded), ("mixed", mixed)):
            pair = _before_after(command, env, args.repeats)
            rows.append(f"| {size} | before: {name} with `PYTHONPATH={args.before}` | {cell(pair.b)} | after (this "
                        f"version) | {cell(pair.a)} | after / before {pair.wall:.2f} | {pair.rss:.2f} |")
    return rows, seen


def _before_after(command: list[str], before_env: dict[str, str], repeats: int) -> bench.Pair:
    """This version (a) and the version ``before_env`` puts first on the path (b), in turn."""
    bench.once(command)
    bench.once(command, before_env)
    after, before = bench.Measured(), bench.Measured()
    for _ in range(repeats):
        after.add(*bench.once(command))
        before.add(*bench.once(command, before_env))
    return bench.Pair(after, before, statistics.median(a / b for a, b in zip(after.times, before.times, strict=True)),
                      statistics.median(a / b for a, b in zip(after.peaks, before.peaks, strict=True)))


def regressions(args: argparse.Namespace) -> list[str]:
    """The figures issue 54 must not make worse, this version paired with ``--before``'s: the 5M-line
    file (``bench.py``'s generator) through the command line, our measures and the mixed list; ir_measures'
    generators through ``calc_aggregate`` at 20M lines; the 50-query file through the command line."""
    env = {"PYTHONPATH": str(args.before)}
    out = ["| figure | before wall s | before peak MiB | after wall s | after peak MiB | wall after / before | "
           "peak after / before |", "|:--|--:|--:|--:|--:|--:|--:|"]
    five = bench.collection(args.cache, 5_000)
    twenty = bench.collection(args.cache, 20_000)
    fifty = bench.collection(args.cache, 50)
    cases = [
        ("5M lines: `ir-measures-graded Q R muMAP nDCNG@10`", bench.ours(*five), args.regression_repeats),
        ("5M lines: `ir-measures-graded Q R AP nDCG@10 muMAP nDCNG@10`",
         bench.ours(*five, "AP", "nDCG@10", "muMAP", "nDCNG@10"), args.regression_repeats),
        ("20M lines: `calc_aggregate([muMAP, nDCNG@10], read_trec_qrels(Q), read_trec_run(R))`",
         [*bench.python(API), *map(str, twenty)], 1),
        ("50 queries: `ir-measures-graded Q R muMAP nDCNG@10`", bench.ours(*fifty), 3 * args.regression_repeats),
    ]
    for name, command, repeats in cases:
        pair = _before_after(command, env, repeats)
        out.append(f"| {name} | {pair.b.seconds:.2f} | {pair.b.peak_mib:,.0f} | {pair.a.seconds:.2f} | "
                   f"{pair.a.peak_mib:,.0f} | {pair.wall:.2f} | {pair.rss:.2f} |")
        print(out[-1], file=sys.stderr, flush=True)
    return out


def growth(users: list[int], peaks: list[float]) -> list[str]:
    """Peak RSS against users: the ratio per step and a least-squares line, extrapolated to 1M users."""
    out = ["| users | ours CLI muMAP nDCNG@10 peak MiB | × users | × peak |", "|--:|--:|--:|--:|"]
    for i, (u, p) in enumerate(zip(users, peaks, strict=True)):
        step = "" if i == 0 else f"{u / users[i - 1]:.1f} | {p / peaks[i - 1]:.2f}"
        out.append(f"| {u:,} | {p:,.0f} | {step or ' | '} |")
    if len(users) >= 2:
        mean_u, mean_p = statistics.fmean(users), statistics.fmean(peaks)
        slope = (sum((u - mean_u) * (p - mean_p) for u, p in zip(users, peaks, strict=True))
                 / sum((u - mean_u) ** 2 for u in users))
        base = mean_p - slope * mean_u
        out += ["", f"Least-squares line over these sizes: peak ≈ {base:,.0f} MiB + {slope * 1000:.2f} MiB per 1,000 "
                f"users; extrapolated to {EXTRAPOLATE_TO:,} users: {base + slope * EXTRAPOLATE_TO:,.0f} MiB "
                "(an extrapolation, not a measurement)."]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, nargs="+", default=list(USERS), help="sizes (default 10000 30000 100000)")
    parser.add_argument("--ratings", type=int, default=100, help="ratings per user (default 100)")
    parser.add_argument("--top", type=int, default=100, help="length of each user's list (default 100)")
    parser.add_argument("--repeats", type=int, default=1, help="pairs per ratio (default 1, after a warm-up each)")
    parser.add_argument("--before", type=Path, help="a src folder of another version, measured beside this one")
    parser.add_argument("--regressions", action="store_true",
                        help="with --before: also the 5M-line, 20M-line and 50-query figures, before and after")
    parser.add_argument("--regression-repeats", type=int, default=3, help="pairs per regression figure (default 3)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "ir_measures_graded-bench")
    parser.add_argument("--trec-eval", metavar="PATH", help="a trec_eval binary (else built from shared/tools)")
    parser.add_argument("--results", type=Path, default=bench.ROOT / "benchmarks" / "RESULTS.md",
                        help="the dated section is appended here ('-': printed only)")
    parser.add_argument("--write", type=int, help=argparse.SUPPRESS)  # internal: see files()
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    if args.write:
        write(args.cache, args.write, args.ratings, args.top)
        return 0
    trec_eval = bench.trec_eval_binary(args.trec_eval, args.cache)
    start = time.perf_counter()
    rows, peaks, same = [], [], True
    checked = regressions(args) if args.regressions and args.before else []
    for users in sorted(args.users):
        size_rows, seen = measure_size(args, trec_eval, users)
        rows += size_rows
        peaks.append(seen["cli"].peak_mib)
        same = same and seen["same"]
        print("\n".join(size_rows), file=sys.stderr, flush=True)
    body = "\n".join([
        f"{bench.machine()}; {time.perf_counter() - start:.0f} s.",
        "",
        f"`python benchmarks/recommender.py --users {' '.join(map(str, sorted(args.users)))} --repeats {args.repeats}"
        f"{f' --before {args.before}' if args.before else ''}"
        f"{f' --regressions --regression-repeats {args.regression_repeats}' if checked else ''}`: users × {args.ratings} ratings (1-5) and a top-{args.top} "
        f"list per user, {min(SHARED, args.ratings, args.top)} of its items rated, both files sorted by user. Wall s are medians, peak MiB the "
        "largest high-water mark; ratios are paired medians, ours / theirs.",
        "",
        "| size | ours | wall s | peak MiB | theirs | wall s | peak MiB | wall ratio | peak ratio |",
        "|:--|:--|--:|--:|:--|--:|--:|--:|--:|",
        *rows,
        "",
        f"AP and nDCG@10 of the mixed list identical to `python -m ir_measures`'s at every size: {'yes' if same else 'NO, they DIFFER'}.",
        "",
        *growth(sorted(args.users), peaks),
        *(["", f"The figures that must not get worse, this version against `PYTHONPATH={args.before}` (paired "
           "medians, after / before):", "", *checked] if checked else []),
    ])
    print(body)
    if str(args.results) != "-":
        bench.append_results(args.results, f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: recommender scale "
                             "(`recommender.py`, issue 54)", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
