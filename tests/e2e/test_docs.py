"""The documentation site stays true and works.

- (The generated pages and what they claim: tests/contract/test_docs_generated.py.)
- Every example of every page runs and prints what the page shows (tests/support/doc_examples.py).
- ``mkdocs build --strict`` passes, and the built site, opened from the file system in Chromium,
  renders the measures page, finds a measure with its search offline, and has no broken internal link.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import ir_measures_graded  # noqa: F401 - registers the measures
from ir_measures_graded.measures import MEASURES
from support.doc_examples import (
    BIN,
    DOCS,
    PAGES,
    ROOT,
    bash_commands,
    check_command,
    check_transcript,
    code_blocks,
    run_python_block,
    sample_folder,
    transcripts,
)

# --- every example runs ------------------------------------------------------------------------------------

BLOCKS = [(page.name, i) for page in PAGES for i in range(len(code_blocks(page.read_text(encoding="utf-8"), "python")))]


@pytest.mark.parametrize("page, index", BLOCKS)
def test_every_python_block_runs_and_prints_what_the_page_shows(page, index, home):
    run_python_block(code_blocks((DOCS / page).read_text(encoding="utf-8"), "python")[index], f"docs/{page}", home)


@pytest.mark.parametrize("page", [p.name for p in PAGES if bash_commands(p.read_text(encoding="utf-8"))])
def test_every_shell_command_runs_or_is_checked(page, tmp_path):
    for command in bash_commands((DOCS / page).read_text(encoding="utf-8")):
        check_command(command, sample_folder(tmp_path))


def test_contributing_commands_are_checked(tmp_path):
    for command in bash_commands((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")):
        check_command(command, sample_folder(tmp_path))


@pytest.mark.parametrize("page", [p.name for p in PAGES if transcripts(p.read_text(encoding="utf-8"))])
def test_command_line_transcripts_print_what_the_page_shows(page):
    for block in transcripts((DOCS / page).read_text(encoding="utf-8")):
        if "--engine spark" in block:  # needs a Spark session: tests/e2e/test_spark.py runs this one
            assert page == "spark.md"
            continue
        check_transcript(block)


# --- the built site ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """``mkdocs build --strict`` of this checkout, into a temporary folder."""
    folder = tmp_path_factory.mktemp("site")
    mkdocs = shutil.which("mkdocs", path=str(BIN))
    assert mkdocs, "mkdocs is not installed: the 'test' extra installs it (and the 'docs' extra)"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr
    return folder


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for key in ("href", "src"):
            if attrs.get(key):
                self.links.append(attrs[key])


def parsed(path: Path) -> Links:
    links = Links()
    links.feed(path.read_text(encoding="utf-8"))
    return links


def test_site_builds_strictly_with_every_page(site):
    for page in PAGES:
        assert (site / page.with_suffix(".html").name).is_file(), page.name
    assert (site / "report.png").is_file()


def test_no_broken_internal_link(site):
    # 404.html links from the server's root (it is served for any missing path), so it is left out.
    pages = {path: parsed(path) for path in site.rglob("*.html") if path.name != "404.html"}
    broken = []
    for path, links in pages.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith(("//", "mailto:")):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.name}: {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else parsed(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{path.name}: {link} (no such anchor)")
    assert broken == []


@pytest.fixture()
def opened(browser, site):
    """A page of the site opened from the file system, offline: requests outside the site are refused and recorded."""
    context = browser.new_context(offline=True)
    outside: list[str] = []
    errors: list[str] = []

    def route(request_route):
        url = request_route.request.url
        if url.startswith(site.resolve().as_uri()):
            request_route.continue_()
        else:
            outside.append(url)
            request_route.abort()

    context.route("**/*", route)

    def open_page(name: str):
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((site / name).resolve().as_uri(), wait_until="load")
        return page

    yield open_page, outside, errors
    context.close()


def test_measures_page_renders_in_chromium(opened):
    open_page, outside, errors = opened
    page = open_page("measures.html")
    headings = page.locator("article h2").all_inner_texts()
    assert [h.strip("¶ \n") for h in headings] == list(MEASURES)
    assert page.locator("article table").count() >= len(MEASURES) + 1
    assert page.locator("article pre code").count() >= len(MEASURES)  # the examples (and formulas)
    assert outside == [] and errors == []


def test_search_works_offline(opened):
    open_page, outside, errors = opened
    page = open_page("index.html")
    page.wait_for_function("document.querySelector('.md-search__output') !== null")
    page.keyboard.press("s")  # mkdocs-material's shortcut: opens the search
    page.keyboard.type("NDCNG", delay=30)  # typed: the search listens to key events
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=20_000)
    texts = " ".join(results.all_inner_texts())
    assert "NDCNG" in texts or "nDCNG" in texts
    hrefs = [results.nth(i).locator("a").first.get_attribute("href") for i in range(results.count())]
    assert any("measures.html" in href for href in hrefs)
    assert outside == [] and errors == []
