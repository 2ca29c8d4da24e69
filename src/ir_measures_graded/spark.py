"""Evaluation of qrels and runs held in Spark DataFrames (optional extra ``spark``).

    from ir_measures_graded import spark as graded_spark
    qrels = spark_session.read.parquet("qrels.parquet")   # query_id, doc_id, relevance
    run = spark_session.read.parquet("run.parquet")       # query_id, doc_id, score
    graded_spark.calc_aggregate([muMAP, nDCNG@10, AP, nDCG@10], qrels, run)

What runs where. The rows never come to the driver: qrels and run rows are shuffled together by
query (one hash partitioning, so each query's judgments and ranking sit in one partition), and each
partition is evaluated inside a Python worker by this package's own single-machine evaluator
(:class:`~ir_measures_graded.provider.GradedProvider`) on Arrow data — integer ids as integers,
other ids dictionary-encoded, so no Python object is made per row. What needs the whole collection
(``levels='collection'``, ``norm='collection'``, GAP's grades) depends on the qrels' set of labels:
the driver collects the distinct labels (one small aggregation) and every worker adds them to its
qrels as one reserved query, so each computes exactly what one machine computes. Aggregates come
back as per-partition partial sums (per threshold for ``levels='collection'``).

Standard measures are computed by our kernels with trec_eval's conventions: ``AP(rel=r)`` is
``muAP(levels=(r,))``, ``P(rel=r)@k`` is ``muP(levels=(r,))@k`` and ``nDCG@k`` (linear gain, the
default ``dcg='log2'``) is ``nDCNG(dcg='log2')@k``. Ids of any type are compared as strings, as in
``ir_measures``.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import ir_measures

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures import MEASURES, GradedMeasure, muAP, muP, nDCNG

if TYPE_CHECKING:  # pyspark is optional: imported where a function needs it
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["calc_aggregate", "calc_per_query", "read_qrels", "read_run", "session"]

# Columns of the internal union of qrels and run rows (one schema, so one shuffle co-locates them).
_QUERY, _DOC, _VALUE, _JUDGED = "q", "d", "v", "j"
_RESULT_SCHEMA = "q string, measure string, value double"  # q: the id as a string


# --- measures ---------------------------------------------------------------------------------------

def _as_graded(measure: ir_measures.Measure) -> GradedMeasure:
    """The measure as one of ours: standard AP, P@k and nDCG@k become their exact equivalents."""
    if isinstance(measure, GradedMeasure):
        measure.validate_params()
        return measure
    name, params = measure.NAME, dict(measure.params)
    common = {k: params[k] for k in ("cutoff", "judged_only") if k in params}
    if name in ("AP", "P") and set(params) <= {"cutoff", "rel", "judged_only"}:
        rel = params.get("rel", 1)
        if rel <= 0:
            raise GradedInputError(f"{measure}: rel must be positive on the Spark engine (labels <= 0 are irrelevant)")
        base = muAP if name == "AP" else muP
        return base(levels=(float(rel),), **common)
    if name == "nDCG" and params.get("dcg", "log2") == "log2" and set(params) <= {"cutoff", "dcg", "gains", "judged_only"}:
        extra = {"gains": params["gains"]} if params.get("gains") is not None else {}
        return nDCNG(dcg="log2", **extra, **common)
    raise GradedInputError(
        f"{measure} is not available on the Spark engine; it computes every measure of this package "
        f"({', '.join(MEASURES)}; every parameter) and AP, P@k, nDCG@k (dcg='log2') with trec_eval's conventions"
    )


def _parse(measures: Iterable[ir_measures.Measure | str]) -> list[ir_measures.Measure]:
    parsed = [ir_measures.parse_measure(m) if isinstance(m, str) else m for m in measures]
    return list(dict.fromkeys(parsed))  # the user's order, each measure once


def _labels(judged: DataFrame) -> list[float]:
    """The distinct (finite) labels of the whole qrels, for every quantity that needs the collection."""
    from pyspark.sql import functions as F

    # Spark orders NaN above every number: NaN labels are left to the workers' clear error
    rows = judged.where(~F.isnan(_VALUE)).select(_VALUE).distinct().collect()
    return sorted(float(r[0]) for r in rows)


# --- data -------------------------------------------------------------------------------------------

def _union(qrels: DataFrame, run: DataFrame, query_col: str, doc_col: str, relevance_col: str,
           score_col: str) -> tuple[DataFrame, DataFrame]:
    """``(judged, rows)``: qrels in the internal schema, and qrels and run rows in one frame."""
    from pyspark.sql import functions as F

    for frame, kind, cols in ((qrels, "qrels", (query_col, doc_col, relevance_col)),
                              (run, "run", (query_col, doc_col, score_col))):
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise GradedInputError(f"{kind} DataFrame is missing column(s) {missing} (found {frame.columns})")

    id_types = {c: _id_type(qrels.schema[c].dataType, run.schema[c].dataType) for c in (query_col, doc_col)}

    def internal(frame: DataFrame, value_col: str, judged: bool) -> DataFrame:
        return frame.select(F.col(query_col).cast(id_types[query_col]).alias(_QUERY),
                            F.col(doc_col).cast(id_types[doc_col]).alias(_DOC),
                            F.col(value_col).cast("double").alias(_VALUE), F.lit(judged).alias(_JUDGED))

    judged = internal(qrels, relevance_col, True)
    return judged, judged.unionByName(internal(run, score_col, False))


def _id_type(qrels_type: Any, run_type: Any) -> str:
    """Integer ids travel as 64-bit integers (cheaper to shuffle); the evaluator compares every id
    as a string either way (each distinct id converted once), so anything else becomes a string."""
    from pyspark.sql.types import ByteType, IntegerType, LongType, ShortType

    integral = (ByteType, ShortType, IntegerType, LongType)
    return "long" if isinstance(qrels_type, integral) and isinstance(run_type, integral) else "string"


# A query made of one judgment per label of the collection, added to every partition's qrels: the
# labels the single-machine code reads from the whole qrels (levels='collection', norm='collection',
# GAP's grades) are then the same in every worker, and so are the values. Its id is reserved.
_LABELS_QUERY = {"string": "\x00collection-labels", "long": -(2**63)}


def _partition_evaluator(measures: list[GradedMeasure], names: list[str], labels: list[float], aggregate: bool):
    """The function ``mapInArrow`` runs on each query-partitioned slice of qrels and run rows.

    Per query: rows ``(q, measure, value)``. With ``aggregate``: per measure, the partition's sum and
    count of values (``threshold`` -1), or for an aggregate over thresholds (``levels='collection'``)
    the sum and count at each threshold.
    """
    # Measures travel as their str, which parse_measure reads back exactly (measure objects pickled
    # by value, as after a module reload, would lose ir_measures' parameter sentinels). Measures
    # that are one computation (AP and muAP(levels='1.0')) are evaluated once.
    names_of: dict[str, list[str]] = {}
    for measure, name in zip(measures, names, strict=True):
        names_of.setdefault(str(measure), []).append(name)

    def evaluate(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        import pyarrow.compute as pc

        from ir_measures_graded.provider import GradedProvider

        batches = list(batches)
        if not batches:
            return
        table = pa.Table.from_batches(batches)
        del batches
        judged = table.column(_JUDGED)
        qrels_rows = table.filter(judged)
        if not qrels_rows.num_rows:  # only run rows: queries the qrels do not know are skipped
            return
        qrels_rows, reserved = _with_labels_query(qrels_rows, labels)
        qrels = _frame(qrels_rows, "relevance")
        run = _frame(table.filter(pc.invert(judged)), "score")
        del table, qrels_rows
        computed = {spec: ir_measures.parse_measure(spec) for spec in names_of}
        names_by_measure = {str(m): names_of[spec] for spec, m in computed.items()}
        evaluator = GradedProvider().evaluator(list(computed.values()), qrels)
        if aggregate:
            yield _partial_aggregates(evaluator, run, names_by_measure, reserved)
            return
        query_ids, measure_names, values = [], [], []
        for metric in evaluator.iter_calc(run):
            if metric.query_id == reserved:
                continue
            for name in names_by_measure[str(metric.measure)]:
                query_ids.append(metric.query_id)
                measure_names.append(name)
                values.append(float(metric.value))
        yield pa.RecordBatch.from_arrays(
            [pa.array(query_ids, pa.string()), pa.array(measure_names, pa.string()),
             pa.array(values, pa.float64())], names=["q", "measure", "value"])

    return evaluate


def _with_labels_query(qrels: Any, labels: list[float]) -> tuple[Any, str]:
    """``qrels`` (Arrow) with the collection-labels query appended, and that query's id as a string."""
    import pyarrow as pa

    schema = qrels.schema
    is_string = pa.types.is_string(schema.field(_QUERY).type) or pa.types.is_large_string(schema.field(_QUERY).type)
    query = _LABELS_QUERY["string" if is_string else "long"]
    n = len(labels)
    docs = [str(i) for i in range(n)] if pa.types.is_string(schema.field(_DOC).type) else list(range(n))
    extra = pa.table([pa.array([query] * n, schema.field(_QUERY).type), pa.array(docs, schema.field(_DOC).type),
                      pa.array(labels, pa.float64()), pa.array([True] * n, pa.bool_())], schema=schema)
    return pa.concat_tables([qrels, extra]), str(query)


