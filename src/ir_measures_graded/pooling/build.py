"""Pool construction: from runs, the documents to judge per topic and the order to judge them in.

Five strategies (:data:`STRATEGIES`):

- ``depth``: the top-k pool (TREC's; trectools' ``make_pool(strategy="topX")``): every document some run
  ranks k or better; judged by its best rank, then by the number of runs that rank it k or better (more
  first), then by doc id.
- ``rbp``: RBP-weighted (Moffat, Webber & Zobel 2007): a document's weight is the sum over runs of
  ``(1 - p) p^(rank - 1)``; judged by weight, highest first.
- ``rrf``: reciprocal rank fusion: the sum over runs of ``1 / (k + rank)``; highest first.
- ``mtf``: move-to-front (Cormack, Palmer & Clarke 1998), adaptive: the run of highest priority gives its
  next unjudged document while they are relevant; a non-relevant one lowers its priority by one.
- ``bandit``: a multi-armed bandit (Losada, Parapar & Barreiro 2016), MaxMean: the run whose mean reward
  (Beta(1, 1) prior: ``(relevant + 1) / (judged + 2)`` of the documents judged from it) is highest gives its
  next unjudged document.

Runs are ranked as trec_eval and ir_measures rank them (score descending as float32, ties by doc id
descending: :func:`ir_measures_graded.kernels.ranking_order`); trectools sorts by score (float64) and then
by doc id descending too, so the two agree unless two scores differ only beyond float32's precision.

The adaptive strategies need the assessor: ``judgments`` (qrels, read as any qrels; a document they do not
judge is non-relevant, as in the papers' simulations) or a callable ``judge(topic, doc) -> label``. Ties
between runs (equal priority, equal mean) are broken by one seeded random order of the runs: the pool is a
function of the runs, the judgments and the seed.

A budget caps the documents judged: ``budget`` per topic, or ``total`` over all topics (shared equally; what
a topic cannot use goes to the others). :func:`build_pool` returns a :class:`JudgingPool`, whose
:meth:`JudgingPool.write` writes the file an assessment tool reads: ``topic  document  order  runs`` (tab-separated,
a header line; ``runs``: the runs that retrieved the document within the pool's depth, comma-separated).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded import kernels
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.pooling import ADAPTIVE, STRATEGIES

__all__ = ["build_pool", "build_pools", "JudgingPool", "rank_runs"]

COLUMNS = ("topic", "document", "order", "runs")


@dataclass(frozen=True)
class JudgingPool:
    """The pool: one row per document to judge (``topic``, ``document``, ``order`` of judging from 1 per
    topic, ``runs``: the runs that retrieved it within the pool's depth, comma-separated, in the runs' order),
    topics sorted as strings, each topic's rows by order."""

    table: pd.DataFrame
    strategy: str
    runs: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.table)

    def documents(self) -> dict[str, set[str]]:
        """The pooled documents of each topic."""
        return {topic: set(docs) for topic, docs in self.table.groupby("topic", sort=False)["document"]}

    def text(self) -> str:
        """The file's text: a header line, then ``topic  document  order  runs`` per row (tab-separated)."""
        t = self.table
        body = t["topic"] + "\t" + t["document"] + "\t" + t["order"].astype(str) + "\t" + t["runs"]
        return "\t".join(COLUMNS) + "\n" + "".join(line + "\n" for line in body.tolist())

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`text` to ``path``, whole or not at all (:func:`ir_measures_graded.files.write_text`)."""
        from ir_measures_graded.files import write_text

        write_text(path, self.text())


@dataclass(frozen=True)
class _Ranked:
    """Every run's ranking, integer-coded: rows sorted by (topic, run, rank)."""

    topic: np.ndarray  # int64 code into topics
    run: np.ndarray  # int64 index into names
    rank: np.ndarray  # int64, 1-based within (topic, run)
    doc: np.ndarray  # int64 code into docs
    topics: np.ndarray  # object: topic ids (str), sorted
    docs: np.ndarray  # object: doc ids (str)
    names: tuple[str, ...]


