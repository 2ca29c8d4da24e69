"""Every thresholded measure has a per-threshold table and a caption of its own M^t (issue #35.3)."""

from __future__ import annotations

import pytest

from ir_measures_graded import muAP, muP, muR, muRprec, muRR
from ir_measures_graded.measures import MEASURES
from ir_measures_graded.measures.thresholded import ThresholdedMeasure
from ir_measures_graded.per_level import threshold_table
from ir_measures_graded.reports.figures import threshold_label
from support import reference

QRELS = {"q1": {"a": 2, "b": 1, "c": 0, "e": 3}, "q2": {"a": 1, "b": 0, "d": 0, "f": 2}}
RUN = {"q1": {"c": 4.0, "b": 3.0, "a": 2.0, "x": 1.0}, "q2": {"b": 3.0, "d": 2.0, "a": 1.0, "f": 0.5}}

CASES = [  # (measure, its M^t in tables, its caption, the reference's name, its cutoff)
    (muAP, "MAP", "MAP^t", "muAP", None),
    (muAP @ 3, "MAP@3", "MAP^t@3", "muAP", 3),
    (muP @ 2, "P@2", "P^t@2", "muP", 2),
    (muRR, "RR", "RR^t", "muRR", None),
    (muRR @ 2, "RR@2", "RR^t@2", "muRR", 2),
    (muR @ 3, "R@3", "R^t@3", "muR", 3),
    (muRprec, "Rprec", "Rprec^t", "muRprec", None),
]


@pytest.mark.parametrize("measure, at_threshold, caption, name, cutoff", CASES, ids=[str(c[0]) for c in CASES])
def test_each_thresholded_measure_has_its_table_and_caption(measure, at_threshold, caption, name, cutoff):
    assert measure.at_threshold() == at_threshold
    assert threshold_label(str(measure)) == caption
    table = threshold_table([measure], QRELS, RUN)
    assert table["measure"].tolist() == [f"{at_threshold}(rel>={t})" for t in (1, 2, 3)]
    assert (table["of"] == str(measure)).all()
    score = reference.AT_THRESHOLD[name]
    for t, value, queries in zip(table["threshold"], table["value"], table["queries"], strict=True):
        having = [q for q, judged in QRELS.items() if max(judged.values()) >= t]  # the paper's MAP^t reading
        expected = [score(reference.ranking(QRELS[q], RUN[q]), QRELS[q], t, cutoff)
                    for q in having]
        assert value == pytest.approx(sum(expected) / len(expected), abs=1e-12), t
        assert queries == len(having)
    # the weighted mean of the table is the collection-level measure
    weighted = (table["value"] * table["weight"]).sum() / table["weight"].sum()
    assert weighted == pytest.approx(measure(levels="collection").calc_aggregate(QRELS, RUN), abs=1e-12)


def test_every_registered_thresholded_measure_is_named():
    for measure in MEASURES.values():
        if isinstance(measure, ThresholdedMeasure):
            m = measure @ 10 if getattr(measure.SUPPORTED_PARAMS.get("cutoff"), "required", False) else measure
            assert m.at_threshold() and "None" not in threshold_label(str(m))
            assert len(threshold_table([m], QRELS, RUN)) == 3
    assert threshold_label("nDCG@10") == "nDCG@10"  # no M^t: the measure itself


def test_the_report_draws_each_measures_own_curve():
    import pandas as pd

    from ir_measures_graded.reports.figures import threshold_figure

    qrels = pd.DataFrame([(q, d, label) for q, judged in QRELS.items() for d, label in judged.items()],
                         columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([(q, d, s) for q, scored in RUN.items() for d, s in scored.items()],
                       columns=["query_id", "doc_id", "score"])
    measures = [muRR, muR @ 3, muRprec]
    from ir_measures_graded.experiments import experiment

    table = experiment(qrels, {"r": run}, measures).breakdown().drop(columns="measure").rename(
        columns={"of": "measure"})
    for measure, caption in zip(measures, ("RR^t", "R^t@3", "Rprec^t"), strict=True):
        figure = threshold_figure(table, str(measure), ["r"], None)
        assert figure.title == f"{caption} — {measure}" and figure.series == 1
        assert "P^t" not in figure.svg
