"""An evaluation report to look at: one self-contained HTML page per experiment.

    import ir_measures_graded
    exp = ir_measures_graded.experiment(qrels, {"bm25": bm25, "mine": mine}, ["muMAP", "nDCNG@10", "nDCG@10"],
                                        baseline="bm25")
    report = ir_measures_graded.report(exp)
    report.save("report.html")      # or display it in a notebook: the report is its own HTML

The page (no network access when opened: styles, script and SVG figures inline) has a header saying
what was evaluated (files with their SHA-256, measures with all their parameters, versions, date),
a summary table (every run × measure; deltas to the baseline with intervals, corrected significance,
win/tie/loss; sortable), MAP^t and P^t@k per relevance threshold (the paper's Figs. 6-8), the sorted
per-query differences to the baseline with the worst queries, and the scale-dependence check.

:func:`report` is ``ir_measures_graded.report``; this package is ``ir_measures_graded.reports``.
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments.comparison import Comparison
from ir_measures_graded.experiments.testing import Testing
from ir_measures_graded.reports import build
from ir_measures_graded.reports.build import Source

__all__ = ["report", "Report", "Source"]

#: Distributions whose versions the header lists (those installed).
VERSIONS = ("ir-measures-graded", "ir_measures", "pytrec_eval_terrier", "numpy", "pandas", "scipy", "pyarrow")


@dataclass(frozen=True)
class Report:
    """Everything the page shows, as tidy DataFrames; :meth:`html` renders it, :meth:`save` writes it."""

    title: str
    created: str  # ISO 8601, UTC
    sources: list[Source]
    measures: list[Any]
    baseline: str
    settings: dict[str, Any]
    versions: dict[str, str]
    queries: int  # queries of the qrels
    summary: pd.DataFrame  # run, measure, value: Experiment.aggregates (calc_aggregate)
    comparison: pd.DataFrame  # Experiment.compare() (values: the aggregates; intervals, d_z, wins/ties/losses)
    per_query: pd.DataFrame  # Experiment.per_query: run, query_id, measure, value
    levels: pd.DataFrame  # Experiment.breakdown, the measure by its label: measure, run, threshold, ..., contribution
    scale: pd.DataFrame | None  # meta.scale_dependence, None when no transform was asked for
    command: str | None = None
    runs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the comparison did not test, and why
    testing: Testing = field(default_factory=Testing)  # how runs were tested against the baseline
    labels: list[str] = field(default_factory=list)  # the measures as given, aligned with measures
    untested: dict[str, str] = field(default_factory=dict)  # Experiment.untested
    leaderboard: Any = None  # organiser.Leaderboard, with leaderboard=True
    judges: Any = None  # judges.JudgeAgreement, with judge_b given
    unjudged: list[str] = field(default_factory=list)  # runs with no judged document: no worst queries

    def comparison_view(self) -> Comparison:
        """The comparison against the baseline, with every view (text, markdown, LaTeX, tidy tables)."""
        return Comparison(self.comparison, self.baseline, self.testing, list(self.notes))

    def html(self) -> str:
        """The page: one self-contained HTML document."""
        from ir_measures_graded.reports.page import render

        return render(self)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (UTF-8), whole or not at all, never over one of the report's input
        files (:mod:`ir_measures_graded.files`); returns the path."""
        from ir_measures_graded.files import Inputs, write_text

        path = Path(path)
        if path.is_dir():
            raise GradedInputError(f"report: {path} is a directory; give the HTML file's path")
        judged_b = [] if self.judges is None else [self.judges.experiments[self.judges.b].qrels.origin]
        Inputs.of([*(s.origin for s in self.sources), *judged_b]).refuse(path, f"report: saving to {path} would write the page",
                                                          "give another file")
        return write_text(path, self.html())

    def _repr_html_(self) -> str:
        """Jupyter: the page in an isolated frame, so its styles and script do not touch the notebook's."""
        from html import escape

        return (f'<iframe srcdoc="{escape(self.html(), quote=True)}" title="{escape(self.title)}" '
                'style="width:100%;height:720px;border:1px solid #ddd" '
                'sandbox="allow-scripts allow-popups allow-modals"></iframe>')


