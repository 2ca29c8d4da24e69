"""Reading qrels and runs from files: TREC text (plain or gzip), Parquet and Arrow IPC, whole or by blocks.

``path`` may be ``-`` (standard input), ``/dev/stdin`` or a pipe (process substitution): text is
read as a stream. Parquet and Arrow IPC files are recognised by their magic bytes and read by row
group / record batch (see :mod:`.columnar`); text is parsed by :mod:`.trec`.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import lzma
import os
import sys
import zlib
from collections.abc import Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ir_measures_graded.arrow import empty, from_fixed_width, from_numpy, from_strings, to_numpy
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.columnar import columnar_blocks, columnar_format
from ir_measures_graded.io.columns import CHECKED_KEY, UNIQUE_KEY, Columns, fingerprint, integral_labels
from ir_measures_graded.io.ids import duplicate_error, first_duplicate_ids
from ir_measures_graded.io.inputs import Meter
from ir_measures_graded.io.trec import (
    BLOCK_SIZE,
    QRELS,
    RUN,
    Block,
    Layout,
    display_name,
    joined_blocks,
    text_blocks,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import pyarrow as pa

# --- public readers -----------------------------------------------------------------------------

def read_qrels(path: str | os.PathLike, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """TREC qrels ``query_id iteration doc_id relevance`` (or Parquet / Arrow IPC) -> DataFrame.

    Relevance is int64 when every label is a whole number below 2**53, else float64 (real-valued
    labels are kept, huge ones are not wrapped).
    """
    return _to_pandas(read_qrels_table(path, columns))


def read_run(path: str | os.PathLike, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """TREC run ``query_id Q0 doc_id rank score name`` (or Parquet / Arrow IPC) -> DataFrame."""
    return _to_pandas(read_run_table(path, columns))


def read_qrels_table(path: str | os.PathLike, columns: Mapping[str, str] | None = None,
                     meter: Meter | None = None) -> pa.Table:
    """Qrels as an Arrow table: ``query_id`` (dictionary-encoded), ``doc_id`` (strings), ``relevance``.
    ``meter``: told the file's bytes and SHA-256 as they are read."""
    table = _read_whole(path, QRELS, columns, meter=meter)
    values = to_numpy(table.column("relevance"))
    if len(values) and integral_labels(values):

        table = table.set_column(2, "relevance", from_numpy(values.astype(np.int64))).replace_schema_metadata(
            table.schema.metadata)
    return table


def read_run_table(path: str | os.PathLike, columns: Mapping[str, str] | None = None,
                   progress: Any = None, meter: Meter | None = None) -> pa.Table:
    """A run as an Arrow table: ``query_id`` (dictionary-encoded), ``doc_id`` (strings), ``score``.
    ``meter``: told the file's bytes, SHA-256 and tag as they are read."""
    return _read_whole(path, RUN, columns, progress, meter)


def iter_blocks(
    path: str | os.PathLike, layout: Layout, columns: Mapping[str, str] | None = None,
    block_size: int = BLOCK_SIZE, progress: Any = None, meter: Meter | None = None,
) -> Iterator[Block]:
    """The rows of a file, a block at a time, in file order. ``progress.update(n_bytes)`` if given;
    ``meter`` (:class:`~.inputs.Meter`) sees every byte read (its hash) and a run's first line (its tag)."""
    name = display_name(path)
    opened = _open(path, layout)
    # hashed as read where a digest is asked (the tag alone needs no wrapping: text_blocks takes it)
    stream = meter.wrap(opened, owns=opened is not sys.stdin.buffer) if meter is not None and meter.digest else opened
    try:
        head = stream.peek(16)[:16] if hasattr(stream, "peek") else b""
        kind = columnar_format(stream, head[:8])
        if kind is not None:
            yield from columnar_blocks(path, stream, kind, layout, columns, progress)
        else:
            yield from text_blocks(_decompressed(stream, head, name, layout.kind), name, layout, block_size,
                                   progress, meter)
        if meter is not None:
            meter.finish(stream)
    except (OSError, EOFError, zlib.error, lzma.LZMAError) as ex:
        raise GradedInputError(f"cannot read {layout.kind} file {name}: {ex}") from None
    finally:
        if opened is not sys.stdin.buffer:
            stream.close()


def is_stream(path: str | os.PathLike) -> bool:
    """True for standard input and pipes, which can be read once only."""
    if str(path) == "-":
        return True
    try:
        import stat

        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


@contextlib.contextmanager
def open_text(path: str | os.PathLike, kind: str = "input") -> Iterator[IO[bytes]]:
    """A text file's bytes, decompressed when its first bytes say gzip, bz2, xz or zstd (as the readers
    read it): for what reads a file's lines itself (a run's tag, the report's line count)."""
    with open(path, "rb") as stream:
        text = _decompressed(stream, stream.peek(16)[:16], display_name(path), kind)
        try:
            yield text
        finally:
            if text is not stream:
                text.close()


# --- opening --------------------------------------------------------------------------------------

def _open(path: str | os.PathLike, layout: Layout) -> IO[bytes]:
    if str(path) == "-":
        return sys.stdin.buffer
    if os.path.isdir(path):
        raise GradedInputError(f"{layout.kind} file {path} is a directory")
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed by iter_blocks
    except FileNotFoundError:
        raise GradedInputError(f"{layout.kind} file not found: {path}") from None
    except OSError as ex:
        raise GradedInputError(f"cannot read {layout.kind} file {path}: {ex.strerror or ex}") from None
    return stream



