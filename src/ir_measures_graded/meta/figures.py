"""Figures for a paper, one function per figure, each drawn from an
:class:`~ir_measures_graded.experiments.Experiment`'s own tables (so a figure shows the numbers its
tables print) and returned as a matplotlib ``Figure`` one column wide (:data:`WIDTH` inches):

- :func:`threshold_curve`: a thresholded measure (µMAP, µP@k, ...) at every relevance threshold t,
  M^t over the queries with a label >= t (``Experiment.breakdown()``'s ``value``), a line per run,
  with the number of those queries under each threshold;
- :func:`query_differences`: each run's per-query differences against the baseline, sorted, one
  panel per run (shared y axis);
- :func:`scale_grid`: the scale check (``scale_dependence``) as a grid, measures × transforms:
  Kendall's τ-b as the colour and the number, the largest change of a run's score under it;
- :func:`intervals`: each run against the baseline (``Experiment.compare()``), its mean difference
  with its interval, per measure, marked as the tables mark it.

:func:`save` writes a figure as its file's suffix says (PDF and SVG are vector; fonts embedded as
TrueType, not Type 3, as paper submission systems ask). matplotlib is imported inside the functions
(the ``meta`` extra): importing this module does not load it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ir_measures_graded import statistics
from ir_measures_graded.canvas import COLUMN, FONT, SMALL, elided, labels, new_figure, short
from ir_measures_graded.errors import GradedInputError

__all__ = ["WIDTH", "FORMATS", "short", "labels", "threshold_curve", "query_differences", "scale_grid", "intervals", "sorted_differences",
           "save"]

#: A one-column figure's width in inches (ACM and IEEE columns are 3.33–3.5 in): every figure's.
WIDTH = COLUMN
#: What :func:`save` writes, by the file's suffix.
FORMATS = ("pdf", "svg", "png")
GAIN, LOSS = "#0072B2", "#D55E00"  # Okabe & Ito's blue and vermillion: told apart by colour-blind readers


def save(figure: Any, path: str | os.PathLike[str]) -> None:
    """Write ``figure`` to ``path`` in the format its suffix names (:data:`FORMATS`): its size as drawn,
    fonts embedded as TrueType (PDF), no creation date (the same figure gives the same file)."""
    import matplotlib

    suffix = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    if suffix not in FORMATS:
        raise GradedInputError(f"cannot write a figure to {os.fspath(path)}: name a .pdf, .svg or .png file")
    from ir_measures_graded.files import save_figure

    metadata = {"pdf": {"CreationDate": None}, "svg": {"Date": None}, "png": {}}[suffix]
    with matplotlib.rc_context({"pdf.fonttype": 42, "ps.fonttype": 42, "svg.hashsalt": "ir-measures-graded"}):
        save_figure(figure, path, format=suffix, dpi=300, metadata=metadata)


def legend_columns(fig: Any, handles: list[Any], labels: list[str], width: float) -> int:
    """The most columns (up to 4) in which a legend of ``labels`` fits in ``width`` inches."""
    renderer = fig.canvas.get_renderer()
    for ncols in range(min(4, len(labels)), 1, -1):
        trial = fig.legend(handles, labels, ncols=ncols, fontsize=SMALL, frameon=False)
        fits = trial.get_window_extent(renderer).width <= 0.95 * width * fig.dpi
        trial.remove()
        if fits:
            return ncols
    return 1


def _run_legend(fig: Any, handles: list[Any], labels: list[str]) -> None:
    """The runs' legend under the axes, never over what they show."""
    ncols = legend_columns(fig, handles, labels, fig.get_figwidth())
    fig.set_figheight(fig.get_figheight() + 0.15 * (math.ceil(len(labels) / ncols) - 1))  # the axes keep theirs
    fig.legend(handles, labels, loc="outside lower center", ncols=ncols, fontsize=SMALL, frameon=False)


