"""Identifiers: ids as strings, dictionary codes, 64-bit id keys and hashes, and (query, doc) duplicates.

Ids are strings. Integer ids are accepted and compared as their decimal string (``1`` is ``'1'``).
Per-row doc ids of Arrow integer columns stay int64 inside the core (:func:`encode_ids` with
``encode=False``): casting millions of them to strings and hashing those is a fifth of evaluating
them. Where they meet string ids (a judgment's, a tie's order, a message), they become their
decimal strings (:func:`as_strings`), so they compare exactly as strings would.
Ids of other types — floats (``1.0`` would never match ``'1'``), bools, bytes, tuples — are refused
with a :class:`GradedInputError`. A (query, doc) pair given twice is refused everywhere with the one
message of :func:`duplicate_error`.
"""

from __future__ import annotations

import numbers
import sys
from typing import Any

import numpy as np

from ir_measures_graded.arrow import from_numpy, one_array, to_numpy
from ir_measures_graded.errors import GradedInputError, as_text

HASH_CHUNK = 1 << 16  # strings hashed at a time (a pass over their words stays in cache)


def encode_ids(col: Any, kind: str, field: str, unique: bool = False, encode: bool = True) -> tuple[np.ndarray, Any]:
    """``(codes, distinct)``: int64 code per row and the distinct ids as a pyarrow StringArray.

    ``unique``: a dictionary-encoded ``col`` is known to have distinct dictionary entries.
    ``encode=False``: ids that are not dictionary-encoded stay one string per row (codes
    ``0..n-1``), sparing the hash table of a column with millions of distinct ids.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(col, list):
        array = pa.array(id_strings(col, kind, field), pa.string())
    elif isinstance(col, (pa.Array, pa.ChunkedArray)):
        array = arrow_ids(col, kind, field, integers=not encode)
    else:  # a pandas Series
        array = _pandas_ids(col, kind, field)
    if isinstance(array, pa.ChunkedArray):
        array = one_array(array)
    row = first_missing(array)
    if row is not None:
        raise GradedInputError(f"{kind} row {row}: {field} is missing (None/NaN/null)")
    given = pa.types.is_dictionary(array.type)
    if not given and not encode:
        return np.arange(len(array), dtype=np.int64), core_ids(array)
    if not given:
        array = pc.dictionary_encode(array)
    codes = to_numpy(array.indices).astype(np.int64)
    distinct = array.dictionary.cast(pa.string())
    if given:  # an entry no row uses (a category of pandas, polars or Arrow) is no query and no document
        used = np.bincount(codes, minlength=len(distinct)) > 0
        if not used.all():
            codes = (np.cumsum(used) - 1)[codes]
            distinct = distinct.filter(from_numpy(used))
    # A given dictionary may repeat an id (categories 1 and '1'; our readers' dictionaries never do).
    again = pc.dictionary_encode(distinct) if given and not unique else None
    if again is not None and len(again.dictionary) != len(distinct):
        codes = to_numpy(again.indices).astype(np.int64)[codes]
        distinct = again.dictionary
    return codes, distinct


def id_strings(values: list, kind: str, field: str, first_row: int = 0) -> list:
    """``values`` as strings (integers as their decimal string); anything else refused, naming its
    row (``first_row``: the number of ``values[0]`` in the whole input)."""
    types = set(map(type, values))
    if types <= {str}:
        return values
    for i, value in enumerate(values):
        if not isinstance(value, str):
            _check_id(value, kind, field, first_row + i)
    return [v if type(v) is str else str(v) if isinstance(v, str) else str(int(v)) for v in values]


def _check_id(value: Any, kind: str, field: str, row: int) -> None:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, numbers.Integral)):
        if value is None or (isinstance(value, float) and value != value):
            raise GradedInputError(f"{kind} row {row}: {field} is missing (None/NaN/null)")
        hint = {bytes: "; decode them to str", float: "; 1.0 would never match '1': convert them to str"}.get(
            type(value), "")
        raise GradedInputError(f"{kind} row {row}: {field} {value!r} is a {type(value).__name__}; ids must be "
                               f"strings (or integers){hint}")


def arrow_ids(col: Any, what: str, field: str, integers: bool = False) -> Any:
    """An Arrow column of ids as strings: integers (and a dictionary of integers) become their
    decimal strings; anything else is refused. ``what`` names the input. The one id check of Arrow
    data, in memory or read from Parquet / Arrow IPC. ``integers``: a plain integer column stays
    as it is (per-row doc ids, see the module's docstring)."""
    import pyarrow as pa

    value_type = col.type.value_type if pa.types.is_dictionary(col.type) else col.type
    if pa.types.is_string(value_type) or pa.types.is_large_string(value_type) or pa.types.is_string_view(value_type):
        return col
    if pa.types.is_integer(value_type) and not pa.types.is_dictionary(col.type):
        # uint64 beyond int64 would not fit the core's int64 ids: those become strings
        return col if integers and value_type != pa.uint64() else col.cast(pa.string())
    if pa.types.is_integer(value_type):
        return col.cast(pa.dictionary(col.type.index_type, pa.string()))
    raise GradedInputError(f"{what}: column {field!r} holds {value_type}, expected strings (or integers)")


def first_missing(col: Any) -> int | None:
    """The first null row of an Arrow array, or None."""
    if not col.null_count:
        return None
    return int(np.flatnonzero(to_numpy(col.is_null()))[0])


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
        return arrow_ids(pa.chunked_array(pa.array(col)) if not hasattr(col.array, "_pa_array")
                          else col.array._pa_array, kind, field)
    if dtype.kind in "iu":
        return pa.array(col.to_numpy()).cast(pa.string())
    if dtype.kind == "O" or isinstance(dtype, pd.StringDtype):
        values = col.to_numpy(dtype=object)
        try:
            array = pa.array(values, pa.string(), from_pandas=True)
        except (pa.ArrowTypeError, pa.ArrowInvalid):
            return pa.array(id_strings(values.tolist(), kind, field), pa.string())
        return array
    first = col.iloc[0] if len(col) else None
    _check_id(first.item() if isinstance(first, np.generic) else first, kind, field, 0)
    raise GradedInputError(f"{kind} column {field} has dtype {dtype}; ids must be strings (or integers)")


def is_integer(ids: Any) -> bool:
    """Whether a pyarrow array holds integer ids (kept as integers, see the module's docstring)."""
    import pyarrow as pa

    return pa.types.is_integer(ids.type)


def core_ids(ids: Any) -> Any:
    """Per-row ids as the core holds them: int64 for integers (see the module's docstring), else strings."""
    import pyarrow as pa

    return ids.cast(pa.int64() if is_integer(ids) else pa.string())


def as_strings(ids: Any) -> Any:
    """A pyarrow array of ids as strings: integers become their decimal strings."""
    import pyarrow as pa

    return ids.cast(pa.string()) if is_integer(ids) else ids


def id_text(ids: Any, row: int) -> str:
    """The id at ``row`` of a pyarrow or numpy array, as the string it is compared as (for messages)."""
    return as_text(ids[row])


def name_ranks(doc_ids: Any, codes: np.ndarray) -> np.ndarray:
    """Dense rank of the doc ids ``doc_ids[codes]`` in byte order (``strcmp``; code points for str):
    how :func:`..kernels.ranking_order` breaks score ties. ``doc_ids``: a numpy array or a pyarrow
    string array."""
    if isinstance(doc_ids, np.ndarray):
        return np.unique(doc_ids[codes], return_inverse=True)[1].ravel().astype(np.int64)
    import pyarrow as pa
    import pyarrow.compute as pc

    if is_integer(doc_ids):  # compared as strings: 10 before 9
        doc_ids, codes = as_strings(doc_ids.take(from_numpy(codes))), np.arange(len(codes))
    elif isinstance(doc_ids, pa.ChunkedArray):  # the ids ranked only, not a copy of all
        doc_ids, codes = one_array(doc_ids.take(from_numpy(codes))), np.arange(len(codes))
    short = _short_names(doc_ids, codes)
    if short is not None:  # ids of at most 8 bytes (most): ranked as integers
        word, length = short
        order = np.lexsort((length, word))
        new = np.ones(len(order), dtype=bool)
        new[1:] = (word[order][1:] != word[order][:-1]) | (length[order][1:] != length[order][:-1])
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.cumsum(new) - 1
        return rank
    return to_numpy(pc.rank(doc_ids.take(from_numpy(codes)), sort_keys="ascending", tiebreaker="dense")).astype(np.int64)


def _string_bytes(strings: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, padded)`` of a pyarrow string or large_string array: string ``i`` is
    ``padded[offsets[i]:offsets[i + 1]]``, and ``padded`` ends with 8 zero bytes, so that an 8-byte
    word can be read from any string's first byte (one copy of the bytes, no Python str)."""
    import pyarrow as pa

    offset_type = np.int64 if pa.types.is_large_string(strings.type) else np.int32
    _, offset_buffer, data_buffer = strings.buffers()
    n = len(strings)
    offsets = np.frombuffer(offset_buffer, dtype=offset_type)[strings.offset:strings.offset + n + 1].astype(np.int64)
    lo, hi = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(hi - lo + 8, dtype=np.uint8)
    if data_buffer is not None and hi > lo:
        padded[:hi - lo] = np.frombuffer(data_buffer, dtype=np.uint8)[lo:hi]
    return offsets - lo, padded


def _words_at(padded: np.ndarray, byte_order: str) -> np.ndarray:
    """The 8-byte word (``'<'`` little- or ``'>'`` big-endian) starting at every byte of ``padded``
    but the last 7: unaligned reads of one buffer, no copy."""
    return np.ndarray(shape=(len(padded) - 7,), dtype=f"{byte_order}u8", buffer=padded, strides=(1,))


def _short_names(names: Any, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """``(word, length)`` of the strings ``names[rows]`` (all without ``rows``) of a pyarrow string
    array when none is longer than 8 bytes, else None: ``word`` holds its bytes big-endian,
    zero-padded, so that (word, length) sorts as the bytes do (a string before its extensions,
    ``'a'`` before ``'a\\x00'``)."""
    import pyarrow as pa

    names = one_array(names)
    if not (pa.types.is_string(names.type) or pa.types.is_large_string(names.type)):
        return None
    offsets, padded = _string_bytes(names)
    starts, ends = (offsets[:-1], offsets[1:]) if rows is None else (offsets[rows], offsets[rows + 1])
    length = ends - starts
    if not len(length) or int(length.max()) > 8:
        return None
    # the big-endian 8-byte word starting at each string, its bytes beyond the string cleared
    word = _words_at(padded, ">")[starts].astype(np.uint64)
    cleared = np.uint64(64) - length.astype(np.uint64) * np.uint64(8)  # low bits that are not the string's
    word &= ~((np.uint64(1) << np.minimum(cleared, np.uint64(63))) - np.uint64(1))
    word[length == 0] = 0
    return word, length


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


def first_duplicate_ids(query_codes: np.ndarray, doc_ids: Any, keys: np.ndarray | None = None) -> tuple[int, int] | None:
    """:func:`first_duplicate` for a per-row pyarrow array of doc ids (strings or integers), without
    hashing them into a dictionary: a 64-bit key of each (query, doc) (:func:`id_keys`, or ``keys``
    when the caller has them) sorted once; only if two keys are equal are the ids encoded exactly."""
    if len(doc_ids) < 2:
        return None
    if keys is None:  # keys of its own: made into the pair keys in place (no copy of millions of keys)
        keys = pair_keys_in_place(id_keys(doc_ids), query_codes)
    else:
        keys = pair_keys(keys, query_codes)
    keys.sort()
    if not (keys[1:] == keys[:-1]).any():
        return None
    import pyarrow.compute as pc

    doc_codes = to_numpy(pc.dictionary_encode(one_array(doc_ids)).indices).astype(np.int64)
    return first_duplicate(np.asarray(query_codes, dtype=np.int64), doc_codes)


def pair_keys(doc_keys: np.ndarray, query_codes: np.ndarray) -> np.ndarray:
    """A 64-bit key of each (query code, doc) pair from its doc's :func:`id_keys`: equal pairs have
    equal keys (different pairs may share one)."""
    return doc_keys * np.uint64(0x9E3779B97F4A7C15) + query_codes.astype(np.uint64)


def pair_keys_in_place(doc_keys: np.ndarray, query_codes: np.ndarray) -> np.ndarray:
    """:func:`pair_keys` written over ``doc_keys`` (copied first if read-only): no second array of
    keys, and the codes (any integer type, non-negative) added as uint64, never through float64."""
    keys = doc_keys if doc_keys.flags.writeable else doc_keys.copy()
    keys *= np.uint64(0x9E3779B97F4A7C15)
    np.add(keys, query_codes, out=keys, dtype=np.uint64, casting="unsafe")
    return keys


def id_keys(ids: Any) -> np.ndarray:
    """A 64-bit key of every id of a pyarrow array, equal for equal ids of one kind in any array;
    two different ids may share one, so callers resolve equal keys exactly. Integer ids: their
    value times an odd constant (a bijection). Strings: :func:`string_hashes`. The kinds' keys
    differ for the same id (1 and '1'): keys of integer ids are only compared with keys of
    integer ids (a run's doc ids with a batch's or the judgments', see ``Judgments.labels_of``)."""
    import pyarrow as pa

    if is_integer(ids):
        values = to_numpy(one_array(ids).cast(pa.int64())).view(np.uint64)
        return values * np.uint64(0x9E3779B97F4A7C15)
    return string_hashes(ids)


def _filled(n: int, parts: Any) -> np.ndarray:
    """The :func:`string_hashes` of ``(strings, length)`` parts, written in turn into one array of ``n``
    (not a list of parts and their concatenation: one copy of the hashes at a time)."""
    out = np.empty(n, dtype=np.uint64)
    at = 0
    for part, length in parts:
        out[at:at + length] = string_hashes(part)
        at += length
    return out


def string_hashes(strings: Any) -> np.ndarray:
    """A 64-bit hash of every string of a pyarrow string array (vectorised, no Python str).

    Every byte counts: the ``k``-th 8-byte word of a string (its bytes only, the rest of a last
    word cleared; the first word also xor the string's length) is mixed with ``k`` by splitmix64,
    a bijection, so two strings of one length that differ in one word never collide, and the
    mixed words are summed. The words are taken by their index ``k`` across all strings at once
    (one pass per word index over the strings that long), not through a per-word index. Callers
    still resolve equal hashes exactly, as any hash may collide.
    """
    import pyarrow as pa

    if isinstance(strings, pa.ChunkedArray):  # chunk by chunk: joining them would copy every id
        return _filled(len(strings), ((c, len(c)) for c in strings.chunks))
    if not (pa.types.is_string(strings.type) or pa.types.is_large_string(strings.type)):
        strings = strings.cast(pa.large_string())
    n = len(strings)
    if n > HASH_CHUNK:  # the words of a pass stay in cache
        return _filled(n, ((strings.slice(i, HASH_CHUNK), min(HASH_CHUNK, n - i)) for i in range(0, n, HASH_CHUNK)))
    offsets, padded = _string_bytes(strings)
    word_at = _words_at(padded, "<")  # the little-endian 8-byte word starting at every byte
    lengths = np.diff(offsets)
    at = offsets[:-1].copy()  # where each string's k-th word starts
    summed = np.zeros(n, dtype=np.uint64)
    rows: np.ndarray | None = None  # the strings still hashed (None: all), narrowed when few are left
    k = 0
    while True:
        rest = lengths - 8 * k if rows is None else lengths[rows] - 8 * k  # bytes from the k-th word on
        if rows is None and 2 * int(np.count_nonzero(rest > 0)) < n:
            rows = np.flatnonzero(rest > 0)
            rest, at = rest[rows], at[rows]
        if not len(rest) or int(rest.max()) <= 0:
            break
        word = word_at[np.minimum(at, len(word_at) - 1) if k else at]  # a string without a k-th word reads any word
        if int(rest.min()) < 8:  # a little-endian word keeps its string's first bytes in its low bits:
            # shifting them to the top clears the bytes read past the end (in two steps: a
            # string without a k-th word shifts all 64 bits out)
            cleared = (np.uint64(64) - np.clip(rest, 0, 8).astype(np.uint64) * np.uint64(8))
            half = np.minimum(cleared, np.uint64(32))
            word <<= half
            word <<= cleared - half
        if k == 0:  # "a" and "a\0" clear to one word: the length tells them apart
            word ^= (lengths if rows is None else lengths[rows]).astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)
        word ^= np.uint64((k * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF)
        _splitmix64_inplace(word)
        if int(rest.min()) <= 0:  # strings without a k-th word add nothing
            word[rest <= 0] = 0
        if rows is None:
            summed += word
        else:
            summed[rows] += word
        at += 8
        k += 1
    return summed


def _splitmix64_inplace(z: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser (a bijection of uint64 that mixes every bit) of a uint64 array, in
    place (a third of the memory traffic of new arrays); returns it."""
    shifted = z >> np.uint64(30)
    z ^= shifted
    z *= np.uint64(0xBF58476D1CE4E5B9)
    np.right_shift(z, np.uint64(27), out=shifted)
    z ^= shifted
    z *= np.uint64(0x94D049BB133111EB)
    np.right_shift(z, np.uint64(31), out=shifted)
    z ^= shifted
    return z


def duplicate_error(kind: str, query: Any, doc: Any, first: int, second: int, name: str | None = None,
                    unit: str = "row") -> GradedInputError:
    """The error for a (query, doc) given twice, at rows (or lines) ``first`` and ``second``.

    ``name``: the file (or stream) read; None for an in-memory object, whose rows are numbered from 0.
    """
    if name is None:
        return GradedInputError(
            f"{kind} has the same (query, doc) more than once: query {as_text(query)!r}, doc {as_text(doc)!r} at rows "
            f"{first} and "
            f"{second} (ids are compared as strings: 1 and '1' are the same id)")
    where = f"{name}:{second}" if unit == "line" else f"{name}: row {second}"
    return GradedInputError(f"{where}: query {as_text(query)!r}, doc {as_text(doc)!r} appears again (first at {unit} "
                            f"{first}); "
                            f"each (query, doc) may appear once in a {kind} file")


# --- ids as bytes (numpy 'S' arrays: the small-file reader's) -------------------------------------

def id_words(ids: np.ndarray) -> np.ndarray:
    """A ``(len(ids), words)`` uint64 array: each id's bytes, NUL-padded to whole 8-byte words, read as big-endian
    integers, which sort and compare as the bytes do."""
    width = ids.dtype.itemsize
    n_words = max(1, -(-width // 8))
    padded = np.zeros((len(ids), 8 * n_words), dtype=np.uint8)
    padded[:, :width] = ids.view(np.uint8).reshape(len(ids), width)
    words = padded.view(np.uint64)
    if sys.byteorder == "little":
        words.byteswap(inplace=True)
    return words


def _mixed_constants(seed: int, n: int) -> list[int]:
    """``n`` well-mixed 64-bit integers (splitmix64): constants without loading numpy.random."""
    out, mask = [], (1 << 64) - 1
    for _ in range(n):
        seed = (seed + 0x9E3779B97F4A7C15) & mask
        z = ((seed ^ (seed >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out.append((z ^ (z >> 31)) | 1)  # odd
    return out


#: Odd 64-bit multipliers, one per 8-byte word of an id (further words reuse them, xor the word's index).
_HASH_MULTIPLIERS = np.array(_mixed_constants(0x1D5, 64), dtype=np.uint64)


def id_hash(ids: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each id (bytes), the same whatever the array's width: its little-endian
    8-byte words, each xor itself shifted (so its last bytes reach the low bits), times fixed odd
    multipliers, summed (NUL padding adds nothing). One matrix product, on a view of the ids when
    their width is a whole number of words. Equal ids hash equal; equal hashes are confirmed on
    the bytes by every caller."""
    width = ids.dtype.itemsize
    n_words = max(1, -(-width // 8))
    if width == 8 * n_words:
        words = np.ascontiguousarray(ids).view("<u8").reshape(len(ids), n_words)
    else:
        padded = np.zeros((len(ids), 8 * n_words), dtype=np.uint8)
        padded[:, :width] = ids.view(np.uint8).reshape(len(ids), width)
        words = padded.view("<u8")
    k = np.arange(n_words)
    multipliers = _HASH_MULTIPLIERS[k % len(_HASH_MULTIPLIERS)] ^ (k - k % len(_HASH_MULTIPLIERS)).astype(np.uint64)
    mixed = words >> np.uint64(29)
    mixed ^= words
    return mixed @ multipliers
