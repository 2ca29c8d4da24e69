"""The organiser's view (#43): every number against an independent reference written here.

- letters: the compact letter display against a brute-force check of the pairwise decisions;
- leaderboard: p-values against scipy's paired t-test with statsmodels' Holm correction, and the
  statistics module's Tukey tests on a matrix built here from ir_measures' per-query values;
- agreement: τ against scipy.stats.kendalltau, τ_AP against Yilmaz et al.'s definition written here;
- topics: best / median / worst / zeros by a loop over the per-query values;
- pool: leave-one-run-out against a plain re-evaluation with the filtered qrels;
- bounds: against evaluating with the unjudged documents explicitly judged at the floor and the top grade.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ir_measures_graded as img
from ir_measures_graded import statistics
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments.testing import Testing as Options  # pytest would collect a "Test..." name
from ir_measures_graded.organiser import agreement, bounds, compact_letters, leaderboard, pool, topics
from ir_measures_graded.sample import shared_task
from support.organiser import explicit_bounds

MEASURES = ["nDCNG@10", "AP", "muMAP", "nDCG@10", "P@5", "Q", "gRBP"]
#: Every kind of graded measure, ours and ir_measures' (collection-level µMAP too).
BOUNDED = [*MEASURES, "gERR@10", "GAP", "muRR", "muRprec", "muR@20", "meanNDCG",
           "muMAP(levels='collection')"]


@pytest.fixture(scope="module")
def task():
    """Six runs of two teams on eight topics, scores on a coarse grid (ties broken by doc id)."""
    qrels, runs = shared_task(n_runs=6, n_queries=8, depth=5, retrieved=30, seed=7)
    runs = {name: run.assign(score=run["score"].round(1)) for name, run in runs.items()}
    return qrels, runs


@pytest.fixture(scope="module")
def exp(task):
    qrels, runs = task
    return img.experiment(qrels, runs, MEASURES)


# --- compact letter display -------------------------------------------------------------------------------

def _check_letters(sig: np.ndarray, letters: list[str]) -> None:
    for i, j in itertools.combinations(range(len(sig)), 2):
        shared = set(letters[i]) & set(letters[j])
        assert bool(shared) != bool(sig[i, j]), (i, j, letters)
    assert all(letters)


@st.composite
def significance(draw):
    n = draw(st.integers(1, 8))
    upper = draw(st.lists(st.booleans(), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2))
    sig = np.zeros((n, n), dtype=bool)
    sig[np.triu_indices(n, k=1)] = upper
    return sig | sig.T


@given(significance())
@settings(max_examples=300, deadline=None)
def test_letters_separate_exactly_the_significant_pairs(sig):
    _check_letters(sig, compact_letters(sig))


def test_letters_name_the_best_run_a():
    # 0 and 1 apart, 2 between: 0 gets a, 1 b, 2 both
    sig = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=bool)
    assert compact_letters(sig, order=[0, 2, 1]) == ["a", "b", "ab"]
    assert compact_letters(np.zeros((3, 3), dtype=bool)) == ["a", "a", "a"]


# --- leaderboard ----------------------------------------------------------------------------------------------

def _per_query(qrels, runs, measure):
    """runs × queries from ir_measures itself (0 where a run misses a judged query)."""
    import ir_measures

    m = ir_measures.parse_measure(measure) if measure not in ("nDCNG@10", "muMAP", "Q", "gRBP") else \
        img.experiments.measure_lists.parse([measure])[0]
    queries = list(dict.fromkeys(qrels["query_id"]))
    rows = []
    for run in runs.values():
        got = {r.query_id: r.value for r in ir_measures.iter_calc([m], qrels, run)}
        rows.append([float(got.get(q, 0.0)) for q in queries])
    return np.array(rows)


def test_leaderboard_sorts_ranks_and_groups_by_the_test(exp, task):
    board = leaderboard(exp, by="AP", testing=Options(test="randomized_tukey", permutations=2000))
    agg = exp.aggregates
    ap = agg[agg["measure"] == "AP"].set_index("run")["value"]
    assert board.runs == list(ap.sort_values(ascending=False, kind="stable").index)
    table = board.to_dataframe()
    for measure in exp.aggregates["measure"].unique():
        rows = table[table["measure"] == measure].set_index("run")
        expected = agg[agg["measure"] == measure].set_index("run")["value"]
        assert np.allclose(rows["value"], expected.reindex(rows.index))
        # competition ranks: 1 + runs scoring more
        for run, row in rows.iterrows():
            assert row["rank"] == 1 + (expected > expected[run] + 1e-12).sum()
        # the letters separate exactly the pairs the test separates
        values = _per_query(*task, measure)[[list(exp.runs).index(r) for r in board.runs]]
        p = statistics.randomized_tukey_hsd(values, 2000, 0)
        assert np.allclose(board.p[measure], p, equal_nan=True)
        _check_letters(np.nan_to_num(p, nan=1) < 0.05, list(rows["group"].reindex(board.runs)))
        from scipy import stats

        for k, run in enumerate(board.runs):
            low, high = stats.t.interval(0.95, len(values[k]) - 1, values[k].mean(), stats.sem(values[k]))
            assert (rows.loc[run, "ci_low"], rows.loc[run, "ci_high"]) == pytest.approx((low, high))


def test_leaderboard_paired_t_holm_matches_scipy_and_statsmodels(exp, task):
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    board = leaderboard(exp, by="nDCNG@10", testing=Options(test="t", correction="holm", alpha=0.1))
    values = _per_query(*task, "nDCNG@10")[[list(exp.runs).index(r) for r in board.runs]]
    pairs = list(itertools.combinations(range(len(values)), 2))
    raw = [stats.ttest_rel(values[i], values[j]).pvalue for i, j in pairs]
    holm = multipletests(raw, method="holm")[1]
    for (i, j), p in zip(pairs, holm, strict=True):
        assert board.p["nDCNG@10"][i, j] == pytest.approx(p)
    tukey = leaderboard(exp, by="nDCNG@10", testing=Options(test="tukey"))
    assert np.allclose(tukey.p["nDCNG@10"], statistics.tukey_hsd(values), equal_nan=True)


def test_leaderboard_ties_untested_measures_and_views(task):
    qrels, runs = task
    first = next(iter(runs))
    twins = {**runs, "twin": runs[first]}
    exp = img.experiment(qrels, twins, ["AP", "NumRet"])
    board = leaderboard(exp, testing=Options(test="randomized_tukey", permutations=500))
    table = board.table.set_index(["run", "measure"])
    assert table.loc[(first, "AP"), "rank"] == table.loc[("twin", "AP"), "rank"]
    assert (board.table[board.table["measure"] == "NumRet"]["group"] == "").all()
    assert "NumRet" not in board.p and "No letters for NumRet" in board.legend()
    assert "\\textsuperscript{a}" in board.to_latex()
    assert board.to_markdown().startswith("### Leaderboard")
    lines = board.render("tsv").splitlines()
    assert lines[0] == "run\tmeasure\tvalue\trank\tgroup\tci_low\tci_high" and len(lines) == 1 + 2 * len(twins)


def test_one_run_is_refused_in_one_line(task):
    qrels, runs = task
    exp = img.experiment(qrels, {"only": next(iter(runs.values()))}, ["AP"])
    for function in (leaderboard, agreement, topics, pool, bounds):
        with pytest.raises(GradedInputError, match="at least two runs") as error:
            function(exp)
        assert "\n" not in str(error.value)


# --- agreement -------------------------------------------------------------------------------------------------

def _tau_ap(truth, estimate):
    """Yilmaz, Aslam & Robertson (2008): walk down ``estimate``; C(i) of the i-1 above agree with ``truth``."""
    order = np.argsort(-estimate)
    n = len(order)
    total = 0.0
    for i in range(1, n):
        above = order[:i]
        total += sum(truth[a] > truth[order[i]] for a in above) / i
    return 2 / (n - 1) * total - 1


def test_agreement_against_scipy_and_the_published_tau_ap(exp):
    from scipy import stats

    board = leaderboard(exp, testing=Options(test="randomized_tukey", permutations=1000))
    found = agreement(exp, board=board).table
    agg = exp.aggregates.pivot(index="run", columns="measure", values="value").reindex(exp.runs)
    assert len(found) == len(MEASURES) * (len(MEASURES) - 1) // 2
    for row in found.itertuples():
        a, b = agg[row.measure].to_numpy(), agg[row.other].to_numpy()
        assert row.tau == pytest.approx(stats.kendalltau(a, b).statistic)
        if len(set(a)) == len(a) and len(set(b)) == len(b):
            assert row.tau_ap == pytest.approx((_tau_ap(a, b) + _tau_ap(b, a)) / 2)
        swaps = [(i, j) for i, j in itertools.combinations(range(len(a)), 2) if (a[i] - a[j]) * (b[i] - b[j]) < 0]
        assert row.swaps == len(swaps)
        order = [board.runs.index(r) for r in exp.runs]
        sa = board.significant(row.measure)[np.ix_(order, order)]
        sb = board.significant(row.other)[np.ix_(order, order)]
        assert row.significant_swaps == sum(sa[i, j] and sb[i, j] for i, j in swaps)


def test_agreement_counts_significant_swaps_on_a_known_case():
    # two measures that order runs A, B, C as A > B > C and C > B > A
    qrels = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "relevance": [2, 1, 0]})
    runs = {"A": pd.DataFrame({"query_id": "q1", "doc_id": ["a", "b", "c"], "score": [3.0, 2, 1]}),
            "B": pd.DataFrame({"query_id": "q1", "doc_id": ["b", "a", "c"], "score": [3.0, 2, 1]})}
    exp = img.experiment(qrels, runs, ["P@1", "AP"])
    table = agreement(exp, testing=Options(test="randomized_tukey", permutations=100)).table
    assert table.loc[0, "swaps"] == 0 and table.loc[0, "pairs"] == 1


# --- topics -------------------------------------------------------------------------------------------------------

def test_topics_against_a_loop(exp):
    view = topics(exp)
    pq = exp.per_query
    for row in view.table.itertuples():
        values = pq[(pq["query_id"] == row.query_id) & (pq["measure"] == row.measure)].set_index("run")["value"]
        assert (row.best, row.median, row.worst) == pytest.approx((values.max(), np.median(values), values.min()))
        assert row.zero == int((values == 0).sum())
        assert row.best_runs.split(", ") == [r for r in values.index if values[r] == values.max()]
    per_run = view.runs
    assert np.allclose(per_run["difference"], per_run["value"] - per_run["median"])
    summary = view.summary.set_index(["run", "measure"])
    for (run, measure), of in per_run.groupby(["run", "measure"]):
        assert summary.loc[(run, measure), "best"] == of["best"].sum()
        assert summary.loc[(run, measure), "mean_difference"] == pytest.approx(of["difference"].mean())


# --- pool ------------------------------------------------------------------------------------------------------------

def _ranked(run: pd.DataFrame) -> pd.DataFrame:
    """ir_measures' order: score descending as float32, ties by doc id descending; rank from 1."""
    ordered = run.assign(key=run["score"].astype(np.float32)).sort_values(
        ["query_id", "key", "doc_id"], ascending=[True, False, False])
    return ordered.assign(rank=ordered.groupby("query_id").cumcount() + 1)


