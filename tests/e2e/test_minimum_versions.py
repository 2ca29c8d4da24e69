"""The declared minimum versions are the tested ones (issue #35.15): .ci/minimums.py pins every
``[project] dependencies`` floor of pyproject.toml, and .ci/run installs exactly those pins in its
second environment (``.venv-min``) before running the core tests there."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys

import pytest

from support.paths import ROOT

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11 (.ci/minimums.py needs it too, or tomli)



def load_minimums():
    spec = importlib.util.spec_from_file_location("minimums", ROOT / ".ci" / "minimums.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_dependency_is_pinned_to_its_floor():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = load_minimums().minimums(ROOT / "pyproject.toml")
    assert pins == [re.sub(r"\s*>=\s*", "==", d) for d in declared]
    printed = subprocess.run([sys.executable, str(ROOT / ".ci" / "minimums.py")], capture_output=True, text=True,
                             check=True).stdout.split()
    assert printed == pins
    # the floors found to work (0.3.1-0.3.4: no `Agg`; numpy 1.23.0-1.23.1: no wheels for Python 3.11)
    assert {"ir-measures==0.3.5", "numpy==1.23.2"} <= set(pins)


@pytest.mark.parametrize("requirement", ["numpy", "numpy<3", "numpy>=1.23,<3", "numpy==1.24",
                                         "numpy>=1.23; python_version<'4'"])
def test_a_dependency_without_a_plain_floor_is_refused(tmp_path, requirement):
    (tmp_path / "pyproject.toml").write_text(f'[project]\ndependencies = ["pandas>=1.5", "{requirement}"]\n')
    with pytest.raises(SystemExit, match="not of the form 'name>=floor'"):
        load_minimums().minimums(tmp_path / "pyproject.toml")


def test_ci_installs_the_pins_in_a_second_environment_after_the_main_one():
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    main = next(i for i, line in enumerate(lines) if line.startswith("python3 -m venv .venv &&"))
    rest = "\n".join(lines[main + 1:])
    assert "minimums=$(python3 .ci/minimums.py)" in rest
    assert ".venv-min/bin/pip install $minimums -e . pytest hypothesis" in rest
    assert ".venv-min/bin/python -m pytest" in rest
