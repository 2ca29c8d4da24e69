"""A module imported on first attribute access, so that a path that never uses it never loads it."""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """``pd = LazyModule("pandas")``: ``pd.DataFrame`` imports pandas then; ``--help`` does not."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"
