"""A slow, obviously-correct reference for every measure of the package: textbook loops, one query at a time.

Written from the definitions (Scheel, Lommatzsch & Albayrak 2011, Eq. 4 and 5; trec_eval's ``map``,
``P_k`` and ``ndcg``), not from the vectorised code, so that a test comparing the two can catch a
mistake in either. Inputs are dicts of dicts: ``qrels = {query: {doc: label}}``,
``run = {query: {doc: score}}`` with string ids.

Conventions (trec_eval, as ir_measures' default provider):

- a ranking sorts a query's documents by score descending, scores compared as float32, ties broken
  by doc id as a string, descending;
- a query only in the run is skipped; a query of the qrels absent from the run (or with no
  retrieved document) scores 0;
- AP@k divides by every relevant judged document, retrieved or not; P@k divides by k;
- an unjudged document is irrelevant and has gain 0 (``judged_only=True`` removes it first).

Every parameter is a plain keyword argument with the package's default.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from fractions import Fraction


def float32(x: float) -> float:
    """``x`` rounded to a C ``float``, as trec_eval reads a score (beyond its range: +-inf, as C)."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:  # struct refuses what C rounds to infinity
        return math.copysign(math.inf, x)


def ranking(qrels_q: Mapping[str, float], run_q: Mapping[str, float], judged_only: bool = False) -> list[str]:
    """The query's retrieved doc ids in rank order."""
    docs = [d for d in run_q if not judged_only or d in qrels_q]
    # Two stable sorts: doc id descending first, then float32 score descending.
    docs.sort(reverse=True)
    docs.sort(key=lambda d: float32(run_q[d]), reverse=True)
    return docs


# --- relevance thresholds (µAP, µP) -----------------------------------------------------------------

def thresholds(qrels: Mapping, qid: str, levels: str | tuple = "query", floor: float = 0) -> list[float]:
    """The thresholds t of a query: relevant means label >= t."""
    if levels == "query":
        return sorted({label for label in qrels[qid].values() if label > floor})
    if levels in ("collection", "collection-all"):
        return sorted({label for judged in qrels.values() for label in judged.values() if label > floor})
    return sorted(set(levels))


def threshold_weights(ts: list[float], floor: float = 0, weights: str = "distance") -> list[float]:
    """d_t: the distance from each threshold to the one below it (to the floor for the lowest), or 1."""
    if weights == "uniform":
        return [1.0] * len(ts)
    result, below = [], floor
    for t in ts:
        result.append(t - below)
        below = t
    return result


def scored_thresholds(qrels: Mapping, qid: str, levels: str | tuple, floor: float,
                      weights: str) -> tuple[list[float], list[float]]:
    """The thresholds a query is scored at, with their weights d_t. With ``levels='collection'`` a
    query is scored at the qrels' thresholds it reaches (some label >= t), weighted as among all of
    them; ``'collection-all'`` scores it at every one (AP^t = 0 where it has nothing >= t)."""
    ts = thresholds(qrels, qid, levels, floor)
    ws = threshold_weights(ts, floor, weights)
    if levels == "collection":
        reached = [i for i, t in enumerate(ts) if any(label >= t for label in qrels[qid].values())]
        ts, ws = [ts[i] for i in reached], [ws[i] for i in reached]
    return ts, ws


def average_precision(ranked: list[str], qrels_q: Mapping, t: float, cutoff: int | None = None) -> float:
    """AP^t (trec_eval's map / map_cut_k with relevant meaning label >= t)."""
    n_relevant = sum(1 for label in qrels_q.values() if label >= t)
    if n_relevant == 0:
        return 0.0
    hits, total = 0, 0.0
    for i, doc in enumerate(ranked, start=1):
        if cutoff is not None and i > cutoff:
            break
        if doc in qrels_q and qrels_q[doc] >= t:
            hits += 1
            total += hits / i
    return total / n_relevant


def precision(ranked: list[str], qrels_q: Mapping, t: float, cutoff: int) -> float:
    """P^t@k: documents with label >= t among the first k, divided by k."""
    return sum(1 for doc in ranked[:cutoff] if doc in qrels_q and qrels_q[doc] >= t) / cutoff


def weighted_mean(values: list[float], weights: list[float]) -> float:
    total = sum(weights)
    if not values or total <= 0:
        return 0.0
    return sum(w * v for w, v in zip(weights, values, strict=True)) / total


