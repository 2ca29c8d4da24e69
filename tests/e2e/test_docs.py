"""The documentation site stays true and works.

- The generated pages (docs/measures.md, docs/command-line-options.md) are what docs/hooks.py makes
  from the registry and the parsers, and the claims they make about binary labels hold.
- Every example of every page runs and prints what the page shows (tests/support/doc_examples.py).
- ``mkdocs build --strict`` passes, and the built site, opened from the file system in Chromium,
  renders the measures page, finds a measure with its search offline, and has no broken internal link.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import ir_measures
import pytest

import ir_measures_graded  # noqa: F401 - registers the measures
from ir_measures_graded.measures import MEASURES
from ir_measures_graded.sample import graded_sample
from support.doc_examples import (
    BIN,
    LANGUAGES,
    ROOT,
    bash_commands,
    check_command,
    check_transcript,
    code_blocks,
    languages,
    run_python_block,
    sample_folder,
    transcripts,
)

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
README = (ROOT / "README.md").read_text(encoding="utf-8")


def load_hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hooks = load_hooks()


# --- generated pages ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(hooks.GENERATED))
def test_generated_page_is_committed_as_generated(name):
    """The committed copy (read on GitHub) is what the build generates: run `python docs/hooks.py` after a change."""
    made = getattr(hooks, hooks.GENERATED[name])()
    assert (DOCS / name).read_text(encoding="utf-8") == made, f"docs/{name} is stale: run python docs/hooks.py"


def test_measures_page_has_every_measure_and_every_parameter():
    page = (DOCS / "measures.md").read_text(encoding="utf-8")
    for name, measure in MEASURES.items():
        section = page.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
        for alias in hooks.aliases(measure):
            assert f"`{alias}`" in section
        for pname, param in measure.SUPPORTED_PARAMS.items():
            row = next(line for line in section.splitlines() if line.startswith(f"| `{pname}`"))
            assert hooks.cell(param.desc) in row and hooks.cell(param.accepts) in row
        assert "```python" in section and "# -> " in section
        assert re.search(r"(19|20)\d\d", section.split("**Citation:**", 1)[1].split("\n", 1)[0])


def test_aliases_are_the_registry_names():
    assert hooks.aliases(MEASURES["muAP"]) == ["muMAP", "μAP", "μMAP"]
    for measure in MEASURES.values():
        for alias in hooks.aliases(measure):
            assert ir_measures.parse_measure(alias) == measure


def test_every_measure_says_what_it_is_on_binary_labels():
    assert set(hooks.ON_BINARY) == set(MEASURES), "a new measure needs its entry in docs/hooks.py's ON_BINARY"


@pytest.mark.parametrize("name", sorted(n for n, (equal, _) in hooks.ON_BINARY.items() if equal))
def test_binary_label_claims_hold_per_query(name):
    """On the bundled sample with labels made binary (>= 1 -> 1), the measure equals the one named, per query."""
    qrels, runs = graded_sample()
    qrels = qrels.assign(relevance=(qrels["relevance"] >= 1).astype(int))
    equal = ir_measures.parse_measure(hooks.ON_BINARY[name][0])
    measure = MEASURES[name]
    cutoff = getattr(equal, "params", {}).get("cutoff")
    ours = measure @ cutoff if cutoff and "cutoff" in measure.SUPPORTED_PARAMS else measure
    for run in runs.values():
        theirs = {(m.query_id): m.value for m in ir_measures.iter_calc([equal], qrels, run)}
        mine = {(m.query_id): m.value for m in ir_measures.iter_calc([ours], qrels, run)}
        assert mine.keys() == theirs.keys()
        for query, value in theirs.items():
            assert mine[query] == pytest.approx(value, abs=1e-12), (name, query)


def test_readme_measures_table_is_the_registry():
    assert hooks.readme_with_table(README) == README, "the README's measures table is stale: python docs/hooks.py"


def test_command_line_page_documents_every_option_of_every_parser():
    page = (DOCS / "command-line-options.md").read_text(encoding="utf-8")
    for command, parser in hooks.parsers():
        section = page.split(f"## `{command}`\n", 1)[1].split("\n## ", 1)[0]
        for action in parser._actions:
            if action.help != "==SUPPRESS==" and action.option_strings and action.dest != "help":
                assert f"`{action.option_strings[0]}" in section, (command, action.option_strings)


def test_command_line_page_walks_subcommands():
    """With one parser and subcommands (the command line's planned layout), each subcommand gets its section."""
    import argparse

    top = argparse.ArgumentParser(prog="ir-measures-graded")
    top.add_argument("--version", action="store_true", help="versions")
    commands = top.add_subparsers(dest="command")
    evaluate = commands.add_parser("evaluate", aliases=["eval"], help="evaluate runs")
    evaluate.add_argument("qrels", help="the qrels")
    evaluate.add_argument("--places", "-p", type=int, default=4, help="decimal places (default %(default)s)")
    compare = commands.add_parser("compare", help="compare runs")
    compare.add_argument("--test", choices=["t", "sign"], default="t", help="the paired test")
    found = [command for command, _ in hooks.parsers(top)]
    assert found == ["ir-measures-graded", "ir-measures-graded evaluate", "ir-measures-graded compare"]
    page = hooks.cli_page(top)
    assert "subcommand: `evaluate`, `eval`, `compare`" in page
    evaluate_section = page.split("## `ir-measures-graded evaluate`", 1)[1].split("\n## ", 1)[0]
    assert "| `--places PLACES`, `-p PLACES` | decimal places (default 4) | default `4` |" in evaluate_section
    assert "`t` \\| `sign`; default `t`" in page.split("## `ir-measures-graded compare`", 1)[1]


def test_architecture_page_lists_every_contract():
    text = hooks.contracts_section()
    for contract in hooks.tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]:
        assert contract["name"] in text
    assert hooks.CONTRACTS_MARK in (DOCS / "how-it-computes.md").read_text(encoding="utf-8")


