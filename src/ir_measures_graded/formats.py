"""Reading qrels and runs from files into Arrow: TREC text (plain or gzip), Parquet and Arrow IPC.

TREC lines are split on any run of ASCII whitespace, as trec_eval reads them. The common layout
(one space or one tab between fields) goes through pyarrow's multithreaded CSV parser, block by
block, reading only the query, doc and value columns; a block with any other spacing is split
with ``pyarrow.compute.ascii_split_whitespace``. Both give the same rows. Ids stay Arrow strings
(never one Python ``str`` per row). A malformed file is reported by ``file:line`` and the line;
the scan that finds that line runs only after the fast path failed.

``path`` may be ``-`` (standard input), ``/dev/stdin`` or a pipe (process substitution): text is
read as a stream. Parquet and Arrow IPC files are recognised by their magic bytes and read by row
group / record batch; their columns default to ``query_id``, ``doc_id`` and ``relevance`` /
``score`` (other names through ``columns={"query_id": "qid", ...}``).
"""

from __future__ import annotations

import gzip
import os
import sys
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ir_measures_graded.errors import GradedInputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import pyarrow as pa

QREL_FIELDS = ("query_id", "iteration", "doc_id", "relevance")
RUN_FIELDS = ("query_id", "iteration", "doc_id", "rank", "score", "name")
BLOCK_SIZE = 1 << 22  # bytes of text parsed at a time: bounds memory (4 MiB: about 120k run lines)
_INT64_SAFE = 2.0**53  # integral labels below this are exact as int64 and as float64


@dataclass(frozen=True)
class Layout:
    """Which whitespace-separated fields of a TREC line hold the query, the doc and the value."""

    kind: str  # "qrels" or "run"
    fields: tuple[str, ...]
    value: str  # "relevance" or "score"

    @property
    def n_fields(self) -> int:
        return len(self.fields)

    def index(self, name: str) -> int:
        return self.fields.index(name)


QRELS = Layout("qrels", QREL_FIELDS, "relevance")
RUN = Layout("run", RUN_FIELDS, "score")


@dataclass
class Block:
    """Rows of one part of a file: ``query_id``, ``doc_id`` (strings) and ``value`` (float64)."""

    table: pa.Table
    first_line: int  # line (1-based) or row (0-based, columnar files) of the first row
    lines: np.ndarray | None = None  # line of each row when not consecutive (blank lines skipped)
    unit: str = "line"  # "line" (text files, 1-based) or "row" (other inputs, 0-based)

    def line_of(self, row: int) -> int:
        return int(self.lines[row]) if self.lines is not None else self.first_line + row


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


def read_qrels_table(path: str | os.PathLike, columns: Mapping[str, str] | None = None) -> pa.Table:
    """Qrels as an Arrow table: ``query_id`` (dictionary-encoded), ``doc_id`` (strings), ``relevance``."""
    table = _read_whole(path, QRELS, columns)
    values = table.column("relevance").to_numpy()
    if len(values) and np.all(values == np.round(values)) and np.abs(values).max() < _INT64_SAFE:
        import pyarrow as pa

        table = table.set_column(2, "relevance", pa.array(values.astype(np.int64))).replace_schema_metadata(
            table.schema.metadata)
    return table


def read_run_table(path: str | os.PathLike, columns: Mapping[str, str] | None = None,
                   progress: Any = None) -> pa.Table:
    """A run as an Arrow table: ``query_id`` (dictionary-encoded), ``doc_id`` (strings), ``score``."""
    return _read_whole(path, RUN, columns, progress)


def iter_blocks(
    path: str | os.PathLike, layout: Layout, columns: Mapping[str, str] | None = None,
    block_size: int = BLOCK_SIZE, progress: Any = None,
) -> Iterator[Block]:
    """The rows of a file, a block at a time, in file order. ``progress.update(n_bytes)`` if given."""
    name = _display(path)
    stream = _open(path, layout)
    try:
        head = stream.peek(8)[:8] if hasattr(stream, "peek") else b""
        if head[:4] == b"PAR1" or head[:6] == b"ARROW1" or head[:4] == b"\xff\xff\xff\xff":
            yield from _columnar_blocks(path, stream, head, layout, columns, progress)
            return
        text = stream
        if head[:2] == b"\x1f\x8b":
            text = gzip.GzipFile(fileobj=stream, mode="rb")
        yield from _text_blocks(text, name, layout, block_size, progress)
    except (OSError, EOFError, zlib.error) as ex:
        raise GradedInputError(f"cannot read {layout.kind} file {name}: {ex}") from None
    finally:
        if stream is not sys.stdin.buffer:
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


