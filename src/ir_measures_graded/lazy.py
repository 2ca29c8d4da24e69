"""Modules loaded on first use, so that importing the package, parsing measures and ``--help`` load
neither numpy nor pandas: only computing a value does.

Two ways, for two kinds of module: :func:`lazy_module` for this package's own modules (a real
module object, executed when an attribute is first read: ``importlib.util.LazyLoader``), and
:class:`LazyModule` for third-party libraries (a stand-in that imports the library on first
attribute access and leaves ``sys.modules`` alone until then).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Any


def lazy_module(name: str) -> ModuleType:
    """``name`` as a module object that is executed when one of its attributes is first read."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:  # pragma: no cover - our own modules always have a spec
        raise ImportError(f"no module named {name!r}")
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


class LazyModule:
    """``pd = LazyModule("pandas")``: ``pd.DataFrame`` imports pandas then; ``--help`` does not."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"
