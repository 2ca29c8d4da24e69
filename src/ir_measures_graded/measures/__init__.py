"""What is computed: the measure definitions (one module each), registered with ir_measures on import."""

from ir_measures_graded.measures.base import GradedMeasure
from ir_measures_graded.measures.mean_ndcg import _meanNDCG, _meanNDCNG, meanNDCG, meanNDCNG
from ir_measures_graded.measures.muap import _muAP, muAP, muMAP, μAP, μMAP
from ir_measures_graded.measures.mup import _muP, muP, μP
from ir_measures_graded.measures.ndcng import NDCNG, _nDCNG, nDCNG

__all__ = [
    "GradedMeasure",
    "muAP", "muMAP", "μAP", "μMAP", "_muAP",
    "muP", "μP", "_muP",
    "nDCNG", "NDCNG", "_nDCNG",
    "meanNDCG", "meanNDCNG", "_meanNDCG", "_meanNDCNG",
]
