"""The benchmark script keeps working (at a tiny size; no test asserts a time)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ir_measures

from ir_measures_graded import muMAP

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench.py"


def test_benchmark_runs_at_tiny_size_and_prints_every_contender():
    out = subprocess.run([sys.executable, str(BENCH), "--queries", "20", "--docs", "30", "--judged", "12",
                          "--real-levels", "20", "--repeats", "1"], capture_output=True, text=True, check=True).stdout
    for name in ("ir_measures AP", "ir_measures AP(rel=1..4)", "ir_measures nDCG@10", "muMAP", "nDCNG@10",
                 "muMAP + nDCNG@10", "muMAP, real-valued levels", "muMAP, 2nd run on evaluator"):
        assert f"| {name} " in out or f"{name} " in out, name
    assert "ratio to AP" in out and "peak MiB" in out


def test_generated_data_is_seeded_and_consistent():
    sys.path.insert(0, str(BENCH.parent))
    try:
        from bench import make_data
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
