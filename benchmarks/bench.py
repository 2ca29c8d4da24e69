"""Whole-process benchmark on files: our command line and streaming API against trec_eval,
``python -m ir_measures`` and ranx, on a scaling series of TREC run files.

Every contender is a fresh process reading the same qrels and run files; wall time and peak RSS
(the high-water mark ``ru_maxrss`` of that one child, from ``os.wait4``) are measured, and the
targets of issue #13 are printed as ratios measured in this one run.

trec_eval is built with ``make`` from NIST's source ``<repo>/../shared/tools/trec_eval-10.0-src.tar.gz``
into the cache folder (or given with ``--trec-eval PATH``); without either it is left out.

    python benchmarks/bench.py              # quick: 20k and 200k lines, under a minute
    python benchmarks/bench.py --full       # 0.5M, 5M and 50M lines (about 2 GB of files in the cache)
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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TREC_EVAL_SOURCE = ROOT.parent / "shared" / "tools" / "trec_eval-10.0-src.tar.gz"
DOCS_PER_QUERY = 1000
JUDGED_PER_QUERY = 150
COLLECTION = 10_000_000  # doc ids drawn from a collection of this size
QUICK = (20, 200)  # queries (x 1,000 docs) per size
FULL = (500, 5_000, 50_000)
STREAM_ONLY_ABOVE = 10_000_000  # lines; larger runs go to trec_eval and our streamed paths only
GIB = 1024.0


# --- data -----------------------------------------------------------------------------------------

def write_collection(folder: Path, queries: int, seed: int = 0) -> tuple[Path, Path]:
    """``queries`` x 1,000 run lines (scores with 3 decimals: ties) and 150 judgments per query
    (labels 0-4, skewed to 0; two thirds of them retrieved), written in chunks of queries."""
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

def trec_eval_binary(given: str | None, cache: Path) -> Path | None:
    """The given binary, or one built from NIST's source into the cache (once)."""
    if given:
        return Path(given)
    built = cache / "trec_eval-10.0" / "trec_eval" / "trec_eval"
    if built.exists():
        return built
    if not TREC_EVAL_SOURCE.exists() or not shutil.which("make"):
        print(f"trec_eval left out: no {TREC_EVAL_SOURCE} (or no make); give --trec-eval PATH", file=sys.stderr)
        return None
    target = cache / "trec_eval-10.0"
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        with tarfile.open(TREC_EVAL_SOURCE) as tar:
            tar.extractall(tmp, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        source = next(Path(tmp).glob("*/Makefile")).parent
        subprocess.run(["make", "-C", str(source)], check=True, capture_output=True)
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        shutil.move(str(source), str(target / "trec_eval"))
    return built


# --- measuring one process ------------------------------------------------------------------------

@dataclass
class Measured:
    seconds: float
    peak_mib: float
    stdout: str


def measure(cmd: list[str], repeats: int = 1) -> Measured:
    """Median wall time and the largest peak RSS over ``repeats`` fresh runs of ``cmd``."""
    times, peaks, out = [], [], ""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    for _ in range(repeats):
        with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
            start = time.perf_counter()
            proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr, env=env)
            _, status, usage = os.wait4(proc.pid, 0)
            times.append(time.perf_counter() - start)
            proc.returncode = os.waitstatus_to_exitcode(status)
            stdout.seek(0)
            stderr.seek(0)
            out = stdout.read().decode()
            if proc.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {stderr.read().decode()[-2000:]}")
        peaks.append(usage.ru_maxrss / 1024)  # KiB on Linux
    return Measured(statistics.median(times), max(peaks), out)


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


OURS = [sys.executable, "-m", "ir_measures_graded"]
IR_MEASURES = [sys.executable, "-m", "ir_measures"]
API_STREAM = ("import sys, ir_measures, ir_measures_graded as g\n"
              "qrels = g.read_qrels_table(sys.argv[1])\n"
              "print(ir_measures.calc_aggregate([g.muMAP, g.nDCNG@10], qrels, ir_measures.read_trec_run(sys.argv[2])))")
RANX = ("import sys\nfrom ranx import Qrels, Run, evaluate\n"
        "print(evaluate(Qrels.from_file(sys.argv[1], kind='trec'), Run.from_file(sys.argv[2], kind='trec'), "
        "['map', 'ndcg@10']))")


def contenders(qrels: Path, run: Path, trec_eval: Path | None, lines: int, ranx: bool) -> dict[str, list[str]]:
    q, r = str(qrels), str(run)
    found = {}
    if trec_eval is not None:
        found["trec_eval -m map -m ndcg_cut.10"] = [str(trec_eval), "-m", "map", "-m", "ndcg_cut.10", q, r]
    found["ours CLI muMAP nDCNG@10"] = [*OURS, q, r, "muMAP", "nDCNG@10", "--quiet"]
    found["ours API read_trec_run muMAP nDCNG@10"] = [*python(API_STREAM), q, r]
    if lines <= STREAM_ONLY_ABOVE:
        found["ours CLI AP nDCG@10 muMAP nDCNG@10"] = [*OURS, q, r, "AP", "nDCG@10", "muMAP", "nDCNG@10", "-p", "12",
                                                       "--quiet"]
        found["python -m ir_measures AP nDCG@10"] = [*IR_MEASURES, q, r, "AP", "nDCG@10", "-p", "12"]
        if ranx and _has("ranx"):  # numba compiles for tens of seconds: full mode only
            found["ranx from files map ndcg@10"] = [*python(RANX), q, r]
    return found


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


