"""Every registered measure (``ir_measures_graded.measures.MEASURES``) as test inputs.

Tests parametrised over these cover a new measure as soon as its module registers it: the
differential, fuzz, streaming and Spark-parity tests take their measures from here, and
:mod:`reference` must hold a slow reference for each (test_reference_differential checks that).
"""

from __future__ import annotations

from ir_measures_graded.measures import MEASURES, GradedMeasure, params
from ir_measures_graded.measures.base import all_measures


def any_labels(measure: GradedMeasure) -> GradedMeasure:
    """``measure`` set to take labels of any size: a scale's top (ERR's ``g_max``) refuses grades above
    it unless its normaliser maps the labels onto the scale (``norm='query'``)."""
    for param in measure.SUPPORTED_PARAMS.values():
        if isinstance(param, params.ScaleTop):
            return measure(**{param.unless: "query"})
    return measure


def instances(cutoff: int = 5) -> list[GradedMeasure]:
    """One instance of every registered measure, taking any labels: with ``@cutoff`` where the
    measure requires a cutoff."""
    return [any_labels(m) for m in all_measures(cutoff)]


def with_cutoff(cutoff: int) -> list[GradedMeasure]:
    """Every registered measure that takes a cutoff, at ``cutoff`` (taking any labels)."""
    return [any_labels(m) @ cutoff for m in MEASURES.values() if "cutoff" in m.SUPPORTED_PARAMS]


def reference_args(measure: GradedMeasure) -> tuple[str, dict]:
    """``(name, params)`` as :func:`reference.per_query` takes them."""
    return measure.NAME, dict(measure.params)
