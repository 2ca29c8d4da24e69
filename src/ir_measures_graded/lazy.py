"""Modules loaded on first use, so that importing the package, parsing measures and ``--help`` load
neither numpy nor pandas: only computing a value does.

Two ways, for two kinds of module: :func:`lazy_module` for this package's own modules (a real
module object in ``sys.modules``, executed when an attribute is first read), and
:class:`LazyModule` for third-party libraries (a stand-in that imports the library on first
attribute access and leaves ``sys.modules`` alone until then). Unlike ``importlib.util.LazyLoader``
on Python < 3.12.3, the first use of either is thread-safe: a module is executed once, under a
lock, and no thread sees it half executed.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

_LOCK = threading.RLock()  # creating stand-ins, and executing them: one thread at a time
#: What the import system set from the module's spec: read without executing the module (tools
#: that walk ``sys.modules`` for ``__file__`` must not load numpy, or a module that fails to load).
_SPEC_NAMES = frozenset({"__name__", "__spec__", "__loader__", "__file__", "__path__", "__package__", "__cached__"})


class _Unloaded(ModuleType):
    """A module not executed yet: the first attribute read executes it (then it is a plain module)."""

    def __getattribute__(self, attr: str) -> Any:
        if type(self) is _Unloaded and attr not in _SPEC_NAMES:
            namespace = ModuleType.__getattribute__(self, "__dict__")
            with _LOCK:  # threads arriving while the module executes wait here, then see it whole
                if type(self) is _Unloaded and "__loading__" not in namespace:
                    namespace["__loading__"] = True  # reads made by the module's own code while it executes
                    try:
                        namespace["__spec__"].loader.exec_module(self)
                        self.__class__ = ModuleType
                    finally:
                        namespace.pop("__loading__", None)
        return ModuleType.__getattribute__(self, attr)


def lazy_module(name: str) -> ModuleType:
    """``name`` as a module object that is executed when one of its attributes is first read."""
    with _LOCK:
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:  # pragma: no cover - our own modules always have a spec
            raise ImportError(f"no module named {name!r}")
        module = importlib.util.module_from_spec(spec)
        module.__class__ = _Unloaded
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent in sys.modules:  # as an import does: ``import a.b`` then ``a.b`` finds it
            setattr(sys.modules[parent], child, module)
        return module


class LazyModule:
    """``pd = LazyModule("pandas")``: ``pd.DataFrame`` imports pandas then; ``--help`` does not."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def require(module: str, extra: str, what: str) -> None:
    """An ImportError of one line naming the extra that installs ``module``, when it is missing: every
    optional feature says so the same way (``what`` needs it)."""
    if importlib.util.find_spec(module) is None:
        raise ImportError(f"{what} needs {module}: pip install 'ir-measures-graded[{extra}]'")
