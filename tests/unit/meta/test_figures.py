"""Figures for a paper (issue 45 item 1): each figure one column wide, drawing the Experiment's own
numbers, no text over another, saved as vector files; ``--figure NAME FILE`` on every subcommand that
evaluates, and what it refuses."""

from __future__ import annotations

import numpy as np
import pytest

from ir_measures_graded import meta, statistics
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import experiment
from ir_measures_graded.meta import figures
from ir_measures_graded.sample import graded_sample
from support.cli import error_of, run_main
from support.figures import drawn_texts, overlapping_texts
from support.paths import QRELS, RANDOM, STRONG, WEAK
from support.random_collections import random_collection

#: A one-column figure's width at most (ACM and IEEE columns: 3.33–3.5 in).
COLUMN = 3.6
#: Run names as real ones are: long, with the tool's settings in them.
NAMES = ["bm25", "bm25+rm3_expansion_k10_terms20.run", "monoT5-rerank-top100-cast21-official", "splade"]


@pytest.fixture(scope="module")
def sample():
    qrels, runs = graded_sample()
    return experiment(qrels, runs, ["µMAP", "nDCNG@10", "P@5"])


@pytest.fixture(scope="module")
def large():
    """158 queries (as TREC CAsT 2021), 4 runs with long names, the first the baseline."""
    qrels, _ = random_collection(1, n_queries=158)
    runs = {name: random_collection(20 + k, n_queries=158)[1] for k, name in enumerate(NAMES)}
    return experiment(qrels, runs, ["µMAP", "nDCG@10"], baseline="bm25", warn=lambda _: None)


def shown_as(label: str, name: str) -> bool:
    """``label`` is ``name``, or its beginning and end with the middle elided (…)."""
    head, _, tail = label.partition("…")
    return label == name or (name.startswith(head) and name.endswith(tail) and len(label) < len(name))


DRAW = {"threshold_curve": figures.threshold_curve, "query_differences": figures.query_differences,
        "scale_grid": figures.scale_grid, "intervals": lambda exp: figures.intervals(exp.compare(permutations=100))}


@pytest.mark.parametrize("collection", ["sample", "large"])
@pytest.mark.parametrize("name", list(DRAW))
def test_each_figure_fits_one_column_and_no_text_overlaps(request, collection, name):
    fig = DRAW[name](request.getfixturevalue(collection))
    width, height = fig.get_size_inches()
    assert width <= COLUMN and height <= 4.5
    texts = drawn_texts(fig)
    assert len(texts) >= 8  # labels, ticks, titles: the check below looked at something
    assert overlapping_texts(fig) == []


def test_threshold_curve_draws_the_breakdown(sample):
    """A line per run whose points are ``breakdown()``'s M^t over the queries with a label >= t; under
    each threshold, the number of those queries."""
    fig = figures.threshold_curve(sample)
    (ax,) = fig.axes
    table = sample.breakdown()
    lines = {line.get_gid(): line for line in ax.get_lines()}
    assert sorted(lines) == sorted(f"run:{run}" for run in sample.runs)
    for run in sample.runs:
        expected = table[(table["run"] == run) & (table["of"] == "µMAP")]["value"].to_numpy()
        assert np.array_equal(lines[f"run:{run}"].get_ydata(), expected)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1\n30", "2\n30", "3\n30", "4\n27"]
    assert "µMAP" in ax.get_ylabel()  # the measure as the user typed it
    assert [t.get_text() for t in fig.legends[0].get_texts()] == sample.runs


def test_threshold_curve_needs_a_thresholded_measure(sample):
    with pytest.raises(GradedInputError, match="combined over relevance thresholds"):
        figures.threshold_curve(experiment(*graded_sample(), ["P@5"]))


