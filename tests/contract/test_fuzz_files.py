"""Fuzz: hostile TREC qrels and run files, through the API (readers + ir_measures) and the command line.

Each generated case is a small clean collection written out with harmless noise (BOM, CRLF, blank
and whitespace-only lines, tabs, every number syntax that C and Python read alike, non-ASCII ids,
gzip) and at most one defect (wrong column count, a number no reader should take, a number only
one of C and Python reads, a duplicate (query, doc), invalid UTF-8, a NUL byte in an id). The
contract (README, "What happens with bad input"): the values equal the slow reference on the clean
collection, or the reader raises ``GradedInputError`` (the CLI exits 2) with one line naming
``file:line`` of the defect — never another exception, a traceback, NaN, a Python warning or a silently dropped line.

Cases per run: ``test_hostile_files_through_the_api`` 150, ``test_hostile_files_through_the_cli``
(in-process ``main``) 40; a few more through a real subprocess in tests/e2e/test_fuzz_subprocess.py.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import math
import re
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import ir_measures
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ir_measures_graded import GradedInputError, cli
from ir_measures_graded.io.readers import read_qrels, read_run
from support import reference, registered
from support.examples import examples
from support.warned import no_warning

#: Every registered measure (a new one is fuzzed by registering it), some at a cutoff.
MEASURES = registered.instances(cutoff=3) + registered.with_cutoff(4)[:2]
CLI_MEASURES = [str(m) for m in registered.instances(cutoff=4)]
# No shrinking: a failing case is reported as generated, and the suite stays within its CI minute.
FUZZ = settings(phases=(Phase.explicit, Phase.reuse, Phase.generate), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])

# --- number syntaxes ---------------------------------------------------------------------------------

#: Read alike by C (strtod, as trec_eval) and Python (float): (text, value).
SAME_IN_C_AND_PYTHON = [
    ("2", 2.0), ("2.0", 2.0), ("+2", 2.0), ("2e0", 2.0), ("2E+0", 2.0), ("0.5", 0.5), (".5", 0.5),
    ("+.5", 0.5), ("5.", 5.0), ("-0", 0.0), ("-0.0", 0.0), ("007", 7.0), ("1e2", 100.0), ("1.7e308", 1.7e308),
    ("4e-320", 4e-320), ("1e20", 1e20), ("0.30000000000000004", 0.30000000000000004), ("-3.25", -3.25),
]
#: No reader may take these (not numbers, or not finite): the line must be reported.
REJECTED = ["inf", "-inf", "Infinity", "nan", "NaN", "1e400", "-1e400", "high", "1,5", "0b1", "--1", "1e",
            "e1", ".", "+", "1.2.3", "nan(1)", "0x", "1e+", "½"]
#: Read by only one of C and Python, or beyond what a reader may store exactly: either the value
#: shown, or the line is reported.
EITHER = [("1_000", 1000.0), ("0x1p3", 8.0), ("0x10", 16.0), ("99999999999999999999", 1e20),
          ("1e-400", 0.0), ("١٢", 12.0), ("１", 1.0), ("1e39", 1e39)]

ids = st.sampled_from(["1", "01", "d1", "d2", "D2", "d10", "d9", "dé", "文档", "x-1", "a.b", "q:1"])


@dataclass
class Case:
    """A clean collection and the text of its two files, with the one defect (if any) described."""

    qrels: dict = field(default_factory=dict)  # the clean collection the values must match
    run: dict = field(default_factory=dict)
    qrels_bytes: bytes = b""
    run_bytes: bytes = b""
    gzip_qrels: bool = False
    defect: str = "none"
    defect_file: str = ""  # "qrels" or "run"
    defect_lines: tuple = ()  # acceptable 1-based line numbers of the message
    either_value: float | None = None  # EITHER: the value if the reader takes the token
    either_at: tuple = ()  # (query, doc) whose value becomes either_value


def number_token(draw, value: float) -> str:
    """A text for ``value`` in one of the syntaxes C and Python read alike."""
    same = [text for text, v in SAME_IN_C_AND_PYTHON if v == value]
    return draw(st.sampled_from(same)) if same and draw(st.booleans()) else repr(float(value))


@st.composite
def cases(draw) -> Case:
    case = Case()
    values = st.sampled_from([v for _, v in SAME_IN_C_AND_PYTHON if abs(v) < 1e300] + [1.0, 3.0, 4.0, 0.0])
    lines: dict[str, list[list[str]]] = {"qrels": [], "run": []}
    for q in draw(st.lists(ids, min_size=1, max_size=3, unique=True)):
        judged = draw(st.dictionaries(ids, values, min_size=1, max_size=5))
        case.qrels[q] = judged
        for d, v in judged.items():
            lines["qrels"].append([q, "0", d, number_token(draw, v)])
        retrieved = draw(st.dictionaries(ids, values, max_size=6))
        if retrieved:
            case.run[q] = retrieved
        for rank, (d, v) in enumerate(retrieved.items(), start=1):
            lines["run"].append([q, "Q0", d, str(rank), number_token(draw, v), "tag"])
    if draw(st.booleans()):  # a run-only query
        case.run["only_in_run"] = {"d1": 1.0}
        lines["run"].append(["only_in_run", "Q0", "d1", "1", "1", "tag"])

    kind = draw(st.sampled_from(["none", "none", "columns", "rejected", "either", "duplicate", "utf8", "nul"]))
    target = draw(st.sampled_from(["qrels", "run"])) if lines["run"] else "qrels"
    rows = lines[target]
    at = draw(st.integers(0, len(rows) - 1))
    value_col = 3 if target == "qrels" else 4
    case.defect, case.defect_file = kind, target
    defect_rows: tuple = ()
    if kind == "columns":
        row = rows[at]
        rows[at] = row[:-1] if draw(st.booleans()) else row + ["extra"]
        defect_rows = (at,)
    elif kind == "rejected":
        rows[at][value_col] = draw(st.sampled_from(REJECTED))
        defect_rows = (at,)
    elif kind == "either":
        text, value = draw(st.sampled_from(EITHER))
        rows[at][value_col] = text
        case.either_value = value
        case.either_at = (rows[at][0], rows[at][2])
        defect_rows = (at,)
    elif kind == "duplicate":
        row = list(rows[at])
        row[value_col] = "1" if row[value_col] != "1" else "2"
        rows.append(row)
        defect_rows = (len(rows) - 1,)  # the second occurrence (the first may be named too)
    elif kind == "utf8":
        rows[at][2] = rows[at][2] + "\udcff"  # becomes the invalid byte 0xff
        defect_rows = (at,)
    elif kind == "nul":  # inside the query or doc id: pytrec_eval would end the id there (#35.5)
        column = draw(st.sampled_from([0, 2]))
        cut = draw(st.integers(0, len(rows[at][column])))
        rows[at][column] = rows[at][column][:cut] + "\x00" + rows[at][column][cut:]
        defect_rows = (at,)
    else:
        case.defect_file = ""

    for name in ("qrels", "run"):
        sep = draw(st.sampled_from([" ", "\t", "  ", " \t"]))
        eol = draw(st.sampled_from(["\n", "\r\n"]))
        physical, row_line = [], {}
        for i, row in enumerate(lines[name]):
            while draw(st.integers(0, 9)) == 0:  # blank and whitespace-only lines
                physical.append(draw(st.sampled_from(["", "  ", "\t"])))
            row_line[i] = len(physical) + 1
            physical.append(sep.join(row) + draw(st.sampled_from(["", " ", "\t"])))
        text = eol.join(physical) + (eol if draw(st.booleans()) else "")
        data = text.encode("utf-8", errors="surrogateescape")
        if draw(st.booleans()):
            data = b"\xef\xbb\xbf" + data  # BOM
        if name == case.defect_file:
            case.defect_lines = tuple(row_line[r] for r in defect_rows)
            if kind == "duplicate":
                first = next(i for i, r in enumerate(lines[name]) if r[0] == lines[name][-1][0]
                             and r[2] == lines[name][-1][2])
                case.defect_lines += (row_line[first],)
        setattr(case, f"{name}_bytes", data)
    case.gzip_qrels = draw(st.booleans())
    return case


def write(case: Case, folder: Path) -> tuple[Path, Path]:
    qrels_path = folder / ("qrels.txt.gz" if case.gzip_qrels else "qrels.txt")
    qrels_path.write_bytes(gzip.compress(case.qrels_bytes) if case.gzip_qrels else case.qrels_bytes)
    run_path = folder / "run.txt"
    run_path.write_bytes(case.run_bytes)
    return qrels_path, run_path


def expected_values(qrels: dict, run: dict) -> dict:
    return {(qid, m): value for m in MEASURES
            for qid, value in reference.per_query(*registered.reference_args(m), qrels, run).items()}


def either_collection(case: Case) -> tuple[dict, dict]:
    """The clean collection with the EITHER token read as its value."""
    qrels = {q: dict(d) for q, d in case.qrels.items()}
    run = {q: dict(d) for q, d in case.run.items()}
    q, d = case.either_at
    (qrels if case.defect_file == "qrels" else run)[q][d] = case.either_value
    return qrels, run


def check_error_message(message: str, path: Path, case: Case) -> None:
    assert "\n" not in message.strip(), message
    assert "Traceback" not in message and ".py\"" not in message, message
    named = [int(n) for n in re.findall(re.escape(str(path)) + r":(\d+)", message)]
    assert named and set(named) <= set(case.defect_lines) | {0} and named[0] in case.defect_lines, \
        (message, case.defect_lines)


def check_values(got: dict, case: Case) -> None:
    """The values equal the reference on the clean collection (or on the EITHER reading)."""
    if case.defect == "either":
        qrels, run = either_collection(case)
    else:
        qrels, run = case.qrels, case.run
    expected = expected_values(qrels, run)
    assert got.keys() == expected.keys()
    for key, value in got.items():
        assert not math.isnan(value), key
        assert value == pytest.approx(expected[key], rel=1e-9, abs=1e-12), key


@settings(FUZZ, max_examples=examples(150))
@given(cases())
def test_hostile_files_through_the_api(case):
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = write(case, Path(tmp))
        try:
            with no_warning():  # a warning is a failure
                qrels, run = read_qrels(qrels_path), read_run(run_path)
                got = {(m.query_id, m.measure): m.value for m in ir_measures.iter_calc(MEASURES, qrels, run)}
        except GradedInputError as ex:
            assert case.defect in ("columns", "rejected", "either", "duplicate", "utf8", "nul"), str(ex)
            path = qrels_path if case.defect_file == "qrels" else run_path
            check_error_message(str(ex), path, case)
            return
        assert case.defect in ("none", "either"), f"{case.defect} in {case.defect_file} was not reported"
        check_values(got, case)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("error")
        status = cli.main(argv)
    return status, out.getvalue(), err.getvalue()


@settings(FUZZ, max_examples=examples(40))
@given(cases())
def test_hostile_files_through_the_cli(case):
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = write(case, Path(tmp))
        status, out, err = run_cli([str(qrels_path), str(run_path), *CLI_MEASURES, "-q", "-p", "-1", "-o", "jsonl"])
    for line in err.splitlines():  # only our own one-line messages on stderr
        assert line.startswith(("ir-measures-graded: error:", "ir-measures-graded: warning:")), err
    if status == 2:
        assert case.defect in ("columns", "rejected", "either", "duplicate", "utf8", "nul"), err
        assert len(err.splitlines()) == 1, err
        check_error_message(err, qrels_path if case.defect_file == "qrels" else run_path, case)
        return
    assert status == 0, err
    assert case.defect in ("none", "either"), f"{case.defect} in {case.defect_file} was not reported"
    qrels, run = either_collection(case) if case.defect == "either" else (case.qrels, case.run)
    by_name = {str(m): registered.reference_args(m) for m in registered.instances(cutoff=4)}
    for record in map(json.loads, out.splitlines()):
        name, params = by_name[record["measure"]]
        if record["query_id"] == "all":
            expected = reference.per_query(name, params, qrels, run)
            value = sum(expected.values()) / len(expected)
        else:
            value = reference.per_query(name, params, qrels, run)[record["query_id"]]
        assert record["value"] == pytest.approx(value, rel=1e-9, abs=1e-12), record


# --- issue 21: several runs in every output format, with --thresholds and --baseline ----------------

SEVERAL_MEASURES = ["muMAP", "muAP(levels='collection')", "nDCNG@5", "muP@2", "NumQ", "NumRet"]


@st.composite
def several_runs(draw) -> tuple[dict, list[dict], list[int]]:
    """Qrels (integer labels, so that trec_eval's measures take them too), 2-3 runs, and which run
    each command-line argument names (a file may be named twice)."""
    queries = draw(st.lists(st.sampled_from(["q1", "q2", "q3", "10"]), min_size=1, max_size=3, unique=True))
    docs = st.sampled_from(["d1", "d2", "d3", "d4", "D5"])
    qrels = {q: draw(st.dictionaries(docs, st.integers(0, 3), min_size=1, max_size=4)) for q in queries}
    runs = [{q: draw(st.dictionaries(docs, st.sampled_from([0.5, 1.0, 2.0, 3.5]), min_size=1, max_size=4))
             for q in draw(st.lists(st.sampled_from(queries + ["x"]), min_size=1, max_size=3, unique=True))}
            for _ in range(draw(st.integers(2, 3)))]
    named = draw(st.lists(st.integers(0, len(runs) - 1), min_size=2, max_size=4))
    return qrels, runs, named


def write_several(qrels: dict, runs: list[dict], folder: Path) -> tuple[str, list[str]]:
    (folder / "qrels.txt").write_text("".join(f"{q} 0 {d} {v}\n" for q, docs in qrels.items() for d, v in docs.items()))
    paths = []
    for i, run in enumerate(runs):
        lines = [f"{q} Q0 {d} {rank} {s!r} tag{i}\n" for q, docs in run.items()
                 for rank, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), 1)]
        (folder / f"run{i}.txt").write_text("".join(lines))
        paths.append(str(folder / f"run{i}.txt"))
    return str(folder / "qrels.txt"), paths


@settings(FUZZ, max_examples=examples(30))
@given(several_runs(), st.sampled_from(["tsv", "csv", "jsonl", "trec"]), st.booleans(), st.booleans(), st.booleans())
def test_several_runs_in_every_output_format(collection, output_format, by_query, thresholds, compare):
    """Each run's rows (and trec's runid blocks) hold the values of that file alone, computed as the
    API computes them; --thresholds lines sit under their run; --baseline's value is the summary."""
    qrels, runs, named = collection
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, paths = write_several(qrels, runs, Path(tmp))
        args = [qrels_path, *[paths[i] for i in named], *SEVERAL_MEASURES, "-p", "-1", "-o", output_format]
        if compare and len(set(named)) > 1 and named.count(named[0]) == 1:
            args += ["--baseline", paths[named[0]]]
            # tsv, csv and jsonl are one table: with --baseline the comparison, which holds every run's value
            by_query = by_query and output_format == "trec"
            thresholds = thresholds and output_format == "trec"
        else:
            compare = False
        thresholds = thresholds and output_format == "trec"  # a second table: other formats need --output-dir
        args += ["-q"] * by_query + ["--thresholds"] * thresholds
        status, out, err = run_cli(args)
        assert status == 0, err
        expected = []
        for i in named:
            run = read_run(paths[i])
            values = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in SEVERAL_MEASURES],
                                                read_qrels(qrels_path), run)
            expected.append(dict(zip(SEVERAL_MEASURES, values.values(), strict=True)))  # named as given
            if thresholds:  # each threshold's M over all queries, named as ir_measures names that measure
                from ir_measures_graded import by_level, muAP
                from ir_measures_graded.per_level import single_threshold

                levels = by_level(muAP, read_qrels(qrels_path), run)
                expected[-1].update({single_threshold(muAP, t): v for t, v in zip(levels["threshold"],
                                                                                  levels["all_queries"], strict=True)})
    summaries: list[dict] = []  # the summary values of each run, in the order of the arguments
    if output_format == "trec":
        for line in out.splitlines():
            parts = [p.strip() for p in line.split("\t")]
            if len(parts) != 3:
                break  # the --baseline table follows the runs' blocks
            name, query, value = parts
            if name == "runid":
                summaries.append({})
            elif query == "all":
                summaries[-1][name] = float(value)
    elif compare:  # the comparison table: a row per run and measure, the baseline's rows first
        import pandas as pd

        table = (pd.DataFrame(map(json.loads, out.splitlines())) if output_format == "jsonl" else
                 pd.read_csv(io.StringIO(out), sep="," if output_format == "csv" else "\t"))
        assert "p_value" in table.columns
        first = named[0]
        order = [first, *[i for i in named if i != first]]
        names = list(pd.unique(table["run"]))
        assert len(names) == len(named)
        by_run = {name: dict(zip(rows["measure"], rows["value"], strict=True))
                  for name, rows in table.groupby("run", sort=False)}
        summaries = [by_run[names[order.index(i)] if named.count(i) == 1 else names[order.index(i)]] for i in named]
        compare = False
    elif output_format == "jsonl":  # each run's summary records, measure after measure
        records = [r for r in map(json.loads, out.splitlines())
                   if not r.get("comparison") and "of" not in r and r.get("query_id", "all") == "all"]
        for at in range(0, len(records), len(SEVERAL_MEASURES)):
            summaries.append({r["measure"]: r["value"] for r in records[at:at + len(SEVERAL_MEASURES)]})
    else:
        import pandas as pd

        first = out.partition("\n\n")[0]
        table = pd.read_csv(io.StringIO(first), sep="," if output_format == "csv" else "\t", dtype={"query_id": str})
        if by_query:
            table = table[table["query_id"] == "all"]
        summaries = table.drop(columns=[c for c in ("run", "query_id") if c in table]).to_dict("records")
    assert len(summaries) == len(named), out
    for got, want in zip(summaries, expected, strict=True):
        assert set(want) <= set(got), (sorted(want), sorted(got), out)  # every measure, by the name it was given
        for key, value in got.items():
            if key in want:
                assert value == pytest.approx(want[key], rel=1e-9, abs=1e-12), (key, out)
    if compare:
        comparison = out.split("\n\n")[-1] if output_format != "jsonl" else out
        assert "p_value" in comparison or '"comparison"' in comparison


