"""The baseline is found by the file it names, however that file is spelled (issue 44, item 8):
``./runs/a.run``, its absolute path, ``runs/../runs/a.run`` or a link to it find the run given as
``runs/a.run``, at every entry point."""

from __future__ import annotations

import shutil

import pytest

from ir_measures_graded import experiment
from ir_measures_graded.errors import GradedInputError
from support.cli import run_main
from support.paths import QRELS, STRONG, WEAK


@pytest.fixture()
def runs_folder(tmp_path, monkeypatch):
    (tmp_path / "runs").mkdir()
    shutil.copy(STRONG, tmp_path / "runs" / "a.run")
    shutil.copy(WEAK, tmp_path / "runs" / "b.run")
    (tmp_path / "link.run").symlink_to(tmp_path / "runs" / "b.run")
    monkeypatch.chdir(tmp_path)
    return tmp_path


SPELLINGS = {
    "dot slash": lambda root: "./runs/a.run",
    "absolute": lambda root: str(root / "runs" / "a.run"),
    "parent folder": lambda root: "runs/../runs/a.run",
    "doubled slash": lambda root: "runs//a.run",
}


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_the_baseline_is_the_run_whose_file_it_names(runs_folder, spelling, capsys):
    key = SPELLINGS[spelling](runs_folder)
    exp = experiment(QRELS, ["runs/b.run", "runs/a.run"], "muMAP", baseline=key)
    assert exp.baseline == "a.run"
    assert exp.compare().baseline == "a.run"
    out, _ = run_main(capsys, QRELS, "runs/b.run", "runs/a.run", "muMAP", "--baseline", key, "-o", "jsonl")
    assert '"run": "a.run"' in out and '"delta": 0.0' in out.split('"run": "a.run"', 1)[1].split("\n", 1)[0]


def test_a_link_names_the_file_it_points_to_and_an_unrelated_file_no_run(runs_folder):
    assert experiment(QRELS, ["runs/a.run", "runs/b.run"], "muMAP", baseline="link.run").baseline == "b.run"
    other = runs_folder / "other.run"
    shutil.copy(STRONG, other)  # the same bytes in another file: not the same run
    with pytest.raises(GradedInputError, match=r"baseline '.*other\.run' is none of the runs \(a\.run, b\.run\)"):
        experiment(QRELS, ["runs/a.run", "runs/b.run"], "muMAP", baseline=str(other))
