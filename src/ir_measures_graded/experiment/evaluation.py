"""An experiment: qrels, N runs and measures evaluated once through an engine, the qrels prepared once.

Every entry point (the command line's subcommands, :func:`experiment`, the report, meta-evaluation)
goes through :func:`experiment`, so inputs are read, runs named, the baseline found and the label
rule applied in one place. Aggregates are each measure's own (exactly ``calc_aggregate``'s); the
per-query table holds every judged query for every run, 0 where a run does not rank it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ir_measures_graded import engines
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiment import measure_lists
from ir_measures_graded.experiment.naming import STDIN, display, find_baseline, run_names

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["experiment", "Experiment", "run_specs"]


def run_specs(runs: Any) -> tuple[list[Any], list[str] | None]:
    """``(runs, names)`` from ``{name: run}`` (names given) or a sequence of runs (names by the rule);
    a path, ``-`` or one run in memory alone is a list of one."""
    if isinstance(runs, Mapping) and runs and all(isinstance(v, Mapping) for v in runs.values()) and not all(
            isinstance(d, Mapping) for v in runs.values() for d in v.values()):
        return [runs], None  # one run as a dict of dicts {query: {doc: score}}
    if isinstance(runs, Mapping):
        return list(runs.values()), [str(k) for k in runs]
    if isinstance(runs, (str, os.PathLike)) or not isinstance(runs, Sequence):
        return [runs], None
    return list(runs), None


def _spec(given: Any) -> Any:
    return os.fspath(given) if isinstance(given, os.PathLike) else given


@dataclass
class Experiment:
    """Runs evaluated on one set of qrels; see :func:`experiment`. Every table is tidy."""

    qrels: Any  # as given: a path, '-', an ir_datasets id or qrels in memory
    runs: list[str]  # the runs' names, in the order given
    measures: list[Any]
    baseline: str | None
    specs: list[Any]  # each run as given (path or in memory)
    results: list[engines.RunResult]
    engine: str = "local"
    warnings: list[str] = field(default_factory=list)

    @cached_property
    def judged(self) -> list[str]:
        """The qrels' query ids, in the qrels' order."""
        found = next((r.judged for r in self.results if r.judged is not None), None)
        if found is not None:
            return list(found)
        return list(dict.fromkeys(str(m.query_id) for r in self.results for m in r.per_query))

    @cached_property
    def aggregates(self) -> pd.DataFrame:
        """``run``, ``measure``, ``value``: each measure's own aggregate, as ``calc_aggregate`` gives it."""
        import pandas as pd  # the tables load pandas; evaluating does not

        rows = [(name, str(m), float(r.summary[m]))
                for name, r in zip(self.runs, self.results, strict=True) for m in self.measures]
        return pd.DataFrame(rows, columns=["run", "measure", "value"])

    @cached_property
    def per_query(self) -> pd.DataFrame:
        """``run``, ``query_id``, ``measure``, ``value`` for every judged query of every run and measure
        (queries in the qrels' order), 0 where the run does not rank the query (ir_measures' rule)."""
        import numpy as np
        import pandas as pd

        labels = [str(m) for m in self.measures]
        names = dict(zip(self.measures, labels, strict=True))
        full = pd.MultiIndex.from_product([self.judged, labels], names=["query_id", "measure"])
        parts = []
        for name, result in zip(self.runs, self.results, strict=True):
            got = pd.DataFrame([(str(m.query_id), names.get(m.measure) or str(m.measure), float(m.value))
                                for m in result.per_query], columns=["query_id", "measure", "value"])
            got = got.drop_duplicates(["query_id", "measure"], keep="last")
            values = got.set_index(["query_id", "measure"])["value"].reindex(full, fill_value=0.0)
            parts.append(values.reset_index().assign(run=name))
        columns = ["run", "query_id", "measure", "value"]
        table = pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)
        table["value"] = table["value"].astype(np.float64)
        return table

    @cached_property
    def missing(self) -> dict[str, int]:
        """Per run, the judged queries it does not rank (they score 0)."""
        judged = len(self.judged)
        return {name: judged - r.matched if r.matched >= 0 else judged - len({str(m.query_id) for m in r.per_query})
                for name, r in zip(self.runs, self.results, strict=True)}

    def compare(self, baseline: Any = None, test: str = "t", correction: str = "holm",
                alternative: str = "two-sided", family: str = "runs", level: float = 0.95,
                permutations: int | None = 10_000, seed: int = 0) -> Any:
        """Every run against ``baseline`` (default: the experiment's, else the first run): a
        :class:`~ir_measures_graded.experiment.comparison.Comparison`."""
        from ir_measures_graded.experiment.comparison import compare

        base = (self.baseline or self.runs[0]) if baseline is None else self.find(baseline)
        return compare(self, base, test=test, correction=correction, alternative=alternative, family=family,
                       level=level, permutations=permutations, seed=seed)

    def find(self, key: Any, option: str = "baseline") -> str:
        """The name of the run ``key`` names (name, position from 0, path, file name or run tag)."""
        return _find(key, self.runs, self.specs, option)


