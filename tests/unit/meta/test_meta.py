"""Meta-evaluation (ir_measures_graded.meta): each statistic against a direct slow computation."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_measures_graded
from ir_measures_graded import meta, muMAP, nDCNG
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import experiment
from ir_measures_graded.experiments.testing import Testing as Options  # pytest would collect a "Test..." name
from ir_measures_graded.meta.transforms import parse_transform
from ir_measures_graded.sample import graded_sample
from support.cli import run_main
from support.paths import QRELS, RANDOM, STRONG, WEAK
from support.slow_statistics import slow_randomization_p

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
    table = meta.scale_dependence(ir_measures_graded.experiment(qrels, runs, measures), ["scale:2", "shift:1"]).set_index(["transform", "measure"])
    for name in ("muAP", "nDCNG@10"):
        assert table.loc[("scale:2", name), "max_abs_delta"] == pytest.approx(0, abs=1e-12)
        assert table.loc[("shift:1", name), "max_abs_delta"] == pytest.approx(0, abs=1e-12)
    assert table.loc[("scale:2", "meanNDCG"), "max_abs_delta"] > 0.01  # exponential gain depends on the scale
    assert table.loc[("shift:1", "nDCG@10"), "max_abs_delta"] > 0.01  # linear gain too, under a shift
    assert table.loc[("shift:1", "AP"), "note"] == "computed as AP(rel=2)"
    assert table.loc[("shift:1", "AP"), "max_abs_delta"] == pytest.approx(0, abs=1e-12)
    real = meta.scale_dependence(ir_measures_graded.experiment(qrels, runs, ["AP", muMAP]), ["real"]).set_index("measure")
    assert np.isnan(real.loc["AP", "kendall_tau"]) and real.loc["AP", "note"]
    assert real.loc["muAP", "kendall_tau"] == 1.0


def test_stability_and_discriminative_power(sample):
    qrels, runs = sample
    table = experiment(qrels, runs, [muMAP, "P@5"]).per_query
    stab = meta.stability(table, samples=50, seed=1).set_index("measure")
    assert stab.loc["muAP", "samples"] == 50 and -1 <= stab.loc["P@5", "tau_min"] <= stab.loc["P@5", "tau_mean"] <= 1
    summary, pairs = meta.discriminative_power(table, Options(test="randomization", correction="none", permutations=2000))
    assert list(summary["pairs"]) == [3, 3]
    for measure, group in pairs.groupby("measure"):
        share = (group["p_value"] < 0.05).mean()
        assert summary.set_index("measure").loc[measure, "discriminative_power"] == share
        assert sorted(group["asl_rank"]) == [1, 2, 3]


def test_discriminative_power_on_few_queries_is_exact():
    rows = [("a", f"q{i}", "m", v) for i, v in enumerate([0.5, 0.6, 0.7, 0.2, 0.9])]
    rows += [("b", f"q{i}", "m", v) for i, v in enumerate([0.4, 0.6, 0.5, 0.1, 0.3])]
    table = pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])
    _, pairs = meta.discriminative_power(table, Options(test="randomization", correction="none"))
    d = [0.1, 0.0, 0.2, 0.1, 0.6]
    assert pairs["p_value"].iloc[0] == pytest.approx(slow_randomization_p(d), abs=1e-9)


def test_meta_evaluate_needs_two_runs(sample):
    qrels, runs = sample
    with pytest.raises(GradedInputError, match="at least two"):
        meta.meta_evaluate(ir_measures_graded.experiment(qrels, {"strong": runs["strong"]}, [muMAP]))


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
    out, _ = run_main(capsys, "judge", QRELS, *runs, "-m", "muMAP nDCNG@10", "nDCG@10", "--transform", "scale:2",
                      "--transform", "merge:3,4", "--samples", "20", "--permutations", "500", "-o", "markdown",
                      "--plot", str(plot))
    assert "| scale:2     | muMAP" in out and "### Discriminative power" in out, out
    assert plot.read_text().lstrip().startswith("<?xml")
    for fmt, sections, marker in (("latex", [], "\\begin{tabular}"), ("tsv", ["--sections", "means"], "run\tmeasure\tvalue\n"),
                                  ("tsv", [], "run\tmeasure\tvalue\tdelta")):  # tsv: one table, the comparison by default
        out, _ = run_main(capsys, "judge", QRELS, *runs[:2], "-m", "muMAP", "--samples", "5", "--permutations", "100",
                          "-o", fmt, *sections)
        assert out.startswith(marker) if fmt == "tsv" else marker in out, out


@pytest.mark.parametrize("extra, message", [
    (["--transform", "scale:-1"], "factor must be positive"),
    (["--transform", "nope"], "unknown transform"),
])
def test_compare_command_errors(capsys, extra, message):
    _, err = run_main(capsys, "judge", QRELS, STRONG, WEAK, "-m", "muMAP", *extra, rc=2)
    assert message in err


def test_ordinary_command_compares_runs_with_a_baseline(capsys):
    runs = [STRONG, WEAK, RANDOM]
    out, _ = run_main(capsys, QRELS, *runs, "muMAP", "AP", "--baseline", "random", "--correction", "bonferroni")
    table = pd.read_csv(pd.io.common.StringIO(out), sep="\t")  # tsv: the comparison is the one table
    from ir_measures_graded.experiments.comparison import COLUMNS

    assert list(table.columns) == COLUMNS
    assert list(table["measure"]) == ["muMAP"] * 3 + ["AP"] * 3
    qrels, sample_runs = graded_sample()
    expected = experiment(qrels, sample_runs, [muMAP]).compare("random", correction="bonferroni").table.set_index("run")
    strong = table[(table["run"] == "strong.run") & (table["measure"] == "muMAP")].iloc[0]
    assert strong["p_adjusted"] == pytest.approx(expected.loc["strong", "p_adjusted"], rel=1e-2)
    assert strong["delta"] == pytest.approx(expected.loc["strong", "delta"], abs=1e-4)
    _, err = run_main(capsys, QRELS, *runs, "muMAP", "--baseline", "nope", rc=2)
    assert "is none of the runs" in err
