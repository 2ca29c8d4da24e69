"""The Spark engine on a real local SparkSession: same values as the single-machine path, files, CLI, MLlib."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from ir_measures import AP, P, nDCG

from ir_measures_graded import GAP, GradedInputError, cli, meanNDCG, meanNDCNG, muAP, muMAP, muP, nDCNG
from support import registered
from support.random_collections import random_collection

pytest.importorskip("pyspark", reason="the Spark tests need the 'spark' extra (pyspark)")
if shutil.which("java") is None:
    pytest.skip("the Spark tests need Java (17) on PATH", allow_module_level=True)

from ir_measures_graded import spark as graded_spark  # noqa: E402

# pyspark's own notices about pandas >= 3 and its deprecated SQLContext (used by RankingMetrics)
pytestmark = [pytest.mark.slow,  # a Spark session: see pyproject.toml (the everyday subset is -m 'not slow')
              pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
              pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
              pytest.mark.filterwarnings("ignore:Deprecated in 3.0.0:FutureWarning")]

FLOAT_LABELS = {0: 0.0, 1: 0.5, 2: 1.25, 3: 2.0, 4: 3.7}
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "spark_bench.py"


def frames(qrels: dict, run: dict, labels: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    q = pd.DataFrame([(qid, d, r) for qid, docs in qrels.items() for d, r in docs.items()],
                     columns=["query_id", "doc_id", "relevance"])
    if labels:
        q["relevance"] = q["relevance"].map(labels).astype(float)
    r = pd.DataFrame([(qid, d, s) for qid, docs in run.items() for d, s in docs.items()],
                     columns=["query_id", "doc_id", "score"])
    return q, r


@pytest.fixture(scope="module")
def collection():
    """1,200 queries: ties, float32 ties, unjudged and unretrieved documents, qrels-only and run-only queries."""
    return frames(*random_collection(17, n_queries=1200))


def single_machine(measures: list, qrels: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    rows = [(m.query_id, str(m.measure), m.value) for m in ir_measures.iter_calc(measures, qrels, run)]
    return pd.DataFrame(rows, columns=["query_id", "measure", "value"])


def assert_same_per_query(expected: pd.DataFrame, got: pd.DataFrame) -> None:
    merged = expected.merge(got, on=["query_id", "measure"], how="outer", indicator=True)
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"].head()
    diff = (merged["value_x"] - merged["value_y"]).abs()
    assert diff.max() <= 1e-12, merged.loc[diff.idxmax()]


OUR_MEASURES = [
    muMAP, muAP @ 5, muAP(floor=0.5), muAP(judged_only=True), muAP(weights="uniform"), muAP(levels="collection"),
    muAP(levels=(1, 2.5)), muAP(levels="collection", floor=1.0) @ 10, muP @ 5, muP(floor=1) @ 10,
    muP(levels="collection") @ 3, muAP(levels="collection-all"), GAP, GAP(floor=0.5) @ 10, nDCNG @ 10, nDCNG, nDCNG(dcg="log2") @ 5, nDCNG(norm="collection") @ 10,
    nDCNG(norm=4) @ 10, nDCNG(floor=0.5, judged_only=True) @ 10, nDCNG(gains={0.5: 1.0, 3.7: 10.0}) @ 10,
    meanNDCG @ 20, meanNDCG, meanNDCNG, meanNDCNG(norm="collection", floor=0.5) @ 15,
]


def test_our_measures_per_query_identical_to_single_machine_float_labels(spark, collection):
    qrels, run = collection
    qrels = qrels.assign(relevance=qrels["relevance"].map(FLOAT_LABELS).astype(float))
    assert qrels["query_id"].nunique() >= 1000
    got = graded_spark.calc_per_query(OUR_MEASURES, spark.createDataFrame(qrels), spark.createDataFrame(run))
    assert got.columns == ["query_id", "measure", "value"]
    got = got.toPandas()
    assert_same_per_query(single_machine(OUR_MEASURES, qrels, run), got)
    # qrels-only queries are there with 0; run-only queries are not
    only_qrels = set(qrels["query_id"]) - set(run["query_id"])
    only_run = set(run["query_id"]) - set(qrels["query_id"])
    assert only_qrels and only_run
    assert (got.loc[got["query_id"].isin(only_qrels), "value"] == 0).all()
    assert set(got.loc[got["query_id"].isin(only_qrels), "query_id"]) == only_qrels
    assert not got["query_id"].isin(only_run).any()


STANDARD = [AP, AP @ 10, AP(rel=2), AP(judged_only=True), P @ 5, P(rel=3) @ 10, nDCG @ 10, nDCG, nDCG(judged_only=True) @ 5,
            muMAP, nDCNG @ 10, muAP(levels=(1.0,)), muAP(levels=(1,))]  # the last two: AP's computation


def test_standard_measures_identical_to_pytrec_eval(spark, collection):
    qrels, run = collection
    got = graded_spark.calc_per_query(STANDARD, spark.createDataFrame(qrels), spark.createDataFrame(run)).toPandas()
    expected = single_machine(STANDARD, qrels, run)  # AP, P, nDCG: ir_measures' pytrec_eval provider
    assert_same_per_query(expected, got)


def paper_collection_mu_map(measure, qrels: pd.DataFrame, run: pd.DataFrame) -> float:
    """The paper's reading, from single-machine AP^t: MAP^t over queries with a judgment >= t, weighted."""
    floor = measure.floor()
    levels = sorted(set(qrels.loc[qrels["relevance"] > floor, "relevance"]))
    top = qrels.groupby("query_id")["relevance"].max()
    maps, weights, below = [], [], floor
    for t in levels:
        per_query = single_machine([measure(levels=(t,))], qrels, run)["value"]
        maps.append(per_query.sum() / (top >= t).sum())
        weights.append(1.0 if measure["weights"] == "uniform" else t - below)
        below = t
    return float(np.dot(maps, weights) / np.sum(weights))


