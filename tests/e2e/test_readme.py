"""The README stays true: every code block in it runs (or is checked) here and prints what it says.

The same for the documentation site's pages: tests/e2e/test_docs.py (both use tests/support/doc_examples.py).
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from ir_measures_graded.sample import data_path
from support.doc_examples import (
    EXTRAS,
    LANGUAGES,
    PYPROJECT,
    ROOT,
    bash_commands,
    check_command,
    check_transcript,
    code_blocks,
    languages,
    run_python_block,
    sample_folder,
    transcripts,
)

pytestmark = pytest.mark.slow  # see pyproject.toml: the everyday subset is -m 'not slow'

README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The README is the front page; the documentation is the site (docs/).
MAX_LINES = 250


def quick_start() -> list[str]:
    section = README.split("## Quick start", 1)[1]
    (block,) = code_blocks(section, "bash")[:1]
    return [line for line in block.splitlines() if line.strip()]


def test_quick_start_is_two_commands_and_ci_runs_the_test_command():
    commands = quick_start()
    assert len(commands) == 2
    assert "pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines()


def test_readme_is_a_front_page():
    assert len(README.splitlines()) <= MAX_LINES


def test_every_language_of_code_block_is_one_these_tests_cover():
    assert languages(README) <= LANGUAGES


@pytest.mark.parametrize("index", range(len(code_blocks(README, "python"))))
def test_every_python_block_runs_and_prints_what_the_readme_shows(index, home):
    run_python_block(code_blocks(README, "python")[index], "README.md", home)


def test_top_snippet_defines_everything_it_uses():
    top = code_blocks(README, "python")[0]
    assert README.index(top) < README.index("## Quick start")
    assert "# -> " in top  # its output is checked above


def test_every_shell_command_runs_or_is_checked(tmp_path):
    commands = bash_commands(README)
    assert commands
    for command in commands:
        check_command(command, sample_folder(tmp_path))


def test_command_line_examples_print_what_the_readme_shows():
    (block,) = transcripts(README)
    check_transcript(block)


def test_ir_measures_own_command_loads_no_plugin_as_the_readme_says():
    """ir_measures 0.4.3 reads no entry point: its command does not know muMAP; ours is the drop-in."""
    sample = data_path("graded_sample")
    result = subprocess.run([sys.executable, "-m", "ir_measures", str(sample / "qrels.txt"),
                             str(sample / "strong.run"), "muMAP"], capture_output=True, text=True)
    assert result.returncode != 0 and "unknown measure: muMAP" in result.stderr
    assert "`python -m ir_measures qrels run muMAP` fails" in README
    assert "ir_measures.provider" not in PYPROJECT.get("project", {}).get("entry-points", {})


def test_readme_has_no_relative_link():
    """The README is the package index's page too, where a relative link dies: every link is absolute (the
    project's own files are named as paths instead, checked below)."""
    markdown = re.findall(r"\]\(\s*<?([^)>\s]*)", README)  # [text](target) and ![alt](target)
    references = re.findall(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?\s*$", README, flags=re.M)  # [label]: target
    html = re.findall(r"""\b(?:href|src)\s*=\s*["']([^"']*)""", README)
    relative = [t for t in markdown + references + html if not re.match(r"https?://", t)]
    assert not relative, relative


def test_readme_paths_exist():
    """Every file of the repository the README names (`docs/...`, `CONTRIBUTING.md`, ...) exists."""
    named = re.findall(r"`((?:docs|benchmarks|notebooks|tests|src)/[\w./-]*|[A-Z]+\.md)`", README)
    assert "docs/measures.md" in named and "RELEASING.md" in named
    for path in named:
        assert (ROOT / path).exists(), path


def test_readme_names_every_extra():
    named = set(re.findall(r"`(\w+)`", README.split("(extras: ", 1)[1].split(").", 1)[0]))
    assert named == set(EXTRAS)