def report(
    experiment: Any, baseline: Any = None, *, testing: Testing | None = None,
    transforms: Sequence[str] | None = None, thresholds: Iterable[Any] | None = None, title: str | None = None,
    command: str | None = None, leaderboard: bool = False, judge_b: Any = None,
) -> Report:
    """Gather what the page shows of ``experiment`` (an :class:`~ir_measures_graded.experiments.Experiment`:
    ``ir_measures_graded.experiment(qrels, runs, measures)``, its inputs read once; the page reads nothing again).

    - ``baseline``: the run (name, position, path, file name or run tag) the others are compared with;
      default: the experiment's, else the first.
    - ``testing``: how runs are tested against the baseline
      (:class:`~ir_measures_graded.experiments.testing.Testing`, default ``Testing()``: paired t-test, Holm,
      alpha 0.05); the intervals of the deltas are at ``1 - alpha``, ▲/▼ mark p < alpha.
    - ``transforms``: label transforms of the scale check (``meta`` syntax, e.g. ``["scale:2", "real"]``);
      None: :func:`meta.default_transforms`; ``[]``: no scale check.
    - ``thresholds``: measures broken down per threshold (µAP / µP@k, ...); None: those among the measures,
      with µMAP and µP@10 added when none of their kind is given.
    - ``title``, ``command``: the page's title and the command line it shows (the command line's own).
    - ``leaderboard``: add the organiser's leaderboard (runs sorted by the first measure, groups by the
      randomised Tukey HSD at the testing's alpha, permutations and seed; at least two runs).
    - ``judge_b``: a second judge's qrels (a path or qrels in memory, read once) or a
      :class:`~ir_measures_graded.judges.JudgeAgreement` of ``experiment``: add the section of two judges (label
      agreement, and which measures hold: :func:`ir_measures_graded.judges.agree`, tested as the leaderboard).
    """
    from ir_measures_graded import meta
    from ir_measures_graded.experiments import Experiment
    from ir_measures_graded.lazy import require

    require("jinja2", "report", "the report")
    if not isinstance(experiment, Experiment):
        raise GradedInputError("report takes an experiment: report(ir_measures_graded.experiment(qrels, runs, "
                               f"measures)), not a {type(experiment).__name__}")
    exp = experiment
    testing = testing or Testing()
    levels = exp.breakdown(thresholds, defaults=True)  # first: a measure that cannot break down is refused at once
    comparison = exp.compare(baseline, testing=testing)
    scale = None
    if transforms is None or list(transforms):
        scale = meta.scale_dependence(exp, transforms=transforms)
    names = exp.runs
    return Report(
        title=title or f"Evaluation of {len(names)} run{'s' if len(names) != 1 else ''}",
        created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        sources=build.sources(exp),
        measures=exp.measures,
        baseline=comparison.baseline,
        settings={"test": testing.test, "correction": testing.correction, "alpha": testing.alpha,
                  "alternative": testing.alternative, "family": testing.family, "permutations": testing.permutations,
                  "seed": testing.seed, "transforms": None if scale is None else list(pd.unique(scale["transform"]))},
        versions=versions(),
        queries=len(exp.judged),
        summary=exp.aggregates,
        comparison=comparison.table,
        per_query=exp.per_query,
        levels=levels.drop(columns="measure").rename(columns={"of": "measure"}),
        scale=scale,
        command=command,
        runs=names,
        notes=[*comparison.notes, *exp.unjudged_note],
        unjudged=list(exp.unjudged),
        testing=testing,
        labels=list(exp.labels),
        untested=dict(exp.untested),
        leaderboard=_leaderboard(exp, testing) if leaderboard else None,
        judges=_judges(exp, judge_b, testing),
    )


def _judges(exp: Any, judge_b: Any, testing: Testing) -> Any:
    if judge_b is None:
        return None
    from ir_measures_graded.judges import JudgeAgreement, agree
    from ir_measures_graded.organiser.leaderboard import DEFAULT_TESTING

    if isinstance(judge_b, JudgeAgreement):
        return judge_b
    return agree(exp, judge_b, testing=testing.pairs(DEFAULT_TESTING.test, DEFAULT_TESTING.correction))


def _leaderboard(exp: Any, testing: Testing) -> Any:
    from ir_measures_graded.organiser import leaderboard
    from ir_measures_graded.organiser.leaderboard import DEFAULT_TESTING

    # the report's alpha, draws and seed for the leaderboard's own (all-pairs, two-sided) test
    return leaderboard(exp, testing=testing.pairs(DEFAULT_TESTING.test, DEFAULT_TESTING.correction))


def versions() -> dict[str, str]:
    """Python and the installed versions of the libraries the numbers come from."""
    found = {"python": f"{platform.python_version()} ({platform.python_implementation()}, {sys.platform})"}
    for name in VERSIONS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found
