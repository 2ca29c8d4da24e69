"""The Q-measure (Sakai 2004; Sakai & Kando 2008)."""

from ir_measures_graded.measures import base, params


class _Q(base.GradedMeasure):
    """
    Q-measure, AP with graded gains and a blended ratio (Sakai 2004; Sakai & Kando 2008).

    .. math::

        Q_q = \\frac{1}{R} \\sum_{r \\le k} isrel(r) \\frac{\\beta \\, cg(r) + count(r)}{\\beta \\, cg^*(r) + r}

    where :math:`cg(r)` is the run's cumulative gain at rank r, :math:`cg^*(r)` that of the ideal
    ranking (the query's judged documents by gain, descending; it stays at its total beyond R),
    :math:`count(r)` the relevant documents up to r, :math:`isrel(r)` 1 when the document at r has
    a positive gain, and R the query's judged documents with positive gain (retrieved or not: Q@k
    divides by R, as trec_eval's AP@k). The gain of a label is label − ``floor`` (negative → 0)
    after the optional ``gains`` mapping (Sakai's per-grade gains, e.g. ``gains={1:1,2:2,3:3}``).
    ``beta`` (β ≥ 0, default 1; any finite value) is the persistence of the blended ratio; β = 0
    gives AP exactly (relevant = label above the floor). Only β = 0 does: on binary labels Q with
    β > 0 is not AP (β = 1, one relevant document at rank 3: Q = (1 + 1) / (1 + 3) = 0.5, AP = 1/3).
    A query without relevant documents scores 0.

    T. Sakai. New Performance Metrics based on Multigrade Relevance: Their Application to Question
    Answering. NTCIR-4, 2004. T. Sakai, N. Kando. On Information Retrieval Metrics Designed for
    Evaluation with Incomplete Relevance Assessments. Information Retrieval 11(5), 2008.
    """
    __name__ = 'Q'
    ALIASES = ('Qmeasure',)
    PRETTY_NAME = 'Q-measure'
    SHORT_DESC = ('Graded gains in an AP-like sum: the blended ratio of cumulative gain to the ideal (Sakai); '
                  'AP at beta=0 only.')
    SUPPORTED_PARAMS = {
        **params.GAINED,
        'beta': params.Number("persistence β of the blended ratio (0: AP)", default=1.0, low=0.0,
                              closed=(True, False)),
    }

    def per_query(self, judgments, ranking):
        from ir_measures_graded import derived  # here: numpy loads when a value is computed
        from ir_measures_graded.kernels import q as q_kernels  # numpy loads when a value is computed
        gain = derived.GainFunction(judgments, self.value('gains'), self.value('floor'), None, exponential=False,
                                    measure=str(self))

        def relevant(label):  # a positive gain, judged before any rescaling (a tiny gain may round to 0 there)
            return derived.mapped_labels(label, gain.gains) > gain.floor

        ideal_ptr, ideal_cum = judgments.cached(
            ('ideal_cumulative_gain', gain.gains, gain.floor),
            lambda: derived.read_only(q_kernels.ideal_cumulative_gain(
                judgments.query, gain(judgments.query, judgments.label), judgments.n_queries,
                relevant(judgments.label))))
        # gains on each query's own scale (huge labels): the kernel undoes it, Q adds gains to counts
        return q_kernels.q_measure(ranking.query, ranking.rank, gain(ranking.query, ranking.label), ideal_ptr,
                                   ideal_cum, self.value('beta'), self.value('cutoff'), self.tie_groups(ranking),
                                   gain_scale=gain.factors(), row_relevant=relevant(ranking.label))

Q = base.register(_Q())
Qmeasure = Q

__all__ = ['Q', 'Qmeasure']
