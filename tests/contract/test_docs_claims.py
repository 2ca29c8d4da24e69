"""The documentation's prose claims that can be run are run (issue 52 item 7), read from the pages themselves
so that a page or the code drifting apart fails here.

Generic, over every page of docs/, the README, CONTRIBUTING.md and benchmarks/RESULTS.md:

- every dotted name ``ir_measures_graded.x.y`` names a module or an object that exists, as does every
  ``img.x`` and ``Experiment.x`` (``Comparison``, ``Input``, ``Reading``, ``Testing``);
- every repository path (``tests/unit/io/test_small_input.py``, ``io/tuples.py``, ``benchmarks/generators.py``)
  exists, and the step-by-step map of how-it-computes.md names existing modules and every module of ``io/``;
- every ``--option`` in a code span exists (the command line's parsers, the benchmark script named);
- a command that runs the whole test suite is CI's command (.ci/run).

Particular, each read from its sentence: the dict ids ``1`` and ``'1'`` (inputs.md), the order of tied integer
ids, the encoding of the tables read, a mixed list given Arrow, the entry points that warn of a run judged
nowhere, what ``--baseline`` prints per output format (command-line.md), what the comparison's tables print beside a
value (comparing.md) and the shared task's figures of organisers.md. (Code blocks and their printed lines:
tests/e2e/test_docs.py and tests/e2e/test_readme.py; the generated pages: tests/contract/test_docs_generated.py.)
"""

from __future__ import annotations

import pkgutil
import re
import warnings
from pathlib import Path

import ir_measures
import pyarrow as pa
import pytest

import ir_measures_graded as img
from ir_measures_graded import GradedInputError, cli, muMAP, nDCNG
from support.paths import QRELS, ROOT, STRONG, WEAK

DOCS = ROOT / "docs"
PACKAGE = ROOT / "src" / "ir_measures_graded"
#: The pages whose prose these tests read (CHANGELOG.md is history: it names what was, on purpose).
PAGES = [*sorted(DOCS.glob("*.md")), ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "benchmarks" / "RESULTS.md"]
#: Where a path of the docs may start: the repository, src/, the package, the package's data.
BASES = [ROOT, ROOT / "src", PACKAGE, PACKAGE / "data"]
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
           "ten": 10}


def text(page: str) -> str:
    return (ROOT / page).read_text(encoding="utf-8")


def prose(page: str) -> str:
    """A page with its lines joined by spaces (a sentence may be wrapped anywhere)."""
    return " ".join(text(page).split())


def sentence(page: str, pattern: str) -> re.Match[str]:
    found = re.search(pattern, prose(page))
    assert found, f"{page} no longer says /{pattern}/: update this test with the page"
    return found


def number(word: str) -> int:
    return NUMBERS[word] if word in NUMBERS else int(word)


# --- names and paths ------------------------------------------------------------------------------------

def dotted_names() -> dict[str, list[str]]:
    names: dict[str, list[str]] = {}
    for page in PAGES:
        for found in re.findall(r"\bir_measures_graded(?:\.\w+)+", page.read_text(encoding="utf-8")):
            if not re.fullmatch(r"[A-Z]", found.rsplit(".", 1)[1]):  # `ir_measures_graded.X`: a placeholder
                names.setdefault(found, []).append(page.name)
    return names


NAMES = dotted_names()


@pytest.mark.parametrize("name", sorted(NAMES))
def test_every_dotted_name_in_the_docs_exists(name):
    try:
        pkgutil.resolve_name(name)
    except (ImportError, AttributeError) as error:
        pytest.fail(f"{', '.join(sorted(set(NAMES[name])))} name(s) {name}, which does not exist: {error}")


