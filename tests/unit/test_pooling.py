"""Pool construction (#51 item 4): depth-k, RBP and RRF against trectools 0.0.50's TrecPoolMaker; move-to-front
and the MaxMean bandit against a direct implementation of the papers' algorithms; budgets, the file, bad input."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.pooling import build_pool
from support.examples import examples

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "ir_measures_graded" / "data" / "graded_sample"
RUNS = [SAMPLE / "strong.run", SAMPLE / "weak.run", SAMPLE / "random.run"]
QRELS = SAMPLE / "qrels.txt"


def trectools_pool(paths, strategy, **options):
    trectools = pytest.importorskip("trectools")
    runs = [trectools.TrecRun(str(p)) for p in paths]
    return {str(t): set(d) for t, d in trectools.TrecPoolMaker().make_pool(runs, strategy=strategy, **options).pool.items()}


def write_runs(tmp_path, runs):
    """Runs (name -> {topic: [(doc, score), ...]}) as TREC files, the rank column as trec_eval ranks."""
    paths = []
    for name, topics in runs.items():
        lines = []
        for topic, rows in topics.items():
            ranked = sorted(rows, key=lambda r: (-np.float32(r[1]), [-ord(c) for c in r[0]]))
            lines += [f"{topic} Q0 {doc} {i} {score!r} {name}" for i, (doc, score) in enumerate(ranked, 1)]
        path = tmp_path / f"{name}.run"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def straddling_ties(paths, depth):
    """Topics where some run has a tie (float32 scores) across rank ``depth``: there trectools (doc id ascending)
    and trec_eval (descending) take different documents."""
    found = set()
    for path in paths:
        run = pd.read_csv(path, sep=r"\s+", names=["q", "z", "d", "rank", "s", "n"], dtype={"q": str, "d": str})
        run["s"] = run["s"].astype(np.float32)
        for topic, rows in run.groupby("q"):
            scores = np.sort(rows["s"].to_numpy())[::-1]
            if len(scores) > depth and scores[depth - 1] == scores[depth]:
                found.add(topic)
    return found


@pytest.mark.parametrize("depth", [1, 2, 5, 10, 50])
def test_depth_pool_is_trectools_top_x_on_the_sample(depth):
    ours, theirs = build_pool(RUNS, "depth", depth=depth).documents(), trectools_pool(RUNS, "topX", topX=depth)
    ties = straddling_ties(RUNS, depth)
    assert ours.keys() == theirs.keys()
    assert {t: d for t, d in ours.items() if t not in ties} == {t: d for t, d in theirs.items() if t not in ties}
    assert len(ties) < len(ours) // 2
    assert all(len(ours[t]) == len(theirs[t]) for t in ties)


@pytest.mark.parametrize(("strategy", "ours"), [("rbp", {"p": 0.8}), ("rrf", {"k": 60})])
@pytest.mark.parametrize("size", [5, 20])
def test_rbp_and_rrf_pools_are_trectools_on_the_sample(tmp_path, strategy, ours, size):
    """trectools takes integer topics (S01 -> 1 here) and weighs the file's rank column (the sample's is
    trec_eval's order); topics where two weights tie across the cut may differ, and only those."""
    paths = []
    for path in RUNS:
        paths.append(tmp_path / path.name)
        paths[-1].write_text(path.read_text().replace("S0", "").replace("S", ""))
    theirs = trectools_pool(paths, strategy, topX=size, **{"rbp": {"rbp_p": 0.8}, "rrf": {"rrf_den": 60}}[strategy])
    mine = build_pool(paths, strategy, budget=size, **ours).documents()
    runs = pd.concat(pd.read_csv(p, sep=r"\s+", names=["q", "z", "d", "rank", "s", "n"], dtype={"q": str}) for p in paths)
    runs["w"] = 0.2 * 0.8 ** (runs["rank"] - 1.0) if strategy == "rbp" else 1 / (60 + runs["rank"])
    weights = runs.groupby(["q", "d"])["w"].sum()
    differ = {t for t in mine if mine[t] != theirs[t]}
    for topic in differ:
        ordered = np.sort(weights[topic].to_numpy())[::-1]
        assert np.isclose(ordered[size - 1], ordered[size])
    assert len(differ) < len(mine) // 4 and mine.keys() == theirs.keys()


distinct_runs = st.integers(1, 4).flatmap(lambda n_runs: st.lists(
    st.lists(st.permutations([f"d{i}" for i in range(12)]).map(lambda p: p[:8]), min_size=1, max_size=3),
    min_size=n_runs, max_size=n_runs))


@settings(max_examples=examples(60), deadline=None)
@given(distinct_runs, st.integers(1, 9))
def test_depth_pool_is_trectools_top_x_on_random_runs(tmp_path_factory, runs, depth):
    """Distinct scores (trectools breaks ties by doc id ascending, trec_eval and this package descending)."""
    tmp_path = tmp_path_factory.mktemp("runs")
    given_runs = {f"r{j}": {f"t{q}": [(doc, float(100 - i)) for i, doc in enumerate(docs)] for q, docs in enumerate(run)}
                  for j, run in enumerate(runs)}
    paths = write_runs(tmp_path, given_runs)
    assert build_pool(paths, "depth", depth=depth).documents() == trectools_pool(paths, "topX", topX=depth)


