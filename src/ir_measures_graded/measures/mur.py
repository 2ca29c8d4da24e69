"""µR@k: recall at k at every relevance threshold (the construction of Scheel et al. 2011, Eq. 4)."""

from ir_measures_graded.lazy import lazy_module
from ir_measures_graded.measures import base, params
from ir_measures_graded.measures.thresholded import ThresholdedMeasure

kernels = lazy_module("ir_measures_graded.kernels")  # numpy loads when a value is computed


class _muR(ThresholdedMeasure):
    """
    µR@k, recall at k over multi-graded relevance: the paper's Eq. 4 applied to recall.

    R@k is computed at every threshold t of the query (the documents with label >= t among the
    first k, divided by all R_q^t judged documents with label >= t; exactly ``R(rel=t)@k`` for
    integer labels) and combined like µAP, weighted by the distance between successive thresholds:

    .. math::

        \\mu R@k_q = \\frac{\\sum_{t \\in L_q} d_t \\cdot R@k_q^t}{\\sum_{t \\in L_q} d_t}

    With binary judgments µR@k equals R@k. The cutoff is required (``muR@100``). ``levels``,
    ``weights`` and ``floor`` as for µAP.

    """
    __name__ = 'muR'
    ALIASES = ('muRecall', 'μR', 'μRecall')
    PRETTY_NAME = 'µRecall at k'
    AT_THRESHOLD = 'R'
    SHORT_DESC = 'R@k at every relevance threshold, averaged with weights by the distance between thresholds.'
    SUPPORTED_PARAMS = {**ThresholdedMeasure.SUPPORTED_PARAMS, 'cutoff': params.CUTOFF_REQUIRED}

    def values_at_thresholds(self, judgments, ranking, thr_ptr, reached, relevant):
        import numpy as np
        k = self.value('cutoff')
        precision = kernels.thresholded_precision(ranking.query, ranking.rank, reached, thr_ptr, k,
                                                  self.tie_groups(ranking))
        return np.divide(precision * k, relevant, out=np.zeros(len(relevant)), where=relevant > 0)


muR = base.register(_muR())
muRecall = μR = μRecall = muR

__all__ = ['muR', 'muRecall', 'μR', 'μRecall']
