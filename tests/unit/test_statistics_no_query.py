"""A test made on 0 queries (empty qrels, issue 44 item 11) is not made, whichever test: NaN p-values,
intervals and effect size, and no numpy warning; the command line says so in its one warning line."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ir_measures_graded import statistics
from support.cli import run_main
from support.paths import STRONG, WEAK


@pytest.mark.parametrize("test", statistics.PAIRED_TESTS)
@pytest.mark.parametrize("alternative", statistics.ALTERNATIVES)
def test_every_paired_test_on_no_query_is_not_made(test, alternative):
    none = np.empty((2, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = statistics.paired_test(test, none, none, alternative, permutations=100)
        d = statistics.differences(none, none)
        assert np.isnan(statistics.t_interval(d)).all() and np.isnan(statistics.bootstrap_interval(d)).all()
        assert np.isnan(statistics.effect_size(d)).all()
    assert p.shape == (2,) and np.isnan(p).all()
    assert statistics.win_tie_loss(none, none).tolist() == [[0, 0, 0], [0, 0, 0]]


@pytest.mark.parametrize("test", statistics.PAIRED_TESTS)
def test_empty_qrels_with_a_baseline_give_one_warning_line_and_no_p_value(tmp_path, capsys, test):
    import csv
    import io

    empty = tmp_path / "qrels.txt"
    empty.write_text("")
    out, err = run_main(capsys, str(empty), STRONG, WEAK, "muMAP", "nDCG@10", "--baseline", "weak.run", "--test",
                        test, "-o", "csv")
    assert len(err.splitlines()) == 1 and "hold no judgments" in err, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["p_value"] for r in rows] == [""] * 4 and [r["ci_low"] for r in rows] == [""] * 4
