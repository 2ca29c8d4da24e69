"""The one writer of files (issue 50): never over an input, under any of its names; the folder made;
each file whole or not at all."""

from __future__ import annotations

import os
import shutil
import stat

import pytest

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.files import Inputs, blocked, save_figure, write_text, writing
from support.paths import QRELS, STRONG, WEAK


def _inputs(tmp_path):
    for source in (QRELS, STRONG):
        shutil.copy(source, tmp_path)
    return tmp_path / "qrels.txt", tmp_path / "strong.run"


def test_every_spelling_of_an_input_is_refused(tmp_path, monkeypatch):
    qrels, run = _inputs(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.run").symlink_to(run)
    (tmp_path / "folder-link").symlink_to(tmp_path)
    os.link(run, tmp_path / "hard.run")
    monkeypatch.chdir(tmp_path / "sub")
    inputs = Inputs.of(["../strong.run", str(qrels), "muMAP", "ohsumed", None])
    for target in (run, "../strong.run", tmp_path / "sub" / ".." / "strong.run", tmp_path / "link.run",
                   tmp_path / "folder-link" / "strong.run", tmp_path / "hard.run", qrels):
        with pytest.raises(GradedInputError) as caught:
            inputs.refuse(target, f"writing {target}", "give another file")
        given = "../strong.run" if "qrels" not in str(target) else str(qrels)
        assert str(caught.value) == (f"writing {target} over the input {given}: give another file "
                                     "(inputs are never written)")
    inputs.refuse(tmp_path / "new.run", "writing", "x")  # neither an input nor existing: fine
    shutil.copy(WEAK, tmp_path / "copy.run")
    inputs.refuse(tmp_path / "copy.run", "writing", "x")  # another file: fine


def test_an_error_while_writing_leaves_the_previous_file_and_no_temporary_one(tmp_path):
    target = tmp_path / "results.tsv"
    target.write_text("previous\n")
    with pytest.raises(RuntimeError, match="rendering failed"):
        with writing(target) as stream:
            stream.write("half of the table\n" * 10_000)
            raise RuntimeError("rendering failed")
    assert target.read_text() == "previous\n"
    assert os.listdir(tmp_path) == ["results.tsv"]
    with pytest.raises(RuntimeError):
        with writing(tmp_path / "new.tsv") as stream:
            stream.write("part")
            raise RuntimeError("rendering failed")
    assert os.listdir(tmp_path) == ["results.tsv"]  # no file at all rather than a partial one


def test_the_folder_is_made_and_a_new_file_gets_the_usual_mode(tmp_path):
    path = write_text(tmp_path / "a" / "b" / "page.html", "é\n")
    assert path.read_bytes() == "é\n".encode()
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~umask  # not the 0600 of a temporary file
    os.chmod(path, 0o640)
    write_text(path, "again\n")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640 and path.read_text() == "again\n"


def test_a_symbolic_link_keeps_pointing_at_the_file_it_names(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    (tmp_path / "link.txt").symlink_to(real)
    write_text(tmp_path / "link.txt", "new\n")
    assert (tmp_path / "link.txt").is_symlink() and real.read_text() == "new\n"


def test_what_cannot_be_a_file_is_named(tmp_path):
    assert blocked(tmp_path) == f"{tmp_path} is a directory"
    assert blocked(os.path.join(QRELS, "x", "f.pdf")) == f"{QRELS} is not a folder"
    assert blocked(tmp_path / "new" / "f.pdf") is None
    assert blocked(tmp_path, folder=True) is None and blocked(tmp_path / "new" / "deeper", folder=True) is None
    assert blocked(QRELS, folder=True) == f"{QRELS} is not a folder"
    assert blocked(os.path.join(QRELS, "sub"), folder=True) == f"{QRELS} is not a folder"
    with pytest.raises(GradedInputError, match="is a directory"):
        write_text(tmp_path, "x")


def test_a_figure_is_saved_in_the_format_its_suffix_names(tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    figure = Figure()
    figure.add_subplot().plot([0, 1])
    for suffix, head in (("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")):
        assert save_figure(figure, tmp_path / f"f.{suffix}").read_bytes().startswith(head)
    assert sorted(os.listdir(tmp_path)) == ["f.pdf", "f.png", "f.svg"]
