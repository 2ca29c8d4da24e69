"""Checks every measure's test runs the same way: against the slow reference, and over tie orders.

- :func:`assert_reference` — per query and aggregate through ``ir_measures`` against
  ``tests/support/reference.py``;
- :func:`assert_ties_expected` — ``ties='expected'`` against the mean over every order of the tied
  documents (brute force, as tests/unit/kernels/test_ties.py);
- :func:`weighted_by_threshold` — the distance-weighted combination of a binary measure computed at
  every relevance threshold by another tool (pytrec_eval), as µAP is checked against ``AP(rel=t)``.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping

import ir_measures
import numpy as np
import pytest
from hypothesis import strategies as st

from support import reference
from support.warned import no_warning

TOL = 1e-9


def per_query(measures: list, qrels: Mapping, run: Mapping) -> dict:
    """{measure: {query: value}} through ir_measures (every qrels query, run-only queries skipped)."""
    out: dict = defaultdict(dict)
    with no_warning():  # no numpy warning on the way to a value
        for metric in ir_measures.iter_calc(measures, qrels, run):
            out[metric.measure][metric.query_id] = metric.value
    return out


def assert_reference(measure: ir_measures.Measure, name: str, params: Mapping, qrels: Mapping, run: Mapping) -> None:
    """Per-query values and their mean equal the reference's ``name`` with ``params``."""
    expected = reference.per_query(name, params, qrels, run)
    got = per_query([measure], qrels, run)[measure]
    assert got.keys() == expected.keys(), measure
    for qid, value in got.items():
        assert value == pytest.approx(expected[qid], rel=TOL, abs=1e-12), (str(measure), qid)
    aggregate = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    assert aggregate == pytest.approx(sum(expected.values()) / len(expected), rel=TOL, abs=1e-12)


def orders(keys: list) -> Iterator[list[int]]:
    """Every order of the rows that keeps ties together (rows sorted by key descending)."""
    groups = [list(g) for _, g in itertools.groupby(range(len(keys)), key=lambda i: keys[i])]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for p in perms for i in p]


# Small rankings with tied scores: (score key, label or None for unjudged).
tied_rows = st.lists(st.tuples(st.integers(0, 2), st.one_of(st.none(), st.integers(0, 3))), min_size=1, max_size=6)

#: A few fixed cases of ``tied_rows`` (score key, label or None: unjudged) and unjudged-relevant
#: documents not retrieved, for the fast subset: ties inside and across labels, a first relevant
#: document tied with irrelevant and unjudged ones, everything tied.
TIE_EXAMPLES = [
    ([(2, 1), (2, 0), (2, 3), (1, 2), (1, None), (0, 1)], 0),
    ([(1, 0), (1, 2), (1, 2), (1, None)], 2),
    ([(2, None), (2, 0), (1, 3), (1, 1), (1, 0)], 1),
]


def assert_ties_expected(measure: ir_measures.Measure, rows: list, unretrieved: int) -> None:
    """``measure(ties='expected')`` on a tied run equals the mean of ``measure`` over every tie order
    (each order evaluated as a query of its own, all in one call)."""
    rows = sorted(rows, key=lambda r: -r[0])
    docs = [f"d{i}" for i in range(len(rows))]
    judged = {d: lab for d, (_, lab) in zip(docs, rows, strict=True) if lab is not None}
    judged.update({f"u{i}": 2 for i in range(unretrieved)})
    if not any(v > 0 for v in judged.values()):
        judged["u_extra"] = 1
    keys = [k for k, _ in rows]
    every_order = list(orders(keys))
    qrels = {f"o{n}": judged for n in range(len(every_order))}
    run = {f"o{n}": {docs[i]: float(len(order) - pos) for pos, i in enumerate(order)}
           for n, order in enumerate(every_order)}
    brute = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    tied_run = {"q": {d: float(k) for d, k in zip(docs, keys, strict=True)}}
    expected = measure(ties="expected")
    got = ir_measures.calc_aggregate([expected], {"q": judged}, tied_run)[expected]
    assert got == pytest.approx(brute, abs=1e-12), str(measure)


def draw_params(data: st.DataObject, **choices: list | st.SearchStrategy) -> dict:
    """Parameters drawn from ``choices`` (a list of values or a strategy each); None leaves one out."""
    drawn = {name: data.draw(c if isinstance(c, st.SearchStrategy) else st.sampled_from(c)) for name, c in choices.items()}
    return {name: value for name, value in drawn.items() if value is not None}


def assert_weighted_by_threshold(measure: ir_measures.Measure, at_threshold: Callable[[float], Mapping[str, float]],
                                 qrels: Mapping, run: Mapping) -> None:
    """Per query, ``measure`` equals :func:`weighted_by_threshold` of ``at_threshold``."""
    got = per_query([measure], qrels, run)[measure]
    expected = weighted_by_threshold(at_threshold, qrels)
    assert got.keys() == expected.keys()
    for qid, value in got.items():
        assert value == pytest.approx(expected[qid], abs=TOL), qid


def weighted_by_threshold(at_threshold: Callable[[float], Mapping[str, float]], qrels: Mapping,
                          thresholds: Callable[[Mapping], list[float]] | None = None) -> dict[str, float]:
    """Per query: Σ_t d_t · value_t[q] / Σ_t d_t over the query's labels above 0 (0 where it has none).

    ``at_threshold(t)`` gives {query: value} of the binary measure with "relevant" meaning label >= t.
    """
    levels = thresholds or (lambda judged: sorted({r for r in judged.values() if r > 0}))
    cache: dict = {}
    expected = {}
    for qid, judged in qrels.items():
        ts = levels(judged)
        for t in ts:
            if t not in cache:
                cache[t] = at_threshold(t)
        weights = reference.threshold_weights(ts)
        expected[qid] = reference.weighted_mean([cache[t].get(qid, 0.0) for t in ts], weights)
    return expected


def tied_threshold_arrays(queries: list, unretrieved: Callable[[int], int]) -> tuple:
    """The tie kernels' inputs for queries of ``(score key, level)`` rows: ``(query, rank, level,
    thr_ptr, n_relevant, tie ptr)``, rows ranked by key descending, thresholds ``0 .. max level - 1``
    per query; R^t is the rows above t plus ``unretrieved(t)`` judged documents never ranked."""
    from ir_measures_graded.kernels.ties import tie_group_ptr

    queries = [sorted(rows, key=lambda r: -r[0]) for rows in queries]
    n_thr = [max(lab for _, lab in rows) for rows in queries]
    thr_ptr = np.concatenate(([0], np.cumsum(n_thr))).astype(np.int64)
    query = np.concatenate([np.full(len(rows), q) for q, rows in enumerate(queries)]).astype(np.int64)
    keys = np.concatenate([[key for key, _ in rows] for rows in queries])
    level = np.concatenate([[lab for _, lab in rows] for rows in queries]).astype(np.int64)
    rank = np.concatenate([np.arange(1, len(rows) + 1) for rows in queries])
    n_relevant = np.array([sum(lab > t for _, lab in rows) + unretrieved(t) for q, rows in enumerate(queries)
                           for t in range(n_thr[q])], dtype=np.float64)
    return query, rank, level, thr_ptr, n_relevant, tie_group_ptr(query, keys)