# --- issue 44: --output-dir never writes over an input ---------------------------------------------------

#: Every table a command may write with --output-dir, and the suffix of each format.
TABLES = ("results", "thresholds", "comparison", "means", "scale", "stability", "power", "pairs", "baseline",
          "details", "sizes")
SUFFIXES = {"tsv": "tsv", "csv": "csv", "jsonl": "jsonl", "text": "txt", "markdown": "md", "latex": "tex", "trec": "txt"}


@settings(FUZZ, max_examples=examples(30))
@given(several_runs(), st.sampled_from(list(SUFFIXES)), st.lists(st.sampled_from(TABLES), min_size=3, max_size=3),
       st.lists(st.sampled_from(list(SUFFIXES.values())), min_size=3, max_size=3), st.booleans(), st.booleans())
def test_an_output_folder_never_overwrites_an_input(collection, output_format, stems, suffixes, compare, linked):
    """Inputs named as the tables of any command, in the output folder (or reached through a link to it):
    the command refuses in one line before writing anything exactly when it would write over one, and
    otherwise writes its tables beside them; no input ever changes."""
    import os

    qrels, runs, _ = collection
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp, "out")
        folder.mkdir()
        qrels_path, paths = write_several(qrels, runs[:2], folder)
        names = [f"{stem}.{suffix}" for stem, suffix in zip(stems, suffixes, strict=True)]
        if len(set(names)) < 3:
            return
        given = []
        for old, new in zip([qrels_path, *paths], names, strict=True):
            os.rename(old, folder / new)
            given.append(str(Path(tmp, "link", new) if linked else folder / new))
        if linked:
            Path(tmp, "link").symlink_to(folder)
        before = {name: (folder / name).read_bytes() for name in names}
        command = "judge" if compare and output_format != "trec" else "evaluate"
        args = [command, *given, "muMAP", "-o", output_format, "--output-dir", str(folder)]
        args += ["--samples", "2", "--permutations", "20"] if command == "judge" else ["--baseline", given[1]]
        status, out, err = run_cli(args)
        machine = output_format in ("tsv", "csv", "jsonl")
        written = ("results", "comparison") if command == "evaluate" else [  # judge: every section
            t for t in TABLES[3:] if not (machine and t == "details")]  # (details: baseline's tidy table)
        clash = [n for n in names if n in {f"{t}.{SUFFIXES[output_format]}" for t in written}]
        assert {name: (folder / name).read_bytes() for name in names} == before  # no input ever changes
        if clash:
            assert status == 2 and len(err.splitlines()) == 1, err
            assert f"would write {clash[0]} over the input" in err or any(
                f"would write {c} over the input" in err for c in clash), err
            assert sorted(os.listdir(folder)) == sorted(names)  # nothing written beside them
        else:
            assert status == 0, err
            assert len(os.listdir(folder)) > len(names) and out == ""
