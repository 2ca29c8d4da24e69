"""The report's section of two judges: shown when a second qrels is given, its numbers agree()'s."""

from __future__ import annotations

import pytest

from ir_measures_graded.experiments import experiment
from ir_measures_graded.experiments.formats import number
from ir_measures_graded.experiments.testing import Testing
from ir_measures_graded.judges import agree
from ir_measures_graded.reports import report
from support.judges import write_collection

pytest.importorskip("jinja2")


def test_the_section_shows_agrees_numbers(tmp_path):
    qa, qb, runs, _, _ = write_collection(tmp_path, runs=3, topics=6)
    exp = experiment(qa, runs, ["muMAP", "nDCG@10"])
    plain = report(exp, transforms=[]).html()
    assert 'id="judges"' not in plain
    found = agree(exp, qb, testing=Testing(test="t"))
    page = report(exp, transforms=[], judge_b=found).html()
    assert 'id="judges"' in page and 'href="#judges"' in page
    overall = found.labels.summary.table.iloc[0]
    for column in ("kappa", "kappa_quadratic", "alpha_ordinal", "alpha_interval"):
        assert f">{number(overall[column], 4)}<" in page
    for row in found.systems.table.itertuples():
        assert f">{number(row.tau, 4)}<" in page and f">{row.best_b}<" in page
    by_path = report(exp, transforms=[], judge_b=qb).judges  # read from its path, tested as the leaderboard
    assert by_path.systems.table["tau"].tolist() == pytest.approx(found.systems.table["tau"].tolist())
    with pytest.raises(Exception, match="would write the page over the input"):
        report(exp, transforms=[], judge_b=qb).save(qb)
