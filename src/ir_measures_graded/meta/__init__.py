"""Meta-evaluation: on your own judgments and runs, does a measure depend on the rating scale, is it
stable, is it discriminative?

Three questions researchers ask before choosing a measure for a graded collection, each one call
returning a tidy DataFrame (any ir_measures measure works, ours and the standard ones):

- :func:`scale_dependence` — relabel the qrels (``scale:2``, ``shift:1``, ``merge:3,4``,
  ``insert:3``, ``map:…``, ``real``; see :mod:`.transforms`) and compare the system ranking before
  and after: Kendall's τ, τ_AP (Yilmaz et al. 2008) and the largest change of a run's score.
- :func:`stability` — split the queries into random halves many times; Kendall's τ between the
  system rankings on the two halves (Voorhees & Buckley 2002 style).
- :func:`discriminative_power` — for every pair of runs a paired significance test (seeded
  randomization test and paired t-test); the share of pairs that differ at α and the achieved
  significance level (ASL) curve (Sakai 2006).

:func:`compare_runs` tests every run against a baseline, with a multiple-testing correction, as
PyTerrier's ``pt.Experiment(baseline=...)`` does. :func:`meta_evaluate` runs the three checks.

A system's score here is the mean over *every* query of the qrels, a query the run does not
answer counting 0 (trec_eval's ``-c``), so all runs are compared on the same queries.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.columns import integral_labels
from ir_measures_graded.measures import GradedMeasure
from ir_measures_graded.meta import statistics
from ir_measures_graded.meta.transforms import Transform, parse_transform

__all__ = [
    "Transform", "parse_transform", "per_query", "scores", "scale_dependence", "stability",
    "discriminative_power", "compare_runs", "compare_results", "meta_evaluate", "MetaReport", "default_transforms",
]

TESTS = ("randomization", "t")


def _measures(measures: Iterable[Any]) -> list:
    import ir_measures

    parsed = [ir_measures.parse_measure(m) if isinstance(m, str) else m for m in measures]
    if not parsed:
        raise GradedInputError("no measure given")
    return list(dict.fromkeys(parsed))


def _qrels_frame(qrels: Any) -> pd.DataFrame:
    from ir_measures.util import QrelsConverter

    if isinstance(qrels, pd.DataFrame):
        return qrels[["query_id", "doc_id", "relevance"]]
    return QrelsConverter(qrels).as_pd_dataframe()[["query_id", "doc_id", "relevance"]]


def per_query(qrels: Any, runs: Mapping[str, Any], measures: Iterable[Any]) -> pd.DataFrame:
    """Per-query values: columns ``run``, ``query_id``, ``measure`` (its ``str``), ``value``.

    Every query of the qrels appears for every run and measure; a query the run does not answer
    scores 0. Measures that cannot take the qrels (ir_measures' trec_eval-based measures reject
    real-valued labels) give NaN.
    """
    import ir_measures

    measures = _measures(measures)
    frame = _qrels_frame(qrels)
    query_ids = pd.unique(frame["query_id"].astype(str))
    labels = frame["relevance"].to_numpy(dtype=np.float64)
    integral = integral_labels(labels)
    computable = [m for m in measures if integral or _takes_real_labels(m)]
    parts = []
    evaluator = ir_measures.evaluator(computable, frame) if computable else None
    for name, run in runs.items():
        got = pd.DataFrame(
            [(str(m.query_id), str(m.measure), m.value) for m in evaluator.iter_calc(run)] if evaluator else [],
            columns=["query_id", "measure", "value"],
        )
        full = pd.MultiIndex.from_product([query_ids, [str(m) for m in measures]], names=["query_id", "measure"])
        values = got.set_index(["query_id", "measure"])["value"].reindex(full, fill_value=0.0)
        part = values.reset_index()
        part.insert(0, "run", name)
        parts.append(part)
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["run", "query_id", "measure", "value"])
    missing = [str(m) for m in measures if m not in computable]
    if missing:
        table.loc[table["measure"].isin(missing), "value"] = np.nan
    return table


def _takes_real_labels(measure: Any) -> bool:
    return isinstance(measure, GradedMeasure)


def scores(table: pd.DataFrame) -> pd.DataFrame:
    """Mean value per run (rows, in first-seen order) and measure (columns, in first-seen order)."""
    wide = table.pivot_table(index="run", columns="measure", values="value", aggfunc="mean", sort=False, dropna=False)
    return wide.reindex(index=pd.unique(table["run"]), columns=pd.unique(table["measure"]))


def _matrix(table: pd.DataFrame, measure: str) -> tuple[list[str], np.ndarray]:
    """``(run names, runs × queries matrix)`` of one measure's per-query values."""
    of = table[table["measure"] == measure]
    wide = of.pivot(index="run", columns="query_id", values="value")
    runs = list(pd.unique(of["run"]))
    return runs, wide.reindex(index=runs).to_numpy(dtype=np.float64)


