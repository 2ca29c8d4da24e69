"""TREC text: the field layouts of qrels and run lines (defined once here) and their block parser.

Lines are split on any run of ASCII whitespace, as trec_eval reads them. The common layout (one
space or one tab between fields) goes through pyarrow's multithreaded CSV parser, block by block,
reading only the query, doc and value columns; a block with any other spacing is split with
``pyarrow.compute.ascii_split_whitespace``. Both give the same rows. Ids stay Arrow strings (never
one Python ``str`` per row). A malformed line is reported by ``file:line`` and the line; the scan
that finds that line runs only after the fast path failed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ir_measures_graded.arrow import from_numpy, one_binary, to_numpy
from ir_measures_graded.errors import GradedInputError

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

QREL_FIELDS = ("query_id", "iteration", "doc_id", "relevance")
RUN_FIELDS = ("query_id", "iteration", "doc_id", "rank", "score", "name")
BLOCK_SIZE = 3 << 21  # bytes of text parsed at a time: bounds memory (6 MiB: about 180k run lines; with two reading threads, 8 MiB took 20 MiB more at 5M lines for no speed)


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


def joined_blocks(blocks: Iterator[Block]) -> tuple[Any, Any, Any, list[tuple]] | None:
    """Blocks joined into three columns held compactly as they come: ``(query, doc, value, spans)``
    — the query ids dictionary-encoded block by block (the dictionaries unified at the end: ids in
    order of first appearance, as one encoding of the whole column gives them), the doc ids and
    values each joined once, and per block ``(rows, first line, lines, unit)``; None without a
    block. Each block's text columns are dropped as it is taken, so the peak is about the columns
    kept, a block, and one copy of the doc ids, not every block's text and a copy of it all."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ir_measures_graded.arrow import one_array

    queries, docs, values, spans = [], [], [], []
    for block in blocks:
        table = block.table
        queries.extend(pc.dictionary_encode(table.column("query_id")).chunks)
        docs.extend(table.column("doc_id").chunks)
        values.extend(table.column("value").chunks)
        spans.append((table.num_rows, block.first_line, block.lines, block.unit))
        del block, table
    if not spans:
        return None
    query = one_array(pa.chunked_array(queries).unify_dictionaries())
    del queries
    doc = one_array(pa.chunked_array(docs))
    del docs
    return query, doc, one_array(pa.chunked_array(values)), spans


def display_name(path: str | os.PathLike) -> str:
    """How messages name an input: ``<stdin>`` for ``-``."""
    return "<stdin>" if str(path) == "-" else str(path)


def text_blocks(stream: IO[bytes], name: str, layout: Layout, block_size: int, progress: Any,
                meter: Any = None) -> Iterator[Block]:
    """The rows of TREC text, a block at a time; ``meter`` (an :class:`~.inputs.Meter`) takes a run's tag."""
    line = 1
    carry = b""  # the start of a line whose end is not read yet
    first = True
    while True:
        chunk = stream.read(block_size)
        if progress is not None and chunk:
            progress.update(len(chunk))
        if first:
            first = False
            if chunk.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte order mark is not part of the first id
                chunk = chunk[3:]
            if meter is not None and layout.kind == "run":
                meter.see_first(chunk)
        if not chunk:
            if carry:
                block, n_lines = parse_block(carry, name, layout, line)
                if block.table.num_rows:
                    yield block
            return
        cut = chunk.rfind(b"\n") + 1
        if cut == 0:  # no complete line yet
            carry += chunk
            continue
        # the carried start and this chunk up to its last line end, in one copy (none if it ends a line)
        data = chunk if cut == len(chunk) and not carry else b"".join((carry, memoryview(chunk)[:cut]))
        carry = chunk[cut:]
        block, n_lines = parse_block(data, name, layout, line)
        line += n_lines
        if block.table.num_rows:
            yield block


