"""Quantities derived from the judgments alone, computed once per qrels and shared by every run.

Each is cached on the :class:`~ir_measures_graded.prepare.Judgments` (thread-safe) and returned
read-only (numpy arrays with ``writeable=False``), so no caller can change what the next one sees.

Thresholds are stored flat, query after query, ascending and distinct inside a query, with a
``thr_ptr`` segmentation (``thr_values[thr_ptr[q]:thr_ptr[q + 1]]`` are query q's thresholds).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ir_measures_graded import kernels
from ir_measures_graded.errors import GradedInputError

if TYPE_CHECKING:
    from ir_measures_graded.prepare import Judgments

Gains = tuple[tuple[float, float], ...] | None  # a normalised ``gains`` parameter


def read_only(value: Any) -> Any:
    """``value`` with every numpy array in it (also inside tuples) made read-only."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, tuple):
        for item in value:
            read_only(item)
    return value


def _cached(judgments: Judgments, key: tuple, compute: Callable[[], Any]) -> Any:
    return judgments.cached(key, lambda: read_only(compute()))


#: Judgment rows a derived quantity is computed on at a time (whole queries; a larger query alone):
#: each is per query, so the parts are those of the whole, and the sorts' and gains' temporaries
#: hold a part's rows, not the collection's (recommender qrels hold millions).
CHUNK_ROWS = 1 << 20


def query_chunks(judgments: Judgments) -> list[tuple[int, int]]:
    """Consecutive row ranges ``(start, end)`` of the judgments (sorted by query) covering them, each
    of whole queries and about :data:`CHUNK_ROWS` rows (read when called)."""
    query, n, size = judgments.query, len(judgments.query), CHUNK_ROWS
    chunks, start = [], 0
    while start < n:
        end = n if start + size >= n else int(np.searchsorted(query, query[start + size - 1], side="right"))
        chunks.append((start, end))
        start = end
    return chunks or [(0, 0)]


def joined(parts: list[np.ndarray]) -> np.ndarray:
    """The chunks' arrays as one (a lone one as it is: no copy)."""
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


# --- thresholds (µAP, µP, GAP) ----------------------------------------------------------------------

def collection_labels(judgments: Judgments, floor: float) -> np.ndarray:
    """The distinct labels above ``floor`` in the qrels, ascending."""
    return _cached(judgments, ("collection_labels", floor),
                   lambda: np.unique(judgments.label[judgments.label > floor]))