def default_transforms(qrels: Any) -> list[str]:
    """``scale:2``, ``shift:1``, merging the two highest labels (3+ relevant labels), and ``real``."""
    labels = np.unique(_qrels_frame(qrels)["relevance"].to_numpy(dtype=np.float64))
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
    if "rel" not in measure.SUPPORTED_PARAMS:
        return measure
    rel = transform.threshold(float(measure["rel"]))
    if rel != round(rel):
        return None  # trec_eval's rel is an integer
    if "rel" not in measure.params and rel == measure.SUPPORTED_PARAMS["rel"].default:
        return measure
    return measure(rel=int(rel))


def _transformed(frame: pd.DataFrame, transform: Transform) -> pd.DataFrame:
    labels = transform.apply(frame["relevance"].to_numpy(dtype=np.float64))
    if integral_labels(labels):
        labels = labels.astype(np.int64)
    return frame.assign(relevance=labels)


def scale_dependence(
    qrels: Any, runs: Mapping[str, Any], measures: Iterable[Any], transforms: Sequence[str | Transform] | None = None
) -> pd.DataFrame:
    """Does the system ranking change when the labels are transformed?

    One row per transform and measure: ``kendall_tau`` and ``tau_ap`` between the ranking of the
    runs on the original and on the transformed labels (1 = same order), ``max_abs_delta`` (the
    largest change of a run's score), ``same_ranking`` and ``note`` (why a value is missing).
    """
    measures = _measures(measures)
    frame = _qrels_frame(qrels)
    transforms = default_transforms(frame) if transforms is None else transforms
    labels = frame["relevance"].to_numpy(dtype=np.float64)
    original = scores(per_query(frame, runs, measures))
    rows = []
    for spec in transforms:
        transform = parse_transform(spec, labels)
        relabelled = _transformed(frame, transform)
        moved = {m: _adjusted(m, transform) for m in measures}
        computable = [m for m in measures if moved[m] is not None]
        after = scores(per_query(relabelled, runs, [moved[m] for m in computable])) if computable else None
        for m in measures:
            row = {"transform": transform.name, "measure": str(m)}
            before = original[str(m)].to_numpy()
            if moved[m] is None or after is None or np.isnan(after[str(moved[m])].to_numpy()).any():
                note = ("its label threshold is not an integer after the transform" if moved[m] is None
                        else "the measure cannot take real-valued labels")
                rows.append({**row, "kendall_tau": np.nan, "tau_ap": np.nan, "max_abs_delta": np.nan,
                             "same_ranking": None, "note": note})
                continue
            new = after[str(moved[m])].to_numpy()
            rows.append({**row, "kendall_tau": statistics.kendall_tau(before, new),
                         "tau_ap": statistics.tau_ap(before, new),
                         "max_abs_delta": float(np.max(np.abs(new - before))) if len(new) else np.nan,
                         "same_ranking": bool(np.array_equal(_ranks(before), _ranks(new))),
                         "note": "" if str(moved[m]) == str(m) else f"computed as {moved[m]}"})
    return pd.DataFrame(rows, columns=["transform", "measure", "kendall_tau", "tau_ap", "max_abs_delta",
                                       "same_ranking", "note"])


