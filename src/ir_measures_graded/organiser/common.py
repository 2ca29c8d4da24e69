"""What every organiser's table shares: the runs' values as matrices, measure names resolved, the
checks every function makes, ranks with the package's ties, and the views (text, Markdown, LaTeX,
tidy TSV/CSV/JSON lines) written by :mod:`ir_measures_graded.experiments.tables`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded import statistics
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.experiments import formats, measure_lists, tables

__all__ = ["View", "labels", "resolve", "values", "aggregate", "competition_ranks", "check_runs"]

#: A LaTeX view longer than this is a ``longtable`` (one float holds about 45 rows of a page).
LONG_ROWS = 40

#: In a LaTeX view, ``text@@SUP:ab@@`` becomes ``text\textsuperscript{ab}`` (after the cells are escaped).
SUPERSCRIPT = "@@SUP:{}@@"
_SUPERSCRIPT = re.compile(r"@@SUP:([A-Za-z0-9,]+)@@")


def check_runs(exp: Any, what: str) -> None:
    """An organiser's view needs at least two runs."""
    if len(exp.runs) < 2:
        raise GradedInputError(f"{what} needs at least two runs; got {len(exp.runs)} ({', '.join(exp.runs)})")


def labels(exp: Any) -> list[str]:
    """The experiment's measures as its tables name them."""
    return list(exp.labels)


def resolve(exp: Any, measure: Any) -> str:
    """The label of the experiment's measure ``measure`` (an object or any name it is read by)."""
    names = labels(exp)
    if isinstance(measure, str) and measure in names:
        return measure
    try:
        parsed = measure_lists.parse([measure])
    except GradedInputError:
        parsed = []
    found: list[str] = [exp.label[m] for m in parsed if m in exp.label]
    if len(found) != 1:
        raise GradedInputError(f"measure {measure} is not one of the experiment's: {', '.join(names)}")
    return found[0]


def values(exp: Any, measure: str) -> np.ndarray:
    """One measure's per-query values: the experiment's runs (in order) × its judged queries (sorted):
    the comparison's :func:`~ir_measures_graded.experiments.comparison.matrix`."""
    from ir_measures_graded.experiments.comparison import matrix

    return matrix(exp.per_query, measure, list(exp.runs))


def aggregate(exp: Any, measure: str) -> np.ndarray:
    """One measure's aggregate per run (the run's score), in the experiment's order."""
    agg = exp.aggregates
    scores: np.ndarray = agg[agg["measure"] == measure].set_index("run")["value"].reindex(list(exp.runs)).to_numpy(
        np.float64)
    return scores


def competition_ranks(scores: np.ndarray) -> np.ndarray:
    """1 + the number of runs scoring more (values within :func:`statistics.tolerance` tie, chained as
    :func:`statistics.tied_ranks` chains them); NaN for a NaN score."""
    x = np.asarray(scores, dtype=np.float64)
    ranks = np.full(len(x), np.nan)
    finite = np.flatnonzero(~np.isnan(x))
    if len(finite):
        dense = statistics.tied_ranks(x[finite])
        ranks[finite] = (dense[None, :] > dense[:, None]).sum(axis=1) + 1
    return ranks


class View:
    """The views of a result holding a tidy ``table`` and a human-readable ``display()``."""

    table: pd.DataFrame
    notes: list[str]
    title: str = ""
    label: str = "tab:organiser"
    narrow: bool = False  # its LaTeX table with half the space between columns (one column of a page)

    def display(self, places: int = 4, latex: bool = False) -> pd.DataFrame:
        """The human-readable table (cells as text where they combine several numbers)."""
        return self.table

    def legend(self, places: int = 4) -> str:
        """The notes under the table (numbers in them with ``places`` decimals, as the table's)."""
        return "\n".join(n for n in self.notes if n)

    def to_dataframe(self) -> pd.DataFrame:
        """The tidy table: numbers as numbers."""
        return self.table.copy()

    def to_text(self, places: int = 4) -> str:
        return self.render("text", places)

    def to_markdown(self, places: int = 4) -> str:
        return self.render("markdown", places)

    def to_latex(self, places: int = 4, caption: str | None = None, label: str | None = None) -> str:
        """A complete ``table`` environment (needs ``\\usepackage{booktabs}``), the legend inside; longer
        than :data:`LONG_ROWS` rows, a ``longtable`` (needs ``\\usepackage{longtable}``) broken across pages."""
        # every cell as the text and Markdown views print it: numbers with ``places`` decimals
        shown = tables.formatted(self.display(places, latex=True), places)
        text = tables.latex_table(shown, caption or self.title, label or self.label,
                                  [line for line in self.legend(places).splitlines() if line],
                                  long=len(shown) > LONG_ROWS, narrow=self.narrow)
        return _SUPERSCRIPT.sub(r"\\textsuperscript{\1}", text)

    def render(self, output_format: str, places: int = 4, title: str | None = None) -> str:
        """``text``, ``markdown`` (the human table, title and legend), ``latex`` (:meth:`to_latex`) or a
        tidy machine table (``tsv``, ``csv``, ``jsonl``)."""
        if output_format in formats.MACHINE_FORMATS:
            return tables.machine(self.table, output_format, places)
        if output_format == "latex":
            return self.to_latex(places)
        return tables.render(self.display(places), output_format, places, self.title if title is None else title,
                             self.legend(places))


def rank_text(rank: float) -> str:
    return "" if pd.isna(rank) else str(int(rank))


def chosen(exp: Any, measures: Sequence[Any] | None) -> list[str]:
    """The labels of ``measures`` (default: all the experiment's; one measure may be given alone, by
    name or as an object); an empty list is refused."""
    if measures is None:
        return labels(exp)
    if isinstance(measures, str) or not isinstance(measures, Sequence):
        measures = [measures]
    if not measures:
        raise GradedInputError(f"no measure given: give one or more of the experiment's ({', '.join(labels(exp))}), "
                               "or None for all")
    return list(dict.fromkeys(resolve(exp, m) for m in measures))
