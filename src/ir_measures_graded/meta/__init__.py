"""Meta-evaluation: on your own judgments and runs, does a measure depend on the rating scale, is it
stable, is it discriminative?

Three questions researchers ask before choosing a measure for a graded collection, each one call
returning a tidy DataFrame (any ir_measures measure works, ours and the standard ones):

- :func:`scale_dependence` — relabel the qrels (``scale:2``, ``shift:1``, ``merge:3,4``,
  ``insert:3``, ``map:…``, ``real``; see :mod:`.transforms`) and compare the system ranking before
  and after: Kendall's τ-b, τ_AP,b (Yilmaz et al. 2008, tie-aware as Urbano & Marrero 2017) and
  the largest change of a run's score.
- :func:`stability` — split the queries into random halves many times; Kendall's τ-b between the
  system rankings on the two halves (Voorhees & Buckley 2002 style).
- :func:`discriminative_power` — for every pair of runs a significance test (randomization,
  Sakai's bootstrap, t, Wilcoxon, sign, Tukey HSD or randomised Tukey HSD); the share of pairs that
  differ at α and the achieved significance level (ASL) curve (Sakai 2006).

:func:`compare_runs` tests every run against a baseline, with intervals, an effect size, per-query
wins/ties/losses and a multiple-testing correction, as PyTerrier's ``pt.Experiment(baseline=...)``;
:func:`topic_set_sizes` says how many queries a difference needs. :func:`meta_evaluate` runs them all.
Tests are two-sided unless ``alternative`` says otherwise.

A system's score here is the mean over *every* query of the qrels, a query the run does not
answer counting 0 (trec_eval's ``-c``), so all runs are compared on the same queries.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.columns import integral_labels
from ir_measures_graded.measures import GradedMeasure
from ir_measures_graded.measures.base import parse_measures
from ir_measures_graded.meta import statistics
from ir_measures_graded.meta.transforms import Transform, parse_transform

__all__ = [
    "Transform", "parse_transform", "per_query", "scores", "scale_dependence", "stability",
    "discriminative_power", "compare_runs", "compare_results", "find_run", "topic_set_sizes", "query_halves",
    "meta_evaluate", "MetaReport", "default_transforms",
]

TESTS = statistics.PAIRED_TESTS + statistics.MULTI_TESTS
FAMILIES = ("runs", "all")
#: Resamples of compare_runs' bootstrap interval when ``permutations=None`` (an exact randomization test).
BOOTSTRAP_SAMPLES = 10_000


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

    measures = parse_measures(measures)
    frame = _qrels_frame(qrels)
    query_ids = pd.unique(frame["query_id"].astype(str))
    labels = frame["relevance"].to_numpy(dtype=np.float64)
    integral = integral_labels(labels)
    computable = [m for m in measures if integral or _takes_real_labels(m)]
    parts = []
    evaluator = ir_measures.evaluator(computable, frame) if computable else None
    # A measure's str is computed once, not per value (ir_measures builds it from the repr, per call).
    names = {id(m): str(m) for m in computable}
    for name, run in runs.items():
        got = pd.DataFrame(
            [(str(m.query_id), names.get(id(m.measure)) or str(m.measure), m.value) for m in evaluator.iter_calc(run)]
            if evaluator else [],
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
    measures = parse_measures(measures)
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
                rows.append({**row, "kendall_tau": np.nan, "tau_ap_b": np.nan, "max_abs_delta": np.nan,
                             "same_ranking": None, "note": note})
                continue
            new = after[str(moved[m])].to_numpy()
            rows.append({**row, "kendall_tau": statistics.kendall_tau(before, new),
                         "tau_ap_b": statistics.tau_ap_b(before, new),
                         "max_abs_delta": float(np.max(np.abs(new - before))) if len(new) else np.nan,
                         "same_ranking": bool(np.array_equal(_ranks(before), _ranks(new))),
                         "note": "" if str(moved[m]) == str(m) else f"computed as {moved[m]}"})
    return pd.DataFrame(rows, columns=["transform", "measure", "kendall_tau", "tau_ap_b", "max_abs_delta",
                                       "same_ranking", "note"])


def _ranks(values: np.ndarray) -> np.ndarray:
    return statistics.tied_ranks(values)


def query_halves(n_queries: int, samples: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``samples`` random splits of ``n_queries`` query positions into two disjoint halves of
    ``n_queries // 2`` each: two (samples × half) index arrays. The same seed gives the same splits."""
    order = np.argsort(np.random.default_rng(seed).random((samples, n_queries)), axis=1)  # a permutation per sample
    half = n_queries // 2
    return order[:, :half], order[:, half:2 * half]


