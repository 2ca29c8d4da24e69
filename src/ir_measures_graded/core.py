"""The one evaluation function: measures on prepared judgments and one batch of ranked rows.

:func:`evaluate` is what every driver calls — the provider (a whole run), streaming
(:func:`evaluate_stream`, batch by batch) and, through the provider, the Spark engine's workers.
It yields each measure's per-query values as the measure computes them; a value may carry more
than a float (collection-level µAP carries its per-threshold parts), which only the measure's own
aggregator reads. Nothing here aggregates.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ir_measures_graded.arrow import to_numpy
from ir_measures_graded.prepare import Judgments, Ranking

if TYPE_CHECKING:
    import ir_measures

    from ir_measures_graded.io.stream import QueryBatch


class Evaluated(Protocol):
    """What :func:`evaluate` needs of a measure (every measure of :mod:`.measures` is one)."""

    def value(self, name: str) -> Any: ...

    def results(self, judgments: Judgments, ranking: Ranking) -> Iterator[tuple[int, Any]]: ...


def evaluate(measures: Sequence[Evaluated], judgments: Judgments,
             ranking: Ranking) -> Iterator[tuple[int, int, Any]]:
    """``(measure index, query code, value)``, measure by measure, for the queries each measure yields.

    A measure with ``judged_only`` sees the ranking without unjudged documents (made once for all).
    A measure yields the queries the ranking holds; collection-level µAP also yields the judged
    queries the ranking lacks (their parts are needed by its aggregator).
    """
    rankings = {False: ranking}
    for i, measure in enumerate(measures):
        judged_only = bool(measure.value("judged_only"))
        if judged_only not in rankings:
            rankings[judged_only] = ranking.judged_only()
        for q, value in measure.results(judgments, rankings[judged_only]):
            yield i, q, value


def evaluate_run(measures: Sequence[Evaluated], judgments: Judgments, run: Any,
                 counts: dict[str, int] | None = None) -> Iterator[tuple[int, int, Any]]:
    """:func:`evaluate` on a whole run held in memory (any form :mod:`.io.columns` accepts); ``counts``
    (when given) gets the run's rows of judged queries (``ranked``) and of judged documents (``judged``)."""
    if not measures and counts is not None:  # counting alone: the join, not the ranking
        ranked, judged = judgments.judged_rows(run)
        counts["ranked"] += ranked
        counts["judged"] += judged
        return
    ranking = Ranking.from_run(run, judgments)
    if counts is not None:
        counts["ranked"] += len(ranking.label)
        counts["judged"] += int(np.count_nonzero(~np.isnan(ranking.label)))
    yield from evaluate(measures, judgments, ranking)


def evaluate_stream(measures: Sequence[Evaluated], judgments: Judgments, run: Any,
                    counts: dict[str, int] | None = None) -> Iterator[tuple[int, int, Any]]:
    """:func:`evaluate` on a streamable run (see :func:`.io.stream.is_streamable`), batch by batch.

    Values are held per judged query until the end (a query seen again changes them), then
    yielded measure by measure in query-code order, as the whole-input path does. A scan or stream
    with a ``depth`` has each query cut to its top ``depth`` rows (:func:`.prepare.top_rows`).
    """
    from ir_measures_graded.io.stream import (  # the readers: not for a run in memory
        ROWS_PER_QUERY,
        BatchSource,
        RunScan,
        RunStream,
    )

    values = np.zeros((len(measures), judgments.n_queries), dtype=object)  # a value may be more than a float
    present = np.zeros(judgments.n_queries, dtype=bool)
    # per judged query, its rows and judged rows (a query seen again: its last, complete, evaluation's)
    per_query = np.zeros((2, judgments.n_queries), dtype=np.int64)
    seen: set[str] = set()
    again: set[str] = set()
    rows = 0
    depth = getattr(run, "depth", None)
    with BatchSource(run) as source:
        # A batch costs some work per judged query too: with many queries, batches grow with them.
        with source.batches(min_rows=ROWS_PER_QUERY * judgments.n_queries) as batches:
            # while the first batch is read: what the measures need of the judgments (cached)
            unranked = _unranked_values(measures, judgments)
            for batch in batches:
                rows += batch.table.num_rows
                ids = _evaluate_batch(batch, measures, judgments, values, present, source.name, per_query, depth)
                again.update(seen.intersection(ids))
                seen.update(ids)
        if again:  # their rows, all together, replace the values of their parts
            _evaluate_batch(source.rows_of(again), measures, judgments, values, present, source.name, per_query,
                        depth)
    codes = np.flatnonzero(present)
    if isinstance(run, (RunScan, RunStream)):
        run.rows, run.matched = rows, len(codes)
    if counts is not None:
        counts["ranked"] += int(per_query[0].sum())
        counts["judged"] += int(per_query[1].sum())
    for i in range(len(measures)):
        yielded = dict(zip(codes.tolist(), values[i, codes].tolist(), strict=True))
        yielded.update((q, value) for q, value in unranked[i].items() if not present[q])
        for q in sorted(yielded):
            yield i, q, yielded[q]


