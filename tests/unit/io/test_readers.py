"""The TREC readers: whitespace as trec_eval splits it, every error with file:line and the line,
standard input and pipes, huge labels, and the hostile inputs of issue #14 (points 1, 2, 8-11)."""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_measures_graded import GradedInputError, muMAP, nDCNG
from ir_measures_graded.io.readers import iter_blocks, read_qrels_table, read_run_table
from ir_measures_graded.io.stream import scan_run
from ir_measures_graded.io.trec import RUN

CLI = [sys.executable, "-m", "ir_measures_graded"]


def calc(qrels, run, measures=(muMAP, nDCNG @ 10)):
    return ir_measures.calc_aggregate(list(measures), qrels, run)


def table_rows(table) -> list[tuple]:
    return list(zip(*(table.column(i).to_pylist() for i in range(3)), strict=True))


# --- whitespace --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "q1 Q0 a 1 2.5 x\nq1 Q0 b 2 1 x\n",
    "q1\tQ0\ta\t1\t2.5\tx\nq1\tQ0\tb\t2\t1\tx\n",
    "  q1   Q0 a\t1 2.5 x  \n\n\t\nq1 Q0\t\tb 2 1 x",  # runs of blanks, indentation, blank lines, no final newline
    "\ufeffq1 Q0 a 1 2.5 x\r\nq1 Q0 b 2 1 x\r\n",  # byte order mark, CRLF
    "q1\x0bQ0\x0ca 1 2.5 x\nq1 Q0 b 2 +1e0 x\n",  # vertical tab and form feed are whitespace in C too
])
def test_any_ascii_whitespace_separates_fields(tmp_path, text):
    (tmp_path / "run").write_text(text, encoding="utf-8")
    assert table_rows(read_run_table(tmp_path / "run")) == [("q1", "a", 2.5), ("q1", "b", 1.0)]


def test_non_ascii_space_is_part_of_an_id(tmp_path):
    (tmp_path / "run").write_text("q1 Q0 a\u00a0b 1 2.5 x\n", encoding="utf-8")  # no-break space: not a separator
    assert table_rows(read_run_table(tmp_path / "run")) == [("q1", "a\u00a0b", 2.5)]


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_control_characters_are_part_of_an_id(tmp_path, sep):
    """Only ASCII whitespace separates fields: an id may hold \\x01 or \\x1f, even beside a separator."""
    lines = [["q\x01", "Q0", "\x1fa\x01", "1", "2.5", "x"], ["q\x01", "Q0", "b", "2", "1", "x\x02"]]
    (tmp_path / "run").write_text("".join(sep.join(line) + "\n" for line in lines), encoding="utf-8")
    assert table_rows(read_run_table(tmp_path / "run")) == [("q\x01", "\x1fa\x01", 2.5), ("q\x01", "b", 1.0)]


def test_blocks_split_anywhere_give_the_same_rows(tmp_path):
    lines = [f"q{i % 7} Q0 d{i} {i} {i / 3!r} run" for i in range(500)]
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    whole = [tuple(line.split()[i] for i in (0, 2, 4)) for line in lines]
    expected = [(q, d, float(s)) for q, d, s in whole]
    for block_size in (1, 7, 64, 1000, 1 << 20):
        got = [row for block in iter_blocks(tmp_path / "run", RUN, block_size=block_size) for row in table_rows(block.table)]
        assert got == expected, block_size


# --- errors name the file, the line and the line's text ---------------------------------------

