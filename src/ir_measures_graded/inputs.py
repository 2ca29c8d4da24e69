"""Turning qrels or a run, in any accepted form, into validated integer-coded columns.

Accepted: what ``ir_measures`` accepts — a pandas DataFrame (columns ``query_id``, ``doc_id`` and
``relevance`` or ``score``), a dict of dicts (``{query_id: {doc_id: value}}``), an iterable of named
tuples (``ir_measures.Qrel`` / ``ScoredDoc``) — and also a pyarrow ``Table`` / ``RecordBatch`` /
``RecordBatchReader`` and a polars DataFrame. Arrow-backed, categorical and Arrow inputs go to
integer codes without one Python string per row. Unlike the trec_eval-based providers, relevance
labels may be real numbers.

Ids are strings. Integer ids are accepted and compared as their decimal string (``1`` is ``'1'``,
so ``{1: ..., '1': ...}`` holds the same query twice, which is refused like any duplicate).
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

from ir_measures_graded.errors import GradedInputError

HASH_CHUNK = 1 << 18  # strings hashed at a time

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
    doc_ids: Any  # pyarrow StringArray of the distinct doc ids
    values: np.ndarray  # float64: relevance labels (qrels) or scores (run)
    doc_hashes: np.ndarray | None = None  # string_hashes of the doc id of each row, when computed

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
    extra_queries: list = []
    unique = checked = False
    if is_arrow_like(obj):
        table = _arrow_table(obj, kind, value_field)
        metadata = table.schema.metadata or {}
        unique = metadata.get(UNIQUE_KEY) == b"1"
        checked = unique and metadata.get(CHECKED_KEY) == fingerprint(table)
        qid, did, val = (table.column(f) for f in ("query_id", "doc_id", value_field))
        values_of = _arrow_values
    elif _is_pandas(obj):
        _check_frame_columns(list(obj.columns), kind, value_field)
        qid, did, val = obj["query_id"], obj["doc_id"], obj[value_field]
        values_of = _pandas_values
    elif isinstance(obj, Mapping):
        qid, did, val = _dict_of_dict_columns(obj, kind)
        extra_queries = list(obj)  # a query with an empty dict is still a query (ir_measures scores it 0)
        values_of = _list_values
    elif isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        qid, did, val = _namedtuple_columns(obj, kind, value_field)
        values_of = _list_values
    else:
        raise GradedInputError(
            f"{kind} must be a pandas DataFrame, a dict of dicts or an iterable of named tuples with fields "
            f"query_id, doc_id, {value_field} (or a pyarrow Table, a polars DataFrame); got {type(obj).__name__}"
        )

    query_codes, query_dict = encode_ids(qid, kind, "query_id", unique)
    doc_codes, doc_ids = encode_ids(did, kind, "doc_id", unique, encode=encode_docs)
    query_ids = query_dict.to_numpy(zero_copy_only=False).astype(object)
    if extra_queries:
        known = set(query_ids.tolist())
        extra = [q for q in dict.fromkeys(_id_strings(extra_queries, kind, "query_id")) if q not in known]
        query_ids = np.concatenate([query_ids, np.asarray(extra, dtype=object)]) if extra else query_ids

    def where(row: int) -> str:
        return f"{kind} row {row} (query {query_ids[query_codes[row]]!r}, doc {doc_ids[int(doc_codes[row])].as_py()!r})"

    values = values_of(val, kind, value_field, where)
    values.flags.writeable = False  # may be a view of the caller's column
    columns = Columns(query_codes, query_ids, doc_codes, doc_ids, values)
    if checked:  # read by our readers and unchanged since: checked there, with line numbers
        return columns
    hashes = _reject_duplicates(columns, kind)
    return Columns(query_codes, query_ids, doc_codes, doc_ids, values, hashes) if hashes is not None else columns


# --- containers -----------------------------------------------------------------------------------

def _is_pandas(obj: Any) -> bool:
    return type(obj).__module__.startswith("pandas") and hasattr(obj, "columns") and hasattr(obj, "iloc")


def _check_frame_columns(names: list, kind: str, value_field: str) -> None:
    wanted = ("query_id", "doc_id", value_field)
    missing = [c for c in wanted if c not in names]
    if missing:
        raise GradedInputError(f"{kind} DataFrame is missing column(s) {missing} (found {names})")
    twice = [c for c in wanted if names.count(c) > 1]
    if twice:
        raise GradedInputError(f"{kind} DataFrame has the column {twice[0]!r} {names.count(twice[0])} times")


def _arrow_table(obj: Any, kind: str, value_field: str) -> Any:
    import pyarrow as pa

    if type(obj).__module__.startswith("polars"):
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


def _namedtuple_columns(obj: Iterable, kind: str, value_field: str) -> tuple[list, list, list]:
    rows = list(obj)
    if not rows:
        return [], [], []
    first = rows[0]
    fields = getattr(first, "_fields", None)
    if fields is None:
        raise GradedInputError(
            f"{kind} iterable must yield named tuples (e.g. ir_measures."
            f"{'Qrel' if kind == 'qrels' else 'ScoredDoc'}); first item is {type(first).__name__}: {first!r}"
        )
    missing = [f for f in ("query_id", "doc_id", value_field) if f not in fields]
    if missing:
        raise GradedInputError(f"{kind} named tuples are missing field(s) {missing} (found {list(fields)})")
    try:
        qids = [r.query_id for r in rows]
        dids = [r.doc_id for r in rows]
        vals = [getattr(r, value_field) for r in rows]
    except AttributeError as ex:
        raise GradedInputError(f"{kind} item without the fields query_id, doc_id, {value_field}: {ex}") from None
    return qids, dids, vals


# --- ids ------------------------------------------------------------------------------------------

def encode_ids(col: Any, kind: str, field: str, unique: bool = False, encode: bool = True) -> tuple[np.ndarray, Any]:
    """``(codes, distinct)``: int64 code per row and the distinct ids as a pyarrow StringArray.

    ``unique``: a dictionary-encoded ``col`` is known to have distinct dictionary entries.
    ``encode=False``: ids that are not dictionary-encoded stay one string per row (codes
    ``0..n-1``), sparing the hash table of a column with millions of distinct ids.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(col, list):
        array = pa.array(_id_strings(col, kind, field), pa.string())
    elif isinstance(col, (pa.Array, pa.ChunkedArray)):
        array = _arrow_ids(col, kind, field)
    else:  # a pandas Series
        array = _pandas_ids(col, kind, field)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if array.null_count:
        row = int(np.flatnonzero(array.is_null().to_numpy(zero_copy_only=False))[0])
        raise GradedInputError(f"{kind} row {row}: {field} is missing (None/NaN/null)")
    given = pa.types.is_dictionary(array.type)
    if not given and not encode:
        return np.arange(len(array), dtype=np.int64), array.cast(pa.string())
    if not given:
        array = pc.dictionary_encode(array)
    codes = array.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    distinct = array.dictionary.cast(pa.string())
    # A given dictionary may repeat an id (categories 1 and '1'; our readers' dictionaries never do).
    again = pc.dictionary_encode(distinct) if given and not unique else None
    if again is not None and len(again.dictionary) != len(distinct):
        codes = again.indices.to_numpy(zero_copy_only=False).astype(np.int64)[codes]
        distinct = again.dictionary
    return codes, distinct


