"""Meta-evaluation (ir_measures_graded.meta): each statistic against a direct slow computation."""

from __future__ import annotations

import itertools
import math

import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_measures_graded import meta, muMAP, nDCNG, statistics
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiment import experiment
from ir_measures_graded.meta.transforms import parse_transform
from ir_measures_graded.sample import graded_sample
from support.cli import run_main
from support.examples import examples
from support.paths import QRELS, RANDOM, STRONG, WEAK

# --- slow references -----------------------------------------------------------------------------


def slow_tau_b(x, y):
    """Kendall's τ-b by counting pairs."""
    concordant = discordant = ties_x = ties_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            ties_x += 1
        elif dy == 0:
            ties_y += 1
        elif dx == dy:
            concordant += 1
        else:
            discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return (concordant - discordant) / denominator


def slow_tau_ap(truth, estimate):
    """τ_AP from its definition: walk down the estimated ranking, count correctly placed items above."""
    items = sorted(range(len(truth)), key=lambda k: (-estimate[k], -truth[k], k))
    total = 0.0
    for i in range(1, len(items)):
        correct = sum(1 for j in range(i) if truth[items[j]] >= truth[items[i]])
        total += correct / i
    return 2.0 / (len(items) - 1) * total - 1.0


def slow_randomization_p(d):
    """Exact two-sided paired randomization test by enumerating every sign assignment."""
    observed = abs(sum(d) / len(d))
    hits = 0
    for signs in itertools.product((-1, 1), repeat=len(d)):
        if abs(sum(s * v for s, v in zip(signs, d, strict=True)) / len(d)) >= observed - 1e-12:
            hits += 1
    return hits / 2 ** len(d)


# --- statistics ------------------------------------------------------------------------------------

scores_strategy = st.lists(st.sampled_from([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]), min_size=3, max_size=8)


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_kendall_tau_equals_pair_counting(data):
    x = data.draw(scores_strategy)
    y = data.draw(st.lists(st.sampled_from([0.1, 0.2, 0.3, 0.4]), min_size=len(x), max_size=len(x)))
    if len(set(x)) < 2 or len(set(y)) < 2:
        assert math.isnan(statistics.kendall_tau(np.array(x), np.array(y)))
        return
    assert statistics.kendall_tau(np.array(x), np.array(y)) == pytest.approx(slow_tau_b(x, y), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(7))), st.permutations(list(range(7))))
def test_tau_ap_equals_its_definition(truth, estimate):
    truth, estimate = np.array(truth, dtype=float), np.array(estimate, dtype=float)
    assert statistics.tau_ap(truth, estimate) == pytest.approx(slow_tau_ap(truth, estimate), abs=1e-12)


def test_tau_ap_penalises_swaps_at_the_top_more():
    truth = np.array([5.0, 4, 3, 2, 1])
    assert statistics.tau_ap(truth, truth) == 1.0
    assert statistics.tau_ap(truth, -truth) == pytest.approx(-1.0)
    top = statistics.tau_ap(truth, np.array([4.0, 5, 3, 2, 1]))
    bottom = statistics.tau_ap(truth, np.array([5.0, 4, 3, 1, 2]))
    assert top < bottom < 1.0
    assert statistics.kendall_tau(truth, np.array([4.0, 5, 3, 2, 1])) == statistics.kendall_tau(
        truth, np.array([5.0, 4, 3, 1, 2]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=10))
def test_randomization_test_exact_equals_full_enumeration(d):
    d = [v / 10 for v in d]
    got = statistics.randomization_test(np.array([d]), permutations=None)[0]
    assert got == pytest.approx(slow_randomization_p(d), abs=1e-12)


def test_paired_t_test_equals_the_formula():
    from scipy import stats as sp

    rng = np.random.default_rng(0)
    a, b = rng.random((3, 15)), rng.random((3, 15))
    d = a - b
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(15))
    expected = 2 * sp.t.sf(np.abs(t), df=14)
    assert np.allclose(statistics.paired_t_test(a, b), expected, atol=1e-12)
    assert statistics.paired_t_test(a[:1], a[:1])[0] == 1.0


def slow_holm(p):
    order = sorted(range(len(p)), key=lambda k: p[k])
    out, running = [0.0] * len(p), 0.0
    for rank, k in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[k]))
        out[k] = running
    return out


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=8))
def test_holm_and_bonferroni(p):
    assert np.allclose(statistics.correct(np.array(p), "holm"), slow_holm(p))
    assert np.allclose(statistics.correct(np.array(p), "bonferroni"), [min(1.0, v * len(p)) for v in p])
    with pytest.raises(ValueError, match="unknown correction"):
        statistics.correct(np.array(p), "sidak")


