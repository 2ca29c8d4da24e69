"""Quantities derived from the judgments computed a chunk of queries at a time (``derived.CHUNK_ROWS``,
read when called: made small here) are those of the whole: every registered measure's values, bit
for bit, with real labels, ties and queries larger than a chunk."""

from __future__ import annotations

import ir_measures
import pandas as pd
import pytest
from hypothesis import given, settings

from ir_measures_graded import derived
from support.examples import examples
from support.random_collections import collections, random_collection
from support.registered import instances


def values(qrels: dict, run: dict) -> list:
    frame = pd.DataFrame([(q, d, v) for q, docs in qrels.items() for d, v in docs.items()],
                         columns=["query_id", "doc_id", "relevance"])
    evaluator = ir_measures.providers.registry["graded"].evaluator(instances(5), frame)  # new judgments: no cache
    return [(m.query_id, str(m.measure), repr(m.value)) for m in evaluator.iter_calc(run)]


@pytest.mark.parametrize("chunk_rows", [1, 2, 17, 200])
def test_chunked_derived_quantities_give_the_values_of_the_whole(monkeypatch, chunk_rows: int) -> None:
    qrels, run = random_collection(21, n_queries=50, labels=(0, 1, 2, 3, 4, 7))
    expected = values(qrels, run)
    monkeypatch.setattr(derived, "CHUNK_ROWS", chunk_rows)
    assert values(qrels, run) == expected


@settings(max_examples=examples(100), deadline=None)
@given(collections())
def test_chunked_derived_quantities_on_any_collection(collection) -> None:
    qrels, run = collection
    expected = values(qrels, run)
    saved = derived.CHUNK_ROWS
    derived.CHUNK_ROWS = 1
    try:
        assert values(qrels, run) == expected
    finally:
        derived.CHUNK_ROWS = saved