def _id_strings(values: list, kind: str, field: str) -> list:
    types = set(map(type, values))
    if types <= {str}:
        return values
    for i, value in enumerate(values):
        if not isinstance(value, str):
            _check_id(value, kind, field, i)
    return [v if type(v) is str else str(v) if isinstance(v, str) else str(int(v)) for v in values]


def _check_id(value: Any, kind: str, field: str, row: int) -> None:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, numbers.Integral)):
        if value is None or (isinstance(value, float) and value != value):
            raise GradedInputError(f"{kind} row {row}: {field} is missing (None/NaN/null)")
        hint = {bytes: "; decode them to str", float: "; 1.0 would never match '1': convert them to str"}.get(
            type(value), "")
        raise GradedInputError(f"{kind} row {row}: {field} {value!r} is a {type(value).__name__}; ids must be "
                               f"strings (or integers){hint}")


def _arrow_ids(col: Any, kind: str, field: str) -> Any:
    import pyarrow as pa

    value_type = col.type.value_type if pa.types.is_dictionary(col.type) else col.type
    if pa.types.is_string(value_type) or pa.types.is_large_string(value_type) or pa.types.is_string_view(value_type):
        return col
    if pa.types.is_integer(value_type) and not pa.types.is_dictionary(col.type):
        return col.cast(pa.string())
    if pa.types.is_integer(value_type):
        return col.cast(pa.dictionary(col.type.index_type, pa.string()))
    raise GradedInputError(f"{kind} column {field} holds {value_type}; ids must be strings (or integers)")


