"""Qrels and runs prepared once as sorted integer arrays, with ir_measures' ranking conventions.

:class:`Judgments` is built once per qrels (an ``ir_measures`` evaluator keeps it for every run it
scores); :class:`Ranking` is one run joined to those judgments and sorted. Both are read-only views
of the caller's data: nothing here modifies the inputs.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ir_measures_graded import kernels
from ir_measures_graded.arrow import from_numpy, to_numpy
from ir_measures_graded.io.ids import name_ranks
from ir_measures_graded.io.small import TextTable

if TYPE_CHECKING:  # the column readers load with pyarrow, when an input needs them (not for small TREC files)
    from ir_measures_graded.io.columns import Columns


@dataclass
class Judgments:
    """Relevance judgments sorted by query; quantities derived from them are cached (see :mod:`.derived`).

    A snapshot: the labels are copied when the caller's column could be changed in place later
    (ids and query codes are always new arrays), so every value is that of the judgments as they
    were when these were built.

    Runs are joined to the judgments through a 64-bit hash of (query, doc id), sorted once, and
    every match is confirmed on the strings themselves: no hash table of the (possibly millions
    of) distinct judged doc ids is ever built. Judgments of a small TREC file (:meth:`from_text`)
    hold their doc ids as sorted bytes instead and join on exact integer codes, without pyarrow.
    """

    query_ids: np.ndarray  # distinct query ids (str); a query's code is its index here
    # doc id of every judgment row (pyarrow StringArray, or Int64Array: see io.ids), in the rows'
    # order; from_text: the distinct judged doc ids, sorted bytes (numpy), the keys then hold exact
    # codes instead of hashes
    doc_ids: Any
    query: np.ndarray  # per judgment row, sorted: query code
    label: np.ndarray  # per judgment row: relevance label (float64)
    _keys: np.ndarray = field(repr=False)  # join keys (uint64), ascending
    _key_rows: np.ndarray = field(repr=False)  # the judgment row of each key
    _cache: dict = field(default_factory=dict, repr=False, compare=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)
    _query_index: dict | None = field(default=None, repr=False, compare=False)  # query id -> code

    @classmethod
    def from_qrels(cls, qrels: Any) -> Judgments:
        """From qrels in any in-memory form :mod:`.io.columns` accepts (read files with :mod:`.io` first),
        or a small TREC file's rows from :func:`.io.small.read_small`."""
        if isinstance(qrels, TextTable):
            return cls.from_text(qrels)
        from ir_measures_graded.io.columns import qrels_columns

        return cls.from_columns(qrels_columns(qrels, encode_docs=False))

    @classmethod
    def from_text(cls, table: TextTable) -> Judgments:
        """From a small TREC qrels file read by :func:`.io.small.read_small` (numpy only): the keys
        are (query code, doc code) pairs, exact, so no match needs confirming on the strings."""
        order = np.argsort(table.query_codes, kind="stable")
        query, doc = table.query_codes[order], table.doc_codes[order]
        keys = (query.astype(np.uint64) << np.uint64(32)) | doc.astype(np.uint64)
        key_rows = np.argsort(keys)
        small = np.int32 if len(query) < 2**31 else np.int64
        return cls(
            query_ids=np.array(table.query_strings(), dtype=object),
            doc_ids=table.doc_ids,
            query=query,
            label=np.asarray(table.value[order], dtype=np.float64),
            _keys=keys[key_rows],
            _key_rows=key_rows.astype(small),
        )

    @classmethod
    def from_columns(cls, cols: Columns) -> Judgments:
        """Built once per qrels from their validated columns; reused for every run."""

        from ir_measures_graded.io.ids import id_hashes

        query, per_row, label, hashes = cols.query_codes, cols.doc_codes, cols.values, cols.doc_hashes
        if not np.all(query[1:] >= query[:-1]):  # not grouped by query yet
            order = np.argsort(query, kind="stable")
            query, per_row, label = query[order], per_row[order], label[order]
            hashes = hashes[order] if hashes is not None else None
            del order
        else:  # the labels may be a view of the caller's column: copy them, as pytrec_eval copies the
            # qrels, so that an edit of the caller's frame never mixes with the quantities cached here
            label = np.array(label, dtype=np.float64)
        label.flags.writeable = False
        if np.array_equal(per_row, np.arange(len(per_row))):  # one id per row, in order: no copy
            doc_ids = cols.doc_ids
        else:
            doc_ids = cols.doc_ids.take(from_numpy(per_row))
        del per_row
        keys = _join_keys(query, hashes if hashes is not None else id_hashes(doc_ids))
        del hashes
        key_rows = np.argsort(keys)
        keys = keys[key_rows]
        small = np.int32 if len(query) < 2**31 else np.int64
        return cls(
            query_ids=cols.query_ids,
            doc_ids=doc_ids,
            query=query,
            label=label,
            _keys=keys,
            _key_rows=key_rows.astype(small),
        )

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def codes_of(self, query_ids: Any) -> np.ndarray:
        """Code of each query id (str; a list, object array or Arrow array); -1 for queries not judged."""
        with self._lock:
            if self._query_index is None:
                self._query_index = {q: i for i, q in enumerate(self.query_ids.tolist())}
            index = self._query_index
        ids = query_ids.to_pylist() if hasattr(query_ids, "to_pylist") else list(query_ids)
        return np.fromiter((index.get(q, -1) for q in ids), dtype=np.int64, count=len(ids))

    def labels_of(self, query: np.ndarray, doc_codes: np.ndarray | None, doc_ids: Any,
                  doc_hashes: np.ndarray | None = None) -> np.ndarray:
        """Label of each (query code, doc) pair; NaN where the document is not judged for that query.

        ``doc_ids[doc_codes[i]]`` is row ``i``'s doc id (``doc_ids`` a pyarrow string array, or sorted
        bytes for judgments :meth:`from_text`;
        ``doc_codes`` None: ``doc_ids`` has one entry per row). ``doc_hashes``: ``id_hashes(doc_ids)``
        if already computed.
        """
        label = np.full(len(query), np.nan)
        if not len(query) or not len(self._keys):
            return label
        if isinstance(self.doc_ids, np.ndarray):  # judgments from_text: exact codes, numpy only
            return self._exact_labels(label, query, doc_codes, doc_ids)
        import pyarrow.compute as pc

        from ir_measures_graded.io.ids import as_strings, id_hashes, is_integer

        if is_integer(doc_ids) != is_integer(self.doc_ids):  # integer ids meet string ids: as strings
            if is_integer(self.doc_ids):
                return self._with_string_ids().labels_of(query, doc_codes, doc_ids, doc_hashes)
            doc_ids, doc_hashes = as_strings(doc_ids), None
        hashes = id_hashes(doc_ids) if doc_hashes is None else doc_hashes
        if doc_codes is None:
            doc_codes = np.arange(len(query), dtype=np.int64)
        else:
            hashes = hashes[doc_codes]
        keys = _join_keys(query, hashes)
        # Only the keys of this batch's queries (the query is in the keys' high bits): a small,
        # cache-resident part of the judgments for a batch of a few queries.
        bounds = np.array([int(query.min()) << 32, (int(query.max()) + 1) << 32], dtype=np.uint64)
        lo, hi = (int(b) for b in np.searchsorted(self._keys, bounds))
        pos = lo + np.searchsorted(self._keys[lo:hi], keys)
        pending = np.flatnonzero(pos < hi)
        for _ in range(self.JOIN_TRIES):  # more than one try only where two judgments share a key
            at = pos[pending]
            same = self._keys[at] == keys[pending]
            pending, at = pending[same], at[same]
            if not len(pending):
                return label
            rows = self._key_rows[at]
            match = self.query[rows] == query[pending]
            match &= to_numpy(pc.equal(doc_ids.take(from_numpy(doc_codes[pending])),
                                       self.doc_ids.take(from_numpy(rows))))
            label[pending[match]] = self.label[rows[match]]
            pending = pending[~match]
            pos[pending] += 1
            pending = pending[pos[pending] < hi]
        if len(pending):  # many judgments share these keys: an exact hash join, linear whatever the ids
            self._join_exactly(label, pending, query, keys, doc_codes, doc_ids, lo, hi)
        return label

    def _exact_labels(self, label: np.ndarray, query: np.ndarray, doc_codes: np.ndarray | None,
                      doc_ids: np.ndarray) -> np.ndarray:
        """:meth:`labels_of` for judgments :meth:`from_text` and a small file's run: ``doc_ids`` its distinct
        doc ids as bytes, sorted (:class:`.io.small.TextTable`)."""
        # Both are sorted distinct bytes: each judged id is looked up among the run's (usually fewer
        # lookups, and fewer byte comparisons, than the other way round).
        judged = np.full(len(doc_ids), -1, dtype=np.int64)  # per distinct run doc id: its judged code
        if len(doc_ids):
            at = np.searchsorted(doc_ids, self.doc_ids)
            hit = np.flatnonzero(doc_ids[np.minimum(at, len(doc_ids) - 1)] == self.doc_ids)
            judged[at[hit]] = hit
        judged = judged if doc_codes is None else judged[doc_codes]
        rows = np.flatnonzero(judged >= 0)
        keys = (query[rows].astype(np.uint64) << np.uint64(32)) | judged[rows].astype(np.uint64)
        pos = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
        found = self._keys[pos] == keys
        label[rows[found]] = self.label[self._key_rows[pos[found]]]
        return label

    def _with_string_ids(self) -> Judgments:
        """These judgments with integer doc ids as their decimal strings (built once), for runs of string ids."""
        from ir_measures_graded.io.ids import as_strings, string_hashes

        def build() -> Judgments:
            doc_ids = as_strings(self.doc_ids)
            keys = _join_keys(self.query, string_hashes(doc_ids))
            key_rows = np.argsort(keys)
            return Judgments(query_ids=self.query_ids, doc_ids=doc_ids, query=self.query, label=self.label,
                             _keys=keys[key_rows], _key_rows=key_rows.astype(self._key_rows.dtype))

        return self.cached(("string ids",), build)

    JOIN_TRIES = 4  # keys tried one after the other before the exact join takes over

    def _join_exactly(self, label: np.ndarray, pending: np.ndarray, query: np.ndarray, keys: np.ndarray,
                      doc_codes: np.ndarray, doc_ids: Any, lo: int, hi: int) -> None:
        """``label[pending]`` by an equi-join on (query, doc id) with the judgments sharing their keys."""
        import pyarrow as pa

        rows = self._key_rows[lo:hi][np.isin(self._keys[lo:hi], keys[pending])]
        run_side = pa.table({"q": query[pending], "d": doc_ids.take(from_numpy(doc_codes[pending])).cast(pa.large_string()),
                             "i": pending})
        judged = pa.table({"q": self.query[rows].astype(query.dtype),
                           "d": self.doc_ids.take(from_numpy(rows)).cast(pa.large_string()), "r": from_numpy(rows)})
        joined = run_side.join(judged, keys=["q", "d"], join_type="inner")
        at = to_numpy(joined.column("i"))
        label[at] = self.label[to_numpy(joined.column("r"))]

    def cached(self, key: tuple, compute: Any) -> Any:
        """``compute()`` once per key: qrels-side quantities shared by every run an evaluator scores.

        Thread-safe (an evaluator may score runs from several threads); see :mod:`.derived`.
        """
        with self._lock:
            if key not in self._cache:
                self._cache[key] = compute()
            return self._cache[key]


