"""The benchmark scripts keep working (quick mode; no test asserts a time)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ir_measures
import pytest

from ir_measures_graded import muMAP

pytestmark = pytest.mark.slow  # see pyproject.toml: the everyday subset is -m 'not slow'

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_file_benchmark_quick_mode_prints_every_target(tmp_path):
    out = subprocess.run([sys.executable, str(BENCHMARKS / "bench.py"), "--sizes", "2", "20", "--cache", str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    for name in ("ours CLI muMAP nDCNG@10", "ours API read_trec_run muMAP nDCNG@10",
                 "ours CLI AP nDCG@10 muMAP nDCNG@10", "python -m ir_measures AP nDCG@10"):
        assert f"| {name} |" in out, name
    assert "AP and nDCG@10 values identical" in out
    for target in ("vs python -m ir_measures AP nDCG@10", "(streamed): peak RSS", "time for 10x the lines",
                   "import ir_measures_graded vs import ir_measures", "200-query file"):
        assert target in out, target
    if (BENCHMARKS.parents[1] / "shared" / "tools" / "trec_eval-10.0-src.tar.gz").exists():  # built with make
        assert "| trec_eval -m map -m ndcg_cut.10 |" in out and "vs trec_eval" in out
    run = (tmp_path / "run-20.txt").read_text().splitlines()
    assert len(run) == 20_000 and run[0].split()[1] == "Q0" and len(run[0].split()) == 6


def test_in_process_benchmark_runs_at_tiny_size_and_prints_every_contender():
    out = subprocess.run([sys.executable, str(BENCHMARKS / "in_process.py"), "--queries", "20", "--docs", "30",
                          "--judged", "12", "--real-levels", "20", "--repeats", "1"],
                         capture_output=True, text=True, check=True).stdout
    for name in ("ir_measures AP", "ir_measures AP(rel=1..4)", "ir_measures nDCG@10", "muMAP", "nDCNG@10",
                 "muMAP + nDCNG@10", "muMAP, real-valued levels", "muMAP, 2nd run on evaluator"):
        assert f"| {name} " in out or f"{name} " in out, name
    assert "ratio to AP" in out and "peak MiB" in out


def test_generated_data_is_seeded_and_consistent():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from in_process import make_data
    finally:
        sys.path.pop(0)
    a = make_data(30, 50, 15, 5, 40, seed=3)
    b = make_data(30, 50, 15, 5, 40, seed=3)
    assert a.run.equals(b.run) and a.qrels.equals(b.qrels) and a.real_qrels.equals(b.real_qrels)
    assert a.qrels["query_id"].nunique() == 30
    assert set(a.qrels["relevance"]) <= {0, 1, 2, 3, 4}
    assert a.real_qrels.loc[a.real_qrels["relevance"] > 0, "relevance"].nunique() <= 40
    assert not a.run.duplicated(["query_id", "doc_id"]).any()
    # the run shares its queries with the qrels and retrieves judged documents of every level
    values = ir_measures.calc_aggregate([muMAP, ir_measures.AP(rel=4)], a.qrels, a.run)
    assert 0 < values[muMAP] < 1 and values[ir_measures.AP(rel=4)] > 0