def _pandas_ids(col: Any, kind: str, field: str) -> Any:
    import pandas as pd
    import pyarrow as pa

    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        categories = _pandas_ids(pd.Series(col.cat.categories), kind, field)
        codes = col.cat.codes.to_numpy()
        if (codes < 0).any():
            row = int(np.flatnonzero(codes < 0)[0])
            raise GradedInputError(f"{kind} row {row}: {field} is missing (None/NaN/null)")
        categories = categories.combine_chunks() if isinstance(categories, pa.ChunkedArray) else categories
        return pa.DictionaryArray.from_arrays(pa.array(codes, pa.int32()), categories.cast(pa.string()))
    if isinstance(dtype, pd.ArrowDtype) or (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return _arrow_ids(pa.chunked_array(pa.array(col)) if not hasattr(col.array, "_pa_array")
                          else col.array._pa_array, kind, field)
    if dtype.kind in "iu":
        return pa.array(col.to_numpy()).cast(pa.string())
    if dtype.kind == "O" or isinstance(dtype, pd.StringDtype):
        values = col.to_numpy(dtype=object)
        try:
            array = pa.array(values, pa.string(), from_pandas=True)
        except (pa.ArrowTypeError, pa.ArrowInvalid):
            return pa.array(_id_strings(values.tolist(), kind, field), pa.string())
        return array
    first = col.iloc[0] if len(col) else None
    _check_id(first.item() if isinstance(first, np.generic) else first, kind, field, 0)
    raise GradedInputError(f"{kind} column {field} has dtype {dtype}; ids must be strings (or integers)")


# --- values ---------------------------------------------------------------------------------------

def _finite(values: np.ndarray, raw: Any, field: str, where: Any) -> np.ndarray:
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        shown = raw[row] if raw is not None else values[row]
        raise GradedInputError(
            f"{where(row)}: {field} {_plain(shown)!r} is not a finite number"
            + (f" ({int(bad.sum())} such rows in all)" if bad.sum() > 1 else "")
        )
    return values


def _not_a_number(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_, complex, np.complexfloating)) or not isinstance(
        value, (numbers.Real, np.number))


def _list_values(col: list, kind: str, field: str, where: Any) -> np.ndarray:
    types = set(map(type, col))
    if not types <= {float, int}:
        for row, value in enumerate(col):
            if isinstance(value, (bool, np.bool_, complex, np.complexfloating)):
                raise GradedInputError(f"{where(row)}: {field} {_plain(value)!r} is a {type(_plain(value)).__name__}, "
                                       "not a real number")
            if value is not None and _not_a_number(value):
                raise GradedInputError(f"{where(row)}: {field} {value!r} is not a finite number")
    values = np.asarray([np.nan if v is None else v for v in col] if type(None) in types else col,
                        dtype=np.float64)
    return _finite(values, col, field, where)


def _pandas_values(col: Any, kind: str, field: str, where: Any) -> np.ndarray:
    import pandas as pd

    dtype = col.dtype
    if dtype.kind in "bc" or isinstance(dtype, pd.BooleanDtype) or str(dtype).startswith("bool"):
        raise GradedInputError(f"{kind} column {field} has dtype {dtype}; {field} must be real numbers")
    if dtype.kind in "iuf":
        return _finite(col.to_numpy(dtype=np.float64), None, field, where)
    raw = col.to_numpy(dtype=object)
    if pd.api.types.infer_dtype(raw, skipna=True) in ("integer", "floating", "mixed-integer-float", "decimal", "empty"):
        values = pd.to_numeric(pd.Series(raw, dtype=object), errors="coerce").to_numpy(dtype=np.float64)
        return _finite(values, raw, field, where)
    return _list_values(raw.tolist(), kind, field, where)