@pytest.mark.parametrize("content, message", [
    ("q1 Q0 a 1 2.5 x\nq1 Q0 b 2 x\n", r"run:2: malformed run line \(expected 6 columns, found 5\): 'q1 Q0 b 2 x'"),
    ("q1 Q0 a 1 2.5 x\nq1 Q0 b 2 2.0 x y\n", r"run:2: malformed run line \(expected 6 columns, found 7\)"),
    ("q1 Q0 a 1 2.5 x\n\nq1 Q0 b 2 high x\n", r"run:3: malformed run line \(column 5 \('high'\) is not a number\): "
     r"'q1 Q0 b 2 high x'"),
    ("q1 Q0 a 1 1_000 x\n", r"run:1: malformed run line \(column 5 \('1_000'\) is not a number\)"),  # Python's float takes it
    ("q1 Q0 a 1 0x10 x\n", r"run:1: malformed run line \(column 5 \('0x10'\) is not a number\)"),
    ("q1 Q0 a 1 nan x\n", r"run:1: malformed run line \(column 5 is not a finite number\): 'q1 Q0 a 1 nan x'"),
    ("q1 Q0 a 1 2 x\nq1 Q0 b 2 -inf x\n", r"run:2: malformed run line \(column 5 is not a finite number\)"),
    ("q1 Q0 a 1 2 x\nq1 Q0 b 2 1e999 x\n", r"run:2: malformed run line \(column 5 is not a finite number\)"),
    ("q1 Q0 a 1 2 x\nq1 Q0 b 2 1 x\nq1 Q0 a 3 0 x\n",
     r"run:3: query 'q1', doc 'a' appears again \(first at line 1\); each \(query, doc\) may appear once in a run file"),
])
def test_malformed_run_lines(tmp_path, content, message):
    (tmp_path / "run").write_text(content)
    with pytest.raises(GradedInputError, match=message):
        read_run_table(tmp_path / "run")
    with pytest.raises(GradedInputError, match=message):
        calc({"q1": {"a": 1}}, scan_run(tmp_path / "run"))


def test_error_lines_are_counted_across_blocks_and_in_gzip(tmp_path):
    lines = [f"q{i // 10} Q0 d{i % 10} {i} 1.5 r" for i in range(1000)]
    lines[733] = "q73 Q0 d3 4 1.5"
    with gzip.open(tmp_path / "run.gz", "wt") as f:
        f.write("\n".join(lines) + "\n")
    with pytest.raises(GradedInputError, match=r"run.gz:734: malformed run line \(expected 6 columns, found 5\)"):
        list(iter_blocks(tmp_path / "run.gz", RUN, block_size=100))
    lines[733] = "q73 Q0 d1 4 1.5 r"  # d1 again for q73, first at line 732
    (tmp_path / "dup").write_text("\n".join(lines) + "\n")
    with pytest.raises(GradedInputError, match=r"dup:734: query 'q73', doc 'd1' appears again \(first at line 732\)"):
        calc({"q73": {"d1": 1}}, scan_run(tmp_path / "dup", block_size=100))
    with pytest.raises(GradedInputError, match=r"dup:734: .* \(first at line 732\)"):
        read_run_table(tmp_path / "dup")


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("line", [
    "{s}q1{s}Q0{s}b{s}2{s}1",  # a leading separator
    "q1{s}Q0{s}b{s}2{s}1{s}",  # a trailing one
    "q1{s}Q0{s}{s}b{s}2{s}1",  # a doubled one
    "q1{s}Q0{s}b{s}2{s}1{s}{s}x",  # a doubled one and six fields: seven for a CSV parser
])
@pytest.mark.parametrize("end", ["\n", "\r\n"])
def test_five_fields_and_an_empty_one_are_five_fields(tmp_path, sep, line, end):
    """Split on one separator, each of these lines has six fields, one empty, which a CSV parser
    would take as an empty id or tag; trec_eval, splitting on runs of whitespace, sees five (or six)."""
    other = sep.join(["q1", "Q0", "a", "1", "2.5", "x"])
    text = end.join([other, line.format(s=sep), other.replace(" a ", " c ").replace("\ta\t", "\tc\t")]) + end
    (tmp_path / "run").write_text(text, encoding="utf-8", newline="")
    found = 6 if line.endswith("x") else 5
    if found == 6:
        assert table_rows(read_run_table(tmp_path / "run")) == [("q1", "a", 2.5), ("q1", "b", 1.0), ("q1", "c", 2.5)]
        return
    with pytest.raises(GradedInputError, match=rf"run:2: malformed run line \(expected 6 columns, found {found}\)"):
        read_run_table(tmp_path / "run")
    with pytest.raises(GradedInputError, match=rf"run:2: malformed run line \(expected 6 columns, found {found}\)"):
        calc({"q1": {"a": 1}}, scan_run(tmp_path / "run"))