def test_aggregate_equals_ir_measures_and_collection_mu_map_is_the_papers(spark, collection):
    qrels, run = collection
    qrels = qrels.assign(relevance=qrels["relevance"].map(FLOAT_LABELS).astype(float))
    # every registered measure (a new one is checked on Spark by registering it), and parameters
    measures = [*registered.instances(cutoff=5), *registered.with_cutoff(10), nDCNG(norm="collection") @ 5,
                muAP(levels="collection"), muAP(levels="collection", weights="uniform", floor=0.5) @ 20,
                muP(levels="collection") @ 5, muAP(levels="collection-all")]
    got = graded_spark.calc_aggregate(measures, spark.createDataFrame(qrels), spark.createDataFrame(run))
    assert list(got) == measures
    expected = ir_measures.calc_aggregate(measures, qrels, run)
    for measure in measures:
        assert got[measure] == pytest.approx(expected[measure], abs=1e-12), measure
        if measure.NAME == "muAP" and measure["levels"] == "collection":
            assert got[measure] == pytest.approx(paper_collection_mu_map(measure, qrels, run), abs=1e-12)


def test_collection_mu_map_by_hand(spark):
    # q1: labels 1, 2 (docs a, b); q2: label 1 only (c); q3: label 2 only (d), not retrieved.
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q3"], "doc_id": ["a", "b", "c", "d"],
                          "relevance": [1, 2, 1, 2]})
    run = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2", "q3"], "doc_id": ["b", "a", "x", "c", "x"],
                        "score": [2.0, 1.0, 2.0, 1.0, 1.0]})
    # t=1: AP q1 = 1, q2 = 1/2, q3 = 0 over 3 queries -> 1/2;  t=2: AP q1 = 1, q3 = 0 over 2 queries -> 1/2
    got = graded_spark.calc_aggregate([muAP(levels="collection")], spark.createDataFrame(qrels),
                                      spark.createDataFrame(run))
    assert got[muAP(levels="collection")] == pytest.approx(0.5, abs=1e-15)


def test_ids_of_any_type_and_configurable_columns(spark):
    qrels, run = frames(*random_collection(5, n_queries=60))
    def as_int(frame: pd.DataFrame) -> pd.DataFrame:  # 'q12' -> 12: ids whose string order is not numeric
        return frame.assign(query_id=frame["query_id"].str[1:].astype("int64"),
                            doc_id=frame["doc_id"].str[1:].astype("int64"))

    int_qrels, int_run = as_int(qrels), as_int(run)
    measures = [muMAP, nDCNG @ 5, P @ 3]
    as_str = {"query_id": str, "doc_id": str}  # pytrec_eval (P@3) takes string ids only
    expected = single_machine(measures, int_qrels.astype(as_str), int_run.astype(as_str))
    rec_qrels = int_qrels.rename(columns={"query_id": "user", "doc_id": "item", "relevance": "rating"})
    rec_run = int_run.rename(columns={"query_id": "user", "doc_id": "item", "score": "prediction"})
    names = {"query_col": "user", "doc_col": "item", "relevance_col": "rating", "score_col": "prediction"}
    got = graded_spark.calc_per_query(measures, spark.createDataFrame(rec_qrels), spark.createDataFrame(rec_run),
                                      **names)
    assert dict(got.dtypes)["user"] == "bigint"  # the qrels' type comes back
    got = got.toPandas().rename(columns={"user": "query_id"}).astype({"query_id": str})
    assert_same_per_query(expected, got)
    # integer ids in the qrels, string ids in the run: compared as strings, like ir_measures
    mixed = graded_spark.calc_per_query(measures, spark.createDataFrame(int_qrels),
                                        spark.createDataFrame(int_run.astype({"query_id": str, "doc_id": str})))
    assert_same_per_query(expected, mixed.toPandas().astype({"query_id": str}))


def test_clear_errors(spark, collection):
    qrels, run = (spark.createDataFrame(f) for f in collection)
    with pytest.raises(GradedInputError, match="not available on the Spark engine"):
        graded_spark.calc_aggregate([ir_measures.RR], qrels, run)
    with pytest.raises(GradedInputError, match="missing column"):
        graded_spark.calc_aggregate([muMAP], qrels, run, score_col="prediction")
    # found inside a worker, raised on the driver with the single-machine message
    twice = qrels.union(qrels.limit(1))
    with pytest.raises(GradedInputError, match=r"qrels has the same \(query, doc\) more than once: query"):
        graded_spark.calc_aggregate([muMAP], twice, run)


