"""Modules loaded on first use, so that importing the package and parsing measures do not load
numpy: only computing a value does.

The stand-in is registered in ``sys.modules`` (an ``import`` of the module elsewhere finds it,
still unloaded). Unlike ``importlib.util.LazyLoader`` on Python < 3.12.3, the first use is
thread-safe: the module is executed once, under a lock, and no thread sees it half executed.
"""

from __future__ import annotations

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
