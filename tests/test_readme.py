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


def test_command_line_examples_print_what_the_readme_shows(tmp_path):
    import shlex
    import shutil
    import subprocess
    import sys

    from ir_measures_graded.sample import data_path

    script = shutil.which("ir-measures-graded", path=str(Path(sys.executable).parent))
    block = README.split("On the bundled sample collection", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    transcript = block.splitlines()
    commands = [i for i, line in enumerate(transcript) if line.startswith("$ ")]
    assert commands
    for start, end in zip(commands, [*commands[1:], len(transcript)], strict=True):
        args = shlex.split(transcript[start][2:])[1:]
        out = subprocess.run([script, *args], cwd=data_path("graded_sample"), capture_output=True, text=True,
                             check=True).stdout
        assert out.splitlines() == transcript[start + 1:end]
