"""``ir-measures-graded leaderboard`` as a process (#43): what needs standard input."""

from __future__ import annotations

import subprocess

import pytest

from ir_measures_graded.sample import data_path
from support.cli import ERROR, SCRIPT

pytestmark = pytest.mark.slow

SAMPLE = data_path("graded_sample")
RUNS = [str(SAMPLE / f"{name}.run") for name in ("strong", "weak", "random")]


def test_qrels_from_standard_input_cannot_be_pooled():
    done = subprocess.run([SCRIPT, "leaderboard", "-", *RUNS, "-m", "AP", "--sections", "pool"], capture_output=True,
                          text=True, input=(SAMPLE / "qrels.txt").read_text())
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith(ERROR) and "read the qrels again: give them as a file" in done.stderr
