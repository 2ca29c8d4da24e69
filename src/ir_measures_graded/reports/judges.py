"""The report's section of two judges (#53): a template of its own rendered by :func:`section`, the numbers
:func:`ir_measures_graded.judges.agree`'s — the label agreement over every topic, agreement on relevance at each
threshold, and which measures hold from judge A to judge B."""

from __future__ import annotations

from importlib import resources
from typing import Any

from ir_measures_graded.experiments.formats import number

__all__ = ["section"]

#: The label agreement's columns the section shows, with their headers.
LABEL_COLUMNS = {"common": "judged by both", "only_a": "by A only", "only_b": "by B only", "identical": "same grade",
                 "kappa": "κ", "kappa_linear": "κ linear", "kappa_quadratic": "κ quadratic",
                 "alpha_ordinal": "α ordinal", "alpha_interval": "α interval"}
SYSTEM_COLUMNS = {"measure": "measure", "judge": "judge", "scale_free": "scale-free", "tau": "τ", "tau_ap": "τ_AP",
                  "largest_change": "largest rank change", "moved": "run moved", "best_a": "best under A",
                  "best_b": "best under B", "only_a": "pairs separated by A only",
                  "only_b": "pairs separated by B only"}


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    return number(value, 4, missing="–") if isinstance(value, float) else ("–" if value is None or value != value
                                                                            else str(value))


def _rows(table: Any, columns: dict[str, str]) -> list[list[str]]:
    return [[_cell(row[c]) for c in columns] for row in table.to_dict("records")]


def section(report: Any) -> Any:
    """The section's HTML (markup), or None when the report compares no second judge."""
    found = getattr(report, "judges", None)
    if found is None:
        return None
    import jinja2
    from markupsafe import Markup

    labels = found.labels
    overall = labels.summary.table[labels.summary.table["query_id"] == "all"]
    thresholds = labels.thresholds.table[labels.thresholds.table["query_id"] == "all"]
    threshold_columns = {"threshold_a": f"{found.a} ≥", "threshold_b": f"{found.b} ≥", "both": "relevant to both",
                         "a_only": f"to {found.a} only", "b_only": f"to {found.b} only", "neither": "to neither",
                         "agreement": "agreement", "kappa": "κ"}
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    template = env.from_string((resources.files("ir_measures_graded.reports") / "judges.html.j2")
                               .read_text(encoding="utf-8"))
    shown = {
        "a": found.a, "b": found.b,
        "labels": {"header": list(LABEL_COLUMNS.values()), "rows": _rows(overall, LABEL_COLUMNS),
                   "notes": labels.summary.notes},
        "thresholds": {"header": list(threshold_columns.values()), "rows": _rows(thresholds, threshold_columns)},
        "systems": {"header": [h.replace("A", found.a, 1) if h.endswith(" A") or "by A" in h else
                               h.replace("B", found.b, 1) if h.endswith(" B") or "by B" in h else h
                               for h in SYSTEM_COLUMNS.values()],
                    "rows": _rows(found.systems.table, SYSTEM_COLUMNS), "notes": found.systems.notes},
    }
    return Markup(template.render(s=shown))
