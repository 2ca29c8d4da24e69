"""integration.install() / uninstall(): every object importing changes is restored exactly (identity).

Each check runs in a fresh interpreter, so that this session's own import of the package is not
disturbed: the state of ir_measures, PyTerrier, ir_datasets and ``sys.meta_path`` is recorded
before the import, after it, after ``uninstall()``, after ``install()`` again and after a second
``uninstall()``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow  # see pyproject.toml: the everyday subset is -m 'not slow'

SNAPSHOT = textwrap.dedent('''
    import json, sys
    {first}
    import ir_measures
    from ir_measures import providers

    def snapshot():
        pipeline = ir_measures.DefaultPipeline
        state = {{
            "registry": {{k: id(v) for k, v in ir_measures.measures.registry.items()}},
            "providers": {{k: id(v) for k, v in providers.registry.items()}},
            "pipeline_providers": [id(p) for p in pipeline.providers],
            "pipeline_list": id(pipeline.providers),
            "pipeline_class": id(type(pipeline)),
            "pipeline_attributes": sorted(vars(pipeline)),
            "pipeline_evaluator": id(vars(pipeline).get("_evaluator")),
            "parse_trec_measure": id(ir_measures.parse_trec_measure),
            "meta_path": [id(f) for f in sys.meta_path],
        }}
        if "pyterrier.measures" in sys.modules:
            pt = sys.modules["pyterrier.measures"]
            state["pyterrier"] = {{k: id(v) for k, v in vars(pt).items()}}
        if "ir_datasets" in sys.modules:
            state["datasets"] = sorted(sys.modules["ir_datasets"].registry._registered)
        return state

    before = snapshot()
    import ir_measures_graded
    installed = snapshot()
    parsed = str(ir_measures.parse_measure("muMAP"))
    ir_measures_graded.uninstall()
    removed = snapshot()
    ir_measures_graded.install()
    again = snapshot()
    ir_measures_graded.uninstall()
    print(json.dumps({{"before": before, "installed": installed, "removed": removed, "again": again,
                      "removed_again": snapshot(), "parsed": parsed}}))
''')


def states(first: str) -> dict:
    done = subprocess.run([sys.executable, "-c", SNAPSHOT.format(first=first)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("first", ["", "import ir_datasets, pyterrier, pyterrier.measures"],
                         ids=["alone", "after-pyterrier-and-ir_datasets"])
def test_uninstall_restores_every_patched_object(first):
    s = states(first)
    assert s["parsed"] == "muAP"
    before, installed = s["before"], s["installed"]
    for key in ("registry", "providers", "pipeline_providers", "pipeline_evaluator", "parse_trec_measure"):
        assert installed[key] != before[key], key  # each change is made ...
    assert s["removed"] == before  # ... and undone exactly: the same objects, nothing left over
    assert s["removed_again"] == before
    for key in ("registry", "pipeline_providers", "pipeline_attributes"):
        assert s["again"][key] == installed[key], key  # installing again makes the same changes
    # no change of class, and the pipeline's list of providers is the same list object throughout
    for state in (installed, s["again"]):
        assert state["pipeline_class"] == before["pipeline_class"]
        assert state["pipeline_list"] == before["pipeline_list"]
    if first:
        assert "muMAP" in installed["pyterrier"] and "muMAP" not in before["pyterrier"]
        assert set(installed["datasets"]) - set(before["datasets"]) >= {"ohsumed"}
    else:  # ir_datasets not imported: one finder waits for it, and leaves with uninstall()
        assert len(installed["meta_path"]) == len(before["meta_path"]) + 1


def test_datasets_are_registered_when_ir_datasets_is_imported_later():
    code = ("import sys, ir_measures_graded\n"
            "finders = len(sys.meta_path)\n"
            "import ir_datasets\n"
            "print('ohsumed' in ir_datasets.registry._registered, len(sys.meta_path) == finders - 1)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["True", "True"], done.stderr
