"""Whole-process benchmark on TREC files: our command line and Python API against trec_eval,
``python -m ir_measures`` and ranx, printing every target of issue #22 with its ratio, measured in
this one run.

Every contender is a fresh process reading the same qrels and run files (the generator below: 1,000
documents per query, 150 graded judgments per query). Wall time is the median over runs; peak RSS is
the high-water mark ``ru_maxrss`` of that one child (from ``os.wait4``), the largest over runs.
Ratios are paired: the two commands run in turn (A B A B ...) and the ratio is the median of the
per-pair ratios, so that a machine whose speed drifts (a shared one) moves both sides alike.

trec_eval is built with ``make`` from NIST's source ``shared/tools/trec_eval-10.0-src.tar.gz`` (beside
the clone, or beside a folder above it) into the cache folder, or given with ``--trec-eval PATH``.

    python benchmarks/bench.py              # quick: the targets at small sizes, under a minute
    python benchmarks/bench.py --full       # 5M lines (medians of 3), the API up to 50M lines (~3 GB of files)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREC_EVAL_ARCHIVE = "trec_eval-10.0-src.tar.gz"
DOCS_PER_QUERY = 1000
JUDGED_PER_QUERY = 150
COLLECTION = 10_000_000  # doc ids drawn from a collection of this size
SMALL = (50, 200)  # queries of the two TREC-sized files (x 1,000 lines)
QUICK_SCALE, FULL_SCALE = 500, 5_000  # queries of the file compared with trec_eval
QUICK_API, FULL_API = (200, 2_000), (2_000, 5_000, 20_000, 50_000)  # queries of the API's scaling series
STREAM_ONLY_ABOVE = 10_000_000  # lines; larger runs go to trec_eval and our streamed paths only
API_REPEATED_UP_TO = 5_000_000  # lines; the API is timed 3 times (median) up to this size, once above
GIB = 1024.0
#: The small-input path reads files up to this many bytes; 0 sends every file to the large-file path.
SMALL_FILE_ENV = "IR_MEASURES_GRADED_SMALL_FILE_BYTES"


# --- data -----------------------------------------------------------------------------------------

def collection(folder: Path, queries: int) -> tuple[Path, Path]:
    """The qrels and run files of ``queries`` queries, written by a child process when missing: this
    process stays small, as every process it starts inherits its peak RSS as a floor (Linux keeps the
    high-water mark across ``fork`` and ``exec``)."""
    run_path, qrels_path = folder / f"run-{queries}.txt", folder / f"qrels-{queries}.txt"
    if not (run_path.exists() and qrels_path.exists()):
        subprocess.run([sys.executable, __file__, "--write", str(queries), "--cache", str(folder)], check=True)
    return qrels_path, run_path


def write_collection(folder: Path, queries: int, seed: int = 0) -> tuple[Path, Path]:
    """``queries`` x 1,000 run lines (scores with 3 decimals: ties) and 150 judgments per query
    (labels 0-4, skewed to 0; two thirds of them retrieved), written in chunks of queries."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    run_path, qrels_path = folder / f"run-{queries}.txt", folder / f"qrels-{queries}.txt"
    if run_path.exists() and qrels_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    options = pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    tmp_run, tmp_qrels = run_path.with_suffix(".tmp"), qrels_path.with_suffix(".tmp")
    with pcsv.CSVWriter(tmp_run, _run_schema(), write_options=options) as run_out, \
            pcsv.CSVWriter(tmp_qrels, _qrels_schema(), write_options=options) as qrels_out:
        for first in range(0, queries, 2_000):
            n = min(2_000, queries - first)
            q = np.repeat(np.arange(first, first + n), DOCS_PER_QUERY)
            start = rng.integers(0, COLLECTION - DOCS_PER_QUERY * 20, size=n)[:, None]
            doc = (start + np.cumsum(rng.integers(1, 20, size=(n, DOCS_PER_QUERY)), axis=1)).ravel()
            score = np.round(rng.normal(size=len(q)), 3)
            qid = pc.binary_join_element_wise("q", pa.array(q).cast(pa.string()), "")
            did = pc.binary_join_element_wise("D", pa.array(doc).cast(pa.string()), "")
            constant = np.zeros(len(q), dtype=np.int64)
            run_out.write_table(pa.table({
                "q": qid, "it": pa.array(["Q0"]).take(constant), "d": did,
                "rank": pa.array(np.tile(np.arange(1, DOCS_PER_QUERY + 1), n)), "s": pa.array(score),
                "name": pa.array(["bench"]).take(constant)}, schema=_run_schema()))
            retrieved = (np.arange(len(q)) % DOCS_PER_QUERY < 300) & (np.arange(len(q)) % 3 == 0)
            extra = JUDGED_PER_QUERY - 100
            jq = np.concatenate([q[retrieved], np.repeat(np.arange(first, first + n), extra)])
            jd = np.concatenate([doc[retrieved], COLLECTION + rng.choice(COLLECTION, size=n * extra, replace=False)])
            order = np.argsort(jq, kind="stable")
            weights = 0.5 ** np.arange(5)
            labels = rng.choice(5, size=len(jq), p=weights / weights.sum())
            qrels_out.write_table(pa.table({
                "q": pc.binary_join_element_wise("q", pa.array(jq[order]).cast(pa.string()), ""),
                "it": pa.array(["0"]).take(np.zeros(len(jq), dtype=np.int64)),
                "d": pc.binary_join_element_wise("D", pa.array(jd[order]).cast(pa.string()), ""),
                "rel": pa.array(labels)}, schema=_qrels_schema()))
    tmp_run.rename(run_path)
    tmp_qrels.rename(qrels_path)
    return qrels_path, run_path


