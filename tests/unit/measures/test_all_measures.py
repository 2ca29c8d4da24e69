"""``all``: every measure of this package at its defaults, on the command line, in an experiment, streamed."""

from __future__ import annotations

import ir_measures
import pytest

from ir_measures_graded import cli
from ir_measures_graded.cli.args import measures_help
from ir_measures_graded.experiments import experiment
from ir_measures_graded.io import scan_run
from ir_measures_graded.measures import MEASURES
from ir_measures_graded.measures.base import all_measures
from ir_measures_graded.sample import graded_sample
from support.paths import SAMPLE
from support.random_collections import random_collection


def test_every_registered_measure_in_registration_order():
    measures = all_measures()
    assert [m.NAME for m in measures] == list(MEASURES)
    for measure in measures:
        measure.validate_params()  # a required cutoff is given
        cutoff = measure.SUPPORTED_PARAMS.get("cutoff")
        assert ("cutoff" in measure.params) == bool(cutoff is not None and cutoff.required), measure


def test_command_line_all_prints_every_measure_then_the_others(capsys):
    status = cli.main([f"{SAMPLE}/qrels.txt", f"{SAMPLE}/strong.run", "all", "AP"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert [line.split("\t")[0] for line in out] == [*(str(m) for m in all_measures()), "AP"]
    qrels, runs = graded_sample()
    values = ir_measures.calc_aggregate(all_measures(), qrels, runs["strong"])
    assert [line.split("\t")[1] for line in out[:-1]] == [f"{values[m]:.4f}" for m in all_measures()]


def test_an_experiment_reads_all():
    qrels, runs = graded_sample()
    table = experiment(qrels, {"weak": runs["weak"]}, ["all", "AP"]).per_query
    assert list(dict.fromkeys(table["measure"])) == [*(str(m) for m in all_measures()), "AP"]


@pytest.mark.parametrize("seed", [0, 1])
def test_streaming_a_run_file_gives_the_in_memory_values(seed, tmp_path):
    qrels, run = random_collection(seed, n_queries=60)
    path = tmp_path / "run"
    with path.open("w") as out:
        for q, docs in run.items():
            for d, s in docs.items():
                out.write(f"{q} Q0 {d} 0 {s!r} r\n")
    measures = [*all_measures(), *(m(ties="expected") for m in all_measures() if m.NAME != "gERR")]
    in_memory = {(m.measure, m.query_id): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    streamed = {(m.measure, m.query_id): m.value for m in ir_measures.iter_calc(measures, qrels,
                                                                                 scan_run(path, block_size=256))}
    assert streamed.keys() == in_memory.keys()
    for key, value in in_memory.items():
        assert streamed[key] == pytest.approx(value, abs=1e-12), key


def test_help_lists_every_measure():
    names = [line.split()[0] for line in measures_help().splitlines()]
    assert [name.removesuffix("@k") for name in names] == list(MEASURES)



def test_every_measure_pickles_as_parsed_and_evaluates_the_same():
    """Measures cross to worker processes (the mixed list is scored in forked processes, and a
    user's own multiprocessing pickles them): parsed, validated and with parameters."""
    import pickle

    qrels, runs = graded_sample()
    measures = [*all_measures(), ir_measures.parse_measure('muMAP(ties="expected")'),
                ir_measures.parse_measure("nDCNG@5"), ir_measures.parse_measure("gRBP(p=0.9)")]
    for measure in measures:
        measure.validate_params()
        again = pickle.loads(pickle.dumps(measure))
        assert again == measure and hash(again) == hash(measure) and str(again) == str(measure)
        assert {n: again.value(n) for n in again.SUPPORTED_PARAMS} == {n: measure.value(n) for n in measure.SUPPORTED_PARAMS}
    values = ir_measures.calc_aggregate(measures, qrels, runs["strong"])
    copies = pickle.loads(pickle.dumps(measures))
    assert ir_measures.calc_aggregate(copies, qrels, runs["strong"]) == {c: values[m] for c, m in zip(copies, measures, strict=True)}
