"""The installed ``ir-measures-graded`` console script, run in a subprocess on files written here."""

from __future__ import annotations

import gzip
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import ir_measures
import pandas as pd
import pytest
from ir_measures import AP, P, nDCG

from ir_measures_graded import by_level, muAP, muMAP, muP, nDCNG
from ir_measures_graded.measures import GradedMeasure
from ir_measures_graded.sample import data_path, graded_sample, write_graded_sample
from support.cli import SCRIPT, cli, fail

SAMPLE = data_path("graded_sample")
QRELS = str(SAMPLE / "qrels.txt")
STRONG, WEAK, RANDOM = (str(SAMPLE / f"{name}.run") for name in ("strong", "weak", "random"))


@pytest.fixture(scope="module")
def api():
    qrels, runs = graded_sample()
    return qrels, runs


def test_summary_one_line_per_measure_equals_api(api):
    qrels, runs = api
    out = cli(QRELS, STRONG, "muMAP", "nDCNG@10", "AP", "nDCG@10", "-p", "-1").stdout.splitlines()
    expected = ir_measures.calc_aggregate([muMAP, nDCNG @ 10, AP, nDCG @ 10], qrels, runs["strong"])
    assert [line.split("\t")[0] for line in out] == ["muMAP", "nDCNG@10", "AP", "nDCG@10"]
    for line in out:
        name, value = line.split("\t")
        assert float(value) == expected[ir_measures.parse_measure(name)]


def test_summary_default_four_places():
    out = cli(QRELS, STRONG, "muMAP").stdout
    assert out.count("\n") == 1 and len(out.split("\t")[1].strip().split(".")[1]) == 4


def test_per_query_then_all(api):
    qrels, runs = api
    lines = cli(QRELS, STRONG, "muMAP nDCNG@10", "-q", "-p", "-1").stdout.splitlines()
    per_query = {(q, m): float(v) for q, m, v in (line.split("\t") for line in lines)}
    named = {muMAP: "muMAP", nDCNG @ 10: "nDCNG@10"}  # as given
    for metric in ir_measures.iter_calc([muMAP, nDCNG @ 10], qrels, runs["strong"]):
        assert per_query[(metric.query_id, named[metric.measure])] == metric.value
    assert lines[-2].startswith("all\tmuMAP\t") and lines[-1].startswith("all\tnDCNG@10\t")
    assert len(lines) == 2 * 30 + 2
    no_summary = cli(QRELS, STRONG, "muMAP", "-q", "-n").stdout.splitlines()
    assert len(no_summary) == 30 and not any(line.startswith("all\t") for line in no_summary)


def test_several_runs_one_table(api):
    qrels, runs = api
    out = cli(QRELS, STRONG, WEAK, RANDOM, "muMAP", "nDCNG@10", "MAP", "-p", "-1").stdout.splitlines()
    assert out[0].split("\t") == ["run", "muMAP", "nDCNG@10", "MAP"]
    rows = [line.split("\t") for line in out[1:]]
    assert [r[0] for r in rows] == ["strong.run", "weak.run", "random.run"]  # the file names (#34)
    for row, name in zip(rows, ["strong", "weak", "random"], strict=True):
        expected = ir_measures.calc_aggregate([muMAP, nDCNG @ 10, AP], qrels, runs[name])
        assert [float(v) for v in row[1:]] == [expected[muMAP], expected[nDCNG @ 10], expected[AP]]


