"""Rank-biased precision with graded gains, and its residual (Moffat & Zobel, TOIS 2008)."""

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.lazy import lazy_module
from ir_measures_graded.measures import base, params

kernels = lazy_module("ir_measures_graded.kernels")


class RankBiasedMeasure(base.GradedMeasure):
    """What gRBP and its residual share: persistence ``p`` and gains in [0, 1]."""

    SUPPORTED_PARAMS = {
        **params.GAINED,
        'norm': params.Norm(default='collection'),
        'p': params.Number("persistence p: the probability of looking at the next document", default=0.8,
                           low=0.0, high=1.0),
    }

    def gain(self, judgments):
        """The gain function g / m, checked to lie in [0, 1] over the whole qrels."""
        from ir_measures_graded import derived  # here: numpy loads when a value is computed

        norm = self.value('norm')
        gain = derived.GainFunction(judgments, self.value('gains'), self.value('floor'), norm, exponential=False,
                                    measure=str(self))
        if isinstance(norm, float):
            top = judgments.cached(('rbp_top_gain', gain.key),
                                   lambda: float(gain(judgments.query, judgments.label).max(initial=0.0)))
            if top > 1.0:
                raise GradedInputError(
                    f"{self}: a gain reaches {top:g} > 1 with norm={norm:g}: RBP's gains lie in [0, 1], so norm must "
                    "be at least the highest (label - floor) of the qrels (or use norm='collection')")
        return gain

    def expected(self, values, ranking):
        """``values`` of the ranked rows, or with ``ties='expected'`` their tie group's mean."""
        groups = self.tie_groups(ranking)
        return values if groups is None else kernels.group_mean(values, groups)


class _gRBP(RankBiasedMeasure):
    """
    gRBP, rank-biased precision with graded gains (Moffat & Zobel, 2008).

    A user looks at the next document with probability p (``p``, default 0.8):

    .. math::

        gRBP@k_q = (1 - p) \\sum_{r=1}^{k} g_r \\, p^{r-1}

    with :math:`g_r` = (label − ``floor``) / m in [0, 1] (negative or unjudged → 0; after the
    optional ``gains`` mapping), m the highest label − floor in the qrels (``norm='collection'``,
    the scale's top), in the query (``'query'``) or a given number. How much the value could still
    rise from unjudged and unretrieved documents is its own measure, ``gRBP_residual``. Named
    ``gRBP`` because ``RBP`` in ir_measures has other parameters (``rel``) and providers.

    A. Moffat, J. Zobel. Rank-Biased Precision for Measurement of Retrieval Effectiveness.
    ACM TOIS 27(1), 2008.
    """
    __name__ = 'gRBP'
    PRETTY_NAME = 'Rank-Biased Precision (graded gains)'
    SHORT_DESC = 'RBP with graded gains label/top: the expected gain per document a persistent user sees.'

    def per_query(self, judgments, ranking):
        from ir_measures_graded.kernels import rbp as rbp_kernels  # numpy loads when a value is computed
        gain = self.gain(judgments)(ranking.query, ranking.label)
        return rbp_kernels.rbp(ranking.query, ranking.rank, self.expected(gain, ranking), judgments.n_queries,
                               self.value('p'), self.value('cutoff'))


class _gRBP_residual(RankBiasedMeasure):
    """
    gRBP_residual: how much gRBP could still rise (Moffat & Zobel, 2008, Sec. 4).

    The largest gain (1) for every unjudged document the user may see and for every document below
    the ranking evaluated:

    .. math::

        res@k_q = (1 - p) \\sum_{r \\le d,\\ r\\ unjudged} p^{r-1} + p^{d}

    with d the ranking's length (at most k). gRBP lies in [gRBP, gRBP + residual] whatever the
    missing judgments are. A query the run does not answer has residual 1. With
    ``judged_only=True`` unjudged documents are removed first, so only the tail remains.

    A. Moffat, J. Zobel. Rank-Biased Precision for Measurement of Retrieval Effectiveness.
    ACM TOIS 27(1), 2008.
    """
    __name__ = 'gRBP_residual'
    PRETTY_NAME = 'Residual of Rank-Biased Precision'
    SHORT_DESC = 'How much gRBP could still rise from unjudged and unretrieved documents (its uncertainty).'
    DEFAULT = 1.0  # a query the run does not answer: everything is unknown

    def per_query(self, judgments, ranking):
        import numpy as np

        from ir_measures_graded.kernels import rbp as rbp_kernels  # numpy loads when a value is computed
        self.gain(judgments)  # the same checks as gRBP
        unknown = self.expected(np.isnan(ranking.label).astype(np.float64), ranking)
        return rbp_kernels.rbp_residual(ranking.query, ranking.rank, unknown, judgments.n_queries, self.value('p'),
                                        self.value('cutoff'))

    def results(self, judgments, ranking):
        """Every judged query: one the run does not answer has residual 1 (every driver sees it so)."""
        yield from enumerate(self.per_query(judgments, ranking).tolist())


gRBP = base.register(_gRBP())
gRBP_residual = base.register(_gRBP_residual())

__all__ = ['gRBP', 'gRBP_residual']
