"""Judging measures on your own judgments and runs: does a measure depend on the rating scale, is it
stable, is it discriminative, how many queries does it need?

Each function takes an :class:`~ir_measures_graded.experiments.Experiment` and returns a tidy DataFrame; any ir_measures measure works, ours and the standard ones:

- :func:`scale_dependence` (:mod:`.scale`): relabel the qrels and compare the system rankings;
- :func:`stability`, :func:`discriminative_power`, :func:`topic_set_sizes` (:mod:`.judging`);
- :func:`meta_evaluate` (:mod:`.evaluate`): all of them, and every run against a baseline.

Comparing runs against a baseline is the experiment's (``experiment(...).compare()``); the tests are
:mod:`ir_measures_graded.statistics`; the tables are :mod:`ir_measures_graded.experiments.tables`.
"""

from ir_measures_graded.meta.evaluate import MetaReport, meta_evaluate
from ir_measures_graded.meta.inputs import scores
from ir_measures_graded.meta.judging import (
    TESTS,
    discriminative_power,
    query_halves,
    stability,
    topic_set_sizes,
)
from ir_measures_graded.meta.scale import default_transforms, scale_dependence
from ir_measures_graded.meta.transforms import Transform, parse_transform

__all__ = [
    "Transform", "parse_transform", "scores", "scale_dependence", "stability", "discriminative_power",
    "topic_set_sizes", "query_halves", "meta_evaluate", "MetaReport", "default_transforms", "TESTS",
]
