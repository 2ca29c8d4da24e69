"""Turning qrels or a run, in any accepted form, into validated integer-coded columns.

Accepted: what ``ir_measures`` accepts — a pandas DataFrame (columns ``query_id``, ``doc_id`` and
``relevance`` or ``score``), a dict of dicts (``{query_id: {doc_id: value}}``), an iterable of named
tuples (``ir_measures.Qrel`` / ``ScoredDoc``) — and also a pyarrow ``Table`` / ``RecordBatch`` /
``RecordBatchReader`` and a polars DataFrame. Arrow-backed, categorical and Arrow inputs go to
integer codes without one Python string per row. Unlike the trec_eval-based providers, relevance
labels may be real numbers.

Ids are strings. Integer ids are accepted and compared as their decimal string (``1`` is ``'1'``,
so ``{1: ..., '1': ...}`` names one query under two keys, which is refused naming both keys).
Ids of other types — floats (``1.0`` would never match ``'1'``), bools, bytes, tuples — are
refused with a :class:`GradedInputError`, as are bool and complex values. Nothing here modifies
the caller's objects.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ir_measures_graded.arrow import from_numpy, is_arrow, to_numpy
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.ids import (
    duplicate_error,
    encode_ids,
    first_duplicate,
    first_duplicate_ids,
    id_strings,
    id_text,
)
from ir_measures_graded.io.values import finite, list_values

INT64_SAFE = 2.0**53  # integral labels below this are exact as int64 and as float64

#: Schema metadata of tables from our readers: their dictionaries hold distinct ids.
UNIQUE_KEY = b"ir_measures_graded.distinct_dictionaries"
#: ... and no (query, doc) twice, checked with line numbers: valid while the id columns' buffers
#: and the row count are the ones checked (any change to them means checking again).
CHECKED_KEY = b"ir_measures_graded.checked"


def fingerprint(table: Any) -> bytes:
    """The row count and the addresses of the id columns' buffers of an Arrow table."""
    parts = [str(table.num_rows)]
    for name in ("query_id", "doc_id"):
        column = table.column(name)
        for chunk in column.chunks:
            parts.extend(str(b.address) if b is not None else "-" for b in chunk.buffers())
            if hasattr(chunk, "dictionary"):
                parts.extend(str(b.address) if b is not None else "-" for b in chunk.dictionary.buffers())
    return ",".join(parts).encode()


@dataclass(frozen=True)
class Columns:
    """One input as integer-coded id columns and a float64 value column (row order preserved)."""

    query_codes: np.ndarray  # int64, index into query_ids
    query_ids: np.ndarray  # object array of the distinct query ids (str)
    doc_codes: np.ndarray  # int64, index into doc_ids
    # the doc ids: a pyarrow StringArray (Int64Array: see io.ids), distinct or one per row; or, from
    # the small-file reader (io.small), a numpy bytes array (distinct and sorted, or one per row)
    doc_ids: Any
    values: np.ndarray  # float64: relevance labels (qrels) or scores (run)
    doc_ids_sorted: bool = False  # doc_ids distinct and sorted by their bytes: codes compare as the ids do
    doc_hashes: np.ndarray | None = None  # io.small, one id per row: io.ids.id_hash of each (hashed once)

    def __len__(self) -> int:
        return len(self.values)


def qrels_columns(qrels: Any, encode_docs: bool = True) -> Columns:
    """Validated columns of a qrels object; raises :class:`GradedInputError` on bad input.

    ``encode_docs=False``: doc ids one per row (``doc_codes`` is ``0..n-1``) unless already encoded.
    """
    return _columns(qrels, kind="qrels", value_field="relevance", encode_docs=encode_docs)


def run_columns(run: Any, encode_docs: bool = True) -> Columns:
    """Validated columns of a run; raises :class:`GradedInputError` on bad input."""
    return _columns(run, kind="run", value_field="score", encode_docs=encode_docs)


def is_arrow_like(obj: Any) -> bool:
    """pyarrow tables, record batches and readers, and polars DataFrames (without importing them)."""
    module = type(obj).__module__ or ""
    return module.startswith(("pyarrow", "polars"))


