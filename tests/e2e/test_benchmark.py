"""The benchmark scripts keep working (quick mode; no test asserts a time)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import ir_measures
import pytest

from ir_measures_graded import muMAP

pytestmark = pytest.mark.slow  # see pyproject.toml: the everyday subset is -m 'not slow'

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_file_benchmark_prints_every_target_of_issue_22(tmp_path):
    out = subprocess.run([sys.executable, str(BENCHMARKS / "bench.py"), "--small", "2", "5", "--scale", "5",
                          "--api", "2", "20", "--repeats", "1", "--scale-repeats", "1", "--cache", str(tmp_path),
                          "--shapes", "numeric", "--many-count", "2", "--many-queries", "2", "--many-repeats", "1",
                          "--no-ranx", "--results", str(tmp_path / "RESULTS.md")],
                         capture_output=True, text=True, check=True).stdout
    targets = [line for line in out.splitlines() if line.startswith("target")]
    for name in ("ours CLI muMAP nDCNG@10", "ours API ir_measures.read_trec_qrels + read_trec_run muMAP nDCNG@10",
                 "ours CLI AP nDCG@10 muMAP nDCNG@10", "python -m ir_measures AP nDCG@10"):
        assert f"| {name} |" in out, name
    for target in ("2 queries (2k lines): ours CLI muMAP nDCNG@10 vs python -m ir_measures AP nDCG@10: wall",
                   "2 queries: ours CLI AP nDCG@10 muMAP nDCNG@10 vs python -m ir_measures AP nDCG@10: wall",
                   "5 queries (5k lines): ours CLI muMAP nDCNG@10 vs python -m ir_measures AP nDCG@10: wall",
                   "ir-measures-graded --help:", "ir-measures-graded --version:",
                   "small-input path vs the large-file path", "20k lines: ours API", "time for 10x the lines"):
        assert any(target in line for line in targets), target
    assert all("(target <= " in line or "identical" in line or "not measured" in line for line in targets)
    assert "AP and nDCG@10 values identical" in out and "DIFFER" not in out
    if (BENCHMARKS.parents[1] / "shared" / "tools" / "trec_eval-10.0-src.tar.gz").exists():  # built with make
        assert "| trec_eval -m map -m ndcg_cut.10 |" in out and "vs trec_eval: wall" in out
    run = (tmp_path / "run-20.txt").read_text().splitlines()
    assert len(run) == 20_000 and run[0].split()[1] == "Q0" and len(run[0].split()) == 6


def test_many_runs_section_reports_every_target_on_every_shape_and_appends_a_dated_section(tmp_path):
    """``--many-runs`` alone (issue 36): the one command over several runs against per-run loops, on
    every shape asked, each target's worst shape named; the section appended to the results file."""
    results = tmp_path / "RESULTS.md"
    command = [sys.executable, str(BENCHMARKS / "bench.py"), "--many-runs", "--shapes", "trec", "url",
               "--many-count", "3", "--many-queries", "2", "--many-repeats", "1", "--no-ranx",
               "--cache", str(tmp_path), "--results", str(results)]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    assert "| target | limit | trec | url | bounded by (worst shape) |" in out
    rows = [line for line in out.splitlines() if line.startswith("| 3 runs")]
    assert len(rows) == (3 if "vs `for r: trec_eval" in out else 2)
    assert all(row.rstrip(" |").rsplit("| ", 1)[1].startswith(("trec:", "url:")) for row in rows)
    assert "AP and nDCG@10 of the first 3 runs identical" in out and "DIFFER" not in out
    subprocess.run(command, capture_output=True, text=True, check=True)
    text = results.read_text()
    assert text.startswith("# Benchmark results") and text.count("\n## ") == 2 and "`nproc`" in text
    # the shapes: TREC ids, URLs of 60-120 bytes, scores of 6 decimals, lines not in rank order
    run = (tmp_path / "url-2q-run1.txt").read_text().splitlines()
    docs = [line.split()[2] for line in run]
    assert len(run) == 2_000 and all(60 <= len(d) <= 120 for d in docs) and len(set(docs)) == len(docs)
    assert [int(line.split()[3]) for line in run[:1000]] != list(range(1, 1001))
    trec = (tmp_path / "trec-2q-run1.txt").read_text().splitlines()
    assert re.fullmatch(r"clueweb09-en\d{4}-\d{2}-\d{5}", trec[0].split()[2])
    labels = {line.split()[3] for line in (tmp_path / "trec-2q-qrels.txt").read_text().splitlines()}
    assert labels <= {"0", "1", "2", "3"} and len(labels) > 1


