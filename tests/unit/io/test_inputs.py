"""Inputs as values (issue 50, item 1): each input read once into an :class:`Input` — the table, the SHA-256 of the
file's bytes computed while they were read (the digest ``sha256sum`` gives, compressed and columnar files too),
the run's tag, rows and bytes — that every view takes; a view that needs what was not kept says so in one line."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import ir_measures_graded as img
from ir_measures_graded import GradedInputError
from ir_measures_graded.io.inputs import Meter, tag_of
from ir_measures_graded.io.readers import read_run_table
from support.paths import QRELS, STRONG, WEAK


def sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_the_experiment_keeps_each_input_with_the_digest_of_its_bytes_rows_and_tag(tmp_path):
    packed = tmp_path / "weak.run.gz"
    packed.write_bytes(gzip.compress(Path(WEAK).read_bytes()))
    columnar = tmp_path / "strong.parquet"
    pq.write_table(read_run_table(STRONG), columnar)
    exp = img.experiment(QRELS, [STRONG, str(packed), str(columnar)], ["muMAP"], warn=lambda _: None)
    assert exp.qrels.digest == sha256(QRELS) and exp.qrels.size == Path(QRELS).stat().st_size
    assert [i.digest for i in exp.inputs] == [sha256(STRONG), sha256(packed), sha256(columnar)]
    assert [i.tag for i in exp.inputs] == ["strong", "weak", None]  # a columnar file carries no tag
    assert [i.rows for i in exp.inputs] == [r.rows for r in exp.results]
    assert exp.tags == ["strong", "weak", str(columnar)]
    assert all(i.kept for i in [exp.qrels, *exp.inputs])
    with pytest.raises(dataclasses.FrozenInstanceError):
        exp.inputs[0].data = None  # type: ignore[misc]


def test_the_report_header_shows_the_digests_taken_while_reading():
    pytest.importorskip("jinja2")
    exp = img.experiment(QRELS, [STRONG, WEAK], ["muMAP"])
    sources = img.report(exp, transforms=[]).sources
    assert [s.sha256 for s in sources] == [sha256(QRELS), sha256(STRONG), sha256(WEAK)]
    assert [s.hashed for s in sources] == ["file bytes"] * 3


def test_a_streamed_experiment_keeps_nothing_and_every_view_says_so_in_one_line():
    exp = img.experiment(QRELS, [STRONG, WEAK], ["muMAP"], per_query=False)
    assert not any(i.kept for i in exp.inputs) and [i.tag for i in exp.inputs] == ["strong", "weak"]
    for view in (exp.breakdown, lambda: img.organiser.pool(exp), lambda: img.meta.scale_dependence(exp)):
        with pytest.raises(GradedInputError) as raised:
            view()
        assert "\n" not in str(raised.value) and "per_query=True" in str(raised.value)


def test_per_query_values_without_the_inputs_stream_the_runs():
    """``Reading(keep=False)``: per-query values (what -q and --baseline print) with every run streamed."""
    from ir_measures_graded.experiments.evaluation import Reading

    kept = img.experiment(QRELS, [STRONG, WEAK], ["muMAP", "nDCNG@10"])
    streamed = img.experiment(QRELS, [STRONG, WEAK], ["muMAP", "nDCNG@10"], reading=Reading(keep=False))
    assert not any(i.kept for i in streamed.inputs) and all(i.kept for i in kept.inputs)
    assert streamed.per_query.equals(kept.per_query) and streamed.aggregates.equals(kept.aggregates)
    assert streamed.compare().table.equals(kept.compare().table)
    with pytest.raises(GradedInputError, match="not kept"):
        streamed.breakdown()


def test_a_view_takes_an_experiment_and_nothing_else():
    with pytest.raises(GradedInputError, match="takes an experiment"):
        img.report(QRELS)
    with pytest.raises(GradedInputError, match="takes an experiment"):
        img.meta.scale_dependence(QRELS)


def test_the_tag_is_the_sixth_field_of_the_first_line_that_is_not_blank():
    meter = Meter(digest=False)
    meter.see_first(b"\n  \nq1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 2.0 other\n")
    assert meter.tag == "bm25" and meter.hexdigest() is None
    assert tag_of(b"q1 Q0 d1 1 2.5") is None
