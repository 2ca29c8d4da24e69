"""An experiment: qrels, N runs and measures evaluated once through an engine; it owns its inputs.

Every entry point (the command line's subcommands, :func:`experiment`, the report, meta-evaluation)
goes through :func:`experiment`, so inputs are read, runs named, the baseline found and the label
rule applied in one place. The :class:`Experiment` keeps what was read — the qrels (as a table and
as prepared judgments), each run as read, how they were read (the column options) — so the layers
above it (report, meta-evaluation, the command line) derive every view from it and never read an
input again. Each number has one definition here: a run's score is its measure's aggregate
(exactly ``calc_aggregate``'s); the per-query table holds every judged query for every run, 0 where
a run does not rank it; the per-threshold breakdown adds up to the aggregate; and a measure is tested
only where its aggregate is the mean of the per-query values a paired test compares.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, overload

from ir_measures_graded import engines
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import measure_lists
from ir_measures_graded.experiments.naming import STDIN, display, find_baseline, run_names
from ir_measures_graded.io.inputs import Input

if TYPE_CHECKING:
    import pandas as pd

    from ir_measures_graded.experiments.comparison import Comparison
    from ir_measures_graded.experiments.testing import Testing
    from ir_measures_graded.prepare import Judgments

__all__ = ["experiment", "Experiment", "Reading", "run_specs", "SAME_MEAN"]

#: A measure's aggregate and the mean of its per-query values differ beyond this (relative): it is not tested.
SAME_MEAN = 1e-9


def run_specs(runs: Any) -> tuple[list[Any], list[str] | None]:
    """``(runs, names)`` from ``{name: run}`` (names given) or a sequence of runs (names by the rule);
    a path, ``-`` or one run in memory alone is a list of one."""
    if isinstance(runs, Mapping) and runs and all(isinstance(v, Mapping) for v in runs.values()) and not all(
            isinstance(d, Mapping) for v in runs.values() for d in v.values()):
        return [runs], None  # one run as a dict of dicts {query: {doc: score}}
    if isinstance(runs, Mapping):
        return list(runs.values()), [str(k) for k in runs]
    from ir_measures_graded.io.tuples import is_tuple_sequence

    if is_tuple_sequence(runs, "score"):  # one run as ir_measures' ScoredDoc tuples, not a run per tuple
        return [runs], None
    if isinstance(runs, (str, os.PathLike)) or not isinstance(runs, Sequence):
        return [runs], None
    return list(runs), None


def _spec(given: Any) -> Any:
    return os.fspath(given) if isinstance(given, os.PathLike) else given


@dataclass(frozen=True)
class Reading:
    """How the inputs are read: the column names of Parquet / Arrow inputs (``{'query_id': 'qid', ...}``,
    for the qrels and for the runs), whether a progress bar shows on stderr (when it is a terminal), and
    whether each input is kept as read (``keep``, the default: every view takes it). ``keep=False`` streams
    each run in bounded memory for its values alone (per query too): a view that needs a run says so.
    ``depth`` (trec_eval's ``-M``): only the top ``depth`` documents of each query of a run count (ranked as
    trec_eval ranks them: score descending, ties by doc id descending), for every measure, ours and
    ir_measures' alike; each run is kept so, and every view takes it so. None: every document."""

    qrels_columns: Mapping[str, str] = field(default_factory=dict)
    run_columns: Mapping[str, str] = field(default_factory=dict)
    progress: bool = False
    keep: bool = True
    depth: int | None = None

    def __post_init__(self) -> None:
        from ir_measures_graded.prepare import check_depth

        object.__setattr__(self, "depth", check_depth(self.depth))  # one line for a bad depth, as it is given


