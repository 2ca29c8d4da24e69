"""Bundled sample data and the sample evaluation printed by ``python -m ir_measures_graded``."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import ir_measures
import pandas as pd

from ir_measures_graded.formats import read_qrels, read_run
from ir_measures_graded.measures import meanNDCG, meanNDCNG, muMAP, muP, nDCNG

#: Measures shown side by side in the sample evaluation.
SAMPLE_MEASURES = [muMAP, meanNDCG, meanNDCNG, nDCNG @ 10, muP @ 5, ir_measures.AP, ir_measures.AP(rel=2),
                   ir_measures.nDCG @ 10, ir_measures.P @ 5]


def data_path(name: str) -> Path:
    """Path of a bundled data file (see ``ir_measures_graded/data``)."""
    return Path(str(resources.files("ir_measures_graded") / "data" / name))


def paper_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Tables 1 and 2 of Scheel et al. (2011): items A..H with labels 1 0 3 3 2 0 1 4, ranked A..H."""
    return read_qrels(data_path("paper_example.qrels")), read_run(data_path("paper_example.run"))


def trec_eval_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """trec_eval's multi-graded test collection: TREC topics 301-303, labels -1..4, one run."""
    return (read_qrels(data_path("trec_eval_test/qrels.rel_level")),
            read_run(data_path("trec_eval_test/results.test")))


def sample_table(measures: list | None = None) -> pd.DataFrame:
    """Mean values of ``measures`` on each bundled sample collection (rows) per measure (columns)."""
    measures = SAMPLE_MEASURES if measures is None else measures
    rows = {}
    for name, (qrels, run) in {"paper Table 1/2 example": paper_example(),
                               "trec_eval test (TREC 301-303)": trec_eval_example()}.items():
        values = ir_measures.calc_aggregate(measures, qrels, run)
        rows[name] = {str(m): values[m] for m in measures}
    return pd.DataFrame.from_dict(rows, orient="index")


def main() -> None:
    table = sample_table()
    with pd.option_context("display.width", 200, "display.max_columns", None, "display.float_format", "{:.4f}".format):
        print(table.T.to_string())