def threshold_curve(exp: Any, measure: Any = None) -> Any:
    """A thresholded measure at every relevance threshold t, a line per run: M^t averaged over the
    queries with a label >= t (``exp.breakdown()``'s ``value``, the paper's MAP^t), with the number of
    those queries under each threshold. ``measure``: a label of the experiment's thresholded measures
    (default the first one)."""
    table = exp.breakdown(None if measure is None else [exp.measure(measure)])
    if not len(table):
        raise GradedInputError("no measure of the experiment is combined over relevance thresholds (muMAP, "
                               "muP@k, ...): a threshold curve shows one")
    label = str(table["of"].iloc[0])
    table = table[table["of"] == label]
    thresholds = list(dict.fromkeys(table["threshold"]))
    queries = table.groupby("threshold", sort=False)["queries"].max().reindex(thresholds).to_numpy()
    fig = new_figure(WIDTH, 2.5)
    ax = fig.add_subplot()
    x = np.arange(len(thresholds))
    handles = []
    grouped = list(table.groupby("run", sort=False))
    for k, ((run, rows), name) in enumerate(zip(grouped, labels([run for run, _ in grouped]), strict=True)):
        y = rows.set_index("threshold")["value"].reindex(thresholds).to_numpy(dtype=float)
        (line,) = ax.plot(x, y, marker="os^Dvp<>h"[k % 9], markersize=3.5, linewidth=1.2, color=f"C{k % 10}",
                          linestyle=("-", "--", ":", "-.")[k // 10 % 4], label=name, gid=f"run:{run}")
        handles.append(line)
    step = max(1, math.ceil(len(thresholds) / 8))  # at most 8 labelled thresholds: they never touch
    ax.set_xticks(x, [f"{t:g}\n{n}" if i % step == 0 else "" for i, (t, n) in enumerate(zip(thresholds, queries,
                                                                                            strict=True))])
    ax.set_xlim(-0.4, len(thresholds) - 0.6)
    if np.nanmin(table["value"].to_numpy(dtype=float), initial=0.0) >= 0:
        ax.set_ylim(bottom=0)
    ax.tick_params(labelsize=SMALL)
    ax.grid(axis="y", linewidth=0.4, alpha=0.5)
    ax.set_xlabel("threshold t, and the queries with a label ≥ t", fontsize=FONT)
    # what is drawn: the measure at one threshold (MAP^t for µMAP, P@k^t for µP@k), not the combined measure
    ax.set_ylabel(f"{label}: {exp.measure(label).at_threshold()}ᵗ", fontsize=FONT)  # no mathtext: plain fonts
    _run_legend(fig, handles, [h.get_label() for h in handles])
    return fig


def sorted_differences(per_query: Any, baseline: str, measure: str, runs: Sequence[str] | None = None,
                       ) -> dict[str, np.ndarray]:
    """Per run other than ``baseline``: its per-query differences against it on ``measure`` (a label of
    ``per_query``, the tidy ``Experiment.per_query``), from the largest gain to the largest loss; the
    package's ties (:func:`~ir_measures_graded.statistics.differences`) are 0."""
    from ir_measures_graded.experiments.comparison import wide

    runs = list(dict.fromkeys(per_query["run"])) if runs is None else list(runs)
    of = wide(per_query, measure)
    base = of.loc[baseline].to_numpy(dtype=float)
    return {run: np.sort(statistics.differences(of.loc[run].to_numpy(dtype=float), base)[0])[::-1]
            for run in runs if run != baseline}


def query_differences(exp: Any, baseline: Any = None, measure: Any = None) -> Any:
    """Each run's per-query differences against ``baseline`` (default: the experiment's, else the first
    run) on ``measure`` (a label; default the first measure), sorted from the largest gain to the largest
    loss: one panel per run, the y axis shared, gains and losses in two colours, and each run's wins,
    ties and losses over its panel."""
    from matplotlib.collections import PolyCollection

    if len(exp.runs) < 2:
        raise GradedInputError("per-query differences compare runs with a baseline: give at least two runs")
    base = exp.baseline_run(baseline)
    label = exp.labels[0] if measure is None else exp.label[exp.measure(measure)]
    found = sorted_differences(exp.per_query, base, label, exp.runs)
    columns = min(3, len(found))
    rows = math.ceil(len(found) / columns)
    fig = new_figure(WIDTH, 0.7 + 1.35 * rows)
    axes = fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False)
    name_length = max(6, int((WIDTH - 0.6) / columns * 72 / (0.6 * SMALL)) - 2)  # characters that fit over a panel
    titles = labels(list(found), name_length)
    for ax, (run, d), title in zip(axes.flat, found.items(), titles, strict=False):
        x = np.arange(len(d), dtype=float)
        top, zero = d, np.zeros_like(d)
        # one collection of rectangles for the run (a patch per bar costs a second per thousand queries)
        corners = np.stack([np.column_stack(c) for c in ((x, zero), (x, top), (x + 1, top), (x + 1, zero))], axis=1)
        ax.add_collection(PolyCollection(corners, facecolors=np.where(d > 0, GAIN, LOSS), edgecolors="none",
                                         gid=f"run:{run}"))
        ax.axhline(0, color="black", linewidth=0.5)
        wins, ties, losses = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())
        ax.set_title(f"{title}\n+{wins} ={ties} −{losses}", fontsize=SMALL)
        ax.set_xlim(0, max(1, len(d)))
        ax.set_xticks([])
        ax.tick_params(labelsize=SMALL)
        ax.autoscale_view(scalex=False)
    for ax in axes.flat[len(found):]:
        ax.remove()
    for ax in axes[:, 0]:
        ax.set_ylabel(f"Δ {label}", fontsize=FONT)
    fig.supxlabel(f"{len(exp.judged)} queries, sorted by Δ against {short(base)}", fontsize=FONT)
    return fig


