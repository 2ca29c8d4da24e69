"""The public API is typed: mypy --strict passes over the modules pyproject.toml's [tool.mypy] lists (as .ci/run
runs it), and a user's program type-checked against the installed package sees its types (py.typed), not Any."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.paths import ROOT

USER_PROGRAM = '''\
import ir_measures_graded as img
from ir_measures_graded.experiments import Experiment

exp: Experiment = img.experiment("qrels.txt", ["a.run", "b.run"], ["muMAP", "nDCG@10"], baseline="a.run")
board = img.leaderboard(exp)
reveal_type(img.experiment)
reveal_type(board)
reveal_type(exp.baseline_run())
'''


def mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_public_api_is_clean_under_strict():
    result = mypy("--strict", cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_a_user_sees_the_packages_types(tmp_path):
    (tmp_path / "user.py").write_text(USER_PROGRAM, encoding="utf-8")
    result = mypy("--strict", "user.py", cwd=tmp_path)
    out = result.stdout
    # without py.typed: 'module is installed, but missing library stubs or py.typed marker', every type Any
    assert "py.typed" not in out and result.returncode == 0, out
    revealed = [line.split("Revealed type is ", 1)[1] for line in out.splitlines() if "Revealed type is" in line]
    assert len(revealed) == 3, out
    assert revealed[0].startswith('"def (qrels: Any, runs: Any, measures:') and revealed[0].endswith(
        '-> ir_measures_graded.experiments.evaluation.Experiment"'), revealed[0]
    assert revealed[1] == '"ir_measures_graded.organiser.leaderboard.Leaderboard"', revealed[1]
    assert revealed[2] in ('"str"', '"builtins.str"'), revealed[2]