def _arrow_values(col: Any, kind: str, field: str, where: Any) -> np.ndarray:
    import pyarrow as pa

    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type) or pa.types.is_decimal(col.type)):
        raise GradedInputError(f"{kind} column {field} holds {col.type}; {field} must be real numbers")
    if col.null_count:
        row = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
        raise GradedInputError(f"{where(row)}: {field} is missing (null)")
    values = col.cast(pa.float64()).to_numpy()
    return _finite(np.asarray(values, dtype=np.float64), None, field, where)


# --- the form pytrec_eval takes -------------------------------------------------------------------

def dict_of_dict(obj: Any, value_field: str) -> dict:
    """``{query_id: {doc_id: value}}`` (the form ir_measures' pytrec_eval provider takes, so it
    converts nothing) from any accepted input; integral labels as int, as trec_eval needs them."""
    if isinstance(obj, Mapping):
        return obj
    kind = "qrels" if value_field == "relevance" else "run"
    cols = _columns(obj, kind, value_field, encode_docs=False)
    if np.all(cols.query_codes[1:] >= cols.query_codes[:-1]):  # grouped by query already
        per_row, values = cols.doc_codes, cols.values
    else:
        order = np.argsort(cols.query_codes, kind="stable")
        per_row, values = cols.doc_codes[order], cols.values[order]
    identity = np.array_equal(per_row, np.arange(len(per_row)))
    docs = (cols.doc_ids if identity else cols.doc_ids.take(_arrow_indices(per_row))).to_pylist()
    if kind == "qrels" and len(values) and np.all(values == np.round(values)) and np.abs(values).max() < 2.0**53:
        values = values.astype(np.int64)
    values = values.tolist()
    ptr = np.zeros(len(cols.query_ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(cols.query_codes, minlength=len(cols.query_ids)), out=ptr[1:])
    bounds = ptr.tolist()
    return {q: dict(zip(docs[bounds[i]:bounds[i + 1]], values[bounds[i]:bounds[i + 1]], strict=True))
            for i, q in enumerate(cols.query_ids.tolist())}


def _arrow_indices(codes: np.ndarray) -> Any:
    import pyarrow as pa

    return pa.array(codes)


# --- duplicates -----------------------------------------------------------------------------------

def first_duplicate(query_codes: np.ndarray, doc_codes: np.ndarray) -> tuple[int, int] | None:
    """The first two rows (in row order of the second) holding the same (query, doc), if any."""
    if len(doc_codes) < 2:
        return None
    n_docs = int(doc_codes.max()) + 1
    keys = query_codes.astype(np.int64) * n_docs + doc_codes
    ascending = np.sort(keys)  # the common case: one fast sort of the keys, no permutation
    if not (ascending[1:] == ascending[:-1]).any():
        return None
    del ascending
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    dup = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    second = order[dup + 1]
    at = int(np.argmin(second))
    return int(order[dup[at]]), int(second[at])


def first_duplicate_strings(query_codes: np.ndarray, doc_ids: Any,
                            doc_hashes: np.ndarray | None = None) -> tuple[int, int] | None:
    """:func:`first_duplicate` for a per-row pyarrow string array of doc ids, without hashing them
    into a dictionary: a 64-bit hash of each (query, doc) sorted once; only if two hashes are
    equal are the ids encoded exactly."""
    if len(doc_ids) < 2:
        return None
    hashes = string_hashes(doc_ids) if doc_hashes is None else doc_hashes
    keys = hashes * np.uint64(0x9E3779B97F4A7C15) + query_codes.astype(np.uint64)
    keys.sort()
    if not (keys[1:] == keys[:-1]).any():
        return None
    import pyarrow.compute as pc

    doc_codes = pc.dictionary_encode(doc_ids).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    return first_duplicate(query_codes, doc_codes)


def string_hashes(strings: Any) -> np.ndarray:
    """A 64-bit hash of every string of a pyarrow string array (vectorised, no Python str).

    Every byte counts: each 8-byte word of a string is mixed with its position (splitmix64, a
    bijection, so two strings of one length that differ in one word never collide), the mixed
    words are summed per string and the sum mixed with the length. Callers still resolve equal
    hashes exactly, as any hash may collide.
    """
    import pyarrow as pa

    if isinstance(strings, pa.ChunkedArray):
        strings = strings.combine_chunks()
    if not (pa.types.is_string(strings.type) or pa.types.is_large_string(strings.type)):
        strings = strings.cast(pa.large_string())
    n = len(strings)
    if n > HASH_CHUNK:  # the word arrays below are a few times the bytes hashed: bound them
        return np.concatenate([string_hashes(strings.slice(i, HASH_CHUNK)) for i in range(0, n, HASH_CHUNK)])
    offset_type = np.int64 if pa.types.is_large_string(strings.type) else np.int32
    _, offset_buffer, data_buffer = strings.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=offset_type)[strings.offset:strings.offset + n + 1].astype(np.int64)
    lo, hi = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(hi - lo + 8, dtype=np.uint8)  # room for a word starting at the last byte
    if data_buffer is not None and hi > lo:
        padded[:hi - lo] = np.frombuffer(data_buffer, dtype=np.uint8)[lo:hi]
    # the little-endian 8-byte word starting at every byte (unaligned reads of one buffer, no copy)
    word_at = np.ndarray(shape=(hi - lo + 1,), dtype="<u8", buffer=padded, strides=(1,))
    lengths = np.diff(offsets)
    n_words = (lengths + 7) // 8
    word_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(n_words, out=word_ptr[1:])
    string = np.repeat(np.arange(n, dtype=np.int64), n_words)
    k = np.arange(word_ptr[-1], dtype=np.int64) - word_ptr[string]  # the word's index inside its string
    first_byte = offsets[string] - lo + 8 * k
    word = word_at[first_byte]
    kept = np.minimum(lengths[string] - 8 * k, 8).astype(np.uint64) * np.uint64(8)  # bits of this string
    word &= np.where(kept >= 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                     (np.uint64(1) << np.minimum(kept, np.uint64(63))) - np.uint64(1))
    del string, first_byte, kept
    mixed = _splitmix64(word ^ (k.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)))
    del word, k
    sums = np.zeros(word_ptr[-1] + 1, dtype=np.uint64)
    np.cumsum(mixed, out=sums[1:])  # wraps modulo 2^64, as wanted
    per_string = sums[word_ptr[1:]] - sums[word_ptr[:-1]]
    return _splitmix64(per_string + _splitmix64(lengths.astype(np.uint64) + np.uint64(0xC2B2AE3D27D4EB4F)))