@pytest.mark.parametrize("end", ["\n", "\r\n"])
@pytest.mark.parametrize("sep", [" ", "\t"])
def test_the_common_layouts_take_the_csv_parser(sep, end):
    """One space or one tab between fields, LF or CRLF line ends: parsed by pyarrow's CSV reader
    (the fast path), not split line by line."""
    from ir_measures_graded.io.trec import _parse_fast

    block = end.join(sep.join(["q1", "Q0", f"d{i}", str(i), "2.5", "x"]) for i in range(3)) + end
    table = _parse_fast(block.encode(), RUN)
    assert table is not None and table.column("doc_id").to_pylist() == ["d0", "d1", "d2"]


def test_invalid_utf8_names_the_line(tmp_path):
    (tmp_path / "run").write_bytes(b"q1 Q0 a 1 2 x\nq1 Q0 b\xff\xfe 2 1 x\n")
    with pytest.raises(GradedInputError, match=r"run:2: run line is not valid UTF-8 \(invalid start byte at byte 7"):
        read_run_table(tmp_path / "run")


def test_missing_file_directory_and_corrupt_gzip(tmp_path):
    with pytest.raises(GradedInputError, match=r"run file not found: .*nope"):
        read_run_table(tmp_path / "nope")
    with pytest.raises(GradedInputError, match=r"qrels file .* is a directory"):
        read_qrels_table(tmp_path)
    (tmp_path / "bad.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(GradedInputError, match=r"cannot read run file .*bad.gz"):
        read_run_table(tmp_path / "bad.gz")


def test_parquet_errors_name_the_column(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"qid": ["q1"], "doc_id": ["a"], "score": [1.0]}), tmp_path / "run.parquet")
    with pytest.raises(GradedInputError, match=r"is missing column\(s\) \['query_id'\] \(found \['qid', 'doc_id', 'score'\]\)"):
        read_run_table(tmp_path / "run.parquet")
    pq.write_table(pa.table({"query_id": ["q1"], "doc_id": ["a"], "score": ["high"]}), tmp_path / "s.parquet")
    with pytest.raises(GradedInputError, match=r"column 'score' holds string, expected numbers"):
        read_run_table(tmp_path / "s.parquet")
    pq.write_table(pa.table({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, float("nan")]}),
                   tmp_path / "n.parquet")
    with pytest.raises(GradedInputError, match=r"row 1: score nan is not a finite number"):
        read_run_table(tmp_path / "n.parquet")


# --- issue #14 ----------------------------------------------------------------------------------

def test_ids_colliding_after_str_are_duplicates():  # 14.1
    with pytest.raises(GradedInputError, match=r"run has the same \(query, doc\) more than once: query '1', doc '7'"):
        calc({"1": {"a": 1, "b": 0}}, {"1": {7: 1.0, "7": 0.5}})
    with pytest.raises(GradedInputError, match=r"qrels has the same \(query, doc\) more than once: query '1', doc '7'"):
        calc({"1": {7: 1, "7": 0, "b": 1}}, {"1": {"a": 1.0}})
    frame = pd.DataFrame({"query_id": pd.Categorical([1, "1"]), "doc_id": ["a", "a"], "score": [1.0, 0.5]})
    with pytest.raises(GradedInputError, match=r"more than once: query '1', doc 'a'"):
        calc({"1": {"a": 1}}, frame)


@pytest.mark.parametrize("kind", ["qrels", "run"])
@pytest.mark.parametrize("docs", [("a", "a"), ("a", "b")], ids=["same doc", "other docs"])
def test_dict_keys_one_id_once_strings_are_refused_naming_both(kind, docs):
    """A dict's keys are distinct queries: 1 and '1' are one query id, so a dict holding both is an error
    naming both keys, whether their documents overlap or not (never two queries silently merged)."""
    first, second = docs
    given = {1: {first: 1}, "1": {second: 0}}
    qrels, run = (given, {"1": {"a": 1.0}}) if kind == "qrels" else ({"1": {"a": 1, "b": 0}}, given)
    with pytest.raises(GradedInputError, match=rf"^{kind} dict has the query_id keys 1 and '1', one id once made "
                                               r"a string \(ids are compared as strings\): give each query under one key$"):
        calc(qrels, run)
    import ir_measures_graded as img

    with pytest.raises(GradedInputError, match=rf"^{kind} dict has the query_id keys 1 and '1'"):
        img.experiment(qrels, [run], ["muMAP"])


