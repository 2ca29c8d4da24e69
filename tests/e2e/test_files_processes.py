"""Issue 50: every file is written whole or not at all and never over an input, seen from the processes
that write them: standard input redirected from the target, and a process stopped while it writes."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys

import pytest

from support.cli import ERROR, SCRIPT
from support.paths import QRELS, STRONG, WEAK

#: Bytes a child may write to any file: far less than its table (the sample's 30 queries, 3 measures).
LIMIT = 1500
PREVIOUS = "the previous results.tsv\n"


def _folder(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    for source in (QRELS, STRONG, WEAK):
        shutil.copy(source, folder)
    return folder


def test_standard_input_redirected_from_a_table_is_not_written_over(tmp_path):
    """``qrels.txt - weak.run --output-dir . < results.tsv``: results.tsv is an input."""
    folder = _folder(tmp_path)
    shutil.copy(STRONG, folder / "results.tsv")
    before = (folder / "results.tsv").read_bytes()
    with open(folder / "results.tsv", "rb") as stdin:
        done = subprocess.run([SCRIPT, "qrels.txt", "-", "weak.run", "muMAP", "--output-dir", "."], cwd=folder,
                              stdin=stdin, capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert done.stderr == (f"{ERROR}--output-dir . would write results.tsv over the input standard input: choose "
                           "another folder (inputs are never written)\n")
    assert (folder / "results.tsv").read_bytes() == before
    assert sorted(os.listdir(folder)) == ["qrels.txt", "results.tsv", "strong.run", "weak.run"]


def test_standard_input_from_another_file_writes_the_tables(tmp_path):
    folder = _folder(tmp_path)
    with open(folder / "strong.run", "rb") as stdin:
        subprocess.run([SCRIPT, "qrels.txt", "-", "weak.run", "muMAP", "--output-dir", "."], cwd=folder, stdin=stdin,
                       check=True, capture_output=True)
    assert (folder / "results.tsv").read_text().startswith("run\tmuMAP\n-\t")


def _limited(kill: bool):
    """The child's files limited to :data:`LIMIT` bytes; ``kill``: the signal that limit sends (SIGXFSZ)
    ends the process, as a scheduler's SIGKILL would, instead of failing the write."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))
    main = ("import signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_DFL); "
            "from ir_measures_graded.cli import console; sys.exit(console())") if kill else \
        "import sys; from ir_measures_graded.cli import console; sys.exit(console())"
    return [sys.executable, "-c", main], limit


@pytest.mark.parametrize("kill", [False, True], ids=["write fails", "process killed"])
@pytest.mark.parametrize("previous", [True, False], ids=["over a previous table", "a new table"])
def test_a_table_interrupted_while_written_leaves_the_previous_file_or_none(tmp_path, kill, previous):
    folder = _folder(tmp_path)
    if previous:
        (folder / "results.tsv").write_text(PREVIOUS)
    command, limit = _limited(kill)
    done = subprocess.run([*command, "qrels.txt", "strong.run", "weak.run", "muMAP", "P@5", "nDCG@10", "-q",
                           "--output-dir", "."], cwd=folder, preexec_fn=limit, capture_output=True, text=True,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    if kill:
        assert done.returncode == -signal.SIGXFSZ, done.stderr
    else:
        assert done.returncode == 2 and done.stderr.startswith(f"{ERROR}OSError: [Errno 27] File too large"), \
            done.stderr
        assert len(done.stderr.splitlines()) == 1
    tables = [name for name in os.listdir(folder) if name.startswith("results")]
    assert tables == (["results.tsv"] if previous else [])
    if previous:
        assert (folder / "results.tsv").read_text() == PREVIOUS  # never a truncated table
    # a killed process leaves at most its hidden temporary file; a failed write removes it
    hidden = [name for name in os.listdir(folder) if name.startswith(".")]
    assert hidden == [] if not kill else all(name.endswith(".tmp") for name in hidden)
