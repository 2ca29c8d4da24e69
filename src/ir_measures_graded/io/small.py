"""Small TREC text files read with numpy alone: no pyarrow, no pandas.

For a file of a TREC-sized run (50 queries x 1,000 documents: 1.6 MB), importing pyarrow and pandas
takes longer than reading it. A qrels or run file of at most :data:`SMALL_FILE_BYTES` bytes in the
common layout — ASCII, one space (or one tab) between the fields, each line ended by ``\\n``, no
blank line, every value a plain decimal number — is split into fields by numpy here. Anything else
(a larger file, gzip, standard input, other spacing, a control byte such as NUL, a malformed
line, a (query, doc) given twice) gets ``None``: the large-file reader reads it and reports what is
wrong by ``file:line``. So every error message comes from one place, and the rows read here are
exactly the rows read there (numbers parsed to the same correctly rounded doubles; ids compared by
their bytes, as there).

Memory follows the file's size, not lines x its longest field, so that it stays within the Arrow
reader's for every file read here: ids are compared as a fixed-width matrix only while that matrix
is at most the file's size plus :data:`MATRIX_SLACK` (else the file goes to the Arrow reader, which
stores each id in its own length), and numbers are parsed in chunks (see :func:`decimals`).

What it returns is the :class:`~.columns.Columns` every other input becomes (the rest of the code
knows no type of this reader): the distinct doc ids as sorted bytes rather than Arrow strings.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING, Any

import numpy as np

from ir_measures_graded.io.columns import Columns
from ir_measures_graded.io.ids import id_hash, id_words

if TYPE_CHECKING:  # pragma: no cover
    from ir_measures_graded.io.trec import Layout

#: Files up to this many bytes are read here (the environment variable of the same name overrides it;
#: 0 sends every file to the large-file reader).
SMALL_FILE_BYTES = 8 << 20
ENV = "IR_MEASURES_GRADED_SMALL_FILE_BYTES"
PADDING = 4096  # zero bytes read after a file: a field's window (see windows) never runs past them
#: An id column is read here as a fixed-width matrix (lines x longest id): only while that matrix is
#: at most the file's size plus this many bytes. One long id (a 4,000-byte URL) among short ones would
#: otherwise cost hundreds of MiB; the Arrow reader stores each id in its own length.
MATRIX_SLACK = 4 << 20
PLAIN_CHARS = 17  # the longest plain decimal: a sign, 15 digits and a dot
SCAN_BLOCK = 1 << 17  # bytes scanned for separators at a time: its masks stay in the cache
CHUNK = 1 << 16  # values parsed at a time: bounds the parser's (characters x fields) matrices
_POW10 = 10.0 ** np.arange(23)  # exact doubles: a mantissa below 2**53 over one of them is correctly rounded


def limit() -> int:
    """The size up to which files are read here."""
    given = os.environ.get(ENV)
    return int(given) if given and given.strip().lstrip("-").isdigit() else SMALL_FILE_BYTES


def read_small(path: str | os.PathLike, layout: Layout, meter: Any = None) -> Columns | None:
    """The rows of a small TREC file in the common layout, in file order: query ids in the order
    they first appear (as the Arrow reader's dictionary); doc ids as bytes (``S<width>``), a qrels
    file's and a run's of ids up to 8 bytes distinct and sorted (a doc code's order is its id's:
    ``doc_ids_sorted``), a run's of longer ids one per row (its doc codes ``0..n-1``). None: leave
    the file to the large-file reader."""
    if str(path) == "-":
        return None
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode) or not 0 < info.st_size <= limit():
        return None
    # Read straight into numpy memory, zeros after it (see split_fields): no bytes object to copy and
    # no page written twice (a zero-filled buffer, then the file over it).
    data = np.empty(info.st_size + PADDING, dtype=np.uint8)
    data[info.st_size:] = 0
    with open(path, "rb") as handle:
        if handle.readinto(data[:info.st_size]) != info.st_size or handle.read(1):
            return None  # the file changed size while it was read: leave it to the large-file reader
    fields = split_fields(data, info.st_size, layout.n_fields)
    if fields is None:
        return None
    raw, ends = fields
    if not all(fits(field(ends, layout.index(name))[1], info.st_size) for name in ("query_id", "doc_id")):
        return None  # an id far longer than the others: the Arrow reader's memory follows the bytes
    values = decimals(raw, *field(ends, layout.index(layout.value)))
    if values is None:
        return None
    query_codes, query_ids = first_seen(fixed_width(raw, *field(ends, layout.index("query_id"))))
    doc_ids = fixed_width(raw, *field(ends, layout.index("doc_id")))
    # Judgments keep their distinct ids sorted (runs are joined to them), and so do runs of short ids
    # (one integer sort); a run of longer ids keeps an id per row: joined by hash (prepare), its
    # ties ordered among the tied rows only, no sort of all its ids.
    sort = layout.kind == "qrels" or doc_ids.dtype.itemsize <= 8
    hashes = None
    if sort:
        doc_ids, doc_codes = distinct(doc_ids)
        repeated = repeated_pair(query_codes, len(query_ids), doc_codes, len(doc_ids))
    else:  # each id hashed once: for the duplicate check here and the join (prepare)
        doc_codes, hashes = np.arange(len(doc_ids), dtype=np.int64), id_hash(doc_ids)
        repeated = repeated_ids(query_codes, doc_ids, hashes)
    if repeated:
        return None  # a (query, doc) given twice: the large-file reader names the lines
    values.flags.writeable = False  # as every Columns' values
    if meter is not None:  # told only of a file read here (else the large-file reader tells it)
        meter.update(data[:info.st_size])
        if layout.kind == "run":
            meter.see_first(data[:min(info.st_size, 1 << 16)].tobytes())
    return Columns(query_codes, np.array([q.decode() for q in query_ids.tolist()], dtype=object), doc_codes,
                   doc_ids, values, doc_ids_sorted=sort, doc_hashes=hashes)


def is_small(given: Any) -> bool:
    """Columns of this reader (doc ids as numpy bytes): they join to inputs read by it alone (the other
    reader's are Arrow strings; :func:`~.readers.as_table` turns these into those)."""
    return isinstance(given, Columns) and isinstance(given.doc_ids, np.ndarray)


def fits(lengths: np.ndarray, size: int) -> bool:
    """Is the fixed-width matrix of a column with these field lengths (lines x longest) at most the
    file's ``size`` plus :data:`MATRIX_SLACK` bytes? Its peak is about twice that (the matrix and a
    mask, or a sorted copy), within what the Arrow reader takes for the same file."""
    return len(lengths) * int(lengths.max(initial=0)) <= size + MATRIX_SLACK


def repeated_pair(query_codes: np.ndarray, n_queries: int, doc_codes: np.ndarray, n_docs: int) -> bool:
    """Does a (query, doc) pair occur twice? A bitmap of all pairs when it is at most a few bytes per
    row (the common case: few queries), else one sort."""
    keys = query_codes * n_docs + doc_codes
    if n_queries * n_docs <= 64 * len(keys):
        seen = np.zeros(n_queries * n_docs, dtype=bool)
        seen[keys] = True
        return int(np.count_nonzero(seen)) != len(keys)
    keys.sort()
    return bool((keys[1:] == keys[:-1]).any())


def repeated_ids(query_codes: np.ndarray, ids: np.ndarray, hashes: np.ndarray | None = None) -> bool:
    """Does a (query, id) pair occur twice, ``ids`` one per row (``hashes``: their
    :func:`~.ids.id_hash`, if known)? One sort of (query, hash of the id) keys; equal keys are
    confirmed on the bytes, and if two different ids share a hash (never seen, but possible),
    :func:`distinct` decides exactly."""
    if len(ids) < 2:
        return False
    keys = (id_hash(ids) if hashes is None else hashes) ^ (query_codes.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    order = np.argsort(keys)
    same = np.flatnonzero(keys[order[1:]] == keys[order[:-1]])
    if not len(same):
        return False
    first, second = order[same], order[same + 1]
    if ((ids[first] == ids[second]) & (query_codes[first] == query_codes[second])).any():
        return True
    _, codes = distinct(ids)  # equal keys of different pairs: decided on the bytes
    return repeated_pair(query_codes, int(query_codes.max()) + 1, codes, int(codes.max()) + 1)


def split_fields(data: Any, size: int, n_fields: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``(bytes, ends)``: the file's bytes as numpy (``data[:size]``, followed by :data:`PADDING`
    zeros; ``data`` any buffer) and the position of the separator after every field, a
    ``(lines, n_fields)`` array; None unless the file is in the common layout (or a field is longer
    than the padding)."""
    raw = np.frombuffer(data, dtype=np.uint8)
    if not size or raw[size - 1] != 10 or bytes(raw[:3]) == b"\xef\xbb\xbf":
        return None
    separator = _separators(raw, size)
    if separator is None:
        return None
    kinds = raw[separator]
    n_lines = int(np.count_nonzero(kinds == 10))  # every line ends with one (checked above for the last)
    if len(separator) != n_lines * n_fields:
        return None
    kinds = kinds.reshape(n_lines, n_fields)
    spacing = kinds[0, 0]  # one space or one tab between the fields of every line, never both
    if spacing not in (32, 9) or not ((kinds[:, -1] == 10).all() and (kinds[:, :-1] == spacing).all()):
        return None  # also: CR, NUL, DEL or a non-ASCII byte (UTF-8 is checked by the large-file reader)
    gaps = np.diff(separator)
    if not (gaps > 1).all() or separator[0] == 0:  # an empty field: two separators in a row
        return None
    if max(int(gaps.max(initial=0)), int(separator[0])) > PADDING:
        return None
    return raw, separator.reshape(n_lines, n_fields)


def _separators(raw: np.ndarray, size: int) -> np.ndarray | None:
    """The positions (int32) of the separators of ``raw[:size]`` (space, tab, newline and the other
    control bytes: none is inside a field); None for a byte that is not printable ASCII (DEL and
    above) or more separators than fields of at least one byte allow. One pass over the bytes a block
    at a time: the block's mask stays in the cache, no file-sized temporary."""
    if int(raw[:size].max()) >= 127:
        return None
    capacity = size // 2 + 1  # a separator follows at least one byte of a field (else: empty fields, refused)
    found = np.empty(capacity, dtype=np.int32)  # pages are touched only as far as it is filled
    below = np.empty(min(size, SCAN_BLOCK), dtype=bool)
    count = 0
    for first in range(0, size, SCAN_BLOCK):
        n = min(SCAN_BLOCK, size - first)
        np.less(raw[first:first + n], np.uint8(33), out=below[:n])
        at = np.flatnonzero(below[:n])
        if count + len(at) > capacity:
            return None
        np.add(at, first, out=found[count:count + len(at)], casting="unsafe")
        count += len(at)
    return found[:count]


def field(ends: np.ndarray, index: int) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, lengths)`` of field ``index`` of every line (contiguous arrays)."""
    end = np.ascontiguousarray(ends[:, index])
    if index:
        start = ends[:, index - 1] + 1
    else:
        start = np.empty(len(ends), dtype=np.int64)
        start[0] = 0
        start[1:] = ends[:-1, -1] + 1
    return start, end - start


def windows(raw: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """``(fields, width)`` bytes: ``width`` bytes from each start (``raw`` padded, as :func:`split_fields` gives it)."""
    return np.lib.stride_tricks.sliding_window_view(raw, width)[starts]


def fixed_width(raw: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The fields as a fixed-width bytes array (``S<longest>``, shorter ones padded with NUL)."""
    width = int(lengths.max())
    chars = windows(raw, starts, width)  # a copy (fancy indexing)
    step = max(1, (1 << 20) // width)  # the padding's mask a megabyte at a time, not a second matrix
    # compared in the narrowest type that holds the width (a few times faster than int64)
    kind = np.uint8 if width < 256 else np.uint16 if width < 65536 else np.int64
    columns, short = np.arange(width, dtype=kind), lengths.astype(kind)
    for first in range(0, len(starts), step):
        part = chars[first:first + step]
        np.multiply(part, (columns < short[first:first + step, None]).view(np.uint8), out=part)
    return chars.view(f"S{width}").ravel()


def distinct(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct, codes)``: the distinct ids sorted by their bytes, and each row's index into them.

    Ids are compared as big-endian 8-byte words (the same order as their bytes, NUL padding
    included), most significant first: one integer sort on the first word that differs between
    ids, then each further word only among the ids still equal so far (msmarco or URL ids: 3-5x
    faster than numpy's sort of bytes).
    """
    if not len(ids):
        return ids[:0], np.zeros(0, dtype=np.int64)
    words = id_words(ids)
    words = words[:, (words != words[0]).any(axis=0)]  # a word all ids share does not order them
    if not words.shape[1]:  # one id, on every row
        return ids[:1], np.zeros(len(ids), dtype=np.int64)
    order = np.argsort(words[:, 0])  # equal words: the same id so far, in any order
    new = np.empty(len(ids), dtype=bool)  # in sorted order: does this row's id differ from the one before?
    new[0] = True
    ranked = words[order, 0]
    np.not_equal(ranked[1:], ranked[:-1], out=new[1:])
    for k in range(1, words.shape[1]):
        group = np.cumsum(new) - 1
        open_ = np.flatnonzero(np.bincount(group)[group] > 1)  # rows of groups equal so far
        if not len(open_):
            break
        rows, group = order[open_], group[open_]
        within = np.lexsort((words[rows, k], group))  # each group stays in its range of positions
        order[open_] = rows = rows[within]
        word = words[rows, k]
        split = np.empty(len(rows), dtype=bool)
        split[0] = True
        split[1:] = (group[1:] != group[:-1]) | (word[1:] != word[:-1])
        new[open_] = split
    codes = np.empty(len(ids), dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return ids[order[new]], codes


def decimals(raw: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """The fields as float64, as a correctly rounded ``strtod`` reads them; None for anything but
    finite numbers (the large-file reader reports the line).

    Plain decimals (``-12.345``: at most 15 digits) are parsed in numpy: their digits as an integer
    below 2**53 divided by an exact power of ten is the correctly rounded value. Others (exponents,
    more digits) are parsed by numpy's ``float``; ``nan`` and ``inf`` are refused. Memory stays
    near the fields' own bytes whatever the longest field: plain decimals are read
    :data:`CHUNK` fields at a time, at most :data:`PLAIN_CHARS` characters each, and the other
    fields in groups of similar length.
    """
    values = np.empty(len(starts), dtype=np.float64)
    plain = np.empty(len(starts), dtype=bool)
    for first in range(0, len(starts), CHUNK):
        part = slice(first, first + CHUNK)
        values[part], plain[part] = _plain_decimals(raw, starts[part], lengths[part])
    other = np.flatnonzero(~plain)
    if len(other):
        # by length (powers of two), each group a fixed-width matrix of at most twice its fields' bytes
        group = np.ceil(np.log2(lengths[other])).astype(np.int64)
        for bits in np.unique(group).tolist():
            rows = other[group == bits]
            parsed = _other_decimals(raw, starts[rows], lengths[rows])
            if parsed is None:
                return None
            values[rows] = parsed
    return values


def _plain_decimals(raw: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values, plain)``: the value of each field that is a plain decimal, and which are."""
    width = min(int(lengths.max()), PLAIN_CHARS)
    position = np.arange(width)[:, None]  # character positions down, fields across: numpy runs along the fields
    inside = position < lengths
    chars = np.where(inside, windows(raw, starts, width).T, 0)
    negative = chars[0] == ord("-")
    digit = inside & (chars >= ord("0")) & (chars <= ord("9"))
    dot = chars == ord(".")
    n_digits = digit.sum(axis=0)
    plain = ((digit | dot | (negative & (position == 0)) | ~inside).all(axis=0) & (lengths <= PLAIN_CHARS)
             & (dot.sum(axis=0) <= 1) & (n_digits >= 1) & (n_digits <= 15))
    mantissa = np.zeros(len(starts), dtype=np.int64)
    after_dot = np.zeros(len(starts), dtype=np.int64)
    seen_dot = np.zeros(len(starts), dtype=bool)
    for p in range(width):  # Horner's rule, one character position at a time (not a loop over rows)
        mantissa = np.where(digit[p], mantissa * 10 + (chars[p] - ord("0")), mantissa)  # exact: < 10**17
        after_dot += digit[p] & seen_dot
        seen_dot |= dot[p]
    values = mantissa / _POW10[np.minimum(after_dot, len(_POW10) - 1)]
    values[negative] = -values[negative]  # "-0" is -0.0, as strtod reads it
    return values, plain


_NUMBER_CHARS = np.zeros(256, dtype=bool)
_NUMBER_CHARS[np.frombuffer(b"0123456789.eE+-", dtype=np.uint8)] = True


def _other_decimals(raw: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """Fields other than plain decimals parsed by numpy (exponents, many digits); None if any is not
    a finite number."""
    width = int(lengths.max())
    chars = windows(raw, starts, width)  # a copy (fancy indexing)
    outside = np.arange(width) >= lengths[:, None]
    chars[outside] = 0
    if not (_NUMBER_CHARS[chars] | outside).all():  # nan, inf, 1_000, 0x10: not finite numbers to the large-file reader
        return None
    del outside
    try:
        values = chars.view(f"S{width}").ravel().astype(np.float64)
    except ValueError:
        return None
    return values if np.isfinite(values).all() else None


def first_seen(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, distinct)``: each row's code and the distinct ids in the order they first appear."""
    if not len(ids):
        return np.zeros(0, dtype=np.int64), ids[:0]
    change = np.empty(len(ids), dtype=bool)
    change[0] = True
    change[1:] = ids[1:] != ids[:-1]  # the operator: numpy 1.23's np.not_equal has no loop for bytes
    heads = np.flatnonzero(change)  # runs of one id (a run file holds its queries together)
    unique, head_codes = distinct(ids if len(heads) == len(ids) else ids[heads])
    first = np.unique(head_codes, return_index=True)[1]  # each distinct id's first run
    order = np.argsort(first, kind="stable")
    code = np.empty(len(order), dtype=np.int64)
    code[order] = np.arange(len(order))
    return code[head_codes][np.cumsum(change) - 1], unique[order]