def _partial_aggregates(evaluator: Any, run: Any, names_by_measure: dict[str, list[str]], reserved: str) -> Any:
    """One partition's share of every aggregate: the measure's own aggregator's partial sums, as
    ``(measure, threshold, total, n, weight)`` rows (threshold -1: a plain mean)."""
    import pyarrow as pa

    aggregators = {str(m): m.aggregator() for m in evaluator.measures}
    for metric in evaluator.iter_calc(run):
        if metric.query_id != reserved:
            aggregators[str(metric.measure)].add(metric.value)
    rows = [(name, *part) for key, agg in aggregators.items() for part in agg.partials()
            for name in names_by_measure[key]]
    columns = list(zip(*rows, strict=True)) if rows else [[], [], [], [], []]
    return pa.RecordBatch.from_arrays(
        [pa.array(columns[0], pa.string()), pa.array(columns[1], pa.int64()), pa.array(columns[2], pa.float64()),
         pa.array(columns[3], pa.int64()), pa.array(columns[4], pa.float64())],
        names=["measure", "threshold", "total", "n", "weight"])


def _frame(table: Any, value_name: str) -> pd.DataFrame:
    """Arrow rows as the DataFrame ir_measures takes; ids as categoricals (each distinct id once)."""
    frame = table.select([_QUERY, _DOC, _VALUE]).to_pandas(strings_to_categorical=True)
    frame.columns = ["query_id", "doc_id", value_name]
    return frame