def short_names() -> list[tuple[str, str, object, str]]:
    """(page, shown, owner, attribute) for ``img.x`` (the package imported as the docs import it) and for
    ``Experiment.x``, ``Comparison.x``, ``Input.x``, ``Reading.x`` and ``Testing.x`` in code spans."""
    from ir_measures_graded.experiments.comparison import Comparison
    from ir_measures_graded.experiments.evaluation import Experiment, Reading
    from ir_measures_graded.experiments.testing import Testing
    from ir_measures_graded.io.inputs import Input

    owners = {"Experiment": Experiment, "Comparison": Comparison, "Input": Input, "Reading": Reading,
              "Testing": Testing}
    found = []
    for page in PAGES:
        content = page.read_text(encoding="utf-8")
        found += [(page.name, f"img.{name}", img, name) for name in re.findall(r"(?<![\w.])img\.(\w+)", content)]
        found += [(page.name, f"{owner}.{name}", owners[owner], name)
                  for owner, name in re.findall(rf"`({'|'.join(owners)})\.(\w+)", content)]
    return found


def test_every_short_name_in_the_docs_exists():
    names = short_names()
    assert len(names) > 30, names
    missing = [f"{page}: {shown}" for page, shown, owner, name in names
               if not (hasattr(owner, name) or name in getattr(owner, "__dataclass_fields__", {}))]
    assert missing == []


def repository_paths() -> dict[str, list[str]]:
    """Tokens such as ``a/b.py`` or ``a/b/`` whose first folder is one of :data:`BASES`' folders (``runs/x.txt``,
    ``DIR/comparison.tsv`` are examples: their first folder is none); placeholders (``<name>``, ``*``) left out."""
    paths: dict[str, list[str]] = {}
    for page in PAGES:
        for found in re.finditer(r"(?<![\w/.<*-])((?:\.?[\w-]+/)+(?:[\w.-]*\w)?)(?![\w<*{/-])",
                                 page.read_text(encoding="utf-8")):
            token = found.group(1)
            first = token.split("/", 1)[0]
            if any((base / first).is_dir() for base in BASES) and not token.startswith(".venv/"):
                paths.setdefault(token, []).append(page.name)
    return paths


PATHS = repository_paths()


def test_the_docs_name_repository_paths():
    """The scan finds what it is for (a scan that finds nothing would pass whatever the docs say)."""
    assert {"tests/unit/io/test_small_input.py", "benchmarks/generators.py", "tests/support/reference.py"} <= set(PATHS)


@pytest.mark.parametrize("path", sorted(PATHS))
def test_every_repository_path_in_the_docs_exists(path):
    assert any((base / path).exists() for base in BASES), \
        f"{', '.join(sorted(set(PATHS[path])))} name(s) {path}, which is not in the repository"


def step_by_step() -> list[str]:
    """The lines of how-it-computes.md's map "One evaluation, step by step"."""
    section = text("docs/how-it-computes.md").split("## One evaluation, step by step", 1)[1]
    return re.search(r"```text\n(.*?)```", section, flags=re.S).group(1).splitlines()


def test_the_step_by_step_map_names_what_exists():
    named = []
    for line in step_by_step()[1:]:  # the first line is the input, not a module
        named += re.findall(r"(?:^|│ +|^ *)((?:\w+/)+\w*\.py|(?:\w+/)+|\w+\.py)(?= |,|$)", line.split("  ", 1)[0]
                            if not line.startswith(("  │", "│")) else line[:38])
    assert len(named) > 10, named
    missing = [name for name in named if not (PACKAGE / name).exists() and not (PACKAGE / "io" / name).exists()]
    assert missing == [], f"how-it-computes.md's map names {missing}, not in the package"


def test_the_step_by_step_map_lists_every_module_of_io():
    lines = step_by_step()
    start = next(i for i, line in enumerate(lines) if re.match(r"\s*│\s+io/", line))
    listed = []
    for line in lines[start + 1:]:
        found = re.match(r"\s*│\s{4}(\w+\.py)\s", line)
        if not found:
            break
        listed.append(found.group(1))
    modules = sorted(p.name for p in (PACKAGE / "io").glob("*.py") if p.name != "__init__.py")
    assert sorted(listed) == modules


