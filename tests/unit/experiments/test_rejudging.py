"""Re-evaluation on changed judgments has one definition (issue 50, item 4): :class:`Rejudging`, which the scale
check (relabelled judgments), leave-one-out (judgments removed) and the bounds (unjudged documents added) all use.
Each change gives exactly what a new experiment on the changed qrels gives (before: the scale check evaluated a
second experiment through ``Experiment.with_qrels``, the organiser's view its own ``Prepared``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ir_measures_graded as img
from ir_measures_graded.experiments.rejudging import Rejudging
from ir_measures_graded.meta.transforms import parse_transform
from ir_measures_graded.sample import graded_sample

MEASURES = ["muMAP", "nDCNG@10", "GAP", "gERR(norm='query')@10", "AP", "nDCG@10", "P@5"]


@pytest.fixture(scope="module")
def sample():
    qrels, runs = graded_sample()
    return qrels, runs, img.experiment(qrels, runs, MEASURES)


def _fresh(qrels: pd.DataFrame, runs: dict, measures: list) -> dict:
    exp = img.experiment(qrels, runs, measures, warn=lambda _: None)
    return exp.aggregates.set_index(["run", "measure"])["value"].to_dict()


@pytest.mark.parametrize("spec", ["scale:2", "shift:1", "merge:3,4", "map:1=0,2=1,3=2,4=3"])
def test_relabelled_judgments_give_a_new_experiments_values(sample, spec):
    qrels, runs, exp = sample
    rejudging = Rejudging(exp, exp.measures)
    transform = parse_transform(spec, qrels["relevance"].to_numpy(dtype=np.float64))
    relabelled = transform.apply(np.asarray(rejudging.judgments.label, dtype=np.float64))
    # the same judgments, relabelled by row: (query, doc) -> label, whatever the row order
    rows = pd.DataFrame({"query_id": rejudging.judgments.query_ids.astype(str)[rejudging.judgments.query],
                         "doc_id": [d.decode() if isinstance(d, bytes) else d for d in rejudging._row_doc],
                         "relevance": relabelled.astype(np.int64)})
    expected = _fresh(rows, runs, MEASURES)
    for i, name in enumerate(exp.runs):
        got = rejudging.evaluate(i, labels=relabelled)
        for m in exp.measures:
            assert got[m] == pytest.approx(expected[(name, exp.label[m])], abs=1e-12), (spec, name, m)


def test_removed_judgments_give_a_new_experiments_values(sample):
    qrels, runs, exp = sample
    rejudging = Rejudging(exp, exp.measures)
    keep = np.random.default_rng(7).random(len(rejudging.judgments.label)) > 0.3
    rows = pd.DataFrame({"query_id": rejudging.judgments.query_ids.astype(str)[rejudging.judgments.query],
                         "doc_id": list(rejudging._row_doc), "relevance": rejudging.judgments.label}).loc[keep]
    expected = _fresh(rows.assign(relevance=rows["relevance"].astype(np.int64)), runs, MEASURES)
    for i, name in enumerate(exp.runs):
        got = rejudging.evaluate(i, keep=keep)
        for m in exp.measures:
            assert got[m] == pytest.approx(expected[(name, exp.label[m])], abs=1e-12), (name, m)
