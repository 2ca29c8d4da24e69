"""The ir_measures and ir_datasets internals the integration touches (docs/upstream.md lists them, with the
upstream hook that would replace each): one test per internal, failing with a message that names the internal
and the installed version when upstream changes it, instead of an obscure failure elsewhere in the suite."""

from __future__ import annotations

import functools
import importlib.util
import inspect
from importlib.metadata import version

import ir_measures
import pytest
from ir_measures import Metric, providers
from ir_measures.measures import base as measures_base

import ir_measures_graded
from ir_measures_graded.provider import GradedEvaluator, GradedProvider


def changed(internal: str, what: str, package: str = "ir_measures") -> str:
    return (f"{package} {version(package)}: {internal} changed ({what}); the integration relies on it "
            f"(docs/upstream.md says what uses it and the upstream hook that would replace it)")


def parameters(function: object) -> list[str]:
    return list(inspect.signature(function).parameters)  # type: ignore[arg-type]


QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}}
RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}


def test_default_pipeline_evaluator_hook():
    """``DefaultPipeline._evaluator``: the integration sets an instance attribute on that one object;
    ``Provider.evaluator()`` (and so calc_aggregate, iter_calc, calc) must call ``self._evaluator(measures, qrels)``."""
    pipeline = ir_measures.DefaultPipeline
    internal = "DefaultPipeline._evaluator"
    assert isinstance(pipeline, providers.FallbackProvider), changed(internal, f"DefaultPipeline is a {type(pipeline)}")
    assert parameters(type(pipeline)._evaluator) == ["self", "measures", "qrels"], changed(
        internal, f"signature {inspect.signature(type(pipeline)._evaluator)}")
    assert "self._evaluator(" in inspect.getsource(providers.Provider.evaluator), changed(
        internal, "Provider.evaluator no longer calls self._evaluator")
    assert isinstance(vars(pipeline).get("_evaluator"), type(pipeline.evaluator)), changed(
        internal, "the instance attribute is not in place after import")
    evaluator = ir_measures.evaluator([ir_measures.AP, ir_measures_graded.muMAP], QRELS)
    assert isinstance(evaluator._iter_calc, functools.partial), changed(internal, "our _evaluator was not called")


def test_evaluator_iter_calc_hook():
    """``Evaluator._iter_calc``: set on each evaluator (an instance attribute), called by ``iter_calc(run)``."""
    internal = "Evaluator._iter_calc"
    assert parameters(providers.Evaluator._iter_calc) == ["self", "run"], changed(
        internal, f"signature {inspect.signature(providers.Evaluator._iter_calc)}")
    evaluator = providers.Evaluator([ir_measures.AP], ["q1"])
    metric = Metric(query_id="q1", measure=ir_measures.AP, value=0.5)
    evaluator._iter_calc = lambda run: iter([metric])  # type: ignore[method-assign]
    assert list(evaluator.iter_calc(RUN)) == [metric], changed(internal, "iter_calc does not call self._iter_calc")


def test_evaluator_constructor_and_fields():
    """``Evaluator(measures, qrel_qids)`` (GradedEvaluator calls it) and its ``measures`` field, and a fallback
    evaluator's ``evaluators`` (the integration puts each one's measures in the caller's order)."""
    internal = "Evaluator.__init__ / .measures / FallbackEvaluator.evaluators"
    assert parameters(providers.Evaluator.__init__) == ["self", "measures", "qrel_qids"], changed(
        internal, f"signature {inspect.signature(providers.Evaluator.__init__)}")
    evaluator = ir_measures.evaluator([ir_measures_graded.muMAP, ir_measures.AP], QRELS)
    assert [str(m) for m in evaluator.measures] == ["muAP", "AP"], changed(internal, "measures not in order")
    subs = getattr(evaluator, "evaluators", None)
    assert subs is not None and any(isinstance(e, GradedEvaluator) for e in subs), changed(
        internal, "no `evaluators` on the fallback evaluator")


def test_pipeline_providers_list():
    """``DefaultPipeline.providers``: a list the graded provider is appended to, read by ``_evaluator``."""
    internal = "DefaultPipeline.providers"
    providers_list = getattr(ir_measures.DefaultPipeline, "providers", None)
    assert isinstance(providers_list, list), changed(internal, f"a {type(providers_list)}, not a list")
    assert any(isinstance(p, GradedProvider) for p in providers_list), changed(internal, "the provider is not in it")


def test_provider_registry():
    """``ir_measures.providers.registry``: a dict from NAME to provider (``graded`` is set and popped)."""
    internal = "ir_measures.providers.registry"
    registry = getattr(providers, "registry", None)
    assert isinstance(registry, dict), changed(internal, f"a {type(registry)}, not a dict")
    assert isinstance(registry.get("graded"), GradedProvider), changed(internal, "graded is not registered")


def test_measure_registry():
    """``ir_measures.measures.registry``: a dict from name to measure that ``parse_measure`` reads."""
    internal = "ir_measures.measures.registry"
    registry = getattr(ir_measures.measures, "registry", None)
    assert isinstance(registry, dict), changed(internal, f"a {type(registry)}, not a dict")
    assert registry.get("muMAP") is ir_measures_graded.muMAP, changed(internal, "muMAP is not in it")
    assert ir_measures.parse_measure("muMAP@10") == ir_measures_graded.muMAP @ 10, changed(
        internal, "parse_measure does not read it")


