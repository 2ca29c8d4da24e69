"""Qrels and runs prepared once as sorted integer arrays, with ir_measures' ranking conventions.

:class:`Judgments` is built once per qrels (an ``ir_measures`` evaluator keeps it for every run it
scores); :class:`Ranking` is one run joined to those judgments and sorted. Both are read-only views
of the caller's data: nothing here modifies the inputs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded import kernels
from ir_measures_graded.inputs import qrels_columns, run_columns


@dataclass
class Judgments:
    """Relevance judgments sorted by query; quantities derived from them are cached (see :mod:`.derived`)."""

    query_ids: np.ndarray  # distinct query ids (str); a query's code is its index here
    doc_index: pd.Index  # distinct judged doc ids (str)
    query: np.ndarray  # per judgment row, sorted: query code
    doc: np.ndarray  # per judgment row: code in doc_index
    label: np.ndarray  # per judgment row: relevance label (float64)
    ptr: np.ndarray  # segmentation of the rows by query
    _keys: np.ndarray = field(repr=False)  # query * n_docs + doc, ascending: for joining runs
    _cache: dict = field(default_factory=dict, repr=False, compare=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    @classmethod
    def from_qrels(cls, qrels: Any) -> Judgments:
        cols = qrels_columns(qrels)
        order = np.lexsort((cols.doc_codes, cols.query_codes))
        query = cols.query_codes[order]
        doc = cols.doc_codes[order]
        n_docs = max(len(cols.doc_ids), 1)
        return cls(
            query_ids=cols.query_ids,
            doc_index=pd.Index(cols.doc_ids),
            query=query,
            doc=doc,
            label=cols.values[order],
            ptr=kernels.segment_ptr(query, len(cols.query_ids)),
            _keys=query * n_docs + doc,
        )

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def labels_of(self, query: np.ndarray, doc_codes: np.ndarray, doc_ids: np.ndarray) -> np.ndarray:
        """Label of each (query code, doc) pair; NaN where the document is not judged for that query."""
        judged_doc = self.doc_index.get_indexer(doc_ids)[doc_codes]
        label = np.full(len(query), np.nan)
        candidates = np.flatnonzero(judged_doc >= 0)  # usually a small part of a run
        if len(candidates) and len(self._keys):
            keys = query[candidates].astype(np.int64) * max(len(self.doc_index), 1) + judged_doc[candidates]
            pos = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
            found = self._keys[pos] == keys
            label[candidates[found]] = self.label[pos[found]]
        return label

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

    @classmethod
    def from_run(cls, run: Any, judgments: Judgments) -> Ranking:
        cols = run_columns(run)
        # Queries the qrels do not know are skipped, as trec_eval does.
        query = pd.Index(judgments.query_ids).get_indexer(cols.query_ids)[cols.query_codes]
        doc_codes, score = cols.doc_codes, cols.values
        if query.min(initial=0) < 0:
            keep = np.flatnonzero(query >= 0)
            query, doc_codes, score = query[keep], doc_codes[keep], score[keep]
        order = kernels.ranking_order(query, score, doc_codes, cols.doc_ids)
        query, doc_codes = query[order], doc_codes[order]
        del order
        present = np.zeros(judgments.n_queries, dtype=bool)
        present[query] = True
        return cls._ranked(query, judgments.labels_of(query, doc_codes, cols.doc_ids), present, judgments.n_queries)

    @classmethod
    def _ranked(cls, query: np.ndarray, label: np.ndarray, present: np.ndarray, n_queries: int) -> Ranking:
        rank = kernels.positions(kernels.segment_ptr(query, n_queries)) + 1
        return cls(query=query, rank=rank, label=label, present=present)

    def judged_only(self) -> Ranking:
        """The ranking without unjudged documents, ranks closed up (trec_eval's ``-J``)."""
        judged = ~np.isnan(self.label)
        return Ranking._ranked(self.query[judged], self.label[judged], self.present, len(self.present))
