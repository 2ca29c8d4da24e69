"""``ir-measures-graded pool`` (#51 item 4): the API's pool, as the file or on standard output; bad input in one line."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from ir_measures_graded.pooling import build_pool
from support.cli import error_of, run_main
from support.paths import SAMPLE

RUNS = [str(SAMPLE / f"{name}.run") for name in ("strong", "weak", "random")]


def test_the_command_writes_the_api_pool(capsys, tmp_path):
    run_main(capsys, "pool", *RUNS, "--strategy", "rbp", "--budget", "7", "--output", str(tmp_path / "pool.tsv"))
    assert (tmp_path / "pool.tsv").read_text() == build_pool(RUNS, "rbp", budget=7).text()
    out, _ = run_main(capsys, "pool", *RUNS, "--depth", "3", "--names", "s", "w", "r")
    table = pd.read_csv(io.StringIO(out), sep="\t", dtype={"topic": str})
    assert set(",".join(table["runs"]).split(",")) == {"s", "w", "r"}
    assert len(table) == len(build_pool(RUNS, "depth", depth=3))


def test_the_adaptive_strategies_take_the_judgments(capsys):
    out, _ = run_main(capsys, "pool", *RUNS, "--strategy", "mtf", "--judgments", str(SAMPLE / "qrels.txt"),
                      "--total", "45", "--seed", "2")
    assert out == build_pool(RUNS, "mtf", judgments=SAMPLE / "qrels.txt", total=45, seed=2).text()


@pytest.mark.parametrize(("args", "message"), [
    (["--budget", "0"], "the budget must be a whole number of at least 1; got 0"),
    (["--strategy", "bandit"], "the bandit strategy judges as it goes"),
    (["--names", "a"], "--names gives 1 name(s) for 3 run(s)"),
    (["--output", RUNS[0]], "would write the pool over the input"),
])
def test_bad_input_is_one_line(capsys, args, message):
    assert message in error_of(capsys, "pool", *RUNS, *args)


def test_a_missing_run_is_one_line(capsys):
    assert "run file not found: nothing.run" in error_of(capsys, "pool", "nothing.run")
