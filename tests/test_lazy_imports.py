"""Importing the package, parsing measures and --help stay light: pandas, pyarrow, ir_datasets and
pyterrier load only on a path that uses them (checked in fresh interpreters, via sys.modules)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("pandas", "pyarrow", "ir_datasets", "pyterrier", "polars", "tqdm", "matplotlib")


def loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport sys\nprint('loaded:', *(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return out.splitlines()[-1].split()[1:]


@pytest.mark.parametrize("code", [
    "import ir_measures_graded",
    "import ir_measures, ir_measures_graded; ir_measures.parse_measure('nDCNG(dcg=\"exp-log2\")@10')",
    "from ir_measures_graded import muMAP, nDCNG; (muMAP, nDCNG @ 5)",
    "import ir_measures_graded.cli as c\ntry:\n    c.main(['--help'])\nexcept SystemExit:\n    pass",
])
def test_light_paths_load_no_heavy_module(code):
    assert loaded_after(code) == []


@pytest.mark.parametrize("code", [
    "import ir_measures_graded",
    "import ir_measures, ir_measures_graded; ir_measures.parse_measure('muMAP'); ir_measures.parse_measure('GAP@5')",
])
def test_importing_and_parsing_do_not_load_numpy(code):
    # measures reach numpy (kernels, prepared arrays) only when a value is computed
    probe = f"{code}\nimport sys\nprint('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split()[-1] == "False"


@pytest.mark.slow
def test_datasets_register_when_ir_datasets_is_imported_later():
    code = ("import ir_measures_graded, ir_datasets\n"
            "print(ir_datasets.load('ohsumed/letor2').documentation()['pretty_name'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("OHSUMED")


def test_lazy_names_resolve():
    import ir_measures_graded

    assert callable(ir_measures_graded.by_level) and callable(ir_measures_graded.scan_run)
    with pytest.raises(AttributeError):
        ir_measures_graded.no_such_name  # noqa: B018