# --- transforms ------------------------------------------------------------------------------------

def test_transforms_map_labels_and_thresholds():
    labels = np.array([0, 1, 2, 3, 4], dtype=float)
    assert parse_transform("scale:2").apply(labels).tolist() == [0, 2, 4, 6, 8]
    assert parse_transform("shift:1").apply(labels).tolist() == [1, 2, 3, 4, 5]
    assert parse_transform("merge:3,4").apply(labels).tolist() == [0, 1, 2, 3, 3]
    assert parse_transform("insert:3").apply(labels).tolist() == [0, 1, 2, 4, 5]
    assert parse_transform("map:1=1,2=3,3=7,4=15").apply(labels).tolist() == [0, 1, 3, 7, 15]
    real = parse_transform("real:5", labels).apply(labels)
    assert real[0] == 0 and np.all(np.diff(real) > 0) and not np.all(real == np.round(real))
    assert parse_transform("shift:1").threshold(0) == 1


@pytest.mark.parametrize("spec", ["scale:0", "scale:x", "merge:3", "map:2=1,3=0", "map:1", "bogus:1", "real"])
def test_bad_transforms_are_refused(spec):
    with pytest.raises(ValueError):
        parse_transform(spec)


# --- the API on data -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sample():
    return graded_sample()


def test_per_query_scores_missing_queries_zero_and_matches_ir_measures(sample):
    qrels, runs = sample
    partial = {"strong": runs["strong"][runs["strong"]["query_id"] != "S01"]}
    with pytest.warns(UserWarning, match="ranks no document for 1 of the 30 judged queries"):
        table = experiment(qrels, partial, [muMAP, "nDCG@10"]).per_query
    assert set(table["query_id"]) == set(qrels["query_id"])
    assert (table.loc[table["query_id"] == "S01", "value"] == 0).all()
    direct = {(m.query_id, str(m.measure)): m.value
              for m in ir_measures.iter_calc([muMAP, ir_measures.nDCG @ 10], qrels, partial["strong"])}
    got = table.set_index(["query_id", "measure"])["value"].to_dict()
    assert got == pytest.approx(direct, abs=1e-12)


def test_scale_dependence_shows_the_papers_claim(sample):
    qrels, runs = sample
    measures = [muMAP, nDCNG @ 10, "meanNDCG", "AP", "nDCG@10"]
    table = meta.scale_dependence(qrels, runs, measures, ["scale:2", "shift:1"]).set_index(["transform", "measure"])
    for name in ("muAP", "nDCNG@10"):
        assert table.loc[("scale:2", name), "max_abs_delta"] == pytest.approx(0, abs=1e-12)
        assert table.loc[("shift:1", name), "max_abs_delta"] == pytest.approx(0, abs=1e-12)
    assert table.loc[("scale:2", "meanNDCG"), "max_abs_delta"] > 0.01  # exponential gain depends on the scale
    assert table.loc[("shift:1", "nDCG@10"), "max_abs_delta"] > 0.01  # linear gain too, under a shift
    assert table.loc[("shift:1", "AP"), "note"] == "computed as AP(rel=2)"
    assert table.loc[("shift:1", "AP"), "max_abs_delta"] == pytest.approx(0, abs=1e-12)
    real = meta.scale_dependence(qrels, runs, ["AP", muMAP], ["real"]).set_index("measure")
    assert np.isnan(real.loc["AP", "kendall_tau"]) and real.loc["AP", "note"]
    assert real.loc["muAP", "kendall_tau"] == 1.0


def test_stability_and_discriminative_power(sample):
    qrels, runs = sample
    table = experiment(qrels, runs, [muMAP, "P@5"]).per_query
    stab = meta.stability(table, samples=50, seed=1).set_index("measure")
    assert stab.loc["muAP", "samples"] == 50 and -1 <= stab.loc["P@5", "tau_min"] <= stab.loc["P@5", "tau_mean"] <= 1
    summary, pairs = meta.discriminative_power(table, alpha=0.05, permutations=2000, seed=0)
    assert list(summary["pairs"]) == [3, 3]
    for measure, group in pairs.groupby("measure"):
        share = (group["p_value"] < 0.05).mean()
        assert summary.set_index("measure").loc[measure, "discriminative_power"] == share
        assert sorted(group["asl_rank"]) == [1, 2, 3]