def _run_schema():
    import pyarrow as pa

    return pa.schema([("q", pa.string()), ("it", pa.string()), ("d", pa.string()), ("rank", pa.int64()),
                      ("s", pa.float64()), ("name", pa.string())])


def _qrels_schema():
    import pyarrow as pa

    return pa.schema([("q", pa.string()), ("it", pa.string()), ("d", pa.string()), ("rel", pa.int64())])


# --- trec_eval ------------------------------------------------------------------------------------

def trec_eval_source() -> Path | None:
    """NIST's source archive in ``shared/tools/`` beside the clone (CI) or beside a folder above it."""
    for folder in ROOT.parents:
        candidate = folder / "shared" / "tools" / TREC_EVAL_ARCHIVE
        if candidate.exists():
            return candidate
    return None


def trec_eval_binary(given: str | None, cache: Path) -> Path | None:
    """The given binary, or one built from NIST's source into the cache (once)."""
    if given:
        return Path(given)
    built = cache / "trec_eval-10.0" / "trec_eval" / "trec_eval"
    if built.exists():
        return built
    source_archive = trec_eval_source()
    if source_archive is None or not shutil.which("make"):
        print(f"trec_eval left out: no shared/tools/{TREC_EVAL_ARCHIVE} beside the clone or above it (or no make); "
              "give --trec-eval PATH", file=sys.stderr)
        return None
    target = cache / "trec_eval-10.0"
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        with tarfile.open(source_archive) as tar:
            tar.extractall(tmp, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        source = next(Path(tmp).glob("*/Makefile")).parent
        subprocess.run(["make", "-C", str(source)], check=True, capture_output=True)
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        shutil.move(str(source), str(target / "trec_eval"))
    return built


# --- measuring processes --------------------------------------------------------------------------

@dataclass
class Measured:
    times: list[float] = field(default_factory=list)
    peaks: list[float] = field(default_factory=list)  # MiB
    stdout: str = ""

    @property
    def seconds(self) -> float:
        return statistics.median(self.times)

    @property
    def peak_mib(self) -> float:
        return max(self.peaks)

    def add(self, seconds: float, peak_mib: float, stdout: str) -> None:
        self.times.append(seconds)
        self.peaks.append(peak_mib)
        self.stdout = stdout


def once(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MiB) and standard output of one fresh run of ``cmd``.

    Python may cache compiled modules (``PYTHONDONTWRITEBYTECODE`` is dropped), as after any
    install: else a checkout's modules would be compiled anew in every run, and the installed
    contenders' would not.
    """
    env = {**os.environ, "PYTHONWARNINGS": "ignore", **(env or {})}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        stdout.seek(0)
        stderr.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {stderr.read().decode()[-2000:]}")
        return seconds, usage.ru_maxrss / 1024, stdout.read().decode()  # ru_maxrss: KiB on Linux


def measure(cmd: list[str], repeats: int = 1, env: dict[str, str] | None = None) -> Measured:
    """Median wall time and the largest peak RSS over ``repeats`` fresh runs of ``cmd``."""
    result = Measured()
    for _ in range(repeats):
        result.add(*once(cmd, env))
    return result


@dataclass
class Pair:
    a: Measured
    b: Measured
    wall: float  # median of the per-pair ratios a / b
    rss: float


def paired(a: list[str], b: list[str], repeats: int, env_a: dict[str, str] | None = None) -> Pair:
    """``a`` and ``b`` run in turn ``repeats`` times (after one warm-up each, not counted)."""
    once(a, env_a)
    once(b)
    ma, mb = Measured(), Measured()
    for _ in range(repeats):
        ma.add(*once(a, env_a))
        mb.add(*once(b))
    wall = statistics.median(x / y for x, y in zip(ma.times, mb.times, strict=True))
    rss = statistics.median(x / y for x, y in zip(ma.peaks, mb.peaks, strict=True))
    return Pair(ma, mb, wall, rss)


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


OURS = [sys.executable, "-m", "ir_measures_graded"]
SCRIPT = Path(sys.executable).parent / "ir-measures-graded"  # the console script, as users type it
IR_MEASURES = [sys.executable, "-m", "ir_measures"]
API = ("import sys, ir_measures, ir_measures_graded as g\n"
       "print(ir_measures.calc_aggregate([g.muMAP, g.nDCNG@10], ir_measures.read_trec_qrels(sys.argv[1]), "
       "ir_measures.read_trec_run(sys.argv[2])))")
API_NAME = "ours API ir_measures.read_trec_qrels + read_trec_run muMAP nDCNG@10"
RANX = ("import sys\nfrom ranx import Qrels, Run, evaluate\n"
        "print(evaluate(Qrels.from_file(sys.argv[1], kind='trec'), Run.from_file(sys.argv[2], kind='trec'), "
        "['map', 'ndcg@10']))")
TREC_EVAL_NAME = "trec_eval -m map -m ndcg_cut.10"
CLI_NAME = "ours CLI muMAP nDCNG@10"
MIXED_NAME = "ours CLI AP nDCG@10 muMAP nDCNG@10"
IRM_NAME = "python -m ir_measures AP nDCG@10"
RANX_NAME = "ranx from files map ndcg@10"


def ours(qrels: Path, run: Path, *measures: str) -> list[str]:
    return [*OURS, str(qrels), str(run), *(measures or ("muMAP", "nDCNG@10")), "--quiet"]


def ir_measures_cli(qrels: Path, run: Path) -> list[str]:
    return [*IR_MEASURES, str(qrels), str(run), "AP", "nDCG@10"]


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


# --- the targets ----------------------------------------------------------------------------------

def _verdict(value: float, limit: float) -> str:
    return f"{value:.2f} (target <= {limit:g}) {'ok' if value <= limit else 'MISSED'}"


def _lines(queries: int) -> str:
    lines = queries * DOCS_PER_QUERY
    return f"{lines / 1e6:g}M lines" if lines >= 1_000_000 else f"{lines // 1000}k lines"


def small_targets(args: argparse.Namespace) -> list[str]:
    """Target 1: TREC-sized files through the command line, against ``python -m ir_measures``."""
    out = []
    n = args.repeats
    first, second = args.small
    qrels, run = collection(args.cache, first)
    pair = paired(ours(qrels, run), ir_measures_cli(qrels, run), n)
    out.append(f"target 1  {first} queries ({_lines(first)}): {CLI_NAME} vs {IRM_NAME}: wall "
               f"{_verdict(pair.wall, 0.75)} [{pair.a.seconds:.3f} s vs {pair.b.seconds:.3f} s, peak "
               f"{pair.a.peak_mib:.0f} vs {pair.b.peak_mib:.0f} MiB; median of {n} pairs]")
    mixed = paired([*ours(qrels, run, "AP", "nDCG@10", "muMAP", "nDCNG@10")[:-1], "-p", "12"],
                   [*ir_measures_cli(qrels, run), "-p", "12"], n)
    same = _standard_lines(mixed.a.stdout) == _standard_lines(mixed.b.stdout)
    out.append(f"target 1  {first} queries: {MIXED_NAME} vs {IRM_NAME}: wall {_verdict(mixed.wall, 1.0)} "
               f"[{mixed.a.seconds:.3f} s vs {mixed.b.seconds:.3f} s]; AP and nDCG@10 values "
               f"{'identical' if same else 'DIFFER'} ({', '.join(_standard_lines(mixed.a.stdout))})")
    qrels2, run2 = collection(args.cache, second)
    pair2 = paired(ours(qrels2, run2), ir_measures_cli(qrels2, run2), n)
    out.append(f"target 1  {second} queries ({_lines(second)}): {CLI_NAME} vs {IRM_NAME}: wall "
               f"{_verdict(pair2.wall, 1.0)} [{pair2.a.seconds:.3f} s vs {pair2.b.seconds:.3f} s; median of {n} pairs]")
    for option in ("--help", "--version"):
        m = measure([*([str(SCRIPT)] if SCRIPT.exists() else OURS), option], n)
        out.append(f"target 1  ir-measures-graded {option}: {m.seconds:.3f} s (target <= 0.2 s) "
                   f"{'ok' if m.seconds <= 0.2 else 'MISSED'} [median of {n}]")
    # What bounds them: both print ir_measures' measures and version, so they import ir_measures,
    # which imports numpy when cwl-eval (a test reference, not a dependency) is installed.
    if _has("cwl"):
        floor = measure(python("import ir_measures"), n)
        bare = measure(python("import sys\nsys.modules['cwl'] = None  # as installed without the test extra\n"
                              "sys.argv[1:] = ['--help']\nfrom ir_measures_graded.cli import console\nconsole()"), n)
        out.append(f"info      --help's floor here: python -c 'import ir_measures' {floor.seconds:.3f} s (it imports "
                   f"numpy through cwl-eval, installed by the test extra); --help with cwl-eval hidden, as installed "
                   f"without the test extra: {bare.seconds:.3f} s [median of {n}]")
    differ = []
    for q, r in ((qrels, run), (qrels2, run2)):
        cmd = [*ours(q, r, "muMAP", "nDCNG@10", "AP", "nDCG@10", "P@10", "muP@10", "GAP", "meanNDCG"), "-q", "-p", "-1"]
        if once(cmd)[2] != once(cmd, {SMALL_FILE_ENV: "0"})[2]:
            differ.append(r.name)
    out.append(f"target 1  per-query values of the small-input path vs the large-file path ({SMALL_FILE_ENV}=0), "
               f"{first} and {second} queries, 8 measures, all digits: "
               f"{'identical' if not differ else 'DIFFER in ' + ', '.join(differ)}")
    return out


def scale_targets(args: argparse.Namespace, trec_eval: Path | None,
                  results: dict[tuple[str, int], Measured]) -> list[str]:
    """Target 3 (a large file against trec_eval) and target 2 (the API at growing sizes)."""
    out = []
    scale = args.scale
    qrels, run = collection(args.cache, scale)
    lines = scale * DOCS_PER_QUERY
    where = "" if scale >= FULL_SCALE else f" (quick size; the target is at {FULL_SCALE * DOCS_PER_QUERY / 1e6:g}M lines)"
    if trec_eval is not None:
        te = [str(trec_eval), "-m", "map", "-m", "ndcg_cut.10", str(qrels), str(run)]
        pair = paired(ours(qrels, run), te, args.scale_repeats)
        results[CLI_NAME, lines], results[TREC_EVAL_NAME, lines] = pair.a, pair.b
        out.append(f"target 3  {_lines(scale)}: {CLI_NAME} vs trec_eval: wall {_verdict(pair.wall, 0.4)}; peak RSS "
                   f"{_verdict(pair.rss, 0.8)} [{pair.a.seconds:.2f} s, {pair.a.peak_mib:.0f} MiB vs "
                   f"{pair.b.seconds:.2f} s, {pair.b.peak_mib:.0f} MiB; median of {args.scale_repeats} pairs]{where}")
    else:
        out.append("target 3  not measured: no trec_eval (give --trec-eval PATH)")
        results[CLI_NAME, lines] = measure(ours(qrels, run), args.scale_repeats)
    mixed = measure([*ours(qrels, run, "AP", "nDCG@10", "muMAP", "nDCNG@10")[:-1], "-p", "12"])
    theirs = measure([*ir_measures_cli(qrels, run), "-p", "12"])
    results[MIXED_NAME, lines], results[IRM_NAME, lines] = mixed, theirs
    if args.full and _has("ranx"):  # numba compiles for tens of seconds: full mode only
        results[RANX_NAME, lines] = measure([*python(RANX), str(qrels), str(run)])
    elif args.full:
        out.append("info      ranx is not installed (pip install '.[bench]'): its row is left out")
    same = _standard_lines(mixed.stdout) == _standard_lines(theirs.stdout)
    out.append(f"info      {_lines(scale)}: {MIXED_NAME} vs {IRM_NAME}: wall {mixed.seconds / theirs.seconds:.2f}; "
               f"AP and nDCG@10 values {'identical' if same else 'DIFFER'}")

    for queries in args.api:
        q, r = collection(args.cache, queries)
        # the median of 3 at the sizes divided by (a few seconds each), so that one slow or fast
        # run does not move the growth alone; the largest (half a minute each) once
        repeats = 3 if queries * DOCS_PER_QUERY <= API_REPEATED_UP_TO else 1
        results[API_NAME, queries * DOCS_PER_QUERY] = measure([*python(API), str(q), str(r)], repeats)
        _progress(results, API_NAME, queries * DOCS_PER_QUERY)
    for queries in args.api:
        lower = queries // 10
        big = results[API_NAME, queries * DOCS_PER_QUERY]
        line = f"target 2  {_lines(queries)}: {API_NAME}: peak RSS {big.peak_mib:.0f} MiB, in GiB " \
               f"{_verdict(big.peak_mib / GIB, 1.0)}"
        if (API_NAME, lower * DOCS_PER_QUERY) in results:
            growth = big.seconds / results[API_NAME, lower * DOCS_PER_QUERY].seconds
            line += f"; time for 10x the lines ({_lines(lower)} -> {_lines(queries)}): x{_verdict(growth, 12)}"
        elif queries * DOCS_PER_QUERY < 10_000_000 and args.full:
            continue  # the lower sizes are there for the growth of the larger ones
        out.append(line + ("" if args.full else " (quick sizes; the target is at 20M and 50M lines)"))
    return out


def _progress(results: dict, name: str, lines: int) -> None:
    m = results[name, lines]
    print(f"  {lines:>11,} lines  {name}: {m.seconds:.2f} s, {m.peak_mib:.0f} MiB", file=sys.stderr, flush=True)


def _standard_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.split("\t")[0] in ("AP", "nDCG@10")]


def table(results: dict[tuple[str, int], Measured]) -> str:
    sizes = sorted({lines for _, lines in results})
    names = list(dict.fromkeys(name for name, _ in results))
    head = "| contender | " + " | ".join(f"{s / 1e6:g}M lines: s | MiB" for s in sizes) + " |"
    rule = "|:--|" + "--:|--:|" * len(sizes)
    rows = [head, rule]
    for name in names:
        cells = []
        for s in sizes:
            m = results.get((name, s))
            cells.append(f"{m.seconds:.2f} | {m.peak_mib:.0f}" if m else "– | –")
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


# --- the run --------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true",
                        help=f"the targets at their sizes: {FULL_SCALE * DOCS_PER_QUERY / 1e6:g}M lines against "
                        f"trec_eval, the API at {', '.join(_lines(q) for q in FULL_API)} (default: quick sizes)")
    parser.add_argument("--small", type=int, nargs=2, default=SMALL, metavar="QUERIES",
                        help=f"queries (x 1,000 lines) of the two TREC-sized files (default {SMALL[0]} {SMALL[1]})")
    parser.add_argument("--scale", type=int, metavar="QUERIES",
                        help=f"queries of the file compared with trec_eval (default {QUICK_SCALE}, --full {FULL_SCALE})")
    parser.add_argument("--api", type=int, nargs="+", metavar="QUERIES",
                        help="queries of the API's scaling series (default "
                        f"{' '.join(map(str, QUICK_API))}, --full {' '.join(map(str, FULL_API))})")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "ir_measures_graded-bench",
                        help="folder for the generated files and the trec_eval build (kept between runs)")
    parser.add_argument("--trec-eval", metavar="PATH", help="a trec_eval binary (else built from shared/tools)")
    parser.add_argument("--repeats", type=int, help="pairs per small-file ratio (default 9, --full 21)")
    parser.add_argument("--scale-repeats", type=int, default=3, help="pairs against trec_eval (default 3)")
    parser.add_argument("--write", type=int, metavar="QUERIES", help=argparse.SUPPRESS)  # internal: see collection()
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    if args.write:
        write_collection(args.cache, args.write)
        return 0
    args.scale = args.scale or (FULL_SCALE if args.full else QUICK_SCALE)
    args.api = args.api or list(FULL_API if args.full else QUICK_API)
    args.repeats = args.repeats or (21 if args.full else 9)
    trec_eval = trec_eval_binary(args.trec_eval, args.cache)

    start = time.perf_counter()
    targets = small_targets(args)
    results: dict[tuple[str, int], Measured] = {}
    targets += scale_targets(args, trec_eval, results)
    if args.full:
        big = max(args.api)
        q, r = collection(args.cache, big)
        results[CLI_NAME, big * DOCS_PER_QUERY] = measure(ours(q, r))
        if trec_eval is not None:
            results[TREC_EVAL_NAME, big * DOCS_PER_QUERY] = measure(
                [str(trec_eval), "-m", "map", "-m", "ndcg_cut.10", str(q), str(r)])
    imports = paired(python("import ir_measures_graded"), python("import ir_measures"), args.repeats)
    targets.append(f"info      import ir_measures_graded vs import ir_measures (whole process): {imports.wall:.2f} "
                   f"[{imports.a.seconds:.3f} s vs {imports.b.seconds:.3f} s]")

    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} at the end; Python {sys.version.split()[0]}; {time.perf_counter() - start:.0f} s")
    print(f"run files of {DOCS_PER_QUERY:,} docs per query (ids from a {COLLECTION:,}-doc collection, scores with "
          f"3 decimals), {JUDGED_PER_QUERY} judgments per query (labels 0-4); peak RSS = high-water mark of each "
          "process; seconds are medians")
    print(table(results))
    print()
    for line in targets:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
