"""What the Spark executors run: the functions ``mapInArrow`` calls in the Python workers, and the
internal schema they share with the driver's plan (:mod:`.plan`).

This module is what a worker imports (the functions below are pickled by reference to it, their
closures by value): it imports only what they run — the reading package's checks and parser, the
single-machine evaluator, pyarrow and numpy — never the driver's plan, readers or public API
(:mod:`.plan`, :mod:`.read`, :mod:`.jobs`; the package's ``__init__`` loads them on first use), and
of pyspark only ``TaskContext``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import ir_measures
import numpy as np

from ir_measures_graded.arrow import empty, empty_strings, from_numpy, from_strings
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.trec import QRELS, RUN, Layout

if TYPE_CHECKING:
    from ir_measures_graded.measures import GradedMeasure

# Columns of the internal schema: a row of either side, and the arrays of one query's rows.
_QUERY, _DOC, _VALUE = "q", "d", "v"
_JUDGED, _RETRIEVED = "qrels", "run"


# A query made of one judgment per label of the collection, added to every batch's qrels: the
# labels the single-machine code reads from the whole qrels (levels='collection', norm='collection',
# GAP's grades) are then the same in every worker, and so are the values. Its id is reserved.
_LABELS_QUERY = "\x00collection-labels"


#: Starts the names of the counts a worker adds to its partial aggregates (``COUNT + "rows"``: the
#: run rows it saw; ``COUNT + "matched"``: the queries holding both judgments and run rows), for the
#: command line's warnings (a run missing queries), as the local engine counts them.
COUNT = "\x00count "


#: Starts the message of a duplicate (query, doc) found in a worker: JSON ``[side, query, doc]``
#: follows, from which the driver finds the input's rows (:func:`.jobs.clear_errors`); a worker
#: only sees its queries' rows, after the shuffle, whose positions say nothing of the input's.
DUPLICATE = "duplicate (query, doc) in the Spark input: "


def _partition_evaluator(measures: list[GradedMeasure], names: list[str], labels: list[float], aggregate: bool,
                         fields: tuple[tuple[str, str, str], tuple[str, str, str]]):
    """The function ``mapInArrow`` runs on each partition of :func:`.plan.rows_by_query`'s rows (one per query).

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
        counts = {"rows": 0, "matched": 0, "ranked": 0, "judged": 0}
        # Each row holds a whole query, so every batch is evaluated as it comes: the JVM builds the
        # next batch meanwhile, and a worker holds one batch, not its partition.
        for batch in batches:
            qrels = _checked_side(batch, _JUDGED, QRELS, fields[0])
            run = _checked_side(batch, _RETRIEVED, RUN, fields[1])
            counts["rows"] += run.num_rows
            if not qrels.num_rows:  # only run rows: queries the qrels do not know are skipped
                continue
            if aggregate:  # (what the counts serve: the command line's warnings, beside the aggregates)
                counts["matched"] += _shared_queries(qrels, run)
            with _duplicates_named({_JUDGED: qrels, _RETRIEVED: run}):
                evaluator = GradedProvider().evaluator(list(computed.values()), _with_labels_query(qrels, labels))
                with evaluator.counting() as joined:  # the run's rows of judged queries, and of judged documents
                    metrics = [m for m in evaluator.iter_calc(run) if m.query_id != _LABELS_QUERY]
            counts["ranked"] += joined["ranked"]
            counts["judged"] += joined["judged"]
            if aggregate:
                for metric in metrics:
                    aggregators[str(metric.measure)].add(metric.value)
            else:
                yield _per_query(metrics, names_by_measure)
        if aggregate:
            yield _partial_aggregates(aggregators, names_by_measure, counts)

    return evaluate


