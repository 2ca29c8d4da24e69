"""Inputs that are compressed or cannot seek (issue 44, item 3): text compressed with gzip, bz2, xz or
zstd is read as the plain file (a truncated one gets one line naming the file, not binary bytes), and a
Parquet or Arrow IPC file through a pipe is read as the file (was ``[Errno 29] Illegal seek``)."""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest

from ir_measures_graded import GradedInputError
from ir_measures_graded.io.readers import read_qrels_table, read_run_table
from support.paths import QRELS, STRONG
from support.pipes import through_a_pipe


def zstd(data: bytes) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as out:
        out.write(data)
    return sink.getvalue().to_pybytes()


COMPRESS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress, "zst": zstd}


def rows(table: pa.Table) -> list[tuple]:
    return list(zip(*(table.column(i).to_pylist() for i in range(3)), strict=True))


@pytest.mark.parametrize("suffix", list(COMPRESS))
@pytest.mark.parametrize("source, reader", [(STRONG, read_run_table), (QRELS, read_qrels_table)], ids=["run", "qrels"])
def test_compressed_text_reads_as_the_plain_file_whatever_its_name(tmp_path, suffix, source, reader):
    plain = Path(source).read_bytes()
    for name in (f"input.{suffix}", "input.txt"):  # recognised by its first bytes, not its name
        path = tmp_path / name
        path.write_bytes(COMPRESS[suffix](plain))
        assert rows(reader(str(path))) == rows(reader(source))


@pytest.mark.parametrize("suffix", list(COMPRESS))
@pytest.mark.parametrize("damage", ["truncated", "corrupt"])
def test_damaged_compressed_text_gets_one_line_naming_the_file(tmp_path, suffix, damage):
    packed = COMPRESS[suffix](Path(STRONG).read_bytes())
    path = tmp_path / f"run.{suffix}"
    path.write_bytes(packed[:len(packed) // 2] if damage == "truncated" else
                     packed[:20] + bytes(range(256)) * 4)
    with pytest.raises(GradedInputError) as raised:
        read_run_table(str(path))
    message = str(raised.value)
    assert message.startswith(f"cannot read run file {path}: ") or message.startswith(f"{path}:"), message
    assert len(message.splitlines()) == 1 and len(message) < 200, message
    assert message.isprintable() and "\\x" not in message, message


@pytest.mark.parametrize("kind", ["parquet", "arrow"])
@pytest.mark.parametrize("reader, source", [(read_run_table, STRONG), (read_qrels_table, QRELS)], ids=["run", "qrels"])
def test_parquet_and_arrow_through_a_pipe_read_as_the_file(tmp_path, kind, reader, source):
    frame = reader(source)
    path = tmp_path / f"input.{kind}"
    (pq.write_table if kind == "parquet" else feather.write_feather)(frame, str(path))
    with through_a_pipe(tmp_path, path.read_bytes()) as pipe:
        assert rows(reader(pipe)) == rows(frame)


@pytest.mark.parametrize("suffix", list(COMPRESS))
def test_a_compressed_runs_tag_is_read_from_its_text(tmp_path, suffix):
    from ir_measures_graded import experiment

    path = tmp_path / f"run.{suffix}"
    path.write_bytes(COMPRESS[suffix](Path(STRONG).read_bytes()))
    for per_query in (True, False):  # read whole (hashed), or streamed: the tag is taken while reading
        exp = experiment(QRELS, [str(path), STRONG], ["muMAP"], per_query=per_query, warn=lambda _: None)
        assert [i.tag for i in exp.inputs] == ["strong", "strong"]