def mu_ap(qrels: Mapping, run: Mapping, qid: str, cutoff: int | None = None, judged_only: bool = False,
          levels: str | tuple = "query", weights: str = "distance", floor: float = 0) -> float:
    """µAP of one query (Eq. 4): the d_t-weighted mean of AP^t over its thresholds."""
    if qid not in run or not run[qid]:
        return 0.0
    ranked = ranking(qrels[qid], run[qid], judged_only)
    ts, ws = scored_thresholds(qrels, qid, levels, floor, weights)
    return weighted_mean([average_precision(ranked, qrels[qid], t, cutoff) for t in ts], ws)


def mu_p(qrels: Mapping, run: Mapping, qid: str, cutoff: int, judged_only: bool = False,
         levels: str | tuple = "query", weights: str = "distance", floor: float = 0) -> float:
    """µP@k of one query: the d_t-weighted mean of P^t@k over its thresholds."""
    if qid not in run or not run[qid]:
        return 0.0
    ranked = ranking(qrels[qid], run[qid], judged_only)
    ts, ws = scored_thresholds(qrels, qid, levels, floor, weights)
    return weighted_mean([precision(ranked, qrels[qid], t, cutoff) for t in ts], ws)


def mu_map_collection_paper(qrels: Mapping, run: Mapping, cutoff: int | None = None, judged_only: bool = False,
                            weights: str = "distance", floor: float = 0, precision_at: bool = False,
                            name: str | None = None) -> float:
    """µMAP over a collection as the paper reads it (Sec. 3.1): MAP^t per threshold, then weighted.

    The thresholds are every label above the floor found in the qrels; MAP^t is the mean of AP^t
    over the queries that have at least one judged document with label >= t; µMAP is the
    d_t-weighted mean of those MAP^t. ``name`` (a key of :data:`AT_THRESHOLD`, e.g. 'muRR'): that
    measure's score at t in place of AP^t (``precision_at``: 'muP').
    """
    ts = thresholds(qrels, "", "collection", floor)
    maps = []
    for t in ts:
        having = [q for q, judged in qrels.items() if any(label >= t for label in judged.values())]
        score = AT_THRESHOLD[name or ("muP" if precision_at else "muAP")]  # µP@k: P^t@k in place of AP^t
        aps = [score(ranking(qrels[q], run[q], judged_only), qrels[q], t, cutoff)
               if run.get(q) else 0.0 for q in having]
        maps.append(sum(aps) / len(aps))
    return weighted_mean(maps, threshold_weights(ts, floor, weights))  # no threshold reached: 0


# --- gains (nDCNG, meanNDCG, meanNDCNG) -------------------------------------------------------------

def raw_gain(label: float | None, gains: Mapping | None = None, floor: float = 0) -> float:
    """g = max(gains.get(label, label) - floor, 0); an unjudged document (None) has gain 0."""
    if label is None:
        return 0.0
    if gains:
        label = dict(gains).get(label, label)  # a dict, or the measure's normal form: (label, gain) pairs
    return max(label - floor, 0.0)


def normaliser(qrels: Mapping, qid: str, gains: Mapping | None, floor: float, norm: str | float) -> float:
    """m_q: the highest gain of the query ('query'), of the qrels ('collection'), or the given number."""
    if norm == "query":
        return max((raw_gain(label, gains, floor) for label in qrels[qid].values()), default=0.0)
    if norm == "collection":
        return max((raw_gain(label, gains, floor) for judged in qrels.values() for label in judged.values()),
                   default=0.0)
    return float(norm)


def dcg(gains_in_order: list[float], depth: int) -> float:
    return sum(g / math.log2(i + 1) for i, g in enumerate(gains_in_order[:depth], start=1))


def _dcg_inputs(qrels: Mapping, run: Mapping, qid: str, judged_only: bool, gains: Mapping | None,
                floor: float, dcg_kind: str, norm: str | float | None) -> tuple[list[float], list[float]]:
    """(gains of the ranking in rank order, gains of the ideal ranking) after normalising and exp."""
    m = 1.0 if norm is None else normaliser(qrels, qid, gains, floor, norm)
    qrels_q = qrels[qid]

    def normalised(label: float | None) -> float:
        return raw_gain(label, gains, floor) / m if m > 0 else 0.0

    # nDCG is a ratio, so every gain may be divided by the same 2^top: (2^g - 1) / 2^top, which
    # never overflows however large the labels (top: the query's highest exponent).
    top = max([normalised(label) for label in qrels_q.values()] + [0.0])

    def gain(label: float | None) -> float:
        g = normalised(label)
        if dcg_kind != "exp-log2":
            return g
        if top < 1000:  # expm1: 2^g - 1 would lose the digits of a small g (1e-17 gives 0)
            return math.expm1(g * math.log(2.0)) * 2.0 ** -top
        return 2.0 ** (g - top) - 2.0 ** -top

    ranked = ranking(qrels_q, run.get(qid, {}), judged_only)
    ranked_gains = [gain(qrels_q.get(d)) for d in ranked]
    ideal = sorted((g for g in (gain(label) for label in qrels_q.values()) if g > 0), reverse=True)
    return ranked_gains, ideal