# --- the run --------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="0.5M, 5M and 50M lines (default: quick, 20k and 200k)")
    parser.add_argument("--sizes", type=int, nargs="+", metavar="QUERIES",
                        help="queries per run file (x 1,000 lines each), instead of the series")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "ir_measures_graded-bench",
                        help="folder for the generated files and the trec_eval build (kept between runs)")
    parser.add_argument("--trec-eval", metavar="PATH", help="a trec_eval binary (else built from ../shared/tools)")
    parser.add_argument("--repeats", type=int, default=1, help="median of this many runs per contender")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    sizes = args.sizes or (FULL if args.full else QUICK)
    trec_eval = trec_eval_binary(args.trec_eval, args.cache)

    results: dict[tuple[str, int], Measured] = {}
    for queries in sizes:
        qrels, run = write_collection(args.cache, queries)
        lines = queries * DOCS_PER_QUERY
        for name, cmd in contenders(qrels, run, trec_eval, lines, ranx=args.full).items():
            results[name, lines] = measure(cmd, args.repeats)
            print(f"  {lines:>11,} lines  {name}: {results[name, lines].seconds:.2f} s, "
                  f"{results[name, lines].peak_mib:.0f} MiB", file=sys.stderr, flush=True)
    small = _small_file_and_imports(args)

    print(f"run files of {DOCS_PER_QUERY:,} docs per query (ids from a {COLLECTION:,}-doc collection, scores with "
          f"3 decimals), {JUDGED_PER_QUERY} judgments per query (labels 0-4); median of {args.repeats}; "
          f"peak RSS = high-water mark of each process")
    print(table(results))
    print()
    for line in target_lines(results, small, trec_eval is not None):
        print(line)
    return 0


def _small_file_and_imports(args: argparse.Namespace) -> dict[str, Measured]:
    qrels, run = write_collection(args.cache, 200)
    repeats = max(3, args.repeats)
    return {
        "import ir_measures": measure(python("import ir_measures"), repeats + 2),
        "import ir_measures_graded": measure(python("import ir_measures_graded"), repeats + 2),
        "200 queries: ours CLI muMAP": measure([*OURS, str(qrels), str(run), "muMAP", "--quiet"], repeats),
        "200 queries: python -m ir_measures AP": measure([*IR_MEASURES, str(qrels), str(run), "AP"], repeats),
    }


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


def _verdict(value: float, limit: float) -> str:
    return f"{value:.2f} (target <= {limit:g}) {'ok' if value <= limit else 'MISSED'}"


def target_lines(results: dict, small: dict[str, Measured], have_trec_eval: bool) -> list[str]:
    sizes = sorted({lines for _, lines in results})
    lines = []
    mid = 5_000_000 if 5_000_000 in sizes else max(s for s in sizes if s <= STREAM_ONLY_ABOVE)
    ours = results[("ours CLI muMAP nDCNG@10", mid)]
    if have_trec_eval:
        base = results[("trec_eval -m map -m ndcg_cut.10", mid)]
        lines.append(f"target CLI muMAP nDCNG@10 vs trec_eval at {mid / 1e6:g}M lines: wall "
                     f"{_verdict(ours.seconds / base.seconds, 0.5)}; peak RSS {_verdict(ours.peak_mib / base.peak_mib, 1.0)}")
    mixed = results[("ours CLI AP nDCG@10 muMAP nDCNG@10", mid)]
    theirs = results[("python -m ir_measures AP nDCG@10", mid)]
    same = _standard_lines(mixed.stdout) == _standard_lines(theirs.stdout)
    lines.append(f"target CLI AP nDCG@10 muMAP nDCNG@10 vs python -m ir_measures AP nDCG@10 at {mid / 1e6:g}M lines: "
                 f"wall {_verdict(mixed.seconds / theirs.seconds, 1.0)}; AP and nDCG@10 values "
                 f"{'identical' if same else 'DIFFER'} ({', '.join(_standard_lines(mixed.stdout))})")
    big = max(sizes)
    lower = big // 10 if big // 10 in sizes else None
    for name in ("ours CLI muMAP nDCNG@10", "ours API read_trec_run muMAP nDCNG@10"):
        m = results[(name, big)]
        line = f"target {name} at {big / 1e6:g}M lines (streamed): peak RSS {m.peak_mib:.0f} MiB, in GiB " \
               f"{_verdict(m.peak_mib / GIB, 1.0)}"
        if lower is not None:
            growth = results[(name, big)].seconds / results[(name, lower)].seconds
            line += f"; time for 10x the lines: x{_verdict(growth, 12)}"
        lines.append(line)
    imports = small["import ir_measures_graded"].seconds / small["import ir_measures"].seconds
    lines.append(f"target import ir_measures_graded vs import ir_measures (whole process): {_verdict(imports, 3.0)}")
    two = small["200 queries: ours CLI muMAP"].seconds / small["200 queries: python -m ir_measures AP"].seconds
    lines.append(f"target 200-query file, ours CLI muMAP vs python -m ir_measures AP: {_verdict(two, 1.0)}")
    if STREAM_ONLY_ABOVE < big:
        lines.append(f"note: above {STREAM_ONLY_ABOVE / 1e6:g}M lines only trec_eval and our streamed paths run "
                     "(python -m ir_measures and ranx hold the whole run as Python objects)")
    return lines


def _standard_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.split("\t")[0] in ("AP", "nDCG@10")]


if __name__ == "__main__":
    sys.exit(main())
