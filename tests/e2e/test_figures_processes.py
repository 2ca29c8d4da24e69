"""Figures in fresh processes (issue 45): importing them loads no matplotlib, and in a notebook a figure
shows under its cell."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_importing_the_figures_loads_no_matplotlib():
    code = "import sys, ir_measures_graded.meta.figures, ir_measures_graded.cli.figures; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split()[-1] == "False"


def test_a_figure_shows_under_its_notebook_cell():
    """In a notebook a figure shows under the cell that makes it (pyplot's inline backend), as the
    judging's figure always did; elsewhere no figure is left registered with pyplot."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(
        "from ir_measures_graded.experiment import experiment\nfrom ir_measures_graded.meta import figures\n"
        "from ir_measures_graded.sample import graded_sample\n"
        "exp = experiment(*graded_sample(), ['µMAP'])\nfig = figures.threshold_curve(exp)")]
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    assert [o.output_type for o in notebook.cells[0].outputs] == ["display_data"]
    assert "image/png" in notebook.cells[0].outputs[0]["data"]