def test_query_differences_draws_each_runs_sorted_differences(large):
    """One panel per run against the baseline, y shared; the bars are the per-query differences (the
    package's ties 0), sorted from the largest gain; the counts over each panel are the comparison's."""
    fig = figures.query_differences(large, measure="nDCG@10")
    assert len(fig.axes) == 3
    assert all(ax.get_shared_y_axes().joined(fig.axes[0], ax) for ax in fig.axes)
    pivot = large.per_query[large.per_query["measure"] == "nDCG@10"].pivot(index="query_id", columns="run",
                                                                           values="value")
    counts = large.compare(permutations=100).table.set_index(["run", "measure"])
    for ax, run in zip(fig.axes, NAMES[1:], strict=True):
        (bars,) = ax.collections
        assert bars.get_gid() == f"run:{run}"
        heights = np.array([path.vertices[1, 1] for path in bars.get_paths()])
        expected = np.sort(statistics.differences(pivot[run].to_numpy(), pivot["bm25"].to_numpy())[0])[::-1]
        assert len(heights) == len(large.judged) and np.array_equal(heights, expected)
        wins, ties, losses = counts.loc[(run, "nDCG@10"), ["wins", "ties", "losses"]]
        assert ax.get_title().endswith(f"+{wins} ={ties} −{losses}")


def test_query_differences_against_a_chosen_baseline(sample):
    fig = figures.query_differences(sample, baseline="random")
    assert [ax.get_title().split("\n")[0] for ax in fig.axes] == ["strong", "weak"]
    assert "30 queries, sorted by Δ against random" in [text for text, _ in drawn_texts(fig)]
    with pytest.raises(GradedInputError, match="nosuchrun"):
        figures.query_differences(sample, baseline="nosuchrun")


def test_scale_grid_shows_the_scale_check(sample):
    """Measures × transforms: the colours and the numbers are ``scale_dependence``'s τ-b, with the
    largest change of a score under it; the same from the Experiment, a MetaReport or the table."""
    table = meta.scale_dependence(sample)
    fig = figures.scale_grid(table)
    ax = fig.axes[0]
    (image,) = ax.get_images()
    grid = table.pivot(index="measure", columns="transform", values="kendall_tau")
    grid = grid.reindex(index=sample.labels, columns=list(dict.fromkeys(table["transform"])))
    assert np.array_equal(np.ma.filled(image.get_array(), np.nan), grid.to_numpy(), equal_nan=True)
    assert [t.get_text() for t in ax.get_yticklabels()] == sample.labels
    cells = [t.get_text() for t in ax.texts]
    merged = table[(table["transform"] == "merge:3,4") & (table["measure"] == "µMAP")].iloc[0]
    assert f"{merged.kendall_tau:.2f}\n{merged.max_abs_delta:.3f}" in cells and "n/a" in cells
    again = figures.scale_grid(sample).axes[0].get_images()[0].get_array()
    assert np.array_equal(np.ma.filled(again, np.nan), grid.to_numpy(), equal_nan=True)


def test_intervals_draw_the_comparison(large):
    """Per measure a panel: each run's Δ and its t interval as the comparison has them, filled where
    the corrected p-value is below alpha, marked as the tables mark it (one alpha for all of it)."""
    from matplotlib.colors import to_rgba

    from ir_measures_graded.experiments.tables import mark

    comparison = large.compare(permutations=100, alpha=0.2)
    fig = figures.intervals(comparison)
    table = comparison.table.set_index(["run", "measure"])
    runs = NAMES[1:]
    assert all(shown_as(t.get_text(), run) for t, run in zip(fig.axes[0].get_yticklabels(), runs, strict=True))
    (caption,) = [text for text, _ in drawn_texts(fig) if "interval" in text]
    assert "80% t interval" in caption and "p < 0.2" in caption
    for ax, measure in zip(fig.axes, ["µMAP", "nDCG@10"], strict=True):
        rows = table.loc[[(run, measure) for run in runs]]
        (points,) = ax.collections[-1:]
        assert np.array_equal(points.get_offsets()[:, 0], rows["delta"].to_numpy())
        (bars,) = ax.containers[0].lines[2]
        ends = np.array([segment[:, 0] for segment in bars.get_segments()])
        assert np.allclose(ends, rows[["ci_low", "ci_high"]].to_numpy())
        filled = [tuple(color) == to_rgba("black") for color in points.get_facecolors()]
        assert filled == list(rows["p_adjusted"] < 0.2)
        assert [t.get_text() for t in ax.texts] == [mark(p, (0.2, 0.04)) for p in rows["p_adjusted"] if p < 0.2]


