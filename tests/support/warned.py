"""A warning is a failure, but for the one line every entry point gives on purpose about a run none of whose
retrieved documents is judged (``provider.nothing_judged``): random collections draw such runs, and their
values (0) are checked all the same."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator

#: The start of the deliberate line (a regex, as ``warnings.filterwarnings`` matches it from the start).
NOTHING_JUDGED = r".*: none of its \d+ retrieved documents of the judged queries is judged"


@contextlib.contextmanager
def no_warning() -> Iterator[None]:
    """Every warning raised as an error (no numpy warning on the way to a value) but :data:`NOTHING_JUDGED`."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=NOTHING_JUDGED)
        yield
