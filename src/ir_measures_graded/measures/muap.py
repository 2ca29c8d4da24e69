from ir_measures_graded.measures import base


class _muAP(base.GradedMeasure):
    """
    µAP (mean: µMAP), average precision over multi-graded relevance (Scheel, Lommatzsch & Albayrak, 2011, Eq. 4).

    AP is computed at every relevance level t of the query, with "relevant" meaning label >= t, and
    the values are combined as a mean weighted by the distance between successive levels:

    .. math::

        \\mu AP_q = \\frac{\\sum_{t \\in L_q} d_t \\cdot AP_q^t}{\\sum_{t \\in L_q} d_t}

    where :math:`L_q` are the distinct labels above ``floor`` (``levels='query'``), :math:`AP_q^t`
    is AP with threshold t (exactly ``AP(rel=t)`` for integer labels) and :math:`d_t` the distance
    from t to the level below it (from ``floor`` for the lowest). With binary judgments µAP equals AP.
    Labels may be real numbers. A query with no label above ``floor`` scores 0, as AP does.

    C. Scheel, A. Lommatzsch, S. Albayrak. Performance Measures for Multi-Graded Relevance.
    Technische Universität Berlin, DAI-Labor, 2011.
    """
    __name__ = 'muAP'
    NAME = __name__
    PRETTY_NAME = 'µ(Mean) Average Precision'
    SHORT_DESC = 'AP at every relevance level, averaged with weights by the distance between levels.'
    SUPPORTED_PARAMS = {
        'cutoff': base.CUTOFF,
        'judged_only': base.JUDGED_ONLY,
        'levels': base.LEVELS,
        'weights': base.WEIGHTS,
        'floor': base.FLOOR,
    }


muAP = _muAP()
muMAP = muAP
μAP = muAP
μMAP = muAP
base.register(muAP, ['muMAP', 'μAP', 'μMAP'])
