"""integration.install() / uninstall(): every object importing changes is restored exactly (identity).

Each check runs in a fresh interpreter, so that this session's own import of the package is not
disturbed: the state of ir_measures, PyTerrier, ir_datasets and ``sys.meta_path`` is recorded
before the import, after it, after ``uninstall()``, after ``install()`` again and after a second
``uninstall()``.
"""

from __future__ import annotations

import importlib.util
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


#: What the minimum-versions environment (.ci/run) lacks: tests that need it skip there.
HAS_PYTERRIER = importlib.util.find_spec("pyterrier") is not None
HAS_IR_DATASETS = importlib.util.find_spec("ir_datasets") is not None


def states(first: str) -> dict:
    done = subprocess.run([sys.executable, "-c", SNAPSHOT.format(first=first)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("first", ["", "import ir_datasets, pyterrier, pyterrier.measures"],
                         ids=["alone", "after-pyterrier-and-ir_datasets"])
def test_uninstall_restores_every_patched_object(first):
    if first and not (HAS_PYTERRIER and HAS_IR_DATASETS):
        pytest.skip("needs the extras pyterrier and datasets")
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
    else:  # ir_datasets not imported: one finder waits for it (if installed), and leaves with uninstall()
        assert len(installed["meta_path"]) == len(before["meta_path"]) + HAS_IR_DATASETS


@pytest.mark.skipif(not HAS_PYTERRIER, reason="needs the extra pyterrier")
def test_uninstall_removes_what_pyterrier_imported_afterwards_copied():
    """``pyterrier.measures`` copies ir_measures' registry when it is imported: imported after this
    package, it holds our measures (issue #35.16); ``uninstall()`` takes them out of it too."""
    code = textwrap.dedent("""
        import json, ir_measures_graded
        from ir_measures_graded.measures import MEASURES
        import pyterrier.measures as pt
        names = sorted({n for m in MEASURES.values() for n in (m.NAME, *m.ALIASES)})
        def held():
            return [n for n in names if n in vars(pt)]
        copied = held()
        ir_measures_graded.uninstall()
        left = held()
        ir_measures_graded.install()
        again = held()
        ir_measures_graded.uninstall()
        print(json.dumps({"names": names, "copied": copied, "left": left, "again": again, "finally": held(),
                          "standard": "AP" in vars(pt) and "nDCG" in vars(pt)}))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    s = json.loads(done.stdout.splitlines()[-1])
    assert "muMAP" in s["names"] and s["copied"] == s["names"] and s["again"] == s["names"]
    assert s["left"] == [] and s["finally"] == []
    assert s["standard"]  # PyTerrier's own copies of ir_measures' measures stay


@pytest.mark.skipif(not HAS_IR_DATASETS, reason="needs the extra datasets")


def test_datasets_are_registered_when_ir_datasets_is_imported_later():
    code = ("import sys, ir_measures_graded\n"
            "finders = len(sys.meta_path)\n"
            "import ir_datasets\n"
            "print('ohsumed' in ir_datasets.registry._registered, len(sys.meta_path) == finders - 1)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["True", "True"], done.stderr
