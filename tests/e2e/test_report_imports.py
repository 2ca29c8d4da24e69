"""The report function in a fresh interpreter (split from tests/unit/report/test_report.py)."""

from __future__ import annotations

import subprocess
import sys


def test_the_package_attribute_is_callable_whatever_was_imported_first():
    code = ("import ir_measures_graded.report.build, ir_measures_graded as g; "
            "from ir_measures_graded.sample import graded_sample; q, r = graded_sample(); "
            "print(type(g.report(q, r, ['muMAP'], transforms=[])).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "Report"
