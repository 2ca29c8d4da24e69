"""The bundled sample evaluation (README quick start: python -m ir_measures_graded)."""

from __future__ import annotations

import subprocess
import sys

from ir_measures_graded.sample import sample_table


def test_python_dash_m_prints_the_sample_table():
    out = subprocess.run([sys.executable, "-m", "ir_measures_graded"], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert "paper Table 1/2 example" in lines[0] and "trec_eval test (TREC 301-303)" in lines[0]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert rows["muAP"][0] == "0.4478"  # Table 1: µAP 0.448
    assert rows["meanNDCG"][0] == "0.2796" and rows["meanNDCNG"][0] == "0.3942"  # Table 2: 0.28, 0.39
    assert out.stderr == ""


def test_sample_table_values_come_from_the_measures():
    table = sample_table()
    assert round(table.loc["trec_eval test (TREC 301-303)", "AP(rel=2)"], 4) == 0.1667  # trec_eval -l2 map
