"""Hostile uses of the command line and of the API's input paths (issue 21, items 2, 3, 5, 6, 13):
the same run twice, comparison tables of measures whose aggregate is not a mean, trec output with
thresholds for several runs, standard input twice, and inputs that used to give raw exceptions."""

from __future__ import annotations

import decimal
import io
import math
import subprocess
import sys
import warnings
from pathlib import Path

import ir_measures
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ir_measures_graded as g
from ir_measures_graded import GradedInputError
from support.cli import ERROR, SCRIPT, error_of, run_main
from support.paths import QRELS, RANDOM, SAMPLE, STRONG, WEAK


def table(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), sep="\t", dtype={"query_id": str})


# --- 2. the same run file twice ---------------------------------------------------------------------

COUNTED = ["NumQ", "NumRet", "NumRelRet", "muMAP", "nDCNG@10"]


@pytest.mark.parametrize("second", ["same path", "other spelling"])
def test_the_same_run_twice_gives_two_rows_each_of_that_file_alone(capsys, second):
    again = STRONG if second == "same path" else str(Path(SAMPLE, ".", "strong.run"))
    alone = table(run_main(capsys, QRELS, STRONG, WEAK, *COUNTED, "-p", "-1")[0]).iloc[0]
    both = table(run_main(capsys, QRELS, STRONG, again, *COUNTED, "-p", "-1")[0])
    assert len(both) == 2
    for _, row in both.iterrows():
        assert row.drop("run").tolist() == alone.drop("run").tolist()
    reference = table(run_main(capsys, "-q", QRELS, STRONG, WEAK, *COUNTED, "-p", "-1")[0])
    per_query = reference[reference["run"] == "strong.run"].drop(columns="run").reset_index(drop=True)
    twice = table(run_main(capsys, "-q", QRELS, STRONG, again, *COUNTED, "-p", "-1")[0])
    assert len(twice) == 2 * len(per_query)
    for half in (twice.iloc[:len(per_query)], twice.iloc[len(per_query):]):  # run after run
        assert half["run"].nunique() == 1
        assert half.drop(columns="run").reset_index(drop=True).equals(per_query)


# --- 3. --baseline with a measure whose aggregate is not the mean of its per-query values ------------

def test_compare_shows_each_measures_own_aggregate(capsys):
    collection = "muAP(levels='collection')"
    summary, _ = run_main(capsys, QRELS, STRONG, WEAK, RANDOM, collection, "muMAP", "-p", "-1")
    out, err = run_main(capsys, QRELS, STRONG, WEAK, RANDOM, collection, "muMAP", "--baseline", RANDOM, "-p", "-1")
    summary, comparison = table(summary).set_index("run"), table(out)  # tsv: the comparison is the one table
    for _, row in comparison.iterrows():
        assert row["value"] == pytest.approx(summary.loc[row["run"], row["measure"]], abs=1e-12), row
        assert row["delta"] == pytest.approx(row["value"] - summary.loc["random.run", row["measure"]], abs=1e-12)
    collection_rows = comparison[comparison["measure"] == collection]
    plain_rows = comparison[(comparison["measure"] == "muAP") & (comparison["run"] != "random.run")]
    # the paired test of the collection aggregate is refused with a reason; muAP's is there
    assert collection_rows["p_value"].isna().all()
    assert plain_rows["p_value"].notna().all()
    # nor the intervals, effect size and per-query counts, which are about the per-query mean, not that aggregate
    per_query_columns = ["ci_low", "ci_high", "boot_low", "boot_high", "effect_size", "wins", "ties", "losses"]
    assert collection_rows[per_query_columns].isna().all().all()
    assert plain_rows[per_query_columns].notna().all().all()
    assert collection in err and "aggregate" in err and "Traceback" not in err


# --- 5. -o trec --thresholds with several runs ------------------------------------------------------

