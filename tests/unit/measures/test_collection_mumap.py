"""The paper's collection-level µMAP (Figs. 6-8): MAP^t over the queries with a label >= t (issue #15.1)."""

from __future__ import annotations

import ir_measures
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import AP, nDCG

from ir_measures_graded import GradedInputError, by_level, muAP, muMAP, muP, nDCNG
from ir_measures_graded.measures.thresholded import CollectionMean
from support.cli import run_main
from support.examples import examples
from support.paths import SAMPLE
from support.random_collections import random_collection

# q2 has no document with label >= 2: it takes part in MAP^1 only.
QRELS = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"a": 1, "b": 0}, "q3": {"a": 2, "b": 2, "c": 1}}
RUN = {"q1": {"c": 3.0, "a": 2.0, "b": 1.0}, "q2": {"b": 2.0, "a": 1.0}, "q3": {"a": 3.0, "c": 2.0, "b": 1.0}}
# AP^1: q1 (1/2 + 2/3) / 2 = 7/12, q2 1/2, q3 1   -> MAP^1 = 25/36 over 3 queries
# AP^2: q1 1/2, q3 (1 + 2/3) / 2 = 5/6             -> MAP^2 = 2/3 over 2 queries
PAPER = (25 / 36 + 2 / 3) / 2  # = 49/72, weights d_1 = d_2 = 1
ALL_QUERIES = (25 / 36 + (1 / 2 + 0 + 5 / 6) / 3) / 2  # = 41/72, AP^2(q2) = 0 counted


def test_hand_computed_three_queries():
    collection = muAP(levels="collection")
    assert collection.calc_aggregate(QRELS, RUN) == pytest.approx(PAPER, abs=1e-12)
    assert muAP(levels="collection-all").calc_aggregate(QRELS, RUN) == pytest.approx(ALL_QUERIES, abs=1e-12)
    table = by_level(muMAP, QRELS, RUN)
    assert list(table.columns) == ["threshold", "weight", "queries", "value", "all_queries", "weighted", "share",
                                   "contribution"]
    assert table["threshold"].tolist() == [1.0, 2.0] and table["weight"].tolist() == [1.0, 1.0]
    assert table["value"].tolist() == pytest.approx([25 / 36, 2 / 3], abs=1e-12)
    assert table["queries"].tolist() == [3, 2]
    every = by_level(muAP(levels="collection-all"), QRELS, RUN)  # every row says what it is, whatever the levels
    assert every["all_queries"].tolist() == pytest.approx([25 / 36, 4 / 9], abs=1e-12)  # AP^2(q2) = 0 counted
    assert every["value"].tolist() == pytest.approx([25 / 36, 2 / 3], abs=1e-12) and every["queries"].tolist() == [3, 2]
    assert every["contribution"].sum() == pytest.approx(ALL_QUERIES, abs=1e-12)  # adds up to the measure
    assert by_level(collection, QRELS, RUN)["contribution"].sum() == pytest.approx(PAPER, abs=1e-12)
    # per query: the thresholds the query reaches, i.e. Eq. 4 exactly as levels='query'
    per_query = {m.query_id: m.value for m in collection.iter_calc(QRELS, RUN)}
    assert per_query == pytest.approx({"q1": (7 / 12 + 1 / 2) / 2, "q2": 1 / 2, "q3": (1 + 5 / 6) / 2}, abs=1e-12)
    assert per_query == pytest.approx({m.query_id: m.value for m in muAP.iter_calc(QRELS, RUN)}, abs=1e-12)


def test_every_ir_measures_entry_point_gives_the_paper_value():
    collection = muAP(levels="collection")
    mixed = [collection, AP, nDCG @ 10, muMAP]  # several providers: ir_measures' FallbackEvaluator
    assert ir_measures.calc_aggregate(mixed, QRELS, RUN)[collection] == pytest.approx(PAPER, abs=1e-12)
    assert ir_measures.calc_aggregate([collection], QRELS, RUN)[collection] == pytest.approx(PAPER, abs=1e-12)
    assert ir_measures.calc(mixed, QRELS, RUN).aggregated[collection] == pytest.approx(PAPER, abs=1e-12)
    assert ir_measures.evaluator(mixed, QRELS).calc_aggregate(RUN)[collection] == pytest.approx(PAPER, abs=1e-12)
    parsed = ir_measures.parse_measure("muMAP(levels='collection')")
    assert ir_measures.calc_aggregate([parsed], QRELS, RUN)[parsed] == pytest.approx(PAPER, abs=1e-12)


