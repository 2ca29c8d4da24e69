"""One definition per number (#50): the runs × queries matrix in one query order, whatever the order of
the qrels file's lines, so that every seeded resampling (bootstrap intervals, randomization tests, the
randomised Tukey HSD, the random halves of the stability check) draws the same queries."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_measures_graded import statistics
from ir_measures_graded.experiments.comparison import matrix, wide
from support.cli import run_main
from support.examples import examples
from support.paths import QRELS, RANDOM, STRONG, WEAK


def _reversed_qrels(tmp_path: Path) -> str:
    lines = Path(QRELS).read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "reversed.txt"
    path.write_text("".join(reversed(lines)), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("command", [
    ["judge", "--permutations", "500", "--samples", "50", "-m", "muMAP", "nDCNG@10", "nDCG@10"],
    # at alpha 0.23 the weak and random runs share a letter or not as their p-value (0.224 or 0.234 before #50)
    ["leaderboard", "--permutations", "200", "-m", "nDCG@10", "P@5", "--alpha", "0.23"],
])
def test_judge_and_leaderboard_do_not_depend_on_the_order_of_the_qrels_lines(capsys, tmp_path, command):
    name, *options = command
    given, _ = run_main(capsys, name, QRELS, WEAK, STRONG, RANDOM, *options, "--quiet")
    turned, _ = run_main(capsys, name, _reversed_qrels(tmp_path), WEAK, STRONG, RANDOM, *options, "--quiet")
    assert turned == given


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.sampled_from(["q1", "q10", "q2", "a", "Q3", "7"]), min_size=1, max_size=6, unique=True),
       st.randoms(use_true_random=False))
def test_the_matrix_does_not_depend_on_the_order_of_the_rows(queries, random):
    rows = [(run, q, "m", float(k * 10 + i)) for k, run in enumerate(["b", "a"]) for i, q in enumerate(queries)]
    table = pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])
    shuffled = table.sample(frac=1, random_state=random.randrange(2**31)).reset_index(drop=True)
    assert list(wide(table, "m").columns) == sorted(queries)
    assert np.array_equal(matrix(table, "m", ["b", "a"]), matrix(shuffled, "m", ["b", "a"]))


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(st.integers(0, 6), min_size=2, max_size=8), st.lists(st.integers(0, 6), min_size=2, max_size=8))
def test_one_count_of_swaps_agrees_with_kendalls_tau(a, b):
    """Swaps are counted once (statistics.swaps: the agreement between measures and the stability's swap
    rate); without ties, tau = 1 - 4 swaps / (n (n - 1)), and each swap is a pair the two order oppositely."""
    n = min(len(a), len(b))
    x, y = np.array(a[:n], float), np.array(b[:n], float)
    found = statistics.swaps(x, y)[0]
    i, j = np.triu_indices(n, k=1)
    assert found.tolist() == ((x[i] - x[j]) * (y[i] - y[j]) < 0).tolist()
    if len(set(a[:n])) == n and len(set(b[:n])) == n:
        assert statistics.kendall_tau(x, y) == pytest.approx(1 - 4 * found.sum() / (n * (n - 1)))
