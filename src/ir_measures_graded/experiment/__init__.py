"""Experiments: qrels, runs and measures evaluated once, every decision made in one place.

    import ir_measures_graded as img
    exp = img.experiment("qrels.txt", ["bm25.run", "mine.run"], ["muMAP", "nDCNG@10", "map"], baseline="bm25.run")
    exp.aggregates              # run, measure, value: exactly calc_aggregate's
    exp.per_query               # run, query_id, measure, value: every judged query, 0 where not ranked
    cmp = exp.compare(test="t", correction="holm")
    cmp.to_dataframe(); cmp.to_markdown(); cmp.to_latex()
    exp.report().save("report.html")

- :mod:`.naming`: how runs are named and the baseline found;
- :mod:`.measure_lists`: how measures are read, which are tested, which break down per threshold;
- :mod:`.evaluation`: :func:`experiment` through an engine (local or Spark), the qrels prepared once;
- :mod:`.comparison`: :class:`Comparison` against a baseline; :mod:`.tables` writes every table.
The real-label rule is :func:`ir_measures_graded.labels.check_labels`, applied by the engines.
"""

from ir_measures_graded.experiment.comparison import Comparison, compare
from ir_measures_graded.experiment.evaluation import Experiment, experiment
from ir_measures_graded.experiment.naming import find_baseline, run_names

__all__ = ["experiment", "Experiment", "Comparison", "compare", "run_names", "find_baseline"]