def _doc_array(doc_ids: Any, codes: np.ndarray) -> Any:
    """The doc ids of ``codes`` into ``doc_ids`` (a pyarrow array, or numpy bytes / str / objects) as an Arrow
    string array: compact, and encoded across runs at once."""
    import pyarrow as pa

    if isinstance(doc_ids, np.ndarray):
        picked = doc_ids[codes]
        if picked.dtype.kind == "S":
            return pa.array(picked, type=pa.binary()).cast(pa.string())
        return pa.array(picked.astype(str).astype(object), type=pa.string())
    return doc_ids.take(pa.array(codes)).cast(pa.string())


def _one_run(run: Any, depth: int | None) -> tuple[np.ndarray, np.ndarray, Any, np.ndarray]:
    """A run ranked as trec_eval ranks it, its top ``depth`` per topic: (its topic ids, the topic code of each row
    into them, the doc ids (Arrow), the rank)."""
    from ir_measures_graded.io.columns import run_columns
    from ir_measures_graded.io.ids import name_ranks

    cols = run_columns(run, encode_docs=False)
    doc_codes = cols.doc_codes if cols.doc_codes is not None else np.arange(len(cols), dtype=np.int64)
    key = kernels.descending_score_key(cols.values)
    order = kernels.ranking_order(cols.query_codes.astype(np.int64), key, doc_codes,
                                  None if cols.doc_ids_sorted else functools.partial(name_ranks, cols.doc_ids))
    query = cols.query_codes[order]
    rank = kernels.positions(kernels.segment_ptr(query, len(cols.query_ids))) + 1
    if depth is not None:
        keep = rank <= depth
        order, query, rank = order[keep], query[keep], rank[keep]
    topics = np.asarray([str(q) for q in cols.query_ids], dtype=object)
    return topics, query.astype(np.int64), _doc_array(cols.doc_ids, doc_codes[order]), rank.astype(np.int64)


def _names(runs: Mapping[str, Any] | Sequence[Any]) -> tuple[tuple[str, ...], list[Any]]:
    """The runs' names and what was given for each."""
    if isinstance(runs, Mapping):
        names, given = tuple(str(n) for n in runs), list(runs.values())
    else:
        given = list(runs)
        names = tuple(os.path.basename(os.fspath(r)) if isinstance(r, (str, os.PathLike)) else f"run{i}"
                      for i, r in enumerate(given))
    if not given:
        raise GradedInputError("a pool needs at least one run; got none")
    if len(set(names)) != len(names):
        raise GradedInputError(f"two runs share a name: {', '.join(sorted({n for n in names if names.count(n) > 1}))}")
    return names, given


def rank_runs(runs: Mapping[str, Any] | Sequence[Any], depth: int | None = None) -> _Ranked:
    """Every run ranked (its top ``depth`` per topic; None: all), integer-coded across runs. A path is read once
    (by :func:`ir_measures_graded.sources.read_input`) and its table let go once ranked."""
    import pyarrow as pa

    from ir_measures_graded.io.inputs import Input
    from ir_measures_graded.sources import read_input

    names, given = _names(runs)
    parts = []
    for name, item in zip(names, given, strict=True):
        if isinstance(item, (str, os.PathLike)):
            item = read_input(item, "run")
        parts.append(_one_run(item.held(name, "the pool") if isinstance(item, Input) else item, depth))
        del item
    topics = np.asarray(sorted({t for p in parts for t in p[0]}), dtype=object)
    topic = np.concatenate([np.searchsorted(topics, p[0]).astype(np.int64)[p[1]] for p in parts])
    encoded = pa.chunked_array([p[2] for p in parts], type=pa.string()).combine_chunks().dictionary_encode()
    doc = np.asarray(encoded.indices, dtype=np.int64)
    docs = np.asarray(encoded.dictionary.to_numpy(zero_copy_only=False), dtype=object)
    rank = np.concatenate([p[3] for p in parts])
    run = np.repeat(np.arange(len(parts), dtype=np.int64), [len(p[3]) for p in parts])
    del parts, encoded
    order = np.lexsort((rank, run, topic))
    return _Ranked(topic=topic[order], run=run[order], rank=rank[order], doc=doc[order], topics=topics, docs=docs,
                   names=names)


