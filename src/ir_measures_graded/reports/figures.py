"""The report's figures: per-threshold curves (the paper's Figs. 6-8) and sorted per-query differences.

Per-query plots stay small whatever the number of queries: up to :data:`MAX_POINTS` queries every
query is a point with its own hover text; beyond, the sorted differences are cut into
:data:`BINS` bins of consecutive queries, each drawn as its range (a band) and its mean (the line),
with the bin's queries, range and lowest query in its hover text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_measures_graded.experiments.formats import number
from ir_measures_graded.reports import svg

MAX_POINTS = 400
BINS = 200
MAX_LABELLED_THRESHOLDS = 15
#: Beyond this many thresholds (real-valued labels) a curve is drawn through this many of them ...
MAX_LINE_POINTS = 1000
#: ... and this many carry a hover text.
MAX_MARKED_THRESHOLDS = 200


@dataclass(frozen=True)
class Figure:
    """One figure: its title, the SVG, the HTML legend and how many series it draws."""

    title: str
    svg: str
    legend: str
    series: int
    note: str = ""


def run_styles(runs: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Each run's colour and dash, the same in every figure of the page."""
    return {name: svg.style(k) for k, name in enumerate(runs)}


def threshold_figure(levels: pd.DataFrame, measure: str, runs: Sequence[str], baseline: str | None) -> Figure:
    """M^t (MAP^t, P^t@k, RR^t, ...: :func:`threshold_label`) against the threshold t, a line per run, with the queries behind each point."""
    of = levels[levels["measure"] == measure]
    styles = run_styles(runs)
    label = threshold_label(measure)
    thresholds = np.unique(of["threshold"].to_numpy(dtype=np.float64))
    values = of["value"].to_numpy(dtype=np.float64)
    series = []
    for name in runs:
        rows = of[of["run"] == name]
        color, dash = styles[name]
        points = [svg.Point(float(r.threshold), float(r.value),
                            f"{name}: {label} at t={r.threshold:g}: {number(r.value, 4)} over {int(r.queries)} queries"
                            f" (weight {r.weight:g})")
                  for r in rows.itertuples(index=False)]
        line, marks = thinned(points, MAX_LINE_POINTS), thinned(points, MAX_MARKED_THRESHOLDS)
        series.append(svg.Series(name, color, dash, line, markers=len(points) <= 40,
                                 marks=None if len(marks) == len(line) else marks))
    few = len(thresholds) <= MAX_LABELLED_THRESHOLDS
    counts, queries = None, of["queries"].to_numpy()
    if few and len(of):
        first = of[of["run"] == runs[0]].set_index("threshold")["queries"]
        counts = [f"n={int(first.get(t, 0))}" for t in thresholds]
    many = (f"; {len(thresholds)} thresholds, {queries.max()}–{queries.min()} queries behind a point (hover)"
            if not few and len(of) else "")
    x_range = (float(thresholds[0]), float(thresholds[-1])) if len(thresholds) else (0.0, 1.0)
    if x_range[0] == x_range[1]:
        x_range = (x_range[0] - 0.5, x_range[1] + 0.5)
    else:
        x_range = svg.padded(*x_range, share=0.04)
    top = float(np.nanmax(values)) if len(values) and not np.all(np.isnan(values)) else 1.0
    chart = svg.Chart(
        x_range=x_range, y_range=(0.0, max(top * 1.05, 1e-9)),
        x_label="relevance threshold t (relevant: label ≥ t)" + ("; n = queries behind each point" if counts else many),
        y_label=label, title=f"{label} at each relevance threshold t, per run ({measure})",
        x_ticks=list(thresholds) if few else None,
        x_tick_labels=[f"{t:g}" for t in thresholds] if few else None, under_ticks=counts,
        bottom=58 if counts else 46,
    )
    return Figure(f"{label} — {measure}", chart.svg(series), svg.legend(list(runs), [styles[r] for r in runs],
                                                                         baseline), len(series))


def thinned(points: list[svg.Point], most: int) -> list[svg.Point]:
    """At most ``most`` of ``points``, evenly spaced, the first and the last kept."""
    if len(points) <= most:
        return points
    return [points[k] for k in np.unique(np.linspace(0, len(points) - 1, most).round().astype(np.int64))]


def threshold_label(measure: str) -> str:
    """The quantity M^t a thresholded measure combines, in the notation of the README and the paper:
    ``MAP^t`` for µAP, ``P^t@k`` for µP@k, ``RR^t`` for µRR, ``R^t@k`` for µR@k, ``Rprec^t`` for µRprec
    (``@k`` wherever the measure has a cutoff)."""
    import ir_measures

    parsed = ir_measures.parse_measure(measure)
    symbol = getattr(parsed, "AT_THRESHOLD", None)
    if symbol is None:  # not combined over thresholds: no M^t to name
        return str(parsed)
    cutoff = parsed.params.get("cutoff")
    return f"{symbol}^t" if cutoff is None else f"{symbol}^t@{cutoff}"


