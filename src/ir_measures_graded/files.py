"""Every file the package writes, written one way: never over an input, its folder made, whole or not at all.

- :class:`Inputs` holds what a command reads by identity (the real path and the ``(st_dev, st_ino)``
  of each file, and of the file behind standard input when an input is ``-``), so that a target named
  by another spelling, through a symbolic link or as a hard link of an input is refused
  (:meth:`Inputs.refuse`) before anything is evaluated.
- :func:`writing` (and :func:`write_text`, :func:`save_figure`) writes into a temporary file in the
  target's folder and renames it over the target (``os.replace``) only once it is complete: a process
  stopped while it writes (SIGTERM from a scheduler, the OOM killer) leaves the previous file or none,
  never a truncated one that looks whole; an error while writing removes the temporary file.

Standard output is a stream, not a file: it is never written through here.
"""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ir_measures_graded.errors import GradedInputError

__all__ = ["STANDARD_INPUT", "Inputs", "display", "blocked", "writing", "write_text", "save_figure"]

#: Names of the standard input (a command reads it once).
STANDARD_INPUT = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def display(text: str) -> str:
    """``text`` printable as UTF-8: bytes a file name holds that are not UTF-8 (which Python keeps as
    lone surrogates) shown as ``\\xNN``."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogateescape") if _escaped_only(text) else text.encode("utf-8", "surrogatepass")
        return raw.decode("utf-8", "backslashreplace")


def _escaped_only(text: str) -> bool:
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in text)


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


@dataclass(frozen=True)
class Inputs:
    """The files a command reads, each as given (for the message), its real path and its identity
    ``(st_dev, st_ino)`` (a hard link shares it). Inputs that are no file (an ir_datasets id, a run in
    memory, a pipe) are left out: nothing can be written over them."""

    files: tuple[tuple[str, str, tuple[int, int]], ...] = ()

    @classmethod
    def of(cls, given: Iterable[Any]) -> Inputs:
        """The files among ``given`` (paths, ``-`` and the other names of standard input, anything else)."""
        found = []
        for item in given:
            if not isinstance(item, (str, os.PathLike)):
                continue
            path = os.fspath(item)
            if not isinstance(path, str):
                continue
            try:
                if path in STANDARD_INPUT:  # the file standard input was redirected from, if any
                    info = os.fstat(0)
                    if stat.S_ISREG(info.st_mode):
                        found.append((path, "", _identity(info)))
                    continue
                info = os.stat(path)
            except (OSError, ValueError):
                continue  # not a file here (a measure, a dataset id, a closed standard input)
            if stat.S_ISREG(info.st_mode):
                found.append((path, os.path.realpath(path), _identity(info)))
        return cls(tuple(found))

    def holding(self, target: str | os.PathLike[str]) -> str | None:
        """The input ``target`` names (under any spelling, link or hard link), as it was given; None."""
        path = os.fspath(target)
        real = os.path.realpath(path)
        try:
            identity = _identity(os.stat(path))
        except (OSError, ValueError):
            identity = None
        for given, given_real, given_identity in self.files:
            if (given_real and given_real == real) or identity == given_identity:
                return given
        return None

    def refuse(self, target: str | os.PathLike[str], writing: str, instead: str) -> None:
        """A GradedInputError ``writing`` ``over the input ...``, ``instead``, when ``target`` is one of
        the inputs: every file a command writes is checked, before anything is evaluated."""
        given = self.holding(target)
        if given is not None:
            shown = "standard input" if given in STANDARD_INPUT else display(given)
            raise GradedInputError(f"{writing} over the input {shown}: {instead} (inputs are never written)")


def blocked(path: str | os.PathLike[str], folder: bool = False) -> str | None:
    """Why ``path`` cannot be written as a file (with ``folder``: be a folder files are written in): it
    is a directory (not a folder), or a folder on its way is a file; None when it can (the folders
    missing are made when a file is written)."""
    path = os.path.abspath(os.fspath(path))
    if os.path.exists(path):
        if os.path.isdir(path) == folder:
            return None
        return f"{display(path)} is {'not a folder' if folder else 'a directory'}"
    parent = os.path.dirname(path)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    return None if os.path.isdir(parent) else f"{display(parent)} is not a folder"


@contextlib.contextmanager
def writing(path: str | os.PathLike[str], binary: bool = False) -> Iterator[IO[Any]]:
    """A stream writing the file ``path`` whole or not at all: its folder made, a temporary file beside
    it renamed over it when the ``with`` block ends (the previous file intact until then), removed if
    the block raises. A symbolic link at ``path`` keeps pointing where it did: the file it names is
    replaced. Text is UTF-8 with the newlines as written."""
    target = Path(os.path.realpath(os.fspath(path)))
    if target.is_dir():
        raise GradedInputError(f"{display(os.fspath(path))} is a directory; give a file's path")
    target.parent.mkdir(parents=True, exist_ok=True)
    # the mode a new file gets (0o666 less the umask), or the replaced file's own
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o666
    temporary = target.parent / f".{target.name}.{uuid.uuid4().hex[:12]}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode)
    try:
        with (os.fdopen(descriptor, "wb") if binary else
              open(descriptor, "w", encoding="utf-8", newline="")) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())  # on disk before the name points at it
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` (UTF-8) through :func:`writing`; returns the path."""
    with writing(path) as stream:
        stream.write(text)
    return Path(path)


def save_figure(figure: Any, path: str | os.PathLike[str], **options: Any) -> Path:
    """Save a matplotlib ``figure`` to ``path`` through :func:`writing`, in the format its suffix names
    (``options``: ``Figure.savefig``'s); returns the path."""
    options.setdefault("format", os.path.splitext(os.fspath(path))[1].lstrip(".").lower() or None)
    with writing(path, binary=True) as stream:
        figure.savefig(stream, **options)
    return Path(path)