def test_discriminative_power_on_few_queries_is_exact():
    rows = [("a", f"q{i}", "m", v) for i, v in enumerate([0.5, 0.6, 0.7, 0.2, 0.9])]
    rows += [("b", f"q{i}", "m", v) for i, v in enumerate([0.4, 0.6, 0.5, 0.1, 0.3])]
    table = pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])
    _, pairs = meta.discriminative_power(table, permutations=10_000)
    d = [0.1, 0.0, 0.2, 0.1, 0.6]
    assert pairs["p_value"].iloc[0] == pytest.approx(slow_randomization_p(d), abs=1e-9)


def test_comparison_against_a_baseline(sample):
    qrels, runs = sample
    evaluated = experiment(qrels, runs, [muMAP])
    result = evaluated.compare("random", correction="holm").table.set_index("run")
    assert np.isnan(result.loc["random", "p_value"])
    assert result.loc["strong", "delta"] == pytest.approx(result.loc["strong", "value"] - result.loc["random", "value"])
    raw = result.loc[["strong", "weak"], "p_value"].to_numpy()
    assert np.allclose(result.loc[["strong", "weak"], "p_adjusted"], statistics.correct(raw, "holm"))
    with pytest.raises(GradedInputError, match="baseline"):
        evaluated.compare("nope")


def test_meta_evaluate_needs_two_runs(sample):
    qrels, runs = sample
    with pytest.raises(GradedInputError, match="at least two"):
        meta.meta_evaluate(qrels, {"strong": runs["strong"]}, [muMAP])


def test_the_layer_before_the_experiment_is_gone():
    """Issue 42: the names meta had before the experiment layer (never released) are removed, not kept
    as aliases: an experiment's per_query and compare(), find_baseline, the statistics and tables modules."""
    import importlib

    for name in ("per_query", "compare_runs", "compare_results", "find_run", "statistics", "tables"):
        assert not hasattr(meta, name), name
    for module in ("deprecated", "statistics", "tables"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(f"ir_measures_graded.meta.{module}")


# --- command line ----------------------------------------------------------------------------------

def test_compare_command(tmp_path, capsys):
    runs = [STRONG, WEAK, RANDOM]
    plot = tmp_path / "meta.svg"
    out, _ = run_main(capsys, "compare", QRELS, *runs, "-m", "muMAP nDCNG@10", "nDCG@10", "--transform", "scale:2",
                      "--transform", "merge:3,4", "--samples", "20", "--permutations", "500", "-o", "markdown",
                      "--plot", str(plot))
    assert "| scale:2     | muAP" in out and "### Discriminative power" in out, out
    assert plot.read_text().lstrip().startswith("<?xml")
    for fmt, sections, marker in (("latex", [], "\\begin{tabular}"), ("tsv", ["--sections", "means"], "run\tmeasure\tvalue\n"),
                                  ("tsv", [], "run\tmeasure\tvalue\tdelta")):  # tsv: one table, the comparison by default
        out, _ = run_main(capsys, "compare", QRELS, *runs[:2], "-m", "muMAP", "--samples", "5", "--permutations", "100",
                          "-o", fmt, *sections)
        assert out.startswith(marker) if fmt == "tsv" else marker in out, out


@pytest.mark.parametrize("extra, message", [
    (["--transform", "scale:-1"], "factor must be positive"),
    (["--transform", "nope"], "unknown transform"),
])
def test_compare_command_errors(capsys, extra, message):
    _, err = run_main(capsys, "compare", QRELS, STRONG, WEAK, "-m", "muMAP", *extra, rc=2)
    assert message in err


def test_ordinary_command_compares_runs_with_a_baseline(capsys):
    runs = [STRONG, WEAK, RANDOM]
    out, _ = run_main(capsys, QRELS, *runs, "muMAP", "AP", "--compare", "random", "--correction", "bonferroni")
    table = pd.read_csv(pd.io.common.StringIO(out), sep="\t")  # tsv: the comparison is the one table
    from ir_measures_graded.experiment.comparison import COLUMNS

    assert list(table.columns) == COLUMNS
    assert list(table["measure"]) == ["muAP"] * 3 + ["AP"] * 3
    qrels, sample_runs = graded_sample()
    expected = experiment(qrels, sample_runs, [muMAP]).compare("random", correction="bonferroni").table.set_index("run")
    strong = table[(table["run"] == "strong.run") & (table["measure"] == "muAP")].iloc[0]
    assert strong["p_adjusted"] == pytest.approx(expected.loc["strong", "p_adjusted"], rel=1e-2)
    assert strong["delta"] == pytest.approx(expected.loc["strong", "delta"], abs=1e-4)
    _, err = run_main(capsys, QRELS, *runs, "muMAP", "--compare", "nope", rc=2)
    assert "is none of the runs" in err
