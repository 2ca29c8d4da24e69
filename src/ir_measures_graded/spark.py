"""``ir_measures_graded.spark``: the Spark engine's API under its short name — the very package
:mod:`ir_measures_graded.engines.spark` (``calc_aggregate``, ``calc_per_query``, ``read_qrels``,
``read_run``, ``session``)."""

import sys

from ir_measures_graded.engines import spark as _spark

sys.modules[__name__] = _spark
