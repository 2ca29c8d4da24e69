"""Evaluation of qrels and runs held in Spark DataFrames (optional extra ``spark``): the public API.

    from ir_measures_graded import spark as graded_spark   # this package (ir_measures_graded.engines.spark)
    qrels = spark_session.read.parquet("qrels.parquet")   # query_id, doc_id, relevance
    run = spark_session.read.parquet("run.parquet")       # query_id, doc_id, score
    graded_spark.calc_aggregate([muMAP, nDCNG@10, AP, nDCG@10], qrels, run)

What runs where. The rows never come to the driver: in the JVM, each side's rows are grouped by
query into two arrays, doc ids and values (started on the map side, before the shuffle), and the
two sides joined by query, so each query is one row holding its judgments and its ranking. Batches of
these rows are evaluated, as they arrive, inside Python workers by this package's own
single-machine evaluator (:class:`~ir_measures_graded.provider.GradedProvider`, over
:func:`~ir_measures_graded.core.evaluate`) on Arrow data, so no Python object is made per row. Only
the columns needed cross to Python: integer ids as integers (strings where either side has
strings), values as doubles. Every row is checked by the reading package's own code (:mod:`ir_measures_graded.io`): in
the workers that evaluate it, as any Arrow input (no null, finite values; column types from the
schema on the driver); a TREC text file by its block parser and field layouts, and a Parquet file
read by :func:`read_run` / :func:`read_qrels` with messages naming its row. What needs the whole collection
(``levels='collection'``, ``norm='collection'``, GAP's grades) depends on the qrels' set of labels:
where a measure asks for it (:meth:`~ir_measures_graded.measures.base.GradedMeasure.uses_collection`),
the driver collects the distinct labels (one small aggregation) and every worker adds them to its
qrels as one reserved query, so each computes exactly what one machine computes. Aggregates come
back as per-partition partial sums (per threshold for ``levels='collection'``).

Standard measures are computed by our kernels with trec_eval's conventions: ``AP(rel=r)`` is
``muAP(levels=(r,))``, ``P(rel=r)@k`` is ``muP(levels=(r,))@k`` and ``nDCG@k`` (linear gain, the
default ``dcg='log2'``) is ``nDCNG(dcg='log2')@k``. Ids (strings or integers) are compared as strings,
as in ``ir_measures``.

The package is split by where its code runs: this module (the API and :class:`SparkEngine`),
:mod:`.read` (files as DataFrames) and :mod:`.plan` (the JVM plan), :mod:`.jobs` (settings and
errors of the driver's jobs) run on the driver; :mod:`.workers` is what the executors import, and
it imports none of the others. This module loads the driver's modules on first use (``read_qrels``,
``read_run``, ``rows_by_query``), as a worker importing :mod:`.workers` executes this ``__init__`` first.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ir_measures_graded.engines import (
    Request,
    RunResult,
    check_judged,
    check_shared_queries,
    run_name,
)
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.lazy import lazy_attributes

if TYPE_CHECKING:  # pyspark is optional, and the driver's modules are loaded on first use
    import ir_measures
    from pyspark.sql import DataFrame, SparkSession

    from ir_measures_graded.engines.spark.plan import rows_by_query
    from ir_measures_graded.engines.spark.read import read_qrels, read_run

__all__ = ["calc_aggregate", "calc_per_query", "read_qrels", "read_run", "rows_by_query", "session", "SparkEngine"]

# The driver's modules load when one of their names is first read (the package's one mechanism,
# :func:`ir_measures_graded.lazy.lazy_attributes`): a worker importing :mod:`.workers` does not load them.
__getattr__ = lazy_attributes(__name__, {"read_qrels": f"{__name__}.read", "read_run": f"{__name__}.read",
                                         "rows_by_query": f"{__name__}.plan"})


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


# --- public API -------------------------------------------------------------------------------------

def calc_per_query(measures: Iterable[ir_measures.Measure | str], qrels: DataFrame, run: DataFrame,
                   query_col: str = "query_id", doc_col: str = "doc_id", relevance_col: str = "relevance",
                   score_col: str = "score", partitions: int | None = None) -> DataFrame:
    """Per-query values as a Spark DataFrame: ``query_col`` (cast back to the qrels' type), ``measure``, ``value``.

    As ``ir_measures.calc_per_query``: a qrels query missing from the run scores 0, a run query
    missing from the qrels is skipped. ``measure`` is the measure's ``str``. ``partitions`` sets
    the number of query partitions (default: ``spark.sql.shuffle.partitions``, which adaptive
    execution may merge); a partition's queries are evaluated by one Python worker, a batch at a time.
    """
    from pyspark.sql import functions as F

    from ir_measures_graded.engines.spark.plan import _evaluated

    columns = (query_col, doc_col, relevance_col, score_col)
    *_, result = _evaluated(list(measures), qrels, run, columns, partitions, aggregate=False)
    query_type = qrels.schema[query_col].dataType
    return result.select(F.col("q").cast(query_type).alias(query_col), "measure", "value")


def calc_aggregate(measures: Iterable[ir_measures.Measure | str], qrels: DataFrame, run: DataFrame,
                   query_col: str = "query_id", doc_col: str = "doc_id", relevance_col: str = "relevance",
                   score_col: str = "score", partitions: int | None = None) -> dict[ir_measures.Measure, float]:
    """``{measure: value}`` as ``ir_measures.calc_aggregate``; only per-measure sums reach the driver.

    Each measure aggregates as its own aggregator says: the mean over the qrels' queries, or for
    ``muAP(levels='collection')`` the paper's collection-level reading (Figs. 6-8): for each
    threshold t, MAP^t is the mean AP^t over the queries with a judgment at or above t, and µMAP the
    mean of the MAP^t weighted as the measure's ``weights`` says. While its job runs, Arrow batches
    of whole queries are cut at 4 MiB unless ``spark.sql.execution.arrow.maxBytesPerBatch`` was
    changed, and adaptive execution merges query partitions up to 16 MiB
    (``spark.sql.adaptive.advisoryPartitionSizeInBytes``, unless changed).
    """
    return _aggregate(list(measures), qrels, run, (query_col, doc_col, relevance_col, score_col), partitions,
                      lambda: _input_sides(qrels, run, query_col, doc_col))[0]


def _aggregate(measures: list, qrels: DataFrame, run: DataFrame, columns: tuple[str, str, str, str],
               partitions: int | None, sides: Any) -> tuple[dict[ir_measures.Measure, float], dict[str, int]]:
    """``(values, counts)``: :func:`calc_aggregate`'s values, and the workers' counts (``rows``: the
    run's rows; ``matched``: its queries the qrels hold; ``ranked``: its rows of those queries;
    ``judged``: of those, the rows whose document is judged); ``sides``: where a duplicate's rows are
    counted (:func:`.jobs.clear_errors`)."""
    from ir_measures_graded.engines.spark.jobs import clear_errors, job_settings
    from ir_measures_graded.engines.spark.plan import _evaluated
    from ir_measures_graded.engines.spark.workers import COUNT

    originals, computed, _, parts = _evaluated(measures, qrels, run, columns, partitions, aggregate=True)
    with clear_errors(sides), job_settings(parts.sparkSession):
        rows = parts.collect()  # per partition, a few rows per measure: no shuffle to sum them first
    partials: dict[str, list] = {}
    counts = {"rows": 0, "matched": 0, "ranked": 0, "judged": 0}
    for r in rows:
        if r["measure"].startswith(COUNT):
            counts[r["measure"][len(COUNT):]] += r["n"]
        else:
            partials.setdefault(r["measure"], []).append((r["threshold"], r["total"], r["n"], r["weight"]))
    result = {}
    for original, measure in zip(originals, computed, strict=True):
        aggregate = measure.aggregator()  # the measure's own aggregate, from the partitions' partial sums
        aggregate.merge(sorted(partials.get(str(original), [])))
        result[original] = aggregate.result()
    return result, counts


def _input_sides(qrels: DataFrame, run: DataFrame, query_col: str, doc_col: str) -> dict[str, Any]:
    """The input DataFrames by side, for :func:`.jobs.clear_errors` to name a duplicate's rows."""
    return {"qrels": (qrels, query_col, doc_col, None), "run": (run, query_col, doc_col, None)}


def _file_sides(spark: SparkSession, qrels: str, run: str) -> dict[str, Any]:
    """:func:`_input_sides` for files: a TREC text file's lines (query id first, doc id third), so that
    a duplicate is named ``FILE:LINE`` as the local engine names it; Parquet files' rows."""
    from pyspark.sql import functions as F

    from ir_measures_graded.engines.spark.read import _is_parquet, located

    sides = {}
    for side, given in (("qrels", qrels), ("run", run)):
        path = located(given)
        if _is_parquet(path):
            sides[side] = (spark.read.parquet(path), "query_id", "doc_id", None)
        else:
            fields = F.split(F.trim(F.col("value")), r"\s+")
            sides[side] = (spark.read.text(path), fields[0], fields[2], given)  # named as given
    return sides


# --- sessions ---------------------------------------------------------------------------------------

#: log4j2's configuration for the command line's JVM: no logger prints (Spark's default prints its
#: startup lines, and every failed task's Java and Python traceback at ERROR).
QUIET_LOG = Path(__file__).with_name("log4j2-quiet.properties")


def session(master: str | None = None, app_name: str = "ir-measures-graded", quiet: bool = False) -> SparkSession:
    """The active SparkSession, or a new one on ``master`` (default ``local[*]``).

    ``quiet``: no progress bar and no log (the command line's stderr holds only its own one-line
    error): a new JVM reads :data:`QUIET_LOG` (no startup lines), and Spark's and py4j's loggers are
    turned off, so bad input found in a worker is not printed as Java and Python tracebacks first.
    """
    import logging

    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active
    master = master or "local[*]"
    builder = SparkSession.builder.master(master).appName(app_name)
    if quiet:
        builder = builder.config("spark.ui.showConsoleProgress", "false").config(
            "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={QUIET_LOG.as_uri()}")
        logging.getLogger("py4j").setLevel(logging.CRITICAL)  # its errors are raised as exceptions anyway
    if master.startswith("local"):  # local workers must import this package: run them on this interpreter
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = builder.getOrCreate()
    if quiet:
        spark.sparkContext.setLogLevel("OFF")  # a session already running: its executors' errors too
    return spark


# --- the engine -------------------------------------------------------------------------------------

class SparkEngine:
    """The command line's ``--engine spark``: what the local engine returns, computed on Spark.

    Only results come to the driver: per-query values with ``by_query`` (by measure, in the order
    given, then by query id), and each measure's aggregate. ``master``: the Spark master URL (default: the
    active session's, else ``local[*]``).
    """

    name = "spark"

    def __init__(self, master: str | None = None) -> None:
        self.master = master

    def evaluate(self, request: Request) -> list[RunResult]:
        if request.provider not in (None, "graded"):
            raise GradedInputError("--engine spark computes every measure itself: drop --provider")
        if request.depth is not None:
            raise GradedInputError("--engine spark reads every document of a run: it has no depth (-M); use the local "
                                   "engine")
        import ir_measures

        from ir_measures_graded.engines.spark.jobs import clear_errors, job_settings
        from ir_measures_graded.engines.spark.plan import _as_graded
        from ir_measures_graded.engines.spark.read import read_qrels, read_run

        measures = request.measures
        for m in measures:
            _as_graded(m)  # unsupported measures fail before Spark starts
        # pyspark warns about pandas >= 3 in the driver and in every worker: not the user's concern here
        os.environ.setdefault("PYTHONWARNINGS", "ignore::FutureWarning")
        warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
        spark = session(self.master, quiet=True)
        qrels = read_qrels(spark, request.qrels)
        with clear_errors():  # the qrels' query ids (ordered as Spark's per-query values are: as strings)
            judged = sorted(r[0] for r in qrels.select(qrels["query_id"].cast("string")).distinct().collect()
                            if r[0] is not None)  # (a null is the evaluating workers' clear error)
        check_judged(len(judged), request)
        by_name = {str(m): m for m in measures}
        position = {str(m): i for i, m in enumerate(measures)}
        results = []
        for k, path in enumerate(request.runs):
            run = read_run(spark, path)
            per_query = []
            if request.by_query:
                with clear_errors(functools.partial(_file_sides, spark, request.qrels, path)), job_settings(spark):
                    rows = [(str(r[0]), r["measure"], r["value"]) for r in
                            calc_per_query(measures, qrels, run).toLocalIterator()]
                rows.sort(key=lambda row: (position[row[1]], row[0]))
                per_query = [ir_measures.Metric(query_id=q, measure=by_name[name], value=v) for q, name, v in rows]
            # a duplicate is named FILE:LINE, as the local engine names it
            sides = functools.partial(_file_sides, spark, request.qrels, path)
            result = RunResult(run_name(request, k), per_query, {}, judged=judged)
            if request.summary:  # the workers count the run's rows and shared queries beside the sums
                result.summary, counts = _aggregate(measures, qrels, run, ("query_id", "doc_id", "relevance", "score"),
                                                    None, sides)
                result.rows, result.matched = counts["rows"], counts["matched"]
                result.ranked_rows, result.judged_rows = counts["ranked"], counts["judged"]
                if judged and request.warn is not None:
                    check_shared_queries(result, request)
            results.append(result)
        return results

