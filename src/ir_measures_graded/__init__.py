"""ir-measures-graded: measures for multi-graded relevance as first-class ``ir_measures`` measures.

Importing this package registers µAP/µMAP, µP, NDCNG, meanNDCG and meanNDCNG with
``ir_measures`` (names and aliases usable in ``parse_measure``) and appends the ``graded``
provider to ``ir_measures.DefaultPipeline``::

    import ir_measures
    from ir_measures import AP, nDCG
    from ir_measures_graded import muMAP, nDCNG
    ir_measures.calc_aggregate([muMAP, nDCNG@10, AP, nDCG@10], qrels, run)

Importing is light: pandas, pyarrow, ir_datasets and pyterrier load only when a path needs them.
The OHSUMED collections are registered with ir_datasets when ir_datasets is imported (before or
after this package).

Scheel, Lommatzsch & Albayrak. Performance Measures for Multi-Graded Relevance. 2011.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from typing import TYPE_CHECKING, Any

from ir_measures_graded import measures as _measures
from ir_measures_graded import ordering, trec_names
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures import *  # noqa: F403 - every measure and alias (see measures/__init__.py)
from ir_measures_graded.provider import GradedEvaluator, GradedProvider, install

if TYPE_CHECKING:  # loaded on first use, see _LAZY
    from ir_measures_graded import report
    from ir_measures_graded.formats import read_qrels, read_qrels_table, read_run, read_run_table
    from ir_measures_graded.per_level import by_level, by_threshold
    from ir_measures_graded.scan import scan_run

__version__ = "0.1.0"

graded = install()
ordering.install()  # results in the order the measures were given, whatever the hash seed
trec_names.install()  # our names as PyTerrier's metric strings: eval_metrics=['muMAP', 'map']

#: Loaded on first use (PEP 562): name -> module.
_LAZY = {
    "by_level": "ir_measures_graded.per_level",
    "by_threshold": "ir_measures_graded.per_level",
    "scan_run": "ir_measures_graded.scan",
    "read_qrels": "ir_measures_graded.formats",
    "read_run": "ir_measures_graded.formats",
    "read_qrels_table": "ir_measures_graded.formats",
    "read_run_table": "ir_measures_graded.formats",
}


def __getattr__(name: str) -> Any:
    if name == "report":  # the report package, callable: ir_measures_graded.report(qrels, runs, measures)
        return importlib.import_module("ir_measures_graded.report")
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _register_datasets() -> None:
    try:
        importlib.import_module("ir_measures_graded.datasets.ohsumed")
    except ImportError:  # pragma: no cover - ir_datasets without a dependency of ours
        pass


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs ``then()`` right after the module ``name`` has been imported (once), wherever from."""

    def __init__(self, name: str, then: Any):
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        exec_module, then = spec.loader.exec_module, self.then

        def exec_and_register(module: Any) -> None:
            exec_module(module)
            then()

        spec.loader.exec_module = exec_and_register
        return spec


if "ir_datasets" in sys.modules:  # register the OHSUMED collections with ir_datasets (extra "datasets")
    _register_datasets()
elif importlib.util.find_spec("ir_datasets") is not None:
    sys.meta_path.insert(0, _AfterImport("ir_datasets", _register_datasets))

__all__ = [
    *(name for name in _measures.__all__ if name not in ("GradedMeasure", "MEASURES")),
    "GradedProvider", "GradedEvaluator", "GradedInputError",
    "graded", "install", "by_level", "by_threshold", "scan_run",
    "read_qrels", "read_run", "read_qrels_table", "read_run_table", "report",
    "__version__",
]