def parse_block(block: bytes, name: str, layout: Layout, first_line: int) -> tuple[Block, int]:
    """The rows of ``block`` and its number of lines."""
    nul = block.find(b"\x00")
    if nul >= 0:
        _raise_nul(name, layout, block, first_line, nul)
    table = _parse_fast(block, layout)
    if table is None:
        return _parse_split(block, name, layout, first_line)
    values = to_numpy(table.column(2))
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
    # An empty field (which the CSV parser would read as an empty string) is a separator beside
    # another separator or a line end, or at either end of the block. Every byte up to the space
    # is flagged, separators and line ends among them, so any two side by side send the block to
    # the exact path: a blank line (which the parser would reject anyway), or a control
    # character inside an id beside a separator (rare; the exact path reads it as trec_eval does).
    raw = np.frombuffer(block, dtype=np.uint8)
    edge = raw <= 32
    beside = np.logical_and(edge[:-1], edge[1:], out=edge[:-1])  # in place: one array the block's size
    if b"\r" in block:  # every "\r" is followed by "\n" here: one line end
        beside &= raw[:-1] != 13
    if beside.any() or block[:1] == delimiter.encode() or block[-1:] == delimiter.encode():
        return None
    del raw, edge, beside
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

    lines = pc.split_pattern(one_binary(block), b"\n").values
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
    counts = np.array(to_numpy(pc.list_value_length(parts)))
    counts[to_numpy(pc.binary_length(text)) == 0] = 0  # blank lines
    rows = np.flatnonzero(counts > 0)
    wrong = rows[counts[rows] != layout.n_fields]
    if len(wrong):
        i = int(wrong[0])
        _raise_line(name, layout, block, first_line, i, f"expected {layout.n_fields} columns, found {counts[i]}")
    parts = parts.take(from_numpy(rows))
    query = pc.list_element(parts, layout.index("query_id")).cast(pa.string())
    doc = pc.list_element(parts, layout.index("doc_id")).cast(pa.string())
    tokens = pc.list_element(parts, layout.index(layout.value))
    at = layout.index(layout.value) + 1
    try:
        values = to_numpy(pc.cast(tokens, pa.float64()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        bad = _first_failing(tokens, lambda part: pc.cast(part, pa.float64()))
        _raise_line(name, layout, block, first_line, int(rows[bad]),
                    f"column {at} ({tokens[bad].as_py()!r}) is not a number")
    finite = np.isfinite(values)
    if not finite.all():
        bad = int(np.flatnonzero(~finite)[0])
        _raise_line(name, layout, block, first_line, int(rows[bad]), f"column {at} is not a finite number")
    table = pa.table({"query_id": query, "doc_id": doc, "value": from_numpy(values)})
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


def _raise_nul(name: str, layout: Layout, block: bytes, first_line: int, at: int) -> None:
    """Refuse the line holding the NUL byte at ``block[at]``.

    C strings end at a NUL: pytrec_eval (and trec_eval) would cut an id there, so ``d1\\0x`` and
    ``d1`` would be one document to the standard measures and two to ours. No reading is right for
    both, so the line is refused (whichever field holds it).
    """
    index = block.count(b"\n", 0, at)
    line = block.split(b"\n")[index]
    fields = line.split()  # ASCII whitespace, as the parser splits (NUL is not whitespace)
    column = next(i for i, part in enumerate(fields) if b"\x00" in part)
    kind = layout.fields[column] if column < layout.n_fields else ""
    reason = (f"the {kind.replace('_', ' ')} contains a NUL byte, where trec_eval and pytrec_eval would end it"
              if kind in ("query_id", "doc_id") else f"column {column + 1} contains a NUL byte")
    _raise_line(name, layout, block, first_line, index, reason)


def _raise_line(name: str, layout: Layout, block: bytes, first_line: int, index: int, reason: str) -> None:
    """Raise for the ``index``-th line of ``block`` (the fast path has one row per line)."""
    raw = block.split(b"\n")[index]
    text = raw.decode("utf-8", errors="backslashreplace").strip()
    raise GradedInputError(f"{name}:{first_line + index}: malformed {layout.kind} line ({reason}): {text!r}")

