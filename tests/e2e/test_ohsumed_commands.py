"""OHSUMED and LETOR through the command lines, ours and ir_datasets', in subprocesses (split from tests/unit/datasets/test_ohsumed.py)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import ir_datasets
import ir_measures
import pytest

from ir_measures_graded import muMAP, nDCNG
from ir_measures_graded.datasets import ohsumed
from ir_measures_graded.datasets.letor import OhsumedDoc


def test_end_to_end_from_the_command_line(placed, tmp_path):
    run = ohsumed.feature_run("ohsumed/letor3", feature=11)
    path = tmp_path / "feature11.run"
    with gzip.open(path.with_suffix(".gz"), "wt") as f:
        for rank, row in enumerate(run.itertuples(index=False), start=1):
            f.write(f"{row.query_id} Q0 {row.doc_id} {rank} {row.score!r} feature11\n")
    script = Path(sys.executable).parent / "ir-measures-graded"
    out = subprocess.run([str(script), "ohsumed", str(path.with_suffix(".gz")), "muMAP", "nDCNG@10", "-p", "-1"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    expected = ir_measures.calc_aggregate([muMAP, nDCNG @ 10], ir_datasets.load("ohsumed").qrels_iter(), run)
    assert out == [f"muMAP\t{expected[muMAP]!r}", f"nDCNG@10\t{expected[nDCNG @ 10]!r}"]


def test_ir_datasets_command_line_sees_the_collection(placed):
    out = subprocess.run([sys.executable, "-m", "ir_measures_graded.datasets", "export", "ohsumed/letor3", "qrels"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == 10 and out[0].split() == ["1", "0", "87049087", "0"]


def datasets_command(*args: str) -> list[dict]:
    """``python -m ir_measures_graded.datasets ARGS --format jsonl``: the records it prints."""
    out = subprocess.run([sys.executable, "-m", "ir_measures_graded.datasets", *args, "--format", "jsonl"],
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("dataset_id", ["ohsumed", "ohsumed/letor3"])
def test_export_and_lookup_print_every_field_of_every_record(placed, dataset_id):
    dataset = ir_datasets.load(dataset_id)
    docs = [d._asdict() for d in dataset.docs_iter()]
    queries = [q._asdict() for q in dataset.queries_iter()]
    assert docs and all(all(d.values()) for d in docs[:1]) and set(docs[0]) == set(OhsumedDoc._fields)
    assert datasets_command("export", dataset_id, "docs") == docs
    assert datasets_command("export", dataset_id, "queries") == queries
    assert datasets_command("lookup", dataset_id, *[d["doc_id"] for d in docs]) == docs
    assert datasets_command("lookup", dataset_id, "--qid", *[q["query_id"] for q in queries]) == queries
    tsv = subprocess.run([sys.executable, "-m", "ir_measures_graded.datasets", "export", dataset_id, "queries"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert [line.split("\t") for line in tsv] == [list(q.values()) for q in queries]