def _competition(values: pd.Series, run: str) -> int:
    return 1 + int((values > values[run] + 1e-12).sum())


@pytest.mark.parametrize("groups", [None, "-"])
def test_leave_one_out_against_a_plain_re_evaluation(task, groups):
    qrels, runs = task
    exp = img.experiment(qrels, runs, BOUNDED)
    found = pool(exp, depth=5, groups=groups)
    group_of = {r: (r.split("-")[0] if groups else r) for r in runs}
    judged = set(zip(qrels["query_id"], qrels["doc_id"], strict=True))
    pooled: dict[tuple, set] = {}
    for name, run in runs.items():
        top = _ranked(run)
        top = top[top["rank"] <= 5]
        for q, d in zip(top["query_id"], top["doc_id"], strict=True):
            if (q, d) in judged:
                pooled.setdefault((q, d), set()).add(group_of[name])
    agg = exp.aggregates.pivot(index="run", columns="measure", values="value")
    for group in dict.fromkeys(group_of.values()):
        unique = {k for k, holders in pooled.items() if holders == {group}}
        keep = [(q, d) not in unique for q, d in zip(qrels["query_id"], qrels["doc_id"], strict=True)]
        members = [r for r in runs if group_of[r] == group]
        again = img.experiment(qrels[keep], {r: runs[r] for r in members}, BOUNDED).aggregates
        contributed = found.contributions[found.contributions["group"] == group]
        assert contributed["unique"].sum() == len(unique)
        assert contributed["contributed"].sum() == sum(group in h for h in pooled.values())
        for row in again.itertuples():
            mine = found.table[(found.table["run"] == row.run) & (found.table["measure"] == row.measure)].iloc[0]
            assert mine["value_without"] == pytest.approx(row.value, abs=1e-12)
            scores = agg[row.measure].copy()
            for r in members:
                scores[r] = again[(again["run"] == r) & (again["measure"] == row.measure)]["value"].iloc[0]
            assert mine["rank_without"] == _competition(scores, row.run)
            assert mine["rank"] == _competition(agg[row.measure], row.run)
    drops = (found.table["value"] - found.table["value_without"]).groupby(found.table["measure"]).max()
    assert np.allclose(found.reusability.set_index("measure")["largest_drop"], drops.reindex(found.reusability["measure"]))