def _half_means(values: np.ndarray, halves: np.ndarray) -> np.ndarray:
    """(samples × runs) means of ``values`` (runs × queries) over each row of query positions ``halves``."""
    mask = np.zeros((len(halves), values.shape[1]))
    np.put_along_axis(mask, halves, 1.0, axis=1)
    return mask @ values.T / halves.shape[1]  # rounding noise is left to the tolerance of the comparisons


def stability(
    table: pd.DataFrame, samples: int = 200, seed: int = 0
) -> pd.DataFrame:
    """Kendall's τ-b between the system rankings on two random, disjoint halves of the queries.

    ``table`` is :func:`per_query`'s output. One row per measure: the mean, standard deviation
    and minimum of τ over ``samples`` splits, and the mean share of run pairs whose order differs
    between the halves (the swap rate). Every measure is split the same way (the splits depend on
    ``seed`` and the number of queries only), and half-means that differ by less than
    :func:`statistics.tolerance` are ties.
    """
    rows = []
    for measure in pd.unique(table["measure"]):
        runs, values = _matrix(table, measure)
        n_queries = values.shape[1]
        if len(runs) < 2 or n_queries < 2 or np.isnan(values).any():
            rows.append({"measure": measure, "samples": 0, "tau_mean": np.nan, "tau_sd": np.nan,
                         "tau_min": np.nan, "swap_rate": np.nan})
            continue
        first, second = query_halves(n_queries, samples, seed)
        a, b = _half_means(values, first), _half_means(values, second)  # samples × runs
        tol = statistics.tolerance(values)
        taus = statistics.kendall_tau_rows(a, b, tol)
        ra, rb = statistics.tied_ranks(a, tol), statistics.tied_ranks(b, tol)
        i, j = np.triu_indices(len(runs), k=1)
        swaps = np.sign(ra[:, i] - ra[:, j]) * np.sign(rb[:, i] - rb[:, j]) < 0
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


def _check_test(test: str, allowed: Sequence[str]) -> None:
    if test not in allowed:
        raise GradedInputError(f"unknown test {test!r}; expected one of {', '.join(allowed)}")