def test_trec_output_with_thresholds_puts_each_runs_lines_under_its_runid(capsys):
    out, _ = run_main(capsys, QRELS, STRONG, WEAK, "muMAP", "muP@5", "--thresholds", "-o", "trec", "-p", "-1")
    by_run: dict[str, dict[str, float]] = {}
    current = None
    for line in out.splitlines():
        name, query, value = (part.strip() for part in line.split("\t"))
        if name == "runid":
            current = value
            assert current not in by_run, f"{current} printed twice"
            by_run[current] = {}
            continue
        assert current is not None, line
        by_run[current][name] = float(value)
    assert list(by_run) == ["strong", "weak"]
    for run, path in (("strong", STRONG), ("weak", WEAK)):  # each threshold: ir_measures' AP(rel=t), P(rel=t)@5
        for name in [k for k in by_run[run] if "(rel=" in k]:
            expected = ir_measures.calc_aggregate([ir_measures.parse_measure(name)], QRELS,
                                                  ir_measures.read_trec_run(path))
            assert by_run[run][name] == pytest.approx(next(iter(expected.values())), abs=1e-12), (run, name)
        assert {k for k in by_run[run] if k.startswith("AP(")} == {f"AP(rel={t})" for t in (1, 2, 3, 4)}


# --- 6. standard input for both qrels and run -------------------------------------------------------

def test_standard_input_twice_is_an_error():
    assert SCRIPT
    with open(QRELS) as stdin:
        done = subprocess.run([SCRIPT, "-", "-", "muMAP"], stdin=stdin, capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(ERROR) and len(done.stderr.splitlines()) == 1
    assert "standard input" in done.stderr


# --- 13. clear errors (or the value) instead of raw exceptions ---------------------------------------

@pytest.mark.parametrize("where", ["label", "score"])
def test_a_python_int_beyond_float_range_is_refused_with_its_row(where):
    qrels = {"q": {"d": 10**400 if where == "label" else 1, "e": 0}}
    run = {"q": {"d": 10**400 if where == "score" else 1.0, "e": 2.0}}
    with pytest.raises(GradedInputError, match=r"row 0 \(query 'q', doc 'd'\).*not a finite number"):
        ir_measures.calc_aggregate([g.muMAP], qrels, run)


def test_decimals_in_a_dict_are_read():
    qrels = {"q": {"d": decimal.Decimal("1.5"), "e": decimal.Decimal("0")}}
    run = {"q": {"d": decimal.Decimal("1"), "e": 2.0}}
    plain = ir_measures.calc_aggregate([g.muMAP, g.nDCNG @ 2], {"q": {"d": 1.5, "e": 0.0}}, {"q": {"d": 1.0, "e": 2.0}})
    assert ir_measures.calc_aggregate([g.muMAP, g.nDCNG @ 2], qrels, run) == plain


def test_two_roles_on_one_parquet_column_is_a_clear_error(capsys, tmp_path):
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table({"q": ["1"], "d": ["a"], "s": [1.0]}), path)
    with pytest.raises(GradedInputError, match="'d'.*(doc_id|query_id)"):
        g.read_run_table(path, columns={"query_id": "d", "doc_id": "d", "score": "s"})
    message = error_of(capsys, QRELS, str(path), "muMAP", "--query-column", "d", "--doc-column", "d",
                       "--score-column", "s")
    assert "'d'" in message


def polars_inputs():
    pl = pytest.importorskip("polars")
    qrels = pl.DataFrame({"query_id": ["q", "q", "r"], "doc_id": ["d", "e", "d"], "relevance": [2, 0, 1]})
    run = pl.DataFrame({"query_id": ["q", "q", "r"], "doc_id": ["d", "e", "d"], "score": [1.0, 2.0, 1.0]})
    plain_qrels = {"q": {"d": 2, "e": 0}, "r": {"d": 1}}  # integers: pytrec_eval (AP) takes no others
    plain_run = {"q": {"d": 1.0, "e": 2.0}, "r": {"d": 1.0}}
    return qrels, run, plain_qrels, plain_run


