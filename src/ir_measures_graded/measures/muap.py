"""µAP / µMAP (Scheel, Lommatzsch & Albayrak, 2011, Eq. 4)."""

from ir_measures_graded.lazy import lazy_module
from ir_measures_graded.measures import base
from ir_measures_graded.measures.thresholded import ThresholdedMeasure

kernels = lazy_module("ir_measures_graded.kernels")  # numpy loads when a value is computed


class _muAP(ThresholdedMeasure):
    """
    µAP (mean: µMAP), average precision over multi-graded relevance (Scheel, Lommatzsch & Albayrak, 2011, Eq. 4).

    AP is computed at every threshold t of the query, with "relevant" meaning label >= t, and the
    values are combined as a mean weighted by the distance between successive thresholds:

    .. math::

        \\mu AP_q = \\frac{\\sum_{t \\in L_q} d_t \\cdot AP_q^t}{\\sum_{t \\in L_q} d_t}

    where :math:`L_q` are the distinct labels above ``floor`` in q's judgments (``levels='query'``),
    :math:`AP_q^t` is AP with threshold t (exactly ``AP(rel=t)`` for integer labels; AP@k divides by
    all R_q^t judged documents with label >= t) and :math:`d_t` the distance from t to the threshold
    below it (to ``floor`` for the lowest). With binary judgments µAP equals AP. Labels may be real
    numbers. A query with no label above ``floor`` scores 0, as AP does.

    ``levels='collection'`` takes the qrels' labels as thresholds; per query this gives the same
    value, and the aggregate is the paper's collection-level µMAP (Figs. 6-8): the distance-weighted
    mean over t of MAP^t, the mean AP^t over the queries with R_q^t > 0.

    """
    __name__ = 'muAP'
    ALIASES = ('muMAP', 'μAP', 'μMAP')
    PRETTY_NAME = 'µ(Mean) Average Precision'
    AT_THRESHOLD = 'MAP'
    SHORT_DESC = 'AP at every relevance threshold, averaged with weights by the distance between thresholds.'


    def values_at_thresholds(self, judgments, ranking, thr_ptr, reached, relevant):
        return kernels.thresholded_ap(ranking.query, ranking.rank, reached, thr_ptr, relevant, self.value('cutoff'),
                                      self.tie_groups(ranking))


muAP = base.register(_muAP())
muMAP = μAP = μMAP = muAP

__all__ = ['muAP', 'muMAP', 'μAP', 'μMAP']