def test_paper_page_lists_every_notebook():
    page = (DOCS / "paper.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(\d_\w+\.ipynb)` \|", page, flags=re.M)
    assert listed == sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))


# --- every example runs ------------------------------------------------------------------------------------

BLOCKS = [(page.name, i) for page in PAGES for i in range(len(code_blocks(page.read_text(encoding="utf-8"), "python")))]


@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_every_language_of_code_block_is_one_these_tests_cover(page):
    assert languages((DOCS / page).read_text(encoding="utf-8")) <= LANGUAGES


@pytest.mark.slow
@pytest.mark.parametrize("page, index", BLOCKS)
def test_every_python_block_runs_and_prints_what_the_page_shows(page, index, home):
    run_python_block(code_blocks((DOCS / page).read_text(encoding="utf-8"), "python")[index], f"docs/{page}", home)


@pytest.mark.slow
@pytest.mark.parametrize("page", [p.name for p in PAGES if bash_commands(p.read_text(encoding="utf-8"))])
def test_every_shell_command_runs_or_is_checked(page, tmp_path):
    for command in bash_commands((DOCS / page).read_text(encoding="utf-8")):
        check_command(command, sample_folder(tmp_path))


def test_contributing_commands_are_checked(tmp_path):
    for command in bash_commands((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")):
        check_command(command, sample_folder(tmp_path))


@pytest.mark.slow
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


@pytest.mark.slow
def test_site_builds_strictly_with_every_page(site):
    for page in PAGES:
        assert (site / page.with_suffix(".html").name).is_file(), page.name
    assert (site / "report.png").is_file()


@pytest.mark.slow
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


@pytest.mark.slow
def test_measures_page_renders_in_chromium(opened):
    open_page, outside, errors = opened
    page = open_page("measures.html")
    headings = page.locator("article h2").all_inner_texts()
    assert [h.strip("¶ \n") for h in headings] == list(MEASURES)
    assert page.locator("article table").count() >= len(MEASURES) + 1
    assert page.locator("article pre code").count() >= len(MEASURES)  # the examples (and formulas)
    assert outside == [] and errors == []


@pytest.mark.slow
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