def test_csv_and_jsonl_and_trec(api):
    qrels, runs = api
    csv = cli(QRELS, STRONG, WEAK, "muMAP", "P@5", "-o", "csv", "-p", "-1").stdout
    exact = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 2 else {}  # else one ulp off
    table = pd.read_csv(pd.io.common.StringIO(csv), **exact)  # pandas >= 2 parses exactly (and deprecates the option)
    assert list(table.columns) == ["run", "muMAP", "P@5"]
    assert table.loc[1, "muMAP"] == muMAP.calc_aggregate(qrels, runs["weak"])
    per_query = pd.read_csv(pd.io.common.StringIO(cli(QRELS, STRONG, "muMAP", "-q", "-o", "csv").stdout))
    assert list(per_query.columns) == ["run", "query_id", "muMAP"] and len(per_query) == 31

    records = [json.loads(line) for line in cli(QRELS, STRONG, "muMAP", "P@5", "-o", "jsonl").stdout.splitlines()]
    assert records == [{"measure": "muMAP", "value": muMAP.calc_aggregate(qrels, runs["strong"])},
                       {"measure": "P@5", "value": (P @ 5).calc_aggregate(qrels, runs["strong"])}]
    several = [json.loads(line) for line in cli(QRELS, STRONG, WEAK, "muMAP", "-q", "-o", "jsonl").stdout.splitlines()]
    assert {r["run"] for r in several} == {"strong.run", "weak.run"} and all("query_id" in r for r in several)

    trec = cli(QRELS, STRONG, "muMAP", "-q", "-o", "trec").stdout.splitlines()
    assert trec[0].split("\t") == ["runid".ljust(22), "all", "strong"]  # the run's own tag (column 6)
    name, qid, value = trec[1].split("\t")
    assert name.strip() == "muMAP" and qid == "S01" and len(value.split(".")[1]) == 4
    assert trec[-1].split("\t")[1] == "all"


def test_thresholds_add_the_per_level_breakdown_to_the_normal_output(api, tmp_path):
    qrels, runs = api
    normal = cli(QRELS, STRONG, "muMAP", "AP", "nDCG@10", "-p", "-1").stdout
    # tsv is one table per stream (#34): the breakdown is a second table, so a file of its own
    assert "--output-dir" in fail(QRELS, STRONG, "muMAP", "--thresholds")
    folder = tmp_path / "out"
    assert cli(QRELS, STRONG, "muMAP", "AP", "nDCG@10", "--thresholds", "-p", "-1", "--output-dir", str(folder)).stdout == ""
    assert sorted(p.name for p in folder.iterdir()) == ["results.tsv", "thresholds.tsv"]
    assert (folder / "results.tsv").read_text() == normal  # every measure asked for, as without --thresholds
    table = pd.read_csv(folder / "thresholds.tsv", sep="\t")
    levels = by_level(muMAP, qrels, runs["strong"])
    assert list(table.columns) == ["run", "of", "measure", *levels.columns]  # the breakdown, tidy
    assert table["measure"].tolist() == ["MAP(rel>=1)", "MAP(rel>=2)", "MAP(rel>=3)", "MAP(rel>=4)"]
    assert (table["run"] == "strong.run").all() and (table["of"] == "muMAP").all()
    assert table["value"].tolist() == levels["value"].tolist()
    assert table["weight"].tolist() == levels["weight"].tolist()
    for column in levels.columns:
        assert table[column].tolist() == pytest.approx(levels[column].tolist()), column
    for level in (1, 2, 3):  # MAP^t is ir_measures' AP(rel=t) where every query has a label >= t
        assert table["value"][level - 1] == pytest.approx(AP(rel=level).calc_aggregate(qrels, runs["strong"]), abs=1e-12)
    weighted = (levels["value"] * levels["weight"]).sum() / levels["weight"].sum()
    assert weighted == pytest.approx(muMAP(levels="collection").calc_aggregate(qrels, runs["strong"]), abs=1e-12)

    with_q = cli(QRELS, STRONG, "muMAP", "-q", "--thresholds", "-o", "text").stdout  # -q and trec are allowed too
    assert "Per relevance threshold" in with_q and "MAP(rel>=4)" in with_q
    trec = cli(QRELS, STRONG, "muMAP", "--thresholds", "-o", "trec").stdout.splitlines()
    assert [line.split("\t")[0].strip() for line in trec] == ["runid", "muMAP", "AP(rel=1)", "AP(rel=2)",
                                                              "AP(rel=3)", "AP(rel=4)"]

    cli(QRELS, STRONG, WEAK, "muP@5", "--thresholds", "-o", "jsonl", "--output-dir", str(folder))
    results = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    records = [json.loads(line) for line in (folder / "thresholds.jsonl").read_text().splitlines()]
    assert [r["measure"] for r in results] == ["muP@5", "muP@5"] and "weight" not in results[0]
    first = records[0]
    threshold = by_level(muP @ 5, qrels, runs["strong"]).columns[0]
    assert {k: first[k] for k in ("run", "of", "measure", threshold, "weight")} == \
        {"run": "strong.run", "of": "muP@5", "measure": "P@5(rel>=1)", threshold: 1.0, "weight": 1.0}
    assert first["value"] == pytest.approx((P(rel=1) @ 5).calc_aggregate(qrels, runs["strong"]))
    assert len(records) == 2 * 4
    assert "add one of them" in fail(QRELS, STRONG, "AP", "--thresholds")


