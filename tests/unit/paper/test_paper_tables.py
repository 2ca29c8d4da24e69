"""The paper's worked examples (Scheel, Lommatzsch & Albayrak 2011, Tables 1 and 2), to the printed precision."""

from __future__ import annotations

import ir_measures
import pytest

from ir_measures_graded import meanNDCG, meanNDCNG, muAP, muMAP, nDCNG
from ir_measures_graded.paper.paper_tables import PRINTED_TABLE1, PRINTED_TABLE2
from ir_measures_graded.sample import paper_example

LABELS = {"A": 1, "B": 0, "C": 3, "D": 3, "E": 2, "F": 0, "G": 1, "H": 4}
RUN = {"table1": {doc: 8.0 - i for i, doc in enumerate("ABCDEFGH")}}  # ranked A, B, ..., H


def qrels(scale: float = 1) -> dict:
    return {"table1": {doc: label * scale for doc, label in LABELS.items()}}


@pytest.mark.parametrize("t", range(6))
def test_table1_ap_per_threshold(t):
    # AP with "relevant" meaning label >= t: a single explicit level t, with the floor just below it.
    measure = muAP(levels=(t,), floor=t - 1)
    printed = float(PRINTED_TABLE1[f"t = {t}"])
    assert round(ir_measures.calc_aggregate([measure], qrels(), RUN)[measure], 3) == printed


def test_table1_mu_ap():
    assert round(ir_measures.calc_aggregate([muMAP], qrels(), RUN)[muMAP], 3) == float(PRINTED_TABLE1["mean of 5 > t > 0"])


def test_table1_plain_mean_of_all_six_thresholds():
    # The row "mean": thresholds 0..5 averaged uniformly.
    measure = muAP(levels=(0, 1, 2, 3, 4, 5), floor=-1, weights="uniform")
    assert round(ir_measures.calc_aggregate([measure], qrels(), RUN)[measure], 3) == float(PRINTED_TABLE1["mean"])


def test_table1_from_bundled_sample_files():
    sample_qrels, sample_run = paper_example()
    assert round(ir_measures.calc_aggregate([muMAP], sample_qrels, sample_run)[muMAP], 3) == 0.448


ONE, TWO, THREE = PRINTED_TABLE2  # the paper's three examples, as printed


def printed(example: str) -> tuple[list[float], float]:
    return [float(v) for v in PRINTED_TABLE2[example]["ndcg"].split()], float(PRINTED_TABLE2[example]["mean"])


TABLE2_NDCG = {
    # example one: gain equals rel(i), exponential gain 2^g - 1
    1: (1, "meanNDCG", *printed(ONE)),
    # example two: gain equals rel(i) * 2
    2: (2, "meanNDCG", *printed(TWO)),
    # example three: gain normalised by the highest gain (Eq. 5) -- for either scale
    3: (1, "meanNDCNG", *printed(THREE)),
    4: (2, "meanNDCNG", *printed(THREE)),
}


@pytest.mark.parametrize("example", sorted(TABLE2_NDCG))
def test_table2_ndcg_rows_and_means(example):
    scale, mean_name, row, mean = TABLE2_NDCG[example]
    normalised = mean_name == "meanNDCNG"
    at_k = [(nDCNG if normalised else nDCNG(norm=1)) @ k for k in range(1, 9)]
    mean_measure = meanNDCNG if normalised else meanNDCG
    values = ir_measures.calc_aggregate([*at_k, mean_measure], qrels(scale), RUN)
    assert [round(values[m], 2) for m in at_k] == row
    assert round(values[mean_measure], 2) == mean
