"""What nDCNG, meanNDCG and meanNDCNG share: the gain function their parameters describe."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ir_measures_graded.derived import GainFunction
from ir_measures_graded.measures import base

if TYPE_CHECKING:
    from ir_measures_graded.prepare import Judgments


class GainedMeasure(base.GradedMeasure):
    """Base of the DCG family: parameters ``gains``, ``floor``, ``dcg`` and (if supported) ``norm``."""

    def gain(self, judgments: Judgments) -> GainFunction:
        """The gain of a (query, label) pair, with its ideal DCG (cached on ``judgments``)."""
        norm = self.value("norm") if "norm" in self.SUPPORTED_PARAMS else None  # meanNDCG: unnormalised
        return GainFunction(judgments, self.value("gains"), self.value("floor"), norm,
                            exponential=self.value("dcg") == "exp-log2")
