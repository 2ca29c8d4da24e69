"""µRR: reciprocal rank at every relevance threshold (the construction of Scheel et al. 2011, Eq. 4)."""

from ir_measures_graded.measures import base
from ir_measures_graded.measures.thresholded import ThresholdedMeasure


class _muRR(ThresholdedMeasure):
    """
    µRR (mean: µMRR), reciprocal rank over multi-graded relevance: the paper's Eq. 4 applied to RR.

    RR is computed at every threshold t of the query ("relevant" meaning label >= t; exactly
    ``RR(rel=t)`` for integer labels) and combined like µAP, weighted by the distance between
    successive thresholds:

    .. math::

        \\mu RR_q = \\frac{\\sum_{t \\in L_q} d_t \\cdot RR_q^t}{\\sum_{t \\in L_q} d_t}

    With binary judgments µRR equals RR. ``cutoff`` counts only hits up to rank k; ``levels``,
    ``weights`` and ``floor`` as for µAP. Documents are ranked as trec_eval ranks them (scores
    rounded to float32, ties by doc id descending), which is what ir_measures' ``RR`` (pytrec_eval)
    does, but not its ``RR@k``: pytrec_eval has no cutoff for RR, so ir_measures serves ``RR@k``
    by its ``msmarco`` provider, which orders ties by doc id ascending on double scores. µRR@k on
    binary labels equals ``RR@k`` wherever the run has no such ties.

    """
    __name__ = 'muRR'
    ALIASES = ('muMRR', 'μRR', 'μMRR')
    PRETTY_NAME = 'µ(Mean) Reciprocal Rank'
    AT_THRESHOLD = 'RR'
    SHORT_DESC = 'RR at every relevance threshold, averaged with weights by the distance between thresholds.'

    def values_at_thresholds(self, judgments, ranking, thr_ptr, reached, relevant):
        from ir_measures_graded.kernels import first_hit  # numpy loads when a value is computed
        return first_hit.thresholded_rr(ranking.query, ranking.rank, reached, thr_ptr, self.value('cutoff'),
                                        self.tie_groups(ranking))


muRR = base.register(_muRR())
muMRR = μRR = μMRR = muRR

__all__ = ['muRR', 'muMRR', 'μRR', 'μMRR']
