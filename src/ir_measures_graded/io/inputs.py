"""An input as read: one immutable value per qrels or run, made by reading it once.

:class:`Input` holds what was read (the table, or the columns of the small-file reader; ``None`` when
the run was streamed and not kept), the SHA-256 of the file's bytes computed while they were read,
the run's own tag (column 6 of its first line), the rows and bytes read and the reading options. The
experiment builds one per input and every view takes these values: nothing above :mod:`..io` opens a
file. :class:`Meter` is what a reader fills in as it reads (the hash, the byte count, the tag).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ir_measures_graded.errors import GradedInputError

__all__ = ["Input", "Meter", "tag_of", "frame_tag"]


def tag_of(line: bytes) -> str | None:
    """A run's tag from one line: its sixth whitespace-separated field, when the line has six."""
    fields = line.split()
    if len(fields) != 6:
        return None
    tag = fields[5].decode("utf-8", errors="replace")
    return tag if tag.strip() else None


def frame_tag(run: Any) -> str | None:
    """A run in memory's own tag: the first value of a pandas frame's ``name`` column (as a TREC run's)."""
    if type(run).__module__.startswith("pandas") and "name" in getattr(run, "columns", ()) and len(run):
        tag = str(run["name"].iloc[0])
        return tag if tag.strip() else None
    return None


class Meter:
    """What reading one file saw: its bytes' SHA-256 (with ``digest``), their count, the first line's tag.

    Text is hashed as it is read (:meth:`wrap`); a file read out of order (Parquet, Arrow IPC seek to
    their footers) is hashed from the same open handle once read (:meth:`finish`), never opened again.
    """

    def __init__(self, digest: bool = True) -> None:
        self.digest = digest
        self._sha = _sha256() if digest else None
        self.size = 0
        self.tag: str | None = None
        self._tagged = False
        self._sequential = True

    def update(self, data: Any) -> None:
        self.size += len(data)
        if self._sha is not None:
            self._sha.update(data)

    def see_first(self, chunk: bytes) -> None:
        """Take the tag from the first non-blank line of the text (called with each chunk until found)."""
        if self._tagged:
            return
        at = 0
        while at < len(chunk):  # line by line to the first that is not blank (no split of the whole chunk)
            end = chunk.find(b"\n", at)
            end = len(chunk) if end < 0 else end
            if chunk[at:end].strip():
                self.tag, self._tagged = tag_of(chunk[at:end]), True
                return
            at = end + 1

    def wrap(self, stream: Any, owns: bool = True) -> Any:
        """``stream`` read through this meter: a buffered reader over a raw reader that hashes each read;
        closing it closes ``stream`` when it ``owns`` it (not standard input)."""
        return io.BufferedReader(_Metered(stream, self, owns), buffer_size=1 << 20)

    def finish(self, stream: Any) -> None:
        """After reading: a file read out of order is hashed now, from its own handle (seekable files only;
        its reads pass through this meter again, which counts them afresh)."""
        if self._sequential or self._sha is None:
            return
        self._sha, self.size = _sha256(), 0
        stream.seek(0)
        self._sequential = True
        while stream.read(1 << 20):
            pass

    def hexdigest(self) -> str | None:
        return self._sha.hexdigest() if self._sha is not None and self._sequential else None


def _sha256() -> Any:
    import hashlib  # here: OpenSSL loads only where a digest is asked (the plain evaluation asks none)

    return hashlib.sha256()


class _Metered(io.RawIOBase):
    """A raw binary reader that hands every byte it reads to a :class:`Meter`."""

    def __init__(self, stream: Any, meter: Meter, owns: bool) -> None:
        super().__init__()
        self.stream, self.meter, self.owns = stream, meter, owns

    def close(self) -> None:
        if not self.closed and self.owns:
            self.stream.close()
        super().close()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self.stream.readinto(buffer)
        if n:
            self.meter.update(memoryview(buffer)[:n])
        return n or 0

    def seekable(self) -> bool:
        try:
            return bool(self.stream.seekable())
        except (AttributeError, OSError, ValueError):
            return False

    def seek(self, offset: int, whence: int = 0) -> int:
        self.meter._sequential = False  # read out of order: hashed whole at the end (Meter.finish)
        return self.stream.seek(offset, whence)

    def tell(self) -> int:
        return self.stream.tell()

    def fileno(self) -> int:
        return self.stream.fileno()


@dataclass(frozen=True)
class Input:
    """One input, read once: see the module's docstring."""

    kind: str  # "qrels" or "run"
    origin: str | None  # the path, '-' or ir_datasets id as given; None: given in memory
    data: Any = field(repr=False)  # as read (or as given in memory); None: streamed, not kept
    digest: str | None = None  # SHA-256 (hex) of the file's bytes, computed while reading; None: not a file, or not kept
    rows: int = 0
    size: int | None = None  # bytes read from the file; None: not a file
    tag: str | None = None  # a run's own tag: column 6 of its first line, or a frame's ``name`` column
    columns: Mapping[str, str] = field(default_factory=dict)  # the column names of Parquet / Arrow inputs

    @property
    def kept(self) -> bool:
        return self.data is not None

    def held(self, name: str, needed_by: str) -> Any:
        """What was read, for a view (``needed_by``); one line when the input was streamed and not kept."""
        if self.data is None:
            raise GradedInputError(f"{self.kind} {name} was read as a stream and not kept (per_query=False or "
                                   f"Reading(keep=False)): {needed_by} needs it; evaluate with per_query=True")
        return self.data