def _columns(obj: Any, kind: str, value_field: str, encode_docs: bool = True) -> Columns:
    if isinstance(obj, Columns):  # from a reader of this package: validated there
        return obj
    extra_queries: list = []
    unique = checked = False
    if is_arrow_like(obj):
        table = _arrow_table(obj, kind, value_field)
        metadata = table.schema.metadata or {}
        unique = metadata.get(UNIQUE_KEY) == b"1"
        checked = unique and metadata.get(CHECKED_KEY) == fingerprint(table)
        qid, did, val = (table.column(f) for f in ("query_id", "doc_id", value_field))
        values_of = arrow_values
    elif _is_pandas(obj):
        _check_frame_columns(list(obj.columns), kind, value_field)
        qid, did, val = obj["query_id"], obj["doc_id"], obj[value_field]
        values_of = _pandas_values
    elif isinstance(obj, Mapping):
        _reject_equal_keys(list(obj), kind, "query_id")
        qid, did, val = _dict_of_dict_columns(obj, kind)
        extra_queries = list(obj)  # a query with an empty dict is still a query (ir_measures scores it 0)
        values_of = list_values
    elif isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        from ir_measures_graded.io.tuples import tuple_table

        # named tuples (a list, or a generator read once): checked a chunk at a time as they are
        # converted; only their Arrow columns are kept
        table = tuple_table(obj, kind, value_field)
        qid, did, val = (table.column(f) for f in ("query_id", "doc_id", value_field))
        values_of = arrow_values
    else:
        raise GradedInputError(
            f"{kind} must be a pandas DataFrame, a dict of dicts or an iterable of named tuples with fields "
            f"query_id, doc_id, {value_field} (or a pyarrow Table, a polars DataFrame); got {type(obj).__name__}"
        )

    query_codes, query_dict = encode_ids(qid, kind, "query_id", unique)
    doc_codes, doc_ids = encode_ids(did, kind, "doc_id", unique, encode=encode_docs)
    query_ids = np.array(query_dict.to_pylist(), dtype=object)
    if extra_queries:
        known = set(query_ids.tolist())
        extra = [q for q in dict.fromkeys(id_strings(extra_queries, kind, "query_id")) if q not in known]
        query_ids = np.concatenate([query_ids, np.asarray(extra, dtype=object)]) if extra else query_ids

    def where(row: int) -> str:
        return f"{kind} row {row} (query {query_ids[query_codes[row]]!r}, doc {id_text(doc_ids, int(doc_codes[row]))!r})"

    values = values_of(val, kind, value_field, where)
    values.flags.writeable = False  # may be a view of the caller's column
    columns = Columns(query_codes, query_ids, doc_codes, doc_ids, values)
    if checked:  # read by our readers and unchanged since: checked there, with line numbers
        return columns
    _reject_duplicates(columns, kind)
    return columns


# --- containers -----------------------------------------------------------------------------------

def _is_pandas(obj: Any) -> bool:
    return type(obj).__module__.startswith("pandas") and hasattr(obj, "columns") and hasattr(obj, "iloc")


def check_columns(found: list, wanted: list[str], what: str, hint: str = "") -> None:
    """Raise unless each column of ``wanted`` is in ``found`` exactly once; ``what`` names the input
    (``run DataFrame``, ``run file x.parquet``). The one column check of every tabular input."""
    missing = [c for c in wanted if c not in found]
    if missing:
        raise GradedInputError(f"{what} is missing column(s) {missing} (found {found}){hint}")
    twice = [c for c in wanted if found.count(c) > 1]
    if twice:
        raise GradedInputError(f"{what} has the column {twice[0]!r} {found.count(twice[0])} times")


def _check_frame_columns(names: list, kind: str, value_field: str) -> None:
    check_columns(names, ["query_id", "doc_id", value_field], f"{kind} DataFrame")


def _arrow_table(obj: Any, kind: str, value_field: str) -> Any:
    import pyarrow as pa

    if type(obj).__module__.startswith("polars"):
        if hasattr(obj, "collect"):  # a LazyFrame: its query runs once, here
            obj = obj.collect()
        _check_frame_columns(list(obj.columns), kind, value_field)
        obj = obj.select(["query_id", "doc_id", value_field]).to_arrow()
    if isinstance(obj, pa.RecordBatchReader):
        obj = obj.read_all()
    if isinstance(obj, pa.RecordBatch):
        obj = pa.Table.from_batches([obj])
    if not isinstance(obj, pa.Table):
        raise GradedInputError(f"{kind}: unsupported Arrow object {type(obj).__name__}")
    _check_frame_columns(obj.column_names, kind, value_field)
    return obj


