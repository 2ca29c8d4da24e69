"""Everything importing ``ir_measures_graded`` changes outside it, in one place, and how to undo it.

:func:`install` runs when the package is imported; :func:`uninstall` restores every object it
changed (the same objects, not copies). The changes, and why each is needed:

1. **Measure names** in ``ir_measures.measures.registry`` (and in ``pyterrier.measures``: set here
   when PyTerrier was imported first; PyTerrier imported later copies them from that registry
   itself): so that ``ir_measures.parse_measure('muMAP')`` and ``pt.measures.muMAP`` work.
   ``uninstall()`` removes them from both, whichever was imported first.
2. **The ``graded`` provider** in ``ir_measures.providers.registry`` and appended to
   ``ir_measures.DefaultPipeline.providers``: so that ``ir_measures.calc_aggregate([muMAP, AP], ...)``
   sends our measures to us and the others to their usual providers.
3. **Result order and inputs**: ``DefaultPipeline`` groups measures by provider through Python
   sets, so the order of its results followed ``PYTHONHASHSEED``. An instance attribute
   ``_evaluator`` on that one object (its class is untouched) returns evaluators whose measures are
   in the caller's order, and which read what ir_measures alone cannot read, by **one rule for
   every list of measures** (ours, standard ones, or both; ``ir_measures.calc_aggregate``,
   ``iter_calc``, ``calc``, ``evaluator`` and a measure's own ``calc_aggregate``...): qrels and runs
   given as a file path (TREC text, plain or gzip; Parquet; Arrow IPC), an Arrow table, record
   batch or reader, or a polars DataFrame or LazyFrame are read by this package's readers. So with
   the package imported ``ir_measures.calc_aggregate([AP], 'qrels.txt', 'run.txt')`` works, where
   ir_measures alone answers "unknown qrels format". No value changes: what ir_measures reads itself
   (pandas DataFrames, dicts of dicts, named tuples, generators) is passed on untouched; the other
   providers get the rows as a pandas DataFrame, ours as Arrow columns (a run path or record batch
   reader streamed by query batches when only our measures read it). Generators of named tuples
   (``ir_measures.read_trec_qrels(path)``, ``read_trec_run(path)``) are passed on as they are: our
   provider reads them a chunk at a time into Arrow columns (:mod:`.io.tuples`), the run streamed
   by query batches.
4. **``ir_measures.parse_trec_measure``** is wrapped: PyTerrier turns ``eval_metrics=['muMAP', 'map']``
   into measures with it, and it knows trec_eval's names only. A name it rejects that names one of
   our measures is read by ``parse_measure``; every trec_eval name parses as before.
   ``ir_measures.read_trec_qrels(path)`` and ``read_trec_run(path)`` are iterated as ir_measures
   yields them (nothing reads their generators' frames for the path): for speed, and for
   real-valued labels, give the path or our readers' tables (``ir_measures_graded.read_qrels``).
5. **OHSUMED datasets** are registered with ``ir_datasets`` (extra ``datasets``): at once if it is
   imported, else when it is first imported — a ``sys.meta_path`` finder that answers for the name
   ``ir_datasets`` only, once, and then removes itself (Python has no narrower post-import hook).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

import ir_measures
from ir_measures import providers

from ir_measures_graded.measures import MEASURES, GradedMeasure, base
from ir_measures_graded.provider import GradedProvider

_MISSING = object()

#: What :func:`install` changed, to be restored by :func:`uninstall`; None when not installed.
_saved: dict[str, Any] | None = None
#: The ``graded`` provider (the same object on every install).
_provider: GradedProvider | None = None


# --- 1. measure names -------------------------------------------------------------------------------

def _register_names(measure: GradedMeasure) -> None:
    """``measure``'s name and aliases in ir_measures' registry (and PyTerrier's copy, if loaded)."""
    assert _saved is not None
    registry = ir_measures.measures.registry
    pt_measures = sys.modules.get("pyterrier.measures")
    for name in [measure.NAME, *measure.ALIASES]:
        existing = registry.get(name)
        if existing is None:
            _saved["registry"].setdefault(name, _MISSING)
            registry[name] = measure
        elif type(existing).__name__ != type(measure).__name__ or existing.NAME != measure.NAME:
            raise RuntimeError(f"measure name {name!r} is already registered to {existing!r}")
        if pt_measures is not None:
            _saved["pyterrier"].setdefault(name, getattr(pt_measures, name, _MISSING))
            setattr(pt_measures, name, registry[name])


# --- 3. result order --------------------------------------------------------------------------------

def in_given_order(evaluator: providers.Evaluator, measures: list[ir_measures.Measure]) -> providers.Evaluator:
    """``evaluator`` with its measures (and its sub-evaluators' measures) in the order of ``measures``."""
    rank = {measure: i for i, measure in enumerate(dict.fromkeys(measures))}

    def reorder(ev: providers.Evaluator) -> None:
        ev.measures = sorted(ev.measures, key=lambda m: rank.get(m, len(rank)))
        for sub in getattr(ev, "evaluators", ()):
            reorder(sub)

    reorder(evaluator)
    return evaluator


def _ordered_evaluator(pipeline: Any, measures: Iterable[ir_measures.Measure], qrels: Any) -> providers.Evaluator:
    measures = list(measures)  # may be a generator; read once
    several = not all(isinstance(m, GradedMeasure) for m in measures)  # other providers read the inputs too
    evaluator = type(pipeline)._evaluator(pipeline, measures, readable(qrels, "qrels", several))
    # Every evaluator, whichever providers it holds (one rule: see the module docstring, change 3)
    evaluator._iter_calc = functools.partial(_read_run_then, evaluator._iter_calc, several)
    return in_given_order(evaluator, measures)


def _read_run_then(iter_calc: Callable[[Any], Any], several: bool, run: Any) -> Any:
    """``iter_calc`` of the run in a form its providers read (a partial of this, not a lambda:
    an evaluator stays as picklable as its providers' evaluators are)."""
    return iter_calc(readable(run, "run", several))


def readable(obj: Any, kind: str, several: bool) -> Any:
    """``obj`` in a form every provider that reads it reads, if only this package reads it as given.

    ``ir_measures``' converters iterate anything iterable: a polars DataFrame (its columns), a
    file path (its characters), and they know no Arrow. So for ``several`` providers (any measure
    not ours) a path, a polars DataFrame or LazyFrame and an Arrow table, record batch or reader
    become a pandas DataFrame. For ours alone, a qrels path, a polars frame and an Arrow record
    batch or qrels reader become an Arrow table, and a run path a :func:`.io.stream.scan_run`
    (streamed by query batches, as an Arrow record batch reader is). Anything else is passed on.
    """
    import os

    module = type(obj).__module__ or ""
    if isinstance(obj, (str, os.PathLike)):
        if kind == "run" and not several:
            from ir_measures_graded.io.stream import scan_run

            return scan_run(obj)
        from ir_measures_graded.io.readers import read_qrels_table, read_run_table

        obj = (read_qrels_table if kind == "qrels" else read_run_table)(obj)
    elif module.startswith("polars"):
        obj = (obj.collect() if hasattr(obj, "collect") else obj).to_arrow()
    elif module.startswith("pyarrow"):  # pyarrow is imported only for its own objects (small inputs need none)
        import pyarrow as pa

        if isinstance(obj, pa.RecordBatchReader) and kind == "run" and not several:
            return obj  # streamed by the graded provider
        if isinstance(obj, pa.RecordBatchReader):
            obj = obj.read_all()
        elif isinstance(obj, pa.RecordBatch):
            obj = pa.Table.from_batches([obj])
        elif not isinstance(obj, pa.Table):
            return obj
    else:
        return obj
    if not several:
        return obj
    value = "relevance" if kind == "qrels" else "score"
    return obj.select(["query_id", "doc_id", value]).to_pandas() if value in obj.column_names else obj.to_pandas()


# --- 4. parse_trec_measure --------------------------------------------------------------------------

def graded_measure(text: str) -> GradedMeasure | None:
    """The measure of this package that ``text`` names, or None."""
    try:
        measure = ir_measures.parse_measure(text)
    except (NameError, ValueError, SyntaxError):
        return None
    return measure if isinstance(measure, GradedMeasure) else None


def _reading_our_names(trec_only: Callable[[str], list]) -> Callable[[str], list]:
    @functools.wraps(trec_only)
    def parse_trec_measure(measure: str) -> list[ir_measures.Measure]:
        try:
            return trec_only(measure)
        except ValueError:
            ours = graded_measure(measure)
            if ours is None:
                raise
            return [ours]

    return parse_trec_measure


# --- 5. ir_datasets ---------------------------------------------------------------------------------

class _AfterImport:  # a meta path finder (find_spec); importlib.abc is slow to import
    """Runs ``then()`` right after the module ``name`` has been imported (once), wherever from."""

    def __init__(self, name: str, then: Callable[[], None]):
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


_OHSUMED = "ir_measures_graded.datasets.ohsumed"


def _register_datasets() -> None:
    try:
        ohsumed = importlib.import_module(_OHSUMED)  # registers them when first imported
    except ImportError:  # pragma: no cover - ir_datasets without a dependency of ours
        return
    if hasattr(ohsumed, "register"):  # not when that import is the one under way (it registers at its end)
        ohsumed.register()


# --- install / uninstall ----------------------------------------------------------------------------

def install() -> GradedProvider:
    """Make every change listed in the module docstring (idempotent); returns the ``graded`` provider."""
    global _saved, _provider
    if _saved is not None:
        return providers.registry[GradedProvider.NAME]
    _saved = {"registry": {}, "pyterrier": {}, "finder": None}
    for measure in MEASURES.values():
        _register_names(measure)
    base.on_register.append(_register_names)  # measures registered later are named too

    existing = providers.registry.get(GradedProvider.NAME, _MISSING)
    if isinstance(existing, GradedProvider):  # a provider of this package loaded before (a module reload)
        _provider = existing
    provider = _provider = _provider or GradedProvider()
    _saved["provider"] = existing
    providers.registry[GradedProvider.NAME] = provider
    pipeline = ir_measures.DefaultPipeline
    _saved["appended"] = not any(getattr(p, "NAME", None) == GradedProvider.NAME for p in pipeline.providers)
    if _saved["appended"]:
        pipeline.providers.append(provider)

    _saved["evaluator"] = vars(pipeline).get("_evaluator", _MISSING)
    pipeline._evaluator = types.MethodType(_ordered_evaluator, pipeline)

    _saved["parse_trec_measure"] = ir_measures.parse_trec_measure
    ir_measures.parse_trec_measure = _reading_our_names(ir_measures.parse_trec_measure)

    if "ir_datasets" in sys.modules:
        _register_datasets()
    elif importlib.util.find_spec("ir_datasets") is not None:
        _saved["finder"] = _AfterImport("ir_datasets", _register_datasets)
        sys.meta_path.insert(0, _saved["finder"])
    return provider


def uninstall() -> None:
    """Undo :func:`install`: every changed object gets back exactly what it held before."""
    global _saved
    if _saved is None:
        return
    saved, _saved = _saved, None
    base.on_register.remove(_register_names)
    # PyTerrier imported after install() copied our measures from the registry into pyterrier.measures
    # itself (install() saw no module to record): the names bound to our objects there go too.
    pt_measures = sys.modules.get("pyterrier.measures")
    if pt_measures is not None:
        for name in saved["registry"]:
            ours = ir_measures.measures.registry.get(name)
            if name not in saved["pyterrier"] and ours is not None and vars(pt_measures).get(name) is ours:
                saved["pyterrier"][name] = _MISSING
    for name, previous in saved["registry"].items():
        if previous is _MISSING:
            ir_measures.measures.registry.pop(name, None)
        else:
            ir_measures.measures.registry[name] = previous
    for name, previous in saved["pyterrier"].items():
        if previous is _MISSING:
            if pt_measures is not None and hasattr(pt_measures, name):
                delattr(pt_measures, name)
        elif pt_measures is not None:
            setattr(pt_measures, name, previous)

    pipeline = ir_measures.DefaultPipeline
    provider = providers.registry.get(GradedProvider.NAME)
    if saved["appended"]:
        pipeline.providers[:] = [p for p in pipeline.providers if p is not provider]
    if saved["provider"] is _MISSING:
        providers.registry.pop(GradedProvider.NAME, None)
    else:
        providers.registry[GradedProvider.NAME] = saved["provider"]
    if saved["evaluator"] is _MISSING:
        vars(pipeline).pop("_evaluator", None)
    else:
        pipeline._evaluator = saved["evaluator"]

    ir_measures.parse_trec_measure = saved["parse_trec_measure"]

    if saved["finder"] is not None and saved["finder"] in sys.meta_path:
        sys.meta_path.remove(saved["finder"])
    if _OHSUMED in sys.modules and hasattr(sys.modules[_OHSUMED], "unregister"):
        sys.modules[_OHSUMED].unregister()