# --- files and command line -------------------------------------------------------------------------

def write_trec(qrels: pd.DataFrame, run: pd.DataFrame, folder: Path) -> tuple[Path, Path]:
    qrels_path, run_path = folder / "qrels.txt", folder / "run.txt"
    qrels.assign(it="0")[["query_id", "it", "doc_id", "relevance"]].to_csv(qrels_path, sep=" ", header=False,
                                                                           index=False)
    with_rank = run.assign(q0="Q0", rank=run.groupby("query_id").cumcount() + 1, tag="tagA")
    with_rank[["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(run_path, sep="\t", header=False,
                                                                          index=False, float_format="%.17g")
    return qrels_path, run_path


def test_trec_text_and_parquet_readers(spark, tmp_path):
    qrels, run = frames(*random_collection(3, n_queries=80), labels=FLOAT_LABELS)
    qrels_path, run_path = write_trec(qrels, run, tmp_path)
    qrels.to_parquet(tmp_path / "qrels.parquet")
    run.to_parquet(tmp_path / "run.parquet")
    measures = [muMAP, nDCNG @ 10]
    expected = ir_measures.calc_aggregate(measures, qrels, run)
    for q, r in ((qrels_path, run_path), (tmp_path / "qrels.parquet", tmp_path / "run.parquet")):
        got = graded_spark.calc_aggregate(measures, graded_spark.read_qrels(spark, str(q)),
                                          graded_spark.read_run(spark, str(r)))
        for m in measures:
            assert got[m] == pytest.approx(expected[m], abs=1e-12)
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 high tag\n")
    # the reading package's own parser and message, with the file's line number
    with pytest.raises(GradedInputError, match=r"bad.run:2: malformed run line \(column 5 \('high'\) is not a number\): "
                                               r"'q1 Q0 d2 2 high tag'"):
        graded_spark.read_run(spark, str(bad))
    with pytest.raises(GradedInputError, match="not found"):
        graded_spark.read_qrels(spark, str(tmp_path / "missing.txt"))


def test_trec_lines_are_numbered_across_partitions(spark, tmp_path):
    """Spark splits a text file into partitions; a malformed line is still named by its line in the file."""
    lines = [f"q{i // 10} Q0 d{i} {i % 10 + 1} {1.0 / (i + 1)!r} tag" for i in range(5000)]
    lines[4321] = "q432 Q0 dx 2 high tag"
    path = tmp_path / "big.run"
    path.write_text("\n".join(lines) + "\n")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "16384")
    try:
        assert spark.read.text(str(path)).rdd.getNumPartitions() > 3
        with pytest.raises(GradedInputError, match=r"big.run:4322: malformed run line \(column 5 \('high'\)"):
            graded_spark.read_run(spark, str(path))
        lines[4321] = "q432 Q0 dx 2 0.5 tag"
        path.write_text("\n".join(lines) + "\n")
        assert graded_spark.read_run(spark, str(path)).count() == 5000
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")


def cli_output(capsys, *argv: str) -> str:
    assert cli.main(list(argv)) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_cli_engine_spark_prints_what_the_local_engine_prints(spark, tmp_path, capsys):
    qrels, run = frames(*random_collection(9, n_queries=50))
    qrels_path, run_path = write_trec(qrels, run, tmp_path)
    run2 = tmp_path / "run2.txt"
    run2.write_text(run_path.read_text().replace("\t0.", "\t0.3"))
    for options in ([str(run_path), "muMAP", "nDCNG@10", "AP", "P@5"],
                    [str(run_path), "muMAP nDCNG@10", "-q", "-p", "-1"],
                    [str(run_path), str(run2), "muMAP", "nDCG@10", "muAP(levels='collection')", "-o", "csv"],
                    [str(run_path), str(run2), "muAP(levels='collection')", "GAP", "-q", "-p", "-1"],
                    [str(run_path), "muMAP", "-o", "jsonl", "-q", "-n", "-p", "-1"]):
        local = cli_output(capsys, str(qrels_path), *options).splitlines()
        on_spark = cli_output(capsys, str(qrels_path), *options, "--engine", "spark").splitlines()
        if "-p" not in options:
            assert on_spark == local, options
            continue
        # All digits: a mean summed in another order may differ in its last digits; and with -q the
        # same lines come by measure, then query id, where the local engine's order depends on its providers.
        assert len(on_spark) == len(local), options
        expect, got = [[re.sub(r"\d+\.\d+(e-?\d+)?", lambda m: f"{float(m.group()):.12f}", line) for line in lines]
                       for lines in (local, on_spark)]
        assert (sorted(got) == sorted(expect)) if "-q" in options else got == expect, options


