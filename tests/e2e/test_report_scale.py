"""The report of 10,000 queries stays a small page (a scale test, on conftest's large_report, which the browser test opens too; split from tests/unit/reports/test_report.py)."""

from __future__ import annotations

from ir_measures_graded.reports import figures


def test_ten_thousand_queries_stay_a_small_page(large_report):
    """10,000 queries: a few hundred kB, the per-query plots binned."""
    report, path = large_report
    html = path.read_text(encoding="utf-8")
    assert report.queries == 10_000 and len(report.per_query) == 3 * 2 * 10_000
    assert len(html.encode()) < 2_000_000
    assert html.count("<circle") < 100  # the threshold curves' points; per query: bins, not points
    assert html.count('class="hover"') == 2 * 2 * figures.BINS  # two runs against the baseline, two measures
