"""Every registered measure (``ir_measures_graded.measures.MEASURES``) as test inputs.

Tests parametrised over these cover a new measure as soon as its module registers it: the
differential, fuzz, streaming and Spark-parity tests take their measures from here, and
:mod:`reference` must hold a slow reference for each (test_reference_differential checks that).
"""

from __future__ import annotations

from ir_measures_graded.measures import MEASURES, GradedMeasure


def instances(cutoff: int = 5) -> list[GradedMeasure]:
    """One instance of every registered measure: with ``@cutoff`` where the measure requires a cutoff."""
    return [m @ cutoff if getattr(m.SUPPORTED_PARAMS.get("cutoff"), "required", False) else m
            for m in MEASURES.values()]


def with_cutoff(cutoff: int) -> list[GradedMeasure]:
    """Every registered measure that takes a cutoff, at ``cutoff``."""
    return [m @ cutoff for m in MEASURES.values() if "cutoff" in m.SUPPORTED_PARAMS]


def reference_args(measure: GradedMeasure) -> tuple[str, dict]:
    """``(name, params)`` as :func:`reference.per_query` takes them."""
    return measure.NAME, dict(measure.params)