def _ranks(values: np.ndarray) -> np.ndarray:
    from scipy import stats

    return stats.rankdata(-np.round(values, 12), method="min")


def stability(
    table: pd.DataFrame, samples: int = 200, seed: int = 0
) -> pd.DataFrame:
    """Kendall's τ between the system rankings on two random, disjoint halves of the queries.

    ``table`` is :func:`per_query`'s output. One row per measure: the mean, standard deviation
    and minimum of τ over ``samples`` splits, and the mean share of run pairs whose order differs
    between the halves (the swap rate).
    """
    rng = np.random.default_rng(seed)
    rows = []
    for measure in pd.unique(table["measure"]):
        runs, values = _matrix(table, measure)
        n_queries = values.shape[1]
        if len(runs) < 2 or n_queries < 2 or np.isnan(values).any():
            rows.append({"measure": measure, "samples": 0, "tau_mean": np.nan, "tau_sd": np.nan,
                         "tau_min": np.nan, "swap_rate": np.nan})
            continue
        half = n_queries // 2
        order = np.argsort(rng.random((samples, n_queries)), axis=1)  # a random permutation per sample
        first = np.zeros((samples, n_queries))
        np.put_along_axis(first, order[:, :half], 1.0 / half, axis=1)
        second = np.zeros((samples, n_queries))
        np.put_along_axis(second, order[:, half:2 * half], 1.0 / half, axis=1)
        a, b = first @ values.T, second @ values.T  # samples × runs: mean per half
        taus = np.array([statistics.kendall_tau(x, y) for x, y in zip(a, b, strict=True)])
        i, j = np.triu_indices(len(runs), k=1)
        swaps = np.sign(a[:, i] - a[:, j]) * np.sign(b[:, i] - b[:, j]) < 0
        taus = taus[~np.isnan(taus)]  # tau is undefined where one half ties every run (runs scoring the same)
        rows.append({"measure": measure, "samples": samples,
                     "tau_mean": float(taus.mean()) if len(taus) else np.nan,
                     "tau_sd": float(taus.std()) if len(taus) else np.nan,
                     "tau_min": float(taus.min()) if len(taus) else np.nan, "swap_rate": float(swaps.mean())})
    return pd.DataFrame(rows, columns=["measure", "samples", "tau_mean", "tau_sd", "tau_min", "swap_rate"])


def _pairs(table: pd.DataFrame, measure: str) -> tuple[list[tuple[str, str]], np.ndarray, np.ndarray]:
    runs, values = _matrix(table, measure)
    i, j = np.triu_indices(len(runs), k=1)
    return [(runs[a], runs[b]) for a, b in zip(i, j, strict=True)], values[i], values[j]


