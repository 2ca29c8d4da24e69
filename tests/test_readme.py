"""The README stays true: its Python examples run and print what it says; CI runs its test command."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


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


def test_python_examples_print_what_the_readme_shows():
    examples = [block for block in code_blocks("python") if "# -> " in block]
    assert examples
    for block in examples:
        expected = [line[len("# -> "):] for line in block.splitlines() if line.startswith("# -> ")]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, "README.md", "exec"), {})
        assert out.getvalue().splitlines() == expected