def test_phase_profile_counts_every_line_and_every_phase(tmp_path):
    out = subprocess.run([sys.executable, str(BENCHMARKS / "phases.py"), "--queries", "6", "--cache", str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("6,000 run lines, 900 judgments")
    rows = [line.split(" | ") for line in out.splitlines() if line.startswith("| ") and "seconds" not in line]
    phases = [row[0].lstrip("| ") for row in rows]
    assert phases == ["imports", "qrels: read", "qrels: judgments prepared", "run: blocks parsed",
                      "run: batches cut, query ids encoded, doc ids hashed, duplicates checked",
                      "per batch: ranking sort", "per batch: labels joined", "per batch: measures"]
    assert all(float(row[1]) >= 0 for row in rows)


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


def test_spark_scaling_report_and_estimate(capsys):
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import spark_bench
    finally:
        sys.path.pop(0)
    args = type("Args", (), {"scaling": 1_000, "docs": 100})()
    times = {master: {f"{name} x{f}": base + per_row * 1_000 * f * 100 for f in spark_bench.FACTORS
                      for name in ("ours", "mllib_evaluator")}
             for master, base, per_row in (("local[1]", 10.0, 2e-6), ("local[2]", 10.0, 1e-6))}
    spark_bench.scaling_report(times, args)
    out = capsys.readouterr().out
    assert "| ours: muMAP + nDCNG@10 on Spark | local[1] | 10.20 | 10.40 | 10.80 |" in out
    assert "2.00 us per row on local[1], 1.00 us on local[2]" in out and "2 cores give x2.00" in out
    # 10^9 rows x 2 us / (40 cores x efficiency 1.0) = 50 s
    assert "10^9 run rows on 10 executors x 4 cores: 0.8 min" in out
    flat = {master: {key: 5.0 for key in values} for master, values in times.items()}
    spark_bench.scaling_report(flat, args)
    assert "no estimate" in capsys.readouterr().out


def test_organiser_benchmark_prints_its_targets_and_appends_a_dated_section(tmp_path):
    """benchmarks/organiser_bench.py (issue 43) at a tiny size: every phase's line, and the section appended."""
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n")
    out = subprocess.run([sys.executable, str(BENCHMARKS / "organiser_bench.py"), "--runs", "4", "--queries", "3",
                          "--permutations", "50", "--repeats", "1", "--results", str(results), "--note", "Shared."],
                         capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert len(lines) == 3 and "(target ≤ 10 s)" in lines[0] and "(target ≤ 20 s)" in lines[1]
    assert "## The organiser's view (issue #43)" in results.read_text() and "included). Shared.\n" in results.read_text()


def test_generators_benchmark_prints_both_targets_and_appends_a_dated_section(tmp_path):
    """``generators.py`` (issue 46): ir_measures' readers through our provider against the bare loop over them."""
    results = tmp_path / "RESULTS.md"
    out = subprocess.run([sys.executable, str(BENCHMARKS / "generators.py"), "--queries", "3", "--repeats", "1",
                          "--cache", str(tmp_path), "--results", str(results)],
                         capture_output=True, text=True, check=True).stdout
    assert "target    wall ours / floor: " in out and "(target <= 1.5)" in out
    assert "target    peak RSS: " in out and "(target <= 1024)" in out
    assert "| floor: `for _ in read_trec_qrels(Q)` + `for _ in read_trec_run(R)` |" in out
    assert "values    {muAP: " in out
    text = results.read_text()
    assert text.count("\n## ") == 1 and "ir_measures' generators (`generators.py`, 3k lines)" in text


def test_recommender_benchmark_measures_every_target_and_appends_a_dated_section(tmp_path):
    """``recommender.py`` (issue 54) at tiny sizes: users x ratings x top-k files sorted by user, every
    contender measured, the peak's growth with an extrapolation said as such, a dated section appended."""
    results = tmp_path / "RESULTS.md"
    out = subprocess.run([sys.executable, str(BENCHMARKS / "recommender.py"), "--users", "30", "60", "90",
                          "--ratings", "5", "--top", "4", "--cache", str(tmp_path), "--results", str(results)],
                         capture_output=True, text=True, check=True).stdout
    for name in ("ours CLI muMAP nDCNG@10", "ours CLI AP nDCG@10 muMAP nDCNG@10", "python -m ir_measures AP nDCG@10",
                 "calc_aggregate([muMAP, nDCNG@10], read_trec_qrels(Q), read_trec_run(R))", "experiment(Q, [R]"):
        assert out.count(name) >= 3, name
    assert "identical to `python -m ir_measures`'s at every size: yes" in out
    assert "extrapolated to 1,000,000 users" in out and "not a measurement" in out
    assert results.read_text().count("\n## ") == 1 and "recommender scale" in results.read_text()
    qrels = (tmp_path / "rec-30u-5r-top4-qrels.txt").read_text().splitlines()
    run = (tmp_path / "rec-30u-5r-top4-run.txt").read_text().splitlines()
    assert len(qrels) == 150 and len(run) == 120
    assert {line.split()[3] for line in qrels} <= {"1", "2", "3", "4", "5"}
    users = [int(line.split()[0]) for line in run]
    assert users == sorted(users) and [int(line.split()[0]) for line in qrels] == sorted(users[::4] * 5)
    assert all(len(line.split()) == 6 and line.split()[1] == "Q0" for line in run)