def _allowance(available: np.ndarray, budget: int | None, total: int | None) -> np.ndarray:
    """Documents judged per topic: ``available`` capped by ``budget``, or ``total`` shared out as equally as
    the topics allow (water-filling: every topic up to one level, those with more to judge one more each, in
    topic order, until the total is spent)."""
    if budget is not None:
        return np.minimum(available, budget)
    if total is None or total >= available.sum():
        return available.copy()
    low, high = 0, int(available.max())  # the highest level whose documents fit in the total: bisected
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if np.minimum(available, middle).sum() <= total else (low, middle - 1)
    given = np.minimum(available, low)
    more = np.flatnonzero(available > low)[:int(total - given.sum())]
    given[more] += 1
    return given


def _check(strategy: str, depth: int | None, budget: int | None, total: int | None, p: float, k: float) -> None:
    if strategy not in STRATEGIES:
        raise GradedInputError(f"unknown pooling strategy {strategy!r}: one of {', '.join(STRATEGIES)}")
    if budget is not None and total is not None:
        raise GradedInputError("a budget per topic or a total budget, not both")
    for name, value in (("budget", budget), ("total budget", total), ("depth", depth)):
        if value is not None and (int(value) != value or value < 1):
            raise GradedInputError(f"the {name} must be a whole number of at least 1; got {value}")
    if not 0 < p < 1:
        raise GradedInputError(f"RBP's persistence p must be in (0, 1); got {p}")
    if k < 0:
        raise GradedInputError(f"RRF's k must be at least 0; got {k}")


def build_pool(runs: Mapping[str, Any] | Sequence[Any], strategy: str = "depth", *, depth: int | None = None,
               budget: int | None = None, total: int | None = None, p: float = 0.8, k: float = 60.0,
               judgments: Any = None, judge: Callable[[str, str], float] | None = None, relevant: float = 1.0,
               seed: int = 0) -> JudgingPool:
    """The pool of ``runs`` (a mapping name -> run, or a list of paths / runs: anything the package reads as a
    run, an :class:`~ir_measures_graded.io.inputs.Input`, e.g. ``exp.run_input(name)``; a path is named by its file
    name) by ``strategy`` (:data:`STRATEGIES`).

    ``depth``: how deep each run is read (``depth``'s k, default 10; the others: default the whole run).
    ``budget``: documents judged per topic at most; ``total``: over all topics (shared equally). ``p``: RBP's
    persistence; ``k``: RRF's constant. ``mtf`` and ``bandit`` judge as they go: ``judgments`` (qrels) or
    ``judge(topic, doc) -> label``; a label of at least ``relevant`` is relevant. ``seed``: the order of the
    runs that breaks the adaptive strategies' ties.
    """
    return build_pools(runs, [strategy], depth=depth, budget=budget, total=total, p=p, k=k, judgments=judgments,
                       judge=judge, relevant=relevant, seed=seed)[strategy]


def build_pools(runs: Mapping[str, Any] | Sequence[Any], strategies: Sequence[str], *, depth: int | None = None,
                budget: int | None = None, total: int | None = None, p: float = 0.8, k: float = 60.0,
                judgments: Any = None, judge: Callable[[str, str], float] | None = None, relevant: float = 1.0,
                seed: int = 0) -> dict[str, JudgingPool]:
    """The pool of each of ``strategies`` (as :func:`build_pool` builds it, same options), the runs read and
    ranked once for all of them: ``{strategy: pool}``."""
    for strategy in strategies:
        _check(strategy, depth, budget, total, p, k)
        if strategy in ADAPTIVE and judgments is None and judge is None:
            raise GradedInputError(f"the {strategy} strategy judges as it goes: give the judgments (qrels) or a "
                                   "judge")
    whole = depth is None and any(s != "depth" for s in strategies)
    ranked = rank_runs(runs, None if whole else (depth or 10))
    labeller = None
    pools = {}
    for strategy in strategies:
        deep = (depth or 10) if strategy == "depth" else depth
        of = _within(ranked, deep) if whole and deep is not None else ranked
        if strategy in ADAPTIVE and (labeller is None or of is not ranked):
            labeller = _labeller(judgments, judge, of, np.unique(of.topic * len(of.docs) + of.doc))
        pools[strategy] = _from_ranked(of, strategy, budget, total, p, k, labeller, relevant, seed)
    return pools