def test_intervals_show_an_untested_measure_without_an_interval(sample):
    exp = experiment(*graded_sample(), ["P@5", 'muAP(levels="collection")'], baseline="random")
    fig = figures.intervals(exp.compare(permutations=100))
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0] == "P@5" and titles[1].endswith("\n(not tested)")
    assert shown_as(titles[1].split("\n")[0], 'muAP(levels="collection")')  # elided to fit its panel
    assert len(fig.axes[1].containers[0].lines[2][0].get_segments()) == 0 and not fig.axes[1].texts
    with pytest.raises(GradedInputError, match="no comparison of AP"):
        figures.intervals(exp.compare(permutations=100), ["AP"])


def test_figures_save_as_vector_files_with_embedded_fonts(tmp_path, sample):
    fig = figures.threshold_curve(sample)
    for suffix in ("pdf", "svg", "png"):
        figures.save(fig, tmp_path / f"f.{suffix}")
    pdf = (tmp_path / "f.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and b"FontFile2" in pdf and b"Type3" not in pdf  # TrueType, as papers ask
    svg = (tmp_path / "f.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and 'width="252pt"' in svg  # 3.5 in
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"
    figures.save(fig, tmp_path / "again.pdf")
    assert (tmp_path / "again.pdf").read_bytes() == pdf  # no date inside: the same figure, the same file
    with pytest.raises(GradedInputError, match=r"\.pdf, \.svg or \.png"):
        figures.save(fig, tmp_path / "f.jpg")


# --- the command line ---------------------------------------------------------------------------

@pytest.mark.parametrize(("command", "figure", "suffix"), [
    (["evaluate"], "thresholds", "pdf"),
    (["judge", "--samples", "5", "--permutations", "100", "--sections", "means"], "differences:P@5", "svg"),
    (["report", "--html", "{tmp}/r.html", "--no-scale"], "scale", "png"),
    (["report", "--html", "{tmp}/r.html", "--no-scale", "--alpha", "0.01"], "intervals:µMAP", "pdf"),
    (["evaluate", "--baseline", "weak.run"], "intervals", "svg"),
])
def test_figure_option_writes_the_figure_after_the_same_tables(tmp_path, capsys, command, figure, suffix):
    command = [c.replace("{tmp}", str(tmp_path)) for c in command]
    given = [command[0], QRELS, STRONG, WEAK, RANDOM, "-m", "µMAP", "P@5", *command[1:]]
    plain, _ = run_main(capsys, *given)
    path = tmp_path / f"figure.{suffix}"
    out, _ = run_main(capsys, *given, "--figure", figure, str(path), "--figure", "scale", str(tmp_path / "s.pdf"))
    assert out == plain
    head = {"pdf": b"%PDF", "svg": b"<?xml", "png": b"\x89PNG"}[suffix]
    assert path.read_bytes().startswith(head) and (tmp_path / "s.pdf").read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize(("args", "message"), [
    ([STRONG, WEAK, "µMAP", "--figure", "curve", "{tmp}/f.pdf"],
     "--figure curve: no figure named 'curve'; one of thresholds, differences, scale, intervals"),
    ([STRONG, WEAK, "µMAP", "--figure", "scale", "{tmp}/f.jpg"], "name a .pdf, .svg or .png file"),
    ([STRONG, WEAK, "µMAP", "--figure", "scale", f"{QRELS}/f.pdf"], "is not a folder"),
    ([STRONG, WEAK, "µMAP", "--figure", "differences:AP", "{tmp}/f.pdf"], "'AP' is none of the measures given (µMAP)"),
    ([STRONG, WEAK, "P@5", "--figure", "thresholds", "{tmp}/f.pdf"], "combined over relevance thresholds"),
    ([STRONG, "µMAP", "--figure", "differences", "{tmp}/f.pdf"], "compares runs: give at least two"),
    ([STRONG, "µMAP", "--figure", "intervals", "{tmp}/f.pdf"], "compares runs: give at least two"),
])
def test_figure_option_refuses_what_it_cannot_draw_before_evaluating(tmp_path, capsys, args, message):
    error = error_of(capsys, QRELS, *[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert message in error
    assert list(tmp_path.iterdir()) == []


def test_outside_a_notebook_no_figure_is_left_with_pyplot(sample):
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    figures.threshold_curve(sample)
    assert plt.get_fignums() == before


def test_the_command_line_knows_the_formats_save_writes():
    from ir_measures_graded.cli import figures as option

    assert option.SUFFIXES == tuple(f".{suffix}" for suffix in figures.FORMATS)


@pytest.mark.parametrize("figure", ["thresholds", "differences", "intervals"])
def test_runs_of_the_same_file_name_are_labelled_as_the_tables_name_them(tmp_path, capsys, figure):
    """Issue 50: one rule for a run's label in tables and figures (the shortest form that tells the runs
    apart): ``a/x.run`` and ``b/x.run`` were both ``x.run`` in the figures."""
    import re
    import shutil

    runs = []
    for folder, source in (("a", STRONG), ("b", WEAK), ("c", RANDOM)):
        (tmp_path / folder).mkdir()
        runs.append(str(tmp_path / folder / "x.run"))
        shutil.copy(source, runs[-1])
    path = tmp_path / f"{figure}.svg"
    out, _ = run_main(capsys, QRELS, *runs, "-m", "µMAP", "-o", "csv", "--figure", figure, str(path))
    named = [line.split(",")[0] for line in out.splitlines()[1:]]
    assert named == ["a/x.run", "b/x.run", "c/x.run"]  # the tables' names
    shown = set(re.findall(r"<!-- (.*?) -->", path.read_text(encoding="utf-8")))
    compared = named if figure == "thresholds" else named[1:]  # the others against the baseline a/x.run
    assert all(any(text == name or text.startswith(f"{name}\n") for text in shown) for name in compared), shown
    assert "x.run" not in shown


def test_the_threshold_curves_y_axis_names_what_it_plots(sample):
    """Issue 52: the curve plots M^t (MAP^t for µMAP), not µMAP at a threshold: its axis says so."""
    ylabel = figures.threshold_curve(sample).axes[0].get_ylabel()
    assert ylabel == "µMAP: MAPᵗ" and "at threshold" not in ylabel
    cut = experiment(*graded_sample(), ["muP@5"])
    assert figures.threshold_curve(cut).axes[0].get_ylabel() == "muP@5: P@5ᵗ"


def test_no_mark_sticks_out_of_its_panel():
    """Issue 52: a mark (‡) after the rightmost interval of a narrow panel used to cross the panel's frame
    (0.47 px out at 100 dpi on these runs); every mark now lies inside its panel, every text inside the
    figure, and no two tick labels of a panel touch."""
    from support.chosen_values import chosen, hits_of

    rng = np.random.default_rng(0)
    names = ["bm25", "bm25+rm3_expansion_k10_terms20.run", "monoT5-rerank-top100-cast21-official", "splade", "convdr",
             "colbert"]
    hits = {n: hits_of(0.2 + 0.12 * k + rng.normal(0, 0.1, 40), 20) for k, n in enumerate(names)}
    exp = chosen(hits, 20, ["P@20", "P@10", "P@5", "AP", "nDCG@10"])
    for alternative in ("two-sided", "greater"):
        fig = figures.intervals(exp.compare("bm25", alternative=alternative))
        assert overlapping_texts(fig) == []
        renderer = fig.canvas.get_renderer()
        marks = [(ax, t) for ax in fig.axes for t in ax.texts if t.get_text() in ("†", "‡")]
        assert len(marks) >= 20
        for ax, text in marks:
            box, extent = ax.get_window_extent(renderer), text.get_window_extent(renderer)
            assert box.x0 <= extent.x0 and extent.x1 <= box.x1, (ax.get_title(), extent, box)
        for ax in fig.axes:
            ticks = sorted((t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()),
                           key=lambda b: b.x0)
            assert all(b.x0 - a.x1 > 0 for a, b in zip(ticks, ticks[1:], strict=False)), ax.get_title()
