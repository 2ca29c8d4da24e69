"""benchmarks/judges_bench.py (issue 53) at a tiny size: both targets printed, the dated section appended."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_judges_benchmark_prints_both_targets_and_appends_a_dated_section(tmp_path):
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n")
    out = subprocess.run([sys.executable, str(BENCHMARKS / "judges_bench.py"), "--runs", "3", "--queries", "2",
                          "--docs", "20", "--judged", "30", "--pairs", "1", "--results", str(results)],
                         capture_output=True, text=True, check=True).stdout
    assert "| `agree` / one `leaderboard` (paired median) | ≤ 2× |" in out
    assert "| `agree`: peak memory | ≤ 800 MiB |" in out
    text = results.read_text()
    assert text.startswith("# Benchmark results\n\n## ") and "`judges_bench.py` (#53)" in text
