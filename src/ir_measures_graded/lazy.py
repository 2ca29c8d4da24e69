"""Modules loaded on first use, so that importing the package, parsing measures and ``--help`` load
neither numpy nor pandas: only computing a value does.

One mechanism: :func:`lazy_module`, a module of this package as a real module object in
``sys.modules``, executed when one of its attributes is first read. A package naming attributes
of such modules (``ir_measures_graded.read_qrels``) gets its PEP 562 ``__getattr__`` from
:func:`lazy_attributes`, which reads them from :func:`lazy_module`. Third-party libraries are
imported where they are used (a function-level ``import``). Unlike ``importlib.util.LazyLoader``
on Python < 3.12.3, the first use is thread-safe: a module is executed once, under a lock, and no
thread sees it half executed.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from collections.abc import Callable, Mapping
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
                        self.__class__ = ModuleType  # type: ignore[assignment]  # a plain module from now on
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


def lazy_attributes(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's PEP 562 ``__getattr__``: ``where[name]`` is the module of this package (loaded
    by :func:`lazy_module` when the name is first read) that defines ``name``, or the subpackage
    ``package.name`` itself (imported as it is: it may set its own module class)."""

    def __getattr__(name: str) -> Any:
        if name in where:
            if where[name] == f"{package}.{name}":
                return importlib.import_module(where[name])
            return getattr(lazy_module(where[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def require(module: str, extra: str, what: str) -> None:
    """An ImportError of one line naming the extra that installs ``module``, when it is missing: every
    optional feature says so the same way (``what`` needs it)."""
    if importlib.util.find_spec(module) is None:
        raise ImportError(f"{what} needs {module}: pip install 'ir-measures-graded[{extra}]'")
