"""Hostile shapes inside the core (issue 21): shared evaluators, lazy loading under threads, bounded
cost for real-valued labels with ties / collection-wide levels, colliding long ids, extreme labels.

Memory bounds are checked with tracemalloc (numpy reports its buffers to it): a peak, not a time.
"""

from __future__ import annotations

import itertools
import math
import re
import sys
import textwrap
import threading
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ir_measures_graded as g
from ir_measures_graded.kernels import ties
from ir_measures_graded.kernels.ties import (
    expected_thresholded_ap,
    expected_thresholded_precision,
)
from support.examples import examples
from support.measure_checks import tied_threshold_arrays
from support.memory import MB, every_row_its_own_label, peak_bytes

# --- 1. an evaluator keeps the judgments it was built with -----------------------------------------

EDITED_MEASURES = [g.muMAP, g.nDCNG @ 3, g.muAP(levels="collection"), g.muAP(levels="collection-all"), g.GAP,
                   g.meanNDCNG, g.muP @ 2, g.nDCNG(norm="collection", dcg="exp-log2") @ 3]


def float_qrels() -> pd.DataFrame:
    return pd.DataFrame({"query_id": ["1"] * 4 + ["2"] * 4, "doc_id": list("abcdabcd"),
                         "relevance": [0.0, 1.0, 2.5, 3.0, 1.0, 0.5, 0.0, 2.0]})


RUN = pd.DataFrame({"query_id": ["1"] * 4 + ["2"] * 4, "doc_id": list("abcdabcd"),
                    "score": [4.0, 3, 2, 1, 4, 3, 2, 1]})


@pytest.mark.parametrize("edit", [
    lambda q: q.loc.__setitem__((q.doc_id == "a", "relevance"), 10.0),
    lambda q: q.loc.__setitem__((slice(None), "relevance"), q["relevance"] * 3 + 1),
    lambda q: q["relevance"].to_numpy().__setitem__(slice(None), 7.0),  # through a view, if pandas gives one
])
def test_an_evaluator_gives_the_values_of_the_judgments_it_was_built_with(edit):
    qrels = float_qrels()
    original = qrels.copy()
    evaluator = ir_measures.evaluator(EDITED_MEASURES, qrels)
    before = evaluator.calc_aggregate(RUN)  # caches the qrels-side quantities
    try:
        edit(qrels)
    except ValueError:  # a read-only view (pandas copy-on-write): nothing to edit that way
        pass
    after = evaluator.calc_aggregate(RUN)
    assert after == before == ir_measures.calc_aggregate(EDITED_MEASURES, original, RUN)
    per_query = {(m.query_id, str(m.measure)): m.value for m in evaluator.iter_calc(RUN)}
    fresh = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(EDITED_MEASURES, original, RUN)}
    assert per_query == fresh


def test_an_edit_before_the_first_run_is_not_seen_either():
    qrels = float_qrels()
    original = qrels.copy()
    evaluator = ir_measures.evaluator(EDITED_MEASURES, qrels)
    qrels.loc[qrels.doc_id == "d", "relevance"] = 0.0
    assert evaluator.calc_aggregate(RUN) == ir_measures.calc_aggregate(EDITED_MEASURES, original, RUN)


# --- 7. the lazy loader under threads ---------------------------------------------------------------

