"""The report's leaderboard section (#43) opened in headless Chromium (as tests/e2e/test_report_browser.py):
no console error, no request leaves the page, the rows, values and letters are the library's leaderboard,
and the shaded group columns are its letters of the sort measure."""

from __future__ import annotations

import pytest

import ir_measures_graded as img
from ir_measures_graded.experiments.testing import Testing as Options  # pytest would collect a "Test..." name
from ir_measures_graded.sample import shared_task

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def opened(browser, tmp_path_factory):
    from e2e.test_report_browser import Opened

    qrels, runs = shared_task(n_runs=8, n_queries=20)
    exp = img.experiment(qrels, runs, ["nDCNG@10", "AP"])
    report = img.report(exp, leaderboard=True, transforms=[], testing=img.Testing(permutations=2000))
    page = Opened(browser, report.save(tmp_path_factory.mktemp("leaderboard") / "report.html"))
    yield page, img.leaderboard(exp, testing=Options(test="randomized_tukey", permutations=2000))
    page.close()


def test_the_leaderboard_section_is_the_library_leaderboard(opened):
    page, board = opened
    assert page.errors == [] and page.requests == []
    rows = page.page.locator("#leaderboard-table tbody tr")
    assert rows.count() == len(board.runs)
    table = board.table.set_index(["run", "measure"])
    for i, run in enumerate(board.runs):
        row = rows.nth(i)
        assert row.get_attribute("data-run") == run
        cells = row.locator("td.num")
        assert cells.nth(0).inner_text() == str(table.loc[(run, board.by), "rank"])
        for j, measure in enumerate(board.measures, start=1):
            value = float(cells.nth(j).get_attribute("data-value"))
            assert value == table.loc[(run, measure), "value"]
            assert cells.nth(j).inner_text() == f"{value:.4f}{table.loc[(run, measure), 'group']}"
        held = row.locator("td.letter")
        letters = page.page.locator("#leaderboard-table th.letter").all_inner_texts()
        shaded = [letters[k] for k in range(held.count()) if "held" in held.nth(k).get_attribute("class")]
        assert "".join(shaded) == table.loc[(run, board.by), "group"]
        # shading is drawn: a held cell has a background, an empty one none
        if shaded:
            colour = held.nth(letters.index(shaded[0])).evaluate("e => getComputedStyle(e).backgroundColor")
            assert colour not in ("rgba(0, 0, 0, 0)", "transparent")
    assert page.page.locator("nav a[href='#leaderboard']").count() == 1


def test_no_section_unless_asked(browser, tmp_path):
    from e2e.test_report_browser import Opened

    qrels, runs = shared_task(n_runs=3, n_queries=5)
    report = img.report(img.experiment(qrels, runs, ["AP"]), transforms=[])
    page = Opened(browser, report.save(tmp_path / "report.html"))
    try:
        assert page.page.locator("#leaderboard").count() == 0 and page.errors == []
    finally:
        page.close()


def test_a_run_with_no_judged_document_is_a_visible_line_and_no_worst_query(browser, tmp_path):
    """#51: a run of passage ids against document qrels is said on the page, where one reads it, and fills
    no "worst queries" list."""
    from e2e.test_report_browser import Opened

    qrels, runs = shared_task(n_runs=4, n_queries=8)
    runs["passages"] = runs["team1-1"].assign(doc_id=runs["team1-1"]["doc_id"] + "#p1")
    exp = img.experiment(qrels, runs, ["nDCNG@10"], warn=lambda message: None)
    report = img.report(exp, leaderboard=True, transforms=[], testing=img.Testing(permutations=500))
    page = Opened(browser, report.save(tmp_path / "report.html"))
    try:
        assert page.errors == [] and page.requests == []
        said = page.page.get_by_text("No judged document: passages").first
        assert said.is_visible()
        worst = page.page.locator(".worst tbody tr td:first-child").all_inner_texts()
        assert worst and "passages" not in worst
    finally:
        page.close()