def test_queries_missing_from_the_run_count_with_zero():
    run = {q: docs for q, docs in RUN.items() if q != "q3"}
    expected = ((7 / 12 + 1 / 2 + 0) / 3 + (1 / 2 + 0) / 2) / 2
    assert muAP(levels="collection").calc_aggregate(QRELS, run) == pytest.approx(expected, abs=1e-12)
    assert by_level(muMAP, QRELS, run)["queries"].tolist() == [3, 2]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reference_strategy_scores_one_at_every_threshold(seed):
    qrels, _ = random_collection(seed)
    reference = {q: {d: float(label) for d, label in judged.items()} for q, judged in qrels.items()}
    for measure in (muAP(levels="collection"), muAP(levels="collection") @ 1000):
        assert ir_measures.calc_aggregate([measure, AP], qrels, reference)[measure] == pytest.approx(1.0, abs=1e-12)
    table = by_level(muMAP, qrels, reference)
    assert table["value"].tolist() == pytest.approx([1.0] * 4, abs=1e-12)
    reaching = [sum(any(label >= t for label in judged.values()) for judged in qrels.values()) for t in (1, 2, 3, 4)]
    assert table["queries"].tolist() == reaching
    # the former reading stays available, and falls short of 1 whenever a query lacks a label >= t
    assert muAP(levels="collection-all").calc_aggregate(qrels, reference) < 1.0


@pytest.mark.parametrize("seed", [4, 5])
def test_paper_reading_equals_map_t_over_reaching_queries(seed):
    """Exactly: for each collection threshold t, MAP^t over queries with R^t > 0; then the distance-weighted mean."""
    qrels, run = random_collection(seed, labels=(0, 1, 3, 4))
    ap = {t: {m.query_id: m.value for m in ir_measures.iter_calc([AP(rel=t)], qrels, run)} for t in (1, 3, 4)}
    weights = {1: 1.0, 3: 2.0, 4: 1.0}
    maps = {}
    for t in (1, 3, 4):
        reaching = [q for q, judged in qrels.items() if any(label >= t for label in judged.values())]
        maps[t] = sum(ap[t][q] for q in reaching) / len(reaching)
    expected = sum(weights[t] * maps[t] for t in maps) / sum(weights.values())
    assert muAP(levels="collection").calc_aggregate(qrels, run) == pytest.approx(expected, abs=1e-12)
    table = by_level(muAP, qrels, run)
    assert table["value"].tolist() == pytest.approx([maps[t] for t in (1, 3, 4)], abs=1e-12)
    assert table["weight"].tolist() == [1.0, 2.0, 1.0]
    p5 = muP(levels="collection") @ 5
    p_t = {t: {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.P(rel=t) @ 5], qrels, run)}
           for t in (1, 3, 4)}
    means = {t: sum(p_t[t][q] for q in qrels if any(v >= t for v in qrels[q].values())) /
             sum(any(v >= t for v in qrels[q].values()) for q in qrels) for t in (1, 3, 4)}
    assert p5.calc_aggregate(qrels, run) == pytest.approx(
        sum(weights[t] * means[t] for t in means) / sum(weights.values()), abs=1e-12)


def test_aggregator_edge_cases():
    empty = CollectionMean()
    assert empty.result() != empty.result()  # NaN without queries, as ir_measures' mean
    with pytest.raises(GradedInputError, match="levels='collection' aggregates"):
        CollectionMean().add(0.5)
    nothing_relevant = {"q": {"a": 0}}
    assert muAP(levels="collection").calc_aggregate(nothing_relevant, {"q": {"a": 1.0}}) == 0.0


def test_command_line_gives_the_paper_value(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in QRELS.items() for d, r in docs.items()))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{q} Q0 {d} 1 {s} tag\n" for q, docs in RUN.items() for d, s in docs.items()))
    out, _ = run_main(capsys, str(qrels), str(run), "muAP(levels='collection')", "muAP(levels='collection-all')",
                      "-p", "-1")
    got = dict(line.split("\t") for line in out.splitlines())
    assert float(got["muAP(levels='collection')"]) == pytest.approx(PAPER, abs=1e-12)
    assert float(got["muAP(levels='collection-all')"]) == pytest.approx(ALL_QUERIES, abs=1e-12)