def _join_keys(query: np.ndarray, doc_hashes: np.ndarray) -> np.ndarray:
    """uint64 key of each (query code, doc id hash) pair: the query in the high 32 bits, so that the
    keys of one query are adjacent and a run's lookups, made query by query, stay in cache."""
    return (query.astype(np.uint64) << np.uint64(32)) | (doc_hashes >> np.uint64(32))



@dataclass
class Ranking:
    """A run restricted to the judged queries, ranked, with each row's label (NaN: unjudged)."""

    query: np.ndarray  # query code (into Judgments.query_ids), sorted
    rank: np.ndarray  # 1-based rank inside the query
    label: np.ndarray  # float64 label, NaN where unjudged
    present: np.ndarray  # per judged query: does the run rank anything for it?
    score_key: np.ndarray | None = None  # uint32 per row, equal for tied scores (float32): for ties='expected'

    @classmethod
    def from_run(cls, run: Any, judgments: Judgments) -> Ranking:
        if isinstance(run, TextTable):  # a small TREC file read by io.small (numpy only)
            return cls.from_codes(run.query_codes, run.query_strings(), run.doc_codes, run.doc_ids, run.value,
                                  judgments, codes_in_id_order=True)
        from ir_measures_graded.io.columns import run_columns

        cols = run_columns(run, encode_docs=False)
        # the duplicate check hashed each row's doc id: where the codes are the rows, those are the hashes per code
        per_row = cols.doc_hashes is not None and np.array_equal(cols.doc_codes, np.arange(len(cols.doc_codes)))
        return cls.from_codes(cols.query_codes, cols.query_ids, cols.doc_codes, cols.doc_ids, cols.values, judgments,
                              cols.doc_hashes if per_row else None)

    @classmethod
    def from_codes(cls, query_codes: np.ndarray, query_ids: Any, doc_codes: np.ndarray | None, doc_ids: Any,
                   score: np.ndarray, judgments: Judgments, doc_hashes: np.ndarray | None = None,
                   codes_in_id_order: bool = False) -> Ranking:
        """Rows ``(query_ids[query_codes[i]], doc_ids[doc_codes[i]], score[i])`` ranked: one sort.

        ``doc_codes`` None: ``doc_ids`` holds one doc id per row (no dictionary needed).
        ``codes_in_id_order``: ``doc_ids`` is sorted by its bytes, so ties are broken on the codes.
        """
        # Queries the qrels do not know are skipped, as trec_eval does.
        query = judgments.codes_of(query_ids)[query_codes]
        if doc_codes is None:
            doc_codes = np.arange(len(query), dtype=np.int64)
        if query.min(initial=0) < 0:
            keep = np.flatnonzero(query >= 0)
            query, doc_codes, score = query[keep], doc_codes[keep], score[keep]
        score_key = kernels.descending_score_key(score)
        order = kernels.ranking_order(query, score_key, doc_codes,
                                      None if codes_in_id_order else functools.partial(name_ranks, doc_ids))
        query, doc_codes, score_key = query[order], doc_codes[order], score_key[order]
        del order
        present = np.zeros(judgments.n_queries, dtype=bool)
        present[query] = True
        label = judgments.labels_of(query, doc_codes, doc_ids, doc_hashes)
        return cls._ranked(query, label, present, judgments.n_queries, score_key)

    @classmethod
    def _ranked(cls, query: np.ndarray, label: np.ndarray, present: np.ndarray, n_queries: int,
                score_key: np.ndarray | None = None) -> Ranking:
        rank = kernels.positions(kernels.segment_ptr(query, n_queries)) + 1
        return cls(query=query, rank=rank, label=label, present=present, score_key=score_key)

    def judged_only(self) -> Ranking:
        """The ranking without unjudged documents, ranks closed up (trec_eval's ``-J``)."""
        judged = ~np.isnan(self.label)
        key = None if self.score_key is None else self.score_key[judged]
        return Ranking._ranked(self.query[judged], self.label[judged], self.present, len(self.present), key)

    def tie_ptr(self) -> np.ndarray:
        """Segmentation of the rows into tie groups: consecutive rows of a query with equal float32 scores."""
        if self.score_key is None:  # no scores known: every row its own group
            return np.arange(len(self.query) + 1, dtype=np.int64)
        return kernels.tie_group_ptr(self.query, self.score_key)
