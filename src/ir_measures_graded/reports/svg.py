"""Inline SVG line charts for the report: small, self-contained, printable, no script needed.

Every run is one ``<g class="series" data-series="NAME">`` (what the browser test counts); each
point carries a ``<title>`` (shown on hover) with what it is. Styling (fonts, strokes of axes)
comes from the page's stylesheet; colours of the series are attributes, so they print.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

#: Okabe & Ito's colour-blind-safe palette (without its yellow, too light on white).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
DASHES = ("", "6 3", "2 2", "8 3 2 3")


def style(index: int) -> tuple[str, str]:
    """Colour and dash pattern of the ``index``-th run (dashes tell runs apart beyond the palette)."""
    return PALETTE[index % len(PALETTE)], DASHES[(index // len(PALETTE)) % len(DASHES)]


@dataclass
class Point:
    x: float
    y: float
    hover: str


@dataclass
class Band:
    """A shaded range ``[low, high]`` over ``[x0, x1]`` (a bin of many points), with its hover text."""

    x0: float
    x1: float
    low: float
    high: float
    hover: str


@dataclass
class Series:
    name: str
    color: str
    dash: str = ""
    points: list[Point] = field(default_factory=list)
    bands: list[Band] = field(default_factory=list)
    markers: bool = True
    width: float = 1.8
    marks: list[Point] | None = None  # the points drawn with a hover text, when not all of ``points``


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``[low, high]`` (1, 2, 2.5 or 5 times a power of ten apart)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return []
    if high <= low:
        return [low]
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9) * step
    ticks, k = [], 0
    while first + k * step <= high + step * 1e-9:
        ticks.append(round(first + k * step, 12))
        k += 1
    return ticks


def tick_label(value: float) -> str:
    return f"{value:g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.1e}"


@dataclass
class Chart:
    """A line chart in data coordinates; :meth:`svg` draws axes, grid, series and labels."""

    x_range: tuple[float, float]
    y_range: tuple[float, float]
    x_label: str
    y_label: str
    title: str
    width: int = 640
    height: int = 300
    left: int = 58
    right: int = 24
    top: int = 14
    bottom: int = 46
    x_ticks: Sequence[float] | None = None
    x_tick_labels: Sequence[str] | None = None
    under_ticks: Sequence[str] | None = None  # a second row under the x tick labels (e.g. "n=30")
    zero_line: bool = False

    def x(self, value: float) -> float:
        lo, hi = self.x_range
        span = (hi - lo) or 1.0
        return self.left + (value - lo) / span * (self.width - self.left - self.right)

    def y(self, value: float) -> float:
        lo, hi = self.y_range
        span = (hi - lo) or 1.0
        return self.height - self.bottom - (value - lo) / span * (self.height - self.top - self.bottom)

    def svg(self, series: Sequence[Series]) -> str:
        parts = [f'<svg class="chart" viewBox="0 0 {self.width} {self.height}" role="img" '
                 f'xmlns="http://www.w3.org/2000/svg"><title>{escape(self.title)}</title>']
        parts.append(self._axes())
        for s in series:
            parts.append(self._series(s))
        parts.append("</svg>")
        return "".join(parts)

    def _axes(self) -> str:
        bottom, right = self.height - self.bottom, self.width - self.right
        out = ['<g class="axes">']
        for value in nice_ticks(*self.y_range):
            y = self.y(value)
            out.append(f'<line class="grid" x1="{self.left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}"/>'
                       f'<text class="tick" x="{self.left - 5}" y="{y + 3.5:.1f}" text-anchor="end">'
                       f"{tick_label(value)}</text>")
        if self.zero_line and self.y_range[0] < 0 < self.y_range[1]:
            out.append(f'<line class="zero" x1="{self.left}" x2="{right}" y1="{self.y(0):.1f}" y2="{self.y(0):.1f}"/>')
        ticks = list(self.x_ticks) if self.x_ticks is not None else nice_ticks(*self.x_range, count=6)
        labels = list(self.x_tick_labels) if self.x_tick_labels is not None else [tick_label(t) for t in ticks]
        for k, (value, label) in enumerate(zip(ticks, labels, strict=True)):
            x = self.x(value)
            out.append(f'<line class="tickmark" x1="{x:.1f}" x2="{x:.1f}" y1="{bottom}" y2="{bottom + 4}"/>'
                       f'<text class="tick" x="{x:.1f}" y="{bottom + 15}" text-anchor="middle">{escape(label)}</text>')
            if self.under_ticks is not None:
                out.append(f'<text class="tick count" x="{x:.1f}" y="{bottom + 27}" text-anchor="middle">'
                           f"{escape(self.under_ticks[k])}</text>")
        out.append(f'<line class="frame" x1="{self.left}" x2="{self.left}" y1="{self.top}" y2="{bottom}"/>'
                   f'<line class="frame" x1="{self.left}" x2="{right}" y1="{bottom}" y2="{bottom}"/>')
        middle = (self.top + bottom) / 2
        out.append(f'<text class="label" x="14" y="{middle:.1f}" text-anchor="middle" '
                   f'transform="rotate(-90 14 {middle:.1f})">{escape(self.y_label)}</text>')
        out.append(f'<text class="label" x="{(self.left + right) / 2:.1f}" y="{self.height - 4}" '
                   f'text-anchor="middle">{escape(self.x_label)}</text>')
        out.append("</g>")
        return "".join(out)

    def _series(self, s: Series) -> str:
        dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
        marks = [] if s.bands else s.points if s.marks is None else s.marks  # a binned series hovers by its bands
        drawn = len(marks)
        out = [f'<g class="series" data-series="{escape(s.name)}" data-points="{drawn}" data-bins="{len(s.bands)}">']
        if s.bands:
            upper = " ".join(f"{self.x(b.x0):.1f},{self.y(b.high):.1f} {self.x(b.x1):.1f},{self.y(b.high):.1f}"
                             for b in s.bands)
            lower = " ".join(f"{self.x(b.x1):.1f},{self.y(b.low):.1f} {self.x(b.x0):.1f},{self.y(b.low):.1f}"
                             for b in reversed(s.bands))
            out.append(f'<polygon class="band" points="{upper} {lower}" fill="{s.color}" fill-opacity="0.18" '
                       'stroke="none"/>')
        if len(s.points) > 1:
            line = " ".join(f"{self.x(p.x):.1f},{self.y(p.y):.1f}" for p in s.points)
            out.append(f'<polyline class="line" points="{line}" fill="none" stroke="{s.color}" '
                       f'stroke-width="{s.width}"{dash}/>')
        for p in marks:
            radius = 3 if s.markers else 1.2
            out.append(f'<circle class="point" cx="{self.x(p.x):.1f}" cy="{self.y(p.y):.1f}" r="{radius}" '
                       f'fill="{s.color}"><title>{escape(p.hover)}</title></circle>')
        for b in s.bands:  # invisible hover targets, one per bin
            x0, x1 = self.x(b.x0), self.x(b.x1)
            y_hi, y_lo = self.y(b.high), self.y(b.low)
            top = min(y_hi, (y_hi + y_lo) / 2 - 4)  # at least 8 px tall, to be found by the mouse
            out.append(f'<rect class="hover" x="{x0:.1f}" y="{top:.1f}" width="{max(x1 - x0, 1):.1f}" '
                       f'height="{max(y_lo - y_hi, 8):.1f}" fill="transparent"><title>{escape(b.hover)}</title></rect>')
        out.append("</g>")
        return "".join(out)


def padded(low: float, high: float, share: float = 0.06) -> tuple[float, float]:
    """``[low, high]`` widened by ``share`` of its span on each side (a little when it is a point)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return 0.0, 1.0
    span = high - low or max(abs(high), 1.0) * 0.1
    return low - span * share, high + span * share


def legend(names: Sequence[str], styles: Sequence[tuple[str, str]], marked: str | None = None) -> str:
    """An HTML legend: a short line of each run's colour and dash, then its name."""
    items = []
    for name, (color, dash) in zip(names, styles, strict=True):
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        note = " (baseline)" if name == marked else ""
        items.append(f'<li><svg width="26" height="10" aria-hidden="true"><line x1="1" x2="25" y1="5" y2="5" '
                     f'stroke="{color}" stroke-width="2.5"{dashed}/></svg>{escape(name)}{note}</li>')
    return f'<ul class="legend">{"".join(items)}</ul>'
