"""A relabelling of the qrels moves every parameter whose values are labels or thresholds.

Each parameter of our measures declares its role (label, threshold or neither); meta's
scale-dependence check moves ``floor``, ``levels``, GAP's ``probs`` keys, ``gains`` and a numeric
``norm`` alike, so a measure that does not depend on the scale keeps its values exactly.
"""

from __future__ import annotations

import ir_measures
import numpy as np
import pytest

import ir_measures_graded
from ir_measures_graded import GAP, meta, nDCNG
from ir_measures_graded.measures import MEASURES
from ir_measures_graded.measures.params import LABEL, NEITHER, THRESHOLD
from ir_measures_graded.meta.transforms import parse_transform
from ir_measures_graded.sample import graded_sample
from support.cli import run_main
from support.paths import QRELS, RANDOM, STRONG


@pytest.fixture(scope="module")
def sample():
    return graded_sample()


@pytest.mark.parametrize("measure", [GAP(probs={1: 0.25, 2: 0.25, 3: 0.5}), nDCNG(norm=4) @ 10,
                                     nDCNG(gains={1: 1, 2: 3, 3: 4}, norm=4) @ 10, GAP(floor=1, probs={2: 1, 3: 1})],
                         ids=str)
def test_scale_free_measures_with_explicit_labels_are_unchanged_by_scaling(sample, measure):
    qrels, runs = sample
    table = meta.scale_dependence(ir_measures_graded.experiment(qrels, runs, [measure]), ["scale:3", "shift:2"]).set_index("transform")
    for transform in ("scale:3", "shift:2"):
        assert table.loc[transform, "max_abs_delta"] == pytest.approx(0, abs=1e-12), table.loc[transform, "note"]
        assert table.loc[transform, "same_ranking"]


def test_relabelled_moves_each_parameter_by_its_role():
    scale = parse_transform("scale:3").threshold
    assert str(GAP(probs={1: 1, 2: 3}).relabelled(scale)) == str(GAP(probs={3: 1, 6: 3}))
    assert str(nDCNG(norm=4, floor=1).relabelled(scale)) == str(nDCNG(norm=12, floor=3))
    shift = parse_transform("shift:1").threshold
    assert str(nDCNG(norm=4).relabelled(shift)) == str(nDCNG(norm=4, floor=1))  # the gain scale's top is a distance
    assert str(nDCNG(gains={1: 2}).relabelled(shift)) == str(nDCNG(gains={2: 3}, floor=1))
    merged = parse_transform("merge:2,3").threshold
    assert str(GAP(probs={2: 1, 3: 1}).relabelled(merged)) == str(GAP(probs={2: 1}))  # merged thresholds add up
    with pytest.raises(ValueError, match="different gains"):
        nDCNG(gains={2: 5, 3: 7}).relabelled(merged)


def test_every_parameter_declares_its_role():
    for measure in MEASURES.values():
        for name, param in measure.SUPPORTED_PARAMS.items():
            assert param.role in (LABEL, THRESHOLD, NEITHER), (measure, name)
    assert {name for m in MEASURES.values() for name, p in m.SUPPORTED_PARAMS.items() if p.role != NEITHER} == {
        "floor", "levels", "probs", "gains", "norm", "g_max"}


def test_a_map_that_breaks_the_order_of_grades_is_refused(sample):
    qrels, runs = sample
    with pytest.raises(ValueError, match=r"would change the order of the grades: label 1 becomes 5 but the higher "
                                         r"label 2 becomes 2"):
        parse_transform("map:1=5", np.array([0, 1, 2, 3]))
    assert parse_transform("map:1=2,2=5,3=7", np.array([0, 1, 2, 3])).apply(np.array([3.0]))[0] == 7
    with pytest.raises(ValueError, match="order of the grades"):
        meta.scale_dependence(ir_measures_graded.experiment(qrels, runs, ["AP"]), ["map:1=9"])


def test_compare_table_values_are_the_measures_aggregates(tmp_path, capsys):
    """--baseline's value column is calc_aggregate's value, also for collection-level µMAP, whose
    aggregate is not the mean of its per-query values."""
    runs = [STRONG, RANDOM]
    measure = "muAP(levels='collection')"
    out, _ = run_main(capsys, QRELS, *runs, measure, "--baseline", runs[0], "-p", "-1")
    table = out.splitlines()  # tsv: the comparison is the one table
    header = table[0].split("\t")
    rows = {line.split("\t")[header.index("run")]: float(line.split("\t")[header.index("value")])
            for line in table[1:]}
    qrels = list(ir_measures.read_trec_qrels(QRELS))
    for run in runs:
        expected = ir_measures.calc_aggregate([ir_measures.parse_measure(measure)], qrels,
                                              list(ir_measures.read_trec_run(run)))
        assert rows[run.rsplit("/", 1)[1]] == pytest.approx(next(iter(expected.values())), abs=1e-12)


def test_relabelled_thresholds_norm_and_merged_probabilities_by_hand():
    from ir_measures_graded import muAP

    square = lambda x: x * x  # noqa: E731 - monotone for labels >= 0, not a shift or a scale
    assert str(muAP(levels=(1, 2)).relabelled(lambda x: 3 * x)) == str(muAP(levels=(3, 6)))
    assert str(muAP(levels="collection").relabelled(square)) == str(muAP(levels="collection"))
    # norm is a distance from the floor: (floor + norm)^2 - floor^2 = 9 - 1
    assert str(nDCNG(norm=2, floor=1).relabelled(square)) == str(nDCNG(norm=8, floor=1))
    merged = parse_transform("merge:2,3").threshold
    assert str(GAP(probs={1: 1, 2: 1, 3: 2}).relabelled(merged)) == str(GAP(probs={1: 1, 2: 3}))


def test_real_labels_of_qrels_without_a_relevant_label_are_left_as_they_are(tmp_path, capsys):
    """``real`` draws a number per positive label: with none (every judgment 0 or below), it maps
    nothing, and ``judge`` runs its scale check rather than failing inside numpy."""
    transform = parse_transform("real", np.array([0.0, 0.0, -1.0]))
    assert transform.apply(np.array([0.0, -1.0, 0.0])).tolist() == [0.0, -1.0, 0.0]
    qrels, run1, run2 = tmp_path / "q.txt", tmp_path / "r1.txt", tmp_path / "r2.txt"
    qrels.write_text("10 0 d3 0\n")
    run1.write_text("x Q0 d3 1 1.0 r\n10 Q0 D5 1 0.5 r\n")
    run2.write_text("10 Q0 d3 1 3.5 r\n10 Q0 d4 2 0.5 r\n")
    out, err = run_main(capsys, "judge", str(qrels), str(run1), str(run2), "muMAP", "--samples", "2",
                        "--permutations", "20", "--sections", "scale")
    assert "error" not in err, err
    assert "real" in out
