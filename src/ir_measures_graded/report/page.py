"""The report's HTML: a Jinja2 template (autoescaped) with the stylesheet, script and SVG inlined."""

from __future__ import annotations

import math
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import numpy as np
import pandas as pd

from ir_measures_graded.experiment import tables
from ir_measures_graded.report import build, figures

if TYPE_CHECKING:
    from ir_measures_graded.report import Report

#: A measure's aggregate and the mean of its per-query values differ beyond this: the page says so.
SAME_MEAN = 1e-9
WORST = 5
#: The per-query table is embedded in the page (a download link) up to this many rows.
MAX_DOWNLOAD_ROWS = 20_000


def asset(name: str) -> str:
    return (resources.files("ir_measures_graded.report") / name).read_text(encoding="utf-8")


def render(report: Report) -> str:
    """The page of ``report`` as one HTML document."""
    import jinja2
    from markupsafe import Markup

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    template = env.from_string(asset("page.html.j2"))
    figs = {
        "thresholds": [figures.threshold_figure(report.levels, m, report.runs, report.baseline)
                       for m in pd.unique(report.levels["measure"])],
        "queries": per_query_sections(report) if len(report.runs) > 1 else [],
    }
    return template.render(
        r=report, css=Markup(asset("page.css")), js=Markup(asset("page.js")), Markup=Markup,
        summary=summary_rows(report), measures=measure_rows(report), sources=source_rows(report),
        differs=aggregate_differs(report), thresholds=figs["thresholds"], queries=figs["queries"],
        scale=scale_view(report), level=tables.percent(1 - report.settings["alpha"]),
        fmt=fmt, signed=signed, per_query_csv=per_query_csv(report),
    )


def per_query_csv(report: Report) -> str:
    """The per-query table as a percent-encoded CSV for a download link; empty beyond
    :data:`MAX_DOWNLOAD_ROWS` rows (the page stays small: it says where to get them)."""
    if len(report.per_query) > MAX_DOWNLOAD_ROWS:
        return ""
    return quote(report.per_query.to_csv(index=False, lineterminator="\n"), safe=",._-@ ")


def fmt(value: float, places: int = 4) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{places}f}"


def signed(value: float, places: int = 4) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:+.{places}f}"


def sort_key(value: float) -> str:
    """A cell's ``data-sort``: the exact value (``repr``), or empty for NaN (sorted last)."""
    return "" if value is None or math.isnan(value) else repr(float(value))


def summary_rows(report: Report) -> list[dict[str, Any]]:
    """Per run: its name and, per measure, the aggregate, the comparison with the baseline and W/T/L."""
    values = report.summary.set_index(["run", "measure"])["value"]
    compared = report.comparison.set_index(["run", "measure"])
    alpha = report.settings["alpha"]
    rows = []
    for name in report.runs:
        cells = []
        for m in report.measures:
            key = (name, str(m))
            c = compared.loc[key]
            significant = bool(c["p_adjusted"] < alpha) if not math.isnan(c["p_adjusted"]) else False
            marker = ("▲" if c["delta"] > 0 else "▼") if significant else ""
            cells.append({
                "measure": str(m), "value": float(values[key]), "delta": float(c["delta"]),
                "low": float(c["ci_low"]), "high": float(c["ci_high"]), "boot_low": float(c["boot_low"]),
                "boot_high": float(c["boot_high"]), "d_z": float(c["effect_size"]), "p": float(c["p_value"]),
                "p_adjusted": float(c["p_adjusted"]), "marker": marker,
                "p_shown": "" if math.isnan(c["p_adjusted"]) else
                f"p = {tables.format_p(c['p_adjusted'], c['test'], levels=(alpha,))}",
                **{k: None if pd.isna(c[k]) else int(c[k]) for k in ("wins", "ties", "losses")},
            })
        rows.append({"run": name, "baseline": name == report.baseline, "cells": cells})
    return rows


def aggregate_differs(report: Report) -> list[str]:
    """Measures whose ``calc_aggregate`` is not the mean of the per-query values the tests use."""
    from ir_measures_graded import meta

    means = meta.scores(report.per_query).stack().rename("mean")
    values = report.summary.set_index(["run", "measure"])["value"]
    joined = pd.concat([values.rename("aggregate"), means], axis=1)
    far = (joined["aggregate"] - joined["mean"]).abs() > SAME_MEAN
    return list(dict.fromkeys(joined.index[far].get_level_values("measure")))


def measure_rows(report: Report) -> list[dict[str, str]]:
    rows = []
    for m in report.measures:
        params = build.measure_parameters(m)
        shown = ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in params.items())
        rows.append({"name": str(m), "params": shown or "(none)", "about": getattr(m, "SHORT_DESC", "") or ""})
    return rows


def source_rows(report: Report) -> list[dict[str, str]]:
    rows = []
    for s in report.sources:
        size = f"{s.rows:,} rows" + (f", {s.size:,} bytes" if s.size is not None else "")
        rows.append({"role": s.role, "name": s.name, "origin": s.origin, "size": size, "sha256": s.sha256,
                     "hashed": s.hashed})
    return rows


def per_query_sections(report: Report) -> list[dict[str, Any]]:
    """Per measure: the sorted-difference figure and the worst queries of each run."""
    sections = []
    for m in report.measures:
        wide = build.wide_values(report.per_query, str(m))
        sections.append({"measure": str(m), "figure": figures.difference_figure(wide, str(m), report.baseline),
                         "worst": figures.worst_queries(wide, report.baseline, WORST).to_dict("records")})
    return sections


def scale_view(report: Report) -> dict[str, Any] | None:
    """The scale check as a measures × transforms grid, and the measures whose verdict changes."""
    if report.scale is None:
        return None
    table = report.scale
    # τ_AP as meta reports it: the tie-aware τ_AP,b ("tau_ap_b") where meta has it, else Yilmaz's "tau_ap"
    tau_ap_column = "tau_ap_b" if "tau_ap_b" in table.columns else "tau_ap"
    transforms = list(pd.unique(table["transform"]))
    grid = []
    changed: dict[str, list[str]] = {}
    for m in pd.unique(table["measure"]):
        row = table[table["measure"] == m].set_index("transform")
        cells = []
        for t in transforms:
            c = row.loc[t]
            tau, tau_ap, delta = (float(c["kendall_tau"]), float(c[tau_ap_column]), float(c["max_abs_delta"]))
            same = c["same_ranking"]
            state = "na" if same is None or (isinstance(same, float) and np.isnan(same)) else (
                "same" if bool(same) else "changed")
            if state == "changed":
                changed.setdefault(m, []).append(t)
            cells.append({"transform": t, "tau": tau, "tau_ap": tau_ap, "delta": delta, "state": state,
                          "note": str(c["note"] or "")})
        grid.append({"measure": m, "cells": cells})
    return {"transforms": transforms, "grid": grid, "changed": changed,
            "tau_ap": "τ_AP,b" if tau_ap_column == "tau_ap_b" else "τ_AP"}
