"""How many examples hypothesis draws in the long property runs: all of them in a full run, a few in
the everyday subset (``pytest -m "not slow"``, set by tests/conftest.py), so that every test still runs
there, briefly, and the full run (.ci/run) keeps its thoroughness."""

from __future__ import annotations

#: True in the everyday subset (tests/conftest.py's pytest_configure, before any test module is imported).
BRIEF = False


def examples(full: int) -> int:
    """``full`` examples in a full run; an eighth of them (at least 10) in the everyday subset."""
    return max(10, full // 8) if BRIEF else full