# --- opening --------------------------------------------------------------------------------------

def _display(path: str | os.PathLike) -> str:
    return "<stdin>" if str(path) == "-" else str(path)


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


# --- TREC text ------------------------------------------------------------------------------------

def _text_blocks(stream: IO[bytes], name: str, layout: Layout, block_size: int, progress: Any) -> Iterator[Block]:
    line = 1
    carry = b""
    first = True
    while True:
        chunk = stream.read(block_size)
        if progress is not None and chunk:
            progress.update(len(chunk))
        data = carry + chunk if carry else chunk
        if first:
            first = False
            if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte order mark is not part of the first id
                data = data[3:]
        if not chunk:
            if data:
                block, n_lines = _parse_block(data, name, layout, line)
                if block.table.num_rows:
                    yield block
            return
        cut = data.rfind(b"\n") + 1
        if cut == 0:  # no complete line yet
            carry = data
            continue
        block, n_lines = _parse_block(data[:cut], name, layout, line)
        carry = data[cut:]
        line += n_lines
        if block.table.num_rows:
            yield block


def _parse_block(block: bytes, name: str, layout: Layout, first_line: int) -> tuple[Block, int]:
    """The rows of ``block`` and its number of lines."""
    table = _parse_fast(block, layout)
    if table is None:
        return _parse_split(block, name, layout, first_line)
    values = table.column(2).to_numpy()
    if not np.isfinite(values).all():
        _raise_line(name, layout, block, first_line, int(np.flatnonzero(~np.isfinite(values))[0]),
                    f"column {layout.index(layout.value) + 1} is not a finite number")
    return Block(table, first_line), table.num_rows  # the fast path has no blank lines: one row per line


