"""The small-input path (TREC files read with numpy alone) gives exactly the large-file path's output.

Each input is evaluated twice by the command line, in process: as it comes (small files take the
numpy path) and with ``IR_MEASURES_GRADED_SMALL_FILE_BYTES=0`` (every file through the Arrow
reader and the streaming evaluation); the outputs, per query and with all digits, must be the same
bytes, and so must the error messages of inputs the small path leaves to the large-file reader.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ir_measures_graded import cli
from ir_measures_graded.io import small as small_reader
from ir_measures_graded.io.small import (
    ENV,
    PADDING,
    decimals,
    distinct,
    fixed_width,
    read_small,
    split_fields,
)
from ir_measures_graded.io.trec import QRELS, RUN

DATA = Path(__file__).resolve().parents[3] / "src" / "ir_measures_graded" / "data"
GRADED = ["muMAP", "nDCNG@10", "muP@5", "GAP", "meanNDCG", "meanNDCNG@20", "muAP(levels='collection')",
          "muAP(ties='expected')", "nDCNG(norm=1)@5", "muP(judged_only=True)@10"]
STANDARD = ["AP", "nDCG@10", "P@5"]


def write_collection(folder: Path, seed: int, *, queries: int = 12, docs: int = 40, decimals_: int = 1,
                     sep: str = " ", real_labels: bool = False, shuffle: bool = False,
                     short_ids: bool = False) -> tuple[Path, Path]:
    """Random qrels and run: scores with few decimals (ties), numeric and text doc ids of several
    widths, queries only in the run and only in the qrels, optionally a run whose queries interleave."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(queries):
        pool = [f"{rng.integers(0, 1000)}" if rng.random() < 0.5 else f"doc-{rng.integers(0, 10**6)}"
                for _ in range(docs * 2)]
        if short_ids:  # at most 8 bytes, prefixes of one another: ids compared as integers
            pool = [f"{'d' * int(rng.integers(0, 2))}{rng.integers(0, 10 ** int(rng.integers(1, 8)))}"
                    for _ in range(docs * 2)]
        pool = list(dict.fromkeys(pool))
        if q != queries - 1:  # the last query: judged, not retrieved
            scores = np.round(rng.normal(size=docs) * 3, decimals_)
            run += [(f"q{q}", d, f"{s:.{decimals_}f}") for d, s in zip(pool[:docs], scores, strict=False)]
        if q != 0:  # the first query: retrieved, not judged
            for d in rng.choice(pool, size=docs // 2, replace=False):
                label = f"{rng.random() * 4:.3f}" if real_labels else str(int(rng.integers(0, 5)))
                qrels.append((f"q{q}", d, label))
    if shuffle:
        run = [run[i] for i in rng.permutation(len(run))]
    qrels_path, run_path = folder / f"qrels-{seed}.txt", folder / f"run-{seed}.txt"
    qrels_path.write_text("".join(sep.join((q, "0", d, v)) + "\n" for q, d, v in qrels))
    run_path.write_text("".join(sep.join((q, "Q0", d, str(i + 1), s, "tag")) + "\n" for i, (q, d, s) in enumerate(run)))
    return qrels_path, run_path


def padded_fields(data: bytes, n_fields: int):
    """:func:`split_fields` on ``data`` as :func:`read_small` reads a file: followed by zeros."""
    return split_fields(bytearray(data) + bytearray(PADDING), len(data), n_fields)


def output(argv: list[str], capsys, monkeypatch, large: bool) -> tuple[int, str, str]:
    if large:
        monkeypatch.setenv(ENV, "0")
    else:
        monkeypatch.delenv(ENV, raising=False)
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


CASES = {
    "bundled sample": lambda tmp: (DATA / "graded_sample" / "qrels.txt", DATA / "graded_sample" / "strong.run"),
    "paper example": lambda tmp: (DATA / "paper_example.qrels", DATA / "paper_example.run"),
    "ties, mixed ids": lambda tmp: write_collection(tmp, 1),
    "many ties": lambda tmp: write_collection(tmp, 2, decimals_=0),
    "many ties, short ids": lambda tmp: write_collection(tmp, 6, decimals_=0, short_ids=True),
    "tab separated": lambda tmp: write_collection(tmp, 3, sep="\t"),
    "interleaved queries": lambda tmp: write_collection(tmp, 4, shuffle=True),
    "exponents and long decimals": lambda tmp: write_collection(tmp, 5, decimals_=17),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_small_path_output_identical_to_the_large_file_path(case, tmp_path, capsys, monkeypatch):
    qrels, run = CASES[case](tmp_path)
    assert read_small(qrels, QRELS) is not None and read_small(run, RUN) is not None  # the small path is taken
    argv = [str(qrels), str(run), "all", *GRADED, *STANDARD, "-q", "-p", "-1"]  # all: every registered measure
    small = output(argv, capsys, monkeypatch, large=False)
    large = output(argv, capsys, monkeypatch, large=True)
    assert small == large
    assert small[0] == 0 and small[1].count("\n") > 20


def test_real_valued_labels_agree(tmp_path, capsys, monkeypatch):
    """With many distinct labels per query, µAP and GAP count relevant rows with a merge sort whose
    float sums depend on which queries are evaluated together: the streamed large-file path (batches
    of queries) and any whole-run evaluation (this path, or a DataFrame run) agree to 1e-12, not to
    the last bit. Everything else is identical."""
    qrels, run = write_collection(tmp_path, 6, real_labels=True)
    argv = [str(qrels), str(run), *GRADED, "-q", "-p", "-1"]
    small, large = output(argv, capsys, monkeypatch, large=False), output(argv, capsys, monkeypatch, large=True)
    small_lines, large_lines = small[1].splitlines(), large[1].splitlines()
    assert [line.rsplit("\t", 1)[0] for line in small_lines] == [line.rsplit("\t", 1)[0] for line in large_lines]
    for a, b in zip(small_lines, large_lines, strict=True):
        name = a.split("\t")[1] if a.count("\t") == 2 else a.split("\t")[0]
        x, y = float(a.rsplit("\t", 1)[1]), float(b.rsplit("\t", 1)[1])
        assert x == pytest.approx(y, rel=1e-12, abs=1e-15), a
        if not name.startswith(("muAP", "muMAP", "GAP")):
            assert a == b
    # the standard measures refuse real-valued labels with the same message on both paths
    argv = [str(qrels), str(run), "muMAP", "AP"]
    small, large = output(argv, capsys, monkeypatch, large=False), output(argv, capsys, monkeypatch, large=True)
    assert small == large and small[0] == 2 and "real-valued labels" in small[2]


@pytest.mark.parametrize("line", ["q1 Q0 d9 1 1.5\n", "q1 Q0 d9 1 nan tag\n", "q1 Q0 d9 1 1e999 tag\n",
                                  "q1 Q0 d9 1 0x10 tag\n", "q1  Q0 d9 1 1.5 tag\n", "q1 Q0 d1 1 2.0 tag\n",
                                  "q1 Q0 d9 1 1.5 tag\r\n", "q1 Q0 dé 1 1.5 tag\n", "q1\tQ0\td9\t1\t1.5\ttag\n",
                                  "q1 Q0 d9\t1 1.5 tag\n"])
def test_inputs_the_small_path_leaves_to_the_large_file_reader(line, tmp_path, capsys, monkeypatch):
    """Malformed lines, other spacing, non-ASCII ids, a doc given twice: same output or message."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 3.5 tag\nq1 Q0 d2 2 2.5 tag\n" + line + "q2 Q0 d1 1 1 tag\n")
    assert read_small(run, RUN) is None
    argv = [str(qrels), str(run), "muMAP", "nDCNG@10", "-q", "-p", "-1"]
    assert output(argv, capsys, monkeypatch, large=False) == output(argv, capsys, monkeypatch, large=True)


def test_doc_judged_only_for_another_query(tmp_path, capsys, monkeypatch):
    """A doc judged for one query, retrieved for another: unjudged there. Here its (query, doc) key
    sorts after every judged key (the last query, the largest doc code), past the end of the keys."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d9 3\nq2 0 d1 1\nq2 0 d2 2\n")
    run = tmp_path / "run.txt"
    run.write_text("q2 Q0 d9 1 3.0 t\nq2 Q0 d2 2 2.0 t\nq2 Q0 d1 3 1.0 t\nq1 Q0 d9 1 1.0 t\n")
    argv = [str(qrels), str(run), "muAP", "nDCNG@10", "-q", "-p", "-1"]
    small = output(argv, capsys, monkeypatch, large=False)
    assert small == output(argv, capsys, monkeypatch, large=True)
    lines = dict(line.rsplit("\t", 1) for line in small[1].splitlines())
    # q2: d9 unjudged at rank 1, then d2 (2) and d1 (1): AP^1 = (1/2 + 2/3) / 2, AP^2 = 1/2
    assert float(lines["q2\tmuAP"]) == pytest.approx(((0.5 + 2 / 3) / 2 + 0.5) / 2, abs=1e-15)
    assert float(lines["q1\tmuAP"]) == 1.0


@pytest.mark.slow  # a subprocess
def test_small_evaluation_loads_neither_pandas_nor_pyarrow():
    qrels, run = DATA / "graded_sample" / "qrels.txt", DATA / "graded_sample" / "weak.run"
    code = ("import sys\nfrom ir_measures_graded.cli import main\n"
            f"status = main([{str(qrels)!r}, {str(run)!r}, 'muMAP', 'nDCNG@10', '-q'])\n"
            "print(status, sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'pyarrow')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "0 []"


def test_decimals_are_the_correctly_rounded_doubles():
    """Every plain decimal and exponent form parsed here equals Python's (correctly rounded) float;
    what is not a finite number is left to the large-file reader (None)."""
    rng = np.random.default_rng(7)
    tokens = [f"{x:.{int(rng.integers(0, 18))}f}" for x in rng.normal(size=300) * 10.0 ** rng.integers(-6, 14, 300)]
    tokens += [repr(float(x)) for x in rng.normal(size=300) * 10.0 ** rng.integers(-300, 300, 300)]
    tokens += ["-0", "-0.0", "0.5", ".5", "5.", "-.5", "+5", "1E5", "007.250", "123456789012345", "1234567890123456789"]
    data = "".join(f"q {t}\n" for t in tokens).encode()
    raw, ends = padded_fields(data, 2)
    starts = ends[:, 0] + 1
    got = decimals(raw, starts, ends[:, 1] - starts)
    want = np.array([float(t) for t in tokens])
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))  # bit for bit, -0.0 included
    for bad in ("nan", "inf", "-", ".", "1.2.3", "1_0", "1e999"):
        raw, ends = padded_fields(f"q {bad}\n".encode(), 2)
        assert decimals(raw, ends[:, 0] + 1, ends[:, 1] - ends[:, 0] - 1) is None, bad


