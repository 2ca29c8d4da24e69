"""Labels below 0 (trec_eval: in the pool, not judged; TREC Web's -2 "junk") with ir_measures' own measures.

pytrec_eval indexes an array by the label with no guard for a negative one: -2 crashed the process (a
segmentation fault) and -1 could hang nDCG. Its measures are now given the judgments without them, which changes
no value trec_eval 10.0 computes (it reads every negative label as "not judged", never relevant, not counted)
but infAP's, which is given them as -1 — each checked against trec_eval 10.0 itself on random collections, per
query.
"""

from __future__ import annotations

import subprocess

import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_measures_graded import experiment, muAP, nDCNG
from ir_measures_graded.experiments.rejudging import Rejudging
from support.trec_eval import build_trec_eval, lines

pytestmark = pytest.mark.slow  # builds trec_eval and runs it on 40 collections

#: ir_measures' measures (pytrec_eval's) beside ours, and the trec_eval names of theirs
THEIRS = {ir_measures.AP: "map", ir_measures.nDCG: "ndcg", ir_measures.nDCG @ 10: "ndcg_cut_10",
          ir_measures.P @ 5: "P_5", ir_measures.R @ 10: "recall_10", ir_measures.Rprec: "Rprec",
          ir_measures.RR: "recip_rank", ir_measures.Bpref: "bpref", ir_measures.infAP: "infAP",
          ir_measures.AP(rel=2): None}
MEASURES = [*THEIRS, muAP, nDCNG @ 10]


@pytest.fixture(scope="module")
def trec_eval(tmp_path_factory):
    return build_trec_eval(tmp_path_factory.mktemp("trec_eval"))


def collection(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Qrels with labels -2..3 (a query judged -2, -1 and 0 only among them) and a run with unjudged documents.
    (A query judged only below 0 crashes trec_eval 10.0 itself: it sizes an array by the highest label.)"""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(6):
        docs = [f"d{d}" for d in rng.choice(40, size=int(rng.integers(2, 15)), replace=False)]
        low = -2 if q == 5 else -2 + int(rng.integers(0, 2))
        qrels += [(f"q{q}", d, int(rng.integers(low, 1 if q == 5 else 4))) for d in docs]
        qrels[-1] = (*qrels[-1][:2], 0)  # a label 0 in every query
        if q == 5:
            qrels[-2] = (*qrels[-2][:2], -2)  # and a -2 in every collection
        ranked = rng.choice(40, size=int(rng.integers(1, 25)), replace=False)
        run += [(f"q{q}", f"d{d}", float(np.round(rng.random(), 3))) for d in ranked]
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))


@pytest.mark.parametrize("seed", range(40))
def test_ir_measures_measures_on_negative_labels_are_trec_eval_s(trec_eval, seed, tmp_path):
    qrels, run = collection(seed)
    assert (qrels["relevance"] == -2).any()
    (tmp_path / "q").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False)))
    (tmp_path / "r").write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, d, s in run.itertuples(index=False)))
    options = [o for n in ("map", "ndcg", "ndcg_cut.10", "P.5", "recall.10", "Rprec", "recip_rank", "bpref", "infAP")
               for o in ("-m", n)]
    expected = lines(subprocess.run([str(trec_eval), "-q", *options, str(tmp_path / "q"), str(tmp_path / "r")],
                                    capture_output=True, text=True, check=True).stdout)
    done = experiment(qrels, [run], MEASURES, names=["r"])  # crashed the process before
    values = {(m, q): v for m, q, v in zip(done.per_query["measure"], done.per_query["query_id"],
                                           done.per_query["value"], strict=True)}
    compared = 0
    for measure, name in THEIRS.items():
        if name is None:
            continue
        for q in run["query_id"].unique():
            if (name, q) in expected:
                assert f"{values[(str(measure), q)]:.4f}" == f"{expected[(name, q)]:.4f}", (measure, q)
                compared += 1
    assert compared >= 8 * 5
    # the re-evaluation on changed judgments (leave-one-out, bounds) gives the experiment's values
    rejudged = {str(m): v for m, v in Rejudging(done, done.measures).evaluate(0).items()}
    aggregates = dict(zip(done.aggregates["measure"], done.aggregates["value"], strict=True))
    assert rejudged == pytest.approx(aggregates)


CRASHED = """
import ir_measures
from ir_measures_graded import experiment
from ir_measures_graded.experiments.rejudging import Rejudging
qrels = {"q0": {"d0": 1}, "q2": {"d0": -2}}
run = {"q0": {"d0": 0.03}, "q2": {"d0": 0.67}}
for _ in range(1000):
    done = experiment(qrels, [run], [ir_measures.P @ 3, ir_measures.AP], names=["r"])
print(done.aggregates["value"].round(4).tolist())
print([round(v, 4) for v in Rejudging(done, done.measures).evaluate(0).values()])
"""


def test_a_label_of_minus_2_no_longer_crashes_the_process():
    """The smallest collection seen to crash: pytrec_eval given a -2 (a segmentation fault within 1,000 runs).
    Query q2, judged -2 only, is left out of pytrec_eval's judgments and still counts, at the measure's default:
    it is judged (trec_eval 10.0 itself crashes on such a query)."""
    import sys

    done = subprocess.run([sys.executable, "-c", CRASHED], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.splitlines() == ["[0.1667, 0.5]"] * 2  # P@3: (1/3 + 0)/2; AP: (1 + 0)/2