def test_first_use_of_a_lazy_module_from_several_threads(tmp_path, monkeypatch):
    from ir_measures_graded.lazy import lazy_module

    # a module whose execution takes a while: other threads ask for its names meanwhile
    (tmp_path / "slow_lazy_probe.py").write_text(textwrap.dedent("""
        import time
        time.sleep(0.3)
        value = 42
        def twice(x):
            return 2 * x
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "slow_lazy_probe", None)
    del sys.modules["slow_lazy_probe"]  # removed again after the test
    module = lazy_module("slow_lazy_probe")
    results, errors = [], []
    barrier = threading.Barrier(6)

    def use():
        barrier.wait()
        try:
            results.append(module.twice(module.value))
        except Exception as e:  # noqa: BLE001 - the failure under test
            errors.append(repr(e))

    threads = [threading.Thread(target=use) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and results == [84] * 6
    assert sys.modules["slow_lazy_probe"] is module and module.value == 42


def test_a_lazy_module_that_fails_to_load_raises_each_time(tmp_path, monkeypatch):
    from ir_measures_graded.lazy import lazy_module

    (tmp_path / "broken_lazy_probe.py").write_text("raise RuntimeError('broken on purpose')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "broken_lazy_probe", None)
    del sys.modules["broken_lazy_probe"]  # removed again after the test
    module = lazy_module("broken_lazy_probe")
    assert module.__file__.endswith("broken_lazy_probe.py")  # what the spec says needs no execution
    for _ in range(2):
        with pytest.raises(RuntimeError, match="broken on purpose"):
            module.anything  # noqa: B018


# --- 8. ties='expected' with real-valued labels: memory linear in the rows -------------------------

def brute_expected(query, rank, level, thr_ptr, n_relevant, group_ptr, cutoff, k):
    """Per (tie group, threshold) pair, the formula of kernels.ties (quadratic, obviously right)."""
    n_flat = int(thr_ptr[-1])
    ap, p = np.zeros(n_flat), np.zeros(n_flat)
    for start, end in itertools.pairwise(group_ptr.tolist()):
        q = int(query[start])
        n = end - start
        for t in range(int(thr_ptr[q + 1] - thr_ptr[q])):
            flat = int(thr_ptr[q]) + t
            r = int((level[start:end] > t).sum())
            b = int((level[int(np.searchsorted(query, q)):start] > t).sum())
            for j in range(1, n + 1):
                s = int(rank[start]) - 1
                if cutoff is None or s + j <= cutoff:
                    others = (j - 1) * (r - 1) / (n - 1) if n > 1 else 0.0
                    ap[flat] += (r / n) * (b + 1 + others) / (s + j)
                if s + j <= k:
                    p[flat] += r / n / k
    return np.divide(ap, n_relevant, out=np.zeros(n_flat), where=n_relevant > 0), p


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 6)), min_size=1, max_size=12),
                min_size=1, max_size=3),
       st.one_of(st.none(), st.integers(1, 10)), st.integers(1, 10))
def test_expected_thresholded_kernels_against_the_pairwise_formula(queries, cutoff, k):
    query, rank, level, thr_ptr, n_relevant, ptr = tied_threshold_arrays(queries, lambda t: 1)
    want_ap, want_p = brute_expected(query, rank, level, thr_ptr, n_relevant, ptr, cutoff, k)
    got_ap = expected_thresholded_ap(query, rank, level, thr_ptr, n_relevant, ptr, cutoff)
    got_p = expected_thresholded_precision(query, rank, level, thr_ptr, ptr, k)
    assert got_ap == pytest.approx(want_ap, abs=1e-12)
    assert got_p == pytest.approx(want_p, abs=1e-12)
    with pytest.MonkeyPatch.context() as patch:  # the per-row path, taken when thresholds are many
        patch.setattr(ties, "PAIRS_PER_ROW", -1)
        counted_ap = expected_thresholded_ap(query, rank, level, thr_ptr, n_relevant, ptr, cutoff)
        assert counted_ap == pytest.approx(want_ap, abs=1e-12)
        assert expected_thresholded_precision(query, rank, level, thr_ptr, ptr, k) == pytest.approx(want_p, abs=1e-12)


@pytest.mark.parametrize("group", [1, 7])
def test_expected_thresholded_kernels_do_not_expand_rows_into_threshold_pairs(group):
    # one query, every row its own label (2,500 thresholds): rows x thresholds would be 3 million pairs
    query, rank, level, thr_ptr, ptr, n_relevant = every_row_its_own_label(group)
    peak = peak_bytes(lambda: (expected_thresholded_ap(query, rank, level, thr_ptr, n_relevant, ptr),
                               expected_thresholded_precision(query, rank, level, thr_ptr, ptr, 100)))
    assert peak < 8 * MB, f"{peak / MB:.0f} MB"


def test_ties_expected_through_the_provider_on_one_large_real_valued_query():
    n = 3000
    rng = np.random.default_rng(2)
    docs = [f"d{i}" for i in range(n)]
    qrels = pd.DataFrame({"query_id": "q", "doc_id": docs, "relevance": rng.random(n) * 10})
    run = pd.DataFrame({"query_id": "q", "doc_id": docs, "score": rng.integers(0, 300, n).astype(float)})
    measures = [g.muAP(ties="expected"), g.muP(ties="expected") @ 100, g.GAP(ties="expected")]
    evaluator = ir_measures.evaluator(measures, qrels)
    values = {}
    peak = peak_bytes(lambda: values.update(evaluator.calc_aggregate(run)))
    assert peak < 24 * MB, f"{peak / MB:.0f} MB"
    assert all(0 < v < 1 for v in values.values())


# --- 9. levels='collection-all': memory of the order of the judgments ------------------------------

def many_real_labels(n_queries: int, per_query: int, seed: int = 3):
    rng = np.random.default_rng(seed)
    n = n_queries * per_query
    qrels = pd.DataFrame({"query_id": np.repeat([f"q{i}" for i in range(n_queries)], per_query),
                          "doc_id": [f"d{i}" for i in range(n)], "relevance": rng.random(n) * 5})
    run = qrels.rename(columns={"relevance": "score"}).assign(score=rng.random(n))
    return qrels, run


def test_collection_all_does_not_hold_queries_times_labels():
    qrels, run = many_real_labels(400, 20)  # 8,000 distinct labels: queries x labels = 3.2 million
    evaluator = ir_measures.evaluator([g.muAP(levels="collection-all"), g.muP(levels="collection-all") @ 5], qrels)
    values = {}
    peak = peak_bytes(lambda: values.update(evaluator.calc_aggregate(run)))
    assert peak < 16 * MB, f"{peak / MB:.0f} MB"
    assert all(0 < v < 1 for v in values.values())


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.25]), min_size=1, max_size=5), min_size=1,
                max_size=4), st.integers(0, 2**16), st.sampled_from([0.0, 0.5]), st.sampled_from(["distance", "uniform"]))
def test_collection_all_equals_explicit_collection_thresholds(labels, seed, floor, weights):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{i}": lab for i, lab in enumerate(row)} for q, row in enumerate(labels)}
    run = {q: {d: float(rng.integers(0, 3)) for d in docs} for q, docs in qrels.items()}
    above = sorted({lab for row in labels for lab in row if lab > floor})
    if not above:
        return
    for base in (g.muAP, g.muAP @ 2, g.muP @ 2, g.muAP(ties="expected")):
        every = base(levels="collection-all", floor=floor, weights=weights)
        explicit = base(levels=tuple(above), floor=floor, weights=weights)
        got = {(m.query_id): m.value for m in ir_measures.iter_calc([every], qrels, run)}
        want = {(m.query_id): m.value for m in ir_measures.iter_calc([explicit], qrels, run)}
        assert got == pytest.approx(want, abs=1e-12)
        table = g.by_level(every, qrels, run)
        explicit_table = g.by_level(explicit, qrels, run)
        assert table["value"].tolist() == pytest.approx(explicit_table["value"].tolist(), abs=1e-12)
        assert table["threshold"].tolist() == above


# --- 10. long ids that differ only inside: every byte is hashed, the join stays linear -------------

@pytest.mark.parametrize("at", [9, 20, 33, 47, 60, 71])
def test_ids_differing_in_one_inner_byte_hash_apart(at):
    import pyarrow as pa

    from ir_measures_graded.io.ids import string_hashes

    base = "p" * 80
    ids = [base[:at] + f"{i:04d}" + base[at + 4:] for i in range(3000)]
    assert len(set(string_hashes(pa.array(ids)).tolist())) == len(ids)
    assert len(set((string_hashes(pa.array(ids)) >> np.uint64(32)).tolist())) > len(ids) - 5  # the join's 32 bits


def test_hashes_depend_on_every_byte_and_on_length():
    import pyarrow as pa

    from ir_measures_graded.io.ids import string_hashes

    ids = ["", "a", "a\0", "\0a", "ab", "ba", "a" * 8, "a" * 9, "a" * 16 + "b", "b" + "a" * 16, "x" * 1000,
           "x" * 500 + "y" + "x" * 499]
    hashes = string_hashes(pa.array(ids))
    assert len(set(hashes.tolist())) == len(ids)
    sliced = pa.array(["zz", *ids]).slice(1)  # an offset into a larger buffer hashes the same
    assert string_hashes(sliced).tolist() == hashes.tolist()
    assert string_hashes(pa.array(ids, pa.large_string())).tolist() == hashes.tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(max_codepoint=0x3FF), max_size=8).filter(lambda t: len(t.encode()) <= 8),
                min_size=1, max_size=40))
def test_ids_of_one_word_hash_as_in_the_general_path(ids):
    """Ids of at most 8 bytes take a shortcut; a longer id in the same array sends all through the
    general path: each id must hash the same either way (the two sides of a join may differ)."""
    import pyarrow as pa

    from ir_measures_graded.io.ids import string_hashes

    assert string_hashes(pa.array(ids)).tolist() == string_hashes(pa.array([*ids, "a longer id"]))[:-1].tolist()


@pytest.mark.parametrize("kind", ["strings", "integers"])
def test_values_are_exact_when_every_hash_collides(monkeypatch, kind):
    import pyarrow as pa

    import ir_measures_graded.io.columns
    import ir_measures_graded.io.ids
    import ir_measures_graded.prepare

    def colliding(ids):
        return np.zeros(len(ids), dtype=np.uint64)

    # io.ids is where every caller finds them (the duplicate checks); the join compares the ids themselves
    monkeypatch.setattr(ir_measures_graded.io.ids, "string_hashes", colliding)
    monkeypatch.setattr(ir_measures_graded.io.ids, "id_keys", colliding)
    assert not hasattr(ir_measures_graded.prepare, "id_keys")
    assert not hasattr(ir_measures_graded.io.columns, "id_keys")
    n = 1500
    docs = list(range(n)) if kind == "integers" else [f"doc-{i}" for i in range(n)]
    labels = {d: float(i % 4) for i, d in enumerate(docs)}
    unjudged = n + 7 if kind == "integers" else "unjudged"
    qrels = {"q": labels, "r": {d: 1.0 for d in docs[:10]}}
    run = {"q": {d: float(n - i) for i, d in enumerate(docs)} | {unjudged: 0.5}, "r": {docs[3]: 1.0}}
    if kind == "integers":  # Arrow columns of integer doc ids stay integers in the core
        def table(rows, value):
            flat = [(q, d, v) for q, ds in rows.items() for d, v in ds.items()]
            return pa.table({"query_id": [r[0] for r in flat], "doc_id": pa.array([r[1] for r in flat], pa.int64()),
                             value: [r[2] for r in flat]})
        qrels, run = table(qrels, "relevance"), table(run, "score")
    from ir_measures_graded.prepare import Judgments, Ranking

    judgments = Judgments.from_qrels(qrels)
    assert pa.types.is_integer(judgments.doc_ids.type) == (kind == "integers")
    ranking = Ranking.from_run(run, judgments)
    got = {}
    assert len(ranking.query) == n + 2
    for q, label in zip(ranking.query.tolist(), ranking.label.tolist(), strict=True):
        got.setdefault(judgments.query_ids[q], []).append(label)
    want_q = [labels[d] for d in docs] + [float("nan")]
    assert np.array_equal(np.array(got["q"]), np.array(want_q), equal_nan=True)
    assert got["r"] == [1.0]


# --- 11. labels and floors at the edge of float64 ---------------------------------------------------

BIG = 1.7e308
SCALE = 2.0**-1000  # exact in binary: the scale-free measures give the same values on labels * SCALE

EXTREME_MEASURES = [g.muMAP, g.muAP(levels="collection"), g.muAP(levels="collection-all"), g.muP @ 2,
                    g.muP(weights="uniform") @ 2, g.GAP, g.nDCNG @ 3, g.nDCNG, g.meanNDCNG,
                    g.nDCNG(norm="collection") @ 3, g.nDCNG(dcg="exp-log2", norm="query") @ 3,
                    g.nDCNG(norm="collection", dcg="exp-log2"), g.muAP(ties="expected"), g.nDCNG(ties="expected")]


@pytest.mark.parametrize("floor", [0.0, -BIG, -1e300])
def test_labels_whose_distance_to_the_floor_overflows(floor):
    qrels = {"q": {"a": BIG, "b": -BIG, "c": 0.0, "d": 1e308, "e": 3.0}, "r": {"a": 1.0, "b": BIG}}
    run = {"q": {"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0, "e": 4.0}, "r": {"a": 2.0, "b": 1.0}}
    small_qrels = {q: {d: lab * SCALE for d, lab in docs.items()} for q, docs in qrels.items()}
    for base in EXTREME_MEASURES:
        measure = base(floor=floor)
        small = base(floor=floor * SCALE)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
            want = {m.query_id: m.value for m in ir_measures.iter_calc([small], small_qrels, run)}
            aggregate = ir_measures.calc_aggregate([measure], qrels, run)[measure]
        assert all(np.isfinite(v) and 0 <= v <= 1 + 1e-12 for v in [*got.values(), aggregate]), (measure, got)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-300), measure


@pytest.mark.parametrize("norm", [1e10, 1e100, 1e300])
def test_a_numeric_norm_far_above_the_labels(norm):
    # exponents e = label / norm far below 1: 2^e - 1 is about e ln 2 (exp2(e) - 1 rounded it to 0
    # for norm=1e300: nDCNG 0.0 instead of 0.8597)
    qrels = {"q": {"a": 2.0, "b": 0.0, "c": 1.0}}
    run = {"q": {"a": 2.0, "b": 1.0, "c": 3.0}}  # c (1), a (2), b (0)
    gain = {label: math.expm1(label / norm * math.log(2.0)) for label in (1.0, 2.0)}
    want = (gain[1.0] + gain[2.0] / math.log2(3)) / (gain[2.0] + gain[1.0] / math.log2(3))
    measure = g.nDCNG(norm=norm) @ 2
    assert ir_measures.calc_aggregate([measure], qrels, run)[measure] == pytest.approx(want, rel=1e-13)


def test_a_numeric_norm_below_the_labels_at_the_edge_of_float64():
    # (label - floor) / norm beyond float64: an error, never a value (norm * a scaling factor of the
    # huge labels underflowed to 0, and every gain became 0: nDCNG 0.0)
    qrels = {"q": {"a": BIG, "b": 0.0, "c": 1.0}}
    run = {"q": {"a": 2.0, "b": 1.0, "c": 3.0}}
    for norm in (1e-300, 1e-3):
        measure = g.nDCNG(norm=norm) @ 2
        with pytest.raises(g.GradedInputError) as error:
            ir_measures.calc_aggregate([measure], qrels, run)
        assert str(error.value) == (
            f"{measure}: the gain (label - floor) / norm with norm={norm!r} of label 1.7e+308 with floor=0.0 is "
            "beyond float64's range (about 1.8e308): use norm='query' or 'collection', or rescale the labels")
    for measure in (g.gRBP(norm=1e-300), g.gERR(norm=1e-300)):  # every measure with gains names itself
        with pytest.raises(g.GradedInputError, match=rf"^{re.escape(str(measure))}: the gain \(label - floor\) / norm"):
            ir_measures.calc_aggregate([measure], qrels, run)
    assert ir_measures.calc_aggregate([g.nDCNG(norm=1.0) @ 2], qrels, run)[g.nDCNG(norm=1.0) @ 2] == \
        pytest.approx(1 / math.log2(3))  # (label - floor) / 1 is finite: the top gain dominates


def test_exponential_gain_without_a_normaliser_beyond_float_range_is_a_clear_error():
    qrels = {"q": {"a": BIG, "b": 0.0, "c": 1.0}}
    run = {"q": {"a": 2.0, "b": 1.0, "c": 3.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # 2^(label - floor) with label - floor finite: a value (the top document dominates)
        value = ir_measures.calc_aggregate([g.meanNDCG @ 2], qrels, run)[g.meanNDCG @ 2]
        assert value == pytest.approx(0.5 / np.log2(3))  # nDCG@1 = 0, nDCG@2 = 1/log2(3): the top gain dominates
        with pytest.raises(g.GradedInputError) as error:
            ir_measures.calc_aggregate([g.meanNDCG(floor=-BIG) @ 2], qrels, run)
        assert str(error.value) == (
            "meanNDCG(floor='-1.7e+308')@2: the gain 2^(label - floor) of label 1.7e+308 with floor=-1.7e+308 is "
            "beyond float64's range (about 1.8e308): give a norm ('query' or 'collection') or rescale the labels")


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_labels_of_equals_a_dictionary_lookup(data):
    """The join of ranked rows to the judgments (Arrow's hash join, on the judgments of the rows'
    queries only: a range of them, or each query's rows) against a dict: every row's label, or NaN
    where unjudged; ids strings or integers on either side, rows given directly or through codes."""
    import pyarrow as pa

    from ir_measures_graded.prepare import Judgments

    n_queries = data.draw(st.integers(1, 8))
    docs = st.integers(0, 30)
    judged = data.draw(st.lists(st.tuples(st.integers(0, n_queries - 1), docs, st.integers(0, 3)),
                                min_size=1, max_size=60, unique_by=lambda t: t[:2]))
    integer_qrels, integer_run = data.draw(st.booleans()), data.draw(st.booleans())

    def ids(values, integers):
        return pa.array(values, pa.int64()) if integers else pa.array([str(v) for v in values])

    qrels = pa.table({"query_id": [f"q{q}" for q, _, _ in judged], "doc_id": ids([d for _, d, _ in judged], integer_qrels),
                      "relevance": [float(r) for *_, r in judged]})
    judgments = Judgments.from_qrels(qrels)
    codes = {q: i for i, q in enumerate(judgments.query_ids.tolist())}
    label_of = {(codes[f"q{q}"], d): float(r) for q, d, r in judged}
    rows = data.draw(st.lists(st.tuples(st.sampled_from(sorted(codes.values())), docs), max_size=80))
    query = np.array([q for q, _ in rows], dtype=np.int64)
    run_docs = [d for _, d in rows]
    if data.draw(st.booleans()):  # through codes: a dictionary of distinct doc ids
        distinct = sorted(set(run_docs))
        doc_codes = np.array([distinct.index(d) for d in run_docs], dtype=np.int64)
        got = judgments.labels_of(query, doc_codes, ids(distinct, integer_run))
    else:
        got = judgments.labels_of(query, None, ids(run_docs, integer_run))
    want = [label_of.get((q, d), float("nan")) for q, d in rows]
    assert np.array_equal(got, np.array(want, dtype=np.float64), equal_nan=True)
