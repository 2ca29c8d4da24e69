"""Parquet and Arrow IPC (file and stream): record batches checked and turned into blocks.

Columns default to ``query_id``, ``doc_id`` and ``relevance`` / ``score`` (other names through
``columns={"query_id": "qid", ...}``). Ids may be strings or integers (compared as their decimal
strings), values any integer or float type; nulls and non-finite values are refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import IO, Any

from ir_measures_graded.arrow import from_numpy
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io import columns as validated
from ir_measures_graded.io.ids import arrow_ids, core_ids, first_missing
from ir_measures_graded.io.trec import Block, Layout, display_name


def columnar_format(stream: IO[bytes], head: bytes) -> str | None:
    """``'parquet'``, ``'arrow'`` (IPC file), ``'arrow-stream'`` or None (text), from more than four bytes.

    ``head``: the stream's first 8 bytes (not consumed). A TREC line may begin with ``PAR1`` or
    ``ARROW1``: Parquet also needs its closing magic and a footer length that fits the file (or, on
    a stream, binary data after the magic), an Arrow IPC file the 2 padding bytes after its magic.
    """
    if head[:4] == b"\xff\xff\xff\xff":  # an IPC stream's continuation marker: never UTF-8 text
        return "arrow-stream"
    if head[:8] == b"ARROW1\x00\x00":
        return "arrow"
    if head[:4] != b"PAR1":
        return None
    if not _seekable(stream):  # text goes on with a separator or printable ASCII; Parquet with binary page headers
        return "parquet" if len(head) > 4 and not (head[4] in b"\t\n\r " or 0x21 <= head[4] <= 0x7e) else None
    at = stream.tell()
    size = stream.seek(0, 2)
    if size < 12:
        stream.seek(at)
        return None
    stream.seek(size - 8)
    tail = stream.read(8)
    stream.seek(at)
    footer = int.from_bytes(tail[:4], "little")
    return "parquet" if tail[4:] == b"PAR1" and 0 < footer <= size - 12 else None


def _seekable(stream: IO[bytes]) -> bool:
    try:
        return bool(stream.seekable())
    except (AttributeError, OSError, ValueError):
        return False


def columnar_blocks(path: Any, stream: IO[bytes], kind: str, layout: Layout,
                    columns: Mapping[str, str] | None, progress: Any) -> Iterator[Block]:
    """The record batches of a Parquet or Arrow IPC file (``kind`` from :func:`columnar_format`) as blocks."""
    import pyarrow as pa

    name = display_name(path)
    wanted = {"query_id": "query_id", "doc_id": "doc_id", layout.value: layout.value, **(columns or {})}
    source = [wanted["query_id"], wanted["doc_id"], wanted[layout.value]]
    shared = [(role, column) for role, column in zip(("query_id", "doc_id", layout.value), source, strict=True)
              if source.count(column) > 1]
    if shared:
        raise GradedInputError(f"{layout.kind} file {name}: the column {shared[0][1]!r} is given for "
                               f"{' and '.join(role for role, _ in shared)}; each needs a column of its own")
    try:
        if kind in ("parquet", "arrow") and not _seekable(stream):
            # standard input or a pipe: their index is at the end, so the file is read into memory, once
            stream = pa.BufferReader(stream.read())
        if kind == "parquet":
            import pyarrow.parquet as pq

            parquet = pq.ParquetFile(stream)
            check_columns(name, layout, parquet.schema_arrow.names, source)
            batches = parquet.iter_batches(columns=source)
        elif kind == "arrow":
            reader = pa.ipc.open_file(stream)
            check_columns(name, layout, reader.schema.names, source)
            batches = (reader.get_batch(i).select(source) for i in range(reader.num_record_batches))
        else:
            reader = pa.ipc.open_stream(stream)
            check_columns(name, layout, reader.schema.names, source)
            batches = (batch.select(source) for batch in reader)
        yield from record_blocks(batches, name, layout, source, progress)
    except pa.ArrowException as ex:
        raise GradedInputError(f"cannot read {layout.kind} file {name}: {ex}") from None


def record_blocks(batches: Iterable[Any], name: str, layout: Layout, source: list[str] | None = None,
                  progress: Any = None, first_row: int = 0) -> Iterator[Block]:
    """Record batches (columns ``source``: query, doc, value) checked and turned into blocks.

    ``first_row``: the number of the first batch's first row in the whole input (for messages).
    """
    import pyarrow as pa

    source = source or ["query_id", "doc_id", layout.value]
    what = source_name(layout, name)
    row = first_row
    for i, batch in enumerate(batches):
        if i == 0:
            check_columns(name, layout, batch.schema.names, source)
        if progress is not None:
            progress.update(batch.nbytes)
        table = pa.Table.from_batches([batch])
        columns = [table.column(field) for field in source]
        yield Block(checked_table(columns, what, source, lambda r, first=row: f"{what}: row {first + r}"), row,
                    unit="row")
        row += batch.num_rows


def checked_table(columns: list[Any], what: str, fields: list[str], where: Callable[[int], str],
                  integer_docs: bool = False, query_dictionary: bool = False) -> Any:
    """Three Arrow columns (query, doc, value) checked as every Arrow input is: ids strings (integers
    become their decimal strings), values finite numbers as float64, no nulls. A table ``query_id``,
    ``doc_id``, ``value``.

    ``what`` names the input, ``fields`` the columns, ``where(row)`` a row (a number in a file; a
    query and doc in rows shuffled by Spark). ``integer_docs``: integer doc ids stay integers (int64),
    for a table evaluated at once (see :mod:`.ids`). ``query_dictionary``: a dictionary-encoded query
    column stays one (its dictionary as strings), so that it is not expanded to a string per row
    and encoded again.
    """
    import pyarrow as pa

    query = _id_column(columns[0], what, fields[0], where, dictionary=query_dictionary)
    doc = _id_column(columns[1], what, fields[1], where, integer_docs)
    value = validated.arrow_values(columns[2], what, fields[2], where)
    return pa.table({"query_id": query, "doc_id": doc, "value": from_numpy(value)})


def check_columns(name: str, layout: Layout, found: list[str], source: list[str]) -> None:
    validated.check_columns(found, source, source_name(layout, name), "; name them with the column options")


def source_name(layout: Layout, name: str) -> str:
    """How messages name what is read: ``run file PATH``; ``run DataFrame`` for a Spark DataFrame and
    ``run`` for batches in memory, as given."""
    return name if name in (layout.kind, f"{layout.kind} DataFrame") else f"{layout.kind} file {name}"


def _id_column(column: Any, what: str, field: str, where: Callable[[int], str], integers: bool = False,
               dictionary: bool = False) -> Any:
    import pyarrow as pa

    column = arrow_ids(column, what, field, integers)
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_dictionary(column.type) and not (dictionary and not column.dictionary.null_count):
        column = column.cast(column.type.value_type)  # a null in the dictionary: the row holding it is named below
    row = first_missing(column)
    if row is not None:
        raise GradedInputError(f"{where(row)}: {field} is missing (null)")
    if pa.types.is_dictionary(column.type):
        return pa.DictionaryArray.from_arrays(column.indices, core_ids(column.dictionary))
    return core_ids(column)