def _parse_fast(block: bytes, layout: Layout) -> pa.Table | None:
    """The block through pyarrow's CSV parser, when every line has single-character separators."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    if b"\x0b" in block or b"\x0c" in block:
        return None
    has_space, has_tab = b" " in block, b"\t" in block
    if has_space == has_tab:  # both (mixed spacing) or neither (one field per line)
        return None
    delimiter = " " if has_space else "\t"
    if b"\r" in block and block.count(b"\r") != block.count(b"\r\n"):
        return None  # a lone carriage return: the CSV parser would end a line there
    raw = np.frombuffer(block, dtype=np.uint8)
    sep = raw == ord(delimiter)
    end = raw == 10
    if b"\r" in block:
        end |= raw == 13
    # Empty fields: a separator followed by a separator or a line end, or a line starting with one.
    if (sep[:-1] & (sep[1:] | end[1:])).any() or (end[:-1] & sep[1:]).any() or (len(sep) and (sep[0] or sep[-1])):
        return None
    del raw, sep, end
    names = [f"f{i}" for i in range(layout.n_fields)]
    wanted = [names[layout.index("query_id")], names[layout.index("doc_id")], names[layout.index(layout.value)]]
    try:
        table = pcsv.read_csv(
            pa.py_buffer(block),
            read_options=pcsv.ReadOptions(column_names=names, use_threads=False, block_size=len(block) + 1),
            parse_options=pcsv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False,
                                            ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(
                column_types={wanted[0]: pa.string(), wanted[1]: pa.string(), wanted[2]: pa.float64()},
                include_columns=wanted, null_values=[], strings_can_be_null=False,
                quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    table = table.rename_columns(["query_id", "doc_id", "value"])
    return table.combine_chunks()


def _parse_split(block: bytes, name: str, layout: Layout, first_line: int) -> tuple[Block, int]:
    """Any whitespace; finds the first malformed line of the block and raises for it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lines = pc.split_pattern(pa.array([block], pa.large_binary()), b"\n").values
    if block.endswith(b"\n"):
        lines = lines.slice(0, len(lines) - 1)
    try:
        text = lines.cast(pa.large_string())
    except pa.ArrowInvalid:
        for i, raw in enumerate(lines.to_pylist()):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as ex:
                raise GradedInputError(
                    f"{name}:{first_line + i}: {layout.kind} line is not valid UTF-8 ({ex.reason} at byte "
                    f"{ex.start} of the line): {raw!r}") from None
        raise  # pragma: no cover - Arrow and Python disagree on UTF-8
    text = pc.ascii_trim_whitespace(text)  # else leading/trailing whitespace splits off empty fields
    parts = pc.ascii_split_whitespace(text)
    counts = np.array(pc.list_value_length(parts).to_numpy(zero_copy_only=False))
    counts[pc.binary_length(text).to_numpy(zero_copy_only=False) == 0] = 0  # blank lines
    rows = np.flatnonzero(counts > 0)
    wrong = rows[counts[rows] != layout.n_fields]
    if len(wrong):
        i = int(wrong[0])
        _raise_line(name, layout, block, first_line, i, f"expected {layout.n_fields} columns, found {counts[i]}")
    parts = parts.take(pa.array(rows))
    query = pc.list_element(parts, layout.index("query_id")).cast(pa.string())
    doc = pc.list_element(parts, layout.index("doc_id")).cast(pa.string())
    tokens = pc.list_element(parts, layout.index(layout.value))
    at = layout.index(layout.value) + 1
    try:
        values = pc.cast(tokens, pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        bad = _first_failing(tokens, lambda part: pc.cast(part, pa.float64()))
        _raise_line(name, layout, block, first_line, int(rows[bad]),
                    f"column {at} ({tokens[bad].as_py()!r}) is not a number")
    finite = np.isfinite(values)
    if not finite.all():
        bad = int(np.flatnonzero(~finite)[0])
        _raise_line(name, layout, block, first_line, int(rows[bad]), f"column {at} is not a finite number")
    table = pa.table({"query_id": query, "doc_id": doc, "value": pa.array(values)})
    return Block(table, first_line, lines=first_line + rows), len(lines)


def _first_failing(array: Any, operation: Any) -> int:
    """Index of the first element on which ``operation`` raises (bisection; error path only)."""
    import pyarrow as pa

    lo, hi = 0, len(array)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            operation(array.slice(lo, mid - lo))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            hi = mid
        else:
            lo = mid
    return lo


def _raise_line(name: str, layout: Layout, block: bytes, first_line: int, index: int, reason: str) -> None:
    """Raise for the ``index``-th line of ``block`` (the fast path has one row per line)."""
    raw = block.split(b"\n")[index]
    text = raw.decode("utf-8", errors="backslashreplace").strip()
    raise GradedInputError(f"{name}:{first_line + index}: malformed {layout.kind} line ({reason}): {text!r}")


# --- Parquet and Arrow IPC ------------------------------------------------------------------------

def _columnar_blocks(path: Any, stream: IO[bytes], head: bytes, layout: Layout,
                     columns: Mapping[str, str] | None, progress: Any) -> Iterator[Block]:
    import pyarrow as pa

    name = _display(path)
    wanted = {"query_id": "query_id", "doc_id": "doc_id", layout.value: layout.value, **(columns or {})}
    source = [wanted["query_id"], wanted["doc_id"], wanted[layout.value]]
    try:
        if head[:4] == b"PAR1":
            import pyarrow.parquet as pq

            if str(path) == "-":
                raise GradedInputError(f"{name}: Parquet needs a seekable file, not a stream")
            parquet = pq.ParquetFile(stream)
            _check_columns(name, layout, parquet.schema_arrow.names, source)
            batches = parquet.iter_batches(columns=source)
        elif head[:6] == b"ARROW1":
            reader = pa.ipc.open_file(stream)
            _check_columns(name, layout, reader.schema.names, source)
            batches = (reader.get_batch(i).select(source) for i in range(reader.num_record_batches))
        else:
            reader = pa.ipc.open_stream(stream)
            _check_columns(name, layout, reader.schema.names, source)
            batches = (batch.select(source) for batch in reader)
        row = 0
        for batch in batches:
            if progress is not None:
                progress.update(batch.nbytes)
            table = pa.Table.from_batches([batch])
            query = _string_column(table.column(0), name, layout, source[0])
            doc = _string_column(table.column(1), name, layout, source[1])
            value = _value_column(table.column(2), name, layout, source[2], row)
            yield Block(pa.table({"query_id": query, "doc_id": doc, "value": pa.array(value)}), row, unit="row")
            row += batch.num_rows
    except pa.ArrowException as ex:
        raise GradedInputError(f"cannot read {layout.kind} file {name}: {ex}") from None


def _check_columns(name: str, layout: Layout, found: list[str], source: list[str]) -> None:
    missing = [c for c in source if c not in found]
    if missing:
        raise GradedInputError(f"{layout.kind} file {name} has no column(s) {missing} (found {found}); "
                               "name them with the column options")
    twice = [c for c in source if found.count(c) > 1]
    if twice:
        raise GradedInputError(f"{layout.kind} file {name} has the column {twice[0]!r} more than once")


def _string_column(column: Any, name: str, layout: Layout, field: str) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)
            or pa.types.is_integer(column.type)):
        raise GradedInputError(f"{layout.kind} file {name}: column {field!r} holds {column.type}, "
                               "expected strings (or integers)")
    if column.null_count:
        raise GradedInputError(f"{layout.kind} file {name}: column {field!r} has missing values (null)")
    return pc.cast(column, pa.string()).combine_chunks()


