"""One input contract for every engine (issue 21, item 4): the Spark engine accepts and refuses the
ids the local engine accepts and refuses, with the same message; reads the TREC lines it reads; says
clearly what a null label is and what a worker that cannot import this package needs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import ir_measures
import pandas as pd
import pyarrow as pa
import pytest

from ir_measures_graded import GradedInputError, muMAP, nDCNG

pytest.importorskip("pyspark", reason="the Spark tests need the 'spark' extra (pyspark)")
if shutil.which("java") is None:
    pytest.skip("the Spark tests need Java (17) on PATH", allow_module_level=True)

try:  # the engines' package (issue 20), or the module it replaced
    from ir_measures_graded.engines import spark as graded_spark
except ImportError:  # pragma: no cover - before the redesign
    from ir_measures_graded import spark as graded_spark

pytestmark = [pytest.mark.slow,  # a real Spark session, as tests/e2e/test_spark.py
              pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
              pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")]

MEASURES = [muMAP, nDCNG @ 5]


QRELS = pd.DataFrame({"query_id": [1, 1, 2, 2], "doc_id": ["a", "b", "a", "c"], "relevance": [2.0, 0.5, 1.0, 3.0]})
RUN = pd.DataFrame({"query_id": [1, 1, 2, 2], "doc_id": ["a", "b", "c", "a"], "score": [1.0, 2.0, 3.0, 0.5]})


def local_error(qrels: pa.Table, run: pa.Table) -> str | None:
    try:
        ir_measures.calc_aggregate(MEASURES, qrels, run)
    except GradedInputError as ex:
        return str(ex)
    return None


def spark_error(spark, qrels: pd.DataFrame, run: pd.DataFrame, schema: dict | None = None) -> str | None:
    def frame(df: pd.DataFrame, kind: str):
        types = {c: t for (k, c), t in (schema or {}).items() if k == kind}
        if not types:
            return spark.createDataFrame(df)
        ddl = ", ".join(f"{c} {types.get(c, {'query_id': 'bigint', 'doc_id': 'string'}.get(c, 'double'))}"
                        for c in df.columns)
        return spark.createDataFrame(df, ddl)

    try:
        graded_spark.calc_aggregate(MEASURES, frame(qrels, "qrels"), frame(run, "run"))
    except GradedInputError as ex:
        return str(ex)
    return None


@pytest.mark.parametrize("kind, column, spark_type, values", [
    ("run", "query_id", "double", [1.0, 1.0, 2.0, 2.0]),  # 1.0 would never match 1
    ("qrels", "query_id", "float", [1.0, 1.0, 2.0, 2.0]),
    ("run", "doc_id", "boolean", [True, False, True, False]),
    ("qrels", "doc_id", "binary", [b"a", b"b", b"a", b"c"]),
    ("run", "query_id", "decimal(10,0)", None),
])
def test_ids_the_local_engine_refuses_are_refused_with_its_message(spark, kind, column, spark_type, values):
    import decimal

    frames = {"qrels": QRELS.copy(), "run": RUN.copy()}
    frame = frames[kind]
    frame[column] = values if values is not None else [decimal.Decimal(int(v)) for v in frame[column]]
    from pyspark.sql.pandas.types import to_arrow_type
    from pyspark.sql.types import _parse_datatype_string

    arrow_type = to_arrow_type(_parse_datatype_string(spark_type))
    tables = {k: pa.Table.from_pandas(f, preserve_index=False) for k, f in frames.items()}
    tables[kind] = tables[kind].set_column(tables[kind].schema.get_field_index(column), column,
                                           pa.array(frame[column].tolist(), arrow_type))
    expected = local_error(tables["qrels"], tables["run"])
    assert expected is not None  # the local engine refuses it
    got = spark_error(spark, frames["qrels"], frames["run"], {(kind, column): spark_type})
    assert got == expected


@pytest.mark.parametrize("qrels_type, run_type", [("bigint", "string"), ("int", "bigint"), ("string", "string")])
def test_ids_the_local_engine_accepts_give_its_values(spark, qrels_type, run_type):
    expected = ir_measures.calc_aggregate(MEASURES, QRELS.astype({"query_id": str}), RUN.astype({"query_id": str}))
    qrels = spark.createDataFrame(QRELS.astype({"query_id": str if qrels_type == "string" else int}),
                                  f"query_id {qrels_type}, doc_id string, relevance double")
    run = spark.createDataFrame(RUN.astype({"query_id": str if run_type == "string" else int}),
                                f"query_id {run_type}, doc_id string, score double")
    assert graded_spark.calc_aggregate(MEASURES, qrels, run) == pytest.approx(expected)


@pytest.mark.parametrize("kind, column", [("qrels", "relevance"), ("run", "score"), ("qrels", "doc_id"),
                                          ("run", "query_id")])
def test_a_null_is_a_clear_error(spark, kind, column):
    frames = {"qrels": QRELS.astype(object), "run": RUN.astype(object)}
    frames[kind].loc[1, column] = None
    types = {"query_id": "bigint", "doc_id": "string", "relevance": "double", "score": "double"}
    qrels = spark.createDataFrame(frames["qrels"], ", ".join(f"{c} {types[c]}" for c in QRELS.columns))
    run = spark.createDataFrame(frames["run"], ", ".join(f"{c} {types[c]}" for c in RUN.columns))
    with pytest.raises(GradedInputError) as raised:
        graded_spark.calc_aggregate(MEASURES, qrels, run)
    message = str(raised.value)
    assert "\n" not in message and kind in message and column in message and "missing" in message, message
    assert "TypeError" not in message


def test_trec_lines_the_local_reader_accepts(spark, tmp_path):
    from ir_measures_graded import read_qrels, read_run

    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_bytes(b"\xef\xbb\xbf1 0 a 2\t \r\n1\t0 b 0.5  \n\n   \n2 0 a 1\t\n2 0 c 3")
    run.write_bytes(b"1 Q0 a 1 1.0 t \n1 Q0 b 2 2.0 t\t\r\n2  Q0 c 1 3.0 t\n2 Q0 a 2 0.5 t   \n")
    expected = ir_measures.calc_aggregate(MEASURES, read_qrels(qrels), read_run(run))
    got = graded_spark.calc_aggregate(MEASURES, graded_spark.read_qrels(spark, str(qrels)),
                                      graded_spark.read_run(spark, str(run)))
    assert got == pytest.approx(expected)


def test_a_worker_that_cannot_import_the_package_says_how_to_fix_it(tmp_path):
    python = shutil.which("python3", path="/usr/bin") or "/usr/bin/python3"
    check = subprocess.run([python, "-c", "import ir_measures_graded"], capture_output=True)
    if check.returncode == 0:
        pytest.skip(f"{python} can import ir_measures_graded")
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys
        os.environ["PYSPARK_PYTHON"] = {python!r}  # a worker Python without this package
        import pandas as pd
        from pyspark.sql import SparkSession
        from ir_measures_graded import GradedInputError, muMAP
        try:
            from ir_measures_graded.engines import spark as graded_spark
        except ImportError:
            from ir_measures_graded import spark as graded_spark
        spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
                 .getOrCreate())
        spark.sparkContext.setLogLevel("OFF")
        qrels = spark.createDataFrame(pd.DataFrame({{"query_id": ["1"], "doc_id": ["a"], "relevance": [1.0]}}))
        run = spark.createDataFrame(pd.DataFrame({{"query_id": ["1"], "doc_id": ["a"], "score": [1.0]}}))
        try:
            graded_spark.calc_aggregate([muMAP], qrels, run)
        except GradedInputError as ex:
            print("MESSAGE:" + str(ex))
        spark.stop()
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYSPARK_PYTHON": python})
    lines = [line for line in done.stdout.splitlines() if line.startswith("MESSAGE:")]
    assert len(lines) == 1, (done.stdout[-2000:], done.stderr[-2000:])
    message = lines[0][len("MESSAGE:"):]
    assert "PYSPARK_PYTHON" in message and "install" in message and "ir-measures-graded" in message, message


# --- issue 35, item 9: a duplicate named at the input's rows; --engine spark's stderr is one line ---

DUPLICATED_RUN = pd.DataFrame({"query_id": [1, 2, 1, 2, 2, 1], "doc_id": ["a", "a", "b", "c", "d", "a"],
                               "score": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]})  # (1, a) at rows 0 and 5


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_duplicate_is_named_at_the_input_rows_as_the_local_engine_names_it(spark, kind):
    """A worker sees a query's rows after the shuffle (here rows 0 and 2 of query 1's array): the
    message names the input DataFrame's rows, 0 and 5, with the local engine's very words."""
    frames = {"qrels": QRELS, "run": RUN}
    if kind == "run":
        frames["run"] = DUPLICATED_RUN
    else:
        frames["qrels"] = pd.concat([QRELS, pd.DataFrame({"query_id": [2, 1], "doc_id": ["x", "b"],
                                                          "relevance": [1.0, 0.0]})], ignore_index=True)
    tables = {k: pa.Table.from_pandas(f.astype({"query_id": str}), preserve_index=False) for k, f in frames.items()}
    expected = local_error(tables["qrels"], tables["run"])
    assert expected is not None and ("rows 0 and 5" if kind == "run" else "rows 1 and 5") in expected
    qrels = spark.createDataFrame(frames["qrels"]).repartition(1)
    run = spark.createDataFrame(frames["run"])
    got = spark_error(spark, frames["qrels"], frames["run"])
    assert got == expected
    with pytest.raises(GradedInputError) as raised:  # partitioned otherwise, the same rows
        graded_spark.calc_aggregate(MEASURES, qrels, run.repartition(1))
    assert str(raised.value) == expected


def test_engine_spark_writes_only_its_one_line_error_to_stderr(tmp_path):
    """``--engine spark`` on a run with a duplicate: stderr holds the local engine's one-line error
    (FILE:LINE), not Spark's startup lines and the Java and worker tracebacks first (about 60 lines)."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 a 1\n")
    run.write_text("1 Q0 a 1 6 r\n2 Q0 a 1 5 r\n1 Q0 b 2 4 r\n2 Q0 c 2 3 r\n2 Q0 d 3 2 r\n1 Q0 a 3 1 r\n")
    command = [sys.executable, "-m", "ir_measures_graded", str(qrels), str(run), "muMAP"]
    local = subprocess.run(command, capture_output=True, text=True, timeout=600)
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run([*command, "--engine", "spark", "--master", "local[1]"], capture_output=True,
                          text=True, timeout=600, env=env)
    assert done.returncode == local.returncode != 0
    lines = done.stderr.splitlines()
    # the JVM itself may announce an incubator module (Java 17+ with Spark 4): not a log line
    lines = [line for line in lines if not line.startswith("WARNING: Using incubator modules")]
    assert lines == local.stderr.splitlines(), done.stderr[-3000:]
    assert "run.txt:6:" in lines[-1] and "first at line 1" in lines[-1]


