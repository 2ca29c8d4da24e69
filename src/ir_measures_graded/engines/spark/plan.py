"""The driver's plan: the user's DataFrames projected to the internal schema, grouped by query in
the JVM and handed to the workers' evaluating function (:mod:`.workers`); the measures as the
engine computes them.

What runs where. The rows never come to the driver: in the JVM, each side's rows are grouped by
query into two arrays, doc ids and values (started on the map side, before the shuffle), and the
two sides joined by query, so each query is one row holding its judgments and its ranking. Batches
of these rows are evaluated, as they arrive, inside Python workers (:mod:`.workers`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import ir_measures

from ir_measures_graded.engines.spark.jobs import clear_errors
from ir_measures_graded.engines.spark.read import _check_types
from ir_measures_graded.engines.spark.workers import (
    _DOC,
    _JUDGED,
    _QUERY,
    _RETRIEVED,
    _VALUE,
    _partition_evaluator,
)
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.columns import check_columns
from ir_measures_graded.io.trec import QRELS, RUN
from ir_measures_graded.measures import MEASURES, GradedMeasure, muAP, muP, nDCNG
from ir_measures_graded.measures.base import parse_measures

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

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



def _evaluated(measures: list[ir_measures.Measure | str], qrels: DataFrame, run: DataFrame, columns: tuple,
               partitions: int | None, aggregate: bool) -> tuple[list, list[GradedMeasure], list[float], DataFrame]:
    """``(measures as given, as computed, the qrels' labels, mapInArrow result)``."""
    originals = parse_measures(measures, at_least_one=False)  # as ir_measures: none gives {}
    computed = [_as_graded(m) for m in originals]
    judged, by_query = rows_by_query(qrels, run, columns, partitions)
    labels = []
    if any(m.uses_collection() for m in computed):  # a job of its own (0.3 s on 10M run rows): only then
        with clear_errors():  # the first job (read from a text file, qrels are parsed in the workers)
            labels = _labels(judged)
    schema = "measure string, threshold long, total double, n long, weight double" if aggregate else _RESULT_SCHEMA
    query_col, doc_col, relevance_col, score_col = columns
    fields = ((query_col, doc_col, relevance_col), (query_col, doc_col, score_col))
    evaluate = _partition_evaluator(computed, [str(m) for m in originals], labels, aggregate, fields)
    return originals, computed, labels, by_query.mapInArrow(evaluate, schema)


