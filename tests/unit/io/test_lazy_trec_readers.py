"""ir_measures' own lazy readers (``read_trec_qrels(path)``, ``read_trec_run(path)``) given for our
measures: iterated as ir_measures yields them (runs streamed), with the values of our readers'
tables. Nothing reads their generators' frames for the path (issue 36)."""

from __future__ import annotations

from pathlib import Path

import ir_measures
import pytest

import ir_measures_graded as g
from support.paths import SAMPLE as DATA

QRELS, RUN = str(DATA / "qrels.txt"), str(DATA / "strong.run")
MEASURES = [g.muMAP, g.nDCNG @ 10, g.muAP(levels="collection")]


def test_read_trec_qrels_for_our_measures_gives_our_readers_values(tmp_path):
    values = ir_measures.calc_aggregate(MEASURES, ir_measures.read_trec_qrels(QRELS), ir_measures.read_trec_run(RUN))
    assert values == pytest.approx(ir_measures.calc_aggregate(MEASURES, g.read_qrels(QRELS), g.read_run(RUN)),
                                   rel=1e-12, abs=0)
    per_query = ir_measures.iter_calc([g.muMAP], ir_measures.read_trec_qrels(QRELS), ir_measures.read_trec_run(RUN))
    assert {m.query_id: m.value for m in per_query} == pytest.approx(
        {m.query_id: m.value for m in ir_measures.iter_calc([g.muMAP], g.read_qrels(QRELS), g.read_run(RUN))}, rel=1e-12)


def test_real_valued_labels_need_our_reader(tmp_path):
    """ir_measures' reader parses labels with int(): real-valued ones fail there, as for every
    provider (the generator is not bypassed); our reader reads them."""
    real = tmp_path / "qrels.txt"
    real.write_text("".join(f"{q} {it} {d} {float(r) * 1.5}\n" for q, it, d, r in
                            (line.split() for line in Path(QRELS).read_text().splitlines())))
    with pytest.raises(ValueError, match="invalid literal for int"):
        ir_measures.calc_aggregate(MEASURES, ir_measures.read_trec_qrels(str(real)), ir_measures.read_trec_run(RUN))
    assert ir_measures.calc_aggregate(MEASURES, g.read_qrels(real), ir_measures.read_trec_run(RUN))[g.muMAP] > 0


def test_mixed_measures_keep_the_generator_for_the_other_providers():
    mixed = [g.muMAP, ir_measures.AP, ir_measures.nDCG @ 10]
    values = ir_measures.calc_aggregate(mixed, ir_measures.read_trec_qrels(QRELS), ir_measures.read_trec_run(RUN))
    assert values == pytest.approx(ir_measures.calc_aggregate(mixed, g.read_qrels(QRELS), g.read_run(RUN)), rel=1e-12)


def test_a_started_generator_is_left_to_ir_measures():
    started = ir_measures.read_trec_qrels(QRELS)
    next(started)  # its first judgment is gone: the file must not be read again from the start
    frame = g.read_qrels(QRELS).iloc[1:]
    assert ir_measures.calc_aggregate([g.muMAP], started, ir_measures.read_trec_run(RUN)) == pytest.approx(
        ir_measures.calc_aggregate([g.muMAP], frame, g.read_run(RUN)), rel=1e-12)
