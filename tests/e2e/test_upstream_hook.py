"""The plugin hook docs/upstream.md proposes to ir_measures works with this package's entry point: with the hook
(tests/support/upstream_hook.py) applied to the installed ir_measures, ``python -m ir_measures qrels run muMAP``
computes µMAP in a fresh interpreter that never imported ir_measures_graded itself, the value this package
gives; the plugin loads only on the first unknown name; a broken plugin is reported and skipped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import ir_measures

import ir_measures_graded
from support.paths import QRELS, ROOT, STRONG

MEASURES = ["muMAP", "nDCNG@10", "AP"]

#: ir_measures' command line, in a fresh interpreter, with the proposed hook applied first.
WITH_HOOK = f"""
import sys
import ir_measures
sys.path.insert(0, {str(ROOT / "tests")!r})
from support.upstream_hook import install_hook
install_hook(ir_measures)
ir_measures.parse_measure("AP")  # a known name: no plugin is read
assert "ir_measures_graded" not in sys.modules, "a plugin was loaded for a known measure name"
sys.argv = ["ir_measures", *sys.argv[1:]]
from ir_measures.__main__ import main_cli
main_cli()
"""


def run(*args: str, hook: bool = True, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({"PYTHONPATH": str(path)} if path else {})}
    command = [sys.executable, "-c", WITH_HOOK, *args] if hook else [sys.executable, "-m", "ir_measures", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def expected() -> list[str]:
    """What ir_measures' command line prints, from this package's values (imported here)."""
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    values = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(QRELS), ir_measures.read_trec_run(STRONG))
    return [f"{measure}\t{values[measure]:.4f}" for measure in measures]


def test_without_the_hook_ir_measures_does_not_know_our_measures():
    result = run(QRELS, STRONG, *MEASURES, hook=False)
    assert result.returncode != 0 and "unknown measure: muMAP" in result.stderr


def test_with_the_hook_the_entry_point_makes_our_measures_known():
    result = run(QRELS, STRONG, *MEASURES)
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == sorted(expected())
    assert ir_measures_graded.muMAP  # the values above came from this package (in this process)


def test_an_unknown_name_is_still_unknown_after_the_plugins_are_read():
    result = run(QRELS, STRONG, "muMAP", "noSuchMeasure")
    assert result.returncode != 0 and "unknown measure: noSuchMeasure" in result.stderr
    assert "unknown measure: muMAP" not in result.stderr


def test_a_broken_plugin_is_reported_and_skipped(tmp_path):
    info = tmp_path / "broken_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[ir_measures.plugins]\nbroken = no_such_module_for_this_test\n",
                                           encoding="utf-8")
    result = run(QRELS, STRONG, *MEASURES, path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == sorted(expected())
    assert "ir_measures plugin broken (no_such_module_for_this_test) failed to load" in result.stderr
