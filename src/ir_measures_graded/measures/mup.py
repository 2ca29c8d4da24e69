"""µP@k (Scheel, Lommatzsch & Albayrak, 2011, Sec. 1 and 3.1)."""

from ir_measures_graded.lazy import lazy_module
from ir_measures_graded.measures import base, params
from ir_measures_graded.measures.thresholded import ThresholdedMeasure

kernels = lazy_module("ir_measures_graded.kernels")  # numpy loads when a value is computed


class _muP(ThresholdedMeasure):
    """
    µP@k, precision at k over multi-graded relevance (Scheel, Lommatzsch & Albayrak, 2011, Sec. 1 and 3.1).

    P@k is computed at every threshold t of the query ("relevant" meaning label >= t; exactly
    ``P(rel=t)@k`` for integer labels) and combined like µAP, weighted by the distance between
    successive thresholds:

    .. math::

        \\mu P@k_q = \\frac{\\sum_{t \\in L_q} d_t \\cdot P@k_q^t}{\\sum_{t \\in L_q} d_t}

    With binary judgments µP@k equals P@k. The cutoff is required (``muP@10``). ``levels`` as for µAP.

    """
    __name__ = 'muP'
    ALIASES = ('μP',)
    PRETTY_NAME = 'µPrecision at k'
    AT_THRESHOLD = 'P'
    SHORT_DESC = 'P@k at every relevance threshold, averaged with weights by the distance between thresholds.'
    SUPPORTED_PARAMS = {**ThresholdedMeasure.SUPPORTED_PARAMS, 'cutoff': params.CUTOFF_REQUIRED}


    def values_at_thresholds(self, judgments, ranking, thr_ptr, reached, relevant):
        return kernels.thresholded_precision(ranking.query, ranking.rank, reached, thr_ptr, self.value('cutoff'),
                                             self.tie_groups(ranking))


muP = base.register(_muP())
μP = muP

__all__ = ['muP', 'μP']
