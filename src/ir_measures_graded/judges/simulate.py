"""A second judge simulated from the first: the documented noise models of the worked example.

- ``stricter``: each relevant document (grade above the lowest) is given the next lower grade with probability
  ``rate`` (a judge who asks more before calling a document relevant);
- ``coarser``: the grades mapped onto 0..``levels - 1`` (by default 0-2), evenly by their position on the
  first judge's scale, rounded down (a judge with a shorter scale: 0-4 becomes 0, 0, 1, 1, 2);
- ``confused``: each grade moved to an adjacent grade of the same scale with probability ``rate`` (up or down
  equally, staying on the scale: a judge who confuses neighbouring grades).

Seeded (``seed``): the same judge every time.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ir_measures_graded.errors import GradedInputError

__all__ = ["simulate_judge", "MODELS"]

MODELS = ("stricter", "coarser", "confused")


def simulate_judge(qrels: pd.DataFrame, model: str, rate: float = 0.3, seed: int = 0, levels: int = 3) -> pd.DataFrame:
    """``qrels`` (``query_id``, ``doc_id``, ``relevance``: e.g. an experiment's ``qrels_frame``) as the second
    judge ``model`` (one of :data:`MODELS`) would grade them; the same rows, only ``relevance`` changed."""
    if model not in MODELS:
        raise GradedInputError(f"judge model {model!r} is none of {', '.join(MODELS)}")
    if not 0 <= rate <= 1:
        raise GradedInputError(f"rate {rate} is not a probability (0 to 1)")
    grades = qrels["relevance"].to_numpy(dtype=np.float64)
    scale = np.unique(grades)
    position = np.searchsorted(scale, grades)
    rng = np.random.default_rng(seed)
    if model == "stricter":
        lowered = (position > 0) & (rng.random(len(grades)) < rate)
        found = scale[np.where(lowered, position - 1, position)]
    elif model == "coarser":
        if levels < 2:
            raise GradedInputError(f"a coarser judge needs at least 2 levels; got {levels}")
        top = max(len(scale) - 1, 1)
        found = np.floor(position * (levels - 1) / top + 1e-9)
    else:
        moved = rng.random(len(grades)) < rate
        step = np.where(rng.random(len(grades)) < 0.5, -1, 1)
        step = np.where((position + step < 0) | (position + step >= len(scale)), -step, step)
        target = np.clip(position + np.where(moved, step, 0), 0, len(scale) - 1)
        found = scale[target]
    kind = np.int64 if np.all(np.equal(np.mod(found, 1), 0)) else np.float64
    return qrels.assign(relevance=found.astype(kind))
