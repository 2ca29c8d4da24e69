"""The organiser's references written in the tests: a run's incompleteness bounds by judging its unjudged
documents explicitly and evaluating again."""

from __future__ import annotations

import pandas as pd

import ir_measures_graded as img


def explicit_bounds(qrels: pd.DataFrame, run: pd.DataFrame, top: pd.Series,
                    measures: list[str]) -> dict[str, dict[str, float]]:
    """``{"floor" | "top": {measure: value}}``: the run evaluated with its unjudged documents (of the qrels'
    topics) added to ``qrels`` at 0 and at ``top`` (each topic's top grade)."""
    known = set(zip(qrels["query_id"], qrels["doc_id"], strict=True))
    unjudged = run[[(q, d) not in known for q, d in zip(run["query_id"], run["doc_id"], strict=True)]]
    unjudged = unjudged[unjudged["query_id"].isin(top.index)]
    found = {}
    for column, grade in (("floor", 0), ("top", unjudged["query_id"].map(top))):
        added = pd.DataFrame({"query_id": unjudged["query_id"], "doc_id": unjudged["doc_id"], "relevance": grade})
        again = img.experiment(pd.concat([qrels, added], ignore_index=True), {"run": run}, measures).aggregates
        found[column] = dict(zip(again["measure"], again["value"], strict=True))
    return found
