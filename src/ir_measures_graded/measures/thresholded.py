"""What µAP and µP share: a measure at every threshold t, combined by the thresholds' weights.

Per query q and flat threshold t (see :mod:`ir_measures_graded.derived`), a subclass computes
M_q^t (AP^t, P^t@k) with "relevant" meaning label >= t. The query's value is the weighted mean

    µM_q = Σ_t w_t · M_q^t / Σ_t w_t

over its thresholds. With ``levels='collection'`` the thresholds are the qrels' labels and a query
is scored at those it reaches (R_q^t > 0) — per query the same number as Eq. 4 with its own labels
— while the aggregate is the paper's collection reading (Figs. 6-8): M^t averaged over the queries
with R_q^t > 0, then the weighted mean of those M^t (see :class:`CollectionMean`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ir_measures.measures.base import Agg

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.lazy import lazy_module
from ir_measures_graded.measures import base, params

kernels = lazy_module("ir_measures_graded.kernels")  # numpy loads when a value is computed

if TYPE_CHECKING:
    import numpy as np

    from ir_measures_graded.prepare import Judgments, Ranking


@dataclass(frozen=True)
class PerThreshold:
    """A measure at every flat threshold of every query (arrays aligned with ``thr_values``)."""

    thr_ptr: np.ndarray  # segmentation by query
    thr_values: np.ndarray  # the thresholds t
    weights: np.ndarray  # w_t
    relevant: np.ndarray  # R_q^t: judged documents with label >= t
    values: np.ndarray  # M_q^t


@dataclass(frozen=True)
class Spread:
    """M_q^t at each query's own thresholds, spread over the collection's (see ThresholdedMeasure.spread)."""

    thr_ptr: np.ndarray  # segmentation by query of the query thresholds
    values: np.ndarray  # M_q^t at each query threshold
    first: np.ndarray  # the first collection threshold (index into the qrels' labels) it stands for
    last: np.ndarray  # ... and the last
    weights: np.ndarray  # w_t of every collection threshold
    cumulative: np.ndarray  # [0, w_0, w_0 + w_1, ...]
    covered: np.ndarray  # the weight of the collection thresholds each query threshold stands for


class ThresholdedMeasure(base.GradedMeasure):
    """Base of µAP, µP, µRR, µR and µRprec: parameters ``levels``, ``weights``, ``floor`` and the combination.

    ``SUPPORTED_PARAMS`` here are those of a measure with an optional cutoff; a subclass changes
    only what differs (a required cutoff, none).
    """

    CITATION = base.SCHEEL_2011
    SUPPORTED_PARAMS = {
        **params.RANKING,
        'levels': params.LEVELS,
        'weights': params.WEIGHTS,
        'floor': params.FLOOR,
    }

    def values_at_thresholds(self, judgments: Judgments, ranking: Ranking, thr_ptr: np.ndarray,
                             reached: np.ndarray, relevant: np.ndarray) -> np.ndarray:
        """M_q^t for every flat threshold; ``reached[i]`` = how many of its query's thresholds row i reaches."""
        raise NotImplementedError

    #: The binary measure M^t this one combines, as tables name its aggregate at one threshold
    #: (``MAP``, ``P``, ``RR``, ``R``, ``Rprec``); a cutoff is appended by :meth:`at_threshold`.
    AT_THRESHOLD: str

    def at_threshold(self) -> str:
        """What the aggregate is at one threshold, as tables name it (``MAP``, ``P@10``, ``RR@5``, ``Rprec``)."""
        cutoff = self.value("cutoff") if "cutoff" in self.SUPPORTED_PARAMS else None
        return self.AT_THRESHOLD if cutoff is None else f"{self.AT_THRESHOLD}@{cutoff}"

    def check(self, values: dict) -> None:
        levels = values["levels"]
        if isinstance(levels, tuple) and levels[0] <= values["floor"]:
            raise GradedInputError(
                f"{self.NAME}: levels={self.params['levels']!r} must all lie above floor="
                f"{self.params.get('floor', 0)!r} (labels <= floor are irrelevant)"
            )

    def levels(self) -> str | tuple[float, ...]:
        """The ``levels`` parameter in normal form: 'query', 'collection', 'collection-all' or thresholds."""
        return self.value("levels")

    def floor(self) -> float:
        return self.value("floor")

    def per_threshold(self, judgments: Judgments, ranking: Ranking,
                      levels: str | tuple[float, ...] | None = None) -> PerThreshold:
        """M_q^t at every flat threshold of ``levels`` (default: the measure's own)."""
        from ir_measures_graded import derived  # here: numpy loads when a value is computed

        levels, floor = self.levels() if levels is None else levels, self.floor()
        thr_ptr, thr_values = derived.thresholds(judgments, levels, floor)
        relevant = derived.relevant_counts(judgments, levels, floor)
        weights = kernels.level_weights(thr_ptr, thr_values, floor, self.value("weights"))
        reached = kernels.level_of_rows(ranking.query, ranking.label, thr_ptr, thr_values)
        values = self.values_at_thresholds(judgments, ranking, thr_ptr, reached, relevant)
        return PerThreshold(thr_ptr, thr_values, weights, relevant, values)

    def collection_weights(self, judgments: Judgments) -> tuple[np.ndarray, np.ndarray]:
        """``(thresholds, weights)``: the qrels' labels above the floor and their weights w_t."""
        import numpy as np

        from ir_measures_graded import derived
        labels = derived.collection_labels(judgments, self.floor())
        ptr = np.array([0, len(labels)])
        return labels, kernels.level_weights(ptr, labels, self.floor(), self.value("weights"))

    def per_query(self, judgments: Judgments, ranking: Ranking) -> np.ndarray:
        if self.levels() in ("collection", "collection-all"):
            s = self.spread(judgments, ranking)
            # 'collection': the weighted mean over the thresholds the query reaches; 'collection-all':
            # over all of the collection's thresholds (M_q^t = 0 at those it does not reach)
            total = None if self.levels() == "collection" else s.cumulative[-1]
            return kernels.segment_weighted_mean(s.values, s.covered, s.thr_ptr, total)
        p = self.per_threshold(judgments, ranking)
        return kernels.segment_weighted_mean(p.values, p.weights, p.thr_ptr)

    def results(self, judgments: Judgments, ranking: Ranking) -> Iterator[tuple[int, float]]:
        if self.levels() != "collection":
            yield from super().results(judgments, ranking)
            return
        # Every judged query (those absent from the run with M^t = 0) carries its values at the
        # collection's thresholds to the aggregator, which needs more than a float.
        yield from self.threshold_values(judgments, ranking)

    def spread(self, judgments: Judgments, ranking: Ranking) -> Spread:
        """M_q^t at each query's own thresholds, each standing for a range of the collection's thresholds.

        A collection threshold t between two of the query's labels selects the same relevant
        documents as the query's next label t' >= t: M_q^t = M_q^t'. So the query's own
        thresholds suffice (memory O(judgments), not queries x labels); each stands for the
        collection thresholds in (its predecessor, itself], and the query reaches none above its
        highest label.
        """
        import numpy as np
        p = self.per_threshold(judgments, ranking, "query")
        labels, weights = self.collection_weights(judgments)
        position = np.searchsorted(labels, p.thr_values)  # every query threshold is a collection label
        cumulative = np.concatenate(([0.0], np.cumsum(weights)))
        first = np.zeros(len(position), dtype=np.int64)
        first[1:] = position[:-1] + 1
        first[p.thr_ptr[:-1][np.diff(p.thr_ptr) > 0]] = 0
        return Spread(p.thr_ptr, p.values, first, position, weights, cumulative,
                      cumulative[position + 1] - cumulative[first])

    def threshold_values(self, judgments: Judgments, ranking: Ranking) -> Iterator[tuple[int, ThresholdValues]]:
        """Every judged query's value (over the thresholds it reaches) with its M_q^t at the collection's."""
        s = self.spread(judgments, ranking)
        per_query = kernels.segment_weighted_mean(s.values, s.covered, s.thr_ptr)
        for q in range(judgments.n_queries):
            flat = slice(s.thr_ptr[q], s.thr_ptr[q + 1])
            yield q, ThresholdValues(per_query[q], s.values[flat], s.first[flat], s.last[flat], s.weights)

    def aggregator(self) -> Agg:
        return CollectionMean() if self.levels() == "collection" else super().aggregator()