@pytest.mark.parametrize("measures", [[g.muMAP, g.nDCNG @ 2], [g.muMAP, ir_measures.AP, ir_measures.nDCG @ 2]])
def test_polars_arrow_readers_and_paths_as_qrels_through_ir_measures(measures, tmp_path):
    qrels, run, plain_qrels, plain_run = polars_inputs()
    expected = ir_measures.calc_aggregate(measures, plain_qrels, plain_run)
    path = tmp_path / "qrels.txt"
    path.write_text("q 0 d 2\nq 0 e 0\nr 0 d 1\n")
    qrels_forms = (lambda: qrels, qrels.lazy, qrels.to_arrow, lambda: qrels.to_arrow().to_reader(),
                   lambda: str(path), lambda: path)
    run_forms = (lambda: run, run.lazy, run.to_arrow, lambda: run.to_arrow().to_reader(), lambda: plain_run)
    for qrels_form in qrels_forms:
        for run_form in run_forms:  # a reader is read once: a new one each time
            given, run_given = qrels_form(), run_form()
            try:
                got = ir_measures.calc_aggregate(measures, given, run_given)
            except GradedInputError as ex:  # refused: the message says what to pass
                assert "\n" not in str(ex) and "pass" in str(ex), str(ex)
                continue
            assert got == pytest.approx(expected), (type(given).__name__, type(run_given).__name__)


def test_a_trec_file_whose_first_id_starts_with_a_columnar_magic_is_text(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    for magic in ("PAR1", "ARROW1", "PAR1x"):
        qrels.write_text(f"{magic} 0 d 2\n{magic} 0 e 0\nq2 0 d 1\n")
        run.write_text(f"{magic} Q0 d 1 2.0 t\n{magic} Q0 e 2 1.0 t\nq2 Q0 d 1 1.0 t\n")
        assert g.read_qrels(qrels)["query_id"].tolist() == [magic, magic, "q2"]
        assert g.read_run(run)["query_id"].tolist() == [magic, magic, "q2"]
        out, _ = run_main(capsys, str(qrels), str(run), "muMAP", "NumQ")
        assert out.splitlines() == ["muMAP\t1.0000", "NumQ\t2.0000"]


def test_a_measure_with_a_space_inside_its_parameters_is_one_measure(capsys):
    spaced, _ = run_main(capsys, QRELS, STRONG, "muAP(levels='collection', weights='uniform')", "nDCNG@10", "-p", "-1")
    tight, _ = run_main(capsys, QRELS, STRONG, "muAP(levels='collection',weights='uniform')", "nDCNG@10", "-p", "-1")
    assert len(spaced.splitlines()) == 2 and spaced.splitlines()[1] == tight.splitlines()[1]
    assert spaced.split("\t")[0] == "muAP(levels='collection', weights='uniform')"  # named as given
    assert spaced.split("\t")[1] == tight.split("\t")[1]


def compare_command(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ir_measures_graded", "judge", QRELS, *args,
                           "--samples", "5", "--permutations", "100"],
                          capture_output=True, text=True, timeout=300)


def test_compare_with_one_run_given_twice():
    done = compare_command(STRONG, STRONG, "-m", "muMAP")
    assert "Traceback" not in done.stderr
    if done.returncode == 2:  # refused: the message says the run is given twice
        assert done.stderr.startswith(ERROR) and "twice" in done.stderr, done.stderr
    else:
        assert done.returncode == 0, done.stderr


def test_compare_on_runs_that_score_the_same_prints_no_numpy_warning(tmp_path):
    copy = tmp_path / "copy.run"
    copy.write_text(Path(STRONG).read_text().replace("strong", "copy"))
    done = compare_command(STRONG, str(copy), "-m", "muMAP")
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "warn" not in done.stderr.lower(), done.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, _ = subprocess.run([SCRIPT, QRELS, STRONG, str(copy), "muMAP", "--baseline", STRONG],
                                capture_output=True, text=True).stdout, None
    assert out and not math.isnan(float(out.splitlines()[2].split("\t")[3]))  # the comparison: copy's delta
