"""``ir-measures-graded leaderboard`` as a process (#43): what needs standard input."""

from __future__ import annotations

import subprocess

import pytest

from ir_measures_graded.sample import data_path
from support.cli import SCRIPT

pytestmark = pytest.mark.slow

SAMPLE = data_path("graded_sample")
RUNS = [str(SAMPLE / f"{name}.run") for name in ("strong", "weak", "random")]


def test_qrels_from_standard_input_are_pooled_as_the_file_is():
    """The experiment reads standard input once and keeps it (#42): pooling needs no second reading."""
    args = [*RUNS, "-m", "AP", "--sections", "pool"]
    done = subprocess.run([SCRIPT, "leaderboard", "-", *args], capture_output=True, text=True,
                          input=(SAMPLE / "qrels.txt").read_text())
    from_file = subprocess.run([SCRIPT, "leaderboard", str(SAMPLE / "qrels.txt"), *args], capture_output=True,
                               text=True, check=True)
    assert done.returncode == 0 and done.stderr == "" and done.stdout == from_file.stdout