class ThresholdValues(float):
    """A query's value (a float) that also carries M_q^t over the collection's thresholds.

    ``values[k]`` is M_q at the collection thresholds ``first[k] .. last[k]`` (indices into the
    qrels' labels above the floor, whose weights are ``weights``); the query reaches no
    threshold beyond ``last[-1]``.
    """

    values: np.ndarray
    first: np.ndarray
    last: np.ndarray
    weights: np.ndarray

    def __new__(cls, value: float, values: np.ndarray, first: np.ndarray, last: np.ndarray,
                weights: np.ndarray) -> ThresholdValues:
        self = super().__new__(cls, value)
        self.values, self.first, self.last, self.weights = values, first, last, weights
        return self

    def __reduce__(self) -> tuple:
        return float, (float(self),)


class CollectionMean(Agg):
    """The paper's collection-level µMAP: Σ_t w_t · MAP^t / Σ_t w_t, MAP^t over queries with R_q^t > 0.

    Thresholds no query reaches are left out (with qrels' labels as thresholds, there are none).
    No query at all gives NaN (as ir_measures' mean); no threshold reached by any query gives 0.
    """

    def __init__(self) -> None:
        self.sums: np.ndarray | None = None
        self.counts: np.ndarray | None = None
        self.weights: np.ndarray | None = None

    def add(self, value: float) -> None:
        import numpy as np
        if not isinstance(value, ThresholdValues):
            raise GradedInputError(
                "levels='collection' aggregates M^t per threshold over the queries that reach it; it needs "
                f"the values the graded provider yields, not a plain number ({value!r})"
            )
        if self.sums is None:
            self.sums = np.zeros(len(value.weights))
            self.counts = np.zeros(len(value.weights), dtype=np.int64)
            self.weights = np.array(value.weights, dtype=np.float64)
        if len(value.values):
            reached = slice(0, int(value.last[-1]) + 1)
            self.sums[reached] += np.repeat(value.values, value.last - value.first + 1)
            self.counts[reached] += 1

    def by_threshold(self) -> tuple[np.ndarray, np.ndarray]:
        """``(M^t, number of queries behind it)``; M^t = 0 where no query reaches t."""
        import numpy as np
        if self.sums is None:
            return np.zeros(0), np.zeros(0, dtype=np.int64)
        means = np.divide(self.sums, self.counts, out=np.zeros(len(self.sums)), where=self.counts > 0)
        return means, self.counts.copy()

    def partials(self) -> list[base.Partial]:
        """This aggregator's share: per collection threshold, the sum and number of M_q^t, and w_t."""
        if self.sums is None:
            return []
        return [(t, float(total), int(count), float(weight))
                for t, (total, count, weight) in enumerate(zip(self.sums, self.counts, self.weights, strict=True))]

    def merge(self, partials: list[base.Partial]) -> None:
        """Add shares from :meth:`partials` (of aggregators over disjoint queries of the same qrels)."""
        import numpy as np
        if not partials:
            return
        n = max(int(t) for t, *_ in partials) + 1
        if self.sums is None:
            self.sums, self.counts, self.weights = np.zeros(n), np.zeros(n, dtype=np.int64), np.zeros(n)
        for t, total, count, weight in partials:
            self.sums[t] += total
            self.counts[t] += count
            self.weights[t] = weight

    def result(self) -> float:
        if self.sums is None:
            return float("nan")
        means, counts = self.by_threshold()
        weights = self.weights * (counts > 0)
        total = weights.sum()
        return float((weights * means).sum() / total) if total > 0 else 0.0