def ndcng(qrels: Mapping, run: Mapping, qid: str, cutoff: int | None = None, judged_only: bool = False,
          floor: float = 0, gains: Mapping | None = None, dcg_kind: str = "exp-log2",
          norm: str | float = "query") -> float:
    """NDCNG@k of one query (Eq. 5): nDCG@k of the gains normalised by m_q; 0 if the ideal DCG is 0."""
    if qid not in run or not run[qid]:
        return 0.0
    ranked, ideal = _dcg_inputs(qrels, run, qid, judged_only, gains, floor, dcg_kind, norm)
    depth = cutoff if cutoff is not None else max(len(ranked), len(ideal))
    best = dcg(ideal, depth)
    return dcg(ranked, depth) / best if best > 0 else 0.0


def _mean_over_depths(ranked: list[float], ideal: list[float], cutoff: int | None) -> float:
    n = cutoff if cutoff is not None else len(ranked)
    total = 0.0
    for depth in range(1, n + 1):
        best = dcg(ideal, depth)
        total += dcg(ranked, depth) / best if best > 0 else 0.0
    return total / n if n else 0.0


def mean_ndcg(qrels: Mapping, run: Mapping, qid: str, cutoff: int | None = None, judged_only: bool = False,
              floor: float = 0, gains: Mapping | None = None, dcg_kind: str = "exp-log2") -> float:
    """meanNDCG of one query: the mean of nDCG@1 .. nDCG@N of the unnormalised gains (N: cutoff or length)."""
    if qid not in run or not run[qid]:
        return 0.0
    ranked, ideal = _dcg_inputs(qrels, run, qid, judged_only, gains, floor, dcg_kind, None)
    return _mean_over_depths(ranked, ideal, cutoff)


def mean_ndcng(qrels: Mapping, run: Mapping, qid: str, cutoff: int | None = None, judged_only: bool = False,
               floor: float = 0, gains: Mapping | None = None, dcg_kind: str = "exp-log2",
               norm: str | float = "query") -> float:
    """meanNDCNG of one query: the mean of NDCNG@1 .. NDCNG@N (N: cutoff or length)."""
    if qid not in run or not run[qid]:
        return 0.0
    ranked, ideal = _dcg_inputs(qrels, run, qid, judged_only, gains, floor, dcg_kind, norm)
    return _mean_over_depths(ranked, ideal, cutoff)


# --- thresholded binary measures (µRR, µR@k, µRprec) ------------------------------------------------

def reciprocal_rank(ranked: list[str], qrels_q: Mapping, t: float, cutoff: int | None = None) -> float:
    """RR^t: 1 / the rank of the first document with label >= t (0 if none up to the cutoff)."""
    for i, doc in enumerate(ranked[:cutoff], start=1):
        if doc in qrels_q and qrels_q[doc] >= t:
            return 1.0 / i
    return 0.0


def recall(ranked: list[str], qrels_q: Mapping, t: float, cutoff: int) -> float:
    """R^t@k: documents with label >= t among the first k, divided by all judged documents >= t."""
    n_relevant = sum(1 for label in qrels_q.values() if label >= t)
    hits = sum(1 for doc in ranked[:cutoff] if doc in qrels_q and qrels_q[doc] >= t)
    return hits / n_relevant if n_relevant else 0.0


def r_precision(ranked: list[str], qrels_q: Mapping, t: float) -> float:
    """Rprec^t: precision at depth R^t, the number of judged documents >= t."""
    n_relevant = sum(1 for label in qrels_q.values() if label >= t)
    hits = sum(1 for doc in ranked[:n_relevant] if doc in qrels_q and qrels_q[doc] >= t)
    return hits / n_relevant if n_relevant else 0.0