def test_cli_engine_spark_warns_as_the_local_engine_warns(spark, tmp_path, capsys):
    """A run missing some judged queries, and one sharing none: the same warnings on both engines
    (the Spark workers count the run's rows and shared queries beside their sums)."""
    qrels, run = frames(*random_collection(9, n_queries=12))
    qrels_path, run_path = write_trec(qrels, run, tmp_path)
    kept = sorted(set(run["query_id"]))[:5]
    partial, elsewhere = tmp_path / "partial.txt", tmp_path / "elsewhere.txt"
    partial.write_text("".join(line + "\n" for line in run_path.read_text().splitlines() if line.split()[0] in kept))
    elsewhere.write_text("".join("x" + line + "\n" for line in run_path.read_text().splitlines()))
    passages = tmp_path / "passages.txt"  # ids of another level: no retrieved document is judged (issue 44)
    passages.write_text("".join(" ".join(f"{f}-1" if i == 2 else f for i, f in enumerate(line.split())) + "\n"
                                for line in run_path.read_text().splitlines()))
    judged = set(qrels["query_id"])
    missed = len(judged - set(kept))
    for path, expected in ((partial, f"ranks no document for {missed} of the {len(judged)} judged queries: they score 0"),
                           (elsewhere, "shares no query with the qrels"),
                           (passages, "retrieved documents of the judged queries is judged")):
        errors = []
        for engine in ([], ["--engine", "spark"]):
            assert cli.main([str(qrels_path), str(path), "muMAP", *engine]) == 0
            errors.append(capsys.readouterr().err)
        assert errors[0] == errors[1] and expected in errors[1], errors


