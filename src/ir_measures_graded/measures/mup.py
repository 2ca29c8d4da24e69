from ir_measures_graded.measures import base


class _muP(base.GradedMeasure):
    """
    µP@k, precision at k over multi-graded relevance (Scheel, Lommatzsch & Albayrak, 2011, Sec. 1 and 3.1).

    P@k is computed at every relevance level t of the query ("relevant" meaning label >= t; exactly
    ``P(rel=t)@k`` for integer labels) and combined like µAP, weighted by the distance between
    successive levels:

    .. math::

        \\mu P@k_q = \\frac{\\sum_{t \\in L_q} d_t \\cdot P@k_q^t}{\\sum_{t \\in L_q} d_t}

    With binary judgments µP@k equals P@k. The cutoff is required (``muP@10``).

    C. Scheel, A. Lommatzsch, S. Albayrak. Performance Measures for Multi-Graded Relevance.
    Technische Universität Berlin, DAI-Labor, 2011.
    """
    __name__ = 'muP'
    NAME = __name__
    PRETTY_NAME = 'µPrecision at k'
    SHORT_DESC = 'P@k at every relevance level, averaged with weights by the distance between levels.'
    SUPPORTED_PARAMS = {
        'cutoff': base.CUTOFF_REQUIRED,
        'judged_only': base.JUDGED_ONLY,
        'levels': base.LEVELS,
        'weights': base.WEIGHTS,
        'floor': base.FLOOR,
    }


muP = _muP()
μP = muP
base.register(muP, ['μP'])
