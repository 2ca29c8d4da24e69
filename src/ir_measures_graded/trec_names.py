"""Our measure names where PyTerrier reads measure strings.

``pt.Experiment(..., eval_metrics=['muMAP', 'nDCNG@10', 'map'])`` turns each string into measures
with ``ir_measures.parse_trec_measure``, which knows trec_eval's names only; neither it nor
PyTerrier offers a hook for other names. :func:`install` therefore wraps that one public function
of ``ir_measures``: a string it rejects that names one of this package's measures (``muMAP``,
``µMAP``, ``nDCNG@10``, ``muAP(levels='collection')``, ...) is read by ``ir_measures.parse_measure``;
everything trec_eval knows parses exactly as before. PyTerrier then names the result columns as
the strings were written (``'muMAP'``), so ``round={'muMAP': 3}`` applies to them.
"""

from __future__ import annotations

import functools

import ir_measures

from ir_measures_graded.measures import GradedMeasure


def graded_measure(text: str) -> GradedMeasure | None:
    """The measure of this package that ``text`` names, or None."""
    try:
        measure = ir_measures.parse_measure(text)
    except (NameError, ValueError, SyntaxError):
        return None
    return measure if isinstance(measure, GradedMeasure) else None


def install() -> None:
    """Let ``ir_measures.parse_trec_measure`` read our names too (idempotent)."""
    trec_only = ir_measures.parse_trec_measure
    if getattr(trec_only, "reads_graded_names", False):
        return

    @functools.wraps(trec_only)
    def parse_trec_measure(measure: str) -> list[ir_measures.Measure]:
        try:
            return trec_only(measure)
        except ValueError:
            ours = graded_measure(measure)
            if ours is None:
                raise
            return [ours]

    parse_trec_measure.reads_graded_names = True
    ir_measures.parse_trec_measure = parse_trec_measure
