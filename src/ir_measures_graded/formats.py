"""Reading TREC qrels and run files (plain or gzip) into DataFrames, with real-valued labels.

``ir_measures.read_trec_qrels`` parses labels with ``int()``; these readers keep real-valued
labels (0.37) and report a malformed file by path, line number and the line itself.
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.inputs import first_duplicate

QREL_FIELDS = ("query_id", "iteration", "doc_id", "relevance")
RUN_FIELDS = ("query_id", "iteration", "doc_id", "rank", "score", "name")


def read_qrels(path: str | os.PathLike) -> pd.DataFrame:
    """TREC qrels ``query_id iteration doc_id relevance`` -> DataFrame.

    Relevance is int64 when every label is a whole number, else float64 (real-valued labels).
    """
    return _read(path, QREL_FIELDS, numeric="relevance", kind="qrels")


def read_run(path: str | os.PathLike) -> pd.DataFrame:
    """TREC run ``query_id Q0 doc_id rank score name`` -> DataFrame (score as float64)."""
    return _read(path, RUN_FIELDS, numeric="score", kind="run")


def _read(path: str | os.PathLike, fields: tuple[str, ...], numeric: str, kind: str) -> pd.DataFrame:
    path = Path(path)
    if not path.is_file():
        raise GradedInputError(f"{kind} file not found: {path}")
    try:
        text = _text(path)
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as ex:
        raise GradedInputError(f"cannot read {kind} file {path}: {ex}") from None
    if not text.strip():
        return pd.DataFrame({f: pd.Series(dtype=np.float64 if f == numeric else object) for f in fields})
    str_fields = {f: str for f in fields if f != numeric}
    try:
        frame = pd.read_csv(
            io.StringIO(text), sep=r"\s+", header=None, names=list(fields), dtype=str_fields,
            keep_default_na=False, na_values=[], comment=None, engine="c",
        )
    except (pd.errors.ParserError, ValueError):
        frame = None
    # A short line leaves its last columns empty ('' or NaN); a long one is a ParserError.
    if frame is None or frame[numeric].dtype.kind not in "iuf" \
            or not np.isfinite(frame[numeric].to_numpy(dtype=np.float64)).all() \
            or (fields[-1] != numeric and (frame[fields[-1]] == "").any()):
        _raise_first_bad_line(path, text, len(fields), fields.index(numeric), kind)
    pair = first_duplicate(pd.factorize(frame["query_id"])[0], pd.factorize(frame["doc_id"])[0])
    if pair is not None:
        first, second = _line_numbers(text, pair)
        raise GradedInputError(
            f"{path}:{second}: query {frame['query_id'].iat[pair[0]]!r}, doc {frame['doc_id'].iat[pair[0]]!r} "
            f"appears again (first at line {first}); each (query, doc) may appear once in a {kind} file"
        )
    values = frame[numeric].to_numpy(dtype=np.float64)
    # Integral labels stay integers, so trec_eval-based measures (which reject floats) accept them too.
    integral = kind == "qrels" and bool(np.all(values == np.round(values)))
    frame[numeric] = values.astype(np.int64) if integral else values
    return frame


def _text(path: Path) -> str:
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return f.read()
    return path.read_text(encoding="utf-8")


def _line_numbers(text: str, rows: tuple[int, ...]) -> list[int]:
    """1-based line numbers of the given data rows (blank lines are not rows)."""
    wanted, found, row = set(rows), {}, -1
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            row += 1
            if row in wanted:
                found[row] = lineno
                if len(found) == len(wanted):
                    break
    return [found[r] for r in rows]


def _raise_first_bad_line(path: Path, text: str, n_fields: int, numeric_at: int, kind: str) -> None:
    for lineno, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != n_fields:
            reason = f"expected {n_fields} columns, found {len(parts)}"
        else:
            try:
                value = float(parts[numeric_at])
                reason = None if np.isfinite(value) else f"column {numeric_at + 1} is not a finite number"
            except ValueError:
                reason = f"column {numeric_at + 1} ({parts[numeric_at]!r}) is not a number"
        if reason:
            raise GradedInputError(f"{path}:{lineno}: malformed {kind} line ({reason}): {line.strip()!r}")
    raise GradedInputError(f"{path}: cannot parse {kind} file")  # pragma: no cover - parser disagreed with scan
