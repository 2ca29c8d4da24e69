"""A run whose retrieved documents are not judged scores 0 in silence in trec_eval (issue 44 item 15,
issue 45 item 2): a passage-level run (``MARCO_D2706327-1``) against document qrels (``MARCO_D2706327``),
or one whose share of judged documents is far below the other runs'. Every entry point says so in one
line per run, with the likely cause, whichever way the run is read and whichever measures are asked."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import pandas as pd
import pytest

from ir_measures_graded import experiment, report
from ir_measures_graded.io.readers import read_run
from support.cli import run_main
from support.paths import QRELS, RANDOM, STRONG, WEAK

CAUSE = "ids of another collection or level"


def passages(source: str, folder: Path, name: str = "passages.run", compress: bool = False) -> str:
    """``source`` with every doc id made a passage id of it (``doc8946`` -> ``doc8946-1``)."""
    lines = []
    for line in Path(source).read_text().splitlines():
        q, q0, doc, *rest = line.split()
        lines.append(" ".join([q, q0, f"{doc}-1", *rest]))
    path = folder / (name + (".gz" if compress else ""))
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return str(path)


def warned(err: str, name: str) -> list[str]:
    return [line for line in err.splitlines() if f"run {name}" in line and CAUSE in line]


@pytest.mark.parametrize("measures", [["muMAP"], ["AP", "P@10"], ["muMAP", "nDCG@10"]],
                         ids=["ours", "pytrec_eval", "both"])
@pytest.mark.parametrize("compress", [False, True], ids=["small reader", "arrow reader"])
def test_a_run_of_passage_ids_against_document_qrels_is_told_of_in_one_line(tmp_path, capsys, measures, compress):
    run = passages(WEAK, tmp_path, compress=compress)
    out, err = run_main(capsys, QRELS, STRONG, run, *measures)
    name = Path(run).name
    (line,) = warned(err, name)
    assert "none of its 1500 retrieved documents of the judged queries is judged" in line
    assert len(err.splitlines()) == 1, err  # nothing about the other run
    _, err = run_main(capsys, QRELS, run, *measures)  # alone too
    assert len(warned(err, name)) == 1


def test_runs_whose_documents_are_judged_are_not_told_of(capsys):
    _, err = run_main(capsys, QRELS, STRONG, WEAK, RANDOM, "muMAP", "AP")
    assert err == ""


def test_a_share_of_judged_documents_far_below_the_other_runs_is_told_of(tmp_path, capsys):
    strong = read_run(STRONG)
    mostly = strong.copy()
    mostly["doc_id"] = [d if i % 40 == 0 else f"{d}-1" for i, d in enumerate(mostly["doc_id"])]
    path = tmp_path / "mostly.run"
    path.write_text("".join(f"{r.query_id} Q0 {r.doc_id} 0 {r.score} m\n" for r in mostly.itertuples()))
    _, err = run_main(capsys, QRELS, STRONG, WEAK, str(path), "muMAP")
    (line,) = warned(err, "mostly.run")
    assert "far below the runs' median" in line
    assert len(err.splitlines()) == 1


def test_every_entry_point_tells_and_runs_in_memory_too(tmp_path):
    run = read_run(passages(WEAK, tmp_path))
    runs = {"strong": read_run(STRONG), "passages": run}
    qrels = pd.read_csv(QRELS, sep=r"\s+", names=["query_id", "iteration", "doc_id", "relevance"], dtype=str)
    qrels["relevance"] = qrels["relevance"].astype(int)
    said: list[str] = []
    experiment(qrels, runs, ["muMAP"], warn=said.append)
    assert len([s for s in said if "run passages" in s and CAUSE in s]) == 1, said
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        experiment(QRELS, runs, ["AP"])
        report(experiment(QRELS, runs, ["muMAP"]), transforms=[])
    told = [str(w.message) for w in caught if CAUSE in str(w.message)]
    assert len(told) == 2 and all("run passages" in t for t in told), told


def told_of(call) -> list[str]:
    """The warnings ``call()`` gives that name the likely cause."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if CAUSE in str(w.message)]


@pytest.mark.parametrize("entry", ["calc_aggregate", "iter_calc", "evaluator", "calc_aggregate beside AP",
                                   "calc_aggregate of a scan"])
def test_ir_measures_entry_points_tell_once_too(tmp_path, entry):
    """ir_measures' own entry points reach our provider: a run of passage ids scores 0 there too, and is
    told of in one warning (docs/inputs.md: "both engines, every entry point")."""
    import ir_measures

    from ir_measures_graded import muMAP, nDCNG, scan_run

    path = passages(WEAK, tmp_path)
    run = read_run(path)
    qrels = ir_measures.read_trec_qrels(QRELS)
    calls = {
        "calc_aggregate": lambda: ir_measures.calc_aggregate([muMAP, nDCNG @ 10], list(qrels), run),
        "iter_calc": lambda: list(ir_measures.iter_calc([muMAP], list(qrels), run)),
        "evaluator": lambda: ir_measures.evaluator([muMAP], list(qrels)).calc_aggregate(run),
        "calc_aggregate beside AP": lambda: ir_measures.calc_aggregate([muMAP, ir_measures.AP], list(qrels), run),
        "calc_aggregate of a scan": lambda: ir_measures.calc_aggregate([muMAP], list(qrels), scan_run(path)),
    }
    (line,) = told_of(calls[entry])
    assert line.startswith("the run: none of its 1500 retrieved documents of the judged queries is judged")
    assert told_of(lambda: ir_measures.calc_aggregate([muMAP], list(ir_measures.read_trec_qrels(QRELS)),
                                                      read_run(WEAK))) == []


def test_a_streamed_generator_is_told_of_by_its_name_once(tmp_path):
    """A generator of named tuples read once by query batches (per_query=False) is counted as any run is."""
    import ir_measures

    path = passages(WEAK, tmp_path)
    told = told_of(lambda: experiment(QRELS, {"passages": ir_measures.read_trec_run(path)}, ["muMAP"],
                                      per_query=False))
    assert len(told) == 1 and told[0].startswith("run passages: none of its 1500"), told
