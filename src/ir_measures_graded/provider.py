"""How ir_measures calls us: the ``graded`` provider and its evaluator.

:mod:`.integration` registers the provider in ``ir_measures.providers.registry`` and appends it to
``ir_measures.DefaultPipeline``, so ``ir_measures.calc_aggregate([muMAP, nDCNG@10, AP], ...)``
sends our measures here and the others to their usual providers. Every value comes from
:func:`.core.evaluate`.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import ir_measures
from ir_measures import Metric, providers
from ir_measures.providers.base import Any as AnyParam

from ir_measures_graded.lazy import lazy_module
from ir_measures_graded.measures import MEASURES, GradedMeasure

core = lazy_module("ir_measures_graded.core")  # numpy, the readers: loaded when a run is scored
prepare = lazy_module("ir_measures_graded.prepare")


class GradedProvider(providers.Provider):
    """
    ir_measures_graded: the measures for multi-graded relevance registered in ``measures.MEASURES``.

    Vectorised numpy over sorted arrays; relevance labels may be real numbers. Ranking conventions
    follow ir_measures' default pytrec_eval provider (scores as float32, descending; ties by doc id
    descending; queries only in the run skipped; queries only in the qrels score 0). What it
    supports and how it computes each measure are read from the registered measures
    (:data:`ir_measures_graded.measures.MEASURES`).
    """

    NAME = "graded"

    @property
    def SUPPORTED_MEASURES(self) -> list[GradedMeasure]:  # noqa: N802 - ir_measures' attribute name
        return [type(m)(**{name: AnyParam() for name in m.SUPPORTED_PARAMS}) for m in MEASURES.values()]

    def supports(self, measure: ir_measures.Measure) -> bool:
        registered = MEASURES.get(getattr(measure, "NAME", None))
        if registered is None or type(measure) is not type(registered):
            return False
        measure.validate_params()  # a wrong parameter is a clear error, not "unsupported measure"
        return True

    def _evaluator(self, measures: Iterable[ir_measures.Measure], qrels: Any) -> GradedEvaluator:
        measures = list(measures)
        for measure in measures:
            if not self.supports(measure):
                raise ValueError(f"the graded provider does not compute {measure}")
        return GradedEvaluator(measures, prepare.Judgments.from_qrels(qrels))


class GradedEvaluator(providers.Evaluator):
    """Scores runs against judgments prepared once (qrels-side work is cached across runs).

    Safe to share between threads: each call ranks its own run, and what is cached from the
    judgments is computed once under a lock and read-only.
    """

    def __init__(self, measures: list[GradedMeasure], judgments: prepare.Judgments):
        super().__init__(measures, list(judgments.query_ids))
        self.judgments = judgments
        self._sink = threading.local()  # per thread: where the runs scored inside counting() count their rows

    @contextlib.contextmanager
    def counting(self) -> Iterator[dict[str, int]]:
        """Counts of the runs this thread scores inside the block, from the join the scoring makes anyway:
        ``ranked`` (rows of the judged queries) and ``judged`` (those whose document is judged)."""
        sink = {"ranked": 0, "judged": 0}
        self._sink.counts = sink
        try:
            yield sink
        finally:
            self._sink.counts = None

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        from ir_measures_graded.io.columns import Columns

        # files, record batch readers, iterators: query batch by batch; anything else (and columns
        # read already) whole
        evaluate = core.evaluate_run
        if not isinstance(run, Columns):
            from ir_measures_graded.io.stream import is_streamable

            evaluate = core.evaluate_stream if is_streamable(run) else core.evaluate_run
        counts = getattr(self._sink, "counts", None)
        if counts is not None:  # counted for a caller (an engine), which tells of a run judged nowhere
            yield from core.metrics(self.measures, self.judgments, evaluate(self.measures, self.judgments, run, counts))
            return
        # ir_measures' entry points (calc_aggregate, iter_calc, an evaluator): counted here, from the join
        # the scoring makes anyway, and told here
        own = {"ranked": 0, "judged": 0}
        yield from core.metrics(self.measures, self.judgments, evaluate(self.measures, self.judgments, run, own))
        if own["ranked"] and not own["judged"]:
            import warnings

            warnings.warn(nothing_judged("the run", own["ranked"]), stacklevel=2)


def nothing_judged(run: str, ranked: int) -> str:
    """The line telling that none of the ``ranked`` retrieved documents of the judged queries of ``run`` (``run x``,
    ``the run``) is judged: it scores 0 in silence otherwise, as in trec_eval. Every engine and entry point tells it."""
    return (f"{run}: none of its {ranked} retrieved documents of the judged queries is judged, so every query scores "
            "0: ids of another collection or level (passage ids against document qrels)?")
