"""The documentation site stays true and works.

- (The generated pages and what they claim: tests/contract/test_docs_generated.py.)
- Every example of every page runs and prints what the page shows (tests/support/doc_examples.py).
- ``mkdocs build --strict`` passes, and the built site, opened from the file system in Chromium,
  renders the measures page, finds a measure with its search offline, and has no broken internal link.
- Every page, at 1280 px, fits its main column (no element past it but inside a box that scrolls, every
  table narrower than its box) and shows no raw Sphinx reference (``~package.module.Name``); formulas are
  typeset by the vendored KaTeX without the network; the search ranks the measures page first for every
  measure's name and alias, and the comparing page first for its tests.
"""

from __future__ import annotations

import re
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
    context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
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


# --- the built site renders: width, references, formulas, search ---------------------------------------

#: Elements of the main column that run past its right edge, unless a box between them and the column
#: scrolls (or clips) them; code cut off at its box's edge (other than printed output); tables wider than
#: their box.
OVERFLOW = """() => {
  const column = document.querySelector('.md-content');
  const edge = column.getBoundingClientRect().right + 1;
  const scrolls = (el) => {
    for (let a = el.parentElement; a && a !== column; a = a.parentElement) {
      if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(a).overflowX)) return true;
    }
    return false;
  };
  const found = [];
  for (const el of column.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (box.width > 0 && box.right > edge && !scrolls(el)) {
      found.push(`${el.tagName.toLowerCase()} past the column: ${el.textContent.trim().slice(0, 60)}`);
    }
  }
  // Code wraps; only what a program prints (text blocks, the examples' `# -> ` lines) may scroll.
  for (const code of column.querySelectorAll('pre > code')) {
    if (code.scrollWidth <= code.clientWidth + 1 || code.closest('.language-text')) continue;
    const right = code.getBoundingClientRect().right + 1;
    const cut = [...code.querySelectorAll('span')].find(
      (s) => s.getBoundingClientRect().right > right && !s.closest('.output'));
    if (cut) found.push(`code cut off at the box's edge: ${cut.textContent.slice(0, 60)}`);
  }
  for (const table of column.querySelectorAll('table')) {
    if (table.scrollWidth > table.clientWidth + 1) {
      found.push(`table wider than its box: ${table.textContent.trim().slice(0, 60)}`);
    }
  }
  return found;
}"""

#: Sphinx's ``:class:`~package.module.Name``` left as text (mkdocstrings does not read Sphinx roles).
RAW_REFERENCE = r"~[A-Za-z_]\w*(?:\.\w+)+"


@pytest.fixture(scope="module")
def site_pages(site) -> list[str]:
    return sorted(path.name for path in site.glob("*.html") if path.name != "404.html")


def test_every_page_fits_the_main_column_at_1280_px_and_shows_no_raw_reference(opened, site_pages):
    open_page, outside, errors = opened
    problems = {}
    for name in site_pages:
        page = open_page(name)
        found = page.evaluate(OVERFLOW)
        text = page.locator("article").inner_text()
        found += [f"raw reference {ref}" for ref in re.findall(RAW_REFERENCE, text)]
        if found:
            problems[name] = found[:5]
        page.close()
    assert problems == {}
    assert outside == [] and errors == []


def test_the_overflow_check_sees_a_wide_table_and_a_raw_reference(opened):
    """The check can fail: a table made wider than the column, and a reference left raw, are both reported."""
    open_page, _, _ = opened
    page = open_page("index.html")
    page.evaluate("""() => { const p = document.createElement('p');
        p.innerHTML = '<table><tr><td style="white-space: nowrap">' + 'wide '.repeat(400) + '</td></tr></table>';
        p.append(' ~ir_measures_graded.experiments.Experiment');
        document.querySelector('article').append(p); }""")
    found = page.evaluate(OVERFLOW)
    assert any(f.startswith("table wider than its box") for f in found)
    assert re.findall(RAW_REFERENCE, page.locator("article").inner_text()) == [
        "~ir_measures_graded.experiments.Experiment"]


@pytest.mark.parametrize("name", ["measures", "definitions"])
def test_formulas_are_typeset_by_the_vendored_katex_offline(opened, name):
    open_page, outside, errors = opened
    page = open_page(f"{name}.html")
    page.wait_for_function("document.querySelectorAll('.arithmatex .katex').length > 0")
    counts = page.evaluate("""() => ({
        formulas: document.querySelectorAll('.arithmatex').length,
        typeset: document.querySelectorAll('.arithmatex .katex').length,
        displayed: document.querySelectorAll('.arithmatex .katex-display').length,
        failed: document.querySelectorAll('.katex-error').length,
        raw: document.querySelector('article').innerText.includes('\\\\frac'),
    })""")
    blocks = (DOCS / f"{name}.md").read_text(encoding="utf-8").count("\n$$\n") // 2
    assert counts["formulas"] == counts["typeset"] >= blocks > 0, counts
    assert counts["displayed"] == blocks and counts["failed"] == 0 and not counts["raw"], counts
    assert page.evaluate("() => document.fonts.ready.then(() => document.fonts.check('16px KaTeX_Main'))")
    assert outside == [] and errors == []


def search(page, query: str) -> list[str]:
    """The pages the site's search lists for ``query``, in its order (one entry per page)."""
    box = page.locator("input.md-search__input")
    box.fill("")
    box.type(query, delay=20)  # typed: the search listens to key events
    page.wait_for_function(
        "q => document.querySelector('.md-search-result__meta').textContent.trim() !== '' && "
        "document.querySelector('input.md-search__input').value === q", arg=query)
    links = "links => links.map(a => a.getAttribute('href'))"
    hrefs, before = None, []
    for _ in range(50):  # the search answers from a worker: read the results until they stop changing
        page.wait_for_timeout(200)
        hrefs, before = page.eval_on_selector_all(".md-search-result__item > a", links), hrefs
        if hrefs == before and hrefs:
            break
    return list(dict.fromkeys(urlsplit(h).path.rsplit("/", 1)[-1] for h in hrefs))


def test_search_ranks_the_measures_page_first_for_every_name_and_alias(opened):
    from ir_measures.measures import registry

    open_page, outside, errors = opened
    page = open_page("index.html")
    page.wait_for_function("document.querySelector('.md-search__output') !== null")
    page.keyboard.press("s")  # mkdocs-material's shortcut: opens the search
    names = [name for name, measure in registry.items() if measure in MEASURES.values()]
    assert {"muMAP", "muAP", "NDCNG", "μMAP"} <= set(names)
    ranked = {name: search(page, name)[:3] for name in names}
    assert {name: top for name, top in ranked.items() if top[:1] != ["measures.html"]} == {}
    assert search(page, "randomization test")[0] == "comparing.html"
    assert outside == [] and errors == []


def test_the_api_page_documents_each_object_once(site):
    """scale_dependence (and the meta package's other functions) were documented twice: under the package
    and under their module."""
    import pkgutil

    seen: dict[int, str] = {}
    twice = []
    for anchor in sorted(parsed(site / "api.html").ids):
        if not anchor.startswith("ir_measures_graded."):
            continue
        try:
            found = pkgutil.resolve_name(anchor)
        except (ImportError, AttributeError, ValueError):
            continue
        if not callable(found) or isinstance(found, type(pkgutil)):
            continue
        if id(found) in seen:
            twice.append((seen[id(found)], anchor))
        seen.setdefault(id(found), anchor)
    assert twice == []
    assert any(anchor.endswith(".scale_dependence") for anchor in seen.values())