#: The per-threshold score of each thresholded measure, as ``score(ranked, qrels_q, t, cutoff)``.
AT_THRESHOLD = {"muAP": average_precision, "muP": precision, "muRR": reciprocal_rank, "muR": recall,
                "muRprec": lambda ranked, qrels_q, t, cutoff: r_precision(ranked, qrels_q, t)}


def _mu(at_threshold, qrels: Mapping, run: Mapping, qid: str, judged_only: bool, levels: str | tuple,
        weights: str, floor: float) -> float:
    """The d_t-weighted mean over the query's thresholds of ``at_threshold(ranked, qrels_q, t)``."""
    if qid not in run or not run[qid]:
        return 0.0
    ranked = ranking(qrels[qid], run[qid], judged_only)
    ts, ws = scored_thresholds(qrels, qid, levels, floor, weights)
    return weighted_mean([at_threshold(ranked, qrels[qid], t) for t in ts], ws)


def mu_rr(qrels: Mapping, run: Mapping, qid: str, cutoff: int | None = None, judged_only: bool = False,
          levels: str | tuple = "query", weights: str = "distance", floor: float = 0) -> float:
    """µRR of one query: the d_t-weighted mean of RR^t."""
    return _mu(lambda r, j, t: reciprocal_rank(r, j, t, cutoff), qrels, run, qid, judged_only, levels, weights, floor)


def mu_recall(qrels: Mapping, run: Mapping, qid: str, cutoff: int, judged_only: bool = False,
              levels: str | tuple = "query", weights: str = "distance", floor: float = 0) -> float:
    """µR@k of one query: the d_t-weighted mean of R^t@k."""
    return _mu(lambda r, j, t: recall(r, j, t, cutoff), qrels, run, qid, judged_only, levels, weights, floor)


def mu_rprec(qrels: Mapping, run: Mapping, qid: str, judged_only: bool = False,
             levels: str | tuple = "query", weights: str = "distance", floor: float = 0) -> float:
    """µRprec of one query: the d_t-weighted mean of Rprec^t."""
    return _mu(r_precision, qrels, run, qid, judged_only, levels, weights, floor)


# --- Q-measure, ERR, RBP -----------------------------------------------------------------------------

def q_measure(qrels: Mapping, run: Mapping, qid: str, cutoff: int | None = None, judged_only: bool = False,
              floor: float = 0, gains: Mapping | None = None, beta: float = 1.0) -> float:
    """Q of one query (Sakai): (1/R) Σ_r isrel(r) (β cg(r) + count(r)) / (β cg*(r) + r), r up to the cutoff.

    In exact rational arithmetic (every float is a fraction): any finite β and gains up to float64's
    largest, whose products and sums no float holds, give the exact value, rounded once at the end.
    """
    if qid not in run or not run[qid]:
        return 0.0
    qrels_q = qrels[qid]

    def exact_gain(label: float | None) -> Fraction:
        if label is None:
            return Fraction(0)
        if gains:
            label = dict(gains).get(label, label)
        return max(Fraction(label) - Fraction(floor), Fraction(0))

    ideal = sorted((g for g in map(exact_gain, qrels_q.values()) if g > 0), reverse=True)
    if not ideal:
        return 0.0
    b = Fraction(beta)
    total, cg, ideal_cg, count = Fraction(0), Fraction(0), Fraction(0), 0
    for r, doc in enumerate(ranking(qrels_q, run[qid], judged_only), start=1):
        if cutoff is not None and r > cutoff:
            break
        g = exact_gain(qrels_q.get(doc))
        cg += g
        ideal_cg += ideal[r - 1] if r <= len(ideal) else 0
        if g > 0:
            count += 1
            total += (b * cg + count) / (b * ideal_cg + r)
    return float(total / len(ideal))


def err(qrels: Mapping, run: Mapping, qid: str, cutoff: int | None = None, judged_only: bool = False,
        floor: float = 0, gains: Mapping | None = None, g_max: float = 4.0, norm: str | float | None = None) -> float:
    """ERR of one query (Chapelle et al. 2009): Σ_r (1/r) R_r Π_{i<r} (1 − R_i), R = (2^x − 1) / 2^g_max."""
    if qid not in run or not run[qid]:
        return 0.0
    qrels_q = qrels[qid]
    m = None if norm is None else normaliser(qrels, qid, gains, floor, norm)
    score, reach = 0.0, 1.0
    for r, doc in enumerate(ranking(qrels_q, run[qid], judged_only), start=1):
        if cutoff is not None and r > cutoff:
            break
        g = raw_gain(qrels_q.get(doc), gains, floor)
        x = g if m is None else (g_max * g / m if m > 0 else 0.0)
        stop = (2.0 ** x - 1) / 2.0 ** g_max
        score += reach * stop / r
        reach *= 1 - stop
    return score


