"""Figures of a :class:`~ir_measures_graded.meta.MetaReport` (matplotlib, imported only here)."""

from __future__ import annotations

from typing import Any

import numpy as np


def report_figure(report: Any, title: str = "") -> Any:
    """Three panels: τ per transform and measure, the ASL curves, and τ across query halves."""
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (scale_ax, asl_ax, stab_ax) = plt.subplots(1, 3, figsize=(16, 4.8), constrained_layout=True)
    tau = report.scale.pivot(index="measure", columns="transform", values="kendall_tau")
    tau = tau.reindex(index=list(report.scores.columns), columns=list(dict.fromkeys(report.scale["transform"])))
    image = scale_ax.imshow(tau.to_numpy(dtype=float), vmin=-1, vmax=1, cmap="RdYlGn", aspect="auto")
    scale_ax.set_xticks(range(tau.shape[1]), tau.columns, rotation=30, ha="right")
    scale_ax.set_yticks(range(tau.shape[0]), tau.index)
    for (i, j), value in np.ndenumerate(tau.to_numpy(dtype=float)):
        scale_ax.text(j, i, "n/a" if np.isnan(value) else f"{value:.2f}", ha="center", va="center", fontsize=8)
    scale_ax.set_title("Kendall τ, ranking on original vs transformed labels")
    fig.colorbar(image, ax=scale_ax, shrink=0.8)

    column = "p_randomization" if (report.power["test"] == "randomization").all() else "p_t"
    for measure, pairs in report.pairs.groupby("measure", sort=False):
        p = np.sort(pairs[column].to_numpy())
        asl_ax.plot(np.arange(1, len(p) + 1), p, marker=".", label=measure)
    alpha = float(report.power["alpha"].iloc[0]) if len(report.power) else 0.05
    asl_ax.axhline(alpha, color="grey", linestyle="--", linewidth=1)
    asl_ax.xaxis.get_major_locator().set_params(integer=True)
    asl_ax.set_xlabel("run pairs sorted by ASL")
    asl_ax.set_ylabel(f"achieved significance level ({column[2:]})")
    asl_ax.set_title("Discriminative power (Sakai 2006)")
    asl_ax.legend(fontsize=7)

    stab = report.stability
    stab_ax.barh(stab["measure"], stab["tau_mean"], xerr=stab["tau_sd"], color="tab:blue", alpha=0.7)
    stab_ax.invert_yaxis()
    stab_ax.set_xlim(min(0.0, float(np.nanmin(stab["tau_mean"] - stab["tau_sd"])) if len(stab) else 0.0), 1.0)
    stab_ax.set_title("Kendall τ between random query halves")
    if title:
        fig.suptitle(title)
    return fig