def discriminative_power(
    table: pd.DataFrame, alpha: float = 0.05, test: str = "randomization",
    permutations: int | None = 10_000, seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Paired tests between every pair of runs, per measure (Sakai 2006).

    ``test``: a paired test (``randomization``, ``bootstrap`` — Sakai's —, ``t``, ``wilcoxon``,
    ``sign``; two-sided) or a test of all pairs at once (``tukey``: Tukey's HSD with the queries as
    blocks, ``randomized_tukey``: Carterette's randomised Tukey HSD), whose p-values are already
    family-wise over the pairs. Returns ``(summary, pairs)``: ``summary`` has one row per measure
    with the number of run pairs and the share significant at ``alpha`` (the discriminative power);
    ``pairs`` has one row per measure and run pair with the mean difference (run_a − run_b), the
    p-value and the pair's position in the measure's ASL curve (``asl_rank``: 1 = smallest p-value).
    """
    _check_test(test, TESTS)
    summary, rows = [], []
    for measure in pd.unique(table["measure"]):
        pairs, a, b = _pairs(table, measure)
        if not pairs or np.isnan(a).any() or np.isnan(b).any():
            summary.append({"measure": measure, "pairs": len(pairs), "test": test, "alpha": alpha,
                            "significant": 0, "discriminative_power": np.nan})
            continue
        if test in statistics.MULTI_TESTS:
            _, values = _matrix(table, measure)
            matrix = (statistics.tukey_hsd(values) if test == "tukey"
                      else statistics.randomized_tukey_hsd(values, permutations=permutations, seed=seed))
            p = matrix[np.triu_indices(len(values), k=1)]
        else:
            p = statistics.paired_test(test, a, b, permutations=permutations, seed=seed)
        ranks = np.empty(len(p), dtype=np.int64)
        ranks[np.argsort(p, kind="stable")] = np.arange(1, len(p) + 1)
        for (run_a, run_b), delta, pk, rank in zip(pairs, (a - b).mean(axis=1), p, ranks, strict=True):
            rows.append({"measure": measure, "run_a": run_a, "run_b": run_b, "delta": float(delta),
                         "test": test, "p_value": float(pk), "asl_rank": int(rank)})
        significant = int((p < alpha).sum())
        summary.append({"measure": measure, "pairs": len(pairs), "test": test, "alpha": alpha,
                        "significant": significant, "discriminative_power": significant / len(pairs)})
    return (pd.DataFrame(summary, columns=["measure", "pairs", "test", "alpha", "significant", "discriminative_power"]),
            pd.DataFrame(rows, columns=["measure", "run_a", "run_b", "delta", "test", "p_value", "asl_rank"]))


COMPARISON_COLUMNS = ["run", "measure", "value", "delta", "ci_low", "ci_high", "boot_low", "boot_high",
                      "effect_size", "wins", "ties", "losses", "test", "p_value", "p_adjusted"]


def compare_runs(
    table: pd.DataFrame, baseline: str, test: str = "t", correction: str = "holm",
    permutations: int | None = 10_000, seed: int = 0, alternative: str = "two-sided", family: str = "runs",
    level: float = 0.95, aggregates: Mapping[tuple[str, str], float] | None = None,
    untested: Collection[str] = (),
) -> pd.DataFrame:
    """Every run against ``baseline``, per measure, as PyTerrier's ``pt.Experiment(baseline=...)``.

    Columns: the run's ``value`` and ``delta`` (run − baseline), the two-sided ``level`` confidence
    interval of the mean per-query difference from the t distribution (``ci_low``, ``ci_high``) and
    from the percentile bootstrap (``boot_low``, ``boot_high``; seeded, ``permutations`` resamples),
    the standardised effect size d_z (mean difference / standard deviation of the per-query
    differences), the per-query ``wins``, ``ties`` and ``losses`` against the baseline, the
    ``p_value`` of ``test`` ('t' — paired t-test, the default —, 'randomization', 'bootstrap',
    'wilcoxon' or 'sign'; ``alternative`` 'two-sided', 'greater' — the run is better — or 'less') and
    ``p_adjusted``, corrected with ``correction`` ('holm', 'bonferroni', 'fdr_bh', 'none') across the
    runs of each measure (``family='runs'``) or across all runs × measures (``family='all'``).
    ``aggregates``: ``{(run, measure): value}`` as each measure's own aggregator computed it
    (``calc_aggregate``); without it, a run's value is the mean of its per-query values (what the tests
    and intervals take), and ``delta`` is the centre of the intervals. ``untested``: measures that get
    value and delta but no p-value, interval, effect size or wins/ties/losses (NaN): their aggregate is
    not what those compare, the per-query values (collection-level µMAP).
    """
    _check_test(test, statistics.PAIRED_TESTS)
    if correction not in statistics.CORRECTIONS:
        raise GradedInputError(f"unknown correction {correction!r}; expected one of {', '.join(statistics.CORRECTIONS)}")
    if alternative not in statistics.ALTERNATIVES:
        raise GradedInputError(f"unknown alternative {alternative!r}; expected one of "
                               f"{', '.join(statistics.ALTERNATIVES)}")
    if family not in FAMILIES:
        raise GradedInputError(f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    if not 0 < level < 1:
        raise GradedInputError(f"the confidence level must be between 0 and 1, got {level}")
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
        tested = measure not in untested
        rows.append({"run": baseline, "measure": measure, "value": float(means[names.index(baseline)]),
                     "delta": 0.0, "test": test if tested else None})
        if not others:
            continue
        if not tested:  # value and delta only: intervals, d_z, counts and tests would describe the per-query mean
            rows += [{"run": names[k], "measure": measure, "value": float(means[k]),
                      "delta": float(means[k] - means[names.index(baseline)])} for k in others]
            continue
        runs_values = values[others]
        bases = np.broadcast_to(base, runs_values.shape)
        d = runs_values - bases
        p = statistics.paired_test(test, runs_values, bases, alternative, permutations, seed)
        ci = statistics.t_interval(d, level)
        boot = statistics.bootstrap_interval(d, level, samples=BOOTSTRAP_SAMPLES if permutations is None else permutations,
                                             seed=seed)  # exact when few resamples; None asks exact tests only
        counts = statistics.win_tie_loss(runs_values, bases)
        for k, row in enumerate(others):
            rows.append({"run": names[row], "measure": measure, "value": float(means[row]),
                         "delta": float(means[row] - means[names.index(baseline)]), "ci_low": float(ci[k, 0]), "ci_high": float(ci[k, 1]),
                         "boot_low": float(boot[k, 0]), "boot_high": float(boot[k, 1]),
                         "effect_size": float(statistics.effect_size(d[k])[0]), "wins": int(counts[k, 0]),
                         "ties": int(counts[k, 1]), "losses": int(counts[k, 2]), "test": test,
                         "p_value": float(p[k])})
    result = pd.DataFrame(rows, columns=COMPARISON_COLUMNS)
    for column in ("wins", "ties", "losses"):
        result[column] = result[column].astype("Int64")
    groups = [result.index] if family == "all" else [g.index for _, g in result.groupby("measure", sort=False)]
    for index in groups:
        result.loc[index, "p_adjusted"] = statistics.correct(result.loc[index, "p_value"].to_numpy(dtype=float),
                                                             correction)
    result.attrs.update(baseline=baseline, test=test, correction=correction, alternative=alternative,
                        family=family, level=level)
    return result


def topic_set_sizes(
    table: pd.DataFrame, min_difference: float = 0.05, alpha: float = 0.05, power: float = 0.8,
    alternative: str = "two-sided",
) -> pd.DataFrame:
    """How many queries a collection needs, per measure, for a paired t-test to detect a true mean
    difference of ``min_difference`` between two runs with probability ``power`` at level ``alpha``
    (Sakai 2016): the variance of a difference is estimated as twice the residual variance of a
    two-way ANOVA (runs × queries) on the observed per-query values."""
    rows = []
    for measure in pd.unique(table["measure"]):
        _, values = _matrix(table, measure)
        variance, _ = statistics.residual_variance(values) if values.shape[0] > 1 else (np.nan, 0)
        needed = (statistics.topic_set_size(2 * variance, min_difference, alpha, power, alternative)
                  if variance > 0 else np.nan)
        rows.append({"measure": measure, "queries": values.shape[1], "residual_variance": variance,
                     "min_difference": min_difference, "alpha": alpha, "power": power, "queries_needed": needed})
    result = pd.DataFrame(rows, columns=["measure", "queries", "residual_variance", "min_difference", "alpha",
                                         "power", "queries_needed"])
    result["queries_needed"] = result["queries_needed"].astype("Int64")
    return result


def find_run(names: Sequence[str], key: str, tags: Sequence[str] = (), option: str = "baseline",
             labels: Sequence[str] | None = None) -> str:
    """The one run of ``names`` (paths) that ``key`` names: its path, file name, file name without
    extension or (with ``tags``) run tag; a GradedInputError naming ``option`` otherwise. With
    ``labels`` (one per name, e.g. :func:`_by_position`), the label of that run is returned, and a
    path given twice matches several runs."""
    import os

    labels = list(names) if labels is None else list(labels)
    candidates: dict[str, list[str]] = {}
    for name, tag, label in itertools.zip_longest(names, tags, labels):
        for alias in (label, name, tag, os.path.basename(name), os.path.basename(name).split(".")[0]):
            if alias is not None:
                candidates.setdefault(alias, []).append(label)
    matches = list(dict.fromkeys(candidates.get(key, [])))
    if len(matches) != 1:
        raise GradedInputError(f"{option} {key!r} {'matches several runs' if matches else 'is none of the runs'}"
                               f" ({', '.join(labels)})")
    return matches[0]


def _by_position(names: Sequence[str]) -> list[str]:
    """The names, those given more than once told apart by their position among them: ``name #k``."""
    return [name if names.count(name) == 1 else f"{name} #{names[:i + 1].count(name)}"
            for i, name in enumerate(names)]


def _untested_measures(measures: Sequence[Any], warn: Callable[[str], None] | None = None) -> list[str]:
    """The measures whose aggregate is neither the mean nor the sum of their per-query values
    (collection-level µMAP): a paired test of per-query values would not test the difference shown;
    ``warn`` is told so for each."""
    from ir_measures.measures.base import MeanAgg, SumAgg

    untested = [str(m) for m in measures if not isinstance(m.aggregator(), (MeanAgg, SumAgg))]
    for name in untested if warn is not None else []:
        warn(f"{name}: no p-value, interval or effect size: its aggregate is not the mean of its per-query "
             "values, which a paired test compares (value and delta are its own aggregates)")
    return untested


def compare_results(results: Sequence[Any], measures: Sequence[Any], baseline: str, test: str = "t",
                    correction: str = "holm", alternative: str = "two-sided", family: str = "runs",
                    by_tag: bool = False, warn: Callable[[str], None] | None = None) -> pd.DataFrame:
    """:func:`compare_runs` on an engine's results (:class:`ir_measures_graded.engines.RunResult`).

    ``baseline`` names one run: its path, file name, file name without extension or run tag. A
    run's value is the measure's own aggregate (its summary); the tests take the per-query values,
    0 where a run has no value for a query another run has (trec_eval's ``-c``). Runs are named by
    path, or by tag with ``by_tag`` (as the trec output names them); a run given twice is two rows,
    told apart by position (``path #2``). A measure whose aggregate is neither the mean nor the sum
    of its per-query values (collection-level µMAP) gets value and delta but no p-value, interval
    or effect size — those would not be about the difference shown — and ``warn`` is told why.
    """
    untested = _untested_measures(measures, warn)
    labels = _by_position([r.name for r in results])
    found = find_run([r.name for r in results], baseline, tags=[r.tag for r in results], option="--compare",
                     labels=labels)
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
    compared = compare_runs(table, found, test=test, correction=correction, alternative=alternative,
                            family=family, aggregates=aggregates, untested=untested)
    if by_tag:
        tags = _by_position([r.tag for r in results])
        compared["run"] = compared["run"].map(dict(zip(labels, tags, strict=True)))
    return compared


@dataclass(frozen=True)
class MetaReport:
    """What :func:`meta_evaluate` found; every field a tidy DataFrame."""

    scores: pd.DataFrame  # mean per run (rows) and measure (columns)
    scale: pd.DataFrame  # scale_dependence()
    stability: pd.DataFrame  # stability()
    power: pd.DataFrame  # discriminative_power()[0]
    pairs: pd.DataFrame  # discriminative_power()[1]: per run pair, with the ASL curve
    per_query: pd.DataFrame  # per_query(): run, query_id, measure, value
    comparison: pd.DataFrame  # compare_runs() against the baseline (its attrs name it)
    sizes: pd.DataFrame  # topic_set_sizes()


def meta_evaluate(
    qrels: Any, runs: Mapping[str, Any], measures: Iterable[Any], transforms: Sequence[str | Transform] | None = None,
    samples: int = 200, alpha: float = 0.05, test: str = "randomization", permutations: int | None = 10_000,
    seed: int = 0, baseline: str | None = None, compare_test: str = "t", correction: str = "holm",
    alternative: str = "two-sided", family: str = "runs", min_difference: float = 0.05, power: float = 0.8,
) -> MetaReport:
    """The three checks on one collection — scale dependence, stability and discriminative power
    (``test`` between every pair of runs) —, every run against ``baseline`` (default: the first run;
    see :func:`compare_runs`) and the topic-set size (see :func:`topic_set_sizes`)."""
    measures = parse_measures(measures)
    if len(runs) < 2:
        raise GradedInputError(f"meta-evaluation compares runs: give at least two (got {len(runs)})")
    table = per_query(qrels, runs, measures)
    power_table, pairs = discriminative_power(table, alpha=alpha, test=test, permutations=permutations, seed=seed)
    baseline = next(iter(runs)) if baseline is None else baseline
    return MetaReport(
        scores=scores(table),
        scale=scale_dependence(qrels, runs, measures, transforms),
        stability=stability(table, samples=samples, seed=seed),
        power=power_table,
        pairs=pairs,
        per_query=table,
        comparison=compare_runs(table, baseline, test=compare_test, correction=correction, permutations=permutations,
                                seed=seed, alternative=alternative, family=family),
        sizes=topic_set_sizes(table, min_difference=min_difference, alpha=alpha, power=power, alternative=alternative),
    )
