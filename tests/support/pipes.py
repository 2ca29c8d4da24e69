"""A stream that cannot seek, as standard input is when a program's output is piped in."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def through_a_pipe(tmp_path: Path, data: bytes) -> Iterator[str]:
    """A named pipe that a thread fills with ``data``: a stream that cannot seek, as standard input."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        yield str(fifo)
    finally:
        writer.join(timeout=10)