def _splitmix64(z: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, element-wise (a bijection of uint64 that mixes every bit)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _reject_duplicates(columns: Columns, kind: str) -> np.ndarray | None:
    """Raise for a (query, doc) given twice; returns the per-row doc hashes if it computed them."""
    hashes = None
    if len(columns.doc_ids) == len(columns.doc_codes) and len(columns.doc_ids) > 1:  # one id per row (or all distinct)
        identity = bool(np.all(columns.doc_codes == np.arange(len(columns.doc_codes))))
        per_row = columns.doc_ids if identity else columns.doc_ids.take(_arrow_indices(columns.doc_codes))
        hashes = string_hashes(per_row)
        pair = first_duplicate_strings(columns.query_codes, per_row, hashes)
    else:
        pair = first_duplicate(columns.query_codes, columns.doc_codes)
    if pair is not None:
        first, second = pair
        raise GradedInputError(
            f"{kind} has the same (query, doc) more than once: query "
            f"{columns.query_ids[columns.query_codes[first]]!r}, doc "
            f"{columns.doc_ids[int(columns.doc_codes[first])].as_py()!r} at rows {first} and {second}"
            " (ids are compared as strings: 1 and '1' are the same id)"
        )
    return hashes


def _plain(value: Any) -> Any:
    """numpy scalars as Python values, so messages read ``nan``, not ``np.float64(nan)``."""
    return value.item() if isinstance(value, np.generic) else value
