"""Tables 1 and 2 of Scheel et al. (2011), computed cell by cell beside the values the paper prints.

Both tables use one ranked list A..H with labels 1 0 3 3 2 0 1 4 (the bundled ``paper_example``).
The printed values are kept as the paper's strings, so that "agrees" means: equal at the printed
precision. AP and nDCG come from the registered measures through ``ir_measures``; the gain and
DCG rows of Table 2 are the paper's own arithmetic (the paper's DCG uses log10, which cancels in
nDCG: 3.32 = 1 / log10(2)).
"""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd

from ir_measures_graded.measures import muAP, muMAP, nDCNG
from ir_measures_graded.sample import paper_example

ITEMS = list("ABCDEFGH")

#: Table 1 as printed: AP for each threshold t, the plain mean over t = 0..5 and µAP.
PRINTED_TABLE1 = {"t = 5": "0.000", "t = 4": "0.125", "t = 3": "0.403", "t = 2": "0.483", "t = 1": "0.780",
                  "t = 0": "1.000", "mean": "0.465", "mean of 5 > t > 0": "0.448"}

#: Table 2 as printed: per example, rows over A..H and the mean of the ndcg row.
PRINTED_TABLE2 = {
    "example one: gain equals rel(i)": {
        "gain": "1 0 3 3 2 0 1 4", "gain_opt": "4 3 3 2 1 1 0 0",
        "dcg": "3.32 3.32 14.95 24.96 28.82 28.82 29.93 45.65",
        "dcg_opt": "49.83 64.50 76.13 80.42 81.70 82.89 82.89 82.89",
        "ndcg": "0.07 0.05 0.20 0.31 0.35 0.35 0.36 0.55", "mean": "0.28"},
    "example two: gain equals rel(i) * 2": {
        "gain": "2 0 6 6 4 0 2 8", "gain_opt": "8 6 6 4 2 2 0 0",
        "dcg": "9.97 9.97 114 204 224 224 227 494",
        "dcg_opt": "847 979 1083 1105 1109 1112 1112 1112",
        "ndcg": "0.01 0.01 0.11 0.19 0.20 0.20 0.20 0.44", "mean": "0.17"},
    "example three: gain normalised with ngain (Eq. 5)": {
        "gain": "0.25 0 0.75 0.75 0.5 0 0.25 1", "gain_opt": "1 0.75 0.75 0.5 0.25 0.25 0 0",
        "dcg": "0.63 0.63 1.76 2.74 3.27 3.27 3.48 4.53",
        "dcg_opt": "3.32 4.75 5.88 6.48 6.72 6.94 6.94 6.94",
        "ndcg": "0.19 0.13 0.30 0.42 0.49 0.47 0.50 0.65", "mean": "0.39"},
}
#: What each example scales the labels by, and the nDCG measure family whose @k gives its ndcg row.
EXAMPLES = {
    "example one: gain equals rel(i)": (1, nDCNG(norm=1)),  # gain = label: plain exponential nDCG
    "example two: gain equals rel(i) * 2": (2, nDCNG(norm=1)),
    "example three: gain normalised with ngain (Eq. 5)": (1, nDCNG),
}


def agreement(ours: float, printed: str) -> str:
    """``'rounds'`` if ours rounds to the printed value, ``'truncates'`` if it only truncates to it, else ``'DIFFERS'``."""
    places = len(printed.split(".")[1]) if "." in printed else 0
    value, scale = float(printed), 10.0 ** places
    if abs(ours - value) <= 0.5 / scale + 1e-9:
        return "rounds"
    if abs(np.trunc(ours * scale + 1e-9) - value * scale) < 1e-6:
        return "truncates"
    return "DIFFERS"


def table1() -> pd.DataFrame:
    """Table 1: which items count as relevant at each threshold, AP computed and printed."""
    qrels, run = paper_example()
    labels = qrels.set_index("doc_id").loc[ITEMS, "relevance"].to_numpy()
    measures = {f"t = {t}": muAP(levels=(t,), floor=t - 1) for t in range(5, -1, -1)}  # AP with label >= t
    measures["mean"] = muAP(levels=(0, 1, 2, 3, 4, 5), floor=-1, weights="uniform")
    measures["mean of 5 > t > 0"] = muMAP
    values = ir_measures.calc_aggregate(list(measures.values()), qrels, run)
    rows = []
    for name, measure in measures.items():
        t = int(name[4:]) if name.startswith("t = ") else None
        marks = " ".join("+" if label >= t else "-" for label in labels) if t is not None else ""
        ours = values[measure]
        rows.append((name, marks, ours, PRINTED_TABLE1[name], agreement(ours, PRINTED_TABLE1[name])))
    return pd.DataFrame(rows, columns=["row", " ".join(ITEMS), "AP (ours)", "AP (paper)", "agrees"]).set_index("row")


def table2() -> pd.DataFrame:
    """Table 2, every cell: index (example, row, source in ours/paper/agrees), columns A..H and mean."""
    qrels, run = paper_example()
    labels = qrels.set_index("doc_id").loc[ITEMS, "relevance"].to_numpy(dtype=np.float64)
    discount = np.log10(np.arange(2, len(ITEMS) + 2))  # the paper's log; any base gives the same nDCG
    records = []
    for example, (scale, family) in EXAMPLES.items():
        scaled = qrels.assign(relevance=qrels["relevance"] * scale)
        at_k = [family @ k for k in range(1, len(ITEMS) + 1)]
        values = ir_measures.calc_aggregate(at_k, scaled, run)
        gain = labels * scale
        if family["norm"] != 1:  # Eq. 5: divided by the query's highest gain
            gain = gain / gain.max()
        gain_opt = np.sort(gain)[::-1]
        ndcg = np.array([values[m] for m in at_k])
        ours = {"gain": gain, "gain_opt": gain_opt, "dcg": np.cumsum((2 ** gain - 1) / discount),
                "dcg_opt": np.cumsum((2 ** gain_opt - 1) / discount), "ndcg": ndcg}
        printed = PRINTED_TABLE2[example]
        for row, cells in ours.items():
            paper = printed[row].split()
            mean = [ndcg.mean()] if row == "ndcg" else [np.nan]
            paper_mean = [printed["mean"]] if row == "ndcg" else [""]
            records.append((example, row, "ours", *cells, *mean))
            records.append((example, row, "paper", *map(float, paper), *(float(p) if p else np.nan for p in paper_mean)))
            records.append((example, row, "agrees", *(agreement(o, p) for o, p in zip(cells, paper, strict=True)),
                            *(agreement(m, p) if p else "" for m, p in zip(mean, paper_mean, strict=True))))
    return pd.DataFrame(records, columns=["example", "row", "source", *ITEMS, "mean"]).set_index(
        ["example", "row", "source"])
