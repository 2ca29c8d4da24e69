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


# --- shapes of data (issue 36, item 2) --------------------------------------------------------------

#: name: (doc ids, query ids, score decimals, run lines sorted by rank, what it stands for)
SHAPES = {
    "numeric": ("numeric", "numeric", 3, True, "short numeric ids (query 1.., doc up to 8 digits), 3 decimals (many ties), sorted by rank"),
    "trec": ("trec", "trec", 4, True, "TREC ids (topics 301.., docs clueweb09-en0000-00-00000), 4 decimals, sorted by rank"),
    "msmarco": ("msmarco", "msmarco", 5, False, "msmarco ids (queries 6-7 digits, docs msmarco_doc_00_1234567), 5 decimals, lines shuffled within a query"),
    "url": ("url", "msmarco", 6, False, "URL doc ids (60-120 bytes), 6 decimals with explicit ties, lines shuffled within a query"),
    "graded": ("nine", "trec", 4, True, "9-character doc ids (FT9123456), topics 301.., 4 decimals, sorted by rank; "
               "labels 0-4 on 15% of the retrieved documents plus 50 judged documents no run retrieves"),
}
#: shape: (judged documents of a query's pool, relevance labels): the others judge 100 of the pool, labels 0-3
JUDGING = {"graded": (175, 5)}  # about 150 (15%) of the 1,000 documents a run retrieves of the pool are judged
DEFAULT_SHAPES = tuple(SHAPES)
POOL_PER_QUERY = 1_500  # documents a query's runs draw their 1,000 from: runs overlap, as a track's do


def shape_files(folder: Path, shape: str, queries: int, runs: int = 1) -> tuple[Path, list[Path]]:
    """The qrels and ``runs`` run files of ``queries`` queries in ``shape``, written by a child process
    when missing (see :func:`collection`)."""
    qrels = folder / f"{shape}-{queries}q-qrels.txt"
    paths = [folder / f"{shape}-{queries}q-run{i + 1}.txt" for i in range(runs)]
    if not (qrels.exists() and all(p.exists() for p in paths)):
        subprocess.run([sys.executable, __file__, "--write-shape", shape, str(queries), str(runs),
                        "--cache", str(folder)], check=True)
    return qrels, paths