@contextmanager
def _duplicates_named(sides: dict[str, Any]) -> Iterator[None]:
    """A duplicate (query, doc) in one of ``sides`` (each side's rows of a batch) raised as
    :data:`DUPLICATE` and ``[side, query, doc]``, for the driver to name the input's rows; any other
    error as it is."""
    try:
        yield
    except GradedInputError:
        for side, rows in sides.items():
            pair = _first_duplicate(rows)
            if pair is not None:
                raise GradedInputError(DUPLICATE + json.dumps([side, *pair])) from None
        raise


def _first_duplicate(rows: Any) -> tuple[str, str] | None:
    """A (query, doc) held by more than one of ``rows`` (query_id, doc_id, value), as strings; None if
    none is (only on the error path: a group-by of the whole side)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    ids = pa.table([rows.column(0).cast(pa.string()), rows.column(1).cast(pa.string())], names=["q", "d"])
    counts = ids.group_by(["q", "d"]).aggregate([([], "count_all")])
    repeated = counts.filter(pc.greater(counts.column("count_all"), 1))
    if not repeated.num_rows:
        return None
    return repeated.column("q")[0].as_py(), repeated.column("d")[0].as_py()


def _rows(batch: Any, side: str) -> Any:
    """One side's rows (Arrow: ``q``, ``d``, ``v``) from a batch of :func:`.plan.rows_by_query`'s per-query
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


def _shared_queries(qrels: Any, run: Any) -> int:
    """How many queries of a batch hold both judgments and run rows (each side's ``query_id``)."""
    import pyarrow.compute as pc

    # the distinct ids first, then as strings: not a string per row (the columns hold dictionaries)
    judged, ranked = (pc.unique(side.column("query_id")).cast("string") for side in (qrels, run))
    return int(pc.sum(pc.is_in(ranked, value_set=judged)).as_py() or 0)


def _partial_aggregates(aggregators: dict[str, Any], names_by_measure: dict[str, list[str]],
                        counts: dict[str, int]) -> Any:
    """One partition's share of every aggregate: the measure's own aggregator's partial sums, as
    ``(measure, threshold, total, n, weight)`` rows (threshold -1: a plain mean), and ``counts``
    as rows of their own (:data:`COUNT`; ``n`` holds the count)."""
    import pyarrow as pa

    rows = [(name, *part) for key, agg in aggregators.items() for part in agg.partials()
            for name in names_by_measure[key]]
    rows += [(COUNT + name, -1, 0.0, n, 0.0) for name, n in counts.items()]
    columns = list(zip(*rows, strict=True))  # never empty: the counts are rows too
    return pa.RecordBatch.from_arrays(
        [from_strings(list(columns[0])), from_numpy(np.array(columns[1], dtype=np.int64)),
         from_numpy(np.array(columns[2], dtype=np.float64)), from_numpy(np.array(columns[3], dtype=np.int64)),
         from_numpy(np.array(columns[4], dtype=np.float64))],
        names=["measure", "threshold", "total", "n", "weight"])

# --- reading files, in the workers ------------------------------------------------------------------

def _file_checker(name: str, layout: Layout, offsets: list[int]):
    """The function ``mapInArrow`` runs on each partition of a Parquet file's rows: the reading
    package's checks (:func:`ir_measures_graded.io.columnar.record_blocks`), naming the file's row.
    ``offsets``: the number of rows before each partition."""
    source = ["query_id", "doc_id", layout.value]

    def check(batches: Iterator[Any]) -> Iterator[Any]:
        from ir_measures_graded.io.columnar import record_blocks

        for block in record_blocks(batches, name, layout, source, first_row=offsets[_partition()]):
            yield block.table.rename_columns(["query_id", "doc_id", layout.value]).to_batches()[0] \
                if block.table.num_rows else _empty(layout)

    return check


def _partition() -> int:
    from pyspark import TaskContext

    return TaskContext.get().partitionId()


def _empty(layout: Layout) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_arrays([empty(pa.string()), empty(pa.string()), empty(pa.float64())],
                                      names=["query_id", "doc_id", layout.value])

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


