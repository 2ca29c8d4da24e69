"""Fuzz: a few hostile files through a real subprocess: standard input, stderr as the user sees it (split from tests/contract/test_fuzz_files.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

QRELS = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 1\n"


RUN = "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\nq1 Q0 d4 3 0.5 t\nq2 Q0 d1 1 1 t\n"


def command(args: list[str], stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONWARNINGS="default")  # a warning would be shown, not hidden
    return subprocess.run([sys.executable, "-m", "ir_measures_graded", *args], input=stdin,
                          capture_output=True, env=env, timeout=120)


@pytest.mark.parametrize("name, qrels, run, stdin_run, error_at, value_ok", [
    ("invalid UTF-8 in the run", QRELS.encode(), RUN.encode().replace(b"d4", b"d\xff4"), False, "run.txt:3", False),
    ("score beyond float32", QRELS.encode(), RUN.encode().replace(b"0.5", b"1e39"), False, "run.txt:3", True),
    ("run from standard input", QRELS.encode(), RUN.encode(), True, None, True),
    ("empty qrels", b"", RUN.encode(), False, None, "nan"),
    ("1_000 as a score", QRELS.encode(), RUN.encode().replace(b"2.5", b"1_000"), False, "run.txt:1", True),
], ids=["invalid-utf8", "score-beyond-float32", "run-from-stdin", "empty-qrels", "1_000-score"])
def test_hostile_files_through_a_subprocess(tmp_path, name, qrels, run, stdin_run, error_at, value_ok):
    (tmp_path / "qrels.txt").write_bytes(qrels)
    (tmp_path / "run.txt").write_bytes(run)
    run_arg = "-" if stdin_run else str(tmp_path / "run.txt")
    done = command([str(tmp_path / "qrels.txt"), run_arg, "muMAP", "nDCNG@5"], stdin=run if stdin_run else None)
    err = done.stderr.decode("utf-8", errors="replace")
    assert "Traceback" not in err and "Warning" not in err and ".py:" not in err, (name, err)
    if done.returncode == 2:
        assert len(err.splitlines()) == 1 and err.startswith("ir-measures-graded: error:"), (name, err)
        assert error_at is not None and error_at in err, (name, err)
        return
    assert done.returncode == 0, (name, err)
    if value_ok == "nan":  # undefined, as ir_measures prints it, with one warning line
        assert done.stdout.decode().split() == ["muMAP", "nan", "nDCNG@5", "nan"] and len(err.splitlines()) == 1
        return
    assert value_ok, f"{name}: expected an error naming {error_at}, got {done.stdout!r}"
    values = dict(row.split("\t") for row in done.stdout.decode().splitlines())
    assert values.keys() == {"muMAP", "nDCNG@5"} and all(v.strip() and v != "nan" for v in values.values()), \
        (name, done.stdout)