def _scale_table(exp_or_table: Any) -> Any:
    if hasattr(exp_or_table, "breakdown"):  # an Experiment
        from ir_measures_graded.meta.scale import scale_dependence

        return scale_dependence(exp_or_table)
    return getattr(exp_or_table, "scale", exp_or_table)  # a MetaReport, or the table itself


def scale_axes(ax: Any, table: Any, column: str = "kendall_tau", details: str | None = "max_abs_delta") -> Any:
    """``table[column]`` (a scale check's, -1 … 1) as a grid on ``ax``: measures (rows, in the table's
    order) × transforms; each cell holds its value, and ``details`` under it. Returns the image."""
    measures = list(dict.fromkeys(table["measure"]))
    transforms = list(dict.fromkeys(table["transform"]))
    grid = table.pivot(index="measure", columns="transform", values=column).reindex(index=measures,
                                                                                    columns=transforms)
    values = grid.to_numpy(dtype=float)
    from matplotlib import colormaps

    image = ax.imshow(np.ma.masked_invalid(values), vmin=-1, vmax=1, aspect="auto", alpha=0.8,
                      cmap=colormaps["RdYlGn"].with_extremes(bad="0.85"))  # n/a: grey
    extra = None if details is None else table.pivot(index="measure", columns="transform", values=details).reindex(
        index=measures, columns=transforms).to_numpy(dtype=float)
    for (i, j), value in np.ndenumerate(values):
        text = "n/a" if np.isnan(value) else f"{value:.2f}"
        if extra is not None and not np.isnan(extra[i, j]):
            text += f"\n{extra[i, j]:.3f}"
        ax.text(j, i, text, ha="center", va="center", fontsize=SMALL - 0.5, linespacing=1.0)
    rotation = 30 if max((len(t) for t in transforms), default=0) <= 10 else 90
    ax.set_xticks(range(len(transforms)), transforms, rotation=rotation, ha="right" if rotation == 30 else "center",
                  rotation_mode="anchor" if rotation == 30 else "default")
    ax.set_yticks(range(len(measures)), measures)
    ax.tick_params(labelsize=SMALL, length=0)
    return image