def rbp(qrels: Mapping, run: Mapping, qid: str, cutoff: int | None = None, judged_only: bool = False,
        floor: float = 0, gains: Mapping | None = None, norm: str | float = "collection", p: float = 0.8) -> float:
    """RBP of one query (Moffat & Zobel 2008): (1 − p) Σ_r g_r p^(r−1), g = (label − floor) / m."""
    if qid not in run or not run[qid]:
        return 0.0
    m = normaliser(qrels, qid, gains, floor, norm)
    ranked = ranking(qrels[qid], run[qid], judged_only)[:cutoff]
    return sum((1 - p) * p ** (r - 1) * (raw_gain(qrels[qid].get(d), gains, floor) / m if m > 0 else 0.0)
               for r, d in enumerate(ranked, start=1))


def rbp_residual(qrels: Mapping, run: Mapping, qid: str, cutoff: int | None = None, judged_only: bool = False,
                 floor: float = 0, gains: Mapping | None = None, norm: str | float = "collection",
                 p: float = 0.8) -> float:
    """RBP's residual: the weight of unjudged documents seen plus p^depth for everything below."""
    ranked = ranking(qrels[qid], run.get(qid, {}), judged_only)[:cutoff]
    unjudged = sum((1 - p) * p ** (r - 1) for r, d in enumerate(ranked, start=1) if d not in qrels[qid])
    return unjudged + p ** len(ranked)
# --- GAP (Robertson, Kanoulas & Yilmaz, SIGIR 2010) -------------------------------------------------

def gap(qrels: Mapping, run: Mapping, qid: str, cutoff: int | None = None, judged_only: bool = False,
        floor: float = 0, probs: str | Mapping = "uniform") -> float:
    """GAP from the paper's pairwise definition: δ_{m,n} = Σ_{j <= min(c_m, c_n)} g_j.

    Grades are the thresholds (by default every label above the floor in the qrels, equally
    likely); c_d is the number of grades document d's label reaches.
    """
    if probs == "uniform":
        grades = sorted({r for judged in qrels.values() for r in judged.values() if r > floor})
        probs = {t: 1 / len(grades) for t in grades}
    grades = sorted(probs)
    g = [probs[t] / sum(probs.values()) for t in grades]

    def c(label: float | None) -> int:
        return sum(1 for t in grades if label is not None and label >= t)

    judged = qrels[qid]
    ranked = ranking(judged, run.get(qid, {}), judged_only)[:cutoff]
    grade = [c(judged.get(d)) for d in ranked]
    numerator = 0.0
    for n in range(1, len(ranked) + 1):
        if grade[n - 1] > 0:
            numerator += sum(sum(g[:min(grade[m - 1], grade[n - 1])]) for m in range(1, n + 1)) / n
    denominator = sum(sum(g[:c(label)]) for label in judged.values())
    return numerator / denominator if denominator > 0 else 0.0


# --- by measure name --------------------------------------------------------------------------------

#: One reference per registered measure (test_reference_differential checks that none is missing).
REFERENCE = {"muAP": mu_ap, "muP": mu_p, "nDCNG": ndcng, "meanNDCG": mean_ndcg, "meanNDCNG": mean_ndcng, "GAP": gap,
             "muRR": mu_rr, "muR": mu_recall, "muRprec": mu_rprec, "Q": q_measure, "gERR": err, "gRBP": rbp,
             "gRBP_residual": rbp_residual}


def per_query(name: str, params: Mapping, qrels: Mapping, run: Mapping) -> dict[str, float]:
    """{query: value} for every query of the qrels, for the measure ``name`` with ``params``
    (the measure's parameter names; ``dcg`` is passed as ``dcg_kind``; levels as a tuple or string)."""
    kwargs = {("dcg_kind" if k == "dcg" else k): v for k, v in params.items()}
    if "floor" in kwargs:
        kwargs["floor"] = float(kwargs["floor"])
    if isinstance(kwargs.get("probs"), Mapping):
        kwargs["probs"] = {float(t): p for t, p in kwargs["probs"].items()}
    return {qid: REFERENCE[name](qrels, run, qid, **kwargs) for qid in qrels}