def _within(ranked: _Ranked, depth: int) -> _Ranked:
    """The rankings' top ``depth`` per topic and run (doc codes and ids as they are)."""
    keep = ranked.rank <= depth
    return _Ranked(topic=ranked.topic[keep], run=ranked.run[keep], rank=ranked.rank[keep], doc=ranked.doc[keep],
                   topics=ranked.topics, docs=ranked.docs, names=ranked.names)


def _from_ranked(ranked: _Ranked, strategy: str, budget: int | None, total: int | None, p: float, k: float,
                 label_of: Callable[[int, int], float] | None, relevant: float, seed: int) -> JudgingPool:
    """The pool of one strategy from the runs ranked (``label_of``: the adaptive strategies' assessor)."""
    n_topics = len(ranked.topics)
    # (topic, doc) pairs: the candidates, and which runs contribute each
    pair_key = ranked.topic * len(ranked.docs) + ranked.doc
    pair, first = np.unique(pair_key, return_index=True)
    pair_of_row = np.searchsorted(pair, pair_key)
    pair_topic, pair_doc = ranked.topic[first], ranked.doc[first]
    available = np.bincount(pair_topic, minlength=n_topics)
    allowed = _allowance(available, budget, total)
    if strategy in ADAPTIVE:
        assert label_of is not None
        order_rank = _adaptive(strategy, ranked, allowed, label_of, relevant, seed)  # per pair: its order (0: not)
    else:
        if strategy == "depth":
            best = np.full(len(pair), np.iinfo(np.int64).max)
            np.minimum.at(best, pair_of_row, ranked.rank)
            count = np.bincount(pair_of_row, minlength=len(pair))
            keys = (ranked.docs[pair_doc].astype(str), -count, best)
        else:
            gain = (1 - p) * p ** (ranked.rank - 1.0) if strategy == "rbp" else 1.0 / (k + ranked.rank)
            weight = np.bincount(pair_of_row, weights=gain, minlength=len(pair))
            keys = (ranked.docs[pair_doc].astype(str), -weight)
        order = np.lexsort((*keys, pair_topic))  # by topic, then the strategy's order
        position = kernels.positions(kernels.segment_ptr(pair_topic[order], n_topics)) + 1
        order_rank = np.zeros(len(pair), dtype=np.int64)
        order_rank[order] = np.where(position <= allowed[pair_topic[order]], position, 0)
    return _pool(ranked, strategy, pair_of_row, pair_topic, pair_doc, order_rank)


def _pool(ranked: _Ranked, strategy: str, pair_of_row: np.ndarray, pair_topic: np.ndarray, pair_doc: np.ndarray,
          order_rank: np.ndarray) -> JudgingPool:
    chosen = np.flatnonzero(order_rank > 0)
    chosen = chosen[np.lexsort((order_rank[chosen], pair_topic[chosen]))]
    # the contributing runs of each chosen pair, in the runs' order
    rows = np.flatnonzero(order_rank[pair_of_row] > 0)
    rows = rows[np.lexsort((ranked.run[rows], pair_of_row[rows]))]
    names = np.asarray(ranked.names, dtype=object)
    contributors = pd.Series(names[ranked.run[rows]]).groupby(pair_of_row[rows], sort=True).agg(",".join)
    table = pd.DataFrame({"topic": ranked.topics[pair_topic[chosen]].astype(str),
                          "document": ranked.docs[pair_doc[chosen]].astype(str),
                          "order": order_rank[chosen],
                          "runs": contributors.reindex(chosen).to_numpy()})
    return JudgingPool(table=table.reset_index(drop=True), strategy=strategy, runs=ranked.names)


