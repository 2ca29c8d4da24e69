"""Entry points in fresh interpreters and beside ir_measures' own command (split from tests/unit/experiments/test_entry_points.py)."""

from __future__ import annotations

import json

import pytest

from ir_measures_graded.cli import main
from support.paths import QRELS, RANDOM, STRONG, WEAK

RUNS = [WEAK, STRONG, RANDOM]


def test_a_missing_extra_is_named_in_one_line(tmp_path):
    """The plain install: a feature whose extra is missing says which extra, in one line, no traceback
    (ir_datasets, matplotlib and pyspark hidden from a subprocess by a module finder that refuses them)."""
    import subprocess
    import sys

    hide = ("import sys, importlib.abc\n"
            "class Hide(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('ir_datasets', 'matplotlib', 'pyspark'):\n"
            "            raise ModuleNotFoundError(name)\n"
            "sys.meta_path.insert(0, Hide())\n"
            "import importlib.util\n"
            "_find = importlib.util.find_spec\n"
            "importlib.util.find_spec = lambda n, *a: None if n.split('.')[0] in "
            "('ir_datasets', 'matplotlib', 'pyspark') else _find(n, *a)\n")
    cases = {
        "datasets": ("import runpy; sys.argv = ['x', 'list']; runpy.run_module('ir_measures_graded.datasets', "
                     "run_name='__main__')", "pip install 'ir-measures-graded[datasets]'"),
        "plot": (f"from ir_measures_graded.cli import main; sys.exit(main(['judge', {QRELS!r}, {RUNS[0]!r}, "
                 f"{RUNS[1]!r}, 'muMAP', '--plot', {str(tmp_path / 'p.png')!r}]))", "[meta]"),
        "figure": (f"from ir_measures_graded.cli import main; sys.exit(main([{QRELS!r}, {RUNS[0]!r}, {RUNS[1]!r}, "
                   f"'muMAP', '--figure', 'scale', {str(tmp_path / 'f.pdf')!r}]))", "[meta]"),
        "spark": (f"from ir_measures_graded.cli import main; sys.exit(main([{QRELS!r}, {RUNS[0]!r}, 'muMAP', "
                  "'--engine', 'spark']))", "[spark]"),
    }
    for name, (code, extra) in cases.items():
        done = subprocess.run([sys.executable, "-c", hide + code], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, (name, done.stderr)
        assert "Traceback" not in done.stderr and extra in done.stderr and len(done.stderr.splitlines()) == 1, \
            (name, done.stderr)


def test_jsonl_per_query_lines_are_the_ir_measures_commands(capsys):
    """Issue 35 item 18: ``-q -o jsonl`` prints what ``python -m ir_measures`` prints, cwl_eval's extra
    fields (expected utility and costs) included."""
    import subprocess
    import sys

    pytest.importorskip("cwl", reason="cwl-eval (module cwl) is in the test extra")
    theirs = subprocess.run([sys.executable, "-m", "ir_measures", QRELS, RUNS[1], "RBP(rel=1) P@5", "-q", "-o",
                             "jsonl"], capture_output=True, text=True, check=True).stdout
    assert main([QRELS, RUNS[1], "RBP(rel=1)", "P@5", "-q", "-o", "jsonl"]) == 0
    ours = capsys.readouterr().out
    key = lambda r: (r["query_id"], r["measure"])  # noqa: E731
    theirs, ours = (sorted(map(json.loads, text.splitlines()), key=key) for text in (theirs, ours))
    assert "expected_total_utility" in theirs[0] or "expected_total_utility" in theirs[1]
    assert ours == theirs
