"""The architecture's import contracts (pyproject.toml, [tool.importlinter]) hold: `lint-imports` passes.

The contracts: the layers of the data flow (nothing imports a layer above it), engines never
import the command line, the evaluation core knows no engine, integration, meta-evaluation or
command line, only the Spark engine imports pyspark, and kernels know nothing of ir_measures.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.paths import ROOT


def lint_imports() -> str:
    script = Path(sys.executable).with_name("lint-imports")
    found = str(script) if script.exists() else shutil.which("lint-imports")
    if found is None:
        pytest.fail("lint-imports not found: install the 'test' extra (pip install -e '.[test]'), which brings import-linter")
    return found


def test_import_contracts_are_kept():
    done = subprocess.run([lint_imports(), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_a_broken_contract_fails(tmp_path):
    """The check can fail: the same contracts on a copy of the package where a kernel imports the command line."""
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "ir_measures_graded", copy / "ir_measures_graded",
                    ignore=shutil.ignore_patterns("__pycache__", "data"))
    kernel = copy / "ir_measures_graded" / "kernels" / "segments.py"
    kernel.write_text(kernel.read_text() + "\nfrom ir_measures_graded import cli  # noqa: E402\n")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    done = subprocess.run([lint_imports(), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(copy), "PATH": ""})
    assert done.returncode != 0
    assert "ir_measures_graded.kernels.segments -> ir_measures_graded.cli" in done.stdout