def test_calc_aggregate_of_a_run_judged_nowhere_warns_as_ir_measures_does(spark):
    """graded_spark.calc_aggregate tells of a run of passage ids in the line ir_measures.calc_aggregate gives
    (its workers count the judged rows beside their sums); a run judged somewhere is not told of."""
    import warnings

    qrels, run = frames(*random_collection(9, n_queries=12))
    passages = run.assign(doc_id=run["doc_id"] + "-1")
    lines = []
    for compute in (lambda r: ir_measures.calc_aggregate([muMAP], qrels, r),
                    lambda r: graded_spark.calc_aggregate([muMAP], spark.createDataFrame(qrels),
                                                          spark.createDataFrame(r))):
        for given, expected in ((passages, 1), (run, 0)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                compute(given)
            told = [str(w.message) for w in caught if "another collection or level" in str(w.message)]
            assert len(told) == expected, told
            lines += told
    assert lines[0] == lines[1] and lines[0].startswith("the run: none of its"), lines


def test_cli_engine_spark_rejects_what_it_cannot_do(spark, tmp_path, capsys):
    qrels, run = frames(*random_collection(9, n_queries=5))
    qrels_path, run_path = write_trec(qrels, run, tmp_path)
    assert cli.main([str(qrels_path), str(run_path), "RR", "--engine", "spark"]) == 2
    assert "not available on the Spark engine" in capsys.readouterr().err


def readme_section() -> str:
    """The documentation's Spark page (docs/spark.md; it was the README's Spark section)."""
    return (Path(__file__).resolve().parents[2] / "docs" / "spark.md").read_text(encoding="utf-8")


@pytest.fixture()
def sample_as_parquet(tmp_path, monkeypatch):
    """The bundled sample collection (qrels, strong run) as qrels.parquet / run.parquet in the working folder."""
    from ir_measures_graded.io.readers import read_qrels, read_run
    from ir_measures_graded.sample import data_path

    sample = data_path("graded_sample")
    qrels, run = read_qrels(sample / "qrels.txt"), read_run(sample / "strong.run")[["query_id", "doc_id", "score"]]
    qrels.to_parquet(tmp_path / "qrels.parquet")
    run.to_parquet(tmp_path / "run.parquet")
    monkeypatch.chdir(tmp_path)
    return qrels, run


def test_readme_spark_example_and_command_print_what_it_says(spark, sample_as_parquet, capsys):
    qrels, run = sample_as_parquet
    section = readme_section()
    example = section.split("Five lines on Parquet", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    assert len(example.strip().splitlines()) == 5
    for name in ("qrels.parquet", "run.parquet"):  # the JVM's working folder is not this test's
        example = example.replace(f'"{name}"', repr(str(Path(name).resolve())))
    exec(compile(example, "README.md", "exec"), {})
    printed = dict(re.findall(r"([\w@]+): ([-0-9.e]+)", capsys.readouterr().out))
    expected = ir_measures.calc_aggregate([muMAP, nDCNG @ 10, AP, nDCG @ 10], qrels, run)
    assert list(printed) == ["muAP", "nDCNG@10", "AP", "nDCG@10"]
    for measure, value in expected.items():
        assert float(printed[str(measure)]) == pytest.approx(value, abs=1e-12)
    transcript = section.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    command, shown = transcript[0], transcript[1:]
    args = [a.strip("'") for a in command.split()[2:]]
    assert cli.main(args) == 0
    assert capsys.readouterr().out.splitlines() == shown


# --- MLlib ------------------------------------------------------------------------------------------

def mllib_rows(qrels: pd.DataFrame, run: pd.DataFrame, min_label: float) -> list[tuple[list, list]]:
    """Per query (in the qrels): docs by descending score (ties: doc id descending, as trec_eval), relevant docs."""
    ranked = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    predicted = ranked.groupby("query_id")["doc_id"].apply(list)
    relevant = qrels[qrels["relevance"] >= min_label].groupby("query_id")["doc_id"].apply(list)
    return [(predicted.get(q, []), relevant.get(q, [])) for q in sorted(set(qrels["query_id"]))]


def test_mllib_agrees_where_conventions_coincide_and_differs_where_documented(spark):
    from pyspark.mllib.evaluation import RankingMetrics

    # Every relevant document retrieved, no score ties: MAP, P@k and binary nDCG@k coincide.
    qrels, run = frames(*random_collection(11, n_queries=300, max_judged=10, max_retrieved=40))
    run = run[run["query_id"].isin(qrels["query_id"])]
    judged_missing = qrels.merge(run, on=["query_id", "doc_id"], how="left")["score"].isna()
    extra = qrels[judged_missing].assign(score=-1.0)[["query_id", "doc_id", "score"]]
    run = pd.concat([run, extra], ignore_index=True)
    run["score"] = np.random.default_rng(0).permutation(len(run)) / len(run)  # distinct scores
    binary = qrels.assign(relevance=(qrels["relevance"] >= 1).astype(int))
    metrics = RankingMetrics(spark.sparkContext.parallelize(mllib_rows(binary, run, 1)))
    ours = graded_spark.calc_aggregate([AP, P @ 5, nDCG @ 10, muMAP], spark.createDataFrame(binary),
                                       spark.createDataFrame(run))
    assert metrics.meanAveragePrecision == pytest.approx(ours[AP], abs=1e-12)
    assert metrics.meanAveragePrecision == pytest.approx(ours[muMAP], abs=1e-12)  # binary: µAP = AP
    assert metrics.precisionAt(5) == pytest.approx(ours[P @ 5], abs=1e-12)
    assert metrics.ndcgAt(10) == pytest.approx(ours[nDCG @ 10], abs=1e-12)

    # Cutoff: MLlib's MAP@k divides by min(R, k), trec_eval's AP@k by R.
    many_relevant = binary.groupby("query_id")["relevance"].sum().gt(5).any()
    assert many_relevant
    ap5 = graded_spark.calc_aggregate([AP @ 5], spark.createDataFrame(binary), spark.createDataFrame(run))[AP @ 5]
    assert metrics.meanAveragePrecisionAt(5) > ap5 + 1e-3

    # Graded labels: pyspark's RankingMetrics takes (prediction, labels, relevance values) but drops the
    # values, so its nDCG@k is the binary one, not trec_eval's graded nDCG@k.
    graded_rows = [(p, rel, [float(qrels.set_index(["query_id", "doc_id"]).loc[(q, d), "relevance"]) for d in rel])
                   for q, (p, rel) in zip(sorted(set(qrels["query_id"])), mllib_rows(qrels, run, 1), strict=True)]
    graded_metrics = RankingMetrics(spark.sparkContext.parallelize(graded_rows))
    graded = graded_spark.calc_aggregate([nDCG @ 10], spark.createDataFrame(qrels), spark.createDataFrame(run))
    assert graded_metrics.ndcgAt(10) == pytest.approx(metrics.ndcgAt(10), abs=1e-12)
    assert abs(graded_metrics.ndcgAt(10) - graded[nDCG @ 10]) > 1e-3

    # Ties: MLlib takes the arrays' order; trec_eval breaks score ties by doc id (descending).
    tied = run.assign(score=0.5)
    reversed_rows = [(list(reversed(p)), rel) for p, rel in mllib_rows(binary, tied, 1)]
    in_order = RankingMetrics(spark.sparkContext.parallelize(mllib_rows(binary, tied, 1))).meanAveragePrecision
    reversed_map = RankingMetrics(spark.sparkContext.parallelize(reversed_rows)).meanAveragePrecision
    ours_tied = graded_spark.calc_aggregate([AP], spark.createDataFrame(binary), spark.createDataFrame(tied))[AP]
    assert in_order == pytest.approx(ours_tied, abs=1e-12) and not math.isclose(reversed_map, ours_tied)


def scala_ranking_metrics(spark, rows: list[tuple[list, list, list]]):
    """Scala's RankingMetrics on (prediction, ground truth, relevance values): pyspark's wrapper drops the values."""
    sc = spark.sparkContext
    jvm, gateway = sc._jvm, sc._gateway

    def java_array(values: list, java_type):
        array = gateway.new_array(java_type, len(values))
        for i, v in enumerate(values):
            array[i] = v
        return array

    triples = jvm.java.util.ArrayList()
    for predicted, relevant, values in rows:
        triples.add(jvm.scala.Tuple3(java_array(predicted, jvm.java.lang.Object),
                                     java_array(relevant, jvm.java.lang.Object), java_array(values, gateway.jvm.double)))
    seq = jvm.scala.jdk.javaapi.CollectionConverters.asScala(triples).toSeq()
    class_tag = jvm.scala.reflect.ClassTag.apply
    rdd = sc._jsc.sc().parallelize(seq, 2, class_tag(jvm.scala.Tuple3(None, None, None).getClass()))
    return jvm.org.apache.spark.mllib.evaluation.RankingMetrics(rdd, class_tag(jvm.java.lang.Object().getClass()))


def test_scala_mllib_graded_ndcg_is_exponential_gain_ndcg_when_the_ground_truth_is_sorted(spark):
    qrels, run = frames(*random_collection(13, n_queries=80, max_judged=10, max_retrieved=20))
    run = run[run["query_id"].isin(qrels["query_id"])]
    run = run.assign(score=np.random.default_rng(1).permutation(len(run)) / len(run))  # no ties
    relevant = qrels[qrels["relevance"] > 0]
    predicted = mllib_rows(qrels, run, 1)
    queries = sorted(set(qrels["query_id"]))

    def rows(descending: bool) -> list[tuple[list, list, list]]:
        result = []
        for q, (p, _) in zip(queries, predicted, strict=True):
            judged = relevant[relevant["query_id"] == q].sort_values("relevance", ascending=not descending)
            result.append((p, list(judged["doc_id"]), [float(v) for v in judged["relevance"]]))
        return result

    # Scala (since 3.4): gain 2^rel - 1, ideal DCG from the ground-truth list in the order given.
    ndcg_exp = nDCNG(norm=1) @ 10  # gains not normalised: 2^label - 1, trec_eval's discount
    ours = graded_spark.calc_aggregate([ndcg_exp], spark.createDataFrame(qrels), spark.createDataFrame(run))[ndcg_exp]
    assert scala_ranking_metrics(spark, rows(descending=True)).ndcgAt(10) == pytest.approx(ours, abs=1e-12)
    unsorted = scala_ranking_metrics(spark, rows(descending=False)).ndcgAt(10)
    assert unsorted > ours + 1e-3  # the ideal DCG is too small: values above the true nDCG
    assert scala_ranking_metrics(spark, [(["b", "a"], ["a", "b"], [1.0, 3.0])]).ndcgAt(10) > 1.4  # even above 1


# --- benchmark --------------------------------------------------------------------------------------

def test_spark_benchmark_runs_at_tiny_size(spark, tmp_path):
    sys.path.insert(0, str(BENCH.parent))
    try:
        import spark_bench
    finally:
        sys.path.pop(0)
    spark_bench.make_data(tmp_path, queries=30, docs=20, judged=6)
    ours = spark_bench.ours(tmp_path)
    local = spark_bench.single_machine(tmp_path)
    assert ours.keys() == local.keys() and all(ours[k] == pytest.approx(local[k], abs=1e-12) for k in ours)
    by_metrics, by_evaluator = spark_bench.mllib_metrics(tmp_path), spark_bench.mllib_evaluator(tmp_path)
    assert by_metrics == pytest.approx(by_evaluator, abs=1e-12) and 0 < by_metrics["MAP"] < 1
    stages = spark_bench.time_stages(tmp_path, 1)
    assert len(stages) == 2 and all(seconds > 0 for seconds in stages.values())
    # the script end to end (the contender without Spark, to stay quick): data, child processes, table
    out = subprocess.run([sys.executable, str(BENCH), "--queries", "20", "--docs", "10", "--judged", "4",
                          "--repeats", "1", "--rounds", "2", "--contenders", "single_machine", "--scaling", "0"],
                         capture_output=True, text=True, check=True).stdout
    assert "| single machine: muMAP + nDCNG@10 |" in out and "peak MiB JVM" in out
    assert "median of 2 x 1 runs (2 processes per contender, in turn)" in out


def test_every_registered_measure_at_its_defaults_and_tie_aware(spark):
    """Every measure of the registry (``all``), also with ties='expected' where it has one: per query
    and aggregated, the single-machine values (gRBP_residual: 1 for a query the run lacks)."""
    from ir_measures_graded.measures.base import all_measures

    qrels, run = frames(*random_collection(21, n_queries=150))
    measures = [*all_measures(), *(m(ties="expected") for m in all_measures() if m.NAME != "gERR")]
    got = graded_spark.calc_per_query(measures, spark.createDataFrame(qrels), spark.createDataFrame(run))
    assert_same_per_query(single_machine(measures, qrels, run), got.toPandas())
    aggregates = graded_spark.calc_aggregate(measures, spark.createDataFrame(qrels), spark.createDataFrame(run))
    assert aggregates == pytest.approx(ir_measures.calc_aggregate(measures, qrels, run), abs=1e-12)


# --- what crosses to the workers (issue 22) ---------------------------------------------------------

def integer_ids(frame: pd.DataFrame, dtype: str = "int64") -> pd.DataFrame:
    """'q12' -> 12, 'd9' -> 9: integer ids whose string order ('9' > '10') is not their numeric order."""
    return frame.assign(query_id=frame["query_id"].str[1:].astype(dtype), doc_id=frame["doc_id"].str[1:].astype(dtype))


def test_integer_ids_from_parquet_give_the_local_engines_values_per_query(spark, collection, tmp_path):
    """Integer ids stay integers through the shuffle; ties are still broken by the ids' strings."""
    qrels, run = (integer_ids(f) for f in collection)
    qrels = qrels.assign(relevance=qrels["relevance"].map(FLOAT_LABELS).astype(float))
    run = run.assign(score=(run["score"] * 4).round() / 4)  # many more ties, broken by doc id as a string
    qrels.to_parquet(tmp_path / "qrels.parquet")
    run.to_parquet(tmp_path / "run.parquet")
    expected = single_machine(OUR_MEASURES, qrels, run).astype({"query_id": str})
    for read_qrels, read_run in ((spark.read.parquet, spark.read.parquet),
                                 (lambda p: graded_spark.read_qrels(spark, p), lambda p: graded_spark.read_run(spark, p))):
        spark_qrels, spark_run = read_qrels(str(tmp_path / "qrels.parquet")), read_run(str(tmp_path / "run.parquet"))
        _, by_query = graded_spark.rows_by_query(spark_qrels, spark_run, ("query_id", "doc_id", "relevance", "score"))
        nulls = "array<struct<d:bigint,v:double>>"
        assert by_query.dtypes == [("q", "bigint"), ("qrels_d", "array<bigint>"), ("qrels_v", "array<double>"),
                                   ("qrels_null", nulls), ("run_d", "array<bigint>"), ("run_v", "array<double>"),
                                   ("run_null", nulls)]
        got = graded_spark.calc_per_query(OUR_MEASURES, spark_qrels, spark_run)
        assert dict(got.dtypes)["query_id"] == "bigint"
        assert_same_per_query(expected, got.toPandas().astype({"query_id": str}))


@pytest.mark.parametrize("qrels_type, run_type, shuffled", [("int", "int", "int"), ("int", "bigint", "bigint"),
                                                            ("bigint", "string", "string")])
def test_ids_are_shuffled_in_the_narrowest_type_both_sides_share(spark, qrels_type, run_type, shuffled):
    qrels, run = (integer_ids(f, "int32") for f in frames(*random_collection(4, n_queries=40)))

    def frame(df: pd.DataFrame, id_type: str, value: str):
        if id_type == "string":
            df = df.astype({"query_id": str, "doc_id": str})
        return spark.createDataFrame(df, f"query_id {id_type}, doc_id {id_type}, {value} double")

    spark_qrels, spark_run = frame(qrels, qrels_type, "relevance"), frame(run, run_type, "score")
    _, by_query = graded_spark.rows_by_query(spark_qrels, spark_run, ("query_id", "doc_id", "relevance", "score"))
    assert by_query.dtypes == [("q", shuffled), *((f"{side}_{column}", kind) for side in ("qrels", "run") for column, kind in
                                                  (("d", f"array<{shuffled}>"), ("v", "array<double>"),
                                                   ("null", f"array<struct<d:{shuffled},v:double>>")))]
    measures = [muMAP, nDCNG @ 5]
    got = graded_spark.calc_aggregate(measures, spark_qrels, spark_run)
    assert got == pytest.approx(ir_measures.calc_aggregate(measures, qrels.astype({"query_id": str, "doc_id": str}),
                                                           run.astype({"query_id": str, "doc_id": str})), abs=1e-12)


def test_bad_rows_are_found_after_the_shuffle_naming_query_and_doc(spark):
    qrels = pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 10], "rating": [1.0, 2.0, 1.0]})
    run = pd.DataFrame({"user": [1, 1, 7, 7], "item": [10, 12, 10, 9], "prediction": [0.5, 0.2, 0.3, 0.1]})
    names = {"query_col": "user", "doc_col": "item", "relevance_col": "rating", "score_col": "prediction"}

    def error(qrels: pd.DataFrame, run: pd.DataFrame) -> str:
        with pytest.raises(GradedInputError) as raised:
            graded_spark.calc_aggregate([muMAP], spark.createDataFrame(qrels), spark.createDataFrame(run), **names)
        return str(raised.value)

    # query 7 is only in the run: its rows are checked all the same (as the local engine checks them)
    assert error(qrels, run.assign(prediction=[0.5, 0.2, 0.3, float("inf")])) == \
        "run DataFrame (query 7, doc 9): prediction inf is not a finite number"
    # (Spark reads pandas' NaN as a null)
    assert error(qrels.assign(rating=[1.0, float("nan"), 1.0]), run) == \
        "qrels DataFrame (query 1, doc 11): rating is missing (null)"
    schema = "user bigint, item bigint, rating double"
    with pytest.raises(GradedInputError, match=r"^qrels DataFrame \(query 2\): item is missing \(null\)$"):
        graded_spark.calc_aggregate([muMAP], spark.createDataFrame(qrels.astype(object).assign(item=[10, 11, None]),
                                                                   schema), spark.createDataFrame(run), **names)


