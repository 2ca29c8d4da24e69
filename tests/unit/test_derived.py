"""Quantities derived from the judgments (derived.py), on hand-checked qrels."""

from __future__ import annotations

import numpy as np
import pytest

from ir_measures_graded import derived, nDCNG
from ir_measures_graded.prepare import Judgments

QRELS = {"q1": {"a": 0, "b": 2, "c": 1, "d": 2}, "q2": {"a": 4, "b": 0.5}, "q3": {"a": 0}}


@pytest.fixture()
def judgments():
    return Judgments.from_qrels(QRELS)


def test_thresholds_and_relevant_counts(judgments):
    ptr, values = derived.thresholds(judgments, "query", 0.0)
    assert ptr.tolist() == [0, 2, 4, 4] and values.tolist() == [1, 2, 0.5, 4]
    assert derived.relevant_counts(judgments, "query", 0.0).tolist() == [3, 2, 2, 1]
    assert derived.collection_labels(judgments, 0.0).tolist() == [0.5, 1, 2, 4]
    assert derived.collection_labels(judgments, 1.0).tolist() == [2, 4]
    ptr, values = derived.thresholds(judgments, "collection", 1.0)
    assert ptr.tolist() == [0, 2, 4, 6] and values.tolist() == [2, 4] * 3
    assert derived.relevant_counts(judgments, "collection", 1.0).tolist() == [2, 0, 1, 1, 0, 0]
    ptr, values = derived.thresholds(judgments, (1.5,), 0.0)
    assert derived.relevant_counts(judgments, (1.5,), 0.0).tolist() == [2, 1, 0]


def test_raw_gain_maps_then_subtracts_the_floor():
    label = np.array([0.0, 1.0, 2.0, np.nan, 3.0])
    assert derived.raw_gain(label, None, 0.0).tolist() == [0, 1, 2, 0, 3]
    assert derived.raw_gain(label, ((1.0, 5.0), (3.0, 0.5)), 0.0).tolist() == [0, 5, 2, 0, 0.5]
    assert derived.raw_gain(label, ((1.0, 5.0),), 1.5).tolist() == [0, 3.5, 0.5, 0, 1.5]  # floor after mapping


@pytest.mark.parametrize("norm, expected", [("query", [2, 4, 0]), ("collection", [4, 4, 4]), (None, [1, 1, 1])])
def test_gain_scale(judgments, norm, expected):
    assert derived.GainFunction(judgments, None, 0.0, norm, exponential=True).scale().tolist() == expected


def test_numeric_norm_divides_the_gains(judgments):
    gain = derived.GainFunction(judgments, None, 0.0, 8.0, exponential=False)
    assert gain(judgments.query, judgments.label).tolist() == (np.maximum(judgments.label, 0) / 8).tolist()


def test_gain_scale_with_floor_and_mapping(judgments):
    gain = derived.GainFunction(judgments, ((2.0, 6.0),), 1.0, "query", exponential=False)
    assert gain.scale().tolist() == [5, 3, 0]
    assert gain(np.array([0, 0, 1]), np.array([1.0, 2.0, 4.0])).tolist() == [0, 1, 1]


def test_norm_and_floor_change_the_values():
    qrels = {"q1": {"a": 1, "b": 2}, "q2": {"a": 4, "b": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"b": 2.0, "a": 1.0}}

    def ndcg(gains: list[float], ideal: list[float]) -> float:
        dcg = sum(g / np.log2(i + 2) for i, g in enumerate(gains))
        return dcg / sum(g / np.log2(i + 2) for i, g in enumerate(ideal))

    def values(measure):
        return {m.query_id: m.value for m in measure.iter_calc(qrels, run)}

    e = lambda x: 2.0**x - 1  # noqa: E731
    assert values(nDCNG)["q1"] == pytest.approx(ndcg([e(1 / 2), e(1)], [e(1), e(1 / 2)]))
    assert values(nDCNG(norm="collection"))["q1"] == pytest.approx(ndcg([e(1 / 4), e(2 / 4)], [e(2 / 4), e(1 / 4)]))
    assert values(nDCNG(gains={1: 3}, floor=1))["q2"] == pytest.approx(ndcg([e(2 / 3), e(3 / 3)], [e(1), e(2 / 3)]))