def test_depth_ties_follow_trec_eval_doc_id_descending(tmp_path):
    """Tied scores: trec_eval's order (doc id descending) decides what is in the top k."""
    paths = write_runs(tmp_path, {"r": {"1": [("a", 1.0), ("b", 1.0), ("c", 0.5)]}})
    assert build_pool(paths, "depth", depth=1).documents() == {"1": {"b"}}


# --- move-to-front and MaxMean: the papers' algorithms written out directly ------------------------------------

def direct_mtf(lists, relevant, allowed, tie):
    """Cormack, Palmer & Clarke 1998: take documents from the run of highest priority (ties: the lower ``tie``)
    while they are relevant; a non-relevant document lowers that run's priority by one and the highest-priority
    run is chosen again; documents already judged are passed over; an exhausted run leaves."""
    priority = {j: 0 for j in range(len(lists)) if lists[j]}
    cursor = {j: 0 for j in priority}
    judged = []
    current = None
    while len(judged) < allowed and priority:
        if current is None:
            current = max(priority, key=lambda j: (priority[j], -tie[j]))
        rest = [d for d in lists[current][cursor[current]:] if d not in judged]
        if not rest:
            del priority[current]
            current = None
            continue
        doc = rest[0]
        cursor[current] = lists[current].index(doc) + 1
        judged.append(doc)
        if doc not in relevant:
            priority[current] -= 1
            current = None
    return judged


def direct_maxmean(lists, relevant, allowed, tie):
    """Losada, Parapar & Barreiro 2016, MaxMean: each run an arm with a Beta(1, 1) prior on its rate of relevant
    documents; pull the arm of highest posterior mean (ties: the lower ``tie``), judge its best unjudged document."""
    hits = {j: 0 for j in range(len(lists)) if lists[j]}
    pulls = dict.fromkeys(hits, 0)
    judged = []
    while len(judged) < allowed:
        open_ = [j for j in hits if any(d not in judged for d in lists[j])]
        if not open_:
            break
        arm = max(open_, key=lambda j: ((hits[j] + 1) / (pulls[j] + 2), -tie[j]))
        doc = next(d for d in lists[arm] if d not in judged)
        judged.append(doc)
        pulls[arm] += 1
        hits[arm] += doc in relevant
    return judged


adaptive_case = st.tuples(
    st.integers(1, 5).flatmap(lambda n: st.lists(st.lists(st.integers(0, 15), unique=True, max_size=12),
                                                 min_size=n, max_size=n)),
    st.sets(st.integers(0, 15)), st.integers(1, 20), st.integers(0, 2**16))


@pytest.mark.parametrize(("strategy", "direct"), [("mtf", direct_mtf), ("bandit", direct_maxmean)])
@settings(max_examples=examples(150), deadline=None)
@given(case=adaptive_case)
def test_adaptive_strategies_are_the_papers_algorithms(strategy, direct, case):
    lists, relevant, budget, seed = case
    runs = {f"r{j}": pd.DataFrame({"query_id": "1", "doc_id": [f"d{d:02}" for d in docs],
                                   "score": np.arange(len(docs), 0, -1, dtype=float)})
            for j, docs in enumerate(lists) if docs}
    if not runs:
        return
    names = list(runs)
    kept = [docs for docs in lists if docs]
    qrels = pd.DataFrame({"query_id": ["1"] * len(relevant) + ["1"], "doc_id": [f"d{d:02}" for d in sorted(relevant)]
                          + ["d99"], "relevance": [1] * len(relevant) + [1]})  # d99: in no run
    tie = np.random.default_rng(seed).permutation(len(names))
    expected = [f"d{d:02}" for d in direct([list(x) for x in kept], relevant, budget, tie)]
    pool = build_pool(runs, strategy, budget=budget, judgments=qrels, seed=seed)
    assert pool.table["document"].tolist() == expected
    assert pool.table["order"].tolist() == list(range(1, len(expected) + 1))


def test_adaptive_takes_a_judge_callable_and_is_seeded():
    labels = pd.read_csv(QRELS, sep=r"\s+", names=["q", "z", "d", "r"], dtype={"q": str, "d": str})
    found = {(q, d): r for q, d, r in zip(labels.q, labels.d, labels.r, strict=True)}
    a = build_pool(RUNS, "bandit", budget=8, judge=lambda t, d: found.get((t, d), 0), seed=3)
    b = build_pool(RUNS, "bandit", budget=8, judgments=QRELS, seed=3)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert len(a) == 8 * a.table["topic"].nunique()


# --- budgets, the file, bad input ---------------------------------------------------------------------------