def test_dict_keys_of_two_types_that_differ_are_read():
    """Integer and string keys naming different queries are two queries, as before."""
    assert calc({1: {"a": 1}, "2": {"b": 1}}, {"1": {"a": 1.0}, 2: {"b": 1.0}}) == {muMAP: 1.0, nDCNG @ 10: 1.0}


@pytest.mark.parametrize("kind", ["pandas", "arrow"])
def test_a_category_no_row_uses_is_no_query(kind):
    """A dictionary-encoded query column (pandas Categorical, Arrow dictionary) may hold entries no
    row uses: they are no queries (a judged query without rows would score 0 and lower the mean)."""
    import pyarrow as pa

    qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "relevance": [1, 0, 2]})
    run = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "b", "a"], "score": [2.0, 1.0, 1.0, 0.5]})
    categories = ["0", "1", "2", "3"]
    if kind == "pandas":
        coded = qrels.assign(query_id=pd.Categorical(qrels.query_id, categories=categories))
        coded_run = run.assign(query_id=pd.Categorical(run.query_id, categories=categories))
    else:
        def dictionary(frame, value):
            indices = pa.array([categories.index(q) for q in frame.query_id], pa.int32())
            return pa.table({"query_id": pa.DictionaryArray.from_arrays(indices, pa.array(categories)),
                             "doc_id": frame.doc_id.tolist(), value: frame[value].tolist()})
        coded, coded_run = dictionary(qrels, "relevance"), dictionary(run, "score")
    measures = [muMAP, nDCNG @ 10, ir_measures.AP]
    assert ir_measures.calc_aggregate(measures, coded, coded_run) == ir_measures.calc_aggregate(measures, qrels, run)
    assert [m.query_id for m in ir_measures.iter_calc([muMAP], coded, coded_run)] == ["1", "2"]


def test_labels_beyond_int64_keep_their_value(tmp_path):  # 14.2 and 14.8
    (tmp_path / "qrels").write_text("q1 0 a 1e20\nq1 0 b 99999999999999999999\nq1 0 c 0\n")
    run = {"q1": {"c": 3.0, "a": 2.0, "b": 1.0}}
    as_dict = {"q1": {"a": 1e20, "b": 99999999999999999999, "c": 0}}
    assert calc(read_qrels_table(tmp_path / "qrels"), run) == calc(as_dict, run)
    assert read_qrels_table(tmp_path / "qrels").column("relevance").to_pylist() == [1e20, 1e20, 0.0]


def test_bad_measure_parameter_or_frame_gives_graded_input_error():  # 14.9 (input side)
    frame = pd.DataFrame([["q1", "a", 1.0, 2.0]], columns=["query_id", "doc_id", "score", "score"])
    with pytest.raises(GradedInputError, match=r"run DataFrame has the column 'score' 2 times"):
        calc({"q1": {"a": 1}}, frame)
    with pytest.raises(GradedInputError, match=r"run row 0: query_id \('q1',\) is a tuple; ids must be strings"):
        calc({"q1": {"a": 1}}, pd.DataFrame({"query_id": [("q1",)], "doc_id": ["a"], "score": [1.0]}))
    with pytest.raises(GradedInputError, match=r"qrels row 0: query_id \('q1', 2\) is a tuple"):
        calc({("q1", 2): {"a": 1}}, {"q1": {"a": 1.0}})


def test_scores_beyond_float32_are_infinite_without_warnings(tmp_path):  # 14.10
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # 1e39 and 2e39 are both +inf as a C float: a tie, broken by doc id descending ('b' first)
        values = list(ir_measures.iter_calc([muMAP], {"q1": {"a": 1, "b": 0}}, {"q1": {"a": 2e39, "b": 1e39}}))
    assert values[0].value == 0.5
    (tmp_path / "run").write_text("q1 Q0 a 1 2e39 x\nq1 Q0 b 2 1e39 x\n")
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\n")
    done = subprocess.run([*CLI, str(tmp_path / "qrels"), str(tmp_path / "run"), "muMAP"], capture_output=True,
                          text=True, check=True)
    assert done.stdout == "muMAP\t0.5000\n" and done.stderr == ""