def test_the_pool_depth_is_inferred_per_topic(task, exp):
    qrels, runs = task
    judged = set(zip(qrels["query_id"], qrels["doc_id"], strict=True))
    depths = {}
    for run in runs.values():
        ranked = _ranked(run)
        for q, of in ranked.groupby("query_id"):
            unjudged = [r for d, r in zip(of["doc_id"], of["rank"], strict=True) if (q, d) not in judged]
            depths[q] = min(depths.get(q, 10**9), (min(unjudged) - 1) if unjudged else 10**9)
    found = pool(exp).depths.set_index("query_id")["depth"]
    assert {q: int(found[q]) for q in depths} == depths
    # the runs as pooled (before their scores were rounded): the depth they were pooled to
    qrels, runs = shared_task(n_runs=6, n_queries=8, depth=5, retrieved=30, seed=7)
    assert set(pool(img.experiment(qrels, runs, ["AP"])).depths["depth"]) == {5}


def test_pool_refuses_bad_depths_and_groups_in_one_line(exp):
    for call, message in [(lambda: pool(exp, depth=31), "pool depth 31 is deeper than some runs"),
                          (lambda: pool(exp, depth=0), "positive whole number"),
                          (lambda: pool(exp, groups={"nobody": "x"}), "groups name runs the experiment does not have"),
                          (lambda: pool(exp, groups=lambda r: "all"), "at least two groups")]:
        with pytest.raises(GradedInputError, match=message) as error:
            call()
        assert "\n" not in str(error.value)


