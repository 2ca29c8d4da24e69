"""The simulated second judges keep their documented promises (hypothesis)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.judges.simulate import simulate_judge

grades = st.lists(st.integers(0, 4), min_size=1, max_size=60)


def frame(values) -> pd.DataFrame:
    return pd.DataFrame({"query_id": ["1"] * len(values), "doc_id": [f"d{i}" for i in range(len(values))],
                         "relevance": values})


@settings(max_examples=60, deadline=None)
@given(grades, st.floats(0, 1), st.integers(0, 5))
def test_every_model_keeps_its_promise(values, rate, seed):
    qrels = frame(values)
    scale = sorted(set(values))
    position = np.searchsorted(scale, values)
    strict = simulate_judge(qrels, "stricter", rate, seed)
    moved = position - np.searchsorted(scale, strict.relevance)
    assert set(moved) <= {0, 1} and not (moved[position == 0]).any()
    assert strict[["query_id", "doc_id"]].equals(qrels[["query_id", "doc_id"]])
    coarse = simulate_judge(qrels, "coarser", rate, seed, levels=3).relevance.to_numpy()
    assert set(coarse) <= {0, 1, 2} and (np.diff(coarse[np.argsort(values, kind="stable")]) >= 0).all()
    if len(scale) > 1:
        assert coarse[position == len(scale) - 1].tolist() == [2] * int(np.sum(position == len(scale) - 1))
    confused = simulate_judge(qrels, "confused", rate, seed).relevance
    assert set(confused) <= set(scale) and (abs(np.searchsorted(scale, confused) - position) <= 1).all()
    pd.testing.assert_frame_equal(simulate_judge(qrels, "confused", rate, seed), simulate_judge(qrels, "confused", rate, seed))
    for model in ("stricter", "confused"):
        assert simulate_judge(qrels, model, 0.0, seed).relevance.tolist() == values


def test_bad_models_are_one_line():
    with pytest.raises(GradedInputError, match="judge model 'lazy' is none of stricter, coarser, confused"):
        simulate_judge(frame([0, 1]), "lazy")
    with pytest.raises(GradedInputError, match="not a probability"):
        simulate_judge(frame([0, 1]), "stricter", rate=2)