@pytest.mark.parametrize("width", [1, 3, 8, 9, 20])
def test_distinct_ids_sorted_by_their_bytes(width):
    """Codes index the distinct ids sorted by bytes (the tie-break order), short ids as integers or not."""
    rng = np.random.default_rng(width)
    ids = np.array([bytes(rng.choice(list(b"09AZaz-_."), size=int(rng.integers(1, width + 1))).tolist())
                    for _ in range(500)], dtype=f"S{width}")
    unique, codes = distinct(ids)
    want_unique, want_codes = np.unique(ids, return_inverse=True)
    assert unique.tolist() == want_unique.tolist() and codes.tolist() == want_codes.ravel().tolist()


def test_fixed_width_fields_end_at_their_separator():
    data = b"q1 0 a 1\nq22 0 bbbbbbbbbbbb 2\nq3 0 cc 33\n"
    raw, ends = padded_fields(data, 4)
    starts = ends[:, 1] + 1
    assert fixed_width(raw, starts, ends[:, 2] - starts).tolist() == [b"a", b"bbbbbbbbbbbb", b"cc"]
    first = np.concatenate(([0], ends[:-1, -1] + 1))
    assert fixed_width(raw, first, ends[:, 0] - first).tolist() == [b"q1", b"q22", b"q3"]
    starts = ends[:, 2] + 1  # the last field of the last line: its window runs into the padding
    assert decimals(raw, starts, ends[:, 3] - starts).tolist() == [1.0, 2.0, 33.0]