@pytest.mark.parametrize("qrels, run, message", [  # 14.11
    ({1: {"a": 1}}, {1.0: {"a": 1.0}}, r"run row 0: query_id 1.0 is a float; .* 1.0 would never match '1'"),
    ({"1": {b"a": 1}}, {"1": {"a": 1.0}}, r"qrels row 0: doc_id b'a' is a bytes; .* decode them to str"),
    ({"1": {"a": 1}}, {"1": {"a": True}}, r"run row 0 \(query '1', doc 'a'\): score True is a bool, not a real number"),
    ({"1": {"a": 1}}, {"1": {"a": 1 + 2j}}, r"score \(1\+2j\) is a complex, not a real number"),
    ({"1": {"a": True}}, {"1": {"a": 1.0}}, r"qrels row 0 .*: relevance True is a bool, not a real number"),
    ({"1": {"a": 1}}, pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [True]}),
     r"run column score has dtype bool; score must be real numbers"),
    ({"1": {"a": 1}}, pd.DataFrame({"query_id": [1.0], "doc_id": ["a"], "score": [1.0]}),
     r"run row 0: query_id 1.0 is a float"),
])
def test_odd_id_and_value_types_are_refused(qrels, run, message):
    with pytest.raises(GradedInputError, match=message):
        calc(qrels, run)


def test_integer_ids_are_their_decimal_strings():
    assert calc({1: {2: 1}}, {"1": {"2": 1.0}}) == calc({"1": {"2": 1}}, {np.int64(1): {np.int32(2): 1.0}})


# --- standard input and pipes (14.5, reader side) --------------------------------------------------

@pytest.mark.slow
def test_run_from_standard_input_and_pipes(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "run").write_text("q1 Q0 b 1 2 x\nq1 Q0 a 2 1 x\n")
    expected = "muMAP\t0.5000\n"
    for run in ("-", "/dev/stdin"):
        with open(tmp_path / "run", "rb") as stdin:
            done = subprocess.run([*CLI, str(tmp_path / "qrels"), run, "muMAP"], stdin=stdin, capture_output=True,
                                  text=True)
        assert (done.stdout, done.stderr) == (expected, ""), run
    with open(tmp_path / "run", "rb") as stdin:  # gzip through a pipe
        gz = subprocess.run(["gzip", "-c"], stdin=stdin, capture_output=True, check=True).stdout
    done = subprocess.run([*CLI, str(tmp_path / "qrels"), "-", "muMAP"], input=gz, capture_output=True)
    assert done.stdout.decode() == expected
    done = subprocess.run(["bash", "-c", f"{' '.join(CLI)} {tmp_path / 'qrels'} <(cat {tmp_path / 'run'}) muMAP"],
                          capture_output=True, text=True)
    assert done.stdout == expected


# --- progress (issue #13.7) ---------------------------------------------------------------------

def _stderr_on_a_terminal(args: list[str]) -> tuple[str, str]:
    import os
    import pty
    import threading

    master, slave = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        done = subprocess.run(args, stdout=subprocess.PIPE, stderr=slave, text=True, timeout=120)
    finally:
        os.close(slave)
        reader.join(timeout=10)
        os.close(master)
    return done.stdout, b"".join(chunks).decode(errors="replace")