def _evaluated(measures: list[ir_measures.Measure | str], qrels: DataFrame, run: DataFrame, columns: tuple,
               partitions: int | None, aggregate: bool) -> tuple[list, list[GradedMeasure], list[float], DataFrame]:
    """``(measures as given, as computed, the qrels' labels, mapInArrow result)``."""
    originals = _parse(measures)
    computed = [_as_graded(m) for m in originals]
    judged, rows = _union(qrels, run, *columns)
    labels = _labels(judged)
    by_query = rows.repartition(partitions, _QUERY) if partitions else rows.repartition(_QUERY)
    schema = "measure string, threshold long, total double, n long, weight double" if aggregate else _RESULT_SCHEMA
    evaluate = _partition_evaluator(computed, [str(m) for m in originals], labels, aggregate)
    return originals, computed, labels, by_query.mapInArrow(evaluate, schema)


# --- public API -------------------------------------------------------------------------------------

def calc_per_query(measures: Iterable[ir_measures.Measure | str], qrels: DataFrame, run: DataFrame,
                   query_col: str = "query_id", doc_col: str = "doc_id", relevance_col: str = "relevance",
                   score_col: str = "score", partitions: int | None = None) -> DataFrame:
    """Per-query values as a Spark DataFrame: ``query_col`` (cast back to the qrels' type), ``measure``, ``value``.

    As ``ir_measures.calc_per_query``: a qrels query missing from the run scores 0, a run query
    missing from the qrels is skipped. ``measure`` is the measure's ``str``. ``partitions`` sets
    the number of query partitions (default: ``spark.sql.shuffle.partitions``); each partition's
    rows are evaluated at once in one Python worker.
    """
    from pyspark.sql import functions as F

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
    of 100,000 rows are used unless ``spark.sql.execution.arrow.maxRecordsPerBatch`` was changed.
    """
    from pyspark.sql import functions as F

    columns = (query_col, doc_col, relevance_col, score_col)
    originals, computed, _, parts = _evaluated(list(measures), qrels, run, columns, partitions, aggregate=True)
    with _clear_errors(), _large_arrow_batches(parts.sparkSession):
        totals = parts.groupBy("measure", "threshold").agg(F.sum("total").alias("total"), F.sum("n").alias("n"),
                                                           F.max("weight").alias("weight"))
        partials: dict[str, list] = {}
        for r in totals.collect():
            partials.setdefault(r["measure"], []).append((r["threshold"], r["total"], r["n"], r["weight"]))
    result = {}
    for original, measure in zip(originals, computed, strict=True):
        aggregate = measure.aggregator()  # the measure's own aggregate, from the partitions' partial sums
        aggregate.merge(sorted(partials.get(str(original), [])))
        result[original] = aggregate.result()
    return result


_ARROW_BATCH = "spark.sql.execution.arrow.maxRecordsPerBatch"


@contextmanager
def _large_arrow_batches(spark: SparkSession, rows: int = 100_000) -> Iterator[None]:
    """Arrow batches of ``rows`` rows (Spark's default is 10,000) while our job runs, unless the user
    chose a size: a worker takes a whole partition anyway, and fewer batches cost less to build."""
    default = spark.conf.get(_ARROW_BATCH, "10000") == "10000"
    if default:
        spark.conf.set(_ARROW_BATCH, str(rows))
    try:
        yield
    finally:
        if default:
            spark.conf.set(_ARROW_BATCH, "10000")


@contextmanager
def _clear_errors() -> Iterator[None]:
    """Bad input found inside a worker (a duplicate (query, doc), a NaN label, a missing id) is raised
    on the driver as the worker's :class:`GradedInputError` message, not as a Spark traceback."""
    from pyspark.errors import PythonException

    try:
        yield
    except PythonException as ex:
        marker = f"{GradedInputError.__name__}: "
        lines = [line for line in str(ex).splitlines() if marker in line]
        if not lines:
            raise
        raise GradedInputError(lines[-1].split(marker, 1)[1]) from None


# --- files and sessions -----------------------------------------------------------------------------

def session(master: str | None = None, app_name: str = "ir-measures-graded", quiet: bool = False) -> SparkSession:
    """The active SparkSession, or a new one on ``master`` (default ``local[*]``).

    ``quiet``: no progress bar and only errors in the log (the command line's stderr stays readable).
    """
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active
    master = master or "local[*]"
    builder = SparkSession.builder.master(master).appName(app_name)
    if quiet:
        builder = builder.config("spark.ui.showConsoleProgress", "false")
    if master.startswith("local"):  # local workers must import this package: run them on this interpreter
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = builder.getOrCreate()
    if quiet:
        spark.sparkContext.setLogLevel("ERROR")
    return spark


_TREC_FIELDS = {"qrels": ("query_id", "iteration", "doc_id", "relevance"),
                "run": ("query_id", "iteration", "doc_id", "rank", "score", "name")}


def read_qrels(spark: SparkSession, path: str) -> DataFrame:
    """Qrels from Parquet (a ``.parquet`` file or a folder of them) or a TREC qrels text file (plain or gzip)."""
    return _read(spark, path, "qrels", "relevance")


def read_run(spark: SparkSession, path: str) -> DataFrame:
    """A run from Parquet or a six-column TREC run text file (plain or gzip)."""
    return _read(spark, path, "run", "score")


def _is_parquet(path: str) -> bool:
    return path.rstrip("/").endswith(".parquet") or os.path.isdir(path)


def _read(spark: SparkSession, path: str, kind: str, value_col: str) -> DataFrame:
    from pyspark.sql import functions as F

    if "://" not in path:
        if not os.path.exists(path):
            raise GradedInputError(f"{kind} file not found: {path}")
        path = os.path.abspath(path)  # the JVM's working folder need not be ours
    if _is_parquet(path):
        return spark.read.parquet(path)
    fields = _TREC_FIELDS[kind]
    lines = spark.read.text(path).select(F.trim(F.col("value")).alias("line")).where(F.col("line") != "")
    parts = lines.select("line", F.split("line", r"\s+").alias("parts"))
    text = F.col("parts")[fields.index(value_col)]
    # try_cast (Spark >= 4): NULL for a malformed number even in ANSI mode; cast does that in 3.5 by default.
    value = text.try_cast("double") if hasattr(text, "try_cast") else text.cast("double")
    bad = parts.where((F.size("parts") != len(fields)) | value.isNull() | F.isnan(value)
                      | F.abs(value).eqNullSafe(float("inf")))
    first_bad = bad.select("line").limit(1).collect()
    if first_bad:
        raise GradedInputError(
            f"{kind} file {path}: malformed line {first_bad[0][0]!r} (expected {len(fields)} whitespace-separated "
            f"fields: {' '.join(fields)}, {value_col} a finite number)")
    return parts.select(
        F.col("parts")[0].alias("query_id"), F.col("parts")[2].alias("doc_id"),
        value.alias(value_col))


# --- command line -----------------------------------------------------------------------------------

def run_cli(args: argparse.Namespace, out: Any) -> int:
    """``ir-measures-graded --engine spark ...``: the single-machine command's output, computed on Spark.

    Only results come to the driver: per-query values with ``-q`` (printed by measure, in the order
    given, then by query id), and each measure's aggregate.
    """
    from ir_measures_graded import cli

    run_paths, measures = cli.split_inputs(args.inputs)
    cli.check_options(args, measures)
    if args.provider not in (None, "graded"):
        raise cli.UsageError("--engine spark computes every measure itself: drop --provider")
    if args.thresholds:
        raise cli.UsageError("--thresholds is not available with --engine spark")
    for m in measures:
        _as_graded(m)  # unsupported measures fail before Spark starts
    # pyspark warns about pandas >= 3 in the driver and in every worker: not the user's concern here
    os.environ.setdefault("PYTHONWARNINGS", "ignore::FutureWarning")
    warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
    spark = session(args.master, quiet=True)
    qrels = read_qrels(spark, args.qrels)
    by_name = {str(m): m for m in measures}
    position = {str(m): i for i, m in enumerate(measures)}
    results = []
    for path in run_paths:
        run = read_run(spark, path)
        per_query = []
        if args.by_query:
            with _clear_errors(), _large_arrow_batches(spark):
                rows = [(str(r[0]), r["measure"], r["value"]) for r in
                        calc_per_query(measures, qrels, run).toLocalIterator()]
            rows.sort(key=lambda row: (position[row[1]], row[0]))
            per_query = [ir_measures.Metric(query_id=q, measure=by_name[name], value=v) for q, name, v in rows]
        summary = {} if args.no_summary else calc_aggregate(measures, qrels, run)
        tag = path if _is_parquet(path) else cli.run_tag(path)
        results.append(cli.RunResult(path, tag, per_query, summary))
    cli.name_tags(results)
    cli.write_results(results, measures, args, out)
    return 0
