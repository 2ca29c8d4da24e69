"""Evaluation of qrels and runs held in Spark DataFrames (optional extra ``spark``).

    from ir_measures_graded import spark as graded_spark   # this module (ir_measures_graded.engines.spark)
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
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import ir_measures
import numpy as np

from ir_measures_graded.arrow import empty, empty_strings, from_numpy, from_strings
from ir_measures_graded.engines import Request, RunResult, name_tags, run_tag
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.columns import check_columns
from ir_measures_graded.io.trec import QRELS, RUN, Layout
from ir_measures_graded.measures import MEASURES, GradedMeasure, muAP, muP, nDCNG
from ir_measures_graded.measures.base import parse_measures

if TYPE_CHECKING:  # pyspark is optional: imported where a function needs it
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["calc_aggregate", "calc_per_query", "read_qrels", "read_run", "session", "SparkEngine"]

# Columns of the internal schema: a row of either side, and the arrays of one query's rows.
_QUERY, _DOC, _VALUE = "q", "d", "v"
_JUDGED, _RETRIEVED = "qrels", "run"
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


def _labels(judged: DataFrame) -> list[float]:
    """The distinct (finite) labels of the whole qrels, for every quantity that needs the collection."""
    rows = judged.select(_VALUE).distinct().collect()
    # null, NaN and infinite labels are left to the clear error of the workers' checks
    return sorted(r[0] for r in rows if r[0] is not None and math.isfinite(r[0]))


# --- data -------------------------------------------------------------------------------------------

def _sides(qrels: DataFrame, run: DataFrame, query_col: str, doc_col: str, relevance_col: str,
           score_col: str) -> tuple[DataFrame, DataFrame]:
    """``(judged, retrieved)``: qrels and run rows in the internal schema (``q``, ``d``, ``v``).

    Nothing but a projection and casts, all in the JVM: the columns needed, ids of one type on both
    sides (integers stay integers; strings where either side has strings, as ids compare as
    strings), values as doubles. Their types are checked here, from the schemas; their rows in the
    workers that evaluate them (:func:`_checked_side`).
    """
    from pyspark.sql import functions as F

    sides = ((qrels, QRELS, (query_col, doc_col, relevance_col)), (run, RUN, (query_col, doc_col, score_col)))
    for frame, layout, cols in sides:
        check_columns(frame.columns, list(cols), f"{layout.kind} DataFrame")
        _check_types(frame, layout, cols)
    query_type, doc_type = (_id_type(qrels.schema[col].dataType, run.schema[col].dataType)
                            for col in (query_col, doc_col))

    def internal(frame: DataFrame, cols: tuple[str, str, str]) -> DataFrame:
        return frame.select(F.col(cols[0]).cast(query_type).alias(_QUERY), F.col(cols[1]).cast(doc_type).alias(_DOC),
                            F.col(cols[2]).cast("double").alias(_VALUE))

    return internal(qrels, sides[0][2]), internal(run, sides[1][2])


def rows_by_query(qrels: DataFrame, run: DataFrame, columns: tuple[str, str, str, str],
                  partitions: int | None = None) -> tuple[DataFrame, DataFrame]:
    """``(judged, by_query)``: the qrels in the internal schema, and one row per query: ``q``, its
    judgments as two arrays ``qrels_d`` and ``qrels_v`` (doc ids, labels), its ranked documents as
    ``run_d`` and ``run_v`` (doc ids, scores), and each side's rows holding a null (bad input) in
    ``qrels_null`` and ``run_null``; all null where that side lacks the query — what the
    evaluating workers receive, and what ``benchmarks/spark_bench.py`` times. ``columns``: query, doc, relevance, score; ``partitions``:
    the number of query partitions (default: ``spark.sql.shuffle.partitions``).

    Why arrays: Spark hands rows to Python workers one value at a time; a query's rows as two
    arrays cross in about a third of the time of the same values as rows (10M run rows: 1.2 s
    instead of 3.2 s on two cores), and the grouping starts on the map side, before the shuffle.
    """
    from pyspark.sql import functions as F

    judged, retrieved = _sides(qrels, run, *columns)
    if partitions:  # the grouping and the join below keep this partitioning: no other shuffle
        judged, retrieved = (side.repartition(partitions, _QUERY) for side in (judged, retrieved))

    def grouped(side: DataFrame, name: str) -> DataFrame:
        # Two arrays, not one of (d, v) structs: a third less time to build and hand over. They pair
        # up: the functions of one aggregation see the same rows in the same order and merge their
        # partial arrays in the same order (checked by length in the workers). collect_list skips
        # nulls, so rows with a null go, whole, to a third array (empty but for bad input), which
        # the workers check first.
        doc, value = F.col(_DOC), F.col(_VALUE)
        complete = doc.isNotNull() & value.isNotNull()
        return side.groupBy(_QUERY).agg(F.collect_list(F.when(complete, doc)).alias(f"{name}_{_DOC}"),
                                        F.collect_list(F.when(complete, value)).alias(f"{name}_{_VALUE}"),
                                        F.collect_list(F.when(~complete, F.struct(doc, value))).alias(f"{name}_null"))

    # full: the run rows of a query the qrels lack are checked too (then skipped), as on one machine
    return judged, grouped(judged, _JUDGED).join(grouped(retrieved, _RETRIEVED), _QUERY, "full_outer")


def _id_type(*types: Any) -> str:
    """The type both sides' ids are shuffled as: ``int`` or ``bigint`` where every side holds integers
    (compared as their decimal strings, which match exactly where the integers do), else ``string``
    (Spark's cast of an integer to a string is its decimal string, as Arrow's)."""
    from pyspark.sql.types import ByteType, IntegerType, IntegralType, ShortType

    if not all(isinstance(t, IntegralType) for t in types):
        return "string"
    return "int" if all(isinstance(t, (ByteType, ShortType, IntegerType)) for t in types) else "bigint"


def _check_types(frame: DataFrame, layout: Layout, cols: tuple[str, str, str], what: str | None = None) -> None:
    """The column types the local engine accepts, refused as it refuses them (on the driver, from the
    schema, before any job): ids strings or integers, values numbers (1.0 would never match 1).
    ``what`` names the input in messages (default: the layout's kind, as for Arrow data in memory)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_type

    from ir_measures_graded.io.columns import arrow_values
    from ir_measures_graded.io.ids import arrow_ids

    what = what or layout.kind
    for col, is_id in zip(cols, (True, True, False), strict=True):
        data_type = frame.schema[col].dataType
        try:
            empty = pa.array([], to_arrow_type(data_type))
        except (TypeError, ValueError, NotImplementedError, pa.ArrowException):  # no Arrow equivalent (a map)
            expected = "strings (or integers)" if is_id else "numbers"
            raise GradedInputError(f"{what}: column {col!r} holds {data_type.simpleString()}, "
                                   f"expected {expected}") from None
        if is_id:  # the checks of the local engine's Arrow input, on an empty column of this type
            arrow_ids(empty, what, col)
        else:
            arrow_values(empty, what, col, str)


def _checked_file(frame: DataFrame, name: str, layout: Layout, offsets: list[int]) -> DataFrame:
    """A Parquet file's rows checked in the workers as the reading package checks Parquet
    (:func:`ir_measures_graded.io.columnar.record_blocks`), its messages naming the file's row.
    ``offsets``: the number of rows before each partition of ``frame``."""
    source = ["query_id", "doc_id", layout.value]

    def check(batches: Iterator[Any]) -> Iterator[Any]:
        from ir_measures_graded.io.columnar import record_blocks

        for block in record_blocks(batches, name, layout, source, first_row=offsets[_partition()]):
            yield block.table.rename_columns(["query_id", "doc_id", layout.value]).to_batches()[0] \
                if block.table.num_rows else _empty(layout)

    return frame.mapInArrow(check, f"query_id string, doc_id string, {layout.value} double")


def _partition() -> int:
    from pyspark import TaskContext

    return TaskContext.get().partitionId()


def _empty(layout: Layout) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_arrays([empty(pa.string()), empty(pa.string()), empty(pa.float64())],
                                      names=["query_id", "doc_id", layout.value])


# A query made of one judgment per label of the collection, added to every batch's qrels: the
# labels the single-machine code reads from the whole qrels (levels='collection', norm='collection',
# GAP's grades) are then the same in every worker, and so are the values. Its id is reserved.
_LABELS_QUERY = "\x00collection-labels"


def _partition_evaluator(measures: list[GradedMeasure], names: list[str], labels: list[float], aggregate: bool,
                         fields: tuple[tuple[str, str, str], tuple[str, str, str]]):
    """The function ``mapInArrow`` runs on each partition of :func:`rows_by_query`'s rows (one per query).

    Every row is checked here first (:func:`_checked_side`), run rows of queries the qrels lack
    too; ``fields``: the user's qrels and run columns, for messages.

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
        from ir_measures_graded.provider import GradedProvider

        computed = {spec: ir_measures.parse_measure(spec) for spec in names_of}
        names_by_measure = {str(m): names_of[spec] for spec, m in computed.items()}
        aggregators = {str(m): m.aggregator() for m in computed.values()} if aggregate else {}
        evaluated = False
        # Each row holds a whole query, so every batch is evaluated as it comes: the JVM builds the
        # next batch meanwhile, and a worker holds one batch, not its partition.
        for batch in batches:
            qrels = _checked_side(batch, _JUDGED, QRELS, fields[0])
            run = _checked_side(batch, _RETRIEVED, RUN, fields[1])
            if not qrels.num_rows:  # only run rows: queries the qrels do not know are skipped
                continue
            evaluator = GradedProvider().evaluator(list(computed.values()), _with_labels_query(qrels, labels))
            metrics = (m for m in evaluator.iter_calc(run) if m.query_id != _LABELS_QUERY)
            if aggregate:
                for metric in metrics:
                    aggregators[str(metric.measure)].add(metric.value)
                evaluated = True
            else:
                yield _per_query(metrics, names_by_measure)
        if evaluated:
            yield _partial_aggregates(aggregators, names_by_measure)

    return evaluate


def _rows(batch: Any, side: str) -> Any:
    """One side's rows (Arrow: ``q``, ``d``, ``v``) from a batch of :func:`rows_by_query`'s per-query
    arrays: rows with a null first (so that they are the ones reported), then the others."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ir_measures_graded.io.ids import as_strings

    docs, values, incomplete = (batch.column(f"{side}_{name}") for name in (_DOC, _VALUE, "null"))
    if pc.equal(pc.list_value_length(docs), pc.list_value_length(values)).false_count:
        raise RuntimeError(f"Spark gave a query's {side} doc ids and values in arrays of different lengths")
    query = as_strings(batch.column(_QUERY))  # once per query, not per row

    def per_row(arrays: Any) -> Any:  # each row's query: an index into the batch's query ids
        return pa.DictionaryArray.from_arrays(pc.list_parent_indices(arrays), query)

    rows = pa.table([per_row(docs), docs.flatten(), values.flatten()],
                    names=[_QUERY, _DOC, _VALUE])  # flatten: the elements of the valid (non-null) arrays
    nulls = incomplete.flatten()
    if not len(nulls):
        return rows
    bad = pa.table([per_row(incomplete), nulls.field(_DOC), nulls.field(_VALUE)], names=[_QUERY, _DOC, _VALUE])
    return pa.concat_tables([bad, rows]).combine_chunks()


def _checked_side(batch: Any, side: str, layout: Layout, fields: tuple[str, str, str]) -> Any:
    """One side's rows (:func:`_rows` of a batch) checked by the reading package as any Arrow input
    (:func:`ir_measures_graded.io.columnar.checked_table`: ids as strings but integer doc ids, which
    stay int64, values finite doubles, no nulls); columns ``query_id``, ``doc_id`` and the layout's
    value. Messages name the user's column and the row's query and doc: after the shuffle, a row's
    number says nothing."""
    import pyarrow as pa

    from ir_measures_graded.io.columnar import checked_table

    what = f"{layout.kind} DataFrame"
    rows = _rows(batch, side)
    columns = [rows.column(c) for c in (_QUERY, _DOC, _VALUE)]
    # messages show ids as the user's column holds them (_rows made the query ids strings)
    integer_queries = pa.types.is_integer(batch.schema.field(_QUERY).type)

    def where(row: int) -> str:
        query, doc = (column[row].as_py() for column in columns[:2])
        query = int(query) if integer_queries and query is not None else query
        named = [f"{role} {value!r}" for role, value in (("query", query), ("doc", doc)) if value is not None]
        return f"{what} ({', '.join(named)})" if named else what

    checked = checked_table(columns, what, list(fields), where, integer_docs=True, query_dictionary=True)
    return checked.rename_columns(["query_id", "doc_id", layout.value])


def _with_labels_query(qrels: Any, labels: list[float]) -> Any:
    """``qrels`` (Arrow: query_id, doc_id, relevance) with the collection-labels query appended."""
    import pyarrow as pa

    if not labels:
        return qrels
    if pa.types.is_dictionary(qrels.schema.field("query_id").type):  # one column of strings with the reserved id
        qrels = qrels.set_column(0, "query_id", qrels.column("query_id").cast(pa.string()))
    n = len(labels)
    docs = from_numpy(np.arange(n, dtype=np.int64)).cast(qrels.schema.field("doc_id").type)
    extra = pa.table([from_strings([_LABELS_QUERY] * n), docs, from_numpy(np.array(labels, dtype=np.float64))],
                     schema=qrels.schema)
    return pa.concat_tables([qrels, extra])


def _per_query(metrics: Iterable[ir_measures.Metric], names_by_measure: dict[str, list[str]]) -> Any:
    """Per-query values as ``(q, measure, value)`` rows, under every name the measure was asked by."""
    import pyarrow as pa

    query_ids, measure_names, values = [], [], []
    for metric in metrics:
        for name in names_by_measure[str(metric.measure)]:
            query_ids.append(metric.query_id)
            measure_names.append(name)
            values.append(float(metric.value))
    return pa.RecordBatch.from_arrays(
        [from_strings(query_ids), from_strings(measure_names), from_numpy(np.array(values, dtype=np.float64))],
        names=["q", "measure", "value"])


def _partial_aggregates(aggregators: dict[str, Any], names_by_measure: dict[str, list[str]]) -> Any:
    """One partition's share of every aggregate: the measure's own aggregator's partial sums, as
    ``(measure, threshold, total, n, weight)`` rows (threshold -1: a plain mean)."""
    import pyarrow as pa

    rows = [(name, *part) for key, agg in aggregators.items() for part in agg.partials()
            for name in names_by_measure[key]]
    columns = list(zip(*rows, strict=True)) if rows else [[], [], [], [], []]
    return pa.RecordBatch.from_arrays(
        [from_strings(list(columns[0])), from_numpy(np.array(columns[1], dtype=np.int64)),
         from_numpy(np.array(columns[2], dtype=np.float64)), from_numpy(np.array(columns[3], dtype=np.int64)),
         from_numpy(np.array(columns[4], dtype=np.float64))],
        names=["measure", "threshold", "total", "n", "weight"])


def _evaluated(measures: list[ir_measures.Measure | str], qrels: DataFrame, run: DataFrame, columns: tuple,
               partitions: int | None, aggregate: bool) -> tuple[list, list[GradedMeasure], list[float], DataFrame]:
    """``(measures as given, as computed, the qrels' labels, mapInArrow result)``."""
    originals = parse_measures(measures, at_least_one=False)  # as ir_measures: none gives {}
    computed = [_as_graded(m) for m in originals]
    judged, by_query = rows_by_query(qrels, run, columns, partitions)
    labels = []
    if any(m.uses_collection() for m in computed):  # a job of its own (0.3 s on 10M run rows): only then
        with _clear_errors():  # the first job (read from a text file, qrels are parsed in the workers)
            labels = _labels(judged)
    schema = "measure string, threshold long, total double, n long, weight double" if aggregate else _RESULT_SCHEMA
    query_col, doc_col, relevance_col, score_col = columns
    fields = ((query_col, doc_col, relevance_col), (query_col, doc_col, score_col))
    evaluate = _partition_evaluator(computed, [str(m) for m in originals], labels, aggregate, fields)
    return originals, computed, labels, by_query.mapInArrow(evaluate, schema)


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
    columns = (query_col, doc_col, relevance_col, score_col)
    originals, computed, _, parts = _evaluated(list(measures), qrels, run, columns, partitions, aggregate=True)
    with _clear_errors(), _job_settings(parts.sparkSession):
        rows = parts.collect()  # per partition, a few rows per measure: no shuffle to sum them first
    partials: dict[str, list] = {}
    for r in rows:
        partials.setdefault(r["measure"], []).append((r["threshold"], r["total"], r["n"], r["weight"]))
    result = {}
    for original, measure in zip(originals, computed, strict=True):
        aggregate = measure.aggregator()  # the measure's own aggregate, from the partitions' partial sums
        aggregate.merge(sorted(partials.get(str(original), [])))
        result[original] = aggregate.result()
    return result


#: Settings while our jobs run, where the session has Spark's default: ``(Spark's default, ours)``.
_JOB_SETTINGS = {
    # A batch holds whole queries and is evaluated as it arrives: small batches let the JVM build the
    # next one while the worker evaluates (10M run rows, local[2], paired in one session: 4.5 s at
    # 2-8 MiB, 5.3 s at 32 MiB or at 100,000 queries a batch), and bound what a worker holds.
    "spark.sql.execution.arrow.maxBytesPerBatch": ("67108864b", "4m"),
    # Adaptive execution merges the query partitions up to this size: at Spark's 64 MiB, 10M run rows
    # made 3 partitions, one left alone on 2 cores. At 16 MiB there are more than the cores (more
    # workers evaluating at once, waves even out).
    "spark.sql.adaptive.advisoryPartitionSizeInBytes": ("67108864b", "16m"),
}


@contextmanager
def _job_settings(spark: SparkSession) -> Iterator[None]:
    """:data:`_JOB_SETTINGS` while our job runs, except those the user chose."""
    ours = [key for key, (default, _) in _JOB_SETTINGS.items() if spark.conf.get(key, default) == default]
    for key in ours:
        spark.conf.set(key, _JOB_SETTINGS[key][1])
    try:
        yield
    finally:
        for key in ours:
            spark.conf.unset(key)


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
        if lines:
            raise GradedInputError(lines[-1].split(marker, 1)[1]) from None
        missing = [line.strip() for line in str(ex).splitlines() if line.strip().startswith(("ModuleNotFoundError",
                                                                                              "ImportError"))]
        if missing:  # the workers' Python lacks this package (or what it needs)
            raise GradedInputError(
                f"the Spark workers cannot import what this package needs ({missing[-1]}): install "
                "ir-measures-graded[spark] on the executors, or set PYSPARK_PYTHON to a Python that has it "
                f"(this one: {sys.executable})") from None
        raise


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


def read_qrels(spark: SparkSession, path: str) -> DataFrame:
    """Qrels from Parquet (a ``.parquet`` file or a folder of them) or a TREC qrels text file (plain or gzip).

    Read by Spark, checked and parsed in the workers by the reading package (the same parser, field
    layouts and messages as on one machine); a malformed line raises here, naming ``file:line``.
    """
    return _read(spark, path, QRELS)


def read_run(spark: SparkSession, path: str) -> DataFrame:
    """A run from Parquet or a six-column TREC run text file (plain or gzip); see :func:`read_qrels`."""
    return _read(spark, path, RUN)


def _is_parquet(path: str) -> bool:
    return path.rstrip("/").endswith(".parquet") or os.path.isdir(path)


def _read(spark: SparkSession, path: str, layout: Layout) -> DataFrame:
    from pyspark.sql import functions as F

    if "://" not in path:
        if not os.path.exists(path):
            raise GradedInputError(f"{layout.kind} file not found: {path}")
        path = os.path.abspath(path)  # the JVM's working folder need not be ours
    if _is_parquet(path):
        return _read_parquet(spark, path, layout)
    source = spark.read.text(path)
    offsets, _ = _partition_offsets(source)  # lines before each partition: messages name the file's line

    def parsed(offsets: list[int] | None) -> DataFrame:
        return source.mapInArrow(_text_parser(path, layout, offsets),
                                 f"query_id string, doc_id string, {layout.value} double")

    with _clear_errors():  # bad input is reported here, naming the file's line, not in a later job
        parsed(offsets).select(F.count(F.lit(1))).collect()
    return parsed(None)  # later jobs may number partitions otherwise (a union): no line numbers needed there


def _read_parquet(spark: SparkSession, path: str, layout: Layout) -> DataFrame:
    """The file's columns, checked as the reading package checks Parquet, with its messages: the
    columns and their types on the driver, from the schema; the rows by one aggregation in the JVM,
    and only where it finds a null or a non-finite value, by the reading package's checks in the
    workers, naming the file's row. Later jobs read the file's columns as they are (no Python pass
    before the shuffle; the evaluating workers check every row again anyway)."""
    from pyspark.sql import functions as F

    from ir_measures_graded.io.columnar import check_columns, source_name

    source = spark.read.parquet(path)
    cols = ("query_id", "doc_id", layout.value)
    check_columns(path, layout, source.columns, list(cols))
    _check_types(source, layout, cols, source_name(layout, path))
    query, doc, value = (F.col(c) for c in cols)
    bad = query.isNull() | doc.isNull() | value.isNull() | F.isnan(value) | (F.abs(value) == float("inf"))
    offsets, bad_rows = _partition_offsets(source, bad)
    if bad_rows:
        with _clear_errors():
            _checked_file(source, path, layout, offsets).select(F.count(F.lit(1))).collect()
    return source.select(*cols)


def _partition_offsets(source: DataFrame, bad: Any = None) -> tuple[list[int], int]:
    """``(rows before each partition, rows where ``bad`` holds)``, by one aggregation in the JVM."""
    from pyspark.sql import functions as F

    flagged = F.sum(bad.cast("int")) if bad is not None else F.lit(0)
    rows = source.groupBy(F.spark_partition_id().alias("p")).agg(F.count(F.lit(1)), flagged).collect()
    counts = {r[0]: r[1] for r in rows}
    offsets = [0] * (max(counts, default=-1) + 1)
    for p in range(1, len(offsets)):
        offsets[p] = offsets[p - 1] + counts.get(p - 1, 0)
    return offsets, sum(r[2] or 0 for r in rows)


def _text_parser(path: str, layout: Layout, offsets: list[int]):
    """The function ``mapInArrow`` runs on each partition of a text file's lines: the reading
    package's TREC block parser (:func:`ir_measures_graded.io.trec.parse_block`) on them."""

    def parse(batches: Iterator[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow.compute as pc

        from ir_measures_graded.io.trec import parse_block

        line = offsets[_partition()] + 1 if offsets else 1
        for batch in batches:
            n = batch.num_rows
            if not n:
                continue
            # the lines as one block of text, each ending in a newline (no Python string per line)
            text = pc.binary_join_element_wise(batch.column(0), empty_strings(n), "\n")
            ends = np.frombuffer(text.buffers()[1], dtype=np.int32)[text.offset:text.offset + n + 1]
            data = text.buffers()[2].to_pybytes()[int(ends[0]):int(ends[-1])]
            if line == 1 and data.startswith(b"\xef\xbb\xbf"):  # a byte order mark is not part of the first id
                data = data[3:]
            block, _ = parse_block(data, path, layout, line)
            line += n
            if block.table.num_rows:
                yield block.table.rename_columns(["query_id", "doc_id", layout.value]).to_batches()[0]

    return parse


# --- the engine -------------------------------------------------------------------------------------

class SparkEngine:
    """The command line's ``--engine spark``: what the local engine returns, computed on Spark.

    Only results come to the driver: per-query values with ``by_query`` (by measure, in the order
    given, then by query id), and each measure's aggregate.
    """

    def evaluate(self, request: Request) -> list[RunResult]:
        if request.provider not in (None, "graded"):
            raise GradedInputError("--engine spark computes every measure itself: drop --provider")
        if request.thresholds:
            raise GradedInputError("--thresholds is not available with --engine spark")
        measures = request.measures
        for m in measures:
            _as_graded(m)  # unsupported measures fail before Spark starts
        # pyspark warns about pandas >= 3 in the driver and in every worker: not the user's concern here
        os.environ.setdefault("PYTHONWARNINGS", "ignore::FutureWarning")
        warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
        spark = session(request.master, quiet=True)
        qrels = read_qrels(spark, request.qrels)
        by_name = {str(m): m for m in measures}
        position = {str(m): i for i, m in enumerate(measures)}
        results = []
        for path in request.runs:
            run = read_run(spark, path)
            per_query = []
            if request.by_query:
                with _clear_errors(), _job_settings(spark):
                    rows = [(str(r[0]), r["measure"], r["value"]) for r in
                            calc_per_query(measures, qrels, run).toLocalIterator()]
                rows.sort(key=lambda row: (position[row[1]], row[0]))
                per_query = [ir_measures.Metric(query_id=q, measure=by_name[name], value=v) for q, name, v in rows]
            summary = calc_aggregate(measures, qrels, run) if request.summary else {}
            tag = path if _is_parquet(path) else run_tag(path)
            results.append(RunResult(path, tag, per_query, summary))
        return name_tags(results)
