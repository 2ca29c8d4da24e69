"""Reading on the driver: TREC text and Parquet files as DataFrames, their columns' types checked
from the schema; the rows are checked and parsed in the workers (:mod:`.workers`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ir_measures_graded.engines.spark.jobs import _partition_offsets, clear_errors
from ir_measures_graded.engines.spark.workers import _file_checker, _text_parser
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.trec import QRELS, RUN, Layout

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


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


def located(path: str) -> str:
    """Where the JVM reads ``path``: a local path made absolute (the JVM's working folder need not be
    ours); a URL as it is. Messages name the path as given, as the local engine does."""
    return path if "://" in path else os.path.abspath(path)


#: The extension by which Spark (Hadoop's codecs) decompresses a text file, per compression.
SPARK_SUFFIXES = {"gzip": ".gz", "bz2": ".bz2", "zstd": ".zst"}


def _check_local(path: str, layout: Layout) -> None:
    """A local input the JVM would misread, refused with one line: missing (as the local engine says
    it), or compressed where Hadoop decompresses by the file's name only (gzip not named ``.gz``, text
    named ``.gz``, xz)."""
    from ir_measures_graded.io.readers import compression

    if not os.path.exists(path):
        if layout is QRELS:
            from ir_measures_graded.sources import qrels_dataset

            qrels_dataset(path)  # the local engine's message for a name that is neither a file nor an id
            raise GradedInputError(f"qrels {path!r} is an ir_datasets id: the Spark engine reads files (TREC text "
                                   "or Parquet); write its qrels to a file first")
        raise GradedInputError(f"{layout.kind} file not found: {path}")
    if os.path.isdir(path):
        return  # a folder of Parquet files
    with open(path, "rb") as raw:
        method = compression(raw.read(16))
    named = next((m for m, suffix in SPARK_SUFFIXES.items() if path.endswith(suffix)), None)
    if method == named or (method is None and named is None):
        return
    if method not in (None, *SPARK_SUFFIXES):
        raise GradedInputError(f"{layout.kind} file {path} is compressed with {method}, which the Spark engine "
                               "cannot read: decompress it first, or compress it with gzip (.gz)")
    if method is None:
        raise GradedInputError(f"{layout.kind} file {path} is named {SPARK_SUFFIXES[named]} but is not "
                               f"{named}-compressed: the Spark engine decompresses by the file's name; rename it")
    raise GradedInputError(f"{layout.kind} file {path} is compressed with {method} but not named "
                           f"{SPARK_SUFFIXES[method]}: the Spark engine decompresses by the file's name; name it "
                           f"{os.path.basename(path)}{SPARK_SUFFIXES[method]}")


@contextmanager
def readable(path: str, layout: Layout) -> Iterator[None]:
    """A file the JVM cannot read (a truncated or corrupt gzip file, ...) as one line naming it and the
    JVM's cause, not a Java stack."""
    from py4j.protocol import Py4JJavaError

    try:
        yield
    except Py4JJavaError as ex:
        text = str(ex)
        if "FAILED_READ_FILE" not in text and "cannotReadFilesError" not in text:
            raise
        causes = [line.strip()[len("Caused by: "):] for line in text.splitlines()
                  if line.strip().startswith("Caused by: ")]
        why = causes[-1] if causes else "Spark could not read it"
        raise GradedInputError(f"cannot read {layout.kind} file {path}: {why}") from None


def _read(spark: SparkSession, path: str, layout: Layout) -> DataFrame:
    from pyspark.sql import functions as F

    given = path  # as typed: what messages name
    if "://" not in path:
        _check_local(path, layout)
    path = located(path)
    if _is_parquet(path):
        return _read_parquet(spark, path, layout, given)
    source = spark.read.text(path)
    with readable(given, layout):
        offsets, _ = _partition_offsets(source)  # lines before each partition: messages name the file's line

    def parsed(offsets: list[int] | None) -> DataFrame:
        return source.mapInArrow(_text_parser(given, layout, offsets),
                                 f"query_id string, doc_id string, {layout.value} double")

    with readable(given, layout), clear_errors():  # bad input is reported here, naming the file's line
        parsed(offsets).select(F.count(F.lit(1))).collect()
    return parsed(None)  # later jobs may number partitions otherwise (a union): no line numbers needed there


def _read_parquet(spark: SparkSession, path: str, layout: Layout, given: str | None = None) -> DataFrame:
    """The file's columns, checked as the reading package checks Parquet, with its messages: the
    columns and their types on the driver, from the schema; the rows by one aggregation in the JVM,
    and only where it finds a null or a non-finite value, by the reading package's checks in the
    workers, naming the file's row. Later jobs read the file's columns as they are (no Python pass
    before the shuffle; the evaluating workers check every row again anyway)."""
    from pyspark.sql import functions as F

    from ir_measures_graded.io.columnar import check_columns, source_name

    source = spark.read.parquet(path)
    path = path if given is None else given  # messages name the file as given
    cols = ("query_id", "doc_id", layout.value)
    check_columns(path, layout, source.columns, list(cols))
    _check_types(source, layout, cols, source_name(layout, path))
    query, doc, value = (F.col(c) for c in cols)
    bad = query.isNull() | doc.isNull() | value.isNull() | F.isnan(value) | (F.abs(value) == float("inf"))
    offsets, bad_rows = _partition_offsets(source, bad)
    if bad_rows:
        with clear_errors():
            _checked_file(source, path, layout, offsets).select(F.count(F.lit(1))).collect()
    return source.select(*cols)



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
    """A Parquet file's rows checked in the workers as the reading package checks Parquet, its
    messages naming the file's row. ``offsets``: the number of rows before each partition of ``frame``."""
    return frame.mapInArrow(_file_checker(name, layout, offsets),
                            f"query_id string, doc_id string, {layout.value} double")