def test_real_valued_labels_and_gzip(tmp_path):
    qrels = tmp_path / "real.qrels.gz"
    with gzip.open(qrels, "wt") as f:
        f.write("q1 0 d1 0.37\nq1 0 d2 1.5\nq1 0 d3 0\nq2 0 d1 2.25\n")
    run = tmp_path / "run.txt.gz"
    with gzip.open(run, "wt") as f:
        f.write("q1 Q0 d1 1 2.1 r\nq1 Q0 d2 2 1.7 r\nq1 Q0 d3 3 0.4 r\nq2 Q0 d9 1 1 r\n")
    out = cli(str(qrels), str(run), "muMAP", "nDCNG@10", "-q", "-p", "-1").stdout.splitlines()
    values = {tuple(line.split("\t")[:2]): float(line.split("\t")[2]) for line in out}
    frame_qrels = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["d1", "d2", "d3", "d1"],
                                "relevance": [0.37, 1.5, 0.0, 2.25]})
    frame_run = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["d1", "d2", "d3", "d9"],
                              "score": [2.1, 1.7, 0.4, 1.0]})
    named = {muMAP: "muMAP", nDCNG @ 10: "nDCNG@10"}  # as given
    for metric in ir_measures.iter_calc([muMAP, nDCNG @ 10], frame_qrels, frame_run):
        assert values[(metric.query_id, named[metric.measure])] == metric.value
    assert values[("q1", "muMAP")] == pytest.approx((0.37 * 1 + 1.13 * 0.5) / 1.5)


def test_provider_option_and_python_dash_m():
    graded = cli(QRELS, STRONG, "muMAP", "--provider", "graded").stdout
    assert graded == cli(QRELS, STRONG, "muMAP").stdout
    module = subprocess.run([sys.executable, "-m", "ir_measures_graded", QRELS, STRONG, "muMAP", "AP"],
                            capture_output=True, text=True, check=True)
    assert module.stdout == cli(QRELS, STRONG, "muMAP", "AP").stdout
    assert fail(QRELS, STRONG, "muMAP", "AP", "--provider", "pytrec_eval").endswith(
        "muAP cannot be computed by provider pytrec_eval")


@pytest.mark.parametrize("args", [[], ["demo"]])
def test_demo_prints_computed_tables(args):
    out = cli(*args).stdout
    assert "The paper's example (Tables 1 and 2)" in out
    paper_row = next(line for line in out.splitlines() if line.startswith("A..H"))
    assert paper_row.split()[1] == "0.4478"  # Table 1: µAP 0.448
    assert paper_row.split()[3:5] == ["0.2796", "0.3942"]  # Table 2: mean NDCG 0.28, mean NDCNG 0.39
    assert "strong" in out and "STANDARD" in out


def test_bundled_sample_is_exactly_what_the_generator_writes(tmp_path):
    write_graded_sample(tmp_path)
    for name in ("qrels.txt", "strong.run", "weak.run", "random.run"):
        assert (tmp_path / name).read_bytes() == (SAMPLE / name).read_bytes(), name


# --- bad input: one line on stderr, exit status 2 -------------------------------------------------

@pytest.fixture()
def files(tmp_path):
    paths = {
        "columns": "S01 Q0 doc1 1 1.0\n",
        "score": "S01 Q0 doc1 1 1.0 r\nS01 Q0 doc2 2 high r\n",
        "dup": "S01 Q0 doc1 1 1.0 r\n\nS01 Q0 doc2 2 0.5 r\nS01 Q0 doc1 3 0.2 r\n",
        "other": "Z9 Q0 doc1 1 1.0 r\n",
        "qrels_label": "S01 0 doc1 yes\n",
        "real": "S01 0 doc1 0.5\n",
    }
    out = {}
    for name, text in paths.items():
        out[name] = tmp_path / f"{name}.txt"
        out[name].write_text(text)
    out["gz"] = tmp_path / "broken.run.gz"
    out["gz"].write_bytes(gzip.compress(b"S01 Q0 doc1 1 1.0 r\n" * 50)[:30])
    return out