def test_parse_trec_measure_is_looked_up_at_call_time():
    """``ir_measures.parse_trec_measure``: wrapped in place; its callers (PyTerrier's eval_metrics) import it
    at call time, so the module attribute is what they get."""
    internal = "ir_measures.parse_trec_measure"
    assert parameters(ir_measures.parse_trec_measure) == ["measure"], changed(
        internal, f"signature {inspect.signature(ir_measures.parse_trec_measure)}")
    assert ir_measures.parse_trec_measure("map") == [ir_measures.AP], changed(internal, "'map' is no longer [AP]")
    assert ir_measures.parse_trec_measure("muMAP") == [ir_measures_graded.muMAP], changed(
        internal, "the wrapper is not in place")


def test_any_parameter_placeholder():
    """``ir_measures.providers.base.Any``: the parameter placeholder of ``SUPPORTED_MEASURES``."""
    internal = "ir_measures.providers.base.Any"
    placeholder = getattr(providers.base, "Any", None)
    assert inspect.isclass(placeholder), changed(internal, "missing")
    assert placeholder().validate(10) is True, changed(internal, "Any().validate(10) is not True")
    supported = {m.NAME for m in GradedProvider().SUPPORTED_MEASURES}
    assert "muAP" in supported, changed(internal, "SUPPORTED_MEASURES could not be built with it")


def test_aggregator_bases():
    """``ir_measures.measures.base.Agg`` (CollectionMean) and ``MeanAgg`` (Mean: its ``sum`` and ``count``
    fields merge Spark partitions): ``add(value)`` and ``result()``."""
    internal = "ir_measures.measures.base.Agg / MeanAgg"
    for name in ("Agg", "MeanAgg"):
        assert inspect.isclass(getattr(measures_base, name, None)), changed(internal, f"{name} missing")
    assert parameters(measures_base.Agg.add) == ["self", "value"], changed(internal, "Agg.add(value) changed")
    agg = measures_base.MeanAgg()
    agg.add(1.0)
    agg.add(0.0)
    assert (agg.sum, agg.count, agg.result()) == (1.0, 2, 0.5), changed(internal, "MeanAgg's sum/count/result")


def test_param_info():
    """``ir_measures.measures.base.ParamInfo``: the base of our measures' parameters."""
    internal = "ir_measures.measures.base.ParamInfo"
    assert parameters(measures_base.ParamInfo.__init__) == ["self", "dtype", "required", "choices", "default",
                                                             "desc"], changed(
        internal, f"signature {inspect.signature(measures_base.ParamInfo.__init__)}")


def test_ir_datasets_registry_internals():
    """``ir_datasets.registry._registered``: the dict our OHSUMED ids are popped from (the registry has no
    unregister); ``ir_datasets.registry.register(name, dataset)`` adds them."""
    ir_datasets = pytest.importorskip("ir_datasets")
    internal = "ir_datasets.registry._registered"
    registered = getattr(ir_datasets.registry, "_registered", None)
    assert isinstance(registered, dict), changed(internal, f"a {type(registered)}, not a dict", "ir_datasets")
    assert parameters(ir_datasets.registry.register) == ["name", "obj"], changed(
        "ir_datasets.registry.register", f"signature {inspect.signature(ir_datasets.registry.register)}", "ir_datasets")
    assert "ohsumed" in registered, changed(internal, "our datasets are not in it", "ir_datasets")


def test_ir_datasets_loader_can_be_wrapped():
    """The ``sys.meta_path`` finder (registration when ir_datasets is first imported) wraps the ``exec_module`` of
    ir_datasets' loader: ir_datasets must be a package with a loader that has one."""
    pytest.importorskip("ir_datasets")
    internal = "ir_datasets' module loader (exec_module, wrapped by integration._AfterImport)"
    spec = importlib.util.find_spec("ir_datasets")
    assert spec is not None and spec.loader is not None, changed(internal, "no loader", "ir_datasets")
    assert callable(getattr(spec.loader, "exec_module", None)), changed(internal, "no exec_module", "ir_datasets")
    spec.loader.exec_module = spec.loader.exec_module  # type: ignore[method-assign]  # as the finder sets it


def test_ir_datasets_names_the_ohsumed_module_uses():
    """The ir_datasets names datasets/ohsumed.py builds its datasets from."""
    pytest.importorskip("ir_datasets")
    missing = []
    for module, names in {"ir_datasets.datasets.base": ["Dataset", "YamlDocumentation"],
                          "ir_datasets.formats": ["BaseDocs", "BaseQrels", "BaseQueries", "TrecQrel"],
                          "ir_datasets.indices": ["DEFAULT_DOCSTORE_OPTIONS", "PickleLz4FullStore"],
                          "ir_datasets.util": ["home_path"], "ir_datasets.lazy_libs": ["yaml"]}.items():
        loaded = importlib.import_module(module)
        missing += [f"{module}.{name}" for name in names if not hasattr(loaded, name)]
    assert not missing, changed(", ".join(missing), "missing", "ir_datasets")


def test_plugin_entry_point_declared_and_loads():
    """The ``ir_measures.plugins`` entry point (the group an upstream plugin hook would read, docs/upstream.md) is
    in the installed metadata and loads the package, whose import registers the measures and the provider."""
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group="ir_measures.plugins") if ep.dist and ep.dist.name == "ir-measures-graded"]
    assert [ep.name for ep in found] == ["graded"], "no ir_measures.plugins entry point: pip install -e . again"
    assert found[0].load() is ir_measures_graded
    assert ir_measures.measures.registry.get("muMAP") is ir_measures_graded.muMAP