def _reject_equal_keys(keys: list, kind: str, field: str) -> None:
    """Raise when two keys of a dict are one id once made strings (``1`` and ``'1'``): a dict's keys are
    distinct queries, and merging them into one would be a silent guess. (Keys of other types are
    refused, naming their row, when the ids are encoded.)"""
    if len(set(map(type, keys))) < 2:  # one type: distinct keys are distinct strings
        return
    first: dict[str, Any] = {}
    for key in keys:
        if isinstance(key, bool) or not isinstance(key, (str, numbers.Integral)):
            continue
        text = key if isinstance(key, str) else str(int(key))
        if text in first:
            raise GradedInputError(
                f"{kind} dict has the {field} keys {first[text]!r} and {key!r}, one id once made a string "
                f"(ids are compared as strings): give each query under one key")
        first[text] = key


def _dict_of_dict_columns(obj: Mapping, kind: str) -> tuple[list, list, list]:
    qids: list = []
    dids: list = []
    vals: list = []
    for qid, docs in obj.items():
        if not isinstance(docs, Mapping):
            raise GradedInputError(
                f"{kind} dict for query {qid!r} must map doc_id -> value, got {type(docs).__name__}"
            )
        qids.extend([qid] * len(docs))
        dids.extend(docs.keys())
        vals.extend(docs.values())
    return qids, dids, vals


# --- values ---------------------------------------------------------------------------------------

def _pandas_values(col: Any, kind: str, field: str, where: Any) -> np.ndarray:
    import pandas as pd

    dtype = col.dtype
    if dtype.kind in "bc" or isinstance(dtype, pd.BooleanDtype) or str(dtype).startswith("bool"):
        raise GradedInputError(f"{kind} column {field} has dtype {dtype}; {field} must be real numbers")
    if dtype.kind in "iuf":
        return finite(col.to_numpy(dtype=np.float64), None, field, where)
    raw = col.to_numpy(dtype=object)
    if pd.api.types.infer_dtype(raw, skipna=True) in ("integer", "floating", "mixed-integer-float", "decimal", "empty"):
        values = pd.to_numeric(pd.Series(raw, dtype=object), errors="coerce").to_numpy(dtype=np.float64)
        return finite(values, raw, field, where)
    return list_values(raw.tolist(), kind, field, where)


def arrow_values(col: Any, what: str, field: str, where: Any) -> np.ndarray:
    """An Arrow column of numbers as float64, refusing other types, nulls and non-finite values.

    ``what`` names the input (``run``, ``run file x.parquet``); ``where(row)`` names a row. The one
    value check of Arrow data, in memory or read from Parquet / Arrow IPC.
    """
    import pyarrow as pa

    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type) or pa.types.is_decimal(col.type)):
        raise GradedInputError(f"{what}: column {field!r} holds {col.type}, expected numbers")
    if col.null_count:
        row = int(np.flatnonzero(to_numpy(col.is_null()))[0])
        raise GradedInputError(f"{where(row)}: {field} is missing (null)")
    values = to_numpy(col.cast(pa.float64()))
    return finite(np.asarray(values, dtype=np.float64), None, field, where)


def integral_labels(values: Any) -> bool:
    """Every label a whole number below 2**53 (exact as int64 and as float64): what trec_eval takes."""
    values = np.asarray(to_numpy(values) if is_arrow(values) else values, dtype=np.float64)
    return bool(np.all(values == np.round(values)) and (not len(values) or np.abs(values).max() < INT64_SAFE))


# --- duplicates -----------------------------------------------------------------------------------

def _reject_duplicates(columns: Columns, kind: str) -> None:
    """Raise for a (query, doc) given twice."""
    if len(columns.doc_ids) == len(columns.doc_codes) and len(columns.doc_ids) > 1:  # one id per row (or all distinct)
        identity = bool(np.all(columns.doc_codes == np.arange(len(columns.doc_codes))))
        per_row = columns.doc_ids if identity else columns.doc_ids.take(_arrow_indices(columns.doc_codes))
        pair = first_duplicate_ids(columns.query_codes, per_row)
    else:
        pair = first_duplicate(columns.query_codes, columns.doc_codes)
    if pair is not None:
        first, second = pair
        raise duplicate_error(kind, columns.query_ids[columns.query_codes[first]],
                              id_text(columns.doc_ids, int(columns.doc_codes[first])), first, second)


def _arrow_indices(codes: np.ndarray) -> Any:

    return from_numpy(codes)
