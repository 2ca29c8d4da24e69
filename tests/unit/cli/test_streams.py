"""What the command line writes where (issue 44): standard output carries the results alone, whatever
a dependency prints; ``--output-dir`` never writes over an input; standard input is read once."""

from __future__ import annotations

import json

import pytest

from support.cli import run_main
from support.paths import QRELS, STRONG, WEAK


def test_all_trec_keeps_what_ir_measures_prints_off_standard_output(capsys):
    # ir_measures prints "skipped [...]: measures not yet supported" while expanding all_trec
    out, err = run_main(capsys, QRELS, STRONG, WEAK, "all_trec", "-o", "jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert {r["run"] for r in records} == {"strong.run", "weak.run"}
    assert "skipped" in err
    out, _ = run_main(capsys, QRELS, STRONG, WEAK, "all_trec", "-o", "csv")
    assert out.splitlines()[0].startswith("run,")


# --- --output-dir never writes over an input -------------------------------------------------------

def _inputs_in(folder, *names):
    """Copies of the sample's qrels and runs in ``folder`` under ``names`` (qrels first)."""
    from pathlib import Path

    folder.mkdir(exist_ok=True)
    copies = []
    for source, name in zip([QRELS, STRONG, WEAK], names, strict=False):
        copies.append(folder / name)
        copies[-1].write_bytes(Path(source).read_bytes())
    return [str(c) for c in copies]


@pytest.mark.parametrize("subcommand, fmt, names, extra, written", [
    ("evaluate", "tsv", ["qrels.txt", "results.tsv", "baseline.tsv"], [], "results.tsv"),
    ("evaluate", "text", ["qrels.txt", "a.run", "results.txt"], [], "results.txt"),
    ("evaluate", "csv", ["comparison.csv", "a.run", "b.run"], ["--baseline", "a.run", "-q"], "comparison.csv"),
    ("evaluate", "markdown", ["qrels.txt", "a.run", "thresholds.md"], ["--thresholds"], "thresholds.md"),
    ("judge", "tsv", ["qrels.txt", "a.run", "means.tsv"], ["--sections", "means", "baseline"], "means.tsv"),
    ("judge", "latex", ["qrels.txt", "a.run", "sizes.tex"], [], "sizes.tex"),
])
@pytest.mark.parametrize("spelling", ["as typed", "another spelling", "a symbolic link"])
def test_output_dir_refuses_to_write_over_an_input(tmp_path, capsys, subcommand, fmt, names, extra, written,
                                                   spelling):
    import os

    from support.cli import error_of

    folder = tmp_path / "out"
    qrels, *runs = _inputs_in(folder, *names)
    given = [qrels, *runs]
    victim = next(p for p in given if p.endswith(written))
    if spelling == "another spelling":
        given = [os.path.join(str(tmp_path), "out", ".", os.path.basename(p)) for p in given]
    elif spelling == "a symbolic link":
        (tmp_path / "linked").symlink_to(folder)
        given = [str(tmp_path / "linked" / os.path.basename(p)) for p in given]
    before = {p: open(p, "rb").read() for p in [qrels, *runs]}
    message = error_of(capsys, subcommand, *given, "muMAP", "nDCG@10", "-o", fmt, "--output-dir", str(folder),
                       *extra)
    assert message.startswith(f"--output-dir {folder} would write {written} over the input ")
    assert {p: open(p, "rb").read() for p in [qrels, *runs]} == before  # nothing written over
    assert sorted(os.listdir(folder)) == sorted(os.path.basename(p) for p in before)  # nor beside them
    del victim


def test_output_dir_writes_beside_inputs_of_other_names(tmp_path, capsys):
    folder = tmp_path / "out"
    qrels, *runs = _inputs_in(folder, "qrels.txt", "results.txt", "comparison.txt")  # not .tsv: no clash
    run_main(capsys, qrels, *runs, "muMAP", "--baseline", runs[0], "-q", "--output-dir", str(folder))
    assert (folder / "results.tsv").exists() and (folder / "comparison.tsv").exists()
    assert (folder / "results.txt").read_bytes() == open(STRONG, "rb").read()


# --- standard input, once --------------------------------------------------------------------------

@pytest.mark.parametrize("names", [["-", "/dev/stdin"], ["/dev/stdin", "/dev/stdin"], ["/dev/fd/0", "-"],
                                   ["/dev/stdin", "/proc/self/fd/0"]])
@pytest.mark.parametrize("measures_with_m", [False, True])
def test_standard_input_under_two_of_its_names_is_refused(capsys, names, measures_with_m):
    from support.cli import error_of

    args = [QRELS, STRONG, *names, *(["-m", "muMAP"] if measures_with_m else ["muMAP"])]
    assert error_of(capsys, *args) == (f"standard input can be only one of the runs: {names[0]!r} and "
                                       f"{names[1]!r} both name it")


def test_dash_twice_keeps_its_message(capsys):
    from support.cli import error_of

    for args in ([QRELS, "-", "-", "muMAP"], [QRELS, "-", "-", "-m", "muMAP"]):
        assert error_of(capsys, *args) == "standard input ('-') can be only one of the runs"


@pytest.mark.parametrize("kind", ["parquet", "arrow"])
def test_a_parquet_or_arrow_run_through_a_pipe_is_evaluated_as_the_file(tmp_path, capsys, kind):
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    from ir_measures_graded.io.readers import read_run_table
    from support.pipes import through_a_pipe

    path = tmp_path / f"strong.{kind}"
    (pq.write_table if kind == "parquet" else feather.write_feather)(read_run_table(STRONG), str(path))
    expected, _ = run_main(capsys, QRELS, str(path), "muMAP", "nDCG@10")
    with through_a_pipe(tmp_path, path.read_bytes()) as pipe:
        assert run_main(capsys, QRELS, pipe, "muMAP", "nDCG@10")[0] == expected


@pytest.mark.parametrize("option", ["report --html", "judge --plot"])
def test_no_other_output_file_is_written_over_an_input(tmp_path, capsys, option):
    from support.cli import error_of

    qrels, *runs = _inputs_in(tmp_path / "in", "qrels.txt", "a.run", "b.run")
    command, flag = option.split()
    before = [open(p, "rb").read() for p in [qrels, *runs]]
    for target in (runs[1], qrels, str(tmp_path / "in" / "." / "a.run")):
        extra = ["--samples", "2"] if command == "judge" else []
        message = error_of(capsys, command, qrels, *runs, "-m", "muMAP", flag, target, *extra)
        assert message.startswith(f"{flag} {target} would ") and " over the input " in message, message
    assert [open(p, "rb").read() for p in [qrels, *runs]] == before


# --- issue 50: one writer of files -----------------------------------------------------------------

def _linked(tmp_path, source, how):
    """``source`` under another name in ``tmp_path``: a copy, a symbolic or a hard link."""
    import os
    from pathlib import Path

    target = tmp_path / f"{how}-{Path(source).name}"
    if how == "symlink":
        target.symlink_to(os.path.abspath(source))
    else:
        os.link(source, target)
    return target


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
@pytest.mark.parametrize("option", ["evaluate --figure", "leaderboard --plot", "report --figure"])
def test_a_figure_is_never_drawn_over_an_input(tmp_path, capsys, how, option):
    from support.cli import error_of

    qrels, *runs = _inputs_in(tmp_path / "in", "qrels.txt", "a.run", "b.run")
    command, flag = option.split()
    before = [open(p, "rb").read() for p in [qrels, *runs]]
    # the input itself named as a figure: a .png input, reached through a link
    png = tmp_path / "in" / "b.png"
    png.write_bytes(open(runs[1], "rb").read())
    target = _linked(tmp_path, str(png), how)
    figure = ["--figure", "differences", str(target)] if flag == "--figure" else ["--plot", str(target)]
    extra = ["--html", str(tmp_path / "r.html")] if command == "report" else []
    message = error_of(capsys, command, qrels, str(png), *runs, "-m", "muMAP", *figure, *extra)
    assert message.startswith(f"{flag} ") and f" over the input {png}: give another file" in message, message
    assert [open(p, "rb").read() for p in [qrels, *runs]] == before
    assert png.read_bytes() == before[2]
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("name", ["leaderboard.txt", "pool.txt", "topics.txt", "bounds.txt", "agreement.txt"])
def test_leaderboard_output_dir_refuses_inputs_named_as_its_sections(tmp_path, capsys, name):
    from support.cli import error_of

    folder = tmp_path / "out"
    qrels, *runs = _inputs_in(folder, "qrels.txt", "a.run", name)
    before = {p: open(p, "rb").read() for p in [qrels, *runs]}
    message = error_of(capsys, "leaderboard", qrels, *runs, "-m", "muMAP", "nDCG@10", "--output-dir", str(folder),
                       "--sections", "leaderboard", "agreement", "pool", "topics", "bounds", "--permutations", "50")
    assert message == (f"--output-dir {folder} would write {name} over the input {runs[-1]}: choose another folder "
                       "(inputs are never written)")
    assert {p: open(p, "rb").read() for p in before} == before
    assert sorted(p.name for p in folder.iterdir()) == sorted(["qrels.txt", "a.run", name])


def test_output_dir_refuses_a_hard_link_of_an_input(tmp_path, capsys):
    import os

    from support.cli import error_of

    qrels, *runs = _inputs_in(tmp_path / "in", "qrels.txt", "a.run", "b.run")
    folder = tmp_path / "out"
    folder.mkdir()
    os.link(runs[0], folder / "pool.txt")
    message = error_of(capsys, "leaderboard", qrels, *runs, "-m", "muMAP", "--output-dir", str(folder),
                       "--sections", "pool")
    assert message.startswith(f"--output-dir {folder} would write pool.txt over the input {runs[0]}")
    assert (folder / "pool.txt").read_bytes() == open(STRONG, "rb").read()


def test_report_output_dir_writes_the_comparison_there(tmp_path, capsys):
    folder = tmp_path / "tables"
    html = tmp_path / "r.html"
    out, _ = run_main(capsys, "report", QRELS, STRONG, WEAK, "-m", "muMAP", "--html", str(html), "--no-scale",
                      "--output-dir", str(folder))
    assert out == ""  # the table went to its file
    written = (folder / "comparison.tsv").read_text(encoding="utf-8")
    plain, _ = run_main(capsys, "report", QRELS, STRONG, WEAK, "-m", "muMAP", "--html", str(html), "--no-scale")
    assert written == plain and "strong.run" in written


def test_report_output_dir_refuses_an_input_named_as_its_table(tmp_path, capsys):
    from support.cli import error_of

    folder = tmp_path / "out"
    qrels, *runs = _inputs_in(folder, "qrels.txt", "a.run", "comparison.tsv")
    message = error_of(capsys, "report", qrels, *runs, "-m", "muMAP", "--html", str(tmp_path / "r.html"),
                       "--output-dir", str(folder))
    assert message.startswith(f"--output-dir {folder} would write comparison.tsv over the input {runs[-1]}")
    assert not (tmp_path / "r.html").exists()


def test_a_figure_into_a_new_folder_makes_the_folder(tmp_path, capsys):
    path = tmp_path / "new" / "deeper" / "d.svg"
    run_main(capsys, QRELS, STRONG, WEAK, "-m", "muMAP", "--figure", "differences", str(path))
    assert path.read_bytes().startswith(b"<?xml")
    assert sorted(p.name for p in path.parent.iterdir()) == ["d.svg"]  # no temporary file left beside it


@pytest.mark.parametrize("option", ["--output-dir", "--html", "--figure", "--plot"])
def test_an_output_where_a_file_stands_for_a_folder_is_refused_before_evaluating(tmp_path, capsys, option):
    from support.cli import error_of

    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a folder\n")
    target = str(blocker / "out.svg")
    command = {"--output-dir": "evaluate", "--html": "report", "--figure": "evaluate", "--plot": "leaderboard"}[option]
    given = {"--output-dir": ["--output-dir", str(blocker)], "--html": ["--html", target],
             "--figure": ["--figure", "differences", target], "--plot": ["--plot", target]}[option]
    message = error_of(capsys, command, QRELS, STRONG, WEAK, "-m", "muMAP", *given)
    shown = f"{option} differences {target}" if option == "--figure" else f"{option} {given[-1]}"
    assert message.startswith(f"{shown}: not a ") and f"({blocker} is not a folder)" in message, message
    assert blocker.read_text() == "a file, not a folder\n"
