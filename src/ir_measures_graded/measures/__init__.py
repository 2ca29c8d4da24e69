"""What is computed: the measure definitions, one module each, registered with ir_measures on import.

Every module here that defines ``__all__`` is a measure module: it is imported, which registers
its measures, and its names are exported from this package (and from ``ir_measures_graded``).
Adding a measure therefore needs no edit here.
"""

import importlib
import pkgutil

from ir_measures_graded.measures.base import MEASURES, GradedMeasure

__all__ = ["GradedMeasure", "MEASURES"]

for _module in pkgutil.iter_modules(__path__):
    _loaded = importlib.import_module(f"{__name__}.{_module.name}")
    for _name in getattr(_loaded, "__all__", ()) if _module.name not in ("base", "params") else ():
        globals()[_name] = getattr(_loaded, _name)
        __all__.append(_name)
