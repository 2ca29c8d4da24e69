"""Checking a drawn matplotlib figure as a reader sees it: the texts actually drawn, where they are."""

from __future__ import annotations

from itertools import combinations
from typing import Any


def drawn_texts(fig: Any) -> list[tuple[str, Any]]:
    """``(text, window extent)`` of every text the figure draws (titles, labels, tick labels, legends,
    annotations, cell numbers): recorded while the figure is drawn, so ticks outside the view, hidden or
    empty texts are not counted."""
    from matplotlib.text import Text

    found = []
    draw = Text.draw

    def recording(self, renderer):
        draw(self, renderer)
        if self.get_visible() and self.get_text().strip():
            found.append((self.get_text(), self.get_window_extent(renderer)))

    Text.draw = recording
    try:
        fig.canvas.draw()
    finally:
        Text.draw = draw
    return found


def overlapping_texts(fig: Any, slack: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of drawn texts whose boxes overlap by more than ``slack`` pixels both ways, and texts that
    reach outside the figure (paired with ``"<figure edge>"``)."""
    texts = drawn_texts(fig)
    width, height = fig.canvas.get_width_height()
    clashes = [(a, b) for (a, p), (b, q) in combinations(texts, 2)
               if min(p.x1, q.x1) - max(p.x0, q.x0) > slack and min(p.y1, q.y1) - max(p.y0, q.y0) > slack]
    clashes += [(a, "<figure edge>") for a, p in texts
                if p.x0 < -slack or p.y0 < -slack or p.x1 > width + slack or p.y1 > height + slack]
    return clashes
