"""Many runs in one evaluation (issue 36): read and evaluated a few at a time in threads, results
identical to one run after the other, in the order given, memory bounded by a few runs."""

from __future__ import annotations

import os
import sys
import threading
import tracemalloc
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ir_measures_graded.engines import Request, engine
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.small import ENV, distinct
from ir_measures_graded.measures.base import parse_measures

GRADED = ["muMAP", "nDCNG@10", "GAP"]
MIXED = ["AP", "nDCG@10", "muMAP", "nDCNG@10"]


def write_collection(folder: Path, n_runs: int, seed: int, queries: int = 6, docs: int = 40,
                     long_ids: bool = False) -> tuple[Path, list[Path]]:
    """A qrels file and ``n_runs`` run files (ties, shared documents, a query only in the runs)."""
    rng = np.random.default_rng(seed)
    prefix = "https://www.example.org/a/much/longer/path/" if long_ids else "D"
    qrels = folder / "qrels.txt"
    lines = [f"q{q} 0 {prefix}{d} {int(rng.integers(0, 4))}\n" for q in range(queries)
             for d in rng.choice(docs, size=docs // 2, replace=False).tolist()]
    qrels.write_text("".join(lines))
    runs = []
    for r in range(n_runs):
        rows = []
        for q in range(queries + 1):  # q{queries}: not judged
            picked = rng.choice(docs, size=int(rng.integers(1, docs)), replace=False).tolist()
            scores = np.round(rng.normal(size=len(picked)), 1)  # ties
            rows += [f"q{q} Q0 {prefix}{d} {i + 1} {s} run{r}\n" for i, (d, s) in enumerate(zip(picked, scores, strict=True))]
        path = folder / f"run{r}.txt"
        path.write_text("".join(rows))
        runs.append(path)
    return qrels, runs


def evaluate(qrels, runs, measures, workers, **options):
    request = Request(qrels=qrels, runs=runs, measures=parse_measures(measures),
                      by_query=True, progress=False, workers=workers, **options)
    return engine("local").evaluate(request)


def values(results) -> list:
    return [(r.name, r.rows, r.matched, [(m.query_id, str(m.measure), m.value) for m in r.per_query],
             {str(k): v for k, v in r.summary.items()}) for r in results]


@pytest.mark.parametrize("measures", [GRADED, MIXED], ids=["ours", "mixed"])
@pytest.mark.parametrize("reader", ["small", "arrow"])
def test_runs_in_threads_give_the_sequential_results_in_order(tmp_path, monkeypatch, measures, reader):
    if reader == "arrow":
        monkeypatch.setenv(ENV, "0")
    qrels, runs = write_collection(tmp_path, 9, seed=1)
    runs = [*runs, runs[2]]  # a file named twice is two runs
    sequential = values(evaluate(str(qrels), [str(r) for r in runs], measures, workers=1))
    for workers in (2, 3, 8):
        assert values(evaluate(str(qrels), [str(r) for r in runs], measures, workers=workers)) == sequential
    assert [v[0] for v in sequential] == [str(r) for r in runs]


def test_runs_in_memory_in_threads(tmp_path):
    qrels, runs = write_collection(tmp_path, 6, seed=2)
    frames = [pd.DataFrame(list(ir_measures.read_trec_run(str(r)))) for r in runs]
    qrels_frame = pd.DataFrame(list(ir_measures.read_trec_qrels(str(qrels))))
    sequential = values(evaluate(qrels_frame, frames, MIXED, workers=1))
    assert values(evaluate(qrels_frame, frames, MIXED, workers=3)) == sequential
    from_files = values(evaluate(str(qrels), [str(r) for r in runs], MIXED, workers=3))
    assert [v[4:] for v in sequential] == [v[4:] for v in from_files]


def test_a_run_the_small_reader_leaves_is_read_by_the_other(tmp_path, monkeypatch):
    """Qrels read by the small-file reader, one run it cannot take (two spaces between fields): that
    run meets the qrels as the Arrow reader reads them, with the values it has there."""
    qrels, runs = write_collection(tmp_path, 4, seed=3)
    runs[1].write_text(runs[1].read_text().replace(" Q0 ", "  Q0 "))
    small = values(evaluate(str(qrels), [str(r) for r in runs], MIXED, workers=2))
    monkeypatch.setenv(ENV, "0")
    assert values(evaluate(str(qrels), [str(r) for r in runs], MIXED, workers=2)) == small


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16), n_runs=st.integers(1, 7), workers=st.integers(1, 4), long_ids=st.booleans(),
       mixed=st.booleans())
def test_threads_never_change_a_value(tmp_path_factory, seed, n_runs, workers, long_ids, mixed):
    folder = tmp_path_factory.mktemp("many")
    qrels, runs = write_collection(folder, n_runs, seed, long_ids=long_ids)
    measures = MIXED if mixed else GRADED
    paths = [str(r) for r in runs]
    assert values(evaluate(str(qrels), paths, measures, workers=workers)) == values(
        evaluate(str(qrels), paths, measures, workers=1))


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_an_error_in_one_run_names_its_line_and_leaves_no_thread(tmp_path, workers):
    qrels, runs = write_collection(tmp_path, 8, seed=4)
    lines = runs[5].read_text().splitlines(keepends=True)
    lines[3] = lines[3].replace(" Q0 ", " Q0 x y ")  # seven fields
    runs[5].write_text("".join(lines))
    before = threading.active_count()
    with pytest.raises(GradedInputError, match=rf"{runs[5].name}:4\b"):
        evaluate(str(qrels), [str(r) for r in runs], GRADED, workers=workers)
    assert threading.active_count() == before


