"""The README stays true: every code block in it runs (or is checked) here and prints what it says."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from conftest import OHSUMED_FIXTURE
from ir_measures_graded.sample import data_path

pytestmark = pytest.mark.slow  # see pyproject.toml: the everyday subset is -m 'not slow'

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
EXTRAS = PYPROJECT["project"]["optional-dependencies"]
BIN = Path(sys.executable).parent
SCRIPT = shutil.which("ir-measures-graded", path=str(BIN))


def code_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def quick_start() -> list[str]:
    section = README.split("## Quick start", 1)[1]
    (block,) = re.findall(r"```bash\n(.*?)```", section, flags=re.S)[:1]
    return [line for line in block.splitlines() if line.strip()]


def test_quick_start_is_two_commands_and_ci_runs_the_test_command():
    commands = quick_start()
    assert len(commands) == 2
    assert "pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines()


def test_every_language_of_code_block_is_one_these_tests_cover():
    assert set(re.findall(r"^```(\w*)$", README, flags=re.M)) == {"python", "bash", "text", ""}


@pytest.mark.parametrize("index", range(len(code_blocks("python"))))
def test_every_python_block_runs_and_prints_what_the_readme_shows(index, home):
    block = code_blocks("python")[index]
    if "ohsumed" in block:  # OHSUMED blocks run on the fixture files, placed as a user would
        shutil.copytree(OHSUMED_FIXTURE, home / "ohsumed")
    expected = [line[len("# -> "):] for line in block.splitlines() if line.startswith("# -> ")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    if expected:
        assert out.getvalue().splitlines() == expected


def test_top_snippet_defines_everything_it_uses():
    top = code_blocks("python")[0]
    assert README.index(top) < README.index("## Quick start")
    assert "# -> " in top  # its output is checked above


def bash_commands() -> list[str]:
    lines = []
    for block in code_blocks("bash"):
        lines += [" ".join(shlex.split(line, comments=True)) for line in block.splitlines() if line.strip()]
    return lines


def pip_targets(command: str) -> list[str]:
    return re.findall(r"pip install (?:-e )?(\S+)", command)


def check_install_target(target: str) -> None:
    """``.`` or ``.[extra,...]``: installs from the clone, with extras pyproject.toml defines."""
    match = re.fullmatch(r"\.(?:\[([\w,]+)\])?", target.strip("\"'"))
    assert match, f"README installs {target!r}, which does not work from a clone (not on PyPI)"
    for extra in filter(None, (match.group(1) or "").split(",")):
        assert extra in EXTRAS, f"README names extra {extra!r}; pyproject.toml defines {sorted(EXTRAS)}"


@pytest.fixture()
def sample_folder(tmp_path):
    """The file names the README's command examples use, holding the bundled sample collection."""
    sample = data_path("graded_sample")
    shutil.copy(sample / "qrels.txt", tmp_path / "qrels.txt")
    shutil.copy(sample / "strong.run", tmp_path / "run.txt")
    (tmp_path / "runs").mkdir()
    for name in ("strong", "weak"):
        shutil.copy(sample / f"{name}.run", tmp_path / "runs" / f"{name}.txt")
    return tmp_path


def test_every_shell_command_runs_or_is_checked(sample_folder):
    commands = bash_commands()
    assert commands
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    for command in commands:
        if "pip install" in command:  # installs: from the clone, with extras that exist
            assert pip_targets(command), command
            for target in pip_targets(command):
                check_install_target(target)
            if "ir-measures-graded demo" in command:
                assert subprocess.run([SCRIPT, "demo"], capture_output=True, text=True).returncode == 0
            elif "benchmarks/bench.py" in command:
                assert (ROOT / "benchmarks" / "bench.py").is_file()  # run by tests/test_benchmark.py
            else:
                assert "pytest" in command or "notebooks" in command, command
        elif "ir-measures-graded" in command:
            result = subprocess.run(command, shell=True, cwd=sample_folder, env=env, capture_output=True,
                                    text=True, executable="/bin/bash")
            assert result.returncode == 0 and result.stdout and not result.stderr, (command, result.stderr)
        elif command.startswith("jupyter execute"):  # executed by tests/test_notebooks.py
            assert shutil.which("jupyter-execute", path=str(BIN)) and "nbclient>=0.7" in EXTRAS["notebooks"]
            assert sorted(ROOT.glob(command.split()[-1]))
        elif command.startswith("jupyter lab"):
            assert any(req.startswith("jupyterlab") for req in EXTRAS["notebooks"])
            assert (ROOT / command.split()[-1]).is_dir()
        elif command.startswith("python benchmarks/bench.py"):  # options checked; tests/test_benchmark.py runs it
            help_text = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench.py"), "--help"],
                                       capture_output=True, text=True, check=True).stdout
            assert all(option in help_text for option in re.findall(r"--\w+", command)), command
        elif command.startswith("python benchmarks/phases.py"):  # run at a tiny size by tests/test_benchmark.py
            assert (ROOT / "benchmarks" / "phases.py").is_file(), command
        else:
            raise AssertionError(f"README command nobody tests: {command}")


def test_command_line_examples_print_what_the_readme_shows(tmp_path):
    block = README.split("On the bundled sample collection", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    transcript = block.splitlines()
    commands = [i for i, line in enumerate(transcript) if line.startswith("$ ")]
    assert commands
    for start, end in zip(commands, [*commands[1:], len(transcript)], strict=True):
        args = shlex.split(transcript[start][2:])[1:]
        out = subprocess.run([SCRIPT, *args], cwd=data_path("graded_sample"), capture_output=True, text=True,
                             check=True).stdout
        assert out.splitlines() == transcript[start + 1:end]


def test_ir_measures_own_command_loads_no_plugin_as_the_readme_says():
    """ir_measures 0.4.3 reads no entry point: its command does not know muMAP; ours is the drop-in."""
    sample = data_path("graded_sample")
    result = subprocess.run([sys.executable, "-m", "ir_measures", str(sample / "qrels.txt"),
                             str(sample / "strong.run"), "muMAP"], capture_output=True, text=True)
    assert result.returncode != 0 and "unknown measure: muMAP" in result.stderr
    assert "`python -m ir_measures qrels run muMAP` fails" in README
    assert "ir_measures.provider" not in PYPROJECT.get("project", {}).get("entry-points", {})
