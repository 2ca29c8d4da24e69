"""Every output format, in one place: its name, whether it is a tidy machine table, its files' suffix.

Light on purpose (no pandas): the command line's parser lists the formats from here, and ``--help``
loads nothing heavy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ir_measures_graded.errors import GradedInputError

__all__ = ["Format", "FORMATS", "MACHINE_FORMATS", "HUMAN_FORMATS", "format_of", "number", "json_number"]


@dataclass(frozen=True)
class Format:
    """An output format: its name, whether it is a tidy machine table (one table per stream, numbers
    as numbers), the suffix of its files (``--output-dir``), and whether tables are written in it (trec
    is trec_eval's result lines: the evaluate command's results only)."""

    name: str
    machine: bool
    suffix: str
    tables: bool = True


#: Every output format, wherever one is written: the one list (the command line's choices, the
#: suffixes of --output-dir, which formats hold one table per stream).
FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("tsv", True, "tsv"), Format("csv", True, "csv"), Format("jsonl", True, "jsonl"),
    Format("trec", False, "txt", tables=False),
    Format("text", False, "txt"), Format("markdown", False, "md"), Format("latex", False, "tex"))}
MACHINE_FORMATS = tuple(name for name, f in FORMATS.items() if f.machine)
HUMAN_FORMATS = tuple(name for name, f in FORMATS.items() if not f.machine and f.tables)


def format_of(name: str, table: bool = False) -> Format:
    """The format called ``name``, refused with one line when unknown (or, with ``table``, when no
    table is written in it)."""
    found = FORMATS.get(name)
    if found is None or (table and not found.tables):
        allowed = [n for n, f in FORMATS.items() if f.tables or not table]
        raise GradedInputError(f"unknown output format {name!r}; expected one of {', '.join(allowed)}")
    return found



def _missing(value: Any) -> bool:
    """None, NaN or pandas' NA (whose comparisons have no truth value)."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except TypeError:
        return True


def number(value: Any, places: int, signed: bool = False, missing: str = "") -> str:
    """How a value prints in every format and table (``-p``, ``places=``): ``places`` decimals, or -1
    for every digit (Python's repr); a sign with ``signed`` (deltas); ``missing`` for None or NaN.
    p-values print by significant digits instead (:func:`~ir_measures_graded.experiments.tables.format_p`)."""
    if _missing(value):
        return missing
    value = float(value)
    if math.isinf(value):  # the open end of a one-sided interval
        return "∞" if value > 0 else "−∞"
    return f"{value:{'+' if signed else ''}.{places}f}" if places >= 0 else repr(value)


def json_number(value: Any, places: int | None) -> Any:
    """A value for JSON: rounded to ``places`` decimals when given (and not -1), None for what is missing (NaN,
    NA); an infinity (a one-sided interval's open end) as ``Infinity``, which Python, pandas and jq read;
    anything but a number as it is."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None if value is not None and not isinstance(value, str) and _missing(value) else value
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, float) and math.isinf(value):
        return value
    return round(value, places) if places is not None and places >= 0 else value