def _value_column(column: Any, name: str, layout: Layout, field: str, first_row: int) -> np.ndarray:
    import pyarrow as pa

    if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
        raise GradedInputError(f"{layout.kind} file {name}: column {field!r} holds {column.type}, expected numbers")
    if column.null_count:
        raise GradedInputError(f"{layout.kind} file {name}: column {field!r} has missing values (null)")
    values = column.to_numpy().astype(np.float64, copy=False)
    finite = np.isfinite(values)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise GradedInputError(f"{name}: row {first_row + row}: {field} {float(values[row])!r} is not a finite number")
    return values


# --- whole files ----------------------------------------------------------------------------------

def _read_whole(path: str | os.PathLike, layout: Layout, columns: Mapping[str, str] | None,
                progress: Any = None) -> pa.Table:
    import pyarrow as pa
    import pyarrow.compute as pc

    from ir_measures_graded.inputs import CHECKED_KEY, UNIQUE_KEY, fingerprint, first_duplicate_strings

    blocks = list(iter_blocks(path, layout, columns, progress=progress))
    if not blocks:
        return pa.table({"query_id": pa.array([], pa.string()).dictionary_encode(),
                         "doc_id": pa.array([], pa.string()),
                         layout.value: pa.array([], pa.float64())})
    table = pa.concat_tables([b.table for b in blocks]).combine_chunks()
    spans = [(b.table.num_rows, b.first_line, b.lines, b.unit) for b in blocks]
    del blocks
    query = pc.dictionary_encode(table.column("query_id")).combine_chunks()
    doc = table.column("doc_id").combine_chunks()  # one string per row: no hash table of millions of ids
    pair = first_duplicate_strings(query.indices.to_numpy(zero_copy_only=False).astype(np.int64), doc)
    if pair is not None:
        first, second = (_line_of_row(spans, row) for row in pair)
        kind = spans[0][3]
        raise GradedInputError(
            f"{_display(path)}:{second}: query {table.column('query_id')[pair[0]].as_py()!r}, doc "
            f"{table.column('doc_id')[pair[0]].as_py()!r} appears again (first at {kind} {first}); "
            f"each (query, doc) may appear once in a {layout.kind} file"
        )
    result = pa.table({"query_id": query, "doc_id": doc, layout.value: table.column("value")},
                      metadata={UNIQUE_KEY: b"1"})
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