#: Options the docs give to other programs' command lines: ir_datasets' (``ir_datasets export … --format``,
#: ``lookup … --qid``) and mutmut's.
OTHER_PROGRAMS = {"--format": "ir_datasets", "--qid": "ir_datasets", "--max-children": "mutmut"}


def documented_options() -> list[tuple[str, str, str]]:
    """(page, code span, option) for every ``--option`` in a code span of the pages (the generated options page
    is the parsers themselves)."""
    found = []
    for page in PAGES:
        if page.name == "command-line-options.md":
            continue
        for span in re.findall(r"`([^`\n]+)`", page.read_text(encoding="utf-8")):
            found += [(page.name, span, option) for option in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", span)]
    return found


def test_every_option_in_the_docs_exists():
    """An option of the command line is one of its parsers' (subcommands included); one given to a benchmark
    script is that script's (any script's when none is named); the rest are other programs' options."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    ours = {option for _, parser in hooks.parsers() for action in parser._actions for option in action.option_strings}
    scripts = {path.name: path.read_text(encoding="utf-8") for path in (ROOT / "benchmarks").glob("*.py")}
    options = documented_options()
    assert len(options) > 50, options
    wrong = []
    for page, span, option in options:
        script = re.search(r"benchmarks/(\w+\.py)", span)
        if script:
            known = f'"{option}"' in scripts[script.group(1)]
        else:
            known = option in ours or any(f'"{option}"' in source for source in scripts.values()) \
                or option in OTHER_PROGRAMS
        if not known:
            wrong.append(f"{page}: {option} in `{span}`")
    assert wrong == []


def test_a_command_running_the_whole_suite_is_cis():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line.strip() for page in PAGES for block in re.findall(r"^```bash\n(.*?)^```", page.read_text(
        encoding="utf-8"), flags=re.S | re.M) for line in block.splitlines()
        if re.search(r"-m pytest( -n auto)?$", line.split("#")[0].strip()) and "&&" in line]
    assert len(commands) >= 2, commands  # the README's and the site's quick start
    assert all(command in ci for command in commands), (commands, ci)


def test_the_notebooks_call_the_module_paper_md_names():
    """paper.md: "the experiment code they call lives in `ir_measures_graded.x`": the paper's notebooks import it."""
    import json

    module = sentence("docs/paper.md", r"the experiment code they call lives in `(ir_measures_graded\.\w+)`").group(1)
    pkgutil.resolve_name(module)
    calling = [path.name for path in sorted((ROOT / "notebooks").glob("[2-5]_*.ipynb"))
               if any(re.search(rf"^(?:from|import) {re.escape(module)}\b", "".join(cell["source"]), flags=re.M)
                      for cell in json.loads(path.read_text(encoding="utf-8"))["cells"] if cell["cell_type"] == "code")]
    assert len(calling) == 4, calling  # the paper's four (the quick start uses the package's API)


# --- inputs.md ------------------------------------------------------------------------------------------

def test_dict_keys_1_and_str_1_are_what_inputs_md_says():
    sentence("docs/inputs.md", r"`\{1: \.\.\., '1': \.\.\.\}` names one query under two keys and is refused, "
                               r"naming both keys")
    for given in ({1: {"a": 1}, "1": {"b": 2}}, {1: {"a": 1}, "1": {"a": 2}}):
        with pytest.raises(GradedInputError, match=r"keys 1 and '1'"):
            ir_measures.calc_aggregate([muMAP], given, {"1": {"a": 1.0, "b": 0.5}})


def test_tied_integer_ids_are_ordered_as_inputs_md_says():
    first, second = sentence("docs/inputs.md", r"a score tie broken by id \([^)]*`(\d+)` before `(\d+)`\)").groups()
    ids = pa.array([int(first), int(second)], pa.int64())
    run = pa.table({"query_id": ["q", "q"], "doc_id": ids, "score": [1.0, 1.0]})
    for relevant, value in ((first, 1.0), (second, 0.5)):  # the relevant one first: AP 1, second: AP 1/2
        qrels = pa.table({"query_id": ["q", "q"], "doc_id": ids, "relevance": [int(d == relevant) for d in
                                                                                (first, second)]})
        assert ir_measures.calc_aggregate([muMAP], qrels, run)[muMAP] == value


def test_the_tables_read_are_encoded_as_inputs_md_says():
    sentence("docs/inputs.md", r"`read_qrels_table\(path\)` / `read_run_table\(path\)` return Arrow tables "
                               r"\(query ids dictionary-encoded, doc ids plain strings\)")
    for table in (img.read_qrels_table(QRELS), img.read_run_table(STRONG)):
        assert pa.types.is_dictionary(table.schema.field("query_id").type)
        assert table.schema.field("doc_id").type == pa.string()


def test_a_mixed_list_takes_arrow_as_inputs_md_says():
    sentence("docs/inputs.md", r"for `\[AP, muMAP\]` an Arrow table, a polars frame or a path is made a pandas "
                               r"DataFrame first")
    measures = [ir_measures.AP, muMAP]
    expected = ir_measures.calc_aggregate(measures, img.read_qrels(QRELS), img.read_run(STRONG))
    assert ir_measures.calc_aggregate(measures, img.read_qrels_table(QRELS), img.read_run_table(STRONG)) == expected
    assert ir_measures.calc_aggregate(measures, QRELS, STRONG) == expected


def test_the_entry_points_inputs_md_names_warn_of_a_run_judged_nowhere(tmp_path, capsys):
    listed = sentence("docs/inputs.md", r"every entry point that computes values \((.*?); not `").group(1)
    passages = tmp_path / "passages.run"
    passages.write_text("".join(" ".join(f"{f}-1" if i == 2 else f for i, f in enumerate(line.split())) + "\n"
                                for line in Path(WEAK).read_text().splitlines()))
    qrels, run = list(ir_measures.read_trec_qrels(QRELS)), img.read_run(str(passages))
    calls = {
        "ir_measures.calc_aggregate": lambda: ir_measures.calc_aggregate([muMAP, nDCNG @ 10], qrels, run),
        "iter_calc": lambda: list(ir_measures.iter_calc([muMAP], qrels, run)),
        "evaluator(...)": lambda: ir_measures.evaluator([muMAP], qrels).calc_aggregate(run),
        "experiment()": lambda: img.experiment(QRELS, [str(passages)], ["muMAP"]),
        "the command line": lambda: cli.main([QRELS, str(passages), "muMAP"]),  # on stderr, not a warning
    }
    elsewhere = {"graded_spark.calc_aggregate"}  # a Spark session: tests/e2e/test_spark.py
    named = re.findall(r"`([^`]+)`", listed) + (["the command line"] if "the command line" in listed else [])
    assert set(named) - elsewhere <= set(calls), f"inputs.md names an entry point this test does not run: {named}"
    assert len(named) >= 5, named
    for name in set(named) - elsewhere:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            calls[name]()
        told = [str(w.message) for w in caught] + capsys.readouterr().err.splitlines()
        assert len([line for line in told if "ids of another collection or level" in line]) == 1, (name, told)


# --- command-line.md and comparing.md: --baseline and the comparison's tables ---------------------------

def baseline_output(capsys, form: str) -> str:
    assert cli.main([QRELS, STRONG, WEAK, "muMAP", "--baseline", "weak", "-o", form]) == 0
    return capsys.readouterr().out


def formats(listed: str) -> list[str]:
    return re.findall(r"`(\w+)`", listed)


INTERVAL = re.compile(r"[+-]\d\.\d+(?: &)? \[(?:[+-]|\\ensuremath\{-\})\d\.\d+, ")  # "+0.295 [+0.230, " (or LaTeX's)


@pytest.mark.slow  # eight command lines
def test_baseline_prints_per_format_what_command_line_md_says(capsys):
    alone = sentence("docs/command-line.md", r"On standard output a machine format \(((?:\w+(?:, )?)+)\) holds that "
                                             r"table alone, and so does `-o (\w+)`")
    after = sentence("docs/command-line.md", r"In ((?:`\w+`,? (?:and )?)+)the table follows the results and shows "
                                             r"each run's value, marked † or ‡ by its corrected p-value, and its Δ "
                                             r"with the t interval, with a legend \(the bootstrap interval, d_z, "
                                             r"wins/ties/losses and the p-values are the machine formats'\)")
    machine = alone.group(1).split(", ")
    assert machine == ["tsv", "csv", "jsonl"], machine
    for form in machine:
        out = baseline_output(capsys, form)
        assert "p_adjusted" in out.splitlines()[0] and "boot_low" in out.splitlines()[0], form
        assert "\n\n" not in out.strip(), form  # one table
    latex = baseline_output(capsys, alone.group(2))
    assert latex.count("\\begin{table}") == 1 and latex.count("\\begin{tabular}") == 1 and INTERVAL.search(latex)
    for form in formats(after.group(1)):
        out = baseline_output(capsys, form)
        results, comparison = out.split("\n\n", 1)
        assert "against the baseline" in comparison.lower() and INTERVAL.search(comparison), form
        assert "‡" in comparison and "t-test" in comparison, form  # the marks and their legend
        assert not re.search(r"boot|effect|wins|p_value", comparison), form


def test_the_comparison_tables_print_what_comparing_md_says():
    sentence("docs/comparing.md", r"`to_markdown\(\)`, `to_text\(\)` and `to_latex\(\)` the table for a paper: "
                                  r"the value marked † \(p < 0.05\) or ‡ \(p < 0.01, corrected, two-sided: better or "
                                  r"worse\) and the difference with its interval, with a legend")
    comparison = img.experiment(QRELS, [STRONG, WEAK], ["muMAP"], baseline=WEAK).compare()
    for table in (comparison.to_markdown(), comparison.to_text(), comparison.to_latex()):
        assert INTERVAL.search(table) and "‡" in table.replace("{\\textdaggerdbl}", "‡"), table


# --- organisers.md: the shared task's figures -----------------------------------------------------------

def test_the_shared_task_figures_organisers_md_quotes():
    from ir_measures_graded.sample import shared_task

    drop, alone, alone_p10, team, team_p10 = sentence(
        "docs/organisers.md", r"largest drop in nDCNG@10 is ([\d.]+) and no run drops more than (\w+) places "
                              r"\((\w+) in P@10\); leaving a whole team out drops runs up to (\w+) places "
                              r"\((\w+) in P@10\)").groups()
    tau = sentence("docs/organisers.md", r"The measures agree almost entirely \(τ ≥ ([\d.]+)").group(1)
    qrels, runs = shared_task(n_runs=12, n_queries=30, depth=10, seed=43)
    exp = img.experiment(qrels, runs, ["nDCNG@10", "muMAP", "nDCG@10", "P@10"])
    single = img.pool(exp).reusability.set_index("measure")
    teams = img.pool(exp, groups="-").reusability.set_index("measure")
    assert round(single.loc["nDCNG@10", "largest_drop"], len(drop) - 2) == float(drop)
    others = single.drop(index="P@10")["largest_rank_drop"]
    assert others.max() == number(alone) and single.loc["P@10", "largest_rank_drop"] == number(alone_p10)
    assert teams.drop(index="P@10")["largest_rank_drop"].max() == number(team)
    assert teams.loc["P@10", "largest_rank_drop"] == number(team_p10)
    taus = img.agreement(exp, board=img.leaderboard(exp)).table["tau"]
    assert float(tau) <= taus.min() < float(tau) + 10 ** -(len(tau) - 2)  # the bound, as tight as it is printed