def test_warnings_name_each_run_in_order(tmp_path):
    qrels, runs = write_collection(tmp_path, 5, seed=5)
    runs[1].write_text("")
    runs[3].write_text("other Q0 D1 1 1.0 x\n")
    told: list[str] = []
    results = evaluate(str(qrels), [str(r) for r in runs], GRADED, workers=3, warn=told.append)
    assert told == [f"run {runs[1]} is empty: every query of the qrels scores 0",
                    f"run {runs[3]} shares no query with the qrels {qrels}; every query scores 0"]
    assert [r.rows for r in results][1:4] == [0, len(runs[2].read_text().splitlines()), 1]


def test_the_standard_measures_convert_the_qrels_once(tmp_path, monkeypatch):
    """pytrec_eval's evaluator (which converts the qrels) is built once for all runs."""
    built = []
    real = ir_measures.DefaultPipeline.evaluator

    def counted(measures, qrels):
        built.append(len(qrels))
        return real(measures, qrels)

    monkeypatch.setattr(ir_measures.DefaultPipeline, "evaluator", counted)
    qrels, runs = write_collection(tmp_path, 6, seed=6)
    evaluate(str(qrels), [str(r) for r in runs], MIXED, workers=2)
    assert len(built) == 1


def test_memory_holds_a_few_runs_not_all(tmp_path):
    """Peak allocations (numpy's are traced) of 30 runs, two at a time, stay within 2.5x one run's
    (1.9x): the runs were all read before any was evaluated (3.2x, growing with the runs)."""
    qrels, runs = write_collection(tmp_path, 30, seed=7, queries=40, docs=1500, long_ids=True)

    def peak(paths: list[Path]) -> int:
        tracemalloc.start()
        try:
            evaluate(str(qrels), [str(p) for p in paths], GRADED, workers=2)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak([runs[0]])  # modules loaded: their allocations are not the runs'
    one = peak([runs[0]])
    assert peak(runs) <= 2.5 * one


@given(st.lists(st.binary(min_size=0, max_size=30).map(lambda b: b"https://x/" + b.replace(b"\0", b"a")),
                min_size=1, max_size=60), st.integers(0, 3))
def test_distinct_ids_sorted_word_by_word(ids, repeat):
    """Long ids sharing prefixes, duplicates, ids a prefix of others: the order of their bytes."""
    ids = np.array(ids * (repeat + 1))
    unique, codes = distinct(ids)
    want_unique, want_codes = np.unique(ids, return_inverse=True)
    assert unique.tolist() == want_unique.tolist() and codes.tolist() == want_codes.ravel().tolist()


@pytest.mark.parametrize("workers", [2, 4])
def test_an_error_in_one_run_of_the_mixed_list_leaves_no_process(tmp_path, workers):
    """The mixed list goes to forked processes (pytrec_eval holds the GIL): the error still names
    the file and line, and no worker process is left running."""
    import multiprocessing

    qrels, runs = write_collection(tmp_path, 8, seed=4)
    lines = runs[5].read_text().splitlines(keepends=True)
    lines[3] = lines[3].replace(" Q0 ", " Q0 x y ")  # seven fields
    runs[5].write_text("".join(lines))
    with pytest.raises(GradedInputError, match=rf"{runs[5].name}:4\b"):
        evaluate(str(qrels), [str(r) for r in runs], MIXED, workers=workers)
    assert multiprocessing.active_children() == []


@pytest.mark.skipif(not sys.platform.startswith("linux") or sys.version_info < (3, 11),
                    reason="processes are forked on Linux from Python 3.11 only")
def test_the_mixed_list_is_scored_in_other_processes_and_ours_in_threads(tmp_path):
    """In a fresh interpreter, as the command line runs (a test session may hold other threads,
    such as tqdm's monitor, and then threads are used: a fork would copy their locks)."""
    import json
    import subprocess

    qrels, runs = write_collection(tmp_path, 4, seed=7)
    script = f"""
import json, os
from ir_measures_graded.engines import Request, engine, local
from ir_measures_graded.measures.base import parse_measures
real, pids = local._Scorer.score, {str(tmp_path / "pids")!r}
def recorded(self, source):
    with open(pids, "a") as out:  # the children's writes reach the parent through the file
        out.write(f"{{os.getpid()}}\\n")
    return real(self, source)
local._Scorer.score = recorded
seen = {{}}
for kind, measures in (("mixed", {MIXED!r}), ("ours", {GRADED!r})):
    request = Request(qrels={str(qrels)!r}, runs={[str(r) for r in runs]!r}, measures=parse_measures(measures),
                      progress=False, workers=2)
    engine("local").evaluate(request)
    seen[kind] = sorted(set(open(pids).read().split()))
    os.remove(pids)
print(json.dumps({{"me": str(os.getpid()), **seen}}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["me"] not in seen["mixed"] and seen["mixed"]
    assert seen["ours"] == [seen["me"]]
    # files read through Arrow: pyarrow's thread pools do not survive a fork, so threads
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          env={**os.environ, ENV: "0"})
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["mixed"] == seen["ours"] == [seen["me"]]
