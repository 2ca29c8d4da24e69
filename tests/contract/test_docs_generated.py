"""The documentation cannot drift from the code: the generated pages (docs/measures.md,
docs/command-line-options.md) are what docs/hooks.py makes from the registry and the parsers, the claims
they make about binary labels hold, the README's measures table is the registry's, and every code block
is of a language the example tests run (tests/e2e/test_docs.py runs them and builds the site)."""

from __future__ import annotations

import importlib.util
import re

import ir_measures
import pytest

import ir_measures_graded  # noqa: F401 - registers the measures
from ir_measures_graded.measures import MEASURES
from ir_measures_graded.sample import graded_sample
from support.doc_examples import (
    DOCS,
    LANGUAGES,
    PAGES,
    ROOT,
    languages,
)

README = (ROOT / "README.md").read_text(encoding="utf-8")


def load_hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hooks = load_hooks()


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


def test_the_layer_map_is_committed_as_generated():
    """Issue 42: how-it-computes.md shows every layer, the experiment, meta, report and the command line
    included, as the layers contract has them: run `python docs/hooks.py` after changing either."""
    page = (DOCS / hooks.LAYERS_PAGE).read_text(encoding="utf-8")
    assert page == hooks.page_with_layers(page), "docs/how-it-computes.md's layer map is stale: run python docs/hooks.py"
    shown = page.split(hooks.LAYERS_MAP[0], 1)[1].split(hooks.LAYERS_MAP[1], 1)[0]
    contract = next(c for c in hooks.importlinter()["contracts"] if c["containers"] == ["ir_measures_graded"])
    for layer in contract["layers"]:
        modules, independent = hooks.layer_modules(layer)
        for module in modules:
            assert re.search(rf"^ *{re.escape(module)}(/|\.py) ", shown, re.MULTILINE), module
        if len(modules) > 1:
            assert (" | " if independent else " : ").join(modules) in shown
    order = [re.search(rf"^ *{name}/ ", shown, re.MULTILINE).start()
             for name in ("io", "engines", "experiments", "meta", "reports", "cli")]
    assert order == sorted(order)  # lowest first, as the data flows


def test_architecture_page_lists_every_contract():
    text = hooks.contracts_section()
    for contract in hooks.tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]:
        assert contract["name"] in text
    assert hooks.CONTRACTS_MARK in (DOCS / "how-it-computes.md").read_text(encoding="utf-8")


def test_paper_page_lists_every_notebook():
    page = (DOCS / "paper.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(\d_\w+\.ipynb)` \|", page, flags=re.M)
    assert listed == sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_every_language_of_code_block_is_one_these_tests_cover(page):
    assert languages((DOCS / page).read_text(encoding="utf-8")) <= LANGUAGES


def test_spark_page_names_every_measure_the_spark_engine_computes():
    """docs/spark.md's list is the registry's (it named 6 of the 13), and the Spark engine takes each of them."""
    from ir_measures_graded.engines.spark.plan import _as_graded

    page = hooks.on_page_markdown((DOCS / "spark.md").read_text(encoding="utf-8"), None, None, None)
    listed = page.split("- Measures:", 1)[1].split("\n- ", 1)[0]
    for name, measure in MEASURES.items():
        assert f"[`{name}`](measures.md#{hooks.anchor(name)})" in listed, name
        needs_cutoff = getattr(measure.SUPPORTED_PARAMS.get("cutoff"), "required", False)
        given = measure @ 10 if needs_cutoff else measure
        assert _as_graded(given) is given


def test_every_parameter_of_experiment_is_described_in_its_docstring():
    """The API page is built from the docstring: experiment() described 6 of its 16 parameters."""
    import inspect

    from ir_measures_graded.experiments.evaluation import experiment

    doc = inspect.getdoc(experiment)
    missing = [name for name in inspect.signature(experiment).parameters if f"``{name}``" not in doc]
    assert missing == []


def test_experiment_missing_says_it_counts():
    """Experiment.missing's docstring said it gives the queries; it gives how many (an int per run)."""
    import inspect

    from ir_measures_graded import experiment
    from ir_measures_graded.experiments.evaluation import Experiment

    qrels, runs = graded_sample()
    missing = experiment(qrels, runs, ["muMAP"]).missing
    assert all(type(count) is int for count in missing.values()) and set(missing) == set(runs)
    assert "how many" in inspect.getdoc(Experiment.missing)