def test_bad_inputs(files, tmp_path):
    assert fail(QRELS, str(tmp_path / "nope.run"), "muMAP").endswith(f"run file not found: {tmp_path / 'nope.run'}")
    assert fail(QRELS, str(files["columns"]), "muMAP").endswith(
        "columns.txt:1: malformed run line (expected 6 columns, found 5): 'S01 Q0 doc1 1 1.0'")
    assert fail(QRELS, str(files["score"]), "muMAP").endswith(
        "score.txt:2: malformed run line (column 5 ('high') is not a number): 'S01 Q0 doc2 2 high r'")
    assert fail(str(files["qrels_label"]), STRONG, "muMAP").endswith(
        "qrels_label.txt:1: malformed qrels line (column 4 ('yes') is not a number): 'S01 0 doc1 yes'")
    assert fail(QRELS, str(files["dup"]), "muMAP").endswith(
        "dup.txt:4: query 'S01', doc 'doc1' appears again (first at line 1); each (query, doc) may appear once in a run file")
    assert "cannot read run file" in fail(QRELS, str(files["gz"]), "muMAP")
    assert fail(QRELS, STRONG, "muMAPP").endswith("unknown measure: muMAPP (did you mean muMAP, muAP, muP?)")
    assert fail(QRELS, STRONG, "ndcg@10").endswith("unknown measure: ndcg@10 (did you mean nDCG, NDCG?)")
    assert "muP: parameter cutoff (ranking depth k) is required" in fail(QRELS, STRONG, "muP")
    assert "muAP: invalid levels='x'" in fail(QRELS, STRONG, "muAP(levels='x')")
    assert "real-valued labels, which AP cannot take" in fail(str(files["real"]), STRONG, "muMAP", "AP")
    assert "--no_summary (-n) only goes with --by_query (-q)" in fail(QRELS, STRONG, "muMAP", "-n")
    assert "neither a file nor an ir_datasets id" in fail("no-such-collection/v1", STRONG, "muMAP") or \
        "[datasets]" in fail("no-such-collection/v1", STRONG, "muMAP")


def test_run_sharing_no_query_warns(files):
    result = cli(QRELS, str(files["other"]), "muMAP")
    assert result.stdout == "muMAP\t0.0000\n"
    assert result.stderr.strip() == (f"ir-measures-graded: warning: run {files['other'].name} shares no query with the "
                                     f"qrels {QRELS}; every query scores 0")


def test_input_files_are_not_written(files):
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files.values()}
    cli(str(files["real"]), str(files["other"]), "muMAP", "nDCNG@5")
    assert before == {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files.values()}


def test_python_api_values_used_by_the_cli_are_graded_provider_values(api):
    qrels, runs = api
    graded = ir_measures.providers.registry["graded"]
    assert graded.calc_aggregate([muAP, muP @ 5], qrels, runs["weak"]) == \
        ir_measures.calc_aggregate([muAP, muP @ 5], qrels, runs["weak"])


# --- order: the user's, whatever the hash seed; -q lines as ir_measures prints them ----------------

ORDER_PROBE = """
import ir_measures, pandas as pd
from ir_measures import AP, P, nDCG
from ir_measures_graded import meanNDCG, muMAP, muP, nDCNG
from ir_measures_graded.sample import graded_sample
qrels, runs = graded_sample()
measures = [nDCNG@10, AP, muMAP, P@5, meanNDCG, nDCG@10, muP@5]
print([str(m) for m in ir_measures.calc_aggregate(measures, qrels, runs['strong'])])
print([str(m) for m in ir_measures.evaluator(measures, qrels).calc_aggregate(runs['weak'])])
ours = pd.DataFrame(ir_measures.iter_calc([nDCNG@10, muMAP, meanNDCG, muP@5], qrels, runs['strong']))
print(ours.pivot(index='query_id', columns='measure', values='value').columns.map(str).tolist())
"""