def thresholds(judgments: Judgments, levels: str | tuple[float, ...], floor: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-query thresholds ``(thr_ptr, thr_values)`` for a normalised ``levels`` parameter.

    ``'query'``: the query's own labels above ``floor``; ``'collection'`` and ``'collection-all'``:
    every label above ``floor`` in the qrels, for every query; a tuple: those thresholds for every query.
    """

    def compute() -> tuple[np.ndarray, np.ndarray]:
        if levels == "query":
            queries, labels = [], []
            for start, end in query_chunks(judgments):
                label = judgments.label[start:end]
                above = label > floor
                query, label = judgments.query[start:end][above], label[above]
                order = np.lexsort((label, query))  # each query's labels ascending, then the distinct ones
                query, label = query[order], label[order]
                distinct = np.ones(len(query), dtype=bool)
                distinct[1:] = (query[1:] != query[:-1]) | (label[1:] != label[:-1])
                queries.append(query[distinct])
                labels.append(label[distinct])
            return kernels.segment_ptr(joined(queries), judgments.n_queries), joined(labels)
        shared = collection_labels(judgments, floor) if isinstance(levels, str) else np.asarray(levels)
        ptr = np.arange(judgments.n_queries + 1, dtype=np.int64) * len(shared)
        return ptr, np.tile(shared.astype(np.float64), judgments.n_queries)

    return _cached(judgments, ("thresholds", levels, floor), compute)


def relevant_counts(judgments: Judgments, levels: str | tuple[float, ...], floor: float) -> np.ndarray:
    """R^t: the number of judged documents with label >= t, for every flat threshold."""

    def compute() -> np.ndarray:
        thr_ptr, thr_values = thresholds(judgments, levels, floor)
        counts = np.zeros(int(thr_ptr[-1]), dtype=np.int64)
        for start, end in query_chunks(judgments):  # each chunk counts its own queries' thresholds
            query = judgments.query[start:end]
            reached = kernels.level_of_rows(query, judgments.label[start:end], thr_ptr, thr_values)
            counts += kernels.rows_reaching(query, reached, thr_ptr)
        return counts

    return _cached(judgments, ("relevant_counts", levels, floor), compute)


# --- gains (nDCNG, meanNDCG, meanNDCNG) -------------------------------------------------------------

def mapped_labels(label: np.ndarray, gains: Gains) -> np.ndarray:
    """``gains.get(label, label)`` of every label (the labels themselves without a mapping)."""
    if not gains:
        return label
    mapped = label.copy()
    for source, target in gains:
        mapped[label == source] = target
    return mapped


def raw_gain(label: np.ndarray, gains: Gains, floor: float, factor: float | np.ndarray = 1.0) -> np.ndarray:
    """``max(gains.get(label, label) - floor, 0)``, times ``factor``; NaN (unjudged) -> 0.

    ``factor`` (a power of two, exact; one, or one per label) scales the label and the floor before
    the subtraction, so that labels and floors at the edge of float64 never overflow into ``inf``.
    """
    label = mapped_labels(label, gains)
    if not (np.isscalar(factor) and factor == 1.0):
        label, floor = label * factor, floor * factor
    with np.errstate(over="ignore"):  # an overflow is reported by the caller (GainFunction), by name
        return np.nan_to_num(np.maximum(label - floor, 0.0), nan=0.0, posinf=np.inf)


#: Gains are computed unscaled while labels and floor stay below this magnitude (then sums of a
#: query's discounted gains cannot overflow); beyond it they are scaled down to it by a power of two.
SAFE_MAGNITUDE = 2.0**900


class GainFunction:
    """The gain of a (query, label) pair for one measure's ``gains``, ``floor``, ``norm`` and ``dcg``.

    Linear: ``g / m_q`` with ``g = raw_gain(label)`` and ``m_q`` the normaliser (1 when ``norm`` is
    None: then ``g`` times the query's factor, see :meth:`factors`). Exponential: ``2^(g / m_q) - 1``,
    computed as ``2^(e - s_q) - 2^(-s_q)`` with ``e = g / m_q`` and ``s_q`` a per-query shift that
    keeps the query's largest ``2^e`` finite; the factor ``2^(-s_q)`` is the same for a query's
    ranking and its ideal ranking, so nDCG is unchanged (``s_q = 0``, the plain formula, unless a
    query's exponents reach ``SAFE_EXPONENT``).
    """

    SAFE_EXPONENT = 512.0

    def __init__(self, judgments: Judgments, gains: Gains, floor: float, norm: str | float | None, exponential: bool,
                 measure: str = ""):
        self.judgments = judgments
        self.measure = measure  # named in the message of a gain beyond float64's range
        self.gains, self.floor, self.norm, self.exponential = gains, floor, norm, exponential
        self.key = ("gain", gains, floor, norm, exponential)

    def factors(self) -> np.ndarray:
        """Per query, a power of two that brings its labels, the floor and its gains within
        ``SAFE_MAGNITUDE`` (1 unless extreme); index = query code.

        Per query, so that a query's gains never depend on another query's labels (#35.1): nDCG is a
        ratio of two sums of the same gains, so scaling a query's gains by one factor leaves it
        unchanged (exactly, for a power of two); so does a normalised exponent g/m. Measures whose
        formula is not scale-free read the factor to undo it: Q (:func:`.kernels.q.q_measure`'s
        ``gain_scale``) and gERR's grades. ``norm='collection'`` divides by the qrels' highest gain, so
        every query then shares the smallest factor (that parameter reads the collection). The
        exponential gain of unnormalised labels, 2^g, depends on the scale of g: it is never scaled.
        """
        j = self.judgments

        def compute() -> np.ndarray:
            if self.exponential and self.norm is None:
                return np.ones(j.n_queries)
            top = np.zeros(j.n_queries)
            mapped = np.abs(mapped_labels(j.label, self.gains))
            np.maximum.at(top, j.query, np.nan_to_num(mapped, nan=0.0))
            top = np.maximum(top, abs(self.floor))
            with np.errstate(divide="ignore"):
                exponent = np.floor(np.log2(SAFE_MAGNITUDE)) - np.ceil(np.log2(np.maximum(top, SAFE_MAGNITUDE)))
            factor = np.ldexp(1.0, exponent.astype(np.int64))  # 1 where top <= SAFE_MAGNITUDE
            if self.norm == "collection" and len(factor):
                factor[:] = factor.min()
            return factor

        return _cached(j, ("gain_factors", *self.key[1:]), compute)

    def factor_of(self, query: np.ndarray) -> float | np.ndarray:
        """The factor of each given query (:meth:`factors`); the number 1 when no query is scaled
        (the usual case: no per-row array to gather or multiply by)."""
        factors = self.factors()
        unscaled = _cached(self.judgments, ("gain_unscaled", *self.key[1:]),  # a read-only 0-d array, as every table
                           lambda: np.array(np.all(factors == 1.0)))
        return 1.0 if bool(unscaled) else factors[query]

    def scale(self) -> np.ndarray:
        """The normaliser m_q of every query (1 for unnormalised gains), on the scale of its
        :meth:`factors`; not for a numeric norm (see :meth:`_exponent`)."""
        j = self.judgments

        def compute() -> np.ndarray:
            if self.norm is None:
                return np.ones(j.n_queries)
            g = raw_gain(j.label, self.gains, self.floor, self.factor_of(j.query))
            if self.norm == "query":
                m = np.zeros(j.n_queries)
                np.maximum.at(m, j.query, g)
                return m
            return np.full(j.n_queries, g.max() if len(g) else 0.0)  # 'collection': one factor for all

        return _cached(j, ("gain_scale", *self.key[1:]), compute)

    def shift(self) -> np.ndarray:
        """The per-query exponent shift s_q of the exponential gain (0 unless exponents are huge)."""
        j = self.judgments

        def compute() -> np.ndarray:
            top = np.zeros(j.n_queries)
            np.maximum.at(top, j.query, self._exponent(j.query, j.label))
            return np.maximum(top - self.SAFE_EXPONENT, 0.0)

        return _cached(j, ("gain_shift", *self.key[1:]), compute)

    def _exponent(self, query: np.ndarray, label: np.ndarray) -> np.ndarray:
        factor = self.factor_of(query)
        g = raw_gain(label, self.gains, self.floor, factor)
        with np.errstate(over="ignore"):
            if isinstance(self.norm, float):  # the scale's top: norm * factor could underflow to 0, so
                e = g / self.norm / factor  # divide by each (an overflow here is e's own)
            else:
                m = self.scale()[query]
                e = np.divide(g, m, out=np.zeros(len(label)), where=m > 0)
        if not np.isfinite(e).all():
            raise GradedInputError(self._overflow(label[~np.isfinite(e)][0]))
        return e

    def _overflow(self, label: float) -> str:
        what = "2^(label - floor)" if self.norm is None else f"(label - floor) / norm with norm={self.norm!r}"
        hint = ("give a norm ('query' or 'collection') or rescale the labels" if self.norm is None
                else "use norm='query' or 'collection', or rescale the labels")
        named = f"{self.measure}: " if self.measure else ""
        return (f"{named}the gain {what} of label {float(label)!r} with floor={self.floor!r} is beyond float64's "
                f"range (about 1.8e308): {hint}")

    def __call__(self, query: np.ndarray, label: np.ndarray) -> np.ndarray:
        e = self._exponent(query, label)
        if not self.exponential:
            return e
        return kernels.exponential_gain(e, self.shift()[query])

    def ideal(self) -> tuple[np.ndarray, np.ndarray]:
        """Ideal DCG prefix ``(ptr, cum)`` of every query (see :func:`kernels.ideal_dcg`)."""
        j = self.judgments
        def compute() -> tuple[np.ndarray, np.ndarray]:
            lengths, cums = np.zeros(j.n_queries, dtype=np.int64), []
            for start, end in query_chunks(j):  # the queries of a chunk: their gains, then their ideal
                query = j.query[start:end]
                ptr, cum = kernels.ideal_dcg(query, self(query, j.label[start:end]), j.n_queries)
                lengths += np.diff(ptr)
                cums.append(cum)
            ptr = np.zeros(j.n_queries + 1, dtype=np.int64)
            np.cumsum(lengths, out=ptr[1:])
            return ptr, joined(cums)

        return _cached(j, ("ideal", *self.key[1:]), compute)