@dataclass
class Experiment:
    """Runs evaluated on one set of qrels; see :func:`experiment`. Every table is tidy, and names each
    measure by its label: the name the user gave it (``µMAP``, ``map``, ``ndcg_cut.10``). Its inputs are
    values read once (:class:`~ir_measures_graded.io.inputs.Input`): every view takes them, none reads."""

    qrels: Input  # the qrels as read (or as given in memory)
    runs: list[str]  # the runs' names, in the order given
    measures: list[Any]
    baseline: str | None
    inputs: list[Input]  # each run as read, aligned with runs
    results: list[engines.RunResult]
    engine: str = "local"
    warnings: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)  # each measure's name as given, aligned with measures
    by_query: bool = True  # per-query values were kept (and the inputs with them)

    def __post_init__(self) -> None:
        if not self.labels:
            self.labels = [str(m) for m in self.measures]

    # --- what was evaluated -------------------------------------------------------------------------

    @cached_property
    def label(self) -> dict[Any, str]:
        """Each measure's label (its name as given), by measure."""
        return dict(zip(self.measures, self.labels, strict=True))

    def measure(self, given: Any, strict: bool = True) -> Any:
        """The experiment's measure that ``given`` names (its label or its ``str``); a measure object as it
        is. Not the experiment's: an error, or with ``strict=False`` ``given`` itself (to be parsed)."""
        if not isinstance(given, str):
            return given
        for m, name in self.label.items():
            if given in (name, str(m)):
                return m
        if not strict:
            return given
        raise GradedInputError(f"measure {given!r} is none of the experiment's ({', '.join(self.labels)})")

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

        rows = [(name, self.label[m], float(r.summary[m]))
                for name, r in zip(self.runs, self.results, strict=True) for m in self.measures]
        return pd.DataFrame(rows, columns=["run", "measure", "value"])

    @cached_property
    def per_query(self) -> pd.DataFrame:
        """``run``, ``query_id``, ``measure``, ``value`` for every judged query of every run and measure
        (queries in the qrels' order), 0 where the run does not rank the query (ir_measures' rule)."""
        import numpy as np
        import pandas as pd

        if not self.by_query:
            raise GradedInputError("this experiment was evaluated without per-query values (per_query=False): "
                                   "evaluate it with per_query=True to test or break down its runs")
        full = pd.MultiIndex.from_product([self.judged, self.labels], names=["query_id", "measure"])
        parts = []
        for name, result in zip(self.runs, self.results, strict=True):
            got = pd.DataFrame([(str(m.query_id), self.label.get(m.measure) or str(m.measure), float(m.value))
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
        """Per run, how many judged queries it does not rank (they score 0): a count, not the queries."""
        judged = len(self.judged)
        return {name: judged - r.matched if r.matched >= 0 else judged - len({str(m.query_id) for m in r.per_query})
                for name, r in zip(self.runs, self.results, strict=True)}

    @cached_property
    def unjudged(self) -> list[str]:
        """The runs none of whose retrieved documents is judged (passage ids against document qrels, ids of
        another collection): each scores 0 on every topic, says nothing of the pool and has no bounds. Empty
        when the qrels hold no judgment (then no run has one)."""
        if not self.judged:
            return []
        return [name for name, r in zip(self.runs, self.results, strict=True) if r.judged_rows == 0]

    @cached_property
    def unjudged_note(self) -> list[str]:
        """The note every view carries when some run has no judged document (none otherwise)."""
        if not self.unjudged:
            return []
        return [f"No judged document: {', '.join(display(r) for r in self.unjudged)} (ids of another collection or "
                "level?): 0 on every topic; left out of the pool depth, the pool counts, the bounds and the worst "
                "queries."]

    @cached_property
    def untested(self) -> dict[str, str]:
        """The measures (by label) that no paired test, interval or effect size is made for, with why:
        one rule for every view — a measure is tested only where its aggregate is the mean of the
        per-query values the test compares (every judged query, 0 where a run ranks nothing)."""
        import numpy as np

        found = {self.label[m]: measure_lists.UNTESTED_WHY for m in self.measures if not measure_lists.mean_aggregated(m)}
        if not self.by_query:
            return found
        groups = self.per_query.groupby(["run", "measure"], sort=False)["value"]
        means, undefined = groups.mean(), self.per_query["value"].isna().groupby(
            [self.per_query["run"], self.per_query["measure"]]).any()
        for row in self.aggregates.itertuples(index=False):
            if row.measure in found or (row.run, row.measure) not in means.index:
                continue
            mean = means[(row.run, row.measure)]
            if undefined[(row.run, row.measure)] or np.isnan(row.value):  # the comparison says which pairs
                continue
            if not abs(mean - row.value) <= SAME_MEAN * max(1.0, abs(row.value)):
                found[row.measure] = (f"no p-value, interval or effect size: its aggregate ({row.value:.4g} for "
                                      f"{row.run}) is not the mean of its per-query values over every judged query "
                                      f"({mean:.4g}), which a paired test compares")
        return found

    # --- its inputs, read once --------------------------------------------------------------------

    @property
    def specs(self) -> list[str | None]:
        """Each run's path (or ``-``) as given; None for a run given in memory."""
        return [i.origin for i in self.inputs]

    @cached_property
    def qrels_table(self) -> Any:
        """The qrels as read (an Arrow table from a file, a DataFrame from an ir_datasets id), or as given."""
        return self.qrels.held(display(self.qrels.origin or "in memory"), "this view")

    @cached_property
    def qrels_frame(self) -> pd.DataFrame:
        """The qrels as a pandas DataFrame ``query_id``, ``doc_id``, ``relevance`` (e.g. to relabel them)."""
        from ir_measures_graded.sources import qrels_frame

        return qrels_frame(self.qrels_table)

    @cached_property
    def judgments(self) -> Judgments:
        """The qrels prepared once (:class:`~ir_measures_graded.prepare.Judgments`) for every view."""
        from ir_measures_graded.prepare import Judgments

        return Judgments.from_qrels(self.qrels_table)

    def run_input(self, name: str) -> Any:
        """The run ``name`` as read (its table) or as given in memory; one line if it was streamed and not kept."""
        return self.inputs[self.runs.index(name)].held(display(name), "this view")

    def runs_as_read(self) -> dict[str, Any]:
        """Every run as read, by name, in the one kind another experiment takes in memory (the small-file
        reader's columns as the Arrow reader's table): the same runs evaluated on other qrels, none read again."""
        from ir_measures_graded.io.readers import as_table
        from ir_measures_graded.io.small import is_small
        from ir_measures_graded.io.trec import RUN

        held = {name: self.run_input(name) for name in self.runs}
        return {name: as_table(run, RUN) if is_small(run) else run for name, run in held.items()}

    @cached_property
    def tags(self) -> list[str]:
        """Each run's own tag (column 6 of its first line, a frame's ``name``, taken while reading), else its
        path or name; runs whose tags collide are told apart by their paths."""
        found = [i.tag or (i.origin if i.origin not in (None, STDIN) else name)
                 for name, i in zip(self.runs, self.inputs, strict=True)]
        return [t if found.count(t) == 1 else (i.origin if i.origin is not None else n)
                for t, i, n in zip(found, self.inputs, self.runs, strict=True)]

    # --- views derived from it -------------------------------------------------------------------

    def breakdown(self, measures: Iterable[Any] | None = None, defaults: bool = False) -> pd.DataFrame:
        """Each thresholded measure at every relevance threshold for every run
        (:func:`ir_measures_graded.per_level.breakdown`: ``contribution`` adds up to the run's value):
        ``run``, ``of`` (the measure's label), ``measure`` (e.g. ``MAP(rel>=2)``), then the breakdown's
        columns. ``measures``: labels or measures of the experiment, or others to break down (by default
        the experiment's thresholded measures, with ``defaults`` µMAP and µP@10 added where none of their
        kind is among them: the report's curves)."""
        import pandas as pd

        from ir_measures_graded.per_level import threshold_table

        chosen = measure_lists.broken_down(self.measures, None if measures is None else
                                           [self.measure(m, strict=False) for m in measures], defaults)
        labels = {m: self.label.get(m, str(m)) for m in chosen}
        frames = [threshold_table(chosen, self.judgments, self.run_input(name), labels).assign(run=name)
                  for name in self.runs]
        table = pd.concat(frames, ignore_index=True)
        return table[["run", *[c for c in table.columns if c != "run"]]]

    def compare(self, baseline: Any = None, testing: Testing | None = None, **options: Any) -> Comparison:
        """Every run against ``baseline`` (default: the experiment's, else the first run): a
        :class:`~ir_measures_graded.experiments.comparison.Comparison`. How: one
        :class:`~ir_measures_graded.experiments.testing.Testing` (``testing``), or its fields as keywords
        (``test``, ``correction``, ``alternative``, ``family``, ``alpha``, ``permutations``, ``seed``;
        e.g. ``compare(test="t", alpha=0.01)``), not both."""
        from ir_measures_graded.experiments.comparison import compare
        from ir_measures_graded.experiments.testing import Testing

        return compare(self, self.baseline_run(baseline), Testing.of(testing, **options))

    def baseline_run(self, baseline: Any = None) -> str:
        """The name of the run the others are compared with: ``baseline`` (see :meth:`find`), else the
        experiment's baseline, else the first run."""
        return (self.baseline or self.runs[0]) if baseline is None else self.find(baseline)

    def find(self, key: Any, option: str = "baseline") -> str:
        """The name of the run ``key`` names (name, position from 0, path, file name or run tag)."""
        return _find(key, self.runs, self.specs, option, [i.tag or "" for i in self.inputs])


@overload
def _find(key: Any, names: Sequence[str], specs: Sequence[Any], option: str, tags: Sequence[str]) -> str: ...
@overload
def _find(key: Any, names: Sequence[str], specs: Sequence[Any], option: str, tags: None) -> str | None: ...
def _find(key: Any, names: Sequence[str], specs: Sequence[Any], option: str, tags: Sequence[str] | None) -> str | None:
    """The run ``key`` names; with ``tags`` None (not read yet), None when only a run tag could name it."""
    try:
        return find_baseline(key, names, specs, option=option)
    except GradedInputError:
        if isinstance(key, int):
            raise
        if tags is None:
            if any(isinstance(s, str) for s in specs):  # a file's tag, known once it is read
                return None
            raise
        return find_baseline(key, names, specs, tags=tags, option=option)


def experiment(
    qrels: Any, runs: Any, measures: Iterable[Any] | str, baseline: Any = None, *, names: Sequence[str] | None = None,
    engine: str | engines.Engine = "local", provider: str | None = None, reading: Reading | None = None,
    per_query: bool = True, warn: Callable[[str], None] | None = None,
) -> Experiment:
    """Evaluate ``runs`` on ``qrels`` with ``measures``; each input is read once, into a value every view takes.

    - ``qrels``: a path (TREC text, gzip, Parquet, Arrow IPC), ``-``, an ir_datasets id, or qrels in memory
      (pandas, polars, Arrow, a dict of dicts, ir_measures' named tuples).
    - ``runs``: a list of runs (paths or in memory) or ``{name: run}``; a list is named by the file name
      (see :mod:`.naming`) unless ``names`` is given.
    - ``measures``: objects or names: ours, ir_measures' (``AP``, ``nDCG@10``) or trec_eval's (``map``);
      every table names a measure as it was given (its label).
    - ``baseline``: the run the others are compared with: name, position (from 0), path, file name or
      run tag; refused when it names none of the runs (before anything is evaluated, unless only a run
      tag, known once the files are read, could name it).
    - ``names``: the runs' names, one per run (instead of the file names).
    - ``engine``: ``local`` (this process), ``spark`` (files only), or an engine
      (``engines.engine('spark', master='local[2]')``).
    - ``provider``: one ir_measures provider computing every measure (default: ours for our measures,
      ir_measures' default pipeline for the others).
    - ``reading``: how inputs are read (:class:`Reading`: column names of Parquet / Arrow inputs, a progress
      bar, whether the inputs are kept).
    - ``per_query``: keep per-query values and (unless ``reading`` says not to) every input as read, so that
      every view (tests, the breakdown, the report, the organiser's view) reads nothing again. ``False`` keeps
      each measure's aggregate only and streams each run in bounded memory: a view that needs more says so.
    - ``warn``: told what is suspicious but not wrong (a run that misses judged queries, ...); by default
      Python warnings.
    """
    from ir_measures_graded.io.tuples import hold

    named = measure_lists.parse_named(measures)
    measures, labels = [m for m, _ in named], [label for _, label in named]
    specs, given = run_specs(runs)
    specs = [_spec(s) for s in specs]
    if not specs:
        raise GradedInputError("no run given")
    names = run_names(specs, names if names is not None else given)
    reading = reading or Reading()
    runner = engines.engine(engine) if isinstance(engine, str) else engine
    spark = getattr(runner, "name", "local") == "spark"
    if spark:
        if not all(isinstance(s, str) for s in [_spec(qrels), *specs]):
            raise GradedInputError("the Spark engine reads files: give the qrels and the runs as paths")
        if reading.depth is not None:
            raise GradedInputError("the Spark engine reads every document of a run: it has no depth (-M); use the "
                                   "local engine")
        if reading.qrels_columns or reading.run_columns:
            raise GradedInputError("the Spark engine reads the columns query_id, doc_id, relevance and score: "
                                   "it takes no column names (--query-column, ...); rename the columns or use "
                                   "the local engine")
    # the Spark engine returns values only, and aggregates alone need no input again: views that need one say so
    keep = per_query and reading.keep and not spark
    # A baseline named by its run tag is found once the files are read (they carry the tags).
    base = None if baseline is None else _find(baseline, names, specs, "baseline", None)
    qrels = hold(_spec(qrels), "qrels")  # an iterator or record batch reader: read once, kept
    said: list[str] = []

    def tell(message: str) -> None:
        said.append(message)
        if warn is None:
            import warnings

            warnings.warn(message, stacklevel=3)
        else:
            warn(message)

    read = None  # the qrels read here, once, where every view needs them again
    if keep and isinstance(qrels, str):
        from ir_measures_graded.sources import read_qrels

        # by the numpy-only reader where the runs may be too (files): no pyarrow for a small experiment
        read = read_qrels(qrels, reading.qrels_columns, small=all(isinstance(s, str) for s in specs))
    request = engines.Request(
        qrels=qrels if read is None else read.data, runs=specs, measures=measures, provider=provider,
        by_query=per_query, summary=True, qrels_columns=dict(reading.qrels_columns),
        run_columns=dict(reading.run_columns), progress=reading.progress, keep=keep, warn=tell,
        names=names, qrels_name=qrels if isinstance(qrels, str) else None, depth=reading.depth)
    results = runner.evaluate(request)
    inputs = []
    for result, name, spec in zip(results, names, specs, strict=True):
        result.name = name
        got = result.input or Input("run", None, None, rows=result.rows)
        inputs.append(replace(got, origin=spec if isinstance(spec, str) else None,
                              data=got.data if keep else None, columns=dict(reading.run_columns)))
    if read is None:  # given in memory (kept as given), or read by the engine and not kept
        read = Input("qrels", qrels if isinstance(qrels, str) else None, None if isinstance(qrels, str) else qrels,
                     rows=_rows(qrels), columns=dict(reading.qrels_columns))
    if keep:
        read, inputs = _one_kind(read, inputs)
    if baseline is not None and base is None:
        base = _find(baseline, names, specs, "baseline", [i.tag or "" for i in inputs])
    done = Experiment(read, names, measures, base, inputs, results, getattr(runner, "name", "local"), said, labels,
                      per_query)
    for name, result in zip(names, results, strict=True):
        missed = done.missing[name] if per_query or result.matched >= 0 else 0
        if 0 < missed < len(done.judged) and result.rows:
            tell(f"run {display(name)} ranks no document for {missed} of the {len(done.judged)} judged queries: "
                 "they score 0")
    engines.check_judged_documents(results, [display(n) for n in names], tell)
    return done


def _one_kind(qrels: Input, runs: list[Input]) -> tuple[Input, list[Input]]:
    """The inputs as the views join them: all as the small-file reader's columns, or else all as tables (its
    columns turned into the Arrow reader's table in memory: nothing is read again)."""
    from ir_measures_graded.io.small import is_small

    small = [is_small(i.data) for i in (qrels, *runs)]
    if all(small) or not any(small):
        return qrels, runs
    from ir_measures_graded.io.readers import as_table
    from ir_measures_graded.io.trec import QRELS, RUN

    def table(given: Input, layout: Any) -> Input:
        return replace(given, data=as_table(given.data, layout)) if is_small(given.data) else given

    return table(qrels, QRELS), [table(i, RUN) for i in runs]


def _rows(qrels: Any) -> int:
    """Judgments of qrels in memory (a dict of dicts: its judgments); 0 for a path not read here."""
    if isinstance(qrels, str):
        return 0
    if isinstance(qrels, Mapping):
        return sum(len(docs) for docs in qrels.values())
    return len(qrels) if hasattr(qrels, "__len__") else 0
