"""An experiment's runs re-evaluated on changed judgments — the one way every view does it: the judgments
prepared once, each run joined to them once (each ranked row knows the judgment row it matches), and a
re-evaluation changes only what is asked: some judgments removed (leave-one-out, a run's unique
contributions), the run's unjudged documents added at a label (the incompleteness bounds), or every
judgment relabelled (the scale check).

Our measures are computed by :func:`ir_measures_graded.core.evaluate` on arrays derived from the
prepared ones; the other measures (ir_measures' own, e.g. pytrec_eval's AP) by ``ir_measures`` on the
changed qrels as a table, exactly as an experiment on those qrels would compute them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import ir_measures
import numpy as np
from ir_measures import providers

from ir_measures_graded import core
from ir_measures_graded.prepare import Judgments, Ranking
from ir_measures_graded.provider import GradedProvider

__all__ = ["Rejudging"]

#: How many subsets of the judgments (each at most half of them) :meth:`Rejudging.evaluate` keeps as dicts.
SUBSETS = 64


class _Fixed(providers.Evaluator):
    """An ir_measures evaluator of one ranking already joined to its judgments: missing queries get the
    measure's default as ir_measures gives them, every value is :func:`core.evaluate`'s."""

    def __init__(self, measures: list[Any], judgments: Judgments, ranking: Ranking):
        super().__init__(measures, list(judgments.query_ids))
        self.judgments, self.ranking = judgments, ranking

    def _iter_calc(self, run: Any) -> Iterator[Any]:
        evaluated = core.evaluate(self.measures, self.judgments, self.ranking)
        yield from core.metrics(self.measures, self.judgments, evaluated)


class Rejudging:
    """An experiment's qrels prepared once and each of its runs ranked once against them."""

    def __init__(self, exp: Any, measures: Sequence[Any]):
        from ir_measures_graded.io.ids import as_strings

        self.exp = exp
        self.measures = list(measures)
        self._provider = GradedProvider()
        qrels = exp.qrels_table  # as the experiment read them, once (with their column options)
        self.judgments = judgments = exp.judgments
        # the same judgments labelled by their row: a run joined to these finds each ranked row's judgment row
        self._rows = Judgments(query_ids=judgments.query_ids, doc_ids=judgments.doc_ids, query=judgments.query,
                               label=np.arange(len(judgments.query), dtype=np.float64), _keys=judgments._keys,
                               _key_rows=judgments._key_rows)
        self.n_queries = judgments.n_queries
        self.top = np.full(self.n_queries, -np.inf)
        np.maximum.at(self.top, judgments.query, judgments.label)  # each topic's top grade
        # per judgment row, its query and doc id (for ir_measures' own measures, which take dicts of dicts)
        self._row_query = judgments.query_ids.astype(str).astype(object)[judgments.query]
        if isinstance(judgments.doc_ids, np.ndarray):  # the small-file reader's: distinct ids, a row's code in its key
            codes = np.empty(len(judgments.query), dtype=np.int64)
            codes[judgments._key_rows] = (judgments._keys & np.uint64(0xFFFFFFFF)).astype(np.int64)
            self._row_doc = np.array([d.decode() for d in judgments.doc_ids[codes].tolist()], dtype=object)
        else:  # one id per row
            self._row_doc = np.asarray(as_strings(judgments.doc_ids).to_pylist(), dtype=object)
        self._source = qrels
        self._qrels_dict: dict | None = None
        self._relabelled: tuple[bytes, dict] | None = None  # the last relabelled qrels as a dict, by its labels' bytes
        self._code = {q: k for k, q in enumerate(judgments.query_ids.astype(str).tolist())}
        self._rankings: dict[int, Ranking] = {}
        self._runs: dict[int, dict] = {}
        self._subsets: dict[bytes, dict] = {}  # the last SUBSETS judgments subsets as dicts, by mask

    def judgment_query_ids(self) -> np.ndarray:
        """Per judgment row (in :attr:`judgments`' order), its query id (str objects)."""
        return self._row_query

    def judgment_doc_ids(self) -> np.ndarray:
        """Per judgment row (in :attr:`judgments`' order), its doc id (str objects)."""
        return self._row_doc

    def table(self, i: int) -> Any:
        """Run ``i`` as the experiment read it (:meth:`Experiment.run_input`)."""
        return self.exp.run_input(self.exp.runs[i])

    def ranking(self, i: int) -> Ranking:
        """Run ``i`` ranked by ir_measures' conventions; ``label``: each row's judgment row (NaN: unjudged)."""
        if i not in self._rankings:
            self._rankings[i] = Ranking.from_run(self.table(i), self._rows)
        return self._rankings[i]

    def release(self, i: int) -> None:
        """Forget what was made of run ``i`` (its ranking, its dict): a view done with a run keeps the memory
        of one run at a time, not of every run (leave-one-out of 100 runs of 50,000 rows: 1.1 GiB else)."""
        self._rankings.pop(i, None)
        self._runs.pop(i, None)

    def qrels_dict(self, labels: np.ndarray | None = None) -> dict:
        """The qrels as ``{query_id: {doc_id: label}}`` (integral labels as int), made once; never changed:
        a re-evaluation copies the queries it changes. With ``labels`` (one per judgment row), relabelled."""
        if labels is not None:
            key = labels.tobytes()
            if self._relabelled is None or self._relabelled[0] != key:
                from ir_measures_graded.io.columns import integral_labels

                given = labels.astype(np.int64) if len(labels) and integral_labels(labels) else labels
                found: dict = {}
                for q, d, v in zip(self._row_query.tolist(), self._row_doc.tolist(), given.tolist(), strict=True):
                    found.setdefault(q, {})[d] = v
                self._relabelled = (key, found)
            return self._relabelled[1]
        if self._qrels_dict is None:
            from ir_measures_graded.engines.local import dict_of_dict

            self._qrels_dict = dict_of_dict(self._source, "relevance")
        return self._qrels_dict

    def _subset(self, base: dict, keep: np.ndarray, relabel: np.ndarray | None) -> dict:
        """The judgments ``keep`` (a small part of them) as a dict, built from the kept rows; the last few
        subsets are kept (a simulation asks each of every run: a few thousand judgments each), never changed."""
        key = keep.tobytes() + (b"" if relabel is None else relabel.tobytes())
        found = self._subsets.get(key)
        if found is None:
            found = {}
            for q, d in zip(self._row_query[keep].tolist(), self._row_doc[keep].tolist(), strict=True):
                found.setdefault(q, {})[d] = base[q][d]
            if len(self._subsets) >= SUBSETS:
                self._subsets.pop(next(iter(self._subsets)))
            self._subsets[key] = found
        return found

    def run_dict(self, i: int) -> dict:
        """Run ``i`` as ``{query_id: {doc_id: score}}``, made once."""
        if i not in self._runs:
            from ir_measures_graded.engines.local import dict_of_dict

            self._runs[i] = dict_of_dict(self.table(i), "score")
        return self._runs[i]

    def evaluate(self, i: int, keep: np.ndarray | None = None, fill: np.ndarray | None = None,
                 measures: Sequence[Any] | None = None, labels: np.ndarray | None = None) -> dict[Any, float]:
        """Run ``i``'s aggregates (by measure) on the judgments' rows ``keep`` only (a mask; None: all),
        with the run's unjudged documents added to the judgments at label ``fill[topic]`` (None: left
        unjudged), every judgment labelled ``labels`` (one per judgment row, in :attr:`judgments`' order;
        None: as judged). ``measures``: default the ones given at first; any others too."""
        measures = self.measures if measures is None else list(measures)
        found: dict[str, float] = {}
        ours = [m for m in measures if self._provider.supports(m)]
        if ours:
            found.update(self._ours(i, keep, fill, ours, labels))
        others = [m for m in measures if m not in ours]
        if others:
            found.update(self._others(i, keep, fill, others, labels))
        return {m: found[str(m)] for m in measures}

    def _ours(self, i: int, keep: np.ndarray | None, fill: np.ndarray | None, measures: list[Any],
              relabel: np.ndarray | None) -> dict:
        ranked = self.ranking(i)
        j = self.judgments
        judged_label = j.label if relabel is None else relabel
        row = np.nan_to_num(ranked.label, nan=-1).astype(np.int64)
        judged = row >= 0
        if keep is not None:
            judged &= keep[np.maximum(row, 0)]
        label = np.where(judged, judged_label[np.maximum(row, 0)], np.nan)
        query, labels = (j.query, judged_label) if keep is None else (j.query[keep], judged_label[keep])
        if fill is not None:
            added = ~judged
            label[added] = fill[ranked.query[added]]
            query = np.concatenate([query, ranked.query[added]])
            labels = np.concatenate([labels, label[added]])
            order = np.argsort(query, kind="stable")
            query, labels = query[order], labels[order]
        query_ids, present = j.query_ids, ranked.present
        rank_query, rank, key = ranked.query, ranked.rank, ranked.score_key
        counts = np.bincount(query, minlength=self.n_queries)
        if (counts == 0).any():  # a topic left without judgments is no longer in the qrels: renumber the rest
            kept = np.flatnonzero(counts)
            code = np.full(self.n_queries, -1, dtype=np.int64)
            code[kept] = np.arange(len(kept))
            query, query_ids, present = code[query], query_ids[kept], present[kept]
            rows = code[rank_query] >= 0
            rank_query, rank, label = code[rank_query[rows]], rank[rows], label[rows]
            key = None if key is None else key[rows]
        ranking = Ranking(query=rank_query, rank=rank, label=label, present=present, score_key=key)
        judgments = Judgments(query_ids=query_ids, doc_ids=None, query=query, label=labels)
        aggregates = _Fixed(measures, judgments, ranking).calc_aggregate(None)
        return {str(m): float(v) for m, v in aggregates.items()}

    def _others(self, i: int, keep: np.ndarray | None, fill: np.ndarray | None, measures: list[Any],
                relabel: np.ndarray | None) -> dict:
        base = self.qrels_dict(relabel)
        if keep is not None and 2 * int(keep.sum()) < len(keep):  # most removed (a pool's subset): the kept built
            qrels = dict(self._subset(base, keep, relabel))  # its queries shared, never changed
        elif keep is not None:  # only the removed judgments change: their queries are copied, the others shared
            qrels = dict(base)
            for q, d in zip(self._row_query[~keep].tolist(), self._row_doc[~keep].tolist(), strict=True):
                if qrels[q] is base[q]:
                    qrels[q] = dict(base[q])
                del qrels[q][d]
            qrels = {q: docs for q, docs in qrels.items() if docs}  # a topic left without judgments is gone
        else:
            qrels = dict(base)
        run = self.run_dict(i)
        if fill is not None:
            for q, docs in run.items():
                judged = qrels.get(q, {} if q in base else None)  # all its judgments removed: still judged
                if judged is None:
                    continue
                grade = float(fill[self._code[q]])
                grade = int(grade) if grade.is_integer() else grade
                added = {d: grade for d in docs if d not in judged}
                if added:
                    qrels[q] = {**judged, **added}
        aggregates = ir_measures.calc_aggregate(measures, qrels, run)
        return {str(m): float(aggregates[m]) for m in measures}
