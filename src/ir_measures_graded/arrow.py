"""Arrow arrays to numpy and back without importing pandas.

pyarrow's ``Array.to_numpy``, ``pa.array`` and ``pa.scalar`` import pandas on first use (to
recognise pandas objects): about 0.24 s, more than reading and evaluating a 500k-line run. The data
path converts only primitive columns without nulls, which are one buffer each, so these functions
view that buffer directly. Anything else (nulls, other types) goes to pyarrow's own conversion.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pyarrow loads when an Arrow array is converted: small TREC files never need it
    import pyarrow as pa

__all__ = ["is_arrow", "to_numpy", "from_numpy", "from_strings", "empty_strings", "one_binary", "empty", "matching_rows"]


def is_arrow(obj: Any) -> bool:
    """Is ``obj`` an Arrow array or chunked array (without importing pyarrow to find out)?"""
    pa = sys.modules.get("pyarrow")
    return pa is not None and isinstance(obj, (pa.Array, pa.ChunkedArray))


def one_array(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    """The values of an Arrow (chunked) array as one array: a lone chunk as it is (pyarrow's
    ``combine_chunks`` copies even one, a block's worth of ids each time), several joined."""
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        return array.chunk(0) if array.num_chunks == 1 else array.combine_chunks()
    return array


def to_numpy(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The values of a numeric or boolean Arrow array as numpy (a read-only view where possible).

    Nulls, dictionaries and other types are converted by pyarrow (``zero_copy_only=False``).
    """
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        if array.num_chunks == 1:
            return to_numpy(array.chunk(0))
        if array.num_chunks == 0:
            return np.zeros(0, dtype=_numpy_type(array.type) or object)
        return np.concatenate([to_numpy(chunk) for chunk in array.chunks])
    kind = _numpy_type(array.type)
    if kind is None or array.null_count:
        return array.to_numpy(zero_copy_only=False)
    n, offset = len(array), array.offset
    data = array.buffers()[1]
    if kind is np.bool_:  # bit-packed, least significant bit first
        if not n:
            return np.zeros(0, dtype=bool)
        bits = np.frombuffer(data, dtype=np.uint8, count=(offset + n + 7) // 8)
        return np.unpackbits(bits, count=offset + n, bitorder="little")[offset:].view(np.bool_)
    values = np.frombuffer(data, dtype=kind, count=offset + n) if n else np.zeros(0, dtype=kind)
    return values[offset:]


def _numpy_type(kind: pa.DataType) -> Any:
    import pyarrow as pa

    if pa.types.is_boolean(kind):
        return np.bool_
    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        return np.dtype(kind.to_pandas_dtype()).type
    return None


def from_numpy(values: np.ndarray) -> pa.Array:
    """A 1-D numeric or boolean numpy array as an Arrow array (no copy when contiguous and numeric)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def from_strings(values: list[str]) -> pa.Array:
    """Strings as an Arrow string array (for a few: one per query, not one per row)."""
    import pyarrow as pa

    encoded = [value.encode() for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(value) for value in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets),
                                                             pa.py_buffer(b"".join(encoded))])


def from_fixed_width(ids: np.ndarray) -> pa.Array:
    """Fixed-width bytes (numpy ``S<w>``: each id NUL-padded to the longest) as an Arrow string array, built
    from buffers: no Python object per id (``pa.array`` on such an array also reserved about 50 MiB)."""
    import pyarrow as pa

    width = ids.dtype.itemsize
    lengths = np.char.str_len(ids).astype(np.int64) if len(ids) else np.zeros(0, dtype=np.int64)
    raw = np.ascontiguousarray(ids).view(np.uint8).reshape(len(ids), width)
    data = raw[np.arange(width) < lengths[:, None]]  # row after row: each id without its padding
    large = len(data) >= 2**31  # 32-bit offsets as the readers' strings, where the bytes fit them
    offsets = np.zeros(len(ids) + 1, dtype=np.int64 if large else np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.Array.from_buffers(pa.large_string() if large else pa.string(), len(ids),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def empty_strings(n: int) -> pa.Array:
    """``n`` empty strings (one offsets buffer of zeros, no Python object per string)."""
    import pyarrow as pa

    offsets = np.zeros(n + 1, dtype=np.int32)
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(b"")])


def one_binary(data: bytes) -> pa.Array:
    """A large-binary array holding ``data`` as its one value (no copy)."""
    import pyarrow as pa

    offsets = np.array([0, len(data)], dtype=np.int64)
    return pa.Array.from_buffers(pa.large_binary(), 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def empty(kind: pa.DataType) -> pa.Array:
    """An empty array of ``kind``."""
    import pyarrow as pa

    return pa.nulls(0, kind)


def matching_rows(left: list[Any], right: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """``(i, j)``: the pairs of rows with ``left[k][i] == right[k][j]`` for every key column ``k``
    (Arrow arrays of one type per key), by Arrow's hash join, hashing ``right``, on this thread.

    Through ``pyarrow._acero``, which ``pyarrow.acero`` re-exports: ``Table.join`` and
    ``pyarrow.acero`` import ``pyarrow.dataset`` and with it pandas (0.3 s), for datasets.
    """
    import pyarrow as pa
    from pyarrow._acero import Declaration, HashJoinNodeOptions, TableSourceNodeOptions

    def source(keys: list[Any], row: str) -> Any:
        names = [f"k{k}" for k in range(len(keys))]
        table = pa.table([*keys, from_numpy(np.arange(len(keys[0]), dtype=np.int64))], names=[*names, row])
        return Declaration("table_source", TableSourceNodeOptions(table)), names

    (left_source, keys), (right_source, _) = source(left, "i"), source(right, "j")
    join = HashJoinNodeOptions("inner", keys, keys, left_output=["i"], right_output=["j"])
    joined = Declaration("hashjoin", join, inputs=[left_source, right_source]).to_table(use_threads=False)
    return to_numpy(joined.column("i")), to_numpy(joined.column("j"))
