"""Every figure the package draws starts here: a matplotlib Figure that leaves no trace in the caller's
matplotlib state (no backend switched, no figure left open with pyplot).

Outside a notebook a Figure with its own Agg canvas, never registered with pyplot (nothing to close,
no "More than 20 figures" warning however many are drawn, and ``savefig`` works in every format);
in a notebook whose backend is the inline one, pyplot's, so that it shows under the cell (which then
closes it). matplotlib (the ``meta`` extra) is imported only when a figure is made.
"""

from __future__ import annotations

from typing import Any

__all__ = ["new_figure"]


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