def _find(key: Any, names: Sequence[str], specs: Sequence[Any], option: str) -> str:
    try:
        return find_baseline(key, names, specs, option=option)
    except GradedInputError:
        if isinstance(key, int):
            raise
        tags = [engines.run_tag(s) if isinstance(s, str) and s != STDIN else "" for s in specs]
        paths = {s for s in specs if isinstance(s, str)}
        return find_baseline(key, names, specs, tags=[t if t not in paths else "" for t in tags], option=option)


def experiment(
    qrels: Any, runs: Any, measures: Iterable[Any] | str, baseline: Any = None, names: Sequence[str] | None = None,
    engine: str = "local", *, provider: str | None = None, qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None, thresholds: bool = False, master: str | None = None,
    per_query: bool = True, keep_runs: bool = False, progress: bool = False,
    warn: Callable[[str], None] | None = None,
) -> Experiment:
    """Evaluate ``runs`` on ``qrels`` with ``measures``.

    - ``qrels``: a path (TREC text, gzip, Parquet, Arrow IPC), ``-``, an ir_datasets id, or qrels in memory
      (pandas, polars, Arrow, a dict of dicts, ir_measures' named tuples).
    - ``runs``: a list of runs (paths or in memory) or ``{name: run}``; a list is named by the file name
      (see :mod:`.naming`) unless ``names`` is given.
    - ``measures``: objects or names: ours, ir_measures' (``AP``, ``nDCG@10``) or trec_eval's (``map``).
    - ``baseline``: the run the others are compared with: name, position (from 0), path, file name or
      run tag; refused before anything is evaluated when it names none of the runs.
    - ``engine``: ``local`` (this process) or ``spark`` (files only).
    - ``warn``: told what is suspicious but not wrong (a run that misses judged queries, ...); by default
      Python warnings.
    """
    measures = measure_lists.parse(measures)
    specs, given = run_specs(runs)
    specs = [_spec(s) for s in specs]
    if not specs:
        raise GradedInputError("no run given")
    names = run_names(specs, names if names is not None else given)
    base = None if baseline is None else _find(baseline, names, specs, "baseline")
    qrels = _spec(qrels)
    if engine == "spark" and not all(isinstance(s, str) for s in [qrels, *specs]):
        raise GradedInputError("the Spark engine reads files: give the qrels and the runs as paths")
    said: list[str] = []

    def tell(message: str) -> None:
        said.append(message)
        if warn is None:
            import warnings

            warnings.warn(message, stacklevel=3)
        else:
            warn(message)

    request = engines.Request(
        qrels=qrels, runs=specs, measures=measures, provider=provider, by_query=per_query, summary=True,
        qrels_columns=dict(qrels_columns or {}), run_columns=dict(run_columns or {}), progress=progress,
        keep_runs=keep_runs, master=master, thresholds=thresholds, warn=tell)
    results = engines.engine(engine).evaluate(request)
    for result, name in zip(results, names, strict=True):
        result.name = name
    done = Experiment(qrels, names, measures, base, specs, results, engine, said)
    for name, result in zip(names, results, strict=True):
        missed = done.missing[name] if per_query or result.matched >= 0 else 0
        if 0 < missed < len(done.judged) and result.rows:
            tell(f"run {display(name)} ranks no document for {missed} of the {len(done.judged)} judged queries: "
                 "they score 0")
    engines.check_judged_documents(results, [display(n) for n in names], tell)
    return done