def _unranked_values(measures: Sequence[Evaluated], judgments: Judgments) -> list[dict[int, Any]]:
    """The values some measures give a judged query the run lacks (collection-level µAP: more than
    a float), from a ranking holding no row; others leave those queries to ir_measures' default.
    Computing them also computes (and caches) what the measures need of the judgments."""
    empty = Ranking(query=np.zeros(0, dtype=np.int64), rank=np.zeros(0, dtype=np.int64),
                    label=np.zeros(0), present=np.zeros(judgments.n_queries, dtype=bool))
    unranked: list[dict[int, Any]] = [{} for _ in measures]
    for i, q, value in evaluate(measures, judgments, empty):
        unranked[i][q] = value
    return unranked


def _evaluate_batch(batch: QueryBatch, measures: Sequence[Evaluated], judgments: Judgments, values: np.ndarray,
                    present: np.ndarray, name: str | None, per_query: np.ndarray,
                    depth: int | None = None) -> list[str]:
    """Evaluate one batch of whole queries into ``values`` (and each query's rows and judged rows into
    ``per_query``); returns the batch's distinct query ids."""
    from ir_measures_graded.io.ids import duplicate_error, id_text

    query_ids, query_codes, docs = batch.query_ids, batch.query_codes, batch.doc_ids
    pair = batch.duplicate
    if pair is not None:
        first, second = (int(batch.lines[r]) for r in pair)
        raise duplicate_error("run", query_ids[int(query_codes[pair[0]])].as_py(), id_text(docs, pair[0]),
                              first, second, name, batch.unit)
    score = to_numpy(batch.table.column("value"))
    ranking = Ranking.from_codes(query_codes, query_ids, None, docs, score, judgments, doc_keys=batch.doc_keys,
                                  depth=depth)
    here = ranking.present
    per_query[0, here] = np.bincount(ranking.query, minlength=judgments.n_queries)[here]
    per_query[1, here] = np.bincount(ranking.query[~np.isnan(ranking.label)], minlength=judgments.n_queries)[here]
    for i, q, value in evaluate(measures, judgments, ranking):
        if here[q]:  # a measure may also yield queries the batch lacks (their value comes at the end)
            values[i, q] = value
    present |= here
    return query_ids.to_pylist()


def metrics(measures: Sequence[ir_measures.Measure], judgments: Judgments,
            evaluated: Iterator[tuple[int, int, Any]]) -> Iterator[ir_measures.Metric]:
    """The values of :func:`evaluate` as ``ir_measures.Metric`` (query id, measure, value)."""
    from ir_measures import Metric

    query_ids = judgments.query_ids
    for i, q, value in evaluated:
        yield Metric(query_id=query_ids[q], measure=measures[i], value=value)
