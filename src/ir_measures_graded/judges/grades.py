"""Label agreement between two sets of graded judgments of the same topics (judge A and judge B).

On the (query, document) pairs both judged: Cohen's κ (unweighted, linear and quadratic weights), Krippendorff's
α (ordinal and interval), the share of identical grades, the confusion matrix of grades, and agreement on
"relevant at threshold t" for every threshold of each side; per topic and over all topics. The documents only one
side judged are counted by grade.

Grades are compared as numbers. Where the two sides use different grades (0-3 against 0-2), the tables say so
(``same_scale``), κ and α treat the union of the grades as one ordinal scale, and the thresholds are compared
pairwise (every threshold of A against every threshold of B). A mapping of B's grades onto A's scale may be given
(``map:1=1,2=3``, any monotone :mod:`~ir_measures_graded.meta.transforms` relabelling); none is guessed.

κ and α weights use positions on the scale (the union of both sides' grades, sorted), as scikit-learn and
statsmodels do; the interval α uses the grades' values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.organiser import common

__all__ = ["Table", "cohen_kappa", "krippendorff_alpha", "LabelAgreement", "label_agreement", "relabel", "ALL"]

#: The row of a per-topic table holding the value over every topic.
ALL = "all"
WEIGHTS = ("unweighted", "linear", "quadratic")


def cohen_kappa(table: np.ndarray, weights: str = "unweighted") -> float:
    """Cohen's κ of a k × k confusion matrix (rows: judge A's grade, columns: B's, on one ordered scale), with
    ``weights`` ``unweighted``, ``linear`` (|i - j|) or ``quadratic`` ((i - j)²) over the scale's positions;
    NaN when chance disagreement is 0 (a single grade used by both)."""
    table = np.asarray(table, dtype=np.float64)
    n = table.sum()
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {', '.join(WEIGHTS)}; got {weights!r}")
    if n == 0:
        return float("nan")
    i, j = np.indices(table.shape)
    w = {"unweighted": (i != j).astype(np.float64), "linear": np.abs(i - j).astype(np.float64),
         "quadratic": ((i - j) ** 2).astype(np.float64)}[weights]
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    chance = float((w * expected).sum())
    return float("nan") if chance == 0 else 1.0 - float((w * table).sum()) / chance


def krippendorff_alpha(table: np.ndarray, values: np.ndarray, level: str = "ordinal") -> float:
    """Krippendorff's α of two judges with no missing grade, from their confusion matrix ``table`` over the
    ordered scale ``values``: ``ordinal`` (distances by the grades' counts between two grades) or ``interval``
    ((v_c - v_k)²). NaN when no disagreement is expected (every document given one grade)."""
    table = np.asarray(table, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    coincidence = table + table.T  # each document: one pair of grades each way
    totals = coincidence.sum(axis=1)
    n = float(totals.sum())
    if level == "interval":
        delta = (values[:, None] - values[None, :]) ** 2
    elif level == "ordinal":
        cumulative = np.cumsum(totals)
        c, k = np.indices(table.shape)
        low, high = np.minimum(c, k), np.maximum(c, k)
        between = cumulative[high] - np.where(low > 0, cumulative[np.maximum(low - 1, 0)], 0.0)
        delta = (between - (totals[c] + totals[k]) / 2) ** 2
    else:
        raise ValueError(f"level must be ordinal or interval; got {level!r}")
    expected = float((np.outer(totals, totals) * delta).sum())
    if n <= 1 or expected == 0:
        return float("nan")
    return 1.0 - (n - 1) * float((coincidence * delta).sum()) / expected


def relabel(frame: pd.DataFrame, mapping: Any, side: str = "B") -> pd.DataFrame:
    """``frame`` (``query_id``, ``doc_id``, ``relevance``) with its grades mapped by ``mapping`` (a
    :class:`~ir_measures_graded.meta.transforms.Transform` or its text, e.g. ``map:1=1,2=3``); a mapping that is
    not monotone over the grades is refused in one line."""
    from ir_measures_graded.meta.transforms import parse_transform

    grades = frame["relevance"].to_numpy(dtype=np.float64)
    try:
        transform = parse_transform(mapping, grades)
    except ValueError as ex:
        raise GradedInputError(f"the mapping of judge {side}'s grades: {ex}") from None
    return frame.assign(relevance=transform.apply(grades))


@dataclass
class Table(common.View):
    """One tidy table of the judges' comparison with its views (text, Markdown, LaTeX, tsv/csv/jsonl)."""

    table: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    title: str = ""
    label: str = "tab:judges"


@dataclass
class LabelAgreement:
    """The label agreement of judges ``a`` and ``b``: four tidy tables, each a view (text, Markdown, LaTeX,
    tsv/csv/jsonl): ``summary`` (per topic and ``all``: documents in common, judged by one side only, identical
    grades, κ unweighted/linear/quadratic, α ordinal/interval), ``confusion`` (over all topics: ``grade_a``,
    ``grade_b``, ``count``), ``thresholds`` (per topic and ``all``: for each pair of thresholds, the documents
    relevant to both, to A only, to B only, to neither, the share agreed, and κ), ``one_side`` (documents only
    one side judged, by side and grade)."""

    a: str
    b: str
    grades_a: list[float]
    grades_b: list[float]
    summary: common.View
    confusion: common.View
    thresholds: common.View
    one_side: common.View

    @property
    def same_scale(self) -> bool:
        return self.grades_a == self.grades_b

    def overall(self, column: str) -> float:
        """One column of ``summary`` over every topic (e.g. ``kappa_quadratic``)."""
        rows = self.summary.table
        return float(rows.loc[rows["query_id"] == ALL, column].iloc[0])


def _grades(values: pd.Series) -> list[float]:
    return [float(g) for g in np.unique(values.to_numpy(dtype=np.float64))]


def _text(grades: list[float]) -> str:
    return " ".join(f"{g:g}" for g in grades)


def label_agreement(qrels_a: pd.DataFrame, qrels_b: pd.DataFrame, a: str = "A", b: str = "B",
                    mapping: Any = None) -> LabelAgreement:
    """The agreement of two qrels frames (``query_id``, ``doc_id``, ``relevance``; e.g. two experiments'
    ``qrels_frame``); ``mapping``: B's grades mapped onto A's scale first (see :func:`relabel`)."""
    if mapping is not None:
        qrels_b = relabel(qrels_b, mapping, b)
    columns = ["query_id", "doc_id", "relevance"]
    left = qrels_a[columns].astype({"query_id": str, "doc_id": str})
    right = qrels_b[columns].astype({"query_id": str, "doc_id": str})
    for side, frame in ((a, left), (b, right)):
        repeated = frame.duplicated(["query_id", "doc_id"])
        if repeated.any():
            q, d = frame.loc[repeated, ["query_id", "doc_id"]].iloc[0]
            raise GradedInputError(f"judge {side} judges query {q} document {d} more than once")
    joined = left.merge(right, on=["query_id", "doc_id"], how="outer", suffixes=("_a", "_b"), indicator=True)
    both = joined[joined["_merge"] == "both"]
    if both.empty:
        raise GradedInputError(f"judges {a} and {b} have no (query, document) judged in common: nothing to compare")
    grades_a, grades_b = _grades(left["relevance"]), _grades(right["relevance"])
    scale = sorted(set(grades_a) | set(grades_b))
    position = {g: k for k, g in enumerate(scale)}
    notes = []
    same = grades_a == grades_b
    if not same:
        notes.append(f"The scales differ ({a}: {_text(grades_a)}; {b}: {_text(grades_b)}): kappa and alpha treat "
                     f"the grades {_text(scale)} as one scale, and every threshold of {a} is compared with every "
                     f"threshold of {b}; give a mapping of {b}'s grades onto {a}'s if they mean other things.")
    if mapping is not None:
        notes.append(f"{b}'s grades mapped by {getattr(mapping, 'name', mapping)}.")
    codes_a = both["relevance_a"].map(position).to_numpy(np.int64)
    codes_b = both["relevance_b"].map(position).to_numpy(np.int64)
    queries = both["query_id"].to_numpy()
    topics = list(dict.fromkeys(left["query_id"].tolist() + right["query_id"].tolist()))
    only = joined[joined["_merge"] != "both"]
    only_a = only[only["_merge"] == "left_only"].groupby("query_id").size()
    only_b = only[only["_merge"] == "right_only"].groupby("query_id").size()
    k = len(scale)
    rows, threshold_rows = [], []
    pairs = ([(t, t) for t in scale if t > min(scale) and t in grades_a and t in grades_b] if same else
             [(ta, tb) for ta in grades_a[1:] for tb in grades_b[1:]])
    for topic in [ALL, *topics]:
        chosen = np.ones(len(queries), bool) if topic == ALL else queries == topic
        table = np.zeros((k, k))
        np.add.at(table, (codes_a[chosen], codes_b[chosen]), 1)
        common_n = int(chosen.sum())
        rows.append({
            "query_id": topic, "common": common_n,
            "only_a": int(only_a.sum() if topic == ALL else only_a.get(topic, 0)),
            "only_b": int(only_b.sum() if topic == ALL else only_b.get(topic, 0)),
            "identical": float(np.trace(table) / common_n) if common_n else float("nan"),
            **{("kappa" if w == "unweighted" else f"kappa_{w}"): cohen_kappa(table, w) for w in WEIGHTS},
            "alpha_ordinal": krippendorff_alpha(table, np.array(scale), "ordinal"),
            "alpha_interval": krippendorff_alpha(table, np.array(scale), "interval"),
            "same_scale": same,
        })
        grade_a, grade_b = np.array(scale)[codes_a[chosen]], np.array(scale)[codes_b[chosen]]
        for ta, tb in pairs:
            ra, rb = grade_a >= ta, grade_b >= tb
            binary = np.array([[np.sum(~ra & ~rb), np.sum(~ra & rb)], [np.sum(ra & ~rb), np.sum(ra & rb)]])
            threshold_rows.append({
                "query_id": topic, "threshold_a": ta, "threshold_b": tb, "both": int(binary[1, 1]),
                "a_only": int(binary[1, 0]), "b_only": int(binary[0, 1]), "neither": int(binary[0, 0]),
                "agreement": float(np.trace(binary) / common_n) if common_n else float("nan"),
                "kappa": cohen_kappa(binary)})
        if topic == ALL:
            overall = table
    confusion = pd.DataFrame([(scale[i], scale[j], int(overall[i, j])) for i in range(k) for j in range(k)
                              if scale[i] in grades_a and scale[j] in grades_b],
                             columns=["grade_a", "grade_b", "count"])
    one_side = pd.DataFrame(
        [(side, float(g), int(n)) for side, merge, col in ((a, "left_only", "relevance_a"),
                                                            (b, "right_only", "relevance_b"))
         for g, n in only[only["_merge"] == merge].groupby(col).size().items()],
        columns=["side", "grade", "count"])
    summary_notes = [f"On the documents both {a} and {b} judged. kappa: Cohen's (unweighted, linear and quadratic "
                     "weights); alpha: Krippendorff's (ordinal, interval); identical: the share given the same grade; "
                     f"only_a / only_b: documents judged by one side only. NaN: no disagreement expected by chance "
                     f"(one grade only).", *notes]
    if all(float(g).is_integer() for g in scale):  # integral grades shown as integers
        confusion = confusion.astype({"grade_a": np.int64, "grade_b": np.int64})
        one_side = one_side.astype({"grade": np.int64})
        threshold_rows = [{**r, "threshold_a": int(r["threshold_a"]), "threshold_b": int(r["threshold_b"])}
                          for r in threshold_rows]
    return LabelAgreement(
        a, b, grades_a, grades_b,
        Table(pd.DataFrame(rows), summary_notes, f"Label agreement of {a} and {b}", "tab:judges-labels"),
        Table(confusion, [f"Rows: {a}'s grade; columns: {b}'s; documents both judged, over all topics.", *notes],
               f"Grades of {a} against {b}", "tab:judges-confusion"),
        Table(pd.DataFrame(threshold_rows, columns=["query_id", "threshold_a", "threshold_b", "both", "a_only",
                                                     "b_only", "neither", "agreement", "kappa"]),
               ["Relevant: a grade >= the threshold of its side; kappa: Cohen's, of the two binary judgments.",
                *notes], f"Agreement on relevance at each threshold of {a} and {b}", "tab:judges-thresholds"),
        Table(one_side, ["Documents only one side judged, by that side's grade.", *notes],
               f"Documents judged by {a} or {b} only", "tab:judges-one-side"))
