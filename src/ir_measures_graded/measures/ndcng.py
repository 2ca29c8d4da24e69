"""NDCNG@k (Scheel, Lommatzsch & Albayrak, 2011, Eq. 5)."""

from ir_measures_graded.measures import base, params
from ir_measures_graded.measures.gained import GainedMeasure


class _nDCNG(GainedMeasure):
    """
    NDCNG@k, the Normalized Discounted Cumulative Normalized Gain (Scheel, Lommatzsch & Albayrak, 2011, Eq. 5).

    nDCG whose gains are divided by the query's highest reachable gain before the exponential gain
    is applied, so the value does not depend on the rating scale (multiplying every label by c > 0
    leaves it unchanged):

    .. math::

        NDCNG@k_q = N_k^q \\sum_{i=1}^{k} \\frac{2^{g_i / m_q} - 1}{\\log_2(i + 1)}

    with :math:`g_i` = label - ``floor`` (negative -> 0; after the optional ``gains`` mapping),
    :math:`m_q` the highest g among the query's judgments (``norm='query'``; :math:`m_q \\le 0`
    gives gain 0) and :math:`N_k^q` scaling the ideal ranking's DCG@k to 1. ``dcg='log2'`` uses the
    linear gain :math:`g_i / m_q` instead; the normaliser then cancels and NDCNG equals ``nDCG``.

    """
    __name__ = 'nDCNG'
    ALIASES = ('NDCNG',)
    PRETTY_NAME = 'Normalised Discounted Cumulative Normalised Gain'
    SHORT_DESC = 'nDCG with each gain divided by the highest reachable gain, independent of the rating scale.'
    SUPPORTED_PARAMS = {**GainedMeasure.SUPPORTED_PARAMS, 'norm': params.NORM}
    KERNEL = 'ndcg'


nDCNG = base.register(_nDCNG())
NDCNG = nDCNG

__all__ = ['nDCNG', 'NDCNG']