def test_pool_is_the_same_without_kept_runs(task, exp):
    qrels, runs = task
    plain = img.experiment(qrels, runs, MEASURES)
    assert pool(plain, depth=5).table.equals(pool(exp, depth=5).table)


# --- bounds -----------------------------------------------------------------------------------------------------------

def test_bounds_against_explicit_judgments_at_the_floor_and_the_top(task):
    qrels, runs = task
    exp = img.experiment(qrels, runs, BOUNDED)
    found = bounds(exp).table.set_index(["run", "measure"])
    top = qrels.groupby("query_id")["relevance"].max()
    judged = set(zip(qrels["query_id"], qrels["doc_id"], strict=True))
    for name, run in runs.items():
        for column, values in explicit_bounds(qrels, run, top, BOUNDED).items():
            for measure, value in values.items():
                assert found.loc[(name, measure), column] == pytest.approx(value, abs=1e-12), (column, measure)
        ranked = _ranked(run)
        for measure, k in (("nDCNG@10", 10), ("AP", None), ("P@5", 5)):
            inside = ranked if k is None else ranked[ranked["rank"] <= k]
            share = inside.assign(j=[(q, d) in judged for q, d in zip(inside["query_id"], inside["doc_id"],
                                                                       strict=True)]).groupby("query_id")["j"].mean()
            assert found.loc[(name, measure), "judged"] == pytest.approx(share.reindex(top.index, fill_value=0).mean())
        # at the floor, nothing changes for measures that count unjudged documents as irrelevant
        assert np.allclose(found.loc[name, "floor"], found.loc[name, "value"])
    table = bounds(exp).table
    assert (table["low"] <= table["high"]).all()
    for _, of in table.groupby("measure"):
        lo, hi = of["low"].to_numpy(), of["high"].to_numpy()
        meets = [sum(1 for j in range(len(lo)) if j != i and lo[i] <= hi[j] and lo[j] <= hi[i]) for i in range(len(lo))]
        assert list(of["overlaps"]) == meets


