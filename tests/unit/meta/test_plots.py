"""The judging's figure (``--plot``): τ_AP,b per transform and each run's per-query differences against
the baseline, as SVG and PNG."""

from __future__ import annotations

import numpy as np

from ir_measures_graded import meta
from ir_measures_graded.meta.plots import report_figure
from ir_measures_graded.sample import graded_sample


def test_plot_shows_tau_ap_and_per_query_differences(tmp_path):
    qrels, runs = graded_sample()
    report = meta.meta_evaluate(qrels, runs, ["muMAP", "P@5"], transforms=["scale:2"], samples=5,
                                permutations=200, baseline="random")
    figure = report_figure(report)
    titles = [ax.get_title() for ax in figure.axes]
    assert "τ_AP,b, original vs transformed labels" in titles
    differences = [ax for ax in figure.axes if "per-query Δ against random" in ax.get_title()]
    assert len(differences) == 2
    runs = differences[0].collections  # the bars of each run against the baseline
    assert [len(bars.get_paths()) for bars in runs] == [30, 30]  # two runs, 30 queries each
    assert [t.get_text() for t in differences[0].get_legend().get_texts()] == ["strong", "weak"]
    heights = np.array([path.vertices[1, 1] for path in runs[0].get_paths()])
    assert np.all(np.diff(heights) <= 0) and heights[0] > 0  # sorted, from the largest gain
    figure.savefig(tmp_path / "meta.svg")
    figure.savefig(tmp_path / "meta.png")
    assert (tmp_path / "meta.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "meta.png").read_bytes()[:4] == b"\x89PNG"