def scale_grid(exp_or_scale_table: Any) -> Any:
    """The scale check as a grid, measures × label transforms: in each cell Kendall's τ-b between the
    runs' ranking on the original and on the transformed labels (also its colour: 1 = the same order)
    and, under it, the largest change of a run's score. Takes an Experiment (the check is computed with
    the default transforms), a MetaReport or ``scale_dependence``'s table."""
    table = _scale_table(exp_or_scale_table)
    if not len(table):
        raise GradedInputError("the scale check holds no transform: nothing to draw")
    n_measures = table["measure"].nunique()
    fig = new_figure(WIDTH, 1.2 + 0.32 * n_measures)
    ax = fig.add_subplot()
    image = scale_axes(ax, table)
    bar = fig.colorbar(image, ax=ax, shrink=0.9, aspect=15, pad=0.02)
    bar.set_label("Kendall τ-b", fontsize=SMALL)
    bar.ax.tick_params(labelsize=SMALL)
    ax.set_xlabel("label transform (cell: τ-b; under it, max |Δ score|)", fontsize=FONT)
    return fig


def intervals(comparison: Any, measures: Sequence[str] | None = None) -> Any:
    """Each run against the baseline (a :class:`~ir_measures_graded.experiments.comparison.Comparison`,
    or an Experiment compared with its defaults): per measure a panel, per run its mean difference Δ
    with the t interval at ``1 - alpha``, filled where the corrected p-value is below alpha, and the
    tables' mark (†, ‡) after the run's name; a measure that is not tested shows Δ alone.
    ``measures``: labels (default every measure, at most 3 panels a row)."""
    if hasattr(comparison, "breakdown"):  # an Experiment
        if len(comparison.runs) < 2:
            raise GradedInputError("intervals compare runs with a baseline: give at least two runs")
        comparison = comparison.compare()
    from matplotlib.ticker import MaxNLocator

    from ir_measures_graded.experiments.tables import mark, marks

    table, testing = comparison.table, comparison.testing
    table = table[table["run"] != comparison.baseline]
    chosen = list(dict.fromkeys(table["measure"])) if measures is None else list(measures)
    unknown = [m for m in chosen if m not in set(table["measure"])]
    if unknown or not chosen:
        raise GradedInputError(f"no comparison of {', '.join(unknown) or 'any measure'}: the measures are "
                               f"{', '.join(dict.fromkeys(table['measure']))}")
    runs = list(dict.fromkeys(table["run"]))
    columns = min(3, len(chosen))
    rows = math.ceil(len(chosen) / columns)
    fig = new_figure(WIDTH, 0.75 + rows * (0.45 + 0.22 * len(runs)))
    marked: list[tuple[Any, Any]] = []  # (panel, mark): each kept inside its panel once laid out
    axes = fig.subplots(rows, columns, sharey=True, squeeze=False)
    y = np.arange(len(runs))
    names = max(6, int(1.0 * 72 / (0.6 * SMALL)))  # the runs' names take at most about 1 in
    panel = max(6, int((WIDTH - 1.2) / columns * 72 / (0.6 * SMALL)) - 1)  # characters over a panel
    for ax, measure in zip(axes.flat, chosen, strict=False):
        of = table[table["measure"] == measure].set_index("run").reindex(runs)
        delta = of["delta"].to_numpy(dtype=float)
        low, high = of["ci_low"].to_numpy(dtype=float), of["ci_high"].to_numpy(dtype=float)
        p = of["p_adjusted"].to_numpy(dtype=float)
        tested = ~np.isnan(low)
        # a one-sided interval's open end (±∞) is drawn as an arrow to the panel's edge, after the limits
        shown_low, shown_high = np.where(np.isinf(low), delta, low), np.where(np.isinf(high), delta, high)
        ax.errorbar(delta[tested], y[tested],
                    xerr=[delta[tested] - shown_low[tested], shown_high[tested] - delta[tested]],
                    fmt="none", ecolor="black", elinewidth=1, capsize=2, gid=f"intervals:{measure}")
        significant = testing.significant(p)
        ax.scatter(delta, y, s=16, zorder=3, facecolors=np.where(significant, "black", "white"),
                   edgecolors="black", linewidths=0.8, gid=f"delta:{measure}")
        for k in np.flatnonzero(significant):
            marked.append((ax, ax.annotate(mark(p[k], testing.levels), (shown_high[k] if tested[k] else delta[k], y[k]),
                                           xytext=(2, 0), textcoords="offset points", va="center", fontsize=SMALL,
                                           annotation_clip=False, gid=f"mark:{measure}")))
        ax.axvline(0, color="grey", linewidth=0.6)
        ax.set_title(elided(measure, panel) + ("" if tested.any() else "\n(not tested)"), fontsize=SMALL)
        ax.tick_params(labelsize=SMALL)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=3))  # narrow panels: ticks that never touch
        ax.margins(x=0.15)
        if np.isinf(low[tested]).any() or np.isinf(high[tested]).any():
            # the finite ends and 0 (a one-sided interval is about crossing it) set the limits
            edges = ax.get_xlim()
            left, right = min(edges[0], -0.05 * (edges[1] - edges[0])), max(edges[1], 0.05 * (edges[1] - edges[0]))
            ax.set_xlim(left, right)
            for k in np.flatnonzero(tested & (np.isinf(low) | np.isinf(high))):
                end = 1.0 if high[k] > 0 else 0.0  # the panel's edge, wherever its limits end up
                start = shown_low[k] if np.isinf(high[k]) else shown_high[k]
                ax.annotate("", xy=(end, y[k]), xytext=(start, y[k]), annotation_clip=False,
                            xycoords=("axes fraction", "data"), textcoords="data",
                            arrowprops={"arrowstyle": "->", "linewidth": 1, "color": "black", "shrinkA": 0,
                                        "shrinkB": 0}, gid=f"open-interval:{measure}")
    for ax in axes.flat[len(chosen):]:
        ax.remove()
    axes[0, 0].set_yticks(y, labels(runs, names))
    axes[0, 0].invert_yaxis()
    loose, strict = marks(len(testing.levels))
    fig.supxlabel(f"Δ against {short(comparison.baseline)}, {testing.percent} {testing.sided}t interval\n"
                  f"filled, {loose}: p < {testing.levels[0]:g}; {strict}: p < {testing.levels[1]:g}", fontsize=SMALL)
    _inside(fig, marked)
    _spaced(fig, [ax for ax in axes.flat[:len(chosen)]])
    return fig


