"""The judging's figure (``--plot``): τ_AP,b per transform and each run's per-query differences against
the baseline, as SVG and PNG."""

from __future__ import annotations

import numpy as np

import ir_measures_graded
from ir_measures_graded import meta
from ir_measures_graded.experiments.testing import Testing as Options  # pytest would collect a "Test..." name
from ir_measures_graded.meta.plots import report_figure
from ir_measures_graded.sample import graded_sample


def test_plot_shows_tau_ap_and_per_query_differences(tmp_path):
    qrels, runs = graded_sample()
    report = meta.meta_evaluate(ir_measures_graded.experiment(qrels, runs, ["muMAP", "P@5"]), transforms=["scale:2"], samples=5,
                                testing=Options(permutations=200), baseline="random")
    figure = report_figure(report)
    titles = [ax.get_title() for ax in figure.axes]
    assert "τ_AP,b, original vs transformed labels" in titles
    differences = [ax for ax in figure.axes if "per-query Δ\nagainst random" in ax.get_title()]
    assert len(differences) == 2
    lines = [line for line in differences[0].get_lines() if line.get_gid()]  # each run's, against the baseline
    assert [len(line.get_ydata()) for line in lines] == [30, 30]  # two runs, 30 queries each
    assert [t.get_text() for t in figure.legends[0].get_texts()] == ["strong", "weak"]
    heights = lines[0].get_ydata()
    assert np.all(np.diff(heights) <= 0) and heights[0] > 0  # sorted, from the largest gain
    figure.savefig(tmp_path / "meta.svg")
    figure.savefig(tmp_path / "meta.png")
    assert (tmp_path / "meta.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "meta.png").read_bytes()[:4] == b"\x89PNG"


def test_plot_is_laid_out_so_nothing_overlaps():
    """Issue 45: with 158 queries and 4 runs the judging's figure has no empty slot, no text over
    another, no legend over an axes, stability's error bars inside τ's range, and per measure one sorted
    line of per-query differences per run (not 3 × 158 bars laid over each other)."""
    from ir_measures_graded.experiments import experiment
    from ir_measures_graded.meta.figures import sorted_differences
    from support.figures import overlapping_texts
    from support.random_collections import random_collection

    qrels, _ = random_collection(1, n_queries=158)
    names = ["bm25", "bm25+rm3_expansion_k10_terms20.run", "monoT5-rerank-top100-cast21-official", "splade"]
    runs = {name: random_collection(20 + k, n_queries=158)[1] for k, name in enumerate(names)}
    exp = experiment(qrels, runs, ["µMAP", "nDCG@10"], baseline="bm25", warn=lambda _: None)
    report = meta.meta_evaluate(exp, transforms=["scale:2", "real"], samples=20, testing=Options(permutations=100))
    figure = report_figure(report)
    assert overlapping_texts(figure) == []
    axes = [ax for ax in figure.axes if ax.get_label() != "<colorbar>"]
    assert all(ax.has_data() for ax in axes)
    renderer = figure.canvas.get_renderer()
    rows: dict = {}
    for ax in axes:
        box = ax.get_window_extent(renderer)
        rows.setdefault(round(box.y0 / figure.bbox.height, 1), []).append(box)
    assert len(rows) == 5  # τ-b, τ_AP,b, ASL, stability, the two measures' differences; no empty slot on the right:
    assert all(max(b.x1 for b in row) > 0.7 * figure.bbox.width for row in rows.values())
    assert figure.get_size_inches()[0] == 3.5  # one column (issue 52), growing downwards
    for legend in figure.legends + [ax.get_legend() for ax in axes if ax.get_legend()]:
        box = legend.get_window_extent(renderer)
        assert not any(box.overlaps(ax.get_window_extent(renderer)) for ax in axes)
    (stability,) = [ax for ax in axes if "query halves" in ax.get_title()]
    ends = np.concatenate([segment[:, 0] for bars in stability.collections for segment in bars.get_segments()])
    assert ends.max() <= 1.0 and ends.min() >= -1.0
    for measure in ("µMAP", "nDCG@10"):
        (panel,) = [ax for ax in axes if ax.get_title().startswith(f"{measure}: per-query Δ")]
        expected = sorted_differences(report.per_query, "bm25", measure)
        drawn = {line.get_gid(): line.get_ydata() for line in panel.get_lines() if line.get_gid()}
        assert list(drawn) == [f"run:{run}" for run in names[1:]] and not panel.collections
        assert all(np.array_equal(drawn[f"run:{run}"], expected[run]) for run in names[1:])
