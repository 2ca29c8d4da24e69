"""A query's value depends only on its own query and the measure's parameters (issue #35.1), and Q
takes any finite β with any gains (issue #35.2).

Gains beyond 2^900 are rescaled by a power of two so that sums of them stay finite; that must never
move another query's value (it did for Q, whose formula adds gains to counts, and for gERR, whose
grades are compared with ``g_max``).
"""

from __future__ import annotations

import math

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_measures_graded import GAP, GradedInputError, Q, gERR, gRBP, gRBP_residual, meanNDCG, meanNDCNG, nDCNG
from ir_measures_graded.measures.base import all_measures
from support import reference
from support.warned import no_warning

HUGE = st.floats(min_value=2.0**900, max_value=1.7e308)


def per_query(measures: list, qrels: dict, run: dict) -> dict:
    with no_warning():  # no numpy warning on the way to a value
        return {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, qrels, run)}


def test_the_issues_q_example():
    run = {"q1": {"d2": 2.0, "d1": 1.0}}
    alone = {"q1": {"d1": 1, "d2": 0}}
    with_huge = {**alone, "q2": {"d3": 1e300}}
    for measure, value in ((Q, 2 / 3), (Q(beta=2), 3 / 4)):
        assert per_query([measure], alone, run)[(str(measure), "q1")] == pytest.approx(value, abs=1e-15)
        assert per_query([measure], with_huge, run)[(str(measure), "q1")] == pytest.approx(value, abs=1e-15)


def test_gerr_grades_are_never_rescaled():
    run = {"q": {"a": 1.0}}
    measure = gERR(g_max=1e300)
    # the label 1e300 at rank 1 with g_max = 1e300: stopping probability (2^x - 1) / 2^g_max = 1
    assert per_query([measure], {"q": {"a": 1e300}}, run)[(str(measure), "q")] == 1.0
    # a label above g_max is refused, and the message shows its own grade, not a rescaled one
    with pytest.raises(GradedInputError, match=r"label 1e\+301 of query q, document a gives grade 1e\+301 above "
                                               r"g_max=1e\+300.*\(g_max=1e\+301\)"):
        per_query([measure], {"q": {"a": 1e301}}, run)
    with pytest.raises(GradedInputError, match=r"gives grade 1e\+301 above g_max=1e\+300"):
        per_query([measure], {"q": {"a": 2}, "q2": {"b": 1e301}}, run)


def measures_to_check() -> list:
    """Every registered measure at its defaults, and variants whose gains meet the rescaling, each
    that reads nothing of other queries (``uses_collection``: those read the whole qrels by design)."""
    variants = [Q(beta=2), Q(beta=0.5), Q(beta=1e300), Q(floor=-1), Q(ties="expected"), Q(gains={5: 1e300}) @ 3,
                gERR(g_max=1e300), gERR(norm="query"), gRBP(norm="query"), gRBP_residual(norm="query"), nDCNG(dcg="log2"),
                meanNDCG(dcg="log2") @ 3, meanNDCNG(norm="query"), GAP(probs={1: 0.5, 2: 0.25, 3: 0.25}),
                nDCNG(gains={5: 1e300}, dcg="log2")]
    # gERR at g_max=4 refuses the other query's label (above g_max: g_max speaks of the whole qrels)
    defaults = [m for m in all_measures() if m.NAME != "gERR"]
    return [m for m in defaults + variants if not m.uses_collection()]


def test_the_list_covers_every_registered_measure():
    names = {m.NAME for m in measures_to_check()}
    assert names == {m.NAME for m in all_measures()}


LABELS = st.sampled_from([0, 1, 2, 3, 4, 0.5, 2.5])


@st.composite
def one_query(draw) -> tuple[dict, dict]:
    n = draw(st.integers(1, 6))
    labels = draw(st.lists(LABELS, min_size=n, max_size=n))
    judged = {f"d{i}": label for i, label in enumerate(labels)}
    docs = draw(st.lists(st.sampled_from([*judged, "u1", "u2"]), min_size=1, max_size=8, unique=True))
    scores = draw(st.lists(st.integers(0, 3), min_size=len(docs), max_size=len(docs)))  # ties too
    return judged, {d: float(s) for d, s in zip(docs, scores, strict=True)}


@settings(max_examples=25, deadline=None)
@given(one_query(), HUGE, st.booleans(), st.booleans())
def test_a_query_value_is_the_same_beside_a_query_with_a_huge_label(query, huge, q2_ranked, mapped):
    judged, ranked = query
    alone_qrels, run = {"q1": judged}, {"q1": ranked}
    # the other query: a huge label, or a label the gains map to a huge gain (Q(gains={5: ...}))
    other = {"x": 5 if mapped else min(huge, 1e300), "y": 1}
    together_qrels = {**alone_qrels, "q2": other}
    if q2_ranked:
        run = {**run, "q2": {"x": 1.0, "y": 2.0}}
    measures = measures_to_check()
    alone = per_query(measures, alone_qrels, run)
    together = per_query(measures, together_qrels, run)
    for measure in measures:
        key = (str(measure), "q1")
        assert together[key] == alone[key], key


# --- 2. any finite beta --------------------------------------------------------------------------------

def test_huge_beta_with_one_relevant_document_at_rank_1():
    run = {"q": {"a": 1.0, "b": 0.5}}
    for label in (1, 2, 1e10, 1e300, 1.7e308):
        for ties in ("first", "expected"):
            measure = Q(beta=1e300, ties=ties)
            assert per_query([measure], {"q": {"a": label, "b": 0}}, run)[(str(measure), "q")] == 1.0, label


BETA = st.one_of(st.sampled_from([0.0, 1.0, 2.0, 1e300, 1.7e308, 5e-324]),
                 st.floats(min_value=0.0, max_value=1.7e308, allow_nan=False, allow_infinity=False))
GAIN_LABELS = st.one_of(LABELS, st.sampled_from([1e10, 1e300, 1.7e308, 1e-300]), HUGE)


@settings(max_examples=60, deadline=None)
@given(BETA, st.lists(GAIN_LABELS, min_size=1, max_size=6), st.data())
def test_any_beta_and_gains_equal_the_exact_reference(beta, labels, data):
    judged = {f"d{i}": label for i, label in enumerate(labels)}
    docs = data.draw(st.lists(st.sampled_from([*judged, "u"]), min_size=1, max_size=7, unique=True))
    run = {"q": {d: float(len(docs) - i) for i, d in enumerate(docs)}}
    cutoff = data.draw(st.sampled_from([None, 2]))
    measure = Q(beta=beta) if cutoff is None else Q(beta=beta) @ cutoff
    got = per_query([measure], {"q": judged}, run)[(str(measure), "q")]
    expected = reference.q_measure({"q": judged}, run, "q", cutoff=cutoff, beta=beta)
    assert math.isfinite(got) and got == pytest.approx(expected, rel=1e-9, abs=1e-12)
