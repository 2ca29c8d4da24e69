"""The one exception type users see for bad qrels, runs or measure parameters, and how its messages name ids."""

from __future__ import annotations

from typing import Any


class GradedInputError(ValueError):
    """Bad input: the message names the file, line, query or parameter that is wrong.

    Subclasses :class:`ValueError`, so code that already catches ``ValueError`` around
    ``ir_measures`` calls keeps working.
    """


def as_text(id_: Any) -> str:
    """A query or document id as a message names it: the text it is compared as. Ids read as bytes (the
    small-file reader's, numpy ``S`` arrays) are decoded and pyarrow scalars give their value, so a message
    says ``doc0006``, never ``b'doc0006'`` or a scalar's repr. The one place ids become message text."""
    if hasattr(id_, "as_py"):  # a pyarrow scalar
        id_ = id_.as_py()
    if isinstance(id_, (bytes, bytearray)):  # numpy.bytes_ too
        return bytes(id_).decode("utf-8", errors="replace")
    return str(id_)