@pytest.mark.parametrize("queries, docs_per_query", [(3, 50), (400, 10)])  # a bitmap of all pairs; one sort
def test_repeated_pairs_found_either_way(queries, docs_per_query):
    from ir_measures_graded.io.small import repeated_pair

    rng = np.random.default_rng(queries)
    query = np.repeat(np.arange(queries), docs_per_query)
    doc = rng.permutation(queries * docs_per_query)  # every pair distinct, docs spread over all queries
    assert not repeated_pair(query, queries, doc, len(doc))
    other_query = doc.copy()
    other_query[-1] = doc[0]  # a doc of the first query also in the last one: no repeat
    assert not repeated_pair(query, queries, other_query, len(doc))
    doc[-1] = doc[-2]  # the last query has one doc twice
    assert repeated_pair(query, queries, doc, len(doc))


@pytest.mark.parametrize("line", [
    "q1 Q0 " + "d" * (PADDING + 1) + " 1 1.5 t\n",  # a field longer than the zeros read after the file
    "q1 Q0 d\x7f 1 1.5 t\n",  # DEL: not printable ASCII
    "q1 Q0 d\u00e9 1 1.5 t\n",  # UTF-8
])
def test_what_the_small_reader_leaves_to_the_large_one(line, tmp_path, capsys, monkeypatch):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    doc = line.split()[2]
    qrels.write_text(f"q1 0 {doc} 2\nq1 0 other 1\n")
    run.write_text(line + "q1 Q0 other 2 1.0 t\n")
    assert read_small(run, RUN) is None and read_small(qrels, QRELS) is None
    argv = [str(qrels), str(run), "muMAP", "nDCNG@10", "-q", "-p", "-1"]
    small = output(argv, capsys, monkeypatch, large=False)
    assert small == output(argv, capsys, monkeypatch, large=True)
    assert small[0] == 0 and "q1\tmuMAP\t1.0" in small[1]  # the doc, judged 2, is ranked first