def slow_ap(judged: dict, docs: dict, t: float) -> float:
    ranking = [d for d, _ in sorted(docs.items(), key=lambda x: (np.float32(x[1]), x[0]), reverse=True)]
    relevant = sum(1 for label in judged.values() if label >= t)
    hits, total = 0, 0.0
    for i, d in enumerate(ranking, start=1):
        if judged.get(d, -np.inf) >= t:
            hits += 1
            total += hits / i
    return total / relevant if relevant else 0.0


@settings(max_examples=examples(80), deadline=None)
@given(st.data())
def test_real_valued_labels_against_a_slow_reference(data):
    labels = st.floats(0, 3, allow_nan=False).map(lambda x: round(x, 1))
    docs = st.sampled_from([f"d{i}" for i in range(8)])
    qrels = {f"q{i}": data.draw(st.dictionaries(docs, labels, max_size=8)) for i in range(data.draw(st.integers(1, 5)))}
    run = {q: data.draw(st.dictionaries(docs, st.floats(-3, 3, allow_nan=False), max_size=8)) for q in qrels}
    thresholds = sorted({label for judged in qrels.values() for label in judged.values() if label > 0})
    weights = np.diff([0.0, *thresholds])
    maps, counts = [], []
    for t in thresholds:
        reaching = [q for q, judged in qrels.items() if any(label >= t for label in judged.values())]
        maps.append(sum(slow_ap(qrels[q], run.get(q, {}), t) for q in reaching) / len(reaching))
        counts.append(len(reaching))
    expected = float(np.dot(weights, maps) / weights.sum()) if thresholds else 0.0
    assert muAP(levels="collection").calc_aggregate(qrels, run) == pytest.approx(expected, abs=1e-9)
    table = by_level(muAP, qrels, run)
    assert table["threshold"].tolist() == thresholds and table["queries"].tolist() == counts
    assert table["value"].tolist() == pytest.approx(maps, abs=1e-9)
    uniform = muAP(levels="collection", weights="uniform")
    assert uniform.calc_aggregate(qrels, run) == pytest.approx(float(np.mean(maps)) if maps else 0.0, abs=1e-9)


def test_collection_reading_needs_no_queries_x_thresholds_table():
    from ir_measures_graded.prepare import Judgments, Ranking

    qrels, run = random_collection(7)
    judgments = Judgments.from_qrels(qrels)
    list(muAP(levels="collection").results(judgments, Ranking.from_run(run, judgments)))
    assert not [key for key in judgments._cache if "collection" in key]  # only the query's own thresholds


@pytest.mark.parametrize("measure", [muAP(levels="collection"), muP(levels="collection") @ 2, muAP, nDCNG @ 2],
                         ids=str)
def test_partial_sums_of_disjoint_queries_merge_into_the_whole_aggregate(measure):
    # How the Spark engine aggregates: each partition's share (partials), merged on the driver.
    whole = measure.calc_aggregate(QRELS, RUN)
    values = list(ir_measures.iter_calc([measure], QRELS, RUN))
    shares = []
    for part in ({"q1"}, {"q2", "q3"}):
        aggregator = measure.aggregator()
        for metric in values:
            if metric.query_id in part:
                aggregator.add(metric.value)
        shares.append(aggregator.partials())
    assert measure.aggregator().partials() == []  # nothing added: no share
    merged = measure.aggregator()
    merged.merge([])
    merged.merge(shares[0] + shares[1])
    assert merged.result() == pytest.approx(whole, abs=1e-12)
    into_first = measure.aggregator()
    into_first.merge(shares[0])
    into_first.merge(shares[1])
    assert into_first.result() == pytest.approx(whole, abs=1e-12)
    assert whole not in (0.0, 1.0)
    if isinstance(merged, CollectionMean):  # the per-threshold table (MAP^t and its queries) too
        one = measure.aggregator()
        for metric in values:
            one.add(metric.value)
        means, counts = one.by_threshold()
        for got_means, got_counts in (merged.by_threshold(), into_first.by_threshold()):
            assert got_means.tolist() == pytest.approx(means.tolist(), abs=1e-12)
            assert got_counts.tolist() == counts.tolist() and len(counts) == 2  # thresholds 1 and 2