def test_budget_per_topic_and_total():
    full = build_pool(RUNS, "rrf", depth=3)
    sizes = full.table.groupby("topic").size()
    capped = build_pool(RUNS, "rrf", depth=3, budget=4).table.groupby("topic").size()
    assert (capped == np.minimum(sizes, 4)).all()
    total = build_pool(RUNS, "rrf", depth=3, total=97).table.groupby("topic").size()
    assert total.sum() == 97 and total.max() - total.min() <= 1
    everything = build_pool(RUNS, "rrf", depth=3, total=10**6)
    pd.testing.assert_frame_equal(everything.table, full.table)


def test_a_topic_short_of_its_share_gives_the_rest_to_the_others():
    runs = {"r": pd.DataFrame({"query_id": ["1"] + ["2"] * 10, "doc_id": [f"d{i}" for i in range(11)],
                               "score": np.arange(11.0)})}
    assert build_pool(runs, "depth", depth=100, total=8).table.groupby("topic").size().to_dict() == {"1": 1, "2": 7}


def test_order_prefix_property_and_contributors():
    pool = build_pool(RUNS, "depth", depth=5, budget=7)
    assert pool.table.groupby("topic")["order"].apply(lambda o: o.tolist() == list(range(1, len(o) + 1))).all()
    first = pool.table.iloc[0]
    for name in first["runs"].split(","):
        run = pd.read_csv(SAMPLE / name, sep=r"\s+", names=["q", "z", "d", "rank", "s", "n"], dtype={"q": str})
        top = run[run.q == first["topic"]].sort_values("s", ascending=False).head(5)
        assert first["document"] in top["d"].tolist()


def test_the_file_is_written_whole_and_reads_back(tmp_path):
    pool = build_pool(RUNS, "rbp", budget=3)
    pool.write(tmp_path / "pool.tsv")
    back = pd.read_csv(tmp_path / "pool.tsv", sep="\t", dtype={"topic": str})
    assert list(back.columns) == ["topic", "document", "order", "runs"]
    pd.testing.assert_frame_equal(back, pool.table, check_dtype=False)


def test_deterministic():
    pd.testing.assert_frame_equal(build_pool(RUNS, "mtf", judgments=QRELS, budget=9, seed=1).table,
                                  build_pool(RUNS, "mtf", judgments=QRELS, budget=9, seed=1).table)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: build_pool(RUNS, "top"), "unknown pooling strategy 'top'"),
    (lambda: build_pool(RUNS, "depth", budget=0), "the budget must be a whole number of at least 1"),
    (lambda: build_pool(RUNS, "depth", total=0), "the total budget must be"),
    (lambda: build_pool([], "depth"), "a pool needs at least one run"),
    (lambda: build_pool(RUNS, "mtf"), "the mtf strategy judges as it goes"),
    (lambda: build_pool(RUNS, "depth", budget=3, total=9), "not both"),
])
def test_bad_input_is_one_line(call, message):
    with pytest.raises(GradedInputError, match=message) as raised:
        call()
    assert "\n" not in str(raised.value)


def test_python_random_unused():
    random.seed(0)  # the pool owes nothing to the global random state
    a = build_pool(RUNS, "bandit", judgments=QRELS, budget=5)
    random.seed(1)
    np.random.seed(1)
    pd.testing.assert_frame_equal(a.table, build_pool(RUNS, "bandit", judgments=QRELS, budget=5).table)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=12), st.integers(1, 200))
def test_a_total_budget_is_shared_as_equally_as_the_topics_allow(available, total):
    from ir_measures_graded.pooling.build import _allowance

    available = np.asarray(available, dtype=np.int64)
    given = _allowance(available, None, total)
    assert given.sum() == min(total, available.sum()) and (given <= available).all()
    short = given < available  # a topic given less than it could use gets no less than any other topic, less one
    if short.any():
        assert given.max() - given[short].min() <= 1


@pytest.mark.parametrize("options", [{}, {"depth": 7}, {"budget": 9}, {"total": 100, "depth": 25}])
def test_several_strategies_built_at_once_are_each_built_alone(options):
    from ir_measures_graded.pooling import STRATEGIES, build_pools

    pools = build_pools(RUNS, list(STRATEGIES), judgments=QRELS, seed=4, **options)
    assert list(pools) == list(STRATEGIES)
    for strategy, pool in pools.items():
        alone = build_pool(RUNS, strategy, judgments=QRELS, seed=4, **options)
        pd.testing.assert_frame_equal(pool.table, alone.table)
        assert pool.text() == alone.text()


@pytest.mark.parametrize("strategy", ["depth", "rbp", "rrf", "mtf", "bandit"])
def test_a_smaller_budget_is_the_first_documents_of_a_larger_ones_pool(strategy):
    large = build_pool(RUNS, strategy, budget=12, judgments=QRELS, seed=2).table
    small = build_pool(RUNS, strategy, budget=5, judgments=QRELS, seed=2).table
    pd.testing.assert_frame_equal(small, large[large["order"] <= 5].reset_index(drop=True))