# --- memory: lines x the longest field (issue #35.7) ----------------------------------------------

def _run_with_one_long_field(path: Path, field: int, width: int, lines: int = 10_000) -> Path:
    """A run of ``lines`` short lines (8-byte doc ids, 3-decimal scores) but for one field of
    ``width`` characters (a URL-like doc id, or a score of many digits)."""
    rows = [[f"q{i // 1000}", "Q0", f"D{i:07d}", str(i % 1000 + 1), f"{(i * 7919) % 1000 / 7:.3f}", "t"]
            for i in range(lines)]
    rows[10][field] = "http://x/" + "a" * (width - 9) if field == 2 else "0." + "1" * (width - 2)
    path.write_text("".join(" ".join(row) + "\n" for row in rows))
    return path


def test_an_id_column_whose_matrix_exceeds_the_file_goes_to_the_arrow_reader(tmp_path):
    """Ids are read here as a (lines x longest id) matrix: one 4,000-byte id among 8-byte ones would
    make it 40 MB for a 0.2 MB file. Such a file is read by the Arrow reader (ids in their own length)."""
    from ir_measures_graded.io.small import MATRIX_SLACK, fits

    long_id = _run_with_one_long_field(tmp_path / "long-id.run", 2, 4000)
    assert read_small(long_id, RUN) is None
    assert read_small(_run_with_one_long_field(tmp_path / "short.run", 2, 300), RUN) is not None  # within the slack
    size = 1000
    lengths = np.full(100, 8)
    lengths[0] = (size + MATRIX_SLACK) // 100
    assert fits(lengths, size)
    lengths[0] += 1
    assert not fits(lengths, size)


def test_a_long_value_is_read_in_bounded_memory(tmp_path):
    """A 4,000-digit score among 3-decimal ones: parsed here (its value as strtod reads it), plain
    decimals a chunk at a time and the others grouped by length, never a (fields x longest) matrix."""
    run = _run_with_one_long_field(tmp_path / "long-score.run", 4, 4000)
    table = read_small(run, RUN)
    assert table is not None and table.values[10] == float("0." + "1" * 3998)
    assert table.values[11] == float(run.read_text().splitlines()[11].split()[4])


@pytest.mark.slow  # subprocesses
@pytest.mark.parametrize("field", [2, 4], ids=["doc id", "score"])
def test_the_small_path_peaks_below_the_arrow_path(tmp_path, field):
    """Peak memory (VmHWM: this process's own high-water mark, not its parent's) of the command line
    on a run with one 4,000-character field: the small-file reader stays within the Arrow path's (it
    took 320 MiB on the score, 200 MiB on the doc id, where the Arrow path takes about 95)."""
    run = _run_with_one_long_field(tmp_path / "run", field, 4000)
    qrels = tmp_path / "qrels"
    qrels.write_text("q0 0 D0000001 1\nq0 0 D0000002 0\n")
    code = ("import sys\nfrom ir_measures_graded.cli import main\n"
            f"main([{str(qrels)!r}, {str(run)!r}, 'muMAP', 'nDCNG@10', 'AP'])\n"
            "print([int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0])")

    def peak_kib(small: bool) -> int:
        env = {k: v for k, v in os.environ.items() if k != ENV} | ({} if small else {ENV: "0"})
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
        return int(done.stdout.splitlines()[-1])

    small, arrow = peak_kib(True), peak_kib(False)
    assert small <= arrow * 1.1, (small, arrow)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.integers(1, 3000), long_fields=st.lists(st.tuples(st.sampled_from([0, 2, 4]), st.integers(1, 4000)),
                                                         max_size=3))