# --- issue 44: one message per error, whichever engine ----------------------------------------------------

def error_lines(capsys, args: list[str]) -> list[str]:
    """The stderr of the command line on the local engine and on Spark (after it: the same lines)."""
    from ir_measures_graded.cli import main

    found = []
    for engine in ([], ["--engine", "spark"]):
        assert main([*args, *engine]) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1, err
        found.append(err.strip())
    return found


def test_files_are_named_as_typed_and_missing_qrels_get_the_local_message(spark, tmp_path, capsys, monkeypatch):
    """Spark named files by their absolute paths, and a missing qrels file "qrels file not found"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    (tmp_path / "qrels.txt").write_text("1 0 a 2\n1 0 b 0\n")
    (tmp_path / "runs" / "bad.run").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 x t\n")
    local, on_spark = error_lines(capsys, ["qrels.txt", "runs/bad.run", "muMAP"])
    assert on_spark == local and "runs/bad.run:2: malformed run line" in local and str(tmp_path) not in on_spark
    (tmp_path / "bad.qrels").write_text("1 0 a 2\n1 0 b two\n")
    local, on_spark = error_lines(capsys, ["./bad.qrels", "runs/bad.run", "muMAP"])
    assert on_spark == local and "./bad.qrels:2:" in local
    local, on_spark = error_lines(capsys, ["nope.txt", "runs/bad.run", "muMAP"])
    assert on_spark == local and local.endswith("qrels not found: 'nope.txt' is neither a file nor an ir_datasets id")


def test_compressed_files_spark_cannot_read_get_one_line_naming_them(spark, tmp_path, capsys, monkeypatch):
    """A truncated .gz was a 3.5 KB Java stack on one line; text named .gz, gzip not named .gz and xz
    were read as binary lines or failed in the JVM."""
    import gzip
    import lzma

    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.txt").write_text("1 0 a 2\n1 0 b 0\n")
    text = b"".join(b"1 Q0 d%d %d %d.0 t\n" % (i, i, 1000 - i) for i in range(500))
    files = {"truncated.run.gz": gzip.compress(text)[:300], "plain.run.gz": text, "gzipped.txt": gzip.compress(text),
             "run.xz": lzma.compress(text)}
    expected = {"truncated.run.gz": "cannot read run file truncated.run.gz: java.io.EOFException",
                "plain.run.gz": "run file plain.run.gz is named .gz but is not gzip-compressed",
                "gzipped.txt": "run file gzipped.txt is compressed with gzip but not named .gz",
                "run.xz": "run file run.xz is compressed with xz, which the Spark engine cannot read"}
    from ir_measures_graded.cli import main

    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        assert main(["qrels.txt", name, "muMAP", "--engine", "spark"]) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1 and len(err) < 300, err
        assert expected[name] in err, err
