"""Engines: where qrels and run files are evaluated — this process (:mod:`.local`) or Spark (:mod:`.spark`).

Both take the same :class:`Request` and return the same :class:`RunResult` list: per-query values
and each measure's aggregate, computed by the measure's own aggregator. An engine never prints;
the command line (:mod:`ir_measures_graded.cli`) writes what it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ir_measures_graded.io.inputs import Input

STDIN = "-"


@dataclass
class Request:
    """What to evaluate: a qrels file (or ir_datasets id), run files, measures, and how."""

    qrels: Any  # a path, '-' or an ir_datasets id; or qrels in memory (local engine)
    runs: list[Any]  # paths or '-'; or runs in memory (local engine)
    measures: list[Any]  # ir_measures measures, in the order the results should have
    provider: str | None = None  # one ir_measures provider computing everything (local engine only)
    by_query: bool = False  # keep per-query values
    summary: bool = True  # compute each measure's aggregate
    qrels_columns: Mapping[str, str] = field(default_factory=dict)  # Parquet / Arrow column names
    run_columns: Mapping[str, str] = field(default_factory=dict)
    progress: bool = True  # a progress bar on stderr when it is a terminal (local engine)
    keep: bool = False  # keep each run as read, hashed while read (RunResult.input); else runs are streamed
    warn: Callable[[str], None] | None = None  # told what is suspicious but not wrong (an empty run, ...)
    names: list[str] | None = None  # the runs' names, as messages name them (default: their paths, or run k)
    qrels_name: str | None = None  # the qrels' path or id, as messages name them, when given as read
    workers: int | None = None  # runs evaluated at a time (local engine); None: one per core this process may use
    depth: int | None = None  # only the top depth documents of each query of a run count (trec_eval's -M); None: all


@dataclass
class RunResult:
    """One run's values: per query in the order the engine yields them, and the summary."""

    name: str  # the run's name (Request.names), else its path as given
    per_query: list[Any]  # ir_measures.Metric
    summary: dict[Any, float]  # measure -> the measure's aggregate
    rows: int = 0  # rows read (0: the engine does not count them)
    matched: int = -1  # queries of the run the qrels know (-1: not counted)
    input: Input | None = None  # the run as read (its table with Request.keep; its tag, rows, digest)
    judged: list[str] | None = None  # the query ids of the qrels (None: the engine does not list them)
    ranked_rows: int = -1  # rows of the judged queries (-1: not counted)
    judged_rows: int = -1  # of those, rows whose document is judged for the query (-1: not counted)
    merge: Any = None  # read in step with the qrels by query: what the merge saw (engines.merge.MergeReport)


class Engine(Protocol):
    """Evaluates a :class:`Request`; raises GradedInputError for bad input (never prints)."""

    name: str  # "local" or "spark"

    def evaluate(self, request: Request) -> list[RunResult]: ...


def run_name(request: Request, k: int) -> str:
    """The name of the ``k``-th run of a request, as results and messages give it."""
    if request.names is not None:
        return request.names[k]
    run = request.runs[k]
    return run if isinstance(run, str) else f"run {k + 1}"


def engine(name: str, master: str | None = None) -> Engine:
    """The engine called ``name``: ``local`` or ``spark`` (on the Spark ``master``, default ``local[*]``)."""
    if name == "local":
        from ir_measures_graded.engines.local import LocalEngine

        return LocalEngine()
    if name == "spark":
        from ir_measures_graded.engines.spark import SparkEngine

        return SparkEngine(master)
    raise ValueError(f"unknown engine {name!r}; expected local or spark")


# --- what every engine warns about (Request.warn) ----------------------------------------------------

def check_judged(judged: int, request: Request) -> None:
    """Warn when the qrels hold no judgment (``judged``: their rows, or queries)."""
    if not judged and request.warn is not None:
        request.warn(f"{qrels_named(request)} hold no judgments: every measure is undefined (nan), as in ir_measures")


def check_shared_queries(result: RunResult, request: Request) -> None:
    """Warn about a run that is empty or shares no query with the (non-empty) qrels."""
    if not result.rows:
        request.warn(f"run {result.name} is empty: every query of the qrels scores 0")
    elif not result.matched:
        request.warn(f"run {result.name} shares no query with {qrels_named(request)}; every query scores 0")


#: A run's share of judged documents below this part of the median share of the runs is suspicious.
FAR_BELOW = 0.1


def check_judged_documents(results: list[RunResult], names: list[str], warn: Callable[[str], None]) -> None:
    """One line per run none of whose retrieved documents (of the judged queries) is judged, or whose share
    of judged documents is far below the other runs' (under :data:`FAR_BELOW` of their median): it scores
    (about) 0 in silence otherwise, as trec_eval does, and the likely cause is ids of another collection
    or another level (passage ids against document qrels). Runs that rank no judged query are told of
    by :func:`check_shared_queries`."""
    import statistics

    from ir_measures_graded.provider import nothing_judged

    counted = [(name, r) for name, r in zip(names, results, strict=True) if r.ranked_rows > 0 and r.judged_rows >= 0]
    shares = {name: r.judged_rows / r.ranked_rows for name, r in counted}
    median = statistics.median(shares.values()) if len(shares) > 1 else None
    for name, r in counted:
        if not r.judged_rows:
            warn(nothing_judged(f"run {name}", r.ranked_rows))
        elif median is not None and shares[name] < FAR_BELOW * median:
            warn(f"run {name}: {shares[name]:.2%} of its retrieved documents of the judged queries are judged, far "
                 f"below the runs' median {median:.2%}: ids of another collection or level?")


def qrels_named(request: Request) -> str:
    """The qrels as messages name them: by their path or id, or plainly when given in memory."""
    name = request.qrels_name or (request.qrels if isinstance(request.qrels, str) else None)
    return f"the qrels {name}" if name else "the qrels"
