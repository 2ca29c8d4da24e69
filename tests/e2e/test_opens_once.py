"""Each input is opened once per process (issue 50, item 1), counted with strace: a Python audit hook misses
pyarrow's and numpy's C-level opens. Before: the Python API sequence below opened the qrels and each run 3
times; ``report`` each input twice (the header's SHA-256 after reading), ``-o trec`` each run three times
(its tag) and ``--baseline <run tag>`` three times."""

from __future__ import annotations

import collections
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import SCRIPT
from support.paths import SAMPLE

STRACE = shutil.which("strace")
pytestmark = pytest.mark.skipif(STRACE is None and not os.environ.get("CI"),
                                reason="strace is not installed (apt-get install strace); CI installs it")

API_SEQUENCE = """
import ir_measures_graded as img
from ir_measures_graded import organiser
exp = img.experiment("qrels.txt", ["s.run", "w.run", "r.run"], ["muMAP", "nDCNG@10", "nDCG@10"], baseline="tag-r")
exp.breakdown(); exp.compare(); img.report(exp).html()
organiser.leaderboard(exp); organiser.agreement(exp); organiser.topics(exp); organiser.pool(exp); organiser.bounds(exp)
img.meta.meta_evaluate(exp, samples=5)
"""


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """The bundled sample with run tags that differ from the file names (``tag-s`` in ``s.run``)."""
    (tmp_path / "qrels.txt").write_bytes((SAMPLE / "qrels.txt").read_bytes())
    for name in ("strong", "weak", "random"):
        text = (SAMPLE / f"{name}.run").read_text()
        (tmp_path / f"{name[0]}.run").write_text(re.sub(rf" {name}$", f" tag-{name[0]}", text, flags=re.M))
    return tmp_path


def opens(folder: Path, command: list[str]) -> dict[str, int]:
    """How often ``command`` (run in ``folder``) opened each input, from strace's open/openat lines."""
    assert STRACE, "CI installs strace (.ci/run)"
    trace = folder / "trace.txt"
    result = subprocess.run([STRACE, "-f", "-qq", "-e", "trace=open,openat", "-o", str(trace), *command],
                            cwd=folder, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    found: collections.Counter[str] = collections.Counter()
    for line in trace.read_text().splitlines():
        match = re.search(r'open(?:at)?\((?:AT_FDCWD, )?"([^"]+)"', line)
        if match and "ENOENT" not in line and Path(match.group(1)).name in ("qrels.txt", "s.run", "w.run", "r.run"):
            found[Path(match.group(1)).name] += 1
    return dict(found)


ONCE = {"qrels.txt": 1, "s.run": 1, "w.run": 1, "r.run": 1}


def test_the_python_api_opens_each_input_once_for_every_view(inputs):
    pytest.importorskip("jinja2")
    assert opens(inputs, [sys.executable, "-c", API_SEQUENCE]) == ONCE


@pytest.mark.parametrize("args", [
    [],
    ["-o", "trec"],  # each run's tag, taken while it is read
    ["--baseline", "tag-r"],  # a baseline named by its run tag
    ["--baseline", "tag-r", "-o", "trec", "--output-dir", "out"],
    ["--thresholds", "-q", "-o", "text"],
], ids=["evaluate", "trec", "baseline-tag", "baseline-tag-trec", "thresholds"])
def test_evaluate_opens_each_input_once(inputs, args):
    assert opens(inputs, [SCRIPT, "qrels.txt", "s.run", "w.run", "r.run", "muMAP", "nDCNG@10", *args]) == ONCE


@pytest.mark.parametrize("command", [
    ["judge", "--samples", "5", "--baseline", "tag-r"],
    ["report", "--html", "page.html", "--baseline", "tag-r"],
    ["leaderboard", "--sections", "leaderboard", "agreement", "pool", "topics", "bounds"],
], ids=["judge", "report", "leaderboard"])
def test_every_subcommand_opens_each_input_once(inputs, command):
    if command[0] == "report":
        pytest.importorskip("jinja2")
    name, *options = command
    got = opens(inputs, [SCRIPT, name, "qrels.txt", "s.run", "w.run", "r.run", "-m", "muMAP", "nDCNG@10", *options])
    assert got == ONCE


def test_agree_opens_each_qrels_and_each_run_once(inputs):
    """``agree``: judge A's qrels, judge B's and each run opened once (the runs evaluated on B as A's experiment
    read them), with a relabelled B and the API's views too."""
    text = (inputs / "qrels.txt").read_text().splitlines()
    (inputs / "b.qrels").write_text("".join(f"{' '.join(line.split()[:3])} {max(int(line.split()[3]) - 1, 0)}\n"
                                            for line in text))
    command = [SCRIPT, "agree", "qrels.txt", "b.qrels", "s.run", "w.run", "r.run", "-m", "muMAP", "nDCNG@10",
               "--map", "map:1=1,2=2,3=4", "--test", "t", "--sections", *("labels", "thresholds", "systems", "pairs")]
    assert opens(inputs, command) == ONCE
    trace = inputs / "trace.txt"
    assert sum('b.qrels"' in line and "ENOENT" not in line for line in trace.read_text().splitlines()) == 1


@pytest.mark.parametrize("options", [
    ["--strategy", "depth", "--depth", "5", "--output", "pool.tsv"],
    ["--strategy", "bandit", "--judgments", "qrels.txt", "--total", "40", "--output", "pool.tsv"],
], ids=["depth", "bandit"])
def test_pool_opens_each_run_and_the_judgments_once(inputs, options):
    """``pool`` (#51 item 4): each run, and the judgments an adaptive strategy judges with, opened once."""
    expected = {name: 1 for name in ("s.run", "w.run", "r.run")} | ({"qrels.txt": 1} if "--judgments" in options
                                                                    else {})
    assert opens(inputs, [SCRIPT, "pool", "s.run", "w.run", "r.run", *options]) == expected


def test_the_merge_by_query_opens_the_qrels_and_the_run_once(inputs, monkeypatch):
    """One run and qrels the small-file reader does not take (here: none) are read in step by query (issue 54):
    the qrels are streamed once beside the run, not read whole first."""
    monkeypatch.setenv("IR_MEASURES_GRADED_SMALL_FILE_BYTES", "0")
    assert opens(inputs, [SCRIPT, "qrels.txt", "s.run", "muMAP", "nDCNG@10"]) == {"qrels.txt": 1, "s.run": 1}
