"""``-M N`` / ``Reading(depth=N)`` against ``trec_eval -M N`` itself (issue 52, item 5), on trec_eval's own
multi-graded test collection (bundled: :func:`ir_measures_graded.sample.trec_eval_example`), for every measure
of trec_eval's ``all_trec`` that ir_measures computes, per query and overall, on every path a run takes.

trec_eval is built from NIST's source (``shared/tools/trec_eval-10.0-src.tar.gz`` beside the clone or above it)
into a temporary folder; without it (or without make) these tests are skipped, saying why.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ir_measures_graded import experiment, muAP, nDCNG
from ir_measures_graded.experiments.evaluation import Reading
from ir_measures_graded.sample import data_path, trec_eval_example
from support.cli import cli
from support.paths import ROOT

pytestmark = pytest.mark.slow  # builds trec_eval (a few seconds) and runs it and the command line

ARCHIVE = "trec_eval-10.0-src.tar.gz"
COLLECTION = data_path("trec_eval_test")
QRELS, RUN = str(COLLECTION / "qrels.rel_level"), str(COLLECTION / "results.test")  # 500 documents a query
DEPTHS = [1, 2, 10, 37, 100, 499, 500, 1000]


@pytest.fixture(scope="module")
def trec_eval(tmp_path_factory) -> Path:
    archive = next((p / "shared" / "tools" / ARCHIVE for p in ROOT.parents if (p / "shared" / "tools" / ARCHIVE).is_file()),
                   None)
    if archive is None:
        pytest.skip(f"no shared/tools/{ARCHIVE} beside the clone or above it: trec_eval cannot be built")
    if not shutil.which("make") or not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no make or C compiler: trec_eval cannot be built")
    folder = tmp_path_factory.mktemp("trec_eval")
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    source = next(p.parent for p in folder.rglob("Makefile"))
    subprocess.run(["make", "-C", str(source)], check=True, capture_output=True)
    return source / "trec_eval"


def lines(text: str) -> dict[tuple[str, str], float]:
    """trec_eval's ``-q`` lines as ``{(measure, query): value}`` (its run id and relevance strings left out)."""
    found = {}
    for line in text.splitlines():
        name, query, value = line.split()
        if name not in ("runid", "relstring"):
            found[(name, query)] = float(value)
    return found


def reference(trec_eval: Path, depth: int, *options: str) -> dict[tuple[str, str], float]:
    done = subprocess.run([str(trec_eval), "-q", "-M", str(depth), *options, QRELS, RUN],
                          capture_output=True, text=True, check=True)
    return lines(done.stdout)


def check(ours: dict, expected: dict, least: int) -> None:
    shared = set(ours) & set(expected)
    assert len(shared) >= least  # most of all_trec: the test compares what it says it does
    wrong = {k: (ours[k], expected[k]) for k in shared if round(ours[k], 4) != expected[k]}
    assert not wrong


def cut(depth: int, path: Path) -> str:
    """The run file cut to its top ``depth`` lines per query by a slow, obviously correct reference (trec_eval's
    order: score as float32 descending, doc id descending), written to ``path``."""
    _, run = trec_eval_example()
    run = run.assign(key=run["score"].astype("float32"))
    run = run.sort_values(["query_id", "key", "doc_id"], ascending=[True, False, False]).groupby("query_id").head(depth)
    path.write_text("".join(f"{q} Q0 {d} 0 {s!r} STANDARD\n" for q, d, s in zip(run["query_id"], run["doc_id"],
                                                                                    run["score"], strict=True)))
    return str(path)


@pytest.mark.parametrize("depth", DEPTHS)
def test_every_all_trec_measure_at_a_depth_is_trec_eval_s_on_files(trec_eval, depth, tmp_path):
    expected = reference(trec_eval, depth, "-m", "all_trec")
    ours = lines(cli(QRELS, RUN, "all_trec", "-M", str(depth), "-q", "-o", "trec").stdout)  # the small-file reader
    # Where pytrec_eval's trec_eval (ir_measures' provider) differs from trec_eval 10.0 on the very run cut to the
    # depth, with no depth involved (iprec_at_recall, on a few cuts: its interpolation changed), the values are
    # compared with ours on that cut run instead: the depth is then not what differs.
    cut_file = cut(depth, tmp_path / "cut.run")
    on_cut = lines(cli(QRELS, cut_file, "all_trec", "-q", "-o", "trec").stdout)
    done = subprocess.run([str(trec_eval), "-q", "-m", "all_trec", QRELS, cut_file], capture_output=True, text=True,
                          check=True)
    assert lines(done.stdout) == expected  # the reference cut is trec_eval's -M
    versions = {k for k in set(on_cut) & set(expected) if round(on_cut[k], 4) != expected[k]}
    assert {name for name, _ in versions} <= {f"iprec_at_recall_{r / 10:.2f}" for r in range(11)}
    check(ours, {k: v for k, v in expected.items() if k not in versions}, 250)
    assert {k: ours[k] for k in versions} == {k: on_cut[k] for k in versions}
    # the Arrow reader: the same run as Parquet
    _, run = trec_eval_example()
    parquet = tmp_path / "run.parquet"
    pq.write_table(pa.Table.from_pandas(run[["query_id", "doc_id", "score"]], preserve_index=False), parquet)
    out = cli(QRELS, str(parquet), "all_trec", "-M", str(depth), "-q", "-o", "trec").stdout
    assert lines(out) == ours
    if depth < 500:  # the depth matters: the values without it differ
        assert lines(cli(QRELS, RUN, "all_trec", "-q", "-o", "trec").stdout) != lines(out)


@pytest.mark.parametrize("depth", DEPTHS)
def test_the_api_at_a_depth_is_trec_eval_in_memory_and_streamed(trec_eval, depth):
    qrels, run = trec_eval_example()
    names = ["map", "ndcg", "P.5", "recall.10", "ndcg_cut.10", "Rprec", "bpref", "recip_rank", "num_rel_ret",
             "success.5", "infAP", "set_F"]
    expected = reference(trec_eval, depth, *[f"-m{n}" for n in names])
    done = experiment(qrels, [run], names, reading=Reading(depth=depth), warn=lambda _: None)
    ours = {(m.replace(".", "_"), q): v for m, q, v in done.per_query[["measure", "query_id", "value"]].itertuples(
        index=False)}
    ours.update({(m.replace(".", "_"), "all"): v for m, v in done.aggregates[["measure", "value"]].itertuples(index=False)})
    check(ours, expected, 4 * len(names))
    # ours, streamed by query batches (qrels in memory, the run file scanned, not kept): trec_eval -l2's map and ndcg
    expected = reference(trec_eval, depth, "-l2", "-mmap", "-mndcg")
    streamed = experiment(qrels, [RUN], [muAP(levels=(2,)), nDCNG(dcg="log2")], per_query=True,
                          reading=Reading(depth=depth, keep=False), warn=lambda _: None)
    named = {"muAP(levels='2')": "map", "nDCNG(dcg='log2')": "ndcg"}
    ours = {(named[m], q): v for m, q, v in streamed.per_query[["measure", "query_id", "value"]].itertuples(index=False)}
    ours.update({(named[m], "all"): v for m, v in streamed.aggregates[["measure", "value"]].itertuples(index=False)})
    check(ours, expected, 8)
    assert isinstance(streamed.per_query, pd.DataFrame)
