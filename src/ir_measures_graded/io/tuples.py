"""Iterables of named tuples (``ir_measures.Qrel`` / ``ScoredDoc``, ``read_trec_qrels(path)``, a
user's generator or list) as Arrow columns, converted a small chunk at a time.

No Python object per row outlives its chunk: each chunk of :data:`CHUNK` tuples becomes three
columns (ids as Arrow strings, values as float64), checked exactly as every in-memory input is
(:func:`.ids.id_strings`, :func:`.values.list_values`: the same messages, rows numbered from 0 over
the whole iterable), and the chunks are joined into blocks of about :data:`BLOCK` rows. A one-shot
iterator is read once, front to back; nothing looks inside it (no frame, no file path).
"""

from __future__ import annotations

import itertools
import operator
import weakref
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ir_measures_graded.arrow import from_numpy
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.ids import id_strings
from ir_measures_graded.io.trec import Block, joined_blocks
from ir_measures_graded.io.values import list_values

#: Named tuples converted at a time: a chunk's tuples and their strings stay in the CPU's cache
#: (over 2M ScoredDocs, 1,024 at a time cost twice what 256 cost above the loop alone).
CHUNK = 256
#: Rows per block handed on (a few dozen chunks joined once).
BLOCK = 1 << 16


def is_one_shot(obj: Any) -> bool:
    """An input that can be read only once: an iterator (a generator, ``read_trec_run(path)``) or an
    Arrow record batch reader. Lists, frames, tables and dicts can be read again."""
    if type(obj).__module__.startswith("pyarrow"):
        return hasattr(obj, "read_next_batch")
    return isinstance(obj, Iterator) and not isinstance(obj, (str, bytes))


#: One-shot inputs this process has begun to read (weakly held: gone with the object).
_READ: weakref.WeakSet = weakref.WeakSet()


def read_once(obj: Any, kind: str) -> None:
    """Note that the one-shot ``obj`` is being read; refuse it if it was read before (it would hold
    no rows, or only the rest, and score 0 in silence)."""
    if not is_one_shot(obj):
        return
    try:
        if obj in _READ:
            again = " (an experiment keeps what it read: its views take exp.inputs)" if kind == "run" else ""
            raise GradedInputError(
                f"the {kind} {type(obj).__name__} was read already (an iterator or record batch reader can be "
                f"read once): give a new one, e.g. ir_measures.read_trec_{kind}(path) again{again}")
        _READ.add(obj)
    except TypeError:  # an iterator without weak references (a list iterator): not tracked
        return


def hold(obj: Any, kind: str) -> Any:
    """A one-shot ``obj`` (iterator of named tuples, Arrow record batch reader) read whole, once,
    into an Arrow table (``query_id``, ``doc_id``, ``relevance`` or ``score``); anything else as given."""
    if not is_one_shot(obj):
        return obj
    if hasattr(obj, "read_next_batch"):
        read_once(obj, kind)
        return obj.read_all()
    return tuple_table(obj, kind, "relevance" if kind == "qrels" else "score")


def is_tuple_sequence(obj: Any, value_field: str) -> bool:
    """A list or tuple whose first item is a named tuple with the fields ``query_id``, ``doc_id`` and
    ``value_field``: one run (``[ScoredDoc(...), ...]``) or qrels, not a sequence of several inputs."""
    if not isinstance(obj, (list, tuple)) or not obj or hasattr(obj, "_fields"):
        return False
    fields = getattr(obj[0], "_fields", None)
    return isinstance(obj[0], tuple) and fields is not None and {"query_id", "doc_id", value_field} <= set(fields)


def tuple_blocks(rows: Iterable[Any], kind: str, value_field: str) -> Iterator[Block]:
    """Blocks (``query_id``, ``doc_id``, ``value``; rows numbered from 0) of an iterable of named tuples."""
    import pyarrow as pa

    chunk_rows, block_rows = CHUNK, BLOCK  # read when called (tests make them small)
    read_once(rows, kind)
    getters = None
    parts: list[tuple[Any, Any, np.ndarray]] = []
    held = first = 0
    row = 0
    items = iter(rows)
    while True:
        chunk = list(itertools.islice(items, chunk_rows))
        if chunk:
            if getters is None:
                getters = _getters(chunk[0], kind, value_field)
            parts.append(_chunk_columns(chunk, getters, kind, value_field, row))
            row += len(chunk)
            held += len(chunk)
        if parts and (held >= block_rows or not chunk):
            if len(parts) == 1:
                query, doc, value = parts[0]
            else:  # one copy of each column, not a chunk per CHUNK rows downstream
                query = pa.concat_arrays([p[0] for p in parts])
                doc = pa.concat_arrays([p[1] for p in parts])
                value = np.concatenate([p[2] for p in parts])
            yield Block(pa.table({"query_id": query, "doc_id": doc, "value": from_numpy(value)}), first, unit="row")
            parts, held, first = [], 0, row
        if not chunk:
            return


def tuple_table(rows: Iterable[Any], kind: str, value_field: str) -> Any:
    """The whole iterable as one Arrow table ``query_id``, ``doc_id``, ``value_field`` (query ids
    dictionary-encoded in order of first appearance, doc ids as strings, float64), read chunk by chunk."""
    import pyarrow as pa

    joined = joined_blocks(tuple_blocks(rows, kind, value_field))  # held compactly as they come
    if joined is None:
        return pa.table({"query_id": pa.array([], pa.string()), "doc_id": pa.array([], pa.string()),
                         value_field: pa.array([], pa.float64())})
    query, doc, value, _ = joined
    return pa.table({"query_id": query, "doc_id": doc, value_field: value})


def _getters(first: Any, kind: str, value_field: str) -> tuple[Any, Any, Any]:
    fields = getattr(first, "_fields", None)
    if fields is None:
        raise GradedInputError(
            f"{kind} iterable must yield named tuples (e.g. ir_measures."
            f"{'Qrel' if kind == 'qrels' else 'ScoredDoc'}); first item is {type(first).__name__}: {first!r}"
        )
    missing = [f for f in ("query_id", "doc_id", value_field) if f not in fields]
    if missing:
        raise GradedInputError(f"{kind} named tuples are missing field(s) {missing} (found {list(fields)})")
    # by name, not position: a later item of another named tuple type is read by its own fields
    return operator.attrgetter("query_id"), operator.attrgetter("doc_id"), operator.attrgetter(value_field)


def _chunk_columns(chunk: list, getters: tuple[Any, Any, Any], kind: str, value_field: str,
                   offset: int) -> tuple[Any, Any, np.ndarray]:
    """One chunk's columns (query ids, doc ids as Arrow strings; values as float64), checked;
    ``offset``: the number of the chunk's first row in the whole iterable."""
    import pyarrow as pa

    get_query, get_doc, get_value = getters
    try:
        queries = list(map(get_query, chunk))
        docs = list(map(get_doc, chunk))
        values = list(map(get_value, chunk))
    except AttributeError as ex:
        raise GradedInputError(f"{kind} item without the fields query_id, doc_id, {value_field}: {ex}") from None
    queries = id_strings(queries, kind, "query_id", offset)
    docs = id_strings(docs, kind, "doc_id", offset)

    def where(row: int) -> str:
        return f"{kind} row {offset + row} (query {queries[row]!r}, doc {docs[row]!r})"

    numbers = list_values(values, kind, value_field, where)
    return pa.array(queries, pa.string()), pa.array(docs, pa.string()), numbers
