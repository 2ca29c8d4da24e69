"""ir-measures-graded: measures for multi-graded relevance as first-class ``ir_measures`` measures.

Importing this package registers every measure of :mod:`ir_measures_graded.measures` (µAP/µMAP,
µP, NDCNG, meanNDCG, meanNDCNG, GAP, ...) with ``ir_measures`` (names and aliases usable in
``parse_measure``) and appends the ``graded`` provider to ``ir_measures.DefaultPipeline``::

    import ir_measures
    from ir_measures import AP, nDCG
    from ir_measures_graded import muMAP, nDCNG
    ir_measures.calc_aggregate([muMAP, nDCNG@10, AP, nDCG@10], qrels, run)

Importing is light: pandas, pyarrow, ir_datasets and pyterrier load only when a path needs them.
The OHSUMED collections are registered with ir_datasets when ir_datasets is imported (before or
after this package). Everything importing changes outside the package is listed, and undone by
``ir_measures_graded.uninstall()``, in :mod:`ir_measures_graded.integration`.

Scheel, Lommatzsch & Albayrak. Performance Measures for Multi-Graded Relevance. 2011.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ir_measures_graded import measures as _measures
from ir_measures_graded._version import __version__
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.integration import install, uninstall
from ir_measures_graded.lazy import lazy_attributes
from ir_measures_graded.measures import *  # noqa: F403 - every measure and alias (see measures/__init__.py)
from ir_measures_graded.provider import GradedEvaluator, GradedProvider

if TYPE_CHECKING:  # loaded on first use, see _LAZY
    from ir_measures_graded import experiments, judges, organiser, reports
    from ir_measures_graded.experiments import experiment
    from ir_measures_graded.experiments.testing import Testing
    from ir_measures_graded.io import read_qrels, read_qrels_table, read_run, read_run_table, scan_run
    from ir_measures_graded.judges import agree, label_agreement
    from ir_measures_graded.organiser.agreement import agreement
    from ir_measures_graded.organiser.leaderboard import leaderboard
    from ir_measures_graded.organiser.pool import bounds, pool
    from ir_measures_graded.organiser.simulation import simulate_pools
    from ir_measures_graded.organiser.topics import topics
    from ir_measures_graded.per_level import by_level, by_threshold
    from ir_measures_graded.pooling import build_pool
    from ir_measures_graded.reports import report

#: Every change importing makes in ir_measures, PyTerrier and ir_datasets (see :mod:`.integration`;
#: ``uninstall()`` undoes them). ``graded`` is the provider ir_measures calls for our measures.
graded = install()

#: Loaded on first use (PEP 562, see :func:`.lazy.lazy_attributes`): name -> module.
_LAZY = {
    "report": "ir_measures_graded.reports",  # report(experiment): the HTML page of an experiment
    "experiment": "ir_measures_graded.experiments",  # experiment(qrels, runs, measures, baseline=...)
    "experiments": "ir_measures_graded.experiments",
    "reports": "ir_measures_graded.reports",
    # the testing options, one value: compare, report, judge (meta), leaderboard and agreement take it
    "Testing": "ir_measures_graded.experiments.testing",
    "by_level": "ir_measures_graded.per_level",
    "by_threshold": "ir_measures_graded.per_level",
    "scan_run": "ir_measures_graded.io.stream",
    "read_qrels": "ir_measures_graded.io.readers",
    "read_run": "ir_measures_graded.io.readers",
    "read_qrels_table": "ir_measures_graded.io.readers",
    "read_run_table": "ir_measures_graded.io.readers",
    # the organiser's view of many runs (#43): each takes an experiment
    "organiser": "ir_measures_graded.organiser",
    "leaderboard": "ir_measures_graded.organiser",
    "agreement": "ir_measures_graded.organiser",
    "topics": "ir_measures_graded.organiser",
    "pool": "ir_measures_graded.organiser",
    "bounds": "ir_measures_graded.organiser",
    "build_pool": "ir_measures_graded.organiser",  # the pool to judge, from runs alone (#51)
    "simulate_pools": "ir_measures_graded.organiser",  # pooling strategies × budgets simulated on existing qrels
    # two judges side by side (#53): agree(experiment, qrels_b), label_agreement(frame_a, frame_b)
    "judges": "ir_measures_graded.judges",
    "agree": "ir_measures_graded.judges",
    "label_agreement": "ir_measures_graded.judges",
}


__getattr__ = lazy_attributes(__name__, _LAZY)


__all__ = [
    *(name for name in _measures.__all__ if name not in ("GradedMeasure", "MEASURES")),
    "GradedProvider", "GradedEvaluator", "GradedInputError",
    "graded", "install", "uninstall", "by_level", "by_threshold", "scan_run",
    "read_qrels", "read_run", "read_qrels_table", "read_run_table", "report", "experiment", "Testing", "experiments", "reports",
    "organiser", "leaderboard", "agreement", "topics", "pool", "bounds", "build_pool", "simulate_pools",
    "judges", "agree", "label_agreement",
    "__version__",
]