def _spaced(fig: Any, panels: Sequence[Any], gap: float = 2.0) -> None:
    """Fewer x ticks on a panel whose tick labels come closer than ``gap`` pixels (a narrow panel)."""
    from matplotlib.ticker import MaxNLocator

    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    for ax in panels:
        boxes = sorted((t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_visible() and t.get_text()),
                       key=lambda box: box.x0)
        if any(right.x0 - left.x1 < gap for left, right in zip(boxes, boxes[1:], strict=False)):
            ax.xaxis.set_major_locator(MaxNLocator(nbins=2))


def _inside(fig: Any, marked: Sequence[tuple[Any, Any]], pad: float = 2.0) -> None:
    """Widen each panel's x limits on the side its marks stick out of (``pad`` pixels more), so that no mark
    is cut by the panel's frame or the figure's edge: a mark at x0 + w pixels right of its point (x) fits a
    panel [left, right] of W pixels when right >= left + (x - left) · W / (W - w). Laid out again after
    each pass (the limits change the tick labels, which change the panels' widths)."""
    for _ in range(3):
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        moved = False
        for ax in dict.fromkeys(ax for ax, _ in marked):
            box = ax.get_window_extent(renderer)
            left, right = ax.get_xlim()
            wanted = right
            for _, text in (m for m in marked if m[0] is ax):
                extent = text.get_window_extent(renderer)
                point = ax.transData.transform((text.xy[0], 0))[0]
                reach = extent.x1 + pad - point  # pixels right of its point
                if extent.x1 + pad > box.x1 and reach < box.width:
                    wanted = max(wanted, left + (text.xy[0] - left) * box.width / (box.width - reach))
            if wanted > right:
                ax.set_xlim(left, wanted)
                moved = True
        if not moved:
            return