def test_a_parquet_files_bad_row_is_named_by_its_row_when_read(spark, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    scores = np.linspace(1.0, 0.0, 3000)
    scores[2345] = np.nan
    table = pa.table({"query_id": np.arange(3000) // 100, "doc_id": np.arange(3000), "score": scores})
    pq.write_table(table, tmp_path / "run.parquet", row_group_size=500)
    spark.conf.set("spark.sql.files.maxPartitionBytes", "4096")  # several partitions: rows numbered across them
    try:
        with pytest.raises(GradedInputError, match=r"run file .*run.parquet: row 2345: score nan is not a finite number"):
            graded_spark.read_run(spark, str(tmp_path / "run.parquet"))
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    pq.write_table(table.set_column(2, "score", pa.array(np.linspace(1.0, 0.0, 3000))), tmp_path / "run.parquet")
    read = graded_spark.read_run(spark, str(tmp_path / "run.parquet"))
    assert read.columns == ["query_id", "doc_id", "score"] and read.count() == 3000


def test_our_job_settings_are_the_sessions_again_afterwards(spark, collection):
    qrels, run = (spark.createDataFrame(f) for f in collection)
    keys = ("spark.sql.execution.arrow.maxBytesPerBatch", "spark.sql.adaptive.advisoryPartitionSizeInBytes")
    before = [spark.conf.get(key) for key in keys]
    spark.conf.set(keys[0], "5000")  # the user's choice is kept while the job runs
    try:
        graded_spark.calc_aggregate([muMAP], qrels, run)
        assert [spark.conf.get(key) for key in keys] == ["5000", before[1]]
    finally:
        spark.conf.unset(keys[0])
    graded_spark.calc_aggregate([muMAP], qrels, run)
    assert [spark.conf.get(key) for key in keys] == before


def test_queries_evaluated_a_batch_at_a_time_give_the_single_machines_values(spark, collection):
    """Workers evaluate each Arrow batch of whole queries as it arrives and sum a partition's
    aggregates across its batches: with a few queries a batch, values are still one machine's."""
    qrels, run = collection
    qrels = qrels.assign(relevance=qrels["relevance"].map(FLOAT_LABELS).astype(float))
    measures = [muMAP, muAP(levels="collection"), nDCNG(norm="collection") @ 10, GAP]
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "7")
    try:
        spark_qrels, spark_run = spark.createDataFrame(qrels), spark.createDataFrame(run)
        _, by_query = graded_spark.rows_by_query(spark_qrels, spark_run, ("query_id", "doc_id", "relevance", "score"), 2)
        assert by_query.rdd.getNumPartitions() == 2  # so each worker's partition holds about 85 batches
        got = graded_spark.calc_aggregate(measures, spark_qrels, spark_run, partitions=2)
        per_query = graded_spark.calc_per_query(measures, spark_qrels, spark_run, partitions=2).toPandas()
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    expected = ir_measures.calc_aggregate(measures, qrels, run)
    assert got == pytest.approx(expected, abs=1e-12)
    assert_same_per_query(single_machine(measures, qrels, run), per_query)


def test_what_the_executors_run_imports_none_of_the_drivers_modules(tmp_path):
    """The evaluating function, pickled as pyspark pickles it for the executors, runs in a fresh
    process (as a worker's) without loading the driver's modules of the engine (issue 36, item 4):
    only :mod:`.workers` (and the package's ``__init__``, as any submodule's parent)."""
    from pyspark import cloudpickle

    from ir_measures_graded.engines.spark import workers

    fields = (("query_id", "doc_id", "relevance"), ("query_id", "doc_id", "score"))
    evaluate = workers._partition_evaluator([muMAP, nDCNG @ 10], ["muMAP", "nDCNG@10"], [0.0, 1.0], True, fields)
    pickled = tmp_path / "evaluate.pickle"
    pickled.write_bytes(cloudpickle.dumps(evaluate))
    code = f"""
import pickle, sys
import pyarrow as pa
evaluate = pickle.loads(open({str(pickled)!r}, "rb").read())
lists = lambda values: pa.array([values])
none = pa.array([[]], pa.list_(pa.struct([("d", pa.string()), ("v", pa.float64())])))
batch = pa.RecordBatch.from_pydict({{"q": ["1"], "qrels_d": lists(["a", "b"]), "qrels_v": lists([1.0, 0.0]),
                                    "qrels_null": none, "run_d": lists(["b", "a"]), "run_v": lists([2.0, 1.0]),
                                    "run_null": none}})
print(sum(b.num_rows for b in evaluate(iter([batch]))))
print(" ".join(sorted(m for m in sys.modules if m.startswith("ir_measures_graded.engines"))))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    # the partial aggregates of both measures, the run's rows and shared queries, its ranked and judged rows
    assert int(out[0]) == 2 + 2 + 2
    assert out[1].split() == ["ir_measures_graded.engines", "ir_measures_graded.engines.spark",
                              "ir_measures_graded.engines.spark.workers"]


def test_the_packages_names_are_those_of_the_module_it_replaced():
    """``engines/spark.py`` became a package (issue 36, item 4): its public names (and the short
    module ``ir_measures_graded.spark``) still work."""
    import ir_measures_graded.spark as short
    from ir_measures_graded.engines import spark as engine
    from ir_measures_graded.engines.spark import SparkEngine, calc_aggregate, read_qrels, rows_by_query  # noqa: F401

    assert short is engine
    for name in engine.__all__:
        assert callable(getattr(engine, name)), name
    with pytest.raises(AttributeError):
        engine.no_such_name  # noqa: B018
