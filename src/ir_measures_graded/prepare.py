"""Qrels and runs prepared once as sorted integer arrays, with ir_measures' ranking conventions.

:class:`Judgments` is built once per qrels (an ``ir_measures`` evaluator keeps it for every run it
scores); :class:`Ranking` is one run joined to those judgments and sorted. Both are read-only views
of the caller's data: nothing here modifies the inputs.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ir_measures_graded import kernels
from ir_measures_graded.arrow import from_numpy, matching_rows, one_array, to_numpy
from ir_measures_graded.errors import GradedInputError, as_text
from ir_measures_graded.io.columns import Columns, qrels_columns, run_columns
from ir_measures_graded.io.ids import id_hash, name_ranks


@dataclass
class Judgments:
    """Relevance judgments sorted by query; quantities derived from them are cached (see :mod:`.derived`).

    A snapshot: the labels are copied when the caller's column could be changed in place later
    (ids and query codes are always new arrays), so every value is that of the judgments as they
    were when these were built.

    Runs are joined to the judgments on (query code, doc id) exactly, by Arrow's hash join
    (:meth:`labels_of`), with only the judgments of the queries being ranked on the hashed side:
    a batch of a streamed run never builds a table of the whole qrels. Judgments whose columns hold
    their doc ids as sorted bytes (the small-file reader's) keep them so and join on exact integer
    codes, without pyarrow.
    """

    query_ids: np.ndarray  # distinct query ids (str); a query's code is its index here
    # doc id of every judgment row (pyarrow StringArray, or Int64Array: see io.ids), in the rows'
    # order; or the distinct judged doc ids, sorted bytes (numpy), as the columns held them
    doc_ids: Any
    query: np.ndarray  # per judgment row, sorted: query code
    label: np.ndarray  # per judgment row: relevance label (float64)
    # doc ids as sorted bytes only: (query code, doc code) join keys (uint64), ascending, and the judgment row of each
    _keys: np.ndarray | None = field(default=None, repr=False)
    _key_rows: np.ndarray | None = field(default=None, repr=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)
    _query_index: dict | None = field(default=None, repr=False, compare=False)  # query id -> code

    @classmethod
    def from_qrels(cls, qrels: Any) -> Judgments:
        """From qrels in any form :mod:`.io.columns` accepts (read files with :mod:`.io` first)."""
        return cls.from_columns(qrels_columns(qrels, encode_docs=False))

    @classmethod
    def _from_sorted_ids(cls, cols: Columns) -> Judgments:
        """From columns whose doc ids are distinct bytes, sorted (numpy only): the keys are (query
        code, doc code) pairs, exact, so no match needs confirming on the strings."""
        order = np.argsort(cols.query_codes, kind="stable")
        query, doc = cols.query_codes[order], cols.doc_codes[order]
        keys = (query.astype(np.uint64) << np.uint64(32)) | doc.astype(np.uint64)
        key_rows = np.argsort(keys)
        small = np.int32 if len(query) < 2**31 else np.int64
        return cls(
            query_ids=cols.query_ids,
            doc_ids=cols.doc_ids,
            query=query,
            label=np.asarray(cols.values[order], dtype=np.float64),
            _keys=keys[key_rows],
            _key_rows=key_rows.astype(small),
        )

    @classmethod
    def from_columns(cls, cols: Columns) -> Judgments:
        """Built once per qrels from their validated columns; reused for every run."""
        if isinstance(cols.doc_ids, np.ndarray):
            if not cols.doc_ids_sorted:  # the small-file reader sorts a qrels file's ids
                raise ValueError("judgments with doc ids as bytes need them distinct and sorted")
            return cls._from_sorted_ids(cols)
        query, per_row, label = cols.query_codes, cols.doc_codes, cols.values
        if not np.all(query[1:] >= query[:-1]):  # not grouped by query yet
            order = np.argsort(query, kind="stable")
            query, per_row, label = query[order], per_row[order], label[order]
            del order
        else:  # the labels may be a view of the caller's column: copy them, as pytrec_eval copies the
            # qrels, so that an edit of the caller's frame never mixes with the quantities cached here
            label = np.array(label, dtype=np.float64)
        label.flags.writeable = False
        if np.array_equal(per_row, np.arange(len(per_row))):  # one id per row, in order: no copy
            doc_ids = cols.doc_ids
        else:
            doc_ids = cols.doc_ids.take(from_numpy(per_row))
        return cls(query_ids=cols.query_ids, doc_ids=doc_ids, query=query, label=label)

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def query_id(self, row: int) -> str:
        """The query id of judgment row ``row`` (rows sorted by query), as messages name it."""
        return as_text(self.query_ids[self.query[row]])

    def doc_id(self, row: int) -> str:
        """The doc id of judgment row ``row`` (rows sorted by query), as messages name it: held per row, or
        (distinct sorted bytes) found through the row's (query, doc code) join key."""
        if self._keys is None:  # one id per row, in the rows' order
            return as_text(self.doc_ids[row])
        at = int(np.flatnonzero(self._key_rows == row)[0])
        return as_text(self.doc_ids[int(self._keys[at] & np.uint64(0xFFFFFFFF))])

    def codes_of(self, query_ids: Any) -> np.ndarray:
        """Code of each query id (str; a list, object array or Arrow array); -1 for queries not judged."""
        with self._lock:
            if self._query_index is None:
                self._query_index = {q: i for i, q in enumerate(self.query_ids.tolist())}
            index = self._query_index
        ids = query_ids.to_pylist() if hasattr(query_ids, "to_pylist") else list(query_ids)
        return np.fromiter((index.get(q, -1) for q in ids), dtype=np.int64, count=len(ids))

    def judged_rows(self, run: Any) -> tuple[int, int]:
        """``(rows of judged queries, rows whose document is judged)`` of ``run``: the join, no ranking."""
        cols = run_columns(run, encode_docs=False)
        query = self.codes_of(cols.query_ids)[cols.query_codes]
        keep = np.flatnonzero(query >= 0)
        doc_codes = keep if cols.doc_codes is None else cols.doc_codes[keep]
        label = self.labels_of(query[keep], doc_codes, cols.doc_ids, ids_sorted=cols.doc_ids_sorted,
                               doc_hashes=cols.doc_hashes)
        return len(label), int(np.count_nonzero(~np.isnan(label)))

    def labels_of(self, query: np.ndarray, doc_codes: np.ndarray | None, doc_ids: Any,
                  ids_sorted: bool = False, doc_keys: np.ndarray | None = None,
                  doc_hashes: np.ndarray | None = None) -> np.ndarray:
        """Label of each (query code, doc) pair; NaN where the document is not judged for that query.

        ``doc_ids[doc_codes[i]]`` is row ``i``'s doc id (``doc_ids`` a pyarrow string or int64 array,
        or distinct sorted bytes when the judgments hold theirs so; ``doc_codes`` None: ``doc_ids``
        has one entry per row). ``doc_keys``: per row, its doc id's :func:`.io.ids.id_keys`, if known;
        ``doc_hashes``: per entry of ``doc_ids`` (bytes), its :func:`.io.ids.id_hash`, if known.
        """
        label = np.full(len(query), np.nan)
        if not len(query) or not len(self.query):
            return label
        if isinstance(self.doc_ids, np.ndarray) != isinstance(doc_ids, np.ndarray):
            raise TypeError("judgments and run read by different readers: doc ids as bytes meet Arrow strings")
        if isinstance(self.doc_ids, np.ndarray):  # both sorted bytes: exact codes, numpy only
            return self._exact_labels(label, query, doc_codes, doc_ids, ids_sorted, doc_hashes)
        import pyarrow as pa

        from ir_measures_graded.io.ids import as_strings, is_integer

        rows = self._rows_of(query)
        if not len(rows):
            return label
        if rows[-1] - rows[0] + 1 == len(rows):  # a range of rows (the usual case): no copy
            judged_docs = self.doc_ids.slice(int(rows[0]), len(rows))
        else:
            judged_docs = self.doc_ids.take(from_numpy(rows))
        ranked_docs = doc_ids if doc_codes is None else doc_ids.take(from_numpy(doc_codes))
        if is_integer(ranked_docs) != is_integer(judged_docs):  # integer ids meet string ids: as strings
            ranked_docs, judged_docs = as_strings(ranked_docs), as_strings(judged_docs)
        if ranked_docs.type != judged_docs.type:  # string and large_string
            ranked_docs, judged_docs = ranked_docs.cast(pa.large_string()), judged_docs.cast(pa.large_string())
        if doc_keys is not None and is_integer(doc_ids) == is_integer(self.doc_ids):
            ranked, judged = self._key_matches(query, doc_keys, ranked_docs, rows, judged_docs)
        else:
            # The judgments never hold a (query, doc) twice, so each ranked row matches at most one.
            ranked, judged = matching_rows([from_numpy(query.astype(np.int64, copy=False)), one_array(ranked_docs)],
                                           [from_numpy(self.query[rows].astype(np.int64, copy=False)), judged_docs])
        label[ranked] = self.label[rows[judged]]
        return label

    def _key_matches(self, query: np.ndarray, doc_keys: np.ndarray, ranked_docs: Any, rows: np.ndarray,
                     judged_docs: Any) -> tuple[np.ndarray, np.ndarray]:
        """The ``(ranked row, index into rows)`` pairs of equal (query, doc): joined on one 64-bit
        key per side (the doc's :func:`.io.ids.id_keys` mixed with the query code), a few times
        faster than on (query, string), then each pair confirmed on the query and the ids, as
        different pairs may share a key. ``judged_docs``: the doc ids of ``rows``."""
        import pyarrow.compute as pc

        from ir_measures_graded.io.ids import id_keys, pair_keys

        def judged_keys() -> np.ndarray:
            keys = id_keys(self.doc_ids)
            keys.flags.writeable = False
            return keys

        def mixed(keys: np.ndarray, codes: np.ndarray) -> Any:
            return from_numpy(pair_keys(keys, codes).view(np.int64))

        keys = self.cached(("doc keys",), judged_keys)
        ranked, judged = matching_rows([mixed(doc_keys, query)], [mixed(keys[rows], self.query[rows])])
        same = query[ranked] == self.query[rows[judged]]
        if len(same):
            same &= to_numpy(pc.equal(ranked_docs.take(from_numpy(ranked)), judged_docs.take(from_numpy(judged))))
        return ranked[same], judged[same]

    def _rows_of(self, query: np.ndarray) -> np.ndarray:
        """The judgment rows (ascending) of the queries among ``query``: the hashed side of a join with
        ``query``'s rows, a batch's share of the qrels rather than all of them."""
        def query_ptr() -> np.ndarray:  # read-only, as every cached quantity
            ptr = kernels.segment_ptr(self.query, self.n_queries)
            ptr.flags.writeable = False
            return ptr

        ptr = self.cached(("query ptr",), query_ptr)
        lo, hi = int(query.min()), int(query.max()) + 1
        if ptr[hi] - ptr[lo] <= len(query):  # the range holds no more judgments than rows to join: all of them
            return np.arange(ptr[lo], ptr[hi], dtype=np.int64)
        asked = np.zeros(hi - lo, dtype=bool)
        asked[query - lo] = True
        return kernels.segment_rows(ptr, np.flatnonzero(asked) + lo)

    def _exact_labels(self, label: np.ndarray, query: np.ndarray, doc_codes: np.ndarray | None,
                      doc_ids: np.ndarray, ids_sorted: bool, hashes: np.ndarray | None = None) -> np.ndarray:
        """:meth:`labels_of` for judgments holding their distinct doc ids as sorted bytes and a run
        holding its ids as bytes too (one per row, or distinct with ``doc_codes``; ``ids_sorted``:
        distinct and sorted)."""
        if ids_sorted:  # each judged id looked up among the run's (fewer lookups than the other way)
            judged = np.full(len(doc_ids), -1, dtype=np.int64)
            if len(doc_ids):
                at = np.searchsorted(doc_ids, self.doc_ids)
                hit = np.flatnonzero(doc_ids[np.minimum(at, len(doc_ids) - 1)] == self.doc_ids)
                judged[at[hit]] = hit
        else:
            judged = self._judged_codes(doc_ids, hashes)  # per entry of doc_ids: its judged doc code, -1 if none
        judged = judged if doc_codes is None else judged[doc_codes]
        rows = np.flatnonzero(judged >= 0)
        keys = (query[rows].astype(np.uint64) << np.uint64(32)) | judged[rows].astype(np.uint64)
        pos = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
        found = self._keys[pos] == keys
        label[rows[found]] = self.label[self._key_rows[pos[found]]]
        return label

    def _judged_codes(self, ids: np.ndarray, hashes: np.ndarray | None = None) -> np.ndarray:
        """The judged doc code of each id (bytes), -1 for ids not judged: by a 64-bit hash of the
        ids (:func:`.io.ids.id_hash`; ``hashes``: theirs, if known), each match confirmed on the
        bytes; by a search of the sorted judged ids when two of them share a hash."""
        def index() -> tuple[np.ndarray, np.ndarray] | None:
            hashed = id_hash(self.doc_ids)
            order = np.argsort(hashed)
            ranked = hashed[order]
            return None if (ranked[1:] == ranked[:-1]).any() else (ranked, order)

        by_hash = self.cached(("doc id hashes",), index)
        codes = np.full(len(ids), -1, dtype=np.int64)
        if not len(ids) or not len(self.doc_ids):
            return codes
        if by_hash is None:
            at = np.minimum(np.searchsorted(self.doc_ids, ids), len(self.doc_ids) - 1)
            return np.where(self.doc_ids[at] == ids, at, -1)
        ranked, order = by_hash
        hashed = id_hash(ids) if hashes is None else hashes
        by_value = np.argsort(hashed)  # sorted needles: a few times faster than a search per random one
        at = np.empty(len(ids), dtype=np.int64)
        at[by_value] = np.minimum(np.searchsorted(ranked, hashed[by_value]), len(ranked) - 1)
        hit = np.flatnonzero(ranked[at] == hashed)
        candidate = order[at[hit]]
        same = self.doc_ids[candidate] == ids[hit]
        codes[hit[same]] = candidate[same]
        return codes

    def cached(self, key: tuple, compute: Any) -> Any:
        """``compute()`` once per key: qrels-side quantities shared by every run an evaluator scores.

        Thread-safe (an evaluator may score runs from several threads); see :mod:`.derived`.
        """
        with self._lock:
            if key not in self._cache:
                self._cache[key] = compute()
            return self._cache[key]


@dataclass
class Ranking:
    """A run restricted to the judged queries, ranked, with each row's label (NaN: unjudged)."""

    query: np.ndarray  # query code (into Judgments.query_ids), sorted
    rank: np.ndarray  # 1-based rank inside the query
    label: np.ndarray  # float64 label, NaN where unjudged
    present: np.ndarray  # per judged query: does the run rank anything for it?
    score_key: np.ndarray | None = None  # uint32 per row, equal for tied scores (float32): for ties='expected'

    @classmethod
    def from_run(cls, run: Any, judgments: Judgments, depth: int | None = None) -> Ranking:
        cols = run_columns(run, encode_docs=False)
        return cls.from_codes(cols.query_codes, cols.query_ids, cols.doc_codes, cols.doc_ids, cols.values, judgments,
                              codes_in_id_order=cols.doc_ids_sorted, doc_hashes=cols.doc_hashes, depth=depth)

    @classmethod
    def from_codes(cls, query_codes: np.ndarray, query_ids: Any, doc_codes: np.ndarray | None, doc_ids: Any,
                   score: np.ndarray, judgments: Judgments, codes_in_id_order: bool = False,
                   doc_keys: np.ndarray | None = None, doc_hashes: np.ndarray | None = None,
                   depth: int | None = None) -> Ranking:
        """Rows ``(query_ids[query_codes[i]], doc_ids[doc_codes[i]], score[i])`` ranked: one sort.

        ``doc_codes`` None: ``doc_ids`` holds one doc id per row (no dictionary needed).
        ``codes_in_id_order``: ``doc_ids`` is sorted by its bytes, so ties are broken on the codes.
        ``doc_keys``: per row, its doc id's :func:`.io.ids.id_keys` (a streamed batch has them from
        its duplicate check): the join then hashes integers instead of strings. ``doc_hashes``: per
        entry of ``doc_ids`` (bytes), its :func:`.io.ids.id_hash` (the small-file reader's, from its
        duplicate check): the join hashes no id again. ``depth``: only the rows ranked ``depth`` or better
        in their query are kept (:func:`top_rows`, trec_eval's ``-M``; None: all).
        """
        # Queries the qrels do not know are skipped, as trec_eval does.
        query = judgments.codes_of(query_ids)[query_codes]
        if query.min(initial=0) < 0:
            keep = np.flatnonzero(query >= 0)
            query, score = query[keep], score[keep]
            doc_keys = None if doc_keys is None else doc_keys[keep]
            doc_codes = keep if doc_codes is None else doc_codes[keep]
        if depth is not None:  # only the top ``depth`` rows of each query count (trec_eval's -M): before the join
            keep = top_rows(query, doc_codes, doc_ids, score, depth, codes_in_id_order)
            if len(keep) < len(query):
                query, score = query[keep], score[keep]
                doc_keys = None if doc_keys is None else doc_keys[keep]
                doc_codes = keep if doc_codes is None else doc_codes[keep]
        # joined in the input's row order, before the sort: per-row doc ids are then read as they are
        label = judgments.labels_of(query, doc_codes, doc_ids, ids_sorted=codes_in_id_order, doc_keys=doc_keys,
                                    doc_hashes=doc_hashes)
        if doc_codes is None:
            doc_codes = np.arange(len(query), dtype=np.int64)
        score_key = kernels.descending_score_key(score)
        order = kernels.ranking_order(query, score_key, doc_codes,
                                      None if codes_in_id_order else functools.partial(name_ranks, doc_ids))
        query, label, score_key = query[order], label[order], score_key[order]
        del order
        present = np.zeros(judgments.n_queries, dtype=bool)
        present[query] = True
        return cls._ranked(query, label, present, judgments.n_queries, score_key)

    @classmethod
    def _ranked(cls, query: np.ndarray, label: np.ndarray, present: np.ndarray, n_queries: int,
                score_key: np.ndarray | None = None) -> Ranking:
        rank = kernels.positions(kernels.segment_ptr(query, n_queries)) + 1
        return cls(query=query, rank=rank, label=label, present=present, score_key=score_key)

    def top(self, k: int) -> Ranking:
        """The rows ranked ``k`` or better (``present`` unchanged)."""
        keep = self.rank <= k
        if keep.all():
            return self
        key = None if self.score_key is None else self.score_key[keep]
        return Ranking(query=self.query[keep], rank=self.rank[keep], label=self.label[keep], present=self.present,
                       score_key=key)

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


def check_depth(depth: Any) -> int | None:
    """``depth`` as :func:`top_rows` takes it (None: every row counts); one line for anything but a positive
    whole number."""
    if depth is None:
        return None
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise GradedInputError(f"the depth (-M) is how many documents of each query count: a whole number of at "
                               f"least 1, got {depth!r}")
    return int(depth)


def top_rows(query: np.ndarray, doc_codes: np.ndarray | None, doc_ids: Any, score: np.ndarray, depth: int,
             codes_in_id_order: bool = False) -> np.ndarray:
    """The rows (ascending) ranked ``depth`` or better in their query: trec_eval's ``-M depth``, which keeps
    the first ``depth`` documents of each query after its sort (score descending as float32, ties by doc id
    descending: :func:`.kernels.ranking_order`), for every measure. The one place a run is cut to a depth.

    ``query``: per row, a non-negative query code (any codes: rows are only grouped by them);
    ``doc_ids[doc_codes[i]]`` is row ``i``'s doc id (``doc_codes`` None: one id per row);
    ``codes_in_id_order``: ``doc_ids`` is sorted by its bytes, so ties are broken on the codes.
    """
    if doc_codes is None:
        doc_codes = np.arange(len(query), dtype=np.int64)
    order = kernels.ranking_order(query, kernels.descending_score_key(score), doc_codes,
                                  None if codes_in_id_order else functools.partial(name_ranks, doc_ids))
    ranked = query[order]
    starts = np.flatnonzero(np.concatenate(([True], ranked[1:] != ranked[:-1]))) if len(ranked) else ranked
    keep = order[kernels.positions(np.append(starts, len(ranked)).astype(np.int64)) < depth]
    keep.sort()
    return keep


def truncated(run: Any, depth: int | None) -> Any:
    """``run`` (a whole run in any form :mod:`.io.columns` accepts) with only the top ``depth`` rows of each
    query (:func:`top_rows`), for every evaluator alike (ours and another provider's, which has no depth):
    an Arrow table stays a table, anything else becomes its columns; the run itself when nothing is cut."""
    if depth is None:
        return run
    cols = run_columns(run, encode_docs=False)
    keep = top_rows(cols.query_codes, cols.doc_codes, cols.doc_ids, cols.values, depth, cols.doc_ids_sorted)
    if len(keep) == len(cols):
        return run
    if hasattr(run, "take") and hasattr(run, "schema") and hasattr(run, "num_rows"):  # a pyarrow Table
        return run.take(from_numpy(keep))
    return dataclasses.replace(cols, query_codes=cols.query_codes[keep], doc_codes=cols.doc_codes[keep],
                               values=cols.values[keep])