def _labeller(judgments: Any, judge: Callable[[str, str], float] | None, ranked: _Ranked,
              pair: np.ndarray) -> Callable[[int, int], float]:
    """``label(topic code, doc code)``: from the judgments (absent: 0), joined to every candidate ``pair``
    (``topic * len(docs) + doc``, sorted) at once; or asked of the judge."""
    if judge is not None:
        return lambda t, d: float(judge(str(ranked.topics[t]), str(ranked.docs[d])))
    from ir_measures_graded.io.columns import qrels_columns
    from ir_measures_graded.io.inputs import Input
    from ir_measures_graded.sources import read_input

    if isinstance(judgments, (str, os.PathLike)):
        judgments = read_input(judgments, "qrels")
    if isinstance(judgments, Input):
        judgments = judgments.held("judgments", "the pool")
    cols = qrels_columns(judgments, encode_docs=False)
    doc_codes = cols.doc_codes if cols.doc_codes is not None else np.arange(len(cols), dtype=np.int64)
    topic_ids = np.asarray([str(q) for q in cols.query_ids], dtype=object)
    topic = pd.Index(ranked.topics).get_indexer(topic_ids)[cols.query_codes]
    docs = np.asarray(_doc_array(cols.doc_ids, doc_codes).to_numpy(zero_copy_only=False), dtype=object)
    doc = pd.Index(ranked.docs).get_indexer(docs)
    known = (topic >= 0) & (doc >= 0)  # judged documents no run retrieved are never asked for
    key = topic[known] * len(ranked.docs) + doc[known]
    at = np.searchsorted(pair, key)
    inside = at < len(pair)
    inside[inside] = pair[at[inside]] == key[inside]
    label = np.zeros(len(pair), dtype=np.float64)
    label[at[inside]] = cols.values[known][inside]
    n_docs = len(ranked.docs)
    return lambda t, d: float(label[np.searchsorted(pair, t * n_docs + d)])


def _adaptive(strategy: str, ranked: _Ranked, allowed: np.ndarray, label_of: Callable[[int, int], float],
              relevant: float, seed: int) -> np.ndarray:
    """Each (topic, doc) pair's order of judging under move-to-front or MaxMean (0: not judged): a loop per
    judging step, as the algorithms are sequential."""
    n_runs = len(ranked.names)
    tie = np.random.default_rng(seed).permutation(n_runs)  # tie[j]: run j's place among equals (lower first)
    pair_key = ranked.topic * len(ranked.docs) + ranked.doc
    pairs = np.unique(pair_key)
    order_rank = np.zeros(len(pairs), dtype=np.int64)
    topic_ptr = kernels.segment_ptr(ranked.topic, len(ranked.topics))
    for t in range(len(ranked.topics)):
        lo, hi = topic_ptr[t], topic_ptr[t + 1]
        run_ptr = lo + kernels.segment_ptr(ranked.run[lo:hi], n_runs)
        docs = ranked.doc[lo:hi]
        lists = [docs[run_ptr[j] - lo:run_ptr[j + 1] - lo] for j in range(n_runs)]
        sequence = _judge_topic(strategy, lists, tie, int(allowed[t]), lambda d, t=t: label_of(t, d) >= relevant)
        if sequence:
            at = np.searchsorted(pairs, t * len(ranked.docs) + np.asarray(sequence, dtype=np.int64))
            order_rank[at] = np.arange(1, len(sequence) + 1)
    return order_rank


def _judge_topic(strategy: str, lists: list[np.ndarray], tie: np.ndarray, allowed: int,
                 is_relevant: Callable[[int], bool]) -> list[int]:
    """The documents judged on one topic, in order: ``lists[j]`` run j's ranked doc codes."""
    n_runs = len(lists)
    position = np.zeros(n_runs, dtype=np.int64)  # each run's next place to look at
    judged: set[int] = set()
    sequence: list[int] = []
    alive = np.array([len(lst) > 0 for lst in lists])
    priority = np.zeros(n_runs, dtype=np.float64)  # mtf: priority; bandit: relevant judged from the run
    pulls = np.zeros(n_runs, dtype=np.float64)  # bandit: documents judged from the run
    current = -1

    def next_doc(j: int) -> int | None:
        lst = lists[j]
        while position[j] < len(lst) and int(lst[position[j]]) in judged:
            position[j] += 1
        if position[j] >= len(lst):
            alive[j] = False
            return None
        return int(lst[position[j]])

    def best() -> int:
        score = priority if strategy == "mtf" else (priority + 1) / (pulls + 2)
        score = np.where(alive, score, -np.inf)
        top = np.flatnonzero(score == score.max())
        return int(top[np.argmin(tie[top])])

    while len(sequence) < allowed and alive.any():
        if strategy == "bandit" or current < 0 or not alive[current]:
            current = best()
        doc = next_doc(current)
        if doc is None:
            current = -1
            continue
        judged.add(doc)
        sequence.append(doc)
        good = is_relevant(doc)
        if strategy == "bandit":
            pulls[current] += 1
            priority[current] += good
        elif not good:
            priority[current] -= 1
            current = -1
    return sequence
