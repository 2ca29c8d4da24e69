#!/usr/bin/env python3
"""Print ``name==floor`` for every entry of pyproject.toml's ``[project] dependencies``, one a line
(with ``--python``: the lowest Python that ``requires-python`` declares).

.ci/run installs these pins in a second virtual environment and runs the core tests there, so the
declared minimum versions are the tested ones and cannot drift. Every dependency must declare a
floor (``name>=X``); anything else (no floor, an upper bound, a marker) is refused, so that a new
dependency cannot escape the check.

Standard library only (runs on the system Python before any environment exists): ``tomllib``
(Python >= 3.11; on 3.10 the ``tomli`` package).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser as a package
    import tomli as tomllib

FLOOR = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*>=\s*([0-9][0-9A-Za-z.]*)\s*$")


def minimums(pyproject: Path) -> list[str]:
    """``name==floor`` of each declared dependency, in the declared order."""
    dependencies = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    pins = []
    for requirement in dependencies:
        match = FLOOR.match(requirement)
        if match is None:
            raise SystemExit(f"minimums.py: dependency {requirement!r} is not of the form 'name>=floor'")
        pins.append(f"{match[1]}=={match[2]}")
    return pins


def lowest_python(pyproject: Path) -> str:
    """``X.Y`` of ``requires-python = ">=X.Y"``: the interpreter the job runs on."""
    declared = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["requires-python"]
    match = re.fullmatch(r"\s*>=\s*(\d+\.\d+)\s*", declared)
    if match is None:
        raise SystemExit(f"minimums.py: requires-python {declared!r} is not of the form '>=X.Y'")
    return match[1]


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--python"]
    root = Path(args[0]) if args else Path(__file__).resolve().parents[1]
    if "--python" in sys.argv[1:]:
        print(lowest_python(root / "pyproject.toml"))
    else:
        print("\n".join(minimums(root / "pyproject.toml")))
