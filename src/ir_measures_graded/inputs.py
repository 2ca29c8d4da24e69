"""Turning whatever ``ir_measures`` accepts as qrels or a run into validated column arrays.

Accepted, as in ``ir_measures``: a pandas DataFrame (columns ``query_id``, ``doc_id`` and
``relevance`` or ``score``), a dict of dicts (``{query_id: {doc_id: value}}``), or an iterable of
named tuples (``ir_measures.Qrel`` / ``ir_measures.ScoredDoc``). Unlike the trec_eval-based
providers, relevance labels may be real numbers.

Ids are returned *factorized*: integer codes per row plus the distinct ids as strings, so later
steps hash every distinct id once instead of once per row. Nothing here modifies the caller's
objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded.errors import GradedInputError


@dataclass(frozen=True)
class Columns:
    """One input as factorized id columns and a float64 value column (row order preserved)."""

    query_codes: np.ndarray  # int64, index into query_ids
    query_ids: np.ndarray  # object array of distinct str ids
    doc_codes: np.ndarray  # int64, index into doc_ids
    doc_ids: np.ndarray  # object array of distinct str ids
    values: np.ndarray  # float64: relevance labels (qrels) or scores (run)

    def __len__(self) -> int:
        return len(self.values)


def qrels_columns(qrels: Any) -> Columns:
    """Validated columns of a qrels object; raises :class:`GradedInputError` on bad input."""
    return _columns(qrels, kind="qrels", value_field="relevance")


def run_columns(run: Any) -> Columns:
    """Validated columns of a run; raises :class:`GradedInputError` on bad input."""
    return _columns(run, kind="run", value_field="score")


def _columns(obj: Any, kind: str, value_field: str) -> Columns:
    if isinstance(obj, pd.DataFrame):
        missing = [c for c in ("query_id", "doc_id", value_field) if c not in obj.columns]
        if missing:
            raise GradedInputError(
                f"{kind} DataFrame is missing column(s) {missing} (found {list(obj.columns)})"
            )
        qid_col, did_col, val_col = obj["query_id"], obj["doc_id"], obj[value_field]
        from_dict = False
    elif isinstance(obj, Mapping):
        qid_col, did_col, val_col = _dict_of_dict_columns(obj, kind)
        from_dict = True
    elif isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        qid_col, did_col, val_col = _namedtuple_columns(obj, kind, value_field)
        from_dict = False
    else:
        raise GradedInputError(
            f"{kind} must be a pandas DataFrame, a dict of dicts or an iterable of named tuples "
            f"with fields query_id, doc_id, {value_field}; got {type(obj).__name__}"
        )

    query_codes, query_ids = _factorize_ids(qid_col, kind, "query_id")
    if from_dict:  # a query with an empty dict is still a query (ir_measures scores it 0)
        known = set(query_ids)
        extra = [q for q in dict.fromkeys(map(str, obj)) if q not in known]
        query_ids = np.concatenate([query_ids, np.asarray(extra, dtype=object)]) if extra else query_ids
    doc_codes, doc_ids = _factorize_ids(did_col, kind, "doc_id")
    values = _numeric(val_col, kind, value_field, query_ids, query_codes, doc_ids, doc_codes)
    values.flags.writeable = False  # may be a view of the caller's column
    columns = Columns(query_codes, query_ids, doc_codes, doc_ids, values)
    if not from_dict:  # a dict of dicts cannot hold the same (query, doc) twice
        _reject_duplicates(columns, kind)
    return columns


def _dict_of_dict_columns(obj: Mapping, kind: str) -> tuple[list, list, list]:
    qids: list = []
    dids: list = []
    vals: list = []
    for qid, docs in obj.items():
        if not isinstance(docs, Mapping):
            raise GradedInputError(
                f"{kind} dict for query {qid!r} must map doc_id -> value, got {type(docs).__name__}"
            )
        qids.extend([qid] * len(docs))
        dids.extend(docs.keys())
        vals.extend(docs.values())
    return qids, dids, vals


def _namedtuple_columns(obj: Iterable, kind: str, value_field: str) -> tuple[list, list, list]:
    rows = list(obj)
    if not rows:
        return [], [], []
    first = rows[0]
    fields = getattr(first, "_fields", None)
    if fields is None:
        raise GradedInputError(
            f"{kind} iterable must yield named tuples (e.g. ir_measures."
            f"{'Qrel' if kind == 'qrels' else 'ScoredDoc'}); first item is {type(first).__name__}: {first!r}"
        )
    missing = [f for f in ("query_id", "doc_id", value_field) if f not in fields]
    if missing:
        raise GradedInputError(f"{kind} named tuples are missing field(s) {missing} (found {list(fields)})")
    try:
        qids = [r.query_id for r in rows]
        dids = [r.doc_id for r in rows]
        vals = [getattr(r, value_field) for r in rows]
    except AttributeError as ex:
        raise GradedInputError(f"{kind} item without the fields query_id, doc_id, {value_field}: {ex}") from None
    return qids, dids, vals


def _factorize_ids(col: Any, kind: str, field: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes per row and distinct ids as str (ids like 1 and '1' are the same id)."""
    codes, uniques = pd.factorize(np.asarray(col, dtype=object) if isinstance(col, list) else col)
    if len(codes) and codes.min() < 0:
        row = int(np.flatnonzero(codes < 0)[0])
        raise GradedInputError(f"{kind} row {row}: {field} is missing (None/NaN)")
    uniques = np.asarray(uniques, dtype=object)
    if pd.api.types.infer_dtype(uniques, skipna=False) == "string":
        return codes.astype(np.int64, copy=False), uniques
    # Ids of other types (ints, ...) compare as strings; 1 and '1' become the same id.
    merged, str_uniques = pd.factorize(np.asarray([str(u) for u in uniques], dtype=object))
    return merged[codes].astype(np.int64, copy=False), np.asarray(str_uniques, dtype=object)