def test_memory_follows_the_file_not_lines_times_the_longest_field(tmp_path, lines, long_fields):
    """Whatever the lengths of its fields, reading a file here allocates (numpy's allocations, as
    tracemalloc counts them) at most a fixed multiple of the file's size plus the matrix slack: what
    it accepts stays within the Arrow path's memory, and what would not fit goes there."""
    import tracemalloc

    from ir_measures_graded.io.small import MATRIX_SLACK

    rows = [[f"q{i // 100}", "Q0", f"d{i}", "1", f"{i % 89 / 8:.3f}", "t"] for i in range(lines)]
    for k, (column, width) in enumerate(long_fields):
        row = rows[(k * 7919) % lines]
        row[column] = f"{row[column]}{'x' * width}" if column != 4 else "1." + "7" * width
    path = tmp_path / "run"
    path.write_text("".join(" ".join(row) + "\n" for row in rows))
    tracemalloc.start()
    try:
        table = read_small(path, RUN)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert table is not None or any(c != 4 for c, _ in long_fields)  # long numbers are read here
    assert peak <= 16 * path.stat().st_size + 3 * MATRIX_SLACK, (peak, path.stat().st_size)
@pytest.mark.parametrize("case", ["ties, mixed ids", "interleaved queries"])
def test_hash_collisions_fall_back_to_the_bytes(case, tmp_path, capsys, monkeypatch):
    """Runs are joined to the judgments, and checked for a (query, doc) given twice, by a 64-bit hash
    of the ids confirmed on their bytes; with a hash of 3 bits (collisions everywhere) the exact
    fallbacks give the same output, and a repeated pair is still found."""
    from ir_measures_graded import prepare
    from ir_measures_graded.io import ids, small

    qrels, run = CASES[case](tmp_path)
    argv = [str(qrels), str(run), *GRADED, *STANDARD, "-q", "-p", "-1"]
    exact = output(argv, capsys, monkeypatch, large=False)
    weak = lambda doc_ids: ids.id_hash(doc_ids) & np.uint64(7)  # noqa: E731
    monkeypatch.setattr(prepare, "id_hash", weak)
    monkeypatch.setattr(small, "id_hash", weak)
    assert output(argv, capsys, monkeypatch, large=False) == exact
    lines = run.read_text().splitlines(keepends=True)
    run.write_text("".join(lines + [lines[len(lines) // 2]]))
    assert read_small(run, RUN) is None


# --- the separators: one pass a block at a time ---------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1, max_size=200).map(lambda b: bytes(c % 128 for c in b))
       | st.binary(min_size=1, max_size=50), st.integers(1, 9))
def test_separators_are_those_of_a_whole_file_scan(data, block):
    """Read a block at a time (any block size), the separators are every byte below 33, as one scan
    of the whole file finds them; DEL and bytes above refuse the file; more separators than fields
    of one byte allow (two in a row) may be refused early."""
    raw = np.frombuffer(bytearray(data) + bytearray(PADDING), dtype=np.uint8)
    saved, small_reader.SCAN_BLOCK = small_reader.SCAN_BLOCK, block
    try:
        found = small_reader._separators(raw, len(data))
    finally:
        small_reader.SCAN_BLOCK = saved
    whole = np.flatnonzero(raw[:len(data)] < 33)
    if max(data) >= 127:
        assert found is None
    elif len(whole) <= len(data) // 2 + 1:
        assert found is not None and found.tolist() == whole.tolist()
    else:
        assert found is None or found.tolist() == whole.tolist()


def test_judged_rows_of_a_run_of_long_ids_counted_on_its_own_hashes(tmp_path, capsys, monkeypatch):
    """A run of ids longer than 8 bytes evaluated by other providers only: its judged rows are counted
    by the join alone (``Judgments.judged_rows``), on the hashes its reader computed. Every document
    of the first run is judged, none of the second's: one warning, for the second run only, the same on
    both paths."""
    qrels, judged, unjudged = tmp_path / "qrels.txt", tmp_path / "judged.run", tmp_path / "unjudged.run"
    docs = [f"clueweb09-en0000-00-{i:05d}" for i in range(30)]
    qrels.write_text("".join(f"q{q} 0 {d} {i % 3}\n" for q in range(3) for i, d in enumerate(docs)))
    judged.write_text("".join(f"q{q} Q0 {d} {i + 1} {30 - i} t\n" for q in range(3) for i, d in enumerate(docs)))
    unjudged.write_text("".join(f"q{q} Q0 other-{d} {i + 1} {30 - i} t\n" for q in range(3) for i, d in enumerate(docs)))
    assert read_small(judged, RUN).doc_hashes is not None  # one id per row, hashed by the reader
    argv = [str(qrels), str(judged), str(unjudged), "AP", "nDCG@10"]
    small = output(argv, capsys, monkeypatch, large=False)
    assert small == output(argv, capsys, monkeypatch, large=True)
    assert "run unjudged.run: none of its 90 retrieved documents" in small[2] and "run judged.run:" not in small[2]
