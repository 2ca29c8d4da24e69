"""What nDCNG, meanNDCG and meanNDCNG share: the gain function their parameters describe."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ir_measures_graded.lazy import lazy_module
from ir_measures_graded.measures import base, params

kernels = lazy_module("ir_measures_graded.kernels")  # numpy loads when a value is computed

if TYPE_CHECKING:
    import numpy as np

    from ir_measures_graded import derived
    from ir_measures_graded.prepare import Judgments, Ranking


class GainedMeasure(base.GradedMeasure):
    """Base of the DCG family: parameters ``gains``, ``floor``, ``dcg`` and (if supported) ``norm``.

    A subclass names its DCG kernel in ``KERNEL`` (a function of :mod:`ir_measures_graded.kernels`
    taking the ranked rows' gains and the ideal DCG prefix).
    """

    KERNEL: str
    CITATION = base.SCHEEL_2011  # NDCNG, meanNDCG and meanNDCNG: the paper's (Eq. 5, Table 2)
    SUPPORTED_PARAMS = {**params.GAINED, 'dcg': params.DCG}

    def per_query(self, judgments: Judgments, ranking: Ranking) -> np.ndarray:
        gain = self.gain(judgments)
        ideal_ptr, ideal_cum = gain.ideal()
        cutoff = self.value("cutoff")
        if cutoff is not None and self.tie_groups(ranking) is None:  # expected gains need whole tie groups
            ranking = ranking.top(cutoff)  # the kernels read no row ranked below the cutoff: no gain for them
        row_gain = self.row_gain(gain, ranking)
        kernel = getattr(kernels, self.KERNEL)
        return kernel(ranking.query, ranking.rank, row_gain, ideal_ptr, ideal_cum, cutoff)

    def gain(self, judgments: Judgments) -> derived.GainFunction:
        """The gain of a (query, label) pair, with its ideal DCG (cached on ``judgments``)."""
        from ir_measures_graded import derived  # here: numpy loads when a value is computed

        norm = self.value("norm") if "norm" in self.SUPPORTED_PARAMS else None  # meanNDCG: unnormalised
        return derived.GainFunction(judgments, self.value("gains"), self.value("floor"), norm,
                                    exponential=self.value("dcg") == "exp-log2", measure=str(self))

    def row_gain(self, gain: derived.GainFunction, ranking: Ranking) -> np.ndarray:
        """The gain of every ranked row; with ``ties='expected'`` its tie group's mean gain (the
        expected gain at its rank, so DCG and its means over ranks are expectations too)."""
        row_gain = gain(ranking.query, ranking.label)
        groups = self.tie_groups(ranking)
        return row_gain if groups is None else kernels.group_mean(row_gain, groups)