@pytest.mark.slow
def test_progress_bar_only_on_a_terminal_and_quiet_silences_it(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\nq1 0 d1 0\n")  # d1 judged: no warning of unjudged ids
    (tmp_path / "run").write_text("".join(f"q1 Q0 d{i} {i} {1 / (i + 1)!r} x\n" for i in range(20_000)))
    args = [*CLI, str(tmp_path / "qrels"), str(tmp_path / "run"), "muMAP"]
    out, err = _stderr_on_a_terminal(args)
    assert out == "muMAP\t0.0000\n" and "run:" in err and "B/s" in err  # tqdm's bar, named after the file
    quiet_out, quiet_err = _stderr_on_a_terminal([*args, "--quiet"])
    assert quiet_out == out and quiet_err == ""
    piped = subprocess.run(args, capture_output=True, text=True)
    assert piped.stdout == out and piped.stderr == ""


def test_a_checked_table_changed_afterwards_is_checked_again(tmp_path):
    import pyarrow as pa

    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\n")
    table = read_qrels_table(tmp_path / "qrels")
    assert calc(table, {"q1": {"a": 1.0}})[muMAP] == 1.0
    twice = pa.concat_tables([table, table])  # keeps the schema metadata, not the checked buffers
    with pytest.raises(GradedInputError, match=r"qrels has the same \(query, doc\) more than once: query 'q1', doc 'a'"):
        calc(twice, {"q1": {"a": 1.0}})


# --- a NUL byte (issue #35.5) ---------------------------------------------------------------------

NUL_QRELS = ["q1 0 d1 1", "q1 0 d2 0", "q2 0 d1 2"]
NUL_RUN = ["q1 Q0 d2 1 2.0 r", "q1 Q0 d1 2 1.0 r", "q2 Q0 d1 1 1.0 r"]


def _with_nul(lines: list[str], field: int) -> bytes:
    """``lines`` with a NUL byte inside field ``field`` of the second line (``d1\\0x`` for a doc)."""
    parts = lines[1].split(" ")
    parts[field] += "\x00x"
    return "\n".join([lines[0], " ".join(parts), *lines[2:]]).encode() + b"\n"


@pytest.mark.parametrize("large", [False, True], ids=["small-file reader", "Arrow reader"])
@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("kind", ["qrels", "run"])
@pytest.mark.parametrize("field", ["query id", "doc id"])
def test_a_nul_byte_in_an_id_is_refused_by_file_and_line(tmp_path, monkeypatch, capsys, large, compressed, kind,
                                                         field):
    """pytrec_eval ends an id at a NUL byte (``d1\\0x`` is ``d1`` to AP), our measures would not: one
    reading for both, on every path: the line is refused."""
    from ir_measures_graded import cli
    from ir_measures_graded.io.small import ENV, read_small
    from ir_measures_graded.io.trec import QRELS

    lines = NUL_QRELS if kind == "qrels" else NUL_RUN
    data = _with_nul(lines, 0 if field == "query id" else 2)
    bad = tmp_path / (kind + (".gz" if compressed else ""))
    bad.write_bytes(gzip.compress(data) if compressed else data)
    good = {"qrels": NUL_QRELS, "run": NUL_RUN}["run" if kind == "qrels" else "qrels"]
    (tmp_path / "good").write_text("\n".join(good) + "\n")
    qrels, run = (bad, tmp_path / "good") if kind == "qrels" else (tmp_path / "good", bad)
    if large:
        monkeypatch.setenv(ENV, "0")
    else:
        monkeypatch.delenv(ENV, raising=False)
        assert read_small(bad, QRELS if kind == "qrels" else RUN) is None  # left to the reader that names the line
    message = (f"{bad}:2: malformed {kind} line (the {field} contains a NUL byte, where trec_eval and "
               f"pytrec_eval would end it): ")
    assert cli.main([str(qrels), str(run), "muMAP", "AP"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err and "duplicate docs" not in captured.err
    with pytest.raises(GradedInputError, match=re.escape(message)):
        ir_measures.calc_aggregate([muMAP, ir_measures.AP], str(qrels), str(run))
    with pytest.raises(GradedInputError, match=re.escape(message)):
        (read_qrels_table if kind == "qrels" else read_run_table)(bad)
    if kind == "run":
        with pytest.raises(GradedInputError, match=re.escape(message)):
            calc({"q1": {"d1": 1}}, scan_run(bad))


def test_a_nul_byte_elsewhere_in_a_line_names_its_column(tmp_path):
    (tmp_path / "run").write_bytes(b"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\x00\n")
    with pytest.raises(GradedInputError, match=r"run:2: malformed run line \(column 6 contains a NUL byte\)"):
        read_run_table(tmp_path / "run")
