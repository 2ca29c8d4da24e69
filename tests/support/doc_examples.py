"""Running the examples of the README and of the documentation site (tests/e2e/test_readme.py, tests/e2e/test_docs.py).

A ``python`` block is executed and what it prints compared with its ``# -> `` lines; every command of a
``bash`` block runs or is checked; a ``text`` block whose lines begin with ``$ ir-measures-graded`` is a
transcript: each command runs on the bundled sample collection and prints exactly the lines below it.
"""

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

import tomllib

from ir_measures_graded.sample import data_path
from support.paths import OHSUMED_FIXTURE, ROOT

#: The documentation site's pages.
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
EXTRAS = PYPROJECT["project"]["optional-dependencies"]
BIN = Path(sys.executable).parent
SCRIPT = shutil.which("ir-measures-graded", path=str(BIN))
#: The languages of code blocks these helpers cover ("" is a block that is shown, not run: the Spark
#: page's example, which tests/e2e/test_spark.py runs on a Spark session).
LANGUAGES = {"python", "bash", "text", ""}


def code_blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.S | re.M)


def languages(text: str) -> set[str]:
    return set(re.findall(r"^```(\w*)$", text, flags=re.M))


def expected_output(block: str) -> list[str]:
    return [line[len("# -> "):] for line in block.splitlines() if line.startswith("# -> ")]


def run_python_block(block: str, name: str, home: Path) -> None:
    """Execute ``block``; what it prints must be its ``# -> `` lines (when it has any)."""
    if "ohsumed" in block:  # OHSUMED blocks run on the fixture files, placed as a user would
        shutil.copytree(OHSUMED_FIXTURE, home / "ohsumed", dirs_exist_ok=True)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, name, "exec"), {})
    expected = expected_output(block)
    if expected:
        assert out.getvalue().splitlines() == expected, name


def bash_commands(text: str) -> list[str]:
    lines = []
    for block in code_blocks(text, "bash"):
        lines += [" ".join(shlex.split(line, comments=True)) for line in block.splitlines() if line.strip()]
    return lines


def pip_targets(command: str) -> list[str]:
    return re.findall(r"pip install (?:-e )?(\S+)", command)


def check_install_target(target: str) -> None:
    """``.`` or ``.[extra,...]``: installs from the clone, with extras pyproject.toml defines."""
    match = re.fullmatch(r"\.(?:\[([\w,]+)\])?", target.strip("\"'"))
    assert match, f"the docs install {target!r}, which does not work from a clone (not on PyPI)"
    for extra in filter(None, (match.group(1) or "").split(",")):
        assert extra in EXTRAS, f"the docs name extra {extra!r}; pyproject.toml defines {sorted(EXTRAS)}"


def sample_folder(folder: Path) -> Path:
    """The file names the command examples use (qrels.txt, run.txt, runs/*.txt), holding the bundled sample."""
    sample = data_path("graded_sample")
    shutil.copy(sample / "qrels.txt", folder / "qrels.txt")
    shutil.copy(sample / "strong.run", folder / "run.txt")
    (folder / "runs").mkdir(exist_ok=True)
    for name in ("strong", "weak"):
        shutil.copy(sample / f"{name}.run", folder / "runs" / f"{name}.txt")
    return folder


def tool(name: str) -> bool:
    return shutil.which(name, path=str(BIN)) is not None


def check_command(command: str, folder: Path) -> None:
    """Run ``command`` (an ``ir-measures-graded`` command, in ``folder`` holding the sample files) or check
    what it needs exists (installs, the test suite, notebooks, benchmarks, tools); anything else fails."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    if "pip install" in command:  # installs: from the clone, with extras that exist
        assert pip_targets(command), command
        for target in pip_targets(command):
            check_install_target(target)
        if "ir-measures-graded demo" in command:
            assert subprocess.run([SCRIPT, "demo"], capture_output=True, text=True).returncode == 0
    elif command.startswith("ir-measures-graded"):
        result = subprocess.run(command, shell=True, cwd=folder, env=env, capture_output=True, text=True,
                                executable="/bin/bash")
        assert result.returncode == 0 and result.stdout and not result.stderr, (command, result.stderr)
    elif command.startswith("jupyter execute"):  # executed by tests/e2e/test_notebooks.py
        assert tool("jupyter-execute") and "nbclient>=0.7" in EXTRAS["notebooks"]
        assert sorted(ROOT.glob(command.split()[-1]))
    elif command.startswith("jupyter lab"):
        assert any(req.startswith("jupyterlab") for req in EXTRAS["notebooks"])
        assert (ROOT / command.split()[-1]).is_dir()
    elif command.startswith("python benchmarks/bench.py"):  # options checked; tests/e2e/test_benchmark.py runs it
        help_text = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench.py"), "--help"],
                                   capture_output=True, text=True, check=True).stdout
        assert all(option in help_text for option in re.findall(r"--\w+", command)), command
    elif command.startswith("python benchmarks/"):  # run at a tiny size by tests/e2e/test_benchmark.py
        assert (ROOT / command.split()[1]).is_file(), command
    elif command.startswith(("python -m pytest", "pytest")):  # the suite itself: the marker it names must exist
        markers = PYPROJECT["tool"]["pytest"]["ini_options"]["markers"]
        assert "not slow" not in command or any(m.startswith("slow:") for m in markers), command
        assert all((ROOT / arg).exists() for arg in command.split() if arg.startswith("tests/")), command  # moved?
    elif command.startswith("mutmut"):  # the mutation extra's tool, configured in [tool.mutmut]
        assert any(req.startswith("mutmut") for req in EXTRAS["mutation"]) and "mutmut" in PYPROJECT["tool"]
    elif command.startswith(("ruff", "lint-imports", "mkdocs", "mypy")):  # run by test_lint, test_import_contracts,
        assert tool(command.split()[0]), command  # tests/e2e/test_docs.py, test_typing.py: here, that it is installed
    elif command.startswith("python docs/"):
        assert (ROOT / command.split()[1]).is_file(), command
    else:
        raise AssertionError(f"a documented command nobody tests: {command}")


def transcripts(text: str) -> list[str]:
    """The ``text`` blocks that are command-line transcripts (``$ ir-measures-graded ...`` lines)."""
    return [block for block in code_blocks(text, "text") if block.startswith("$ ir-measures-graded")]


def check_transcript(block: str) -> None:
    """Every command of the transcript, run in the bundled sample's folder, prints the lines below it."""
    lines = block.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
    assert starts
    for start, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        args = shlex.split(lines[start][2:])[1:]
        out = subprocess.run([SCRIPT, *args], cwd=data_path("graded_sample"), capture_output=True, text=True,
                             check=True).stdout
        assert out.splitlines() == lines[start + 1:end], lines[start]