def test_measure_order_is_the_users_whatever_the_hash_seed():
    outputs = set()
    for seed in ("0", "1"):  # ir_measures alone gives a different order for each of these
        env = {**os.environ, "PYTHONHASHSEED": seed}
        api = subprocess.run([sys.executable, "-c", ORDER_PROBE], capture_output=True, text=True, env=env,
                             check=True).stdout
        by_query = subprocess.run([SCRIPT, QRELS, STRONG, WEAK, "nDCNG@10 meanNDCG muMAP muP@5", "-q", "-o", "csv"],
                                  env=env, capture_output=True, text=True, check=True).stdout
        outputs.add((api, by_query))
    assert len(outputs) == 1
    ((api, by_query),) = outputs
    given = ["nDCNG@10", "AP", "muAP", "P@5", "meanNDCG", "nDCG@10", "muP@5"]
    assert api.splitlines() == [str(given), str(given), str(["nDCNG@10", "muAP", "meanNDCG", "muP@5"])]
    assert by_query.splitlines()[0].split(",") == ["run", "query_id", "nDCNG@10", "meanNDCG", "muMAP", "muP@5"]


def ir_measures_command(*args: str, seed: str, plugin: bool) -> str:
    """``python -m ir_measures ...``; with ``plugin``, after ``import ir_measures_graded`` (it loads none itself)."""
    code = "import runpy, sys; sys.argv[0] = 'ir_measures'; "
    code += "import ir_measures_graded; " if plugin else ""
    code += "runpy.run_module('ir_measures', run_name='__main__')"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONHASHSEED": seed}).stdout