def _numeric(
    col: Any,
    kind: str,
    field: str,
    query_ids: np.ndarray,
    query_codes: np.ndarray,
    doc_ids: np.ndarray,
    doc_codes: np.ndarray,
) -> np.ndarray:
    raw = col.to_numpy() if isinstance(col, pd.Series) else col
    try:
        values = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):  # some entry is not a number: find which, for the message
        values = pd.to_numeric(pd.Series(raw, dtype=object), errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise GradedInputError(
            f"{kind} row {row} (query {query_ids[query_codes[row]]!r}, doc {doc_ids[doc_codes[row]]!r}): "
            f"{field} {_plain(raw[row])!r} is not a finite number"
            + (f" ({int(bad.sum())} such rows in all)" if bad.sum() > 1 else "")
        )
    return values


def first_duplicate(query_codes: np.ndarray, doc_codes: np.ndarray) -> tuple[int, int] | None:
    """The first two rows (in row order of the second) holding the same (query, doc), if any."""
    n_docs = int(doc_codes.max()) + 1 if len(doc_codes) else 1
    keys = query_codes.astype(np.int64) * n_docs + doc_codes
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    dup = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    if not len(dup):
        return None
    second = order[dup + 1]
    at = int(np.argmin(second))
    return int(order[dup[at]]), int(second[at])


def _reject_duplicates(columns: Columns, kind: str) -> None:
    pair = first_duplicate(columns.query_codes, columns.doc_codes)
    if pair is not None:
        first, second = pair
        raise GradedInputError(
            f"{kind} has the same (query, doc) more than once: query "
            f"{columns.query_ids[columns.query_codes[first]]!r}, doc "
            f"{columns.doc_ids[columns.doc_codes[first]]!r} at rows {first} and {second}"
        )


def _plain(value: Any) -> Any:
    """numpy scalars as Python values, so messages read ``nan``, not ``np.float64(nan)``."""
    return value.item() if isinstance(value, np.generic) else value
