"""µRprec: R-precision at every relevance threshold (the construction of Scheel et al. 2011, Eq. 4)."""

from ir_measures_graded.measures import base
from ir_measures_graded.measures.thresholded import ThresholdedMeasure


class _muRprec(ThresholdedMeasure):
    """
    µRprec, R-precision over multi-graded relevance: the paper's Eq. 4 applied to R-precision.

    Rprec is computed at every threshold t of the query (precision at depth R_q^t, the number of
    judged documents with label >= t; exactly ``Rprec(rel=t)`` for integer labels) and combined
    like µAP, weighted by the distance between successive thresholds:

    .. math::

        \\mu Rprec_q = \\frac{\\sum_{t \\in L_q} d_t \\cdot Rprec_q^t}{\\sum_{t \\in L_q} d_t}

    Each threshold has its own depth R_q^t. With binary judgments µRprec equals Rprec. ``levels``,
    ``weights`` and ``floor`` as for µAP.

    """
    __name__ = 'muRprec'
    ALIASES = ('muRPrec', 'μRprec', 'μRPrec')
    PRETTY_NAME = 'µR-Precision'
    AT_THRESHOLD = 'Rprec'
    SHORT_DESC = 'Rprec at every relevance threshold, averaged with weights by the distance between thresholds.'
    SUPPORTED_PARAMS = {k: v for k, v in ThresholdedMeasure.SUPPORTED_PARAMS.items() if k != 'cutoff'}  # depth R^t

    def values_at_thresholds(self, judgments, ranking, thr_ptr, reached, relevant):
        from ir_measures_graded.kernels import rprec  # numpy loads when a value is computed
        return rprec.thresholded_rprec(ranking.query, ranking.rank, reached, thr_ptr, relevant,
                                       self.tie_groups(ranking))


muRprec = base.register(_muRprec())
muRPrec = μRprec = μRPrec = muRprec

__all__ = ['muRprec', 'muRPrec', 'μRprec', 'μRPrec']
