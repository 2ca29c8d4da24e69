"""Every notebook in notebooks/ runs without error (at the quick size), and is committed executed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from support.paths import ROOT

pytestmark = pytest.mark.slow  # see pyproject.toml: the everyday subset is -m 'not slow'

NOTEBOOKS = ROOT / "notebooks"
NAMES = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))


def execute(name: str, folder: Path) -> nbformat.NotebookNode:
    """Run a copy of the notebook in ``folder`` with the quick size; raises on any cell error."""
    shutil.copy(NOTEBOOKS / name, folder / name)
    notebook = nbformat.read(folder / name, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    return notebook


def text_of(notebook: nbformat.NotebookNode) -> str:
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            parts.append(output.get("text", "") or output.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def test_the_five_notebooks_exist():
    assert NAMES == ["1_quick_start.ipynb", "2_paper_tables.ipynb", "3_swap_experiments.ipynb", "4_ohsumed.ipynb",
                     "5_meta_evaluation.ipynb"]


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs(name, home, monkeypatch):
    monkeypatch.setenv("IR_MEASURES_GRADED_QUICK", "1")
    notebook = execute(name, home)
    if name.startswith("4_"):
        assert "SYNTHETIC" in text_of(notebook)  # no LETOR files under the (empty) ir_datasets home


def test_ohsumed_notebook_uses_placed_letor_files(placed, monkeypatch):
    monkeypatch.setenv("IR_MEASURES_GRADED_QUICK", "1")
    text = text_of(execute("4_ohsumed.ipynb", placed))
    assert "Using the LETOR data of 'ohsumed/letor2'" in text and "SYNTHETIC" not in text


@pytest.mark.parametrize("name", NAMES)
def test_notebook_committed_with_outputs(name):
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(cell.execution_count for cell in code), "re-run: jupyter execute --inplace notebooks/*.ipynb"
    assert not [o for cell in code for o in cell.outputs if o.output_type == "error"]
    if name.startswith(("3_", "4_", "5_")):
        images = [o for cell in code for o in cell.outputs if "image/png" in o.get("data", {})]
        assert len(images) >= 2


def test_readme_spread_table_is_the_committed_notebooks_output():
    notebook = nbformat.read(NOTEBOOKS / "3_swap_experiments.ipynb", as_version=4)
    cell = next(c for c in notebook.cells if c.cell_type == "code" and "level_spread(" in c.source)
    shown = re.findall(r"\d+\.\d+", cell.outputs[0]["data"]["text/plain"])
    page = (NOTEBOOKS.parent / "docs" / "paper.md").read_text(encoding="utf-8")  # the documentation's page
    rows = [line for line in page.split("```", 1)[0].splitlines()
            if line.startswith(("| uniform", "| non-uniform"))]
    assert len(rows) == 4 and re.findall(r"\d+\.\d+", "\n".join(rows)) == shown
