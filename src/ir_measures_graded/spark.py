"""Evaluation of qrels and runs held in Spark DataFrames (optional extra ``spark``).

    from ir_measures_graded import spark as graded_spark
    qrels = spark_session.read.parquet("qrels.parquet")   # query_id, doc_id, relevance
    run = spark_session.read.parquet("run.parquet")       # query_id, doc_id, score
    graded_spark.calc_aggregate([muMAP, nDCNG@10, AP, nDCG@10], qrels, run)

What runs where. The rows never come to the driver: qrels and run rows are shuffled together by
query (one hash partitioning, so each query's judgments and ranking sit in one partition), and each
partition is evaluated inside a Python worker by this package's own single-machine evaluator
(:class:`~ir_measures_graded.provider.GradedProvider`) on Arrow data — integer ids as integers,
other ids dictionary-encoded, so no Python object is made per row. The driver only resolves parameters that need the whole collection
(``levels='collection'``: the labels above the floor; ``norm='collection'``: the highest gain), with
small Spark aggregations, and receives per-measure sums.

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
import numpy as np

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures import GradedMeasure, muAP, muP, nDCNG

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
        f"{measure} is not available on the Spark engine; it computes muAP/muMAP, muP@k, nDCNG@k, meanNDCG, "
        "meanNDCNG (every parameter) and AP, P@k, nDCG@k (dcg='log2') with trec_eval's conventions"
    )


def _parse(measures: Iterable[ir_measures.Measure | str]) -> list[ir_measures.Measure]:
    parsed = [ir_measures.parse_measure(m) if isinstance(m, str) else m for m in measures]
    return list(dict.fromkeys(parsed))  # the user's order, each measure once


def _collection_labels(judged: DataFrame, floor: float) -> tuple[float, ...]:
    """The distinct labels above ``floor`` in the whole qrels (``levels='collection'``)."""
    from pyspark.sql import functions as F

    # Spark orders NaN above every number: leave NaN labels to the workers' clear error
    rows = judged.where((F.col(_VALUE) > floor) & ~F.isnan(_VALUE)).select(_VALUE).distinct().collect()
    return tuple(sorted(float(r[0]) for r in rows))


def _collection_gain(judged: DataFrame, gains: dict | None, floor: float) -> float:
    """The highest gain ``max(gains.get(label, label) - floor, 0)`` in the qrels (``norm='collection'``)."""
    from pyspark.sql import functions as F

    label = F.col(_VALUE)
    mapped = label
    if gains:
        mapped = None
        for source, target in gains.items():
            mapped = (F.when(label == float(source), float(target)) if mapped is None
                      else mapped.when(label == float(source), float(target)))
        mapped = mapped.otherwise(label)
    finite = judged.where(~F.isnan(_VALUE))
    top = finite.select(F.max(F.greatest(mapped - F.lit(float(floor)), F.lit(0.0)))).collect()[0][0]
    # All gains 0: any normaliser gives 0, as the single-machine path does with m = 0.
    return float(top) if top is not None and top > 0 else 1.0


def _resolved(measure: GradedMeasure, judged: DataFrame, cache: dict) -> GradedMeasure:
    """``measure`` with collection-wide parameters replaced by their values in ``judged``."""
    if "levels" in measure.SUPPORTED_PARAMS and measure.levels() == "collection":
        key = ("levels", measure.floor())
        if key not in cache:
            cache[key] = _collection_labels(judged, measure.floor())
        measure = measure(levels=cache[key]) if cache[key] else measure
    if "norm" in measure.SUPPORTED_PARAMS and measure["norm"] == "collection":
        gains = measure.params.get("gains")
        key = ("norm", None if gains is None else tuple(sorted(gains.items())), measure.floor())
        if key not in cache:
            cache[key] = _collection_gain(judged, gains, measure.floor())
        measure = measure(norm=cache[key])
    return measure


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


def _partition_evaluator(measures: list[GradedMeasure], names: list[str]):
    """The function ``mapInArrow`` runs on each query-partitioned slice of qrels and run rows."""
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
        qrels = _frame(table.filter(judged), "relevance")
        if not len(qrels):  # only run rows: queries the qrels do not know are skipped
            return
        run = _frame(table.filter(pc.invert(judged)), "score")
        del table
        computed = {spec: ir_measures.parse_measure(spec) for spec in names_of}
        names_by_measure = {str(m): names_of[spec] for spec, m in computed.items()}
        evaluator = GradedProvider().evaluator(list(computed.values()), qrels)
        query_ids, measure_names, values = [], [], []
        for metric in evaluator.iter_calc(run):
            for name in names_by_measure[str(metric.measure)]:
                query_ids.append(metric.query_id)
                measure_names.append(name)
                values.append(metric.value)
        yield pa.RecordBatch.from_arrays(
            [pa.array(query_ids, pa.string()), pa.array(measure_names, pa.string()),
             pa.array(values, pa.float64())], names=["q", "measure", "value"])

    return evaluate


def _frame(table: Any, value_name: str) -> pd.DataFrame:
    """Arrow rows as the DataFrame ir_measures takes; ids as categoricals (each distinct id once)."""
    frame = table.select([_QUERY, _DOC, _VALUE]).to_pandas(strings_to_categorical=True)
    frame.columns = ["query_id", "doc_id", value_name]
    return frame


def _per_query(measures: list[GradedMeasure], names: list[str], rows: DataFrame,
               partitions: int | None) -> DataFrame:
    by_query = rows.repartition(partitions, _QUERY) if partitions else rows.repartition(_QUERY)
    return by_query.mapInArrow(_partition_evaluator(measures, names), _RESULT_SCHEMA)


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

    originals = _parse(measures)
    internal = [_as_graded(m) for m in originals]
    judged, rows = _union(qrels, run, query_col, doc_col, relevance_col, score_col)
    cache: dict = {}
    resolved = [_resolved(m, judged, cache) for m in internal]
    result = _per_query(resolved, [str(m) for m in originals], rows, partitions)
    query_type = qrels.schema[query_col].dataType
    return result.select(F.col("q").cast(query_type).alias(query_col), "measure", "value")


def calc_aggregate(measures: Iterable[ir_measures.Measure | str], qrels: DataFrame, run: DataFrame,
                   query_col: str = "query_id", doc_col: str = "doc_id", relevance_col: str = "relevance",
                   score_col: str = "score", partitions: int | None = None) -> dict[ir_measures.Measure, float]:
    """``{measure: value}`` as ``ir_measures.calc_aggregate``; only per-measure sums reach the driver.

    Every measure is the mean over the qrels' queries, except ``muAP(levels='collection')``, which
    follows the paper's collection-level reading (Figs. 6-8): for each collection threshold t,
    MAP^t is the mean AP^t over the queries with a judgment at or above t, and µMAP is the mean of
    the MAP^t weighted as the measure's ``weights`` says.
    """
    from pyspark.sql import functions as F

    originals = _parse(measures)
    internal = [_as_graded(m) for m in originals]
    judged, rows = _union(qrels, run, query_col, doc_col, relevance_col, score_col)
    cache: dict = {}
    resolved = [_resolved(m, judged, cache) for m in internal]
    names = [str(m) for m in originals]
    # Collection-level µMAP needs AP^t of every query at every threshold t: computed alongside.
    by_level: dict[int, list[tuple[float, str]]] = {}
    extra: list[GradedMeasure] = []
    for i, (before, after) in enumerate(zip(internal, resolved, strict=True)):
        if before.NAME == "muAP" and "levels" in before.params and before.levels() == "collection":
            by_level[i] = []
            for t in after.levels() if after.levels() != "collection" else ():
                level_measure = after(levels=(t,))
                by_level[i].append((t, f"\x00level {len(extra)}"))
                extra.append(level_measure)
    all_names = names + [name for levels in by_level.values() for _, name in levels]
    per_query = _per_query(resolved + extra, all_names, rows, partitions)
    with _clear_errors():
        sums = {r["measure"]: (r["total"], r["n"]) for r in per_query.groupBy("measure").agg(
            F.sum("value").alias("total"), F.count("value").alias("n")).collect()}
    result = {}
    for i, measure in enumerate(originals):
        if i in by_level:
            result[measure] = _collection_mu(resolved[i], by_level[i], sums, judged)
        else:
            total, n = sums.get(names[i], (0.0, 0))
            result[measure] = total / n if n else float("nan")
    return result


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


def _collection_mu(measure: GradedMeasure, levels: list[tuple[float, str]], sums: dict,
                   judged: DataFrame) -> float:
    """Distance-weighted mean of MAP^t, each over the queries with a judgment at or above t."""
    from pyspark.sql import functions as F

    if not levels:
        return 0.0
    thresholds = np.array([t for t, _ in levels])
    top = judged.groupBy(_QUERY).agg(F.max(_VALUE).alias("top"))
    counts = top.agg(*[F.sum((F.col("top") >= float(t)).cast("long")).alias(f"c{i}")
                       for i, t in enumerate(thresholds)]).collect()[0]
    n_queries = np.array([counts[f"c{i}"] or 0 for i in range(len(thresholds))], dtype=np.float64)
    totals = np.array([sums.get(name, (0.0, 0))[0] for _, name in levels])
    maps = np.divide(totals, n_queries, out=np.zeros(len(thresholds)), where=n_queries > 0)
    if measure["weights"] == "uniform":
        weights = np.ones(len(thresholds))
    else:
        weights = np.diff(np.concatenate([[measure.floor()], thresholds]))
    return float(np.sum(weights * maps) / np.sum(weights))


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

    if not os.path.exists(path) and "://" not in path:
        raise GradedInputError(f"{kind} file not found: {path}")
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
    """``ir-measures-graded --engine spark ...``: the single-machine command's output, computed on Spark."""
    import pandas as pd

    from ir_measures_graded import cli

    if args.provider not in (None, "graded"):
        raise cli.UsageError("--engine spark computes every measure itself: drop --provider")
    if args.thresholds:
        raise cli.UsageError("--thresholds is not available with --engine spark")
    if args.no_summary and not args.by_query:
        raise cli.UsageError("--no_summary (-n) only goes with --by_query (-q)")
    run_paths, measures = cli.split_inputs(args.inputs)
    for m in measures:
        _as_graded(m)  # unsupported measures fail before Spark starts
    # pyspark warns about pandas >= 3 in the driver and in every worker: not the user's concern here
    os.environ.setdefault("PYTHONWARNINGS", "ignore::FutureWarning")
    warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
    spark = session(args.master, quiet=True)
    qrels = read_qrels(spark, args.qrels)
    names = [str(m) for m in measures]
    results = []
    for path in run_paths:
        run = read_run(spark, path)
        if args.by_query:  # per-query results (not rows) come to the driver; the writer sums them
            with _clear_errors():
                for row in calc_per_query(measures, qrels, run).toLocalIterator():
                    results.append((path, str(row[0]), row["measure"], row["value"]))
        else:  # one row per measure holding its aggregate: the writer's mean of it is the value itself
            for measure, value in calc_aggregate(measures, qrels, run).items():
                results.append((path, cli.SUMMARY_QID, str(measure), value))
    table = pd.DataFrame(results, columns=cli.COLUMNS)
    cli.write_results(table, names, {str(m): m for m in measures}, args, out)
    return 0
