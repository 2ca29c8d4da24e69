"""How the driver runs the engine's jobs: the session settings while they run, and errors found in
the workers raised as one line (:class:`GradedInputError`), naming the input's rows."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ir_measures_graded.engines.spark.workers import DUPLICATE
from ir_measures_graded.errors import GradedInputError, as_text
from ir_measures_graded.io.ids import duplicate_error

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: One side of the input as the user gave it: a DataFrame, its query and doc ids (column names or
#: expressions), and the file its rows are the lines of (None: rows of a DataFrame, numbered from 0).
Side = tuple["DataFrame", Any, Any, "str | None"]

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
def job_settings(spark: SparkSession) -> Iterator[None]:
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
def clear_errors(sides: Callable[[], Mapping[str, Side]] | None = None) -> Iterator[None]:
    """Bad input found inside a worker (a duplicate (query, doc), a NaN label, a missing id) is raised
    on the driver as the worker's :class:`GradedInputError` message, not as a Spark traceback.

    ``sides``: gives the input DataFrames by side (``qrels``, ``run``; called on the error path only,
    as reading a file's lines has a cost): a duplicate (query, doc) is then
    reported at the input's rows, as the local engine reports it (a worker sees rows after the shuffle).
    """
    from pyspark.errors import PythonException

    try:
        yield
    except PythonException as ex:
        marker = f"{GradedInputError.__name__}: "
        lines = [line for line in str(ex).splitlines() if marker in line]
        if lines:
            message = lines[-1].split(marker, 1)[1]
            if message.startswith(DUPLICATE):
                raise _duplicate(json.loads(message[len(DUPLICATE):]), sides() if sides else {}) from None
            raise GradedInputError(message) from None
        missing = [line.strip() for line in str(ex).splitlines() if line.strip().startswith(("ModuleNotFoundError",
                                                                                              "ImportError"))]
        if missing:  # the workers' Python lacks this package (or what it needs)
            raise GradedInputError(
                f"the Spark workers cannot import what this package needs ({missing[-1]}): install "
                "ir-measures-graded[spark] on the executors, or set PYSPARK_PYTHON to a Python that has it "
                f"(this one: {sys.executable})") from None
        raise


def _duplicate(found: list[str], sides: Mapping[str, Side]) -> GradedInputError:
    """The local engine's error for the input's first duplicate (query, doc) on the side a worker
    found one (``[side, query, doc]``): the first two input rows holding the same (query, doc), the
    second as early as possible — :func:`ir_measures_graded.io.ids.first_duplicate` on the input."""
    side, query, doc = found
    if side not in sides:  # no DataFrame to number the rows of: the pair alone
        return GradedInputError(f"{side} has the same (query, doc) more than once: query {as_text(query)!r}, "
                                f"doc {as_text(doc)!r}")
    pair = first_duplicate_rows(*sides[side])
    if pair is None:  # pragma: no cover - the input changed between the jobs
        return GradedInputError(f"{side} has the same (query, doc) more than once: query {as_text(query)!r}, "
                                f"doc {as_text(doc)!r}")
    query, doc, first, second = pair
    name = sides[side][3]
    if name is None:
        return duplicate_error(side, query, doc, first, second)
    return duplicate_error(side, query, doc, first + 1, second + 1, name=name, unit="line")


def first_duplicate_rows(frame: DataFrame, query: Any, doc: Any, name: str | None = None
                         ) -> tuple[str, str, int, int] | None:
    """``(query, doc, first row, second row)`` of ``frame``'s first duplicate (query, doc) (ids as
    strings), rows numbered from 0 in the DataFrame's order; None without one (``name``: unused,
    as in :data:`Side`). Two jobs, on the error
    path only: the rows of each partition, then the repeated pairs with their (partition, position)."""
    from pyspark.sql import functions as F

    offsets, _ = _partition_offsets(frame)
    # a row's position in its partition: the low 33 bits of monotonically_increasing_id
    at = F.struct(F.spark_partition_id().alias("p"), F.monotonically_increasing_id().bitwiseAND((1 << 33) - 1).alias("i"))
    query, doc = (F.col(c) if isinstance(c, str) else c for c in (query, doc))
    rows = (frame.select(query.cast("string").alias("q"), doc.cast("string").alias("d"),
                         at.alias("at"))
            .groupBy("q", "d").agg(F.sort_array(F.collect_list("at")).alias("at"))
            .where(F.size("at") > 1)
            .select("q", "d", F.col("at")[0].alias("first"), F.col("at")[1].alias("second"))
            .orderBy(F.col("second.p"), F.col("second.i")).limit(1).collect())
    if not rows:
        return None
    q, d, first, second = rows[0]
    return q, d, offsets[first.p] + first.i, offsets[second.p] + second.i


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
