"""The report opened in a real browser: Debian's Chromium, headless, driven by Playwright, network disabled.

Checks: no console error, no request leaves the page, the summary table's numbers are
``ir_measures.calc_aggregate``'s, sorting by a column works, every figure is drawn with its series,
the page prints, and a screenshot is taken. Skipped (with the reason) only when Chromium or
Playwright is not installed; ``.ci/run`` installs both.
"""

from __future__ import annotations

from pathlib import Path

import ir_measures
import pytest

import ir_measures_graded
from ir_measures_graded.sample import GRADED_SAMPLE_RUNS, graded_sample
from support.paths import SAMPLE

MEASURES = ["muMAP", "nDCNG@10", "nDCG@10", "GAP"]
pytestmark = pytest.mark.slow  # see pyproject.toml: the everyday subset is -m 'not slow'



class Opened:
    """A page opened from its file in an offline context, every request routed: the file itself is served,
    anything else refused; requests other than the page's own, console errors and warnings and uncaught
    exceptions are recorded."""

    def __init__(self, browser, path: Path, width: int = 1366):
        self.context = browser.new_context(viewport={"width": width, "height": 900}, offline=True)
        self.url = path.resolve().as_uri()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: None if r.url == self.url else self.requests.append(r.url))
        self.page.goto(self.url, wait_until="load")

    def _route(self, route):  # the page's own file is served; every other request fails (and is recorded)
        if route.request.url == self.url:
            route.continue_()
        else:
            route.abort()

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def sample_page(browser, tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    runs = {name: SAMPLE / f"{name}.run" for name in GRADED_SAMPLE_RUNS}
    report = ir_measures_graded.report(ir_measures_graded.experiment(SAMPLE / "qrels.txt", runs, MEASURES), baseline="weak")
    opened = Opened(browser, report.save(folder / "report.html"))
    yield opened
    opened.close()


def test_no_console_error_and_no_request_leaves_the_page(sample_page):
    sample_page.page.wait_for_timeout(300)  # anything late (a font, a beacon) would show up here
    assert sample_page.errors == []
    assert sample_page.requests == []


def test_the_offline_check_would_see_a_request(browser, tmp_path):
    """The recording works: a page that loads an image from the network is caught."""
    page = tmp_path / "leaky.html"
    page.write_text('<!DOCTYPE html><html><body><img src="https://example.org/x.png"></body></html>')
    opened = Opened(browser, page)
    opened.page.wait_for_timeout(200)
    assert opened.requests == ["https://example.org/x.png"]
    opened.close()


def summary_values(page) -> dict[tuple[str, str], tuple[float, str]]:
    cells = page.eval_on_selector_all(
        "#summary-table tbody td.value",
        "cells => cells.map(c => [c.closest('tr').dataset.run, c.dataset.measure, c.dataset.value, c.innerText])")
    return {(run, measure): (float(value), text) for run, measure, value, text in cells}


def test_summary_numbers_equal_calc_aggregate(sample_page):
    qrels, runs = graded_sample()
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    shown = summary_values(sample_page.page)
    assert len(shown) == len(runs) * len(measures)
    for name, run in runs.items():
        values = ir_measures.calc_aggregate(measures, qrels, run)
        for label, measure in zip(MEASURES, measures, strict=True):  # each measure named as given
            assert shown[name, label] == (values[measure], f"{values[measure]:.4f}")
    assert sample_page.page.inner_text("#summary-table tr.baseline th").startswith("weak")


def row_order(page) -> list[str]:
    return page.eval_on_selector_all("#summary-table tbody tr", "rows => rows.map(r => r.dataset.run)")


def test_sorting_by_a_column(sample_page):
    page = sample_page.page
    values = summary_values(page)
    for measure in ("nDCG@10", "GAP"):
        header = f'#summary-table th[data-measure="{measure}"][data-kind="value"]'
        by_value = sorted((v for (r, m), (v, _) in values.items() if m == measure), reverse=True)
        page.click(f"{header} button")
        assert [values[r, measure][0] for r in row_order(page)] == by_value
        assert page.get_attribute(header, "aria-sort") == "descending"
        page.click(f"{header} button")
        assert [values[r, measure][0] for r in row_order(page)] == by_value[::-1]
        assert page.get_attribute(header, "aria-sort") == "ascending"
    page.click('#summary-table th[data-kind="wtl"][data-measure="muMAP"] button')  # wins - losses, baseline 0
    assert row_order(page) == ["strong", "weak", "random"]
    page.click('#summary-table th[data-col="0"] button')
    assert row_order(page) == ["random", "strong", "weak"]


def test_every_figure_is_drawn_with_its_series(sample_page):
    page = sample_page.page
    figures = page.query_selector_all("figure.figure")
    kinds = [f.get_attribute("data-kind") for f in figures]
    assert kinds == ["thresholds"] * 2 + ["queries"] * len(MEASURES)
    for figure in figures:
        expected = int(figure.get_attribute("data-series-expected"))
        assert expected == (3 if figure.get_attribute("data-kind") == "thresholds" else 2)
        chart = figure.query_selector("svg.chart")
        box = chart.bounding_box()
        assert box["width"] > 300 and box["height"] > 150
        series = chart.query_selector_all("g.series")
        assert len(series) == expected
        for group in series:  # each series is drawn: a visible line with points inside the plot
            line = group.query_selector("polyline")
            assert line is not None and line.bounding_box()["width"] > 50
            assert len(group.query_selector_all("circle")) == int(group.get_attribute("data-points")) > 0
    titles = page.eval_on_selector_all('figure[data-kind="queries"] circle title', "ts => ts.map(t => t.textContent)")
    assert len(titles) == 2 * 30 * len(MEASURES) and all(" vs weak " in t for t in titles)


def test_the_page_prints_and_a_screenshot_is_taken(sample_page, tmp_path):
    page = sample_page.page
    page.emulate_media(media="print")
    page.set_viewport_size({"width": 718, "height": 1000})  # A4's width inside the page's 12 mm margins
    fits = page.evaluate("[document.querySelector('#summary-table').getBoundingClientRect().right, "
                         "document.documentElement.clientWidth]")
    assert fits[0] <= fits[1]  # the summary of four measures is printed whole, not cut at the edge
    pdf = page.pdf(format="A4", print_background=True)
    assert pdf.startswith(b"%PDF") and len(pdf) > 20_000
    page.emulate_media(media="screen")
    page.set_viewport_size({"width": 1366, "height": 900})
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 50_000


def test_ten_thousand_queries_open_and_draw_binned(browser, large_report):
    _, path = large_report
    opened = Opened(browser, path)
    page = opened.page
    assert opened.errors == [] and opened.requests == []
    for figure in page.query_selector_all('figure[data-kind="queries"]'):
        series = figure.query_selector_all("g.series")
        assert len(series) == 2
        for group in series:  # drawn as bins: a band and a line across the plot, a hover target per bin
            assert group.query_selector("polygon.band").bounding_box()["width"] > 300
            assert group.query_selector("polyline").bounding_box()["width"] > 300
            assert int(group.get_attribute("data-bins")) == len(group.query_selector_all("rect.hover")) == 200
    assert page.evaluate("document.getElementsByTagName('*').length") < 10_000
    opened.close()


def test_the_notebook_display_renders_in_its_frame(browser, tmp_path):
    """``_repr_html_`` (what Jupyter shows): the page in an iframe, its script running there."""
    qrels, runs = graded_sample()
    report = ir_measures_graded.report(ir_measures_graded.experiment(qrels, runs, ["muMAP", "nDCG@10"]), baseline="weak",
                                       transforms=[])
    notebook = tmp_path / "notebook.html"
    notebook.write_text(f"<!DOCTYPE html><html><body><h1>a notebook</h1>{report._repr_html_()}</body></html>",
                        encoding="utf-8")
    opened = Opened(browser, notebook)
    frame = opened.page.frame_locator("iframe")
    frame.locator('#summary-table th[data-measure="muMAP"][data-kind="value"] button').click()
    order = frame.locator("#summary-table tbody tr").evaluate_all("rows => rows.map(r => r.dataset.run)")
    assert order == ["strong", "weak", "random"]
    assert frame.locator("svg.chart g.series").count() == 2 * 3 + 2 * 2
    assert opened.errors == [] and opened.requests == []
    opened.close()


def test_six_measures_at_1400_px_the_summary_uses_the_window_and_keeps_the_runs_in_view(browser, tmp_path):
    """Issue #45: at 1400 px the summary of six measures was cut to a 1200 px box, two measures out of view.
    The box now takes the window's width, scrolls sideways inside itself (the page does not), and the run
    column stays in view when it is scrolled to its last measure."""
    measures = [*MEASURES, "P@5", "gERR@10"]
    report = ir_measures_graded.report(ir_measures_graded.experiment(*graded_sample(), measures), baseline="weak",
                                       transforms=[])
    opened = Opened(browser, report.save(tmp_path / "report.html"), width=1400)
    try:
        page = opened.page
        box = page.evaluate("""() => { const s = document.querySelector('#summary-table').parentElement;
            return {width: s.clientWidth, scroll: getComputedStyle(s).overflowX,
                    page: document.documentElement.scrollWidth, window: innerWidth}; }""")
        assert box["width"] >= 1300 and box["scroll"] == "auto" and box["page"] <= box["window"], box
        page.evaluate("() => { const s = document.querySelector('#summary-table').parentElement; "
                      "s.scrollLeft = s.scrollWidth; }")
        edges = page.evaluate("""() => { const s = document.querySelector('#summary-table').parentElement;
            const run = document.querySelector('#summary-table tbody th[scope=row]').getBoundingClientRect();
            return {run: run.left, box: s.getBoundingClientRect().left}; }""")
        assert abs(edges["run"] - edges["box"]) < 2, edges  # sticky: still at the box's left edge
    finally:
        opened.close()


def test_every_n_a_of_the_scale_check_is_explained_in_visible_text(browser, tmp_path):
    """n/a cells were explained only in their hover title; the reason is now printed under the table."""
    report = ir_measures_graded.report(ir_measures_graded.experiment(*graded_sample(), ["muMAP", "nDCG@10", "P@5"]),
                                       baseline="weak", transforms=["scale:2", "real"])
    opened = Opened(browser, report.save(tmp_path / "report.html"))
    try:
        page = opened.page
        na = report.scale[report.scale["kendall_tau"].isna()]
        assert len(na) == 2 and page.locator("#scale-table td.na").count() == 2
        notes = page.locator("#scale .na-notes li").all_inner_texts()
        for row in na.itertuples():
            assert any(f"n/a under {row.transform} for" in n and row.measure in n and
                       row.note.replace("n/a: ", "") in n for n in notes), (row, notes)
        assert page.locator("#scale .na-notes").is_visible()
    finally:
        opened.close()
