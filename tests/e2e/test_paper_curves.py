"""The swap experiment at the paper's size (Sec. 2.1, as the notebooks run it): its curves (split from tests/unit/paper/test_experiments.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ir_measures_graded.paper import swaps


@pytest.fixture(scope="module")
def curves() -> pd.DataFrame:
    return pd.concat([swaps.swap_experiment(d, repetitions=40, seed=7) for d in swaps.DISTRIBUTIONS])


def test_ideal_ranking_scores_one_at_zero_swaps(curves):
    start = curves[curves["swaps"] == 0]
    assert len(start) == 2 * 4 * 3
    assert np.allclose(start["mean"], 1.0) and np.allclose(start["std"], 0.0)


def test_curves_fall_as_swaps_grow(curves):
    for _, curve in curves.groupby(["distribution", "levels", "measure"]):
        coarse = curve.set_index("swaps")["mean"].loc[[0, 20, 40, 60, 80, 99]].to_numpy()
        assert np.all(np.diff(coarse) < 0), curve.iloc[0].to_dict()


def test_level_spread_of_mu_map_and_ndcng_far_below_mean_ndcg(curves):
    spread = swaps.level_spread(curves, at=(30, 99))
    assert list(spread.index) == [("uniform", 30), ("uniform", 99), ("non-uniform", 30), ("non-uniform", 99)]
    at_99 = spread.xs(99, level="swaps")
    assert (at_99["mean NDCG"] > 0.2).all()  # NDCG depends on the number of levels...
    assert (at_99["µMAP"] * 3 < at_99["mean NDCG"]).all()  # ...µMAP and NDCNG much less
    assert (at_99["mean NDCNG"] * 3 < at_99["mean NDCG"]).all()
