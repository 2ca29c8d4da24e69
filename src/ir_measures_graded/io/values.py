"""The one check of values given as Python objects (a list of labels or scores): real, finite numbers, else
one line naming the row (a bool, a string, None, an integer beyond float64, NaN or infinity)."""

from __future__ import annotations

import decimal
import numbers
from typing import Any

import numpy as np

from ir_measures_graded.errors import GradedInputError

__all__ = ["list_values", "finite", "plain"]


def plain(value: Any) -> Any:
    """numpy scalars as Python values, so messages read ``nan``, not ``np.float64(nan)``."""
    return value.item() if isinstance(value, np.generic) else value


def finite(values: np.ndarray, raw: Any, field: str, where: Any) -> np.ndarray:
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        shown = raw[row] if raw is not None else values[row]
        raise GradedInputError(
            f"{where(row)}: {field} {plain(shown)!r} is not a finite number"
            + (f" ({int(bad.sum())} such rows in all)" if bad.sum() > 1 else "")
        )
    return values


def _not_a_number(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_, complex, np.complexfloating)) or not isinstance(
        value, (numbers.Real, np.number, decimal.Decimal))


def list_values(col: list, kind: str, field: str, where: Any) -> np.ndarray:
    types = set(map(type, col))
    if not types <= {float, int}:
        for row, value in enumerate(col):
            if isinstance(value, (bool, np.bool_, complex, np.complexfloating)):
                raise GradedInputError(f"{where(row)}: {field} {plain(value)!r} is a {type(plain(value)).__name__}, "
                                       "not a real number")
            if value is not None and _not_a_number(value):  # '2' or b'2' is text, however it reads: say so
                kind_of = "str" if isinstance(value, str) else "bytes" if isinstance(value, bytes) else type(value).__name__
                raise GradedInputError(f"{where(row)}: {field} {plain(value)!r} is a {kind_of}, "
                                       "not a number")  # numpy's str_ (older pandas) is a str to the user
    try:
        values = np.asarray([np.nan if v is None else v for v in col] if type(None) in types else col,
                            dtype=np.float64)
    except OverflowError:  # a Python int beyond float64
        row = next(i for i, v in enumerate(col) if isinstance(v, numbers.Integral) and _beyond_float(v))
        raise GradedInputError(f"{where(row)}: {field} (an integer of {int(col[row]).bit_length()} bits) is not a "
                               "finite number: beyond float64's range") from None
    return finite(values, col, field, where)


def _beyond_float(value: numbers.Integral) -> bool:
    try:
        float(value)
    except OverflowError:
        return True
    return False
