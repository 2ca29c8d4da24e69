"""Every figure the package draws starts here: a matplotlib Figure that leaves no trace in the caller's
matplotlib state (no backend switched, no figure left open with pyplot).

Outside a notebook a Figure with its own Agg canvas, never registered with pyplot (nothing to close,
no "More than 20 figures" warning however many are drawn, and ``savefig`` works in every format);
in a notebook whose backend is the inline one, pyplot's, so that it shows under the cell (which then
closes it). matplotlib (the ``meta`` extra) is imported only when a figure is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["new_figure", "COLUMN", "FONT", "SMALL", "short", "labels", "elided"]

#: Every figure's width in inches: one column of a two-column paper (ACM and IEEE columns are 3.33–3.5 in).
COLUMN = 3.5
FONT = 8  # points: titles and axis labels
SMALL = 7  # points: tick labels, legends, numbers in cells
LONGEST = 34  # characters of a run's name shown (the middle elided beyond)


def new_figure(width: float, height: float, layout: str | None = "constrained") -> Any:
    """A Figure ``width`` × ``height`` inches with ``layout`` (``"constrained"``, ``"tight"`` or None)."""
    from ir_measures_graded.lazy import require

    require("matplotlib", "meta", "the figures")
    import matplotlib

    # the backend as set, not resolved (resolving it would import pyplot and pick one)
    if "inline" in str(dict.__getitem__(matplotlib.rcParams, "backend")):
        import matplotlib.pyplot as plt

        return plt.figure(figsize=(width, height), layout=layout)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(fig)
    return fig


def short(name: Any, longest: int = LONGEST) -> str:
    """A run's name as a label: the name its tables print (the experiment's, by the one naming rule:
    the file name, with as many parent folders as tell the runs apart), its middle elided when longer
    than ``longest``."""
    return elided(str(name), longest)


def labels(names: Sequence[Any], longest: int = LONGEST) -> list[str]:
    """The runs' labels (:func:`short`), except where eliding would make two the same: those keep their
    whole names, so that a figure tells apart every run its tables do."""
    shown = [short(name, longest) for name in names]
    return [label if shown.count(label) == 1 else str(name) for label, name in zip(shown, names, strict=True)]


def elided(text: str, longest: int) -> str:
    """``text``, its middle elided when longer than ``longest`` characters."""
    if len(text) <= longest:
        return text
    keep = max(1, longest - 1)
    return text[: (keep + 1) // 2] + "…" + text[len(text) - keep // 2:]
