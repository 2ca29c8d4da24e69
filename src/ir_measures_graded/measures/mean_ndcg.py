"""meanNDCG and meanNDCNG: nDCG@n and NDCNG@n averaged over n = 1 ... N (LETOR; Scheel et al. 2011, Table 2)."""

from ir_measures_graded.measures import base, params
from ir_measures_graded.measures.gained import GainedMeasure


class _meanNDCG(GainedMeasure):
    """
    Mean NDCG: the mean of nDCG@1 ... nDCG@N with the exponential gain 2^label - 1.

    N is the cutoff if given, else the length of the query's ranking. This is LETOR's MeanNDCG and
    the "mean" column of Table 2 / the "mean NDCG" of Figures 4-8 in Scheel, Lommatzsch &
    Albayrak (2011):

    .. math::

        meanNDCG_q = \\frac{1}{N} \\sum_{n=1}^{N} N_n^q \\sum_{i=1}^{n} \\frac{2^{g_i} - 1}{\\log_2(i + 1)}

    with :math:`g_i` = label - ``floor`` (negative -> 0; after the optional ``gains`` mapping).
    Unlike meanNDCNG its value changes with the rating scale.

    """
    __name__ = 'meanNDCG'
    PRETTY_NAME = 'Mean of nDCG@1..N'
    SHORT_DESC = 'The mean of nDCG@1 ... nDCG@N over ranks, with exponential gain (LETOR MeanNDCG).'

    KERNEL = 'mean_ndcg'  # the mean of nDCG@1..N


class _meanNDCNG(GainedMeasure):
    """
    Mean NDCNG: the mean of NDCNG@1 ... NDCNG@N (Scheel, Lommatzsch & Albayrak, 2011, Eq. 5; Table 2, Figs. 4-8).

    N is the cutoff if given, else the length of the query's ranking; gains are normalised by the
    query's highest reachable gain as in NDCNG:

    .. math::

        meanNDCNG_q = \\frac{1}{N} \\sum_{n=1}^{N} NDCNG@n(q)

    """
    __name__ = 'meanNDCNG'
    PRETTY_NAME = 'Mean of NDCNG@1..N'
    SHORT_DESC = 'The mean of NDCNG@1 ... NDCNG@N over ranks; independent of the rating scale.'
    SUPPORTED_PARAMS = {**GainedMeasure.SUPPORTED_PARAMS, 'norm': params.NORM}

    KERNEL = 'mean_ndcg'  # the mean of nDCG@1..N


meanNDCG = base.register(_meanNDCG())
meanNDCNG = base.register(_meanNDCNG())

__all__ = ['meanNDCG', 'meanNDCNG']
