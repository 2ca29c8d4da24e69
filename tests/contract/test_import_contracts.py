"""The architecture's import contracts (pyproject.toml, [tool.importlinter]) hold: `lint-imports` passes.

The contracts: the layers of the data flow (nothing imports a layer above it), engines never
import the command line, the evaluation core knows no engine, integration, meta-evaluation or
command line, only the Spark engine imports pyspark, and kernels know nothing of ir_measures.
"""

from __future__ import annotations

import ast
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


def lint_with(tmp_path: Path, module: str, line: str) -> subprocess.CompletedProcess:
    """``lint-imports`` with the same contracts on a copy of the package where ``module`` (a path below
    the package) ends with ``line``."""
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "ir_measures_graded", copy / "ir_measures_graded",
                    ignore=shutil.ignore_patterns("__pycache__", "data"))
    changed = copy / "ir_measures_graded" / module
    changed.write_text(changed.read_text() + f"\n{line}  # noqa: E402\n")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return subprocess.run([lint_imports(), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(copy), "PATH": ""})


def test_a_broken_contract_fails(tmp_path):
    """The check can fail: the same contracts on a copy of the package where a kernel imports the command line."""
    done = lint_with(tmp_path, "kernels/segments.py", "from ir_measures_graded import cli")
    assert done.returncode != 0
    assert "ir_measures_graded.kernels.segments -> ir_measures_graded.cli" in done.stdout


def test_the_modules_of_a_layer_are_independent_siblings(tmp_path):
    """Issue 42: a layer's modules are written ``a | b`` (independent), not ``a : b`` (free to import each
    other): a kernel importing the statistics beside it in the lowest layer breaks the layers contract."""
    done = lint_with(tmp_path, "kernels/segments.py", "from ir_measures_graded import statistics")
    assert done.returncode != 0
    assert "ir_measures_graded.kernels.segments -> ir_measures_graded.statistics" in done.stdout


def test_one_lazy_import_mechanism():
    """Modules load lazily one way (issue 36, item 3): through ``ir_measures_graded.lazy``
    (``lazy_module``, and ``lazy_attributes`` for a package's names), not by a module's own PEP 562
    ``def __getattr__`` or a stand-in object of another kind. (A class's ``__getattr__`` is not a
    module's, and the report's and the experiment's callable modules load nothing.)"""
    package = ROOT / "src" / "ir_measures_graded"
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level only
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__" and path.name != "lazy.py":
                found.append(f"{path.relative_to(package)}: def __getattr__")
            if isinstance(node, ast.ClassDef) and path.name == "lazy.py" and node.name not in ("_Unloaded",):
                found.append(f"lazy.py: class {node.name}")
    assert found == []
