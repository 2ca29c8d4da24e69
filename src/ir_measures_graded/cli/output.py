"""What the command line says on standard error: one error line (exit status 2) or a warning line."""

from __future__ import annotations

import sys

PROG = "ir-measures-graded"

__all__ = ["PROG", "fail", "warn"]


def fail(message: str) -> int:
    """Write ``message`` as one error line; returns the exit status, 2."""
    sys.stderr.write(f"{PROG}: error: {' '.join(message.split())}\n")
    return 2


def warn(message: str) -> None:
    """Write ``message`` as one warning line."""
    sys.stderr.write(f"{PROG}: warning: {' '.join(message.split())}\n")
