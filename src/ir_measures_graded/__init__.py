"""ir-measures-graded: measures for multi-graded relevance as first-class ``ir_measures`` measures.

Importing this package registers µAP/µMAP, µP, NDCNG, meanNDCG and meanNDCNG with
``ir_measures`` (names and aliases usable in ``parse_measure``) and appends the ``graded``
provider to ``ir_measures.DefaultPipeline``::

    import ir_measures
    from ir_measures import AP, nDCG
    from ir_measures_graded import muMAP, nDCNG
    ir_measures.calc_aggregate([muMAP, nDCNG@10, AP, nDCG@10], qrels, run)

Scheel, Lommatzsch & Albayrak. Performance Measures for Multi-Graded Relevance. 2011.
"""

from ir_measures_graded import measures as _measures
from ir_measures_graded import ordering, trec_names
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures import *  # noqa: F403 - every measure and alias (see measures/__init__.py)
from ir_measures_graded.per_level import by_level, by_threshold
from ir_measures_graded.provider import GradedEvaluator, GradedProvider, install

__version__ = "0.1.0"

graded = install()
ordering.install()  # results in the order the measures were given, whatever the hash seed
trec_names.install()  # our names as PyTerrier's metric strings: eval_metrics=['muMAP', 'map']

try:  # register the OHSUMED collections with ir_datasets, when it is installed (extra "datasets")
    import ir_datasets  # noqa: F401
except ImportError:  # pragma: no cover - ir_datasets is optional
    pass
else:
    from ir_measures_graded.datasets import ohsumed as _ohsumed  # noqa: F401

__all__ = [
    *(name for name in _measures.__all__ if name not in ("GradedMeasure", "MEASURES")),
    "GradedProvider", "GradedEvaluator", "GradedInputError",
    "graded", "install", "by_level", "by_threshold",
    "__version__",
]