def test_bounds_refuse_measures_that_cannot_be_bounded(task):
    qrels, runs = task
    exp = img.experiment(qrels, runs, ["AP", "Judged@10"])
    with pytest.raises(GradedInputError, match=r"cannot bound Judged@10 \(it measures the judging") as error:
        bounds(exp)
    assert "\n" not in str(error.value)
    assert list(bounds(exp, measures=["AP"]).table["measure"].unique()) == ["AP"]


def test_a_leaderboard_row_whose_interval_could_reverse_an_order_is_flagged(exp):
    limits = bounds(exp, measures=["nDCNG@10", "P@5"])
    board = leaderboard(exp, by="nDCNG@10", testing=Options(test="randomized_tukey", permutations=200), bounds=limits)
    table = board.table.set_index(["run", "measure"])
    shown = board.display().set_index("run")
    for (run, measure), row in table.iterrows():
        if measure in ("nDCNG@10", "P@5"):
            mine = limits.table.set_index(["run", "measure"]).loc[(run, measure)]
            assert (row["low"], row["high"], row["overlaps"]) == (mine["low"], mine["high"], mine["overlaps"])
            # the flag: an overlap with a run the test separates it from (#51; test_organiser_edges checks which)
            assert shown.loc[run, measure].split(" ")[0].endswith("*") == (row["reversible"] > 0)
            assert row["reversible"] <= mine["overlaps"]
        else:
            assert pd.isna(row["overlaps"]) and pd.isna(row["reversible"]) and "*" not in shown.loc[run, measure]
    assert "*: judging the unjudged documents" in board.legend()
    flagged = table["overlaps"].dropna()
    assert (flagged > 0).any() and (flagged == 0).any()  # both cases are exercised


# --- figures -------------------------------------------------------------------------------------------------------

