"""The report's leaderboard section (the organiser's view, #43): a template of its own rendered by
:func:`section`, the numbers :func:`ir_measures_graded.organiser.leaderboard`'s."""

from __future__ import annotations

from importlib import resources
from typing import Any

import pandas as pd

from ir_measures_graded.experiments.formats import number
from ir_measures_graded.organiser.letters import group_names, ordered_names

__all__ = ["section", "rows"]


def rows(table: pd.DataFrame, by: str) -> dict[str, Any]:
    """What the section shows of a leaderboard's tidy table (rows in its order): per run its rank by
    ``by``, per measure the value with its letters, and which of ``by``'s letters it holds."""
    runs = list(pd.unique(table["run"]))
    measures = list(pd.unique(table["measure"]))
    cells = table.set_index(["run", "measure"])
    letters = ordered_names(list(cells.xs(by, level="measure")["group"]))
    shown = []
    for run in runs:
        mine = cells.loc[(run, by)]
        shown.append({
            "run": run, "rank": "" if pd.isna(mine["rank"]) else int(mine["rank"]),
            "cells": [{"value": repr(float(cells.loc[(run, m), "value"])), "group": cells.loc[(run, m), "group"],
                       "shown": number(cells.loc[(run, m), "value"], 4, missing="–")}
                      for m in measures],
            "groups": [letter in group_names(mine["group"]) for letter in letters]})
    return {"by": by, "measures": measures, "letters": letters, "rows": shown}


def section(report: Any) -> Any:
    """The section's HTML (markup), or None when the report has no leaderboard."""
    if getattr(report, "leaderboard", None) is None:
        return None
    import jinja2
    from markupsafe import Markup

    board = report.leaderboard
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    template = env.from_string((resources.files("ir_measures_graded.reports") / "leaderboard.html.j2")
                               .read_text(encoding="utf-8"))
    shown = rows(board.table, board.by)
    shown.update(test=board.testing.describe_pairs(), alpha=board.testing.alpha, notes=board.notes)
    return Markup(template.render(s=shown))
