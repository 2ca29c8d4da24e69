"""Tie-aware expected values (kernels/ties.py) against brute-force enumeration of tie orders."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_measures_graded import GradedInputError
from ir_measures_graded.kernels.ties import expected_ap, group_mean, tie_group_ptr
from support import registered
from support.examples import examples
from support.measure_checks import TIE_EXAMPLES, assert_ties_expected, orders, tied_rows


def ap(relevant, n_relevant, cutoff):
    hits, total = 0, 0.0
    for rank, rel in enumerate(relevant, 1):
        if cutoff is not None and rank > cutoff:
            break
        if rel:
            hits += 1
            total += hits / rank
    return total / n_relevant if n_relevant else 0.0


def dcg(gains, cutoff):
    return sum(g / np.log2(rank + 1) for rank, g in enumerate(gains, 1) if cutoff is None or rank <= cutoff)


ranked_lists = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=7).map(
    lambda rows: sorted(rows, key=lambda r: -r[0])  # (score key, label), by score descending
)


@settings(max_examples=150, deadline=None)
@given(ranked_lists, st.integers(0, 3), st.one_of(st.none(), st.integers(1, 8)))
def test_expected_ap_equals_the_mean_over_all_tie_orders(rows, unretrieved, cutoff):
    keys = [k for k, _ in rows]
    relevant = [lab > 0 for _, lab in rows]
    n_relevant = sum(relevant) + unretrieved
    brute = [ap([relevant[i] for i in order], n_relevant, cutoff) for order in orders(keys)]
    query = np.zeros(len(rows), dtype=np.int64)
    ptr = tie_group_ptr(query, np.array(keys))
    got = expected_ap(query, np.arange(1, len(rows) + 1), np.array(relevant), ptr,
                      np.array([n_relevant], dtype=np.float64), cutoff)
    assert got[0] == pytest.approx(np.mean(brute), abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(ranked_lists, st.one_of(st.none(), st.integers(1, 8)))
def test_group_mean_gives_the_expected_dcg(rows, cutoff):
    keys = [k for k, _ in rows]
    gains = np.array([2.0 ** lab - 1 for _, lab in rows])
    brute = np.mean([dcg([gains[i] for i in order], cutoff) for order in orders(keys)])
    ptr = tie_group_ptr(np.zeros(len(rows), dtype=np.int64), np.array(keys))
    assert dcg(group_mean(gains, ptr), cutoff) == pytest.approx(brute, abs=1e-12)


def test_groups_stop_at_query_boundaries():
    ptr = tie_group_ptr(np.array([0, 0, 1, 1, 1]), np.array([5, 5, 5, 4, 4]))
    assert ptr.tolist() == [0, 2, 3, 5]
    assert group_mean(np.array([1.0, 0, 1, 1, 0]), ptr).tolist() == [0.5, 0.5, 1, 0.5, 0.5]


def test_two_queries_at_once():
    query = np.array([0, 0, 0, 1, 1])
    keys = np.array([1, 1, 0, 3, 3])
    relevant = np.array([True, False, True, False, True])
    ptr = tie_group_ptr(query, keys)
    got = expected_ap(query, np.array([1, 2, 3, 1, 2]), relevant, ptr, np.array([2.0, 1.0]))
    # query 0: orders (R,N,R) -> (1 + 2/3)/2 and (N,R,R) -> (1/2 + 2/3)/2; query 1: (N,R) 1/2, (R,N) 1
    assert got.tolist() == pytest.approx([((1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 2, 0.75])


def precision(relevant, cutoff):
    return sum(relevant[:cutoff]) / cutoff


multi_level_lists = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), min_size=1, max_size=6).map(
    lambda rows: sorted(rows, key=lambda r: -r[0])
)


@settings(max_examples=150, deadline=None)
@given(st.lists(multi_level_lists, min_size=1, max_size=3), st.one_of(st.none(), st.integers(1, 7)))
def test_expected_thresholded_ap_and_precision_over_all_tie_orders(queries, cutoff):
    from ir_measures_graded.kernels.ties import expected_thresholded_ap, expected_thresholded_precision

    # thresholds of each query: 1..3 (flat, query after query); a row's level = its label
    thr_ptr = np.arange(len(queries) + 1, dtype=np.int64) * 3
    query = np.concatenate([np.full(len(rows), q) for q, rows in enumerate(queries)])
    keys = np.concatenate([[k for k, _ in rows] for rows in queries])
    level = np.concatenate([[lab for _, lab in rows] for rows in queries]).astype(np.int64)
    rank = np.concatenate([np.arange(1, len(rows) + 1) for rows in queries])
    n_relevant = np.array([sum(lab >= t for _, lab in rows) + 1 for rows in queries for t in (1, 2, 3)], float)
    ptr = tie_group_ptr(query, keys)
    got_ap = expected_thresholded_ap(query, rank, level, thr_ptr, n_relevant, ptr, cutoff)
    k = cutoff or 3
    got_p = expected_thresholded_precision(query, rank, level, thr_ptr, ptr, k)
    for q, rows in enumerate(queries):
        for t in (1, 2, 3):
            flat = 3 * q + t - 1
            relevant = [lab >= t for _, lab in rows]
            tie_orders = list(orders([key for key, _ in rows]))
            brute_ap = np.mean([ap([relevant[i] for i in o], n_relevant[flat], cutoff) for o in tie_orders])
            brute_p = np.mean([precision([relevant[i] for i in o], k) for o in tie_orders])
            assert got_ap[flat] == pytest.approx(brute_ap, abs=1e-12)
            assert got_p[flat] == pytest.approx(brute_p, abs=1e-12)


# --- through the provider: every measure with ties='expected' is the mean over all tie orders -------

def tie_aware(measure) -> bool:
    """Does ``measure`` compute ties='expected'? A measure without a closed form refuses it, saying so."""
    try:
        measure(ties="expected").validate_params()
    except GradedInputError as e:
        assert "ties='expected'" in str(e) and "not approximated" in str(e), str(e)
        return False
    return True


#: Every registered measure (whole ranking, at cutoffs, judged documents only) that is tie-aware.
TIE_AWARE = [m for m in [*registered.instances(cutoff=2), *registered.with_cutoff(3),
                         *(m(judged_only=True) for m in registered.instances(cutoff=2))] if tie_aware(m)]


@settings(max_examples=examples(40), deadline=None)
@given(tied_rows, st.integers(0, 2))
def test_ties_expected_is_the_mean_over_every_order_of_tied_documents(rows, unretrieved):
    assert len(TIE_AWARE) >= 2 * len(registered.instances()) and "ties" in TIE_AWARE[0].SUPPORTED_PARAMS
    for measure in TIE_AWARE:
        assert_ties_expected(measure, rows, unretrieved)


@pytest.mark.parametrize("rows, unretrieved", TIE_EXAMPLES)
@pytest.mark.parametrize("measure", [m for m in TIE_AWARE if not m.params.get("judged_only")], ids=str)
def test_ties_expected_examples_for_every_tie_aware_measure(measure, rows, unretrieved):
    # the fast subset's share of the property test above: fixed cases, every measure and cutoff
    assert_ties_expected(measure, rows, unretrieved)


def test_ties_parameter_prints_parses_and_defaults_to_trec_eval_order():
    import ir_measures

    from ir_measures_graded import muAP

    m = muAP(ties="expected")
    assert ir_measures.parse_measure(str(m)) == m and str(muAP(ties="first")) == "muAP"
    with pytest.raises(ValueError, match="expected"):
        muAP(ties="random").validate_params()


def test_no_rows_give_zeros_and_empty_groups():
    from ir_measures_graded.kernels.ties import expected_thresholded_ap, expected_thresholded_precision

    empty = np.zeros(0, dtype=np.int64)
    no_groups = tie_group_ptr(empty, empty)
    assert no_groups.tolist() == [0]
    assert group_mean(np.zeros(0), no_groups).tolist() == []
    assert expected_ap(empty, empty, np.zeros(0, dtype=bool), no_groups, np.array([2.0, 0.0, 1.0])).tolist() == [0, 0, 0]
    thr_ptr = np.array([0, 2, 3])
    assert expected_thresholded_ap(empty, empty, empty, thr_ptr, np.ones(3), no_groups).tolist() == [0, 0, 0]
    assert expected_thresholded_precision(empty, empty, empty, thr_ptr, no_groups, 5).tolist() == [0, 0, 0]


def test_queries_rank_independently_and_queries_without_rows_score_zero():
    # query 0 and 1 each have several tie groups; query 2 has relevant documents but no row
    rows = {0: ([2, 2, 1, 1, 0], [True, False, False, True, True]), 1: ([5, 3, 3, 1], [False, True, False, True])}
    n_relevant = np.array([4.0, 3.0, 3.0])
    query = np.concatenate([np.full(len(keys), q) for q, (keys, _) in rows.items()])
    keys = np.concatenate([keys for keys, _ in rows.values()])
    relevant = np.concatenate([rel for _, rel in rows.values()])
    rank = np.concatenate([np.arange(1, len(k) + 1) for k, _ in rows.values()])
    got = expected_ap(query, rank, relevant, tie_group_ptr(query, keys), n_relevant)
    for q, (k, rel) in rows.items():
        brute = np.mean([ap([rel[i] for i in order], n_relevant[q], None) for order in orders(k)])
        assert got[q] == pytest.approx(brute, abs=1e-12)
    assert got[2] == 0.0 and len(got) == 3


@pytest.mark.parametrize("text, expected", [
    ("muAP", (1 + 0.5) / 2),  # the relevant document first or second: AP 1 or 1/2
    ("muP@1", 0.5),
    ("nDCNG@1", 0.5),  # the ideal ranking puts the relevant document first
    ("GAP", (1 + 0.5) / 2),  # one grade: GAP is AP
])
def test_ties_expected_by_hand_through_the_provider(text, expected):
    import ir_measures

    import ir_measures_graded  # noqa: F401

    qrels = {"q": {"rel": 1, "non": 0}, "absent": {"a": 2}}
    run = {"q": {"rel": 1.0, "non": 1.0, "unjudged": 0.5}}
    measure = ir_measures.parse_measure(text)(ties="expected")
    got = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    assert got == pytest.approx({"q": expected, "absent": 0.0})
