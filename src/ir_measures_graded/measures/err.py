"""ERR, expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009)."""

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.lazy import lazy_module
from ir_measures_graded.measures import base, params

kernels = lazy_module("ir_measures_graded.kernels")  # numpy loads when a value is computed


class _gERR(base.GradedMeasure):
    """
    gERR@k, expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, 2009) for any label scale.

    A user scans the ranking from the top and stops at rank r, satisfied, with probability
    :math:`R_r = (2^{x_r} - 1) / 2^{g_{max}}`; ERR is the expected reciprocal of that rank:

    .. math::

        gERR@k_q = \\sum_{r=1}^{k} \\frac{1}{r} R_r \\prod_{i<r} (1 - R_i)

    with :math:`x_r` the grade of the document at rank r: label − ``floor`` (negative or unjudged
    → 0; after the optional ``gains`` mapping). ``g_max`` is the scale's top (default 4, as gdeval's
    ``MAX_JUDGMENT``); a grade above it is refused, as gdeval does. ``norm='query'`` maps the
    query's highest grade to ``g_max`` (:math:`x = g_{max} \\cdot g / m_q`, as NDCNG normalises),
    which makes the value independent of the rating scale; ``'collection'`` or a number does the
    same with the qrels' highest grade or the given top. Named ``gERR`` because ``ERR`` in
    ir_measures is gdeval's (integer labels 0-4, numeric query ids, Perl). At the defaults the
    values are gdeval's wherever the run's scores rank the documents alike in float32 and in double
    precision: gERR ranks as trec_eval does (scores rounded to float32, ties by doc id descending),
    gdeval compares Perl's doubles (ties by doc id descending too), so scores that differ only
    below float32's precision (0.1 and 0.1 + 1e-12) are a tie here and ordered by score there, and
    the values can differ. Ties: no closed form for the expected value over tie orders is used,
    so ``ties='expected'`` is refused.

    O. Chapelle, D. Metzler, Y. Zhang, P. Grinspan. Expected Reciprocal Rank for Graded Relevance.
    CIKM 2009.
    """
    __name__ = 'gERR'
    PRETTY_NAME = 'Expected Reciprocal Rank (any label scale)'
    SHORT_DESC = 'ERR: expected reciprocal rank at which a cascade user stops, satisfied (Chapelle et al.).'
    SUPPORTED_PARAMS = {
        **params.GAINED,
        'g_max': params.ScaleTop("the scale's top grade: stopping probability (2^x - 1) / 2^g_max", default=4.0,
                                 unless='norm'),
        'norm': params.Norm(default=None, desc="grade normaliser m: the grade is g_max * g / m (default: g itself)"),
    }

    def check(self, values):
        if values['ties'] == 'expected':
            raise GradedInputError(
                "gERR: ties='expected' is not available: ERR's expected value over every order of tied documents "
                "has no closed form here, and it is not approximated; use ties='first' (trec_eval's order)")

    def grade(self, judgments, query, label):
        """x: the grade of each (query code, label) pair, checked against g_max over the whole qrels."""
        import numpy as np

        from ir_measures_graded import derived  # here: numpy loads when a value is computed
        norm, g_max = self.value('norm'), self.value('g_max')
        gain = derived.GainFunction(judgments, self.value('gains'), self.value('floor'), norm, exponential=False,
                                    measure=str(self))

        def grades(query, label):
            if norm is not None:  # g / m is scale-free
                return gain(query, label) * g_max
            # label - floor itself: the gain function scales a query's huge gains (#35.1), but a grade
            # is compared with g_max, a number on the labels' scale (beyond float64: inf, refused)
            with np.errstate(over="ignore"):
                return gain(query, label) / gain.factor_of(query)

        def highest():
            x = grades(judgments.query, judgments.label)
            return int(np.argmax(x)) if len(x) else -1, float(x.max(initial=0.0))

        row, top = judgments.cached(('err_top_grade', gain.key, g_max), highest)
        if top > g_max:
            raise GradedInputError(
                f"{self}: label {judgments.label[row]:g} of query {judgments.query_id(row)}, "
                f"document {judgments.doc_id(row)} gives grade {top:g} above g_max={g_max:g} (a stopping "
                f"probability above 1); set g_max to the scale's top (g_max={top:g}) or use norm='query'")
        return grades(query, label)

    def per_query(self, judgments, ranking):
        import numpy as np

        from ir_measures_graded.kernels import cascade  # numpy loads when a value is computed
        g_max = self.value('g_max')
        stop = np.exp2(self.grade(judgments, ranking.query, ranking.label) - g_max) - np.exp2(-g_max)
        ptr = kernels.segment_ptr(ranking.query, judgments.n_queries)
        return cascade.err(ranking.query, ranking.rank, stop, ptr, self.value('cutoff'))


gERR = base.register(_gERR())

__all__ = ['gERR']