def _ids(kind: str, numbers, pa, pc):
    """Ids of one kind from non-negative integers, built by pyarrow compute (no Python string per row)."""
    import numpy as np

    numbers = np.asarray(numbers, dtype=np.int64)
    text = lambda a: pa.array(a).cast(pa.string())  # noqa: E731
    if kind == "numeric":
        return text(numbers)
    if kind == "trec":  # clueweb09-en0000-00-00000
        parts = [pc.utf8_lpad(text(x), width=w, padding="0") for x, w in
                 ((numbers // 10_000_000 % 10_000, 4), (numbers // 100_000 % 100, 2), (numbers % 100_000, 5))]
        return pc.binary_join_element_wise("clueweb09-en", parts[0], "-", parts[1], "-", parts[2], "")
    if kind == "nine":  # FT9123456: two letters and seven digits
        return pc.binary_join_element_wise(pc.choose(pa.array((numbers % 3).astype(np.int8)), "FT", "LA", "AP"),
                                           pc.utf8_lpad(text(numbers % 10_000_000), width=7, padding="0"), "")
    if kind == "msmarco":  # msmarco_doc_00_1234567
        return pc.binary_join_element_wise("msmarco_doc_", pc.utf8_lpad(text(numbers % 60), width=2, padding="0"),
                                           "_", text(numbers // 60), "")
    if kind == "url":  # https://www.site17.example.org/news/2019/1234567/ then a slug to 60-120 bytes
        base = pc.binary_join_element_wise("https://www.site", text(numbers % 997), ".example.org/news/",
                                           text(2000 + numbers % 25), "/", text(numbers), "/", "")
        widths = np.arange(60, 121, 6)
        which = pa.array((numbers * 7919 % len(widths)).astype(np.int8))
        return pc.choose(which, *[pc.utf8_rpad(base, width=int(w), padding="x") for w in widths])
    raise ValueError(kind)


def write_shape(folder: Path, shape: str, queries: int, runs: int, seed: int = 7) -> None:
    """``runs`` run files of ``queries`` x 1,000 lines and one qrels (150 judgments per query,
    labels 0-3 skewed to 0; see :data:`JUDGING` for other judging), in ``shape``; every run of a
    query draws its documents from one pool of 1,500 (runs overlap) and judges 100 of the pool and
    50 documents outside it."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    doc_kind, query_kind, decimals, ordered, _ = SHAPES[shape]
    rng = np.random.default_rng(seed)
    options = pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    query_numbers = {"numeric": 1 + np.arange(queries), "trec": 301 + np.arange(queries),
                     "msmarco": 100_000 + np.sort(rng.choice(9_000_000, size=queries, replace=False))}[query_kind]
    qid_all = _ids("numeric", query_numbers, pa, pc)  # query ids are numbers in every shape: their width varies
    # a query's documents: increasing numbers from a random start (distinct: no duplicate in a run),
    # its pool first, then 50 judged documents no run retrieves
    top = 10**9 if doc_kind != "numeric" else 10**7
    in_pool, n_labels = JUDGING.get(shape, (100, 4))
    outside_pool = JUDGED_PER_QUERY - 100  # judged documents no run retrieves
    steps = rng.integers(1, 40, size=(queries, POOL_PER_QUERY + outside_pool))
    numbers = rng.integers(0, top, size=queries)[:, None] + np.cumsum(steps, axis=1)
    pools, outside = numbers[:, :POOL_PER_QUERY], numbers[:, POOL_PER_QUERY:]
    qrels_path = folder / f"{shape}-{queries}q-qrels.txt"
    judged_pool = pools[:, :in_pool]
    jd = np.concatenate([judged_pool, outside], axis=1).ravel()
    jq = np.repeat(np.arange(queries), in_pool + outside_pool)
    weights = 0.5 ** np.arange(n_labels)
    labels = rng.choice(n_labels, size=len(jq), p=weights / weights.sum())
    tmp = qrels_path.with_suffix(".tmp")
    constant = np.zeros(len(jq), dtype=np.int64)
    pcsv.write_csv(pa.table({"q": qid_all.take(pa.array(jq)), "it": pa.array(["0"]).take(constant),
                             "d": _ids(doc_kind, jd, pa, pc), "rel": pa.array(labels)}), tmp, options)
    tmp.rename(qrels_path)
    for r in range(runs):
        path = folder / f"{shape}-{queries}q-run{r + 1}.txt"
        tmp = path.with_suffix(".tmp")
        with pcsv.CSVWriter(tmp, _run_schema(), write_options=options) as out:
            for first in range(0, queries, 1_000):
                n = min(1_000, queries - first)
                # each query's 1,000 documents: a random 1,000 of its pool, best first
                key = rng.random((n, POOL_PER_QUERY))
                key[:, :100] -= 0.4  # the first judged documents rank higher, as a system's would
                pick = np.argsort(key, axis=1)[:, :DOCS_PER_QUERY]
                docs = np.take_along_axis(pools[first:first + n], pick, axis=1).ravel()
                scores = np.sort(np.round(rng.normal(size=(n, DOCS_PER_QUERY)) * 3, decimals), axis=1)[:, ::-1]
                if decimals >= 5:  # ties all the same: every 20th document shares the score above it
                    scores[:, 20::20] = scores[:, 19::20][:, :scores[:, 20::20].shape[1]]
                q = np.repeat(np.arange(first, first + n), DOCS_PER_QUERY)
                rank = np.tile(np.arange(1, DOCS_PER_QUERY + 1), n)
                order = np.arange(len(q))
                if not ordered:  # each query's lines in random order (its block stays whole)
                    order = np.argsort(q * 2.0 + rng.random(len(q)), kind="stable")
                constant = np.zeros(len(q), dtype=np.int64)
                out.write_table(pa.table({
                    "q": qid_all.take(pa.array(q[order])), "it": pa.array(["Q0"]).take(constant),
                    "d": _ids(doc_kind, docs[order], pa, pc), "rank": pa.array(rank[order]),
                    "s": pa.array(scores.ravel()[order]), "name": pa.array([f"run{r + 1}"]).take(constant)},
                    schema=_run_schema()))
        tmp.rename(path)


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


def process(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system), peak RSS (MiB) and standard output of one fresh
    run of ``cmd``.

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
        # ru_maxrss: KiB on Linux
        return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout.read().decode()


def once(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MiB) and standard output of one fresh run of ``cmd`` (:func:`process`)."""
    seconds, _, peak_mib, stdout = process(cmd, env)
    return seconds, peak_mib, stdout


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


# --- every shape: the targets of issue 36 -------------------------------------------------------------

MANY_RUNS, MANY_QUERIES = 30, 50
#: ranx reads a TREC file in Python (seconds per 50,000-line run) and numba compiles on its first
#: evaluate: it is timed on this many of the runs, its 30-run time estimated from them.
RANX_RUNS = 3
RANX_MANY = """import json, sys, time
start = time.perf_counter()
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind='trec')
calls = []
for path in sys.argv[2:]:
    t = time.perf_counter()
    evaluate(qrels, Run.from_file(path, kind='trec'), ['map', 'ndcg@10'])
    calls.append(time.perf_counter() - t)
later = sorted(calls[1:]) or calls
print(json.dumps({"first": calls[0], "later": later[len(later) // 2], "all": time.perf_counter() - start}))
"""


@dataclass
class Cell:
    """One target on one shape: the ratio ours / theirs and what it was measured from."""
    ratio: float
    detail: str


@dataclass
class Target:
    name: str
    limit: float
    cells: dict[str, Cell] = field(default_factory=dict)

    def row(self, shapes: list[str]) -> str:
        measured = {s: c for s, c in self.cells.items() if s in shapes}
        cells = [f"{measured[s].ratio:.2f}× ({measured[s].detail})" if s in measured else "–" for s in shapes]
        info = self.limit == float("inf")
        if measured:
            worst = max(measured, key=lambda s: measured[s].ratio)
            ok = measured[worst].ratio <= self.limit
            verdict = f"{worst}: {measured[worst].ratio:.2f}×" + ("" if info else f" — {'met' if ok else 'MISSED'}")
        else:
            verdict = "not measured"
        limit = "info" if info else f"≤ {self.limit:g}×"
        return f"| {self.name} | {limit} | " + " | ".join(cells) + f" | {verdict} |"


def loop(program: list[str], qrels: Path, runs: list[Path], *measures: str) -> list[str]:
    """One shell running ``program QRELS RUN MEASURES...`` for each run in turn (as a user's loop)."""
    script = 'set -e; p="$1"; q="$2"; shift 2; for r in "$@"; do $p "$q" "$r" ' + " ".join(measures) + "; done"
    return ["sh", "-c", script, "loop", " ".join(program), str(qrels), *map(str, runs)]


def many_runs(args: argparse.Namespace, trec_eval: Path | None, shape: str, targets: dict[str, Target],
              notes: list[str]) -> None:
    """Issue 36, item 1: 30 runs x 50 queries x 1,000 docs in one command against per-run loops."""
    n = args.many_repeats
    qrels, runs = shape_files(args.cache, shape, args.many_queries, args.many_count)
    ours_cmd = [*OURS, str(qrels), *map(str, runs), "muMAP", "nDCNG@10", "--quiet"]
    mixed_cmd = [*OURS, str(qrels), *map(str, runs), "AP", "nDCG@10", "muMAP", "nDCNG@10", "--quiet"]
    if trec_eval is not None:
        pair = paired(ours_cmd, loop([str(trec_eval), "-m", "map", "-m", "ndcg_cut.10"], qrels, runs), n)
        targets["te"].cells[shape] = Cell(pair.wall, f"{pair.a.seconds:.2f} s vs {pair.b.seconds:.2f} s")
    mixed = paired(mixed_cmd, loop(IR_MEASURES, qrels, runs, "AP", "nDCG@10"), n)
    targets["irm"].cells[shape] = Cell(mixed.wall, f"{mixed.a.seconds:.2f} s vs {mixed.b.seconds:.2f} s")
    one = measure([*OURS, str(qrels), str(runs[0]), "muMAP", "nDCNG@10", "--quiet"], n)
    many = pair.a if trec_eval is not None else measure(ours_cmd, n)
    targets["rss"].cells[shape] = Cell(many.peak_mib / one.peak_mib,
                                       f"{many.peak_mib:.0f} vs {one.peak_mib:.0f} MiB")
    ours_values = _values_by_run(mixed.a.stdout)
    theirs = [_standard_lines(once([*IR_MEASURES, str(qrels), str(r), "AP", "nDCG@10"])[2]) for r in runs[:3]]
    same = all(ours_values.get(r.name) == t or ours_values.get(str(r)) == t for r, t in zip(runs[:3], theirs, strict=True))
    notes.append(f"{shape}: {len(runs)} runs, AP and nDCG@10 of the first 3 runs {'identical to' if same else 'DIFFER from'} "
                 "python -m ir_measures's")
    if _has("ranx") and not args.no_ranx:
        import json

        seconds, peak, out = once([*python(RANX_MANY), str(qrels), *map(str, runs[:RANX_RUNS])])
        r = json.loads(out.splitlines()[-1])
        # the process's time beyond its first call, per later call, stands for the runs not timed
        estimate = seconds + (len(runs) - RANX_RUNS) * r["later"]
        targets["ranx"].cells[shape] = Cell(many.seconds / estimate,
                                            f"{many.seconds:.2f} s vs ~{estimate:.1f} s estimated")
        notes.append(f"{shape}: ranx (Qrels/Run.from_file + evaluate map ndcg@10), one process over {RANX_RUNS} of "
                     f"the runs: {seconds:.2f} s whole, {peak:.0f} MiB; first call {r['first']:.2f} s (numba's "
                     f"compile or cache load, and reading the run), later calls {r['later']:.2f} s each (median); "
                     f"{len(runs)} runs estimated at {estimate:.1f} s")
    print(f"  many runs, {shape}: done", file=sys.stderr, flush=True)


def _values_by_run(stdout: str) -> dict[str, list[str]]:
    """ours' table for several runs (``run  AP  nDCG@10 ...``) as ir_measures' lines per run."""
    lines = [line.split("\t") for line in stdout.splitlines() if line.strip()]
    if not lines:
        return {}
    head = lines[0]
    out = {}
    for row in lines[1:]:
        out[Path(row[0]).name] = [f"{m}\t{row[head.index(m)]}" for m in ("AP", "nDCG@10") if m in head]
    return out


def shape_targets(args: argparse.Namespace, trec_eval: Path | None, shape: str, targets: dict[str, Target]) -> None:
    """Issue 36's single-file targets on one shape: a 50-query file against ``python -m ir_measures``
    (measures of ours, then the mixed list), and a large file against trec_eval."""
    n = args.repeats
    qrels, (run,) = shape_files(args.cache, shape, args.many_queries)
    pair = paired(ours(qrels, run), ir_measures_cli(qrels, run), n)
    targets["one"].cells[shape] = Cell(pair.wall, f"{pair.a.seconds:.3f} s vs {pair.b.seconds:.3f} s")
    mixed = paired([*ours(qrels, run, "AP", "nDCG@10", "muMAP", "nDCNG@10")], ir_measures_cli(qrels, run), n)
    targets["mixed"].cells[shape] = Cell(mixed.wall, f"{mixed.a.seconds:.3f} s vs {mixed.b.seconds:.3f} s")
    if trec_eval is not None:
        qrels, (run,) = shape_files(args.cache, shape, args.scale)
        te = [str(trec_eval), "-m", "map", "-m", "ndcg_cut.10", str(qrels), str(run)]
        big = paired(ours(qrels, run), te, args.scale_repeats)
        targets["big"].cells[shape] = Cell(big.wall, f"{big.a.seconds:.2f} s vs {big.b.seconds:.2f} s")
        targets["big_rss"].cells[shape] = Cell(big.rss, f"{big.a.peak_mib:.0f} vs {big.b.peak_mib:.0f} MiB")
    print(f"  single files, {shape}: done", file=sys.stderr, flush=True)


def issue36_targets(args: argparse.Namespace) -> dict[str, Target]:
    MANY_RUNS, MANY_QUERIES, scale = args.many_count, args.many_queries, args.scale  # noqa: N806
    return {
        "te": Target(f"{MANY_RUNS} runs × {MANY_QUERIES} queries, one command muMAP nDCNG@10 vs "
                     "`for r: trec_eval -m map -m ndcg_cut.10`", 0.5),
        "irm": Target(f"{MANY_RUNS} runs, one command AP nDCG@10 muMAP nDCNG@10 vs "
                      "`for r: python -m ir_measures qrels r AP nDCG@10`", 0.25),
        "rss": Target(f"{MANY_RUNS} runs: peak memory of the one command vs one run's", 2.0),
        "ranx": Target(f"{MANY_RUNS} runs, one command muMAP nDCNG@10 vs ranx in one process (info)", float("inf")),
        "one": Target(f"one {MANY_QUERIES}-query file, muMAP nDCNG@10 vs `python -m ir_measures` AP nDCG@10", 0.7),
        "mixed": Target(f"one {MANY_QUERIES}-query file, AP nDCG@10 muMAP nDCNG@10 vs `python -m ir_measures`", 1.0),
        "big": Target(f"{_lines(scale)}, muMAP nDCNG@10 vs trec_eval: wall", 0.3),
        "big_rss": Target(f"{_lines(scale)}: peak memory vs trec_eval's", 0.8),
    }


def targets_table(targets: dict[str, Target], shapes: list[str]) -> str:
    rows = [f"| target | limit | {' | '.join(shapes)} | bounded by (worst shape) |",
            "|:--|--:|" + "--:|" * len(shapes) + ":--|"]
    rows += [t.row(shapes) for t in targets.values() if any(s in t.cells for s in shapes)]
    return "\n".join(rows)


def machine() -> str:
    """Date, cores, CPU, load, Python and the contenders' versions: the head of a RESULTS.md section."""
    import importlib.metadata as md
    import platform

    def version(name: str) -> str:
        try:
            return md.version(name)
        except md.PackageNotFoundError:
            return "not installed"

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.machine()) if Path("/proc/cpuinfo").exists() else platform.machine()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
    packages = ", ".join(f"{p} {version(p)}" for p in ("ir-measures", "numpy", "pyarrow", "ranx", "numba", "pyspark"))
    return (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; `nproc` {os.cpu_count()} ({cpu}); "
            f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} at the end; Python "
            f"{sys.version.split()[0]}; ir-measures-graded at {commit}; {packages}; trec_eval 10.0")


def append_results(path: Path, title: str, body: str) -> None:
    """A dated section appended to ``benchmarks/RESULTS.md`` (the benchmark's history lives there)."""
    head = "" if path.exists() else ("# Benchmark results\n\nEach run of `benchmarks/bench.py` appends a dated "
                                     "section here: history, newest last. Ratios are paired medians "
                                     "(ours / theirs, whole processes).\n")
    with path.open("a") as out:
        out.write(f"{head}\n## {title}\n\n{body.rstrip()}\n")


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
    parser.add_argument("--many-runs", action="store_true",
                        help=f"only issue 36's many-runs workload ({MANY_RUNS} runs x {MANY_QUERIES} queries x "
                        f"{DOCS_PER_QUERY:,} docs, one command against per-run loops of trec_eval and python -m "
                        "ir_measures, and ranx) on every shape: about 3 minutes")
    parser.add_argument("--single-files", action="store_true",
                        help="only issue 36's single-file targets (a 50-query file against python -m ir_measures, "
                        "the large file against trec_eval) on every shape; with --many-runs, both")
    parser.add_argument("--shapes", nargs="+", choices=list(SHAPES), default=list(DEFAULT_SHAPES),
                        help="shapes of data for issue 36's targets (default: all): " + "; ".join(
                            f"{k}: {v[4]}" for k, v in SHAPES.items()).replace("%", "%%"))
    parser.add_argument("--many-repeats", type=int, default=3, help="pairs per many-runs ratio (default 3)")
    parser.add_argument("--many-count", type=int, default=MANY_RUNS, help=argparse.SUPPRESS)  # tests: fewer runs
    parser.add_argument("--many-queries", type=int, default=MANY_QUERIES, help=argparse.SUPPRESS)
    parser.add_argument("--no-ranx", action="store_true", help="leave ranx out of the many-runs workload")
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "RESULTS.md",
                        help="the file the dated section of results is appended to (default benchmarks/RESULTS.md)")
    parser.add_argument("--write", type=int, metavar="QUERIES", help=argparse.SUPPRESS)  # internal: see collection()
    parser.add_argument("--write-shape", nargs=3, help=argparse.SUPPRESS)  # internal: see shape_files()
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    if args.write:
        write_collection(args.cache, args.write)
        return 0
    if args.write_shape:
        shape, queries, runs = args.write_shape
        write_shape(args.cache, shape, int(queries), int(runs))
        return 0
    args.scale = args.scale or (FULL_SCALE if args.full else QUICK_SCALE)
    args.api = args.api or list(FULL_API if args.full else QUICK_API)
    args.repeats = args.repeats or (21 if args.full else 9)
    trec_eval = trec_eval_binary(args.trec_eval, args.cache)

    start = time.perf_counter()
    if args.many_runs or args.single_files:
        by_shape, notes = issue36_targets(args), []
        for shape in args.shapes:
            if args.single_files:
                shape_targets(args, trec_eval, shape, by_shape)
            if args.many_runs:
                many_runs(args, trec_eval, shape, by_shape, notes)
        report = _shapes_report(args, by_shape, notes, time.perf_counter() - start)
        print(report)
        which = " ".join(option for option, asked in (("--single-files", args.single_files),
                                                      ("--many-runs", args.many_runs)) if asked)
        append_results(args.results, f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: `bench.py {which}`",
                       report)
        return 0
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
    general = [table(results), "", *targets]

    # issue 36: every target on every shape of data
    shaped = time.perf_counter()
    by_shape, notes = issue36_targets(args), []
    for shape in args.shapes:
        shape_targets(args, trec_eval, shape, by_shape)
        many_runs(args, trec_eval, shape, by_shape, notes)
    report = _shapes_report(args, by_shape, notes, time.perf_counter() - shaped)
    print()
    print(report)
    mode = "--full" if args.full else "quick"
    append_results(args.results, f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: `bench.py` ({mode})",
                   report + "\n\nThe benchmark's own generator (labels 0-4, ids `q12` / `D1234`, 3 decimals, "
                   "sorted), issue 22's targets:\n\n" + "\n".join(general))
    return 0


def _shapes_report(args: argparse.Namespace, by_shape: dict[str, Target], notes: list[str], seconds: float) -> str:
    shapes = list(args.shapes)
    legend = "\n".join(f"- `{s}`: {SHAPES[s][4]}" for s in shapes)
    many, single = args.many_runs or not args.single_files, args.single_files or not args.many_runs
    pairs = ", ".join(([f"{args.many_repeats} pairs for many runs"] if many else [])
                      + ([f"{args.repeats} pairs for one file, {args.scale_repeats} for the large file"] if single else []))
    return (f"{machine()}; {seconds:.0f} s. The machine may be shared (other processes' load moves both sides "
            f"of a pair alike, not the medians' noise).\n\nShapes ({args.many_queries}-query files and {args.many_count} runs "
            f"of {DOCS_PER_QUERY:,} docs per query; unless a shape says otherwise, {JUDGED_PER_QUERY} judgments per query, labels 0-3):\n{legend}\n\n"
            f"Each cell: paired median ratio ours / theirs (medians of ours and theirs in brackets; {pairs}). "
            f"The last column names the shape that bounds the target.\n\n"
            + targets_table(by_shape, shapes) + "\n\n" + "\n".join(f"- {n}" for n in notes))


if __name__ == "__main__":
    sys.exit(main())