def test_collection_values_pickle_as_their_float():
    import pickle

    values = list(muAP(levels="collection").iter_calc(QRELS, RUN))
    assert values and all(type(pickle.loads(pickle.dumps(m.value))) is float for m in values)
    assert [pickle.loads(pickle.dumps(m.value)) for m in values] == [float(m.value) for m in values]


def test_collection_aggregate_refuses_a_plain_number():
    aggregator = muAP(levels="collection").aggregator()
    with pytest.raises(GradedInputError) as error:
        aggregator.add(0.5)
    assert str(error.value) == ("levels='collection' aggregates M^t per threshold over the queries that reach it; it "
                                "needs the values the graded provider yields, not a plain number (0.5)")
    assert np.isnan(aggregator.result())  # nothing added


def test_the_breakdowns_columns_hold_their_stated_arithmetic_by_hand():
    """Issue 52: per-query µMAP weighs each query's thresholds by its own labels (q2 has threshold 1 only), so
    a threshold's contribution is not share × MAP^t: it is share × ``weighted``, M^t averaged with each query's
    weight on t. Here q1 and q3 weigh 1/2 on each of t = 1, 2 and q2 all of it on t = 1."""
    table = by_level(muMAP, QRELS, RUN)
    assert table["share"].tolist() == pytest.approx([(1 / 2 + 1 + 1 / 2) / 3, (1 / 2 + 1 / 2) / 3], abs=1e-12)
    # t = 1: (1/2 · 7/12 + 1 · 1/2 + 1/2 · 1) / 2 = 31/48; t = 2: (1/2 · 1/2 + 1/2 · 5/6) / 1 = 2/3
    assert table["weighted"].tolist() == pytest.approx([31 / 48, 2 / 3], abs=1e-12)
    assert table["value"].tolist() == pytest.approx([25 / 36, 2 / 3], abs=1e-12)  # MAP^t: not what is weighed
    assert table["contribution"].tolist() == pytest.approx([31 / 72, 2 / 9], abs=1e-12)
    assert table["contribution"].sum() == pytest.approx(muMAP.calc_aggregate(QRELS, RUN), abs=1e-12)  # 47/72
    collection, every = by_level(muAP(levels="collection"), QRELS, RUN), by_level(muAP(levels="collection-all"), QRELS, RUN)
    assert collection["weighted"].tolist() == collection["value"].tolist()
    assert every["weighted"].tolist() == every["all_queries"].tolist()


@pytest.mark.parametrize("measure", ["muMAP", "muAP(levels='collection')", "muAP(levels='collection-all')",
                                     "muP@5", "muMAP(weights='uniform')"])
def test_the_breakdowns_columns_hold_their_stated_arithmetic_on_the_sample(measure):
    """On the bundled sample, every run: contribution = share × weighted exactly (as floats), the contributions
    add up to the run's value, and ``value (all queries)`` is ``all_queries`` · n / queries ≥ t of ``value``."""
    from ir_measures_graded.sample import graded_sample

    qrels, runs = graded_sample()
    parsed = ir_measures.parse_measure(measure)
    for run in runs.values():
        rows = by_level(parsed, qrels, run)
        assert (rows["contribution"] == rows["share"] * rows["weighted"]).all()
        assert rows["contribution"].sum() == pytest.approx(ir_measures.calc_aggregate([parsed], qrels, run)[parsed],
                                                           abs=1e-12)
        n = qrels["query_id"].nunique()
        assert (rows["all_queries"] * n).tolist() == pytest.approx((rows["value"] * rows["queries"]).tolist(), abs=1e-9)


def test_the_command_lines_threshold_table_says_what_its_columns_are(capsys):
    """The text table heads the contribution column with its arithmetic, and its printed digits hold it."""
    out, _ = run_main(capsys, str(SAMPLE / "qrels.txt"), str(SAMPLE / "strong.run"), "muMAP", "--thresholds", "-o", "text")
    assert "share × value (weighted)" in out and "the threshold's weight in the measure" not in out
    rows = [line.split() for line in out.splitlines() if "MAP(rel>=" in line]
    assert len(rows) == 4
    for row in rows:
        weighted, share, contribution = map(float, row[-3:])
        assert abs(weighted * share - contribution) <= 1e-4
