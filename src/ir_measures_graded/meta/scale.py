"""Does a measure depend on the rating scale? Relabel the qrels (``scale:2``, ``shift:1``,
``merge:3,4``, ``insert:3``, ``map:…``, ``real``; see :mod:`.transforms`) and compare the system
ranking before and after: Kendall's τ-b, τ_AP,b (Yilmaz et al. 2008, tie-aware as Urbano & Marrero
2017) and the largest change of a run's score."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded import statistics
from ir_measures_graded.experiments.rejudging import Rejudging
from ir_measures_graded.labels import integral_labels, takes_real_labels
from ir_measures_graded.measures import GradedMeasure
from ir_measures_graded.meta.inputs import as_experiment, scores
from ir_measures_graded.meta.transforms import Transform, parse_transform

__all__ = ["default_transforms", "scale_dependence"]


def default_transforms(qrels: Any) -> list[str]:
    """``scale:2``, ``shift:1``, merging the two highest labels (3+ relevant labels), and ``real``;
    ``qrels``: an :class:`~ir_measures_graded.experiments.Experiment` or a frame with a ``relevance`` column."""
    frame = qrels.qrels_frame if hasattr(qrels, "qrels_frame") else qrels
    labels = np.unique(frame["relevance"].to_numpy(dtype=np.float64))
    relevant = labels[labels > 0]
    found = ["scale:2", "shift:1"]
    if len(relevant) >= 3:
        found.append(f"merge:{relevant[-2]:g},{relevant[-1]:g}")
    return [*found, "real"]


def _adjusted(measure: Any, transform: Transform) -> Any | None:
    """The measure with its labels and thresholds moved by ``transform``; None if that cannot be said.

    Our measures move every parameter whose values are labels or thresholds (each parameter
    declares which); of ir_measures' parameters, ``rel`` is a threshold (an integer for trec_eval).
    """
    if isinstance(measure, GradedMeasure):
        try:
            return measure.relabelled(transform.threshold)
        except ValueError:
            return None
    if "rel" not in measure.SUPPORTED_PARAMS or ("rel" not in measure.params and
                                                 type(measure.SUPPORTED_PARAMS["rel"].default) is object):
        return measure  # no threshold (ir_measures marks "not given, no default" with a bare object())
    rel = transform.threshold(float(measure["rel"]))
    if rel != round(rel):
        return None  # trec_eval's rel is an integer
    if "rel" not in measure.params and rel == measure.SUPPORTED_PARAMS["rel"].default:
        return measure
    return measure(rel=int(rel))


def scale_dependence(experiment: Any, transforms: Sequence[str | Transform] | None = None) -> pd.DataFrame:
    """Does the system ranking change when the labels are transformed?

    ``experiment``: an :class:`~ir_measures_graded.experiments.Experiment`. One row per transform and measure: ``kendall_tau`` and ``tau_ap_b``
    between the ranking of the runs on the original and on the transformed labels (1 = same order),
    ``max_abs_delta`` (the largest change of a run's score), ``same_ranking`` and ``note`` (why a value
    is missing: "n/a" when the measure is undefined on the original labels).
    """
    exp = as_experiment(experiment, "the scale check")
    rejudging = Rejudging(exp, exp.measures)  # the runs re-evaluated on relabelled judgments, prepared once
    labels = np.asarray(rejudging.judgments.label, dtype=np.float64)
    transforms = default_transforms(pd.DataFrame({"relevance": labels})) if transforms is None else transforms
    original = scores(exp)  # each run's score: its measure's aggregate
    rows = []
    if not len(labels):  # nothing to relabel: said in each row, not an error
        rows = [{"transform": str(spec), "measure": exp.label[m], "kendall_tau": np.nan, "tau_ap_b": np.nan,
                 "max_abs_delta": np.nan, "same_ranking": None, "note": "n/a: the qrels hold no judgments"}
                for spec in transforms for m in exp.measures]
        transforms = []
    for spec in transforms:
        transform = parse_transform(spec, labels)
        relabelled = transform.apply(labels)
        real = not integral_labels(relabelled)
        moved = {m: _adjusted(m, transform) for m in exp.measures}
        computable = [m for m in exp.measures if moved[m] is not None and not (real and not takes_real_labels(m))]
        after = None
        if computable:
            values = [rejudging.evaluate(i, measures=[moved[m] for m in computable], labels=relabelled)
                      for i in range(len(exp.runs))]
            after = pd.DataFrame({exp.label[m]: [v[moved[m]] for v in values] for m in computable}, index=exp.runs)
        for m in exp.measures:
            row = {"transform": transform.name, "measure": exp.label[m]}
            before = original[exp.label[m]].to_numpy()
            if np.isnan(before).any():
                note = "n/a: the measure is undefined (nan) on the original labels"
            elif moved[m] is None:
                note = "its label threshold is not an integer after the transform"
            elif m not in computable:
                note = "the measure cannot take real-valued labels"
            elif np.isnan(after[exp.label[m]].to_numpy()).any():
                note = "n/a: the measure is undefined (nan) on the transformed labels"
            else:
                note = ""
            if note:
                rows.append({**row, "kendall_tau": np.nan, "tau_ap_b": np.nan, "max_abs_delta": np.nan,
                             "same_ranking": None, "note": note})
                continue
            new = after[exp.label[m]].to_numpy()
            rows.append({**row, "kendall_tau": statistics.kendall_tau(before, new),
                         "tau_ap_b": statistics.tau_ap_b(before, new),
                         "max_abs_delta": float(np.max(np.abs(new - before))) if len(new) else np.nan,
                         "same_ranking": bool(np.array_equal(_ranks(before), _ranks(new))),
                         "note": "" if str(moved[m]) == str(m) else f"computed as {moved[m]}"})
    return pd.DataFrame(rows, columns=["transform", "measure", "kendall_tau", "tau_ap_b", "max_abs_delta",
                                       "same_ranking", "note"])


def _ranks(values: np.ndarray) -> np.ndarray:
    return statistics.tied_ranks(values)


