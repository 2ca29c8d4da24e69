"""Label agreement of two judges: κ and α against hand-computed cases, a slow textbook α, scikit-learn,
statsmodels and the krippendorff package; invariants by hypothesis; bad input in one line."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.judges.grades import ALL, cohen_kappa, krippendorff_alpha, label_agreement


def frame(queries, docs, grades) -> pd.DataFrame:
    return pd.DataFrame({"query_id": [str(q) for q in queries], "doc_id": [str(d) for d in docs],
                         "relevance": grades})


def textbook_alpha(a: np.ndarray, b: np.ndarray, level: str) -> float:
    """Krippendorff (2011) by its definition: every pair of values within a unit (observed) and every pair
    of values over all units (expected), one at a time."""
    values = np.concatenate([a, b]).astype(float)
    grades = sorted(set(values.tolist()))
    count = {g: float(np.sum(values == g)) for g in grades}

    def delta(c: float, k: float) -> float:
        if level == "interval":
            return (c - k) ** 2
        low, high = min(c, k), max(c, k)
        return (sum(count[g] for g in grades if low <= g <= high) - (count[c] + count[k]) / 2) ** 2

    n = len(values)
    observed = sum(2 * delta(x, y) for x, y in zip(a.tolist(), b.tolist(), strict=True)) / n
    expected = sum(delta(values[i], values[j]) for i, j in itertools.permutations(range(n), 2)) / (n * (n - 1))
    return 1 - observed / expected


def table_of(a, b, scale):
    position = {g: k for k, g in enumerate(scale)}
    table = np.zeros((len(scale), len(scale)))
    for x, y in zip(a, b, strict=True):
        table[position[x], position[y]] += 1
    return table


def test_kappa_by_hand():
    # p_o = 35/50 = 0.7; p_e = (25*30 + 25*20) / 50^2 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    assert cohen_kappa(np.array([[20, 5], [10, 15]])) == pytest.approx(0.4)
    # linear weights on 3 grades: disagreements 0 vs 2 weigh twice 0 vs 1
    table = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 1]])
    # observed weighted disagreement: 2 (one doc at distance 2) / 4; expected: sum w * rows x cols / n
    rows, cols = table.sum(1), table.sum(0)
    expected = sum(abs(i - j) * rows[i] * cols[j] for i in range(3) for j in range(3)) / 4
    assert cohen_kappa(table, "linear") == pytest.approx(1 - 2 / expected)


def test_alpha_by_hand():
    # two judges, four documents: 0/0, 1/1, 1/0, 2/2 (interval): n = 8 values
    a, b = np.array([0, 1, 1, 2]), np.array([0, 1, 0, 2])
    # observed: 2 * 1 over 8 values; expected: all ordered pairs of the values 0,0,0,1,1,1,2,2
    values = [0, 0, 0, 1, 1, 1, 2, 2]
    expected = sum((x - y) ** 2 for i, x in enumerate(values) for j, y in enumerate(values) if i != j) / 56
    assert krippendorff_alpha(table_of(a, b, [0, 1, 2]), np.array([0, 1, 2]), "interval") == pytest.approx(
        1 - (2 / 8) / expected)


grades_pairs = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=40).filter(
    lambda pairs: len({g for p in pairs for g in p}) > 1)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # statsmodels' standard errors of a degenerate table
@settings(max_examples=60, deadline=None)
@given(grades_pairs)
def test_kappa_and_alpha_equal_the_libraries(pairs):
    a, b = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    scale = sorted(set(a.tolist()) | set(b.tolist()))
    table = table_of(a, b, scale)
    for ours, theirs, statsmodels_wt in (("unweighted", None, None), ("linear", "linear", "linear"),
                                         ("quadratic", "quadratic", "quadratic")):
        expected = cohen_kappa_score(a, b, labels=scale, weights=theirs)
        got = cohen_kappa(table, ours)
        if np.isnan(expected):
            assert np.isnan(got)
            continue
        assert got == pytest.approx(expected, abs=1e-12)
        assert got == pytest.approx(cohens_kappa(table, wt=statsmodels_wt).kappa, abs=1e-12)
    for level in ("ordinal", "interval"):
        got = krippendorff_alpha(table, np.array(scale, dtype=float), level)
        library = krippendorff.alpha(np.vstack([a, b]).astype(float), level_of_measurement=level)
        assert got == pytest.approx(library, abs=1e-9)
        assert got == pytest.approx(textbook_alpha(a, b, level), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(grades_pairs, st.integers(1, 3))
def test_self_agreement_is_one_and_swapping_judges_changes_nothing_symmetric(pairs, topics):
    a = frame([i % topics for i in range(len(pairs))], range(len(pairs)), [p[0] for p in pairs])
    b = frame([i % topics for i in range(len(pairs))], range(len(pairs)), [p[1] for p in pairs])
    itself = label_agreement(a, a)
    for column in ("kappa", "kappa_linear", "kappa_quadratic", "alpha_ordinal", "alpha_interval") if len(
            set(a.relevance)) == 1 else ():  # one grade: no disagreement expected by chance, nothing to say
        assert np.isnan(itself.overall(column))
    for column in ("kappa", "kappa_linear", "kappa_quadratic", "alpha_ordinal", "alpha_interval", "identical"):
        if len(set(a.relevance)) > 1 or column == "identical":
            assert itself.overall(column) == pytest.approx(1.0)
    ab, ba = label_agreement(a, b), label_agreement(b, a)
    columns = ["kappa", "kappa_linear", "kappa_quadratic", "alpha_ordinal", "alpha_interval", "identical", "common"]
    pd.testing.assert_frame_equal(ab.summary.table[columns], ba.summary.table[columns])
    confusion = ab.confusion.table.set_index(["grade_a", "grade_b"])["count"]
    swapped = ba.confusion.table.set_index(["grade_b", "grade_a"])["count"].rename_axis(["grade_a", "grade_b"])
    pd.testing.assert_series_equal(confusion.sort_index(), swapped.sort_index())


def test_tables_per_topic_thresholds_and_one_side():
    a = frame([1, 1, 1, 2, 2, 2], ["a", "b", "c", "a", "b", "x"], [0, 2, 3, 1, 3, 2])
    b = frame([1, 1, 1, 2, 2, 3], ["a", "b", "c", "a", "b", "y"], [0, 3, 3, 0, 3, 1])
    found = label_agreement(a, b, "NIST", "LLM")
    summary = found.summary.table.set_index("query_id")
    assert list(summary.index) == [ALL, "1", "2", "3"]
    assert summary.loc[ALL, ["common", "only_a", "only_b"]].tolist() == [5, 1, 1]
    assert summary.loc["1", "identical"] == pytest.approx(2 / 3)
    assert summary.loc["3", "common"] == 0 and np.isnan(summary.loc["3", "kappa"])
    # every topic's kappa as scikit-learn's on that topic's documents (on the qrels' one scale)
    both = a.merge(b, on=["query_id", "doc_id"])
    for topic, rows in both.groupby("query_id"):
        scale = [0, 1, 2, 3]
        assert summary.loc[topic, "kappa_quadratic"] == pytest.approx(
            cohen_kappa_score(rows.relevance_x, rows.relevance_y, labels=scale, weights="quadratic"))
    thresholds = found.thresholds.table
    at2 = thresholds[(thresholds.query_id == ALL) & (thresholds.threshold_a == 2)].iloc[0]
    # A >= 2: b(1), c(1), b(2); LLM >= 2: b, c, b(2): all three both; neither: a(1), a(2)
    assert (at2.both, at2.a_only, at2.b_only, at2.neither) == (3, 0, 0, 2)
    at1 = thresholds[(thresholds.query_id == ALL) & (thresholds.threshold_a == 1)].iloc[0]
    assert (at1.both, at1.a_only, at1.b_only, at1.neither, at1.agreement) == (3, 1, 0, 1, pytest.approx(0.8))
    assert found.one_side.table.values.tolist() == [["NIST", 2, 1], ["LLM", 1, 1]]
    assert found.confusion.table.set_index(["grade_a", "grade_b"]).loc[(2, 3), "count"] == 1


def test_different_scales_said_and_compared_at_every_pair_of_thresholds():
    a = frame([1] * 6, range(6), [0, 1, 2, 3, 3, 2])
    b = frame([1] * 6, range(6), [0, 1, 1, 2, 2, 2])
    found = label_agreement(a, b)
    assert not found.same_scale and not found.summary.table["same_scale"].any()
    assert "The scales differ (A: 0 1 2 3; B: 0 1 2)" in found.summary.legend()
    pairs = found.thresholds.table.query("query_id == 'all'")[["threshold_a", "threshold_b"]].values.tolist()
    assert pairs == [[1, 1], [1, 2], [2, 1], [2, 2], [3, 1], [3, 2]]
    mapped = label_agreement(a, b, mapping="map:1=1,2=3")
    assert mapped.grades_b == [0.0, 1.0, 3.0] and "mapped by map:1=1,2=3" in mapped.summary.legend()


def test_every_view():
    a = frame([1, 1, 2], ["a", "b", "a"], [0, 2, 1])
    found = label_agreement(a, a.assign(relevance=[0, 1, 1]))
    for view in (found.summary, found.confusion, found.thresholds, found.one_side):
        for output in ("text", "markdown", "latex", "tsv", "csv", "jsonl"):
            assert view.render(output, 3) or view.table.empty
    assert found.summary.to_latex().count("\\begin{table}") == 1


def test_bad_input_is_one_line():
    a = frame([1, 1], ["a", "b"], [0, 1])
    with pytest.raises(GradedInputError, match="no \\(query, document\\) judged in common"):
        label_agreement(a, frame([2], ["a"], [1]))
    with pytest.raises(GradedInputError, match="mapping of judge B's grades: .*order") as raised:
        label_agreement(a, a, mapping="map:1=0,0=1")
    assert "\n" not in str(raised.value)
    with pytest.raises(GradedInputError, match="judge B judges query 1 document a more than once"):
        label_agreement(a, frame([1, 1], ["a", "a"], [0, 1]))