#: Compressed text by its magic bytes (a TREC line cannot begin with any of them): gzip, bz2 (its block
#: or end-of-stream magic after "BZh" and the block size), xz, zstd.
_GZIP, _XZ, _ZSTD = b"\x1f\x8b", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd"
_BZ2_BLOCKS = (b"1AY&SY", b"\x17\x72\x45\x38\x50\x90")


def compression(head: bytes) -> str | None:
    """``'gzip'``, ``'bz2'``, ``'xz'``, ``'zstd'`` or None (not compressed), from a file's first 10 bytes."""
    if head[:2] == _GZIP:
        return "gzip"
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] in _BZ2_BLOCKS:
        return "bz2"
    if head[:6] == _XZ:
        return "xz"
    if head[:4] == _ZSTD:
        return "zstd"
    return None


def _decompressed(stream: IO[bytes], head: bytes, name: str, kind: str) -> IO[bytes]:
    """The text of ``stream``: decompressed when its first bytes say gzip, bz2, xz (the standard
    library) or zstd (pyarrow's codec), as it is otherwise."""
    method = compression(head)
    if method == "gzip":
        return gzip.GzipFile(fileobj=stream, mode="rb")
    if method == "bz2":
        import bz2

        return bz2.BZ2File(stream)
    if method == "xz":
        return lzma.LZMAFile(stream)
    if method == "zstd":
        import pyarrow as pa

        if not pa.Codec.is_available("zstd"):
            raise GradedInputError(f"{kind} file {name} is compressed with zstd, which this pyarrow cannot "
                                   "read: decompress it first (zstd -d)")
        return io.BufferedReader(_ArrowText(pa.CompressedInputStream(pa.PythonFile(stream, mode="r"), "zstd")))
    return stream


class _ArrowText(io.RawIOBase):
    """A pyarrow input stream as a raw binary file (its errors as OSError, which name the file)."""

    def __init__(self, stream: Any) -> None:
        super().__init__()
        self.stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        import pyarrow as pa

        try:
            data = self.stream.read(len(buffer))
        except pa.ArrowException as ex:
            raise OSError(f"not valid zstd data ({str(ex).splitlines()[0]})") from None
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self.stream.close()
        super().close()


# --- whole files ----------------------------------------------------------------------------------

def _read_whole(path: str | os.PathLike, layout: Layout, columns: Mapping[str, str] | None,
                progress: Any = None, meter: Meter | None = None, block_size: int = BLOCK_SIZE) -> pa.Table:
    """The whole file as one table, held compactly while it is read (:func:`.trec.joined_blocks`)."""
    import pyarrow as pa

    joined = joined_blocks(iter_blocks(path, layout, columns, block_size, progress, meter))
    if joined is None:
        return pa.table({"query_id": empty(pa.string()).dictionary_encode(),
                         "doc_id": empty(pa.string()),
                         layout.value: empty(pa.float64())})
    query, doc, value, spans = joined  # one string per doc row: no hash table of millions of ids
    pair = first_duplicate_ids(to_numpy(query.indices), doc)
    if pair is not None:
        first, second = (_line_of_row(spans, row) for row in pair)
        raise duplicate_error(layout.kind, query[pair[0]].as_py(), doc[pair[0]].as_py(), first, second,
                              display_name(path), spans[0][3])
    result = pa.table({"query_id": query, "doc_id": doc, layout.value: value}, metadata={UNIQUE_KEY: b"1"})
    return result.replace_schema_metadata({UNIQUE_KEY: b"1", CHECKED_KEY: fingerprint(result)})


def as_table(cols: Columns, layout: Layout) -> pa.Table:
    """The small-file reader's columns (:mod:`.small`) as the table the Arrow reader gives for the same file
    (``query_id`` dictionary-encoded, ``doc_id`` strings, the value; validated): made in memory, so that a
    file read once can meet inputs read by the other reader without being read again."""
    import pyarrow as pa

    # codes checked by the reader: no validation pass (safe=False), which would load Arrow's compute kernels
    query = pa.DictionaryArray.from_arrays(from_numpy(cols.query_codes.astype(np.int32)),
                                           from_strings(cols.query_ids.tolist()), safe=False)
    doc = from_fixed_width(cols.doc_ids[cols.doc_codes])
    values = cols.values.astype(np.int64) if layout.kind == "qrels" and len(cols.values) and integral_labels(
        cols.values) else cols.values
    result = pa.table({"query_id": query, "doc_id": doc, layout.value: from_numpy(np.ascontiguousarray(values))})
    return result.replace_schema_metadata({UNIQUE_KEY: b"1", CHECKED_KEY: fingerprint(result)})


def _line_of_row(spans: list[tuple], row: int) -> int:
    for n_rows, first_line, lines, _ in spans:
        if row < n_rows:
            return int(lines[row]) if lines is not None else first_line + row
        row -= n_rows
    raise IndexError(row)  # pragma: no cover


def to_pandas(table: pa.Table) -> pd.DataFrame:
    """An Arrow table of our readers as a pandas DataFrame (ids as str objects, as ir_measures reads them)."""
    return _to_pandas(table)


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    import pandas as pd

    frame = {}
    for field in table.column_names:
        column = table.column(field)
        if field in ("query_id", "doc_id"):
            column = column.cast(column.type.value_type) if hasattr(column.type, "value_type") else column
            frame[field] = pd.array(column.to_numpy(zero_copy_only=False), dtype=object)
        else:
            frame[field] = np.array(column.to_numpy())
    return pd.DataFrame(frame)

