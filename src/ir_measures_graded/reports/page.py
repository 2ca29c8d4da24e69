"""The report's HTML: a Jinja2 template (autoescaped) with the stylesheet, script and SVG inlined."""

from __future__ import annotations

import math
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import numpy as np
import pandas as pd

from ir_measures_graded.experiments import tables
from ir_measures_graded.experiments.formats import number
from ir_measures_graded.experiments.naming import display
from ir_measures_graded.reports import build, figures
from ir_measures_graded.reports.judges import section as judges_section
from ir_measures_graded.reports.leaderboard import section as leaderboard_section

if TYPE_CHECKING:
    from ir_measures_graded.reports import Report

WORST = 5
#: The per-query table is embedded in the page (a download link) up to this many rows.
MAX_DOWNLOAD_ROWS = 20_000


def asset(name: str) -> str:
    return (resources.files("ir_measures_graded.reports") / name).read_text(encoding="utf-8")


def render(report: Report) -> str:
    """The page of ``report`` as one HTML document."""
    import jinja2
    from markupsafe import Markup

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    template = env.from_string(asset("page.html.j2"))
    figs = {
        "thresholds": [{"figure": figures.threshold_figure(report.levels, m, report.runs, report.baseline),
                        "contributions": contributions(report.levels, m, report.runs)}
                       for m in pd.unique(report.levels["measure"])],
        "queries": per_query_sections(report) if len(report.runs) > 1 and report.queries else [],
    }
    return template.render(
        r=report, css=Markup(asset("page.css")), js=Markup(asset("page.js")), Markup=Markup,
        summary=summary_rows(report), measures=measure_rows(report), sources=source_rows(report),
        differs=list(report.untested), thresholds=figs["thresholds"], queries=figs["queries"],
        scale=scale_view(report), level=report.testing.percent, testing=report.testing,
        fmt=fmt, signed=signed, per_query_csv=per_query_csv(report), leaderboard=leaderboard_section(report),
        judges=judges_section(report),
    )


def per_query_csv(report: Report) -> str:
    """The per-query table as a percent-encoded CSV for a download link; empty beyond
    :data:`MAX_DOWNLOAD_ROWS` rows (the page stays small: it says where to get them)."""
    if len(report.per_query) > MAX_DOWNLOAD_ROWS:
        return ""
    return quote(report.per_query.to_csv(index=False, lineterminator="\n"), safe=",._-@ ")


def fmt(value: float, places: int = 4) -> str:
    """A value on the page: the tables' :func:`~ir_measures_graded.experiments.formats.number`, a dash
    where there is none."""
    return number(value, places, missing="–")


def signed(value: float, places: int = 4) -> str:
    return number(value, places, signed=True, missing="–")


def summary_rows(report: Report) -> list[dict[str, Any]]:
    """Per run: its name and, per measure, the aggregate, the comparison with the baseline and W/T/L."""
    values = report.summary.set_index(["run", "measure"])["value"]
    compared = report.comparison.set_index(["run", "measure"])
    alpha = report.testing.alpha
    rows = []
    for name in report.runs:
        cells = []
        for label in report.labels:
            key = (name, label)
            c = compared.loc[key]
            c = {k: (np.nan if pd.isna(v) else v) for k, v in c.items()}  # a row of mixed types: NA as NaN
            marker = report.testing.direction(c["delta"], c["p_adjusted"])
            cells.append({
                "measure": label, "value": float(values[key]), "delta": float(c["delta"]),
                "low": float(c["ci_low"]), "high": float(c["ci_high"]), "boot_low": float(c["boot_low"]),
                "boot_high": float(c["boot_high"]), "d_z": float(c["effect_size"]), "p": float(c["p_value"]),
                "p_adjusted": float(c["p_adjusted"]), "marker": marker,
                "interval": tables.interval_text(c["ci_low"], c["ci_high"], 3),
                "boot_interval": tables.interval_text(c["boot_low"], c["boot_high"], 3),
                "p_shown": "" if math.isnan(c["p_adjusted"]) else
                f"p = {tables.format_p(c['p_adjusted'], c['test'], levels=(alpha,))}",
                **{k: None if pd.isna(c[k]) else int(c[k]) for k in ("wins", "ties", "losses")},
            })
        rows.append({"run": name, "baseline": name == report.baseline, "cells": cells})
    return rows


def contributions(levels: pd.DataFrame, measure: str, runs: list[str]) -> dict[str, Any] | None:
    """What each threshold adds to each run's value (the breakdown's ``contribution``, which adds up to
    it): a row per run, a column per threshold and the total; None beyond
    :data:`figures.MAX_LABELLED_THRESHOLDS` thresholds (real-valued labels: the figure's hover says it)."""
    of = levels[levels["measure"] == measure]
    thresholds = list(pd.unique(of["threshold"]))
    if not thresholds or len(thresholds) > figures.MAX_LABELLED_THRESHOLDS:
        return None
    wide = of.pivot(index="run", columns="threshold", values="contribution").reindex(index=runs, columns=thresholds)
    return {"thresholds": [f"{t:g}" for t in thresholds],
            "rows": [{"run": name, "cells": [float(v) for v in wide.loc[name]], "total": float(wide.loc[name].sum())}
                     for name in runs]}


def measure_rows(report: Report) -> list[dict[str, str]]:
    rows = []
    for m, label in zip(report.measures, report.labels, strict=True):
        params = build.measure_parameters(m)
        shown = ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in params.items())
        name = label if label == str(m) else f"{label} ({m})"
        rows.append({"name": name, "params": shown or "(none)", "about": getattr(m, "SHORT_DESC", "") or ""})
    return rows


def source_rows(report: Report) -> list[dict[str, str]]:
    rows = []
    for s in report.sources:
        size = f"{s.rows:,} rows" + (f", {s.size:,} bytes" if s.size is not None else "")
        origin = "in memory" if s.origin is None else display(s.origin)  # as every message names an input
        rows.append({"role": s.role, "name": s.name, "origin": origin, "size": size, "sha256": s.sha256,
                     "hashed": s.hashed})
    return rows


def per_query_sections(report: Report) -> list[dict[str, Any]]:
    """Per measure: the sorted-difference figure and the worst queries of each run (none of a run with no
    judged document: it loses every query the baseline scores on, which says nothing of the queries)."""
    sections = []
    for label in report.labels:
        wide = build.wide_values(report.per_query, label)
        judged = wide.drop(columns=[r for r in report.unjudged if r in wide.columns and r != report.baseline])
        sections.append({"measure": label, "figure": figures.difference_figure(wide, label, report.baseline),
                         "worst": figures.worst_queries(judged, report.baseline, WORST).to_dict("records")})
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