def difference_figure(wide: pd.DataFrame, measure: str, baseline: str) -> Figure:
    """Per query, each run's value minus the baseline's, sorted from the largest gain to the largest
    loss; ``wide`` has a row per query and a column per run (the baseline among them)."""
    runs = list(wide.columns)
    styles = run_styles(runs)
    others = [r for r in runs if r != baseline]
    n = len(wide)
    base = wide[baseline].to_numpy(dtype=np.float64)
    ids = wide.index.astype(str).to_numpy()
    series, low, high = [], 0.0, 0.0
    for name in others:
        value = wide[name].to_numpy(dtype=np.float64)
        d = value - base
        order = np.argsort(-d, kind="stable")
        d_sorted = d[order]
        if n:
            low, high = min(low, float(np.nanmin(d_sorted))), max(high, float(np.nanmax(d_sorted)))
        color, dash = styles[name]
        if n <= MAX_POINTS:
            points = [svg.Point(k + 1, float(d_sorted[k]),
                                f"{ids[q]}: {name} {number(value[q], 4)} vs {baseline} {number(base[q], 4)} "
                                f"(Δ {number(d[q], 4, signed=True)})")
                      for k, q in enumerate(order)]
            series.append(svg.Series(name, color, dash, points, markers=n <= 60, width=1.5))
        else:
            series.append(binned(name, color, dash, d_sorted, ids[order]))
    x_range = (0.5, n + 0.5) if n else (0.0, 1.0)
    y_range = svg.padded(low, high)
    chart = svg.Chart(x_range=x_range, y_range=y_range, zero_line=True,
                      x_label=f"queries, sorted by difference (1 = largest gain; {n} queries"
                      + (f", {BINS} bins" if n > MAX_POINTS else "") + ")",
                      y_label=f"Δ {measure} vs {baseline}",
                      title=f"Per-query difference to the baseline {baseline} ({measure}), sorted")
    note = (f"{n} queries: each run's sorted differences are drawn as {BINS} bins of consecutive queries "
            "(band: the bin's range; line: its mean); hover a bin for its queries." if n > MAX_POINTS else "")
    return Figure(f"Δ {measure} per query", chart.svg(series),
                  svg.legend(others, [styles[r] for r in others]), len(series), note)


def binned(name: str, color: str, dash: str, d_sorted: np.ndarray, ids_sorted: np.ndarray) -> svg.Series:
    """Sorted differences cut into :data:`BINS` bins of consecutive queries: range band, mean line."""
    n = len(d_sorted)
    edges = np.linspace(0, n, BINS + 1).round().astype(np.int64)
    points, bands = [], []
    for start, stop in zip(edges[:-1], edges[1:], strict=True):
        if stop <= start:
            continue
        part = d_sorted[start:stop]
        mean = float(np.mean(part))
        hover = (f"{name}: queries {start + 1}–{stop} of {n} by difference: Δ from {part[-1]:+.4f} to {part[0]:+.4f}, "
                 f"mean {mean:+.4f}; lowest {ids_sorted[stop - 1]}, highest {ids_sorted[start]}")
        points.append(svg.Point((start + stop + 1) / 2, mean, hover))
        bands.append(svg.Band(start + 0.5, stop + 0.5, float(part[-1]), float(part[0]), hover))
    return svg.Series(name, color, dash, points, bands, markers=False, width=1.5)


def worst_queries(wide: pd.DataFrame, baseline: str, count: int = 5) -> pd.DataFrame:
    """Per run, the ``count`` queries it loses most against the baseline (``run``, ``query_id``,
    ``value``, ``baseline``, ``delta``); only queries it loses: by the differences the tests and W/T/L
    take (:func:`~ir_measures_graded.statistics.differences`: within the package's tolerance, a tie)."""
    from ir_measures_graded import statistics

    rows = []
    base = wide[baseline]
    for name in wide.columns:
        if name == baseline:
            continue
        d = pd.Series(statistics.differences(wide[name].to_numpy(dtype=np.float64)[None, :],
                                             base.to_numpy(dtype=np.float64)[None, :])[0],
                      index=wide.index).sort_values(kind="stable")
        for qid, delta in d[d < 0].head(count).items():
            rows.append({"run": name, "query_id": str(qid), "value": float(wide.at[qid, name]),
                         "baseline": float(base[qid]), "delta": float(delta)})
    return pd.DataFrame(rows, columns=["run", "query_id", "value", "baseline", "delta"])