@pytest.mark.parametrize("seed", ["1", "4"])  # pytrec_eval's own order differs between these two
def test_by_query_lines_are_the_ir_measures_commands_in_its_order(seed):
    standard = [QRELS, STRONG, "AP nDCG@10 P@5 AP(rel=2) RR"]
    for extra in ([], ["-o", "jsonl"]):
        ours = subprocess.run([SCRIPT, *standard, "-q", *extra], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        assert ours == ir_measures_command(*standard, "-q", *extra, seed=seed, plugin=False)
    mixed = [QRELS, STRONG, "muMAP AP nDCNG@10 P@5"]
    ours = subprocess.run([SCRIPT, *mixed, "-q"], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONHASHSEED": seed}).stdout
    # the same lines as ir_measures', each measure named as given (ir_measures prints muMAP as muAP)
    assert ours == ir_measures_command(*mixed, "-q", seed=seed, plugin=True).replace("\tmuAP\t", "\tmuMAP\t")
    assert [line.split("\t")[1] for line in ours.splitlines()[-4:]] == ["muMAP", "AP", "nDCNG@10", "P@5"]


# --- drop-in details, run in-process (main() is what the console script calls) -------------------

def run_main(capsys, *args: str, rc: int = 0) -> tuple[str, str]:
    from ir_measures_graded.cli import main

    assert main(list(args)) == rc
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return out, err


def error_of(capsys, *args: str) -> str:
    out, err = run_main(capsys, *args, rc=2)
    assert out == "" and len(err.splitlines()) == 1 and err.startswith("ir-measures-graded: error: ")
    return err.strip()[len("ir-measures-graded: error: "):]


def test_trec_output_uses_the_runs_own_tag_and_paths_only_when_tags_collide(capsys, tmp_path):
    copy = tmp_path / "copy.run"
    copy.write_text(Path(STRONG).read_text())
    out, _ = run_main(capsys, QRELS, STRONG, WEAK, "muMAP", "-o", "trec")
    assert [line.split("\t")[2] for line in out.splitlines() if line.startswith("runid")] == ["strong", "weak"]
    zipped = tmp_path / "weak.run.gz"
    zipped.write_bytes(gzip.compress(Path(WEAK).read_bytes()))
    out, _ = run_main(capsys, QRELS, STRONG, str(copy), str(zipped), "muMAP", "-o", "trec")
    assert [line.split("\t")[2] for line in out.splitlines() if line.startswith("runid")] == \
        [STRONG, str(copy), "weak"]


def test_places_apply_to_jsonl(capsys, api):
    qrels, runs = api
    value = muMAP.calc_aggregate(qrels, runs["strong"])
    out, _ = run_main(capsys, QRELS, STRONG, "muMAP", "-o", "jsonl", "-p", "2")
    assert json.loads(out) == {"measure": "muMAP", "value": round(value, 2)}
    out, _ = run_main(capsys, QRELS, STRONG, "muMAP", "-o", "jsonl")  # as ir_measures: all digits by default
    assert json.loads(out) == {"measure": "muMAP", "value": value}


def test_parameter_errors_say_what_is_accepted(capsys):
    assert "write floor='-1', quoted" in error_of(capsys, QRELS, STRONG, "muAP(floor=-1)")
    assert error_of(capsys, QRELS, STRONG, "muAP(judged_only=2)").startswith(
        "muAP: invalid judged_only=2; expected True or False")
    out, _ = run_main(capsys, QRELS, STRONG, "muAP(floor='-1')")
    assert out.startswith("muAP(floor='-1')\t")


def test_version_and_help_list_our_measures(capsys):
    import ir_measures_graded

    with pytest.raises(SystemExit):
        run_main(capsys, "--version")
    out, _ = capsys.readouterr()
    assert out.strip() == f"ir-measures-graded {ir_measures_graded.__version__} (ir_measures {ir_measures.__version__})"
    with pytest.raises(SystemExit):
        run_main(capsys, "--help")
    out, _ = capsys.readouterr()
    listed = out.split("measures of this package", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    ours = sorted({m.NAME for m in ir_measures.measures.registry.values() if isinstance(m, GradedMeasure)})
    assert sorted(line.split()[0].removesuffix("@k") for line in listed) == ours
    assert {"meanNDCG", "meanNDCNG", "muAP", "muP", "nDCNG"} <= set(ours)
    assert "muAP (muMAP, μAP, μMAP)" in out and "muP@k (μP)" in out and all(len(line.split()) > 3 for line in listed)


def test_empty_qrels_print_nan_as_ir_measures_and_an_empty_run_warns(capsys, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    out, err = run_main(capsys, str(empty), STRONG, "muMAP", "AP")
    assert out == "muMAP\tnan\nAP\tnan\n"  # what `python -m ir_measures` prints for AP
    assert out.splitlines()[1] == ir_measures_command(str(empty), STRONG, "AP", seed="0", plugin=False).strip()
    assert err == f"ir-measures-graded: warning: the qrels {empty} hold no judgments: every measure is " \
        "undefined (nan), as in ir_measures\n"
    out, err = run_main(capsys, QRELS, str(empty), "muMAP", "-o", "jsonl")
    assert json.loads(out) == {"measure": "muMAP", "value": 0.0}
    assert err == f"ir-measures-graded: warning: run {empty.name} is empty: every query of the qrels scores 0\n"
    out, _ = run_main(capsys, str(empty), STRONG, "muMAP", "-o", "jsonl")
    assert json.loads(out) == {"measure": "muMAP", "value": None}  # JSON has no NaN


def test_argument_mistakes_get_their_own_message(capsys, tmp_path):
    assert error_of(capsys, QRELS, STRONG, "nope.txt", "muMAP") == "run file not found: nope.txt"
    assert error_of(capsys, QRELS, "muMAP", STRONG) == \
        "'muMAP' is a measure, but no run file comes before it; the arguments are QRELS RUN [RUN ...] " \
        "MEASURE [MEASURE ...]"
    assert error_of(capsys, QRELS, STRONG, "muMAP", WEAK).startswith(f"run file {WEAK} comes after the measures")
    assert error_of(capsys, QRELS, STRONG).startswith("no measure given after the run file(s)")
    assert error_of(capsys, "demo", "foo").startswith("'demo' takes no arguments (got foo)")
    assert error_of(capsys, QRELS, str(tmp_path), "muMAP") == f"run {tmp_path} is a directory, not a file"
    assert error_of(capsys, str(tmp_path), STRONG, "muMAP") == f"qrels {tmp_path} is a directory, not a file"
    assert error_of(capsys, QRELS, "-", "-", "muMAP") == "standard input ('-') can be only one of the runs"


def test_standard_input_and_other_non_file_paths_are_runs(tmp_path):
    from ir_measures_graded.cli.args import split_inputs

    read, write = os.pipe()  # what a shell's <(...) passes: /dev/fd/N, a pipe, not a regular file
    try:
        for path in ("-", "/dev/stdin", f"/dev/fd/{read}"):
            runs, measures = split_inputs([STRONG, path, "muMAP"])
            assert runs == [STRONG, path] and [(str(m), label) for m, label in measures] == [("muAP", "muMAP")]
    finally:
        os.close(read)
        os.close(write)
    expected = cli(QRELS, STRONG, "muMAP", "AP").stdout
    for arg in ("-", "/dev/stdin"):
        with open(STRONG) as stdin:
            result = subprocess.run([SCRIPT, QRELS, arg, "muMAP", "AP"], stdin=stdin, capture_output=True, text=True)
        assert (result.returncode, result.stdout, result.stderr) == (0, expected, "")


@pytest.mark.parametrize("compression", [None, "bz2"])
def test_a_parquet_or_compressed_run_piped_into_standard_input_is_the_file(tmp_path, compression):
    """Parquet's index is at its end: piped in, it is read into memory once (was [Errno 29] Illegal seek);
    bz2 text is read as the plain text (its bytes were printed as a malformed line)."""
    import bz2

    import pyarrow.parquet as pq

    from ir_measures_graded.io.readers import read_run_table

    path = tmp_path / "strong.parquet"
    pq.write_table(read_run_table(STRONG), str(path))
    if compression == "bz2":
        path = tmp_path / "strong.run.bz2"
        path.write_bytes(bz2.compress(open(STRONG, "rb").read()))
    expected = cli(QRELS, STRONG, "muMAP", "AP").stdout
    for arg in ("-", "/dev/stdin"):
        piped = " ".join(shlex.quote(str(a)) for a in [SCRIPT, QRELS, arg, "muMAP", "AP"])
        result = subprocess.run(["bash", "-c", f"cat {shlex.quote(str(path))} | {piped}"], capture_output=True,
                                text=True)
        assert (result.returncode, result.stdout, result.stderr) == (0, expected, "")


# --- the process -------------------------------------------------------------------------------------

#: After main(): a 4 MiB array freed (glibc's adaptive mmap threshold rises to it, its trim threshold
#: to twice that), then 12 MiB of heap freed; prints the heap size (MiB) before and after that free.
HEAP_KEPT = """
import ctypes, sys
import numpy as np
from ir_measures_graded.cli import main
from ir_measures_graded.cli import console
caller = sys.argv.pop(1)

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks "
                                               "fordblks keepcost").split()]

assert (console() if caller == "console" else main(sys.argv[1:])) == 0
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
first = np.ones(4 << 20, dtype=np.uint8)
del first
arrays = [np.ones(3 << 20, dtype=np.uint8) for _ in range(4)]
before = libc.mallinfo2().arena >> 20
del arrays
after = libc.mallinfo2().arena >> 20
import pyarrow
print(pyarrow.default_memory_pool().backend_name, before, after)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION") is None,
                    reason="glibc's malloc settings (mallinfo2)")
@pytest.mark.parametrize("small", [True, False])
@pytest.mark.parametrize("caller", ["console", "main"])
def test_the_command_line_leaves_the_allocator_as_it_was(small, caller):
    """No process-wide setting (#35 item 8, #36 item 3): neither the console script nor main() called
    in a process that goes on (a notebook, a test harness) changes malloc's thresholds or pyarrow's
    pool; a freed heap top is returned as glibc's defaults do (measured after small inputs: a large
    one raises glibc's own adaptive thresholds)."""
    env = {**os.environ, "IR_MEASURES_GRADED_SMALL_FILE_BYTES": str(8 << 20 if small else 0)}
    result = subprocess.run([sys.executable, "-c", HEAP_KEPT, caller, QRELS, STRONG, "muMAP"], capture_output=True,
                            text=True, env=env, check=True)
    pool, before, after = result.stdout.split()[-3:]
    before, after = int(before), int(after)
    assert before >= 12
    if small:
        assert after < before - 6
    assert pool != "system"  # pyarrow's own allocator, as the caller had it
