"""Experiments: qrels, runs and measures evaluated once, every decision made in one place.

    import ir_measures_graded as img
    exp = img.experiment("qrels.txt", ["bm25.run", "mine.run"], ["muMAP", "nDCNG@10", "map"], baseline="bm25.run")
    exp.aggregates              # run, measure, value: exactly calc_aggregate's
    exp.per_query               # run, query_id, measure, value: every judged query, 0 where not ranked
    cmp = exp.compare(test="t", correction="holm")
    cmp.to_dataframe(); cmp.to_markdown(); cmp.to_latex()
    img.report(exp).save("report.html")  # the HTML page renders an experiment (the report sits above)

- :mod:`.naming`: how runs are named and the baseline found;
- :mod:`.measure_lists`: how measures are read, which are tested, which break down per threshold;
- :mod:`.evaluation`: :func:`experiment` through an engine (local or Spark), the qrels prepared once;
- :mod:`.comparison`: :class:`Comparison` against a baseline; :mod:`.tables` writes every table.
The real-label rule is :func:`ir_measures_graded.labels.check_labels`, applied by the engines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ir_measures_graded.experiments.evaluation import Experiment, experiment
from ir_measures_graded.experiments.naming import find_baseline, run_names
from ir_measures_graded.lazy import lazy_attributes

if TYPE_CHECKING:
    from ir_measures_graded.experiments.comparison import Comparison, compare

__all__ = ["experiment", "Experiment", "Comparison", "compare", "run_names", "find_baseline"]

# The comparison (pandas, scipy) loads when first used, as the package's own names do: evaluating a
# run file loads neither.
__getattr__ = lazy_attributes(__name__, {"Comparison": "ir_measures_graded.experiments.comparison",
                                         "compare": "ir_measures_graded.experiments.comparison"})
