"""``ir-measures-graded leaderboard`` (#43): the organiser's tables on the command line are the library's,
bad input one line."""

from __future__ import annotations

import io

import pandas as pd
import pytest

import ir_measures_graded as img
from ir_measures_graded.cli.leaderboard import DEFAULT_SECTIONS, SECTIONS
from ir_measures_graded.experiments.testing import TESTS
from ir_measures_graded.experiments.testing import Testing as Options  # pytest would collect a "Test..." name
from ir_measures_graded.sample import data_path
from support.cli import error_of, run_main

SAMPLE = data_path("graded_sample")
QRELS = str(SAMPLE / "qrels.txt")
RUNS = [str(SAMPLE / f"{name}.run") for name in ("strong", "weak", "random")]


@pytest.fixture(scope="module")
def exp():
    return img.experiment(QRELS, RUNS, ["nDCNG@10", "AP"])


def test_the_default_sections_are_the_library_tables(capsys, exp):
    out, _ = run_main(capsys, "leaderboard", QRELS, *RUNS, "-m", "nDCNG@10", "AP", "--permutations", "500",
                      "--pool-depth", "10")
    board = img.leaderboard(exp, testing=Options(test="randomized_tukey", permutations=500))
    expected = "\n".join([board.to_text(), img.agreement(exp, board=board).to_text(), img.pool(exp, depth=10).to_text()])
    assert out == expected
    assert DEFAULT_SECTIONS == ("leaderboard", "agreement", "pool")


@pytest.mark.parametrize("section", SECTIONS)
def test_each_section_as_a_tidy_table(capsys, exp, section):
    out, _ = run_main(capsys, "leaderboard", QRELS, *RUNS, "-m", "nDCNG@10", "AP", "--sections", section,
                      "-o", "tsv", "--permutations", "200", "--groups", "n")
    table = pd.read_csv(io.StringIO(out), sep="\t")
    made = {"leaderboard": lambda: img.leaderboard(exp, testing=Options(test="randomized_tukey", permutations=200)), "topics": lambda: img.topics(exp),
            "agreement": lambda: img.agreement(exp, testing=Options(test="randomized_tukey", permutations=200)), "bounds": lambda: img.bounds(exp),
            "pool": lambda: img.pool(exp, groups="n")}[section]().table
    assert list(table.columns) == list(made.columns) and len(table) == len(made)


def test_groups_from_a_file_and_bad_input_in_one_line(capsys, tmp_path):
    groups = tmp_path / "groups.txt"
    groups.write_text("strong.run good\nweak.run good\n")
    out, _ = run_main(capsys, "leaderboard", QRELS, *RUNS, "-m", "AP", "--sections", "pool", "--groups", str(groups),
                      "--pool-depth", "5")
    assert "Leave-one-group-out" in out and "good" in out
    groups.write_text("strong.run\n")
    assert "line 1: expected 'RUN GROUP'" in error_of(capsys, "leaderboard", QRELS, *RUNS, "-m", "AP", "--sections",
                                                      "pool", "--groups", str(groups))
    groups.write_text("nobody.run x\n")
    assert "groups name runs the experiment does not have: nobody.run" in error_of(
        capsys, "leaderboard", QRELS, *RUNS, "-m", "AP", "--sections", "pool", "--groups", str(groups))
    assert "pool depth 60 is deeper than some runs" in error_of(capsys, "leaderboard", QRELS, *RUNS, "-m", "AP",
                                                               "--sections", "pool", "--pool-depth", "60")
    assert "at least two runs" in error_of(capsys, "leaderboard", QRELS, RUNS[0], "-m", "AP")
    assert "cannot bound Judged@10" in error_of(capsys, "leaderboard", QRELS, *RUNS, "-m", "AP", "Judged@10",
                                                "--sections", "bounds")
    assert "one table per stream" in error_of(capsys, "leaderboard", QRELS, *RUNS, "-m", "AP", "-o", "csv")


def test_the_tests_offered_are_the_library_ones():
    from ir_measures_graded.cli.args import PAIRS_TESTS

    assert set(PAIRS_TESTS) == set(TESTS)




def test_the_figure_is_drawn_where_asked(capsys, tmp_path):
    figure = tmp_path / "board.svg"
    run_main(capsys, "leaderboard", QRELS, *RUNS, "-m", "AP", "--sections", "leaderboard", "--permutations", "100",
             "--plot", str(figure))
    assert figure.read_text().startswith("<?xml")
    assert "is a directory" in error_of(capsys, "leaderboard", QRELS, *RUNS, "-m", "AP", "--permutations", "100",
                                       "--plot", str(tmp_path))


def test_one_measure_has_no_agreement_unless_asked(capsys):
    out, _ = run_main(capsys, "leaderboard", QRELS, *RUNS, "-m", "AP", "--permutations", "100")
    assert "Leaderboard" in out and "Leave-one-run-out" in out and "Agreement" not in out
    assert "at least two measures" in error_of(capsys, "leaderboard", QRELS, *RUNS, "-m", "AP", "--sections",
                                               "agreement")


# --- issue 50: -p in every format, the organiser's LaTeX included ------------------------------------

@pytest.mark.parametrize("places", [2, 0, 6])
@pytest.mark.parametrize("fmt", ["latex", "text", "markdown"])
def test_places_hold_in_every_section_and_format(capsys, fmt, places):
    """Every number of every section (cells and notes) with ``-p`` decimals: the LaTeX tables printed
    17 digits and the pool's note 4, whatever ``-p`` said."""
    import re

    out, _ = run_main(capsys, "leaderboard", QRELS, *RUNS, "-m", "nDCNG@10", "AP", "-o", fmt, "-p", str(places),
                      "--permutations", "200", "--sections", *SECTIONS)
    decimals = {len(d) for d in re.findall(r"(?<![\w.])-?\d+\.(\d+)(?![\w.])", out)}
    decimals -= {2} if places != 2 else set()  # "alpha = 0.05" in the legends: a setting, not a value
    assert decimals <= {places} and (places == 0 or decimals), (decimals, out)
    assert "largest drop" in out


def test_a_view_renders_its_numbers_with_the_places_given(exp):
    pool = img.pool(exp, depth=10)
    for render in (pool.to_latex, pool.to_text, pool.to_markdown):
        assert "0.4543" not in render(2)
    assert f"largest drop {pool.reusability['largest_drop'].iloc[0]:.2f} " in pool.to_latex(2)
