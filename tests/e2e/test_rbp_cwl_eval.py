"""gRBP and gRBP_residual against the cwl_eval command, run in a subprocess (split from tests/unit/measures/test_rbp.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ir_measures_graded import gRBP, gRBP_residual
from support import reference
from support.measure_checks import per_query
from support.random_collections import random_collection


def cwl_eval(qrels: dict, run: dict, p: float, tmp_path) -> dict[str, tuple[float, float]]:
    """{query: (RBP, residual)} from the cwl_eval command on gains label/4 and our ranking order
    (cwl_eval reads a run in file order); only queries both in the qrels and the run."""
    gains, results, metrics = tmp_path / "gains.txt", tmp_path / "run.txt", tmp_path / "metrics.txt"
    gains.write_text("".join(f"{q} 0 {d} {label / 4}\n" for q, judged in qrels.items() for d, label in judged.items()))
    with results.open("w") as out:
        for q in (q for q in run if q in qrels and run[q]):
            for rank, d in enumerate(reference.ranking(qrels[q], run[q]), start=1):
                out.write(f"{q} Q0 {d} {rank} {1000 - rank} r\n")
    metrics.write_text(f"RBPCWLMetric({p})\n")
    command = Path(sys.executable).parent / "cwl-eval"  # the cwl-eval package's command (test extra)
    done = subprocess.run([sys.executable, str(command), str(gains), str(results), "-m", str(metrics), "-r"],
                          capture_output=True, text=True, check=True, cwd=tmp_path)
    values = {}
    for line in done.stdout.splitlines():  # topic, metric, EU, ETU, EC, ETC, ED, ResEU, ...
        fields = line.split("\t")
        values[fields[0]] = (float(fields[2]), float(fields[7]))
    return values


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_equals_cwl_eval_with_residuals(seed, p, tmp_path):
    qrels, run = random_collection(seed, n_queries=80)  # labels 0-4, every qrels has a 4: label/4 = gain
    theirs = cwl_eval(qrels, run, p, tmp_path)
    values = per_query([gRBP(p=p), gRBP_residual(p=p)], qrels, run)
    assert len(theirs) > 60
    for qid, (value, residual) in theirs.items():  # cwl_eval prints 4 decimals
        assert values[gRBP(p=p)][qid] == pytest.approx(value, abs=5e-5 + 1e-12), qid
        assert values[gRBP_residual(p=p)][qid] == pytest.approx(residual, abs=5e-5 + 1e-12), qid
