"""GAP, graded average precision (Robertson, Kanoulas & Yilmaz, SIGIR 2010)."""


from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.lazy import lazy_module
from ir_measures_graded.measures import base, params

kernels = lazy_module("ir_measures_graded.kernels")


class _GAP(base.GradedMeasure):
    """
    GAP, graded average precision (Robertson, Kanoulas & Yilmaz, 2010).

    A user's threshold is t with probability g_t ("relevant means label >= t"). With c_n the
    number of thresholds the label of the document at rank n reaches, and
    :math:`\\delta_{m,n} = \\sum_{j \\le \\min(c_m, c_n)} g_j` the probability that the documents
    at ranks m and n are both relevant to the user:

    .. math::

        GAP_q = \\frac{\\sum_{n \\le k,\\, c_n > 0} \\frac{1}{n} \\sum_{m \\le n} \\delta_{m,n}}
                     {\\sum_{d \\in J_q} \\sum_{j \\le c_d} g_j}

    where the denominator runs over all judged documents of q (retrieved or not). Equivalently
    (computed so): :math:`GAP_q = \\sum_t g_t R_q^t AP_q^t / \\sum_t g_t R_q^t`, with R_q^t the
    judged documents with label >= t. With one relevance grade GAP equals AP. ``probs`` defaults
    to equal probability for every label above ``floor`` found in the qrels (the collection's
    grades); labels may be real numbers. A query with no label above the floor scores 0.

    S. Robertson, E. Kanoulas, E. Yilmaz. Extending Average Precision to Graded Relevance
    Judgments. SIGIR 2010.
    """
    __name__ = 'GAP'
    PRETTY_NAME = 'Graded Average Precision'
    SHORT_DESC = 'AP for graded relevance: the expected AP of a user whose threshold is random (probs).'
    SUPPORTED_PARAMS = {**params.RANKING, 'floor': params.FLOOR, 'probs': params.PROBABILITIES}

    def check(self, values):
        probs = values['probs']
        if probs != 'uniform' and probs[0][0] <= values['floor']:
            raise GradedInputError(f"GAP: probs={self.params['probs']!r} must give thresholds above floor="
                                   f"{self.params.get('floor', 0)!r} (labels <= floor are irrelevant)")

    def per_query(self, judgments, ranking):
        import numpy as np

        from ir_measures_graded import derived  # here: numpy loads when a value is computed
        floor = self.value('floor')
        thr_ptr, thr_values = derived.thresholds(judgments, 'query', floor)
        relevant = derived.relevant_counts(judgments, 'query', floor)
        probs = self.value('probs')
        if probs == 'uniform':
            grades = derived.collection_labels(judgments, floor)
            cumulative = np.arange(len(grades) + 1) / max(len(grades), 1)
        else:
            grades = np.array([t for t, _ in probs])
            cumulative = np.concatenate(([0.0], np.cumsum([p for _, p in probs])))
        # A query threshold t stands for the user thresholds in (the query's threshold below t, t]:
        # they select the same relevant documents. Their probability is a distance on the cumulative scale.
        at_or_below = cumulative[np.searchsorted(grades, thr_values, side='right')]
        g = kernels.level_weights(thr_ptr, at_or_below, 0.0, 'distance')
        reached = kernels.level_of_rows(ranking.query, ranking.label, thr_ptr, thr_values)
        ap = kernels.thresholded_ap(ranking.query, ranking.rank, reached, thr_ptr, relevant, self.value('cutoff'),
                                    self.tie_groups(ranking))
        return kernels.segment_weighted_mean(ap, g * relevant, thr_ptr)


GAP = base.register(_GAP())

__all__ = ['GAP']