def test_the_leaderboard_figure_draws_values_intervals_and_groups(exp, tmp_path):
    board = leaderboard(exp, by="AP", testing=Options(test="randomized_tukey", permutations=500))
    fig = board.plot(tmp_path / "board.png")
    assert (tmp_path / "board.png").stat().st_size > 0
    ax, groups = fig.axes
    rows = board.table[board.table["measure"] == "AP"].set_index("run").reindex(board.runs)
    dots = ax.lines[0].get_xdata()
    assert np.allclose(dots, rows["value"])
    segments = ax.collections[0].get_segments()
    assert np.allclose([s[:, 0] for s in segments], rows[["ci_low", "ci_high"]].to_numpy())
    # one shaded cell per (run, letter) the run holds
    assert len(groups.patches) == sum(len(g) for g in rows["group"])
    with pytest.raises(GradedInputError, match="not on the leaderboard"):
        board.plot(measure="NumRet")


def test_the_topics_figure_draws_the_sorted_differences(exp, tmp_path):
    view = topics(exp)
    run = exp.runs[1]
    fig = view.plot(run, "nDCNG@10", tmp_path / "topics.svg")
    heights = [p.get_height() for p in fig.axes[0].patches]
    of = view.runs[(view.runs["run"] == run) & (view.runs["measure"] == "nDCNG@10")]
    assert heights == sorted(of["difference"], reverse=True)
    assert (tmp_path / "topics.svg").read_text().startswith("<?xml")


def test_nan_scores_rank_last_without_rank_or_letter():
    from ir_measures_graded.organiser.common import competition_ranks
    from ir_measures_graded.organiser.leaderboard import _letters

    ranks = competition_ranks(np.array([0.5, np.nan, 0.7, 0.5 + 1e-12]))
    assert ranks[[0, 2, 3]].tolist() == [2, 1, 2] and np.isnan(ranks[1])
    p = np.array([[np.nan, np.nan, 0.01], [np.nan, np.nan, np.nan], [0.01, np.nan, np.nan]])
    assert _letters(p, np.array([0.5, np.nan, 0.7]), Options(alpha=0.05)) == ["b", "", "a"]


def test_agreement_leaves_untested_measures_without_significant_swaps(task):
    qrels, runs = task
    exp = img.experiment(qrels, runs, ["AP", "NumRet"])
    found = agreement(exp, testing=Options(test="randomized_tukey", permutations=100))
    assert pd.isna(found.table.loc[0, "significant_swaps"]) and "No significant swaps for NumRet" in found.legend()


@given(st.integers(2, 6), st.integers(1, 6), st.integers(1, 3), st.booleans())
@settings(max_examples=40, deadline=None)
def test_randomised_tukey_of_several_measures_is_each_alone(m, n, k, with_nan):
    rng = np.random.default_rng(m * 100 + n * 10 + k)
    matrices = [rng.integers(0, 3, (m, n)) / 2 for _ in range(k)]
    if with_nan:
        matrices[0][0, 0] = np.nan
    many = statistics.randomized_tukey_hsd_many(matrices, permutations=200, seed=3)
    for x, p in zip(matrices, many, strict=True):
        assert np.array_equal(p, statistics.randomized_tukey_hsd(x, permutations=200, seed=3), equal_nan=True)


def test_leave_one_out_when_a_topic_loses_every_judgment():
    """q2's only judged documents are A's alone: without them q2 leaves the qrels (the mean is over q1)."""
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["x", "y", "z", "w"],
                          "relevance": [2, 1, 3, 0]})
    runs = {"A": pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["x", "u", "z", "w"],
                               "score": [2.0, 1, 2, 1]}),
            "B": pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["x", "y", "v"], "score": [2.0, 1, 1]})}
    exp = img.experiment(qrels, runs, BOUNDED)
    found = pool(exp, depth=2).table.set_index(["run", "measure"])
    kept = qrels[~qrels["doc_id"].isin(["z", "w"])]
    again = img.experiment(kept, {"A": runs["A"]}, BOUNDED).aggregates
    for row in again.itertuples():
        assert found.loc[("A", row.measure), "value_without"] == pytest.approx(row.value, abs=1e-12), row
