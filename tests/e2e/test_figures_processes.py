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
        "from ir_measures_graded.experiments import experiment\nfrom ir_measures_graded.meta import figures\n"
        "from ir_measures_graded.sample import graded_sample\n"
        "exp = experiment(*graded_sample(), ['µMAP'])\nfig = figures.threshold_curve(exp)"),
        # the organiser's figures too (issue 50: made as the others, no longer through pyplot's Agg)
        nbformat.v4.new_code_cell("from ir_measures_graded import Testing, organiser\n"
                                  "board = organiser.leaderboard(exp, testing=Testing('randomized_tukey', permutations=50))\n"
                                  "fig = board.plot()")]
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    for cell in notebook.cells:
        assert [o.output_type for o in cell.outputs] == ["display_data"]
        assert "image/png" in cell.outputs[0]["data"]


#: A fresh interpreter with the svg backend set, drawing every figure of a 24-run task (issue 50).
EVERY_FIGURE = r"""
import sys, warnings
import matplotlib
assert matplotlib.get_backend() == "svg", matplotlib.get_backend()
import numpy as np, pandas as pd
from ir_measures_graded import Testing, organiser
from ir_measures_graded.experiments import experiment
from ir_measures_graded.meta import figures
from ir_measures_graded.paper import plots
from ir_measures_graded.sample import graded_sample

warnings.simplefilter("error")  # matplotlib's "More than 20 figures" is a RuntimeWarning: an error here
qrels, given = graded_sample()
rng = np.random.default_rng(0)
runs = {}
for k in range(24):
    run = given["strong"].copy()
    run["score"] = run["score"] + rng.normal(0, 0.5 + k / 8, len(run))
    runs[f"run{k:02d}"] = run
exp = experiment(qrels, runs, ["muMAP", "nDCG@10"])
board = organiser.leaderboard(exp, testing=Testing("randomized_tukey", permutations=50))
drawn = [board.plot(), board.plot(sys.argv[1] + "/board.svg")]
topics = organiser.topics(exp)
drawn += [topics.plot(run) for run in exp.runs]
drawn += [figures.threshold_curve(exp), figures.query_differences(exp), figures.intervals(exp)]
curves = pd.DataFrame({"measure": ["muMAP"] * 4, "levels": [2, 2, 3, 3], "swaps": [0, 1, 0, 1],
                       "mean": [1.0, 0.9, 1.0, 0.8]})
drawn += [plots.swap_curves(curves), plots.strategy_performance(
    pd.DataFrame([[0.5, 0.4]], index=[1], columns=[1.0, 2.0]), pd.DataFrame({"muMAP": [0.5]}, index=[1]))]
for fig in drawn:
    fig.savefig(sys.argv[1] + "/each.png")  # a returned figure still draws and saves
import matplotlib.pyplot as plt
print(len(drawn), matplotlib.get_backend(), plt.get_fignums())
"""


@pytest.mark.parametrize("how", ["MPLBACKEND", "matplotlib.use"])
def test_figures_leave_the_callers_matplotlib_as_it_was(tmp_path, how):
    """No backend switched to Agg and no figure left open with pyplot, however many are drawn (the
    organiser's figures switched to Agg and left one open per figure: 25 and matplotlib's warning for
    a 24-run task)."""
    import os

    pytest.importorskip("matplotlib")
    code = EVERY_FIGURE if how == "MPLBACKEND" else EVERY_FIGURE.replace(
        "import matplotlib\n", "import matplotlib\nmatplotlib.use('svg')\n", 1)
    env = {**os.environ, "MPLBACKEND": "svg"} if how == "MPLBACKEND" else \
        {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "31 svg []", done.stdout
    assert "More than 20 figures" not in done.stderr
    assert (tmp_path / "board.svg").read_bytes().startswith(b"<?xml")