def discriminative_power(
    table: pd.DataFrame, alpha: float = 0.05, test: str = "randomization",
    permutations: int | None = 10_000, seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Paired tests between every pair of runs, per measure (Sakai 2006).

    Returns ``(summary, pairs)``: ``summary`` has one row per measure with the number of run pairs
    and the share significant at ``alpha`` (the discriminative power); ``pairs`` has one row per
    measure and run pair with the mean difference, the randomization and t-test p-values and the
    pair's position in the measure's ASL curve (``asl_rank``: 1 = smallest p-value of ``test``).
    """
    if test not in TESTS:
        raise GradedInputError(f"unknown test {test!r}; expected one of {', '.join(TESTS)}")
    summary, rows = [], []
    for measure in pd.unique(table["measure"]):
        pairs, a, b = _pairs(table, measure)
        if not pairs or np.isnan(a).any() or np.isnan(b).any():
            summary.append({"measure": measure, "pairs": len(pairs), "test": test, "alpha": alpha,
                            "significant": 0, "discriminative_power": np.nan})
            continue
        p_rand = statistics.randomization_test(a - b, permutations=permutations, seed=seed)
        p_t = statistics.paired_t_test(a, b)
        p = p_rand if test == "randomization" else p_t
        ranks = np.empty(len(p), dtype=np.int64)
        ranks[np.argsort(p, kind="stable")] = np.arange(1, len(p) + 1)
        for (run_a, run_b), delta, pr, pt, rank in zip(pairs, (a - b).mean(axis=1), p_rand, p_t, ranks, strict=True):
            rows.append({"measure": measure, "run_a": run_a, "run_b": run_b, "delta": float(delta),
                         "p_randomization": float(pr), "p_t": float(pt), "asl_rank": int(rank)})
        significant = int((p < alpha).sum())
        summary.append({"measure": measure, "pairs": len(pairs), "test": test, "alpha": alpha,
                        "significant": significant, "discriminative_power": significant / len(pairs)})
    return (pd.DataFrame(summary, columns=["measure", "pairs", "test", "alpha", "significant", "discriminative_power"]),
            pd.DataFrame(rows, columns=["measure", "run_a", "run_b", "delta", "p_randomization", "p_t", "asl_rank"]))


def compare_runs(
    table: pd.DataFrame, baseline: str, test: str = "t", correction: str = "holm",
    permutations: int | None = 10_000, seed: int = 0, aggregates: Mapping[tuple[str, str], float] | None = None,
    untested: Collection[str] = (),
) -> pd.DataFrame:
    """Every run against ``baseline``, per measure: value, delta, p-value and corrected p-value.

    ``test``: 't' (paired t-test, as PyTerrier) or 'randomization'; ``correction`` across the runs
    compared for one measure: 'holm' (default), 'bonferroni', 'fdr_bh' or 'none'. ``aggregates``:
    ``{(run, measure): value}`` as each measure's own aggregator computed it (``calc_aggregate``);
    without it, a run's value is the mean of its per-query values (what the tests compare).
    ``untested``: measures that get value and delta but no p-value (their aggregate is not what a
    paired test of their per-query values compares).
    """
    if test not in TESTS:
        raise GradedInputError(f"unknown test {test!r}; expected one of {', '.join(TESTS)}")
    if correction not in statistics.CORRECTIONS:
        raise GradedInputError(f"unknown correction {correction!r}; expected one of {', '.join(statistics.CORRECTIONS)}")
    runs = list(pd.unique(table["run"]))
    if baseline not in runs:
        raise GradedInputError(f"baseline {baseline!r} is not one of the runs: {', '.join(runs)}")
    rows = []
    for measure in pd.unique(table["measure"]):
        names, values = _matrix(table, measure)
        base = values[names.index(baseline)]
        others = [k for k, n in enumerate(names) if n != baseline]
        means = values.mean(axis=1)
        if aggregates is not None:
            means = np.array([aggregates[(name, measure)] for name in names], dtype=np.float64)
        rows.append({"run": baseline, "measure": measure, "value": float(means[names.index(baseline)]),
                     "delta": 0.0, "p_value": np.nan, "p_adjusted": np.nan})
        if not others:
            continue
        if measure in untested:
            rows += [{"run": names[k], "measure": measure, "value": float(means[k]),
                      "delta": float(means[k] - means[names.index(baseline)]), "p_value": np.nan,
                      "p_adjusted": np.nan} for k in others]
            continue
        if test == "t":
            p = statistics.paired_t_test(values[others], np.broadcast_to(base, values[others].shape))
        else:
            p = statistics.randomization_test(values[others] - base, permutations=permutations, seed=seed)
        adjusted = statistics.correct(p, correction)
        for k, pk, pa in zip(others, p, adjusted, strict=True):
            rows.append({"run": names[k], "measure": measure, "value": float(means[k]),
                         "delta": float(means[k] - means[names.index(baseline)]), "p_value": float(pk),
                         "p_adjusted": float(pa)})
    return pd.DataFrame(rows, columns=["run", "measure", "value", "delta", "p_value", "p_adjusted"])


def compare_results(results: Sequence[Any], measures: Sequence[Any], baseline: str, test: str = "t",
                    correction: str = "holm", warn: Callable[[str], None] | None = None) -> pd.DataFrame:
    """:func:`compare_runs` on an engine's results (:class:`ir_measures_graded.engines.RunResult`).

    ``baseline`` names one run: its path, file name, file name without extension or run tag. A
    run's value is the measure's own aggregate (its summary); the tests take the per-query values,
    0 where a run has no value for a query another run has (trec_eval's ``-c``). A measure whose
    aggregate is neither the mean nor the sum of its per-query values (collection-level µMAP) gets
    no p-value — a paired test of per-query values would not test the difference shown — and
    ``warn`` is told why.
    """
    from ir_measures.measures.base import MeanAgg, SumAgg

    untested = [str(m) for m in measures if not isinstance(m.aggregator(), (MeanAgg, SumAgg))]
    for name in untested if warn is not None else []:
        warn(f"{name}: no p-value: its aggregate is not the mean of its per-query values, which a paired "
             "test compares (value and delta are its own aggregates)")
    import os

    # A file given twice is two runs (two rows): told apart by their position among the runs.
    given = [r.name for r in results]
    labels = [name if given.count(name) == 1 else f"{name} #{given[:i + 1].count(name)}"
              for i, name in enumerate(given)]
    names: dict[str, list[str]] = {}
    for result, label in zip(results, labels, strict=True):
        for key in dict.fromkeys((result.name, result.tag, os.path.basename(result.name),
                                  os.path.basename(result.name).split(".")[0])):
            names.setdefault(key, []).append(label)
    matches = names.get(baseline, [])
    if len(matches) != 1:
        raise GradedInputError(f"--compare {baseline!r} {'matches several runs' if matches else 'is none of the runs'}"
                               f" ({', '.join(labels)})")
    rows = [(label, str(m.query_id), str(m.measure), float(m.value))
            for r, label in zip(results, labels, strict=True) for m in r.per_query]
    table = pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])
    wide = table.pivot_table(index=["measure", "query_id"], columns="run", values="value", sort=False)
    wide = wide.reindex(columns=labels).fillna(0.0)
    table = wide.stack().rename("value").reset_index()[["run", "query_id", "measure", "value"]]
    order = {str(m): i for i, m in enumerate(measures)}
    table = table.sort_values("measure", key=lambda c: c.map(order), kind="stable")
    aggregates = {(label, str(m)): float(v) for r, label in zip(results, labels, strict=True)
                  for m, v in r.summary.items()}
    return compare_runs(table, matches[0], test=test, correction=correction, aggregates=aggregates,
                        untested=untested)


@dataclass(frozen=True)
class MetaReport:
    """What :func:`meta_evaluate` found; every field a tidy DataFrame."""

    scores: pd.DataFrame  # mean per run (rows) and measure (columns)
    scale: pd.DataFrame  # scale_dependence()
    stability: pd.DataFrame  # stability()
    power: pd.DataFrame  # discriminative_power()[0]
    pairs: pd.DataFrame  # discriminative_power()[1]: per run pair, with the ASL curve


def meta_evaluate(
    qrels: Any, runs: Mapping[str, Any], measures: Iterable[Any], transforms: Sequence[str | Transform] | None = None,
    samples: int = 200, alpha: float = 0.05, test: str = "randomization", permutations: int | None = 10_000,
    seed: int = 0,
) -> MetaReport:
    """The three checks on one collection: scale dependence, stability and discriminative power."""
    measures = _measures(measures)
    if len(runs) < 2:
        raise GradedInputError(f"meta-evaluation compares runs: give at least two (got {len(runs)})")
    table = per_query(qrels, runs, measures)
    power, pairs = discriminative_power(table, alpha=alpha, test=test, permutations=permutations, seed=seed)
    return MetaReport(
        scores=scores(table),
        scale=scale_dependence(qrels, runs, measures, transforms),
        stability=stability(table, samples=samples, seed=seed),
        power=power,
        pairs=pairs,
    )
