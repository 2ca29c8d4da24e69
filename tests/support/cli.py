"""The command line in tests: in process (``main()``, what the console script calls) and as the
installed console script in a subprocess."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

#: The installed console script (beside this interpreter first).
SCRIPT = shutil.which("ir-measures-graded", path=str(Path(sys.executable).parent)) or shutil.which("ir-measures-graded")
#: What every command-line error line begins with.
ERROR = "ir-measures-graded: error: "


def run_main(capsys, *args: str, rc: int = 0) -> tuple[str, str]:
    """``main(args)`` in process: returns ``rc`` and prints no traceback; ``(stdout, stderr)``."""
    from ir_measures_graded.cli import main

    assert main(list(args)) == rc, capsys.readouterr().err
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return out, err


def error_of(capsys, *args: str) -> str:
    """The one error line of ``main(args)`` (exit status 2, nothing on stdout), without its prefix."""
    out, err = run_main(capsys, *args, rc=2)
    assert out == "" and len(err.splitlines()) == 1 and err.startswith(ERROR), err
    return err.strip()[len(ERROR):]


def cli(*args: str, check_rc: int | None = 0) -> subprocess.CompletedProcess:
    """The console script in a subprocess; its exit status checked unless ``check_rc`` is None."""
    assert SCRIPT, "the console script is installed with the package"
    result = subprocess.run([SCRIPT, *args], capture_output=True, text=True)
    if check_rc is not None:
        assert result.returncode == check_rc, result.stderr
    return result


def fail(*args: str) -> str:
    """The one error line of the console script (exit status 2, nothing on stdout, no traceback)."""
    result = cli(*args, check_rc=2)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(ERROR)
    return lines[0]
