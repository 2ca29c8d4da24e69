"""Fuzz: hostile in-memory qrels and runs (DataFrame dtypes, dict key types, named tuples) through the API.

Each case is a small clean collection (string ids, float values) presented as a dict of dicts,
a DataFrame (ids as object, categorical, pandas or Arrow strings, integers; values in several
integer, float, nullable and object dtypes, extra columns) or named tuples (ir_measures' own, a
custom one, a generator), with at most one defect: ids that collide once made strings (1 and '1'),
an int query id in the qrels and a float one in the run (1 vs 1.0), bytes or tuple ids, a bool,
complex, missing or non-finite value, a numeric string or Decimal value, the score column twice.

The contract (README, "What happens with bad input"): the values equal the slow reference on the
clean collection, or ``GradedInputError`` with one line naming the query and doc (or the column)
— never another exception, NaN, a Python warning or a silently dropped or merged row.

Issue 21 adds: one evaluator shared by threads while the caller edits its qrels frame in place
(the values stay those of the judgments as built), ids of 120+ bytes that differ only inside, and
labels and floors scaled to the edges of float64.

Issues 44 and 46 add: generators of named tuples (with the defects above), ir_measures' own readers
of a file and Arrow record batch readers as qrels and runs, through ``ir_measures.iter_calc`` and
``experiment()`` (the run streamed, or read once and kept).

Cases per run: ``test_hostile_objects_through_the_api`` 200, ``test_extreme_gain_parameters`` 60,
``test_an_evaluator_shared_across_threads_and_in_place_edits`` 40, ``test_long_ids_that_differ_only_inside`` 40,
``test_extreme_labels_and_floors`` 60, ``test_generators_and_readers_through_every_entry_point`` 120.
"""

from __future__ import annotations

import collections
import decimal
import math
import re
import warnings

import ir_measures
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from ir_measures import Qrel, ScoredDoc

from ir_measures_graded import GAP, GradedInputError, meanNDCG, meanNDCNG, muAP, muP, nDCNG
from support import reference, registered
from support.examples import examples

#: Every registered measure (a new one is fuzzed by registering it).
MEASURES = {m: registered.reference_args(m) for m in registered.instances(cutoff=5)}
# No shrinking: a failing case is reported as generated, and the suite stays within its CI minute.
FUZZ = settings(phases=(Phase.explicit, Phase.reuse, Phase.generate), max_examples=examples(200), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])

#: Defects that must be refused, that may be refused or read as the clean value, and none.
MUST_FAIL = ["collide", "int_vs_float_ids", "tuple_id", "bool_value", "complex_value", "missing_value",
             "nan_value", "inf_value", "score_twice", "none_id"]
EITHER = ["bytes_ids", "numeric_string", "decimal_value"]
DEFECTS = ["none"] * 4 + MUST_FAIL + EITHER
MyQrel = collections.namedtuple("MyQrel", "query_id doc_id relevance iteration extra")
MyDoc = collections.namedtuple("MyDoc", "extra query_id doc_id score")

numeric_ids = st.sampled_from(["1", "2", "10", "3"])
text_ids = st.sampled_from(["q", "d1", "d2", "D2", "dé", "d10"])


@st.composite
def collections_(draw) -> tuple[dict, dict]:
    qrels, run = {}, {}
    query_ids = draw(st.lists(st.one_of(numeric_ids, text_ids), min_size=1, max_size=3, unique=True))
    values = st.sampled_from([0.0, 1.0, 2.0, 3.0, 0.5, -1.0])
    for q in query_ids:
        qrels[q] = draw(st.dictionaries(st.one_of(numeric_ids, text_ids), values, min_size=1, max_size=5))
        retrieved = draw(st.dictionaries(st.one_of(numeric_ids, text_ids), values, min_size=1, max_size=5))
        run[q] = retrieved
    return qrels, run


def rows(nested: dict) -> list[tuple]:
    return [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]


def as_int_if_numeric(x):
    return int(x) if isinstance(x, str) and x.isdigit() and not x.startswith("0") else x


@st.composite
def presented(draw, nested: dict, kind: str, defect: str | None) -> object:
    """``nested`` ({query: {doc: value}}) in a random container, with ``defect`` applied to one row."""
    value_field = "relevance" if kind == "qrels" else "score"
    table = [list(r) for r in rows(nested)]
    ids_as_ints = draw(st.booleans())  # numeric-looking ids given as Python ints
    if ids_as_ints:
        table = [[as_int_if_numeric(q), as_int_if_numeric(d), v] for q, d, v in table]
    at = draw(st.integers(0, len(table) - 1))
    if defect == "tuple_id":
        table[at][1] = ("d", 1)
    elif defect == "none_id":
        table[at][0] = None
    elif defect == "bool_value":
        table[at][2] = True
    elif defect == "complex_value":
        table[at][2] = complex(table[at][2], 1)
    elif defect == "missing_value":
        table[at][2] = None
    elif defect == "nan_value":
        table[at][2] = math.nan
    elif defect == "inf_value":
        table[at][2] = -math.inf
    elif defect == "numeric_string":
        table[at][2] = repr(table[at][2])
    elif defect == "decimal_value":
        table[at][2] = decimal.Decimal(repr(table[at][2]))
    elif defect == "bytes_ids":
        table = [[q, str(d).encode(), v] for q, d, v in table]
    container = draw(st.sampled_from(["dict", "frame", "frame", "tuples", "generator", "custom tuples"]))
    if defect == "score_twice":
        container = "frame"
    if defect == "collide":
        container = "dict"
    if container == "dict":
        out: dict = {}
        for q, d, v in table:
            out.setdefault(q, {})[d] = v
        if defect == "collide":  # the same doc as 1 and '1' in one query
            q = next(iter(out))
            out[q][7] = 1.0
            out[q]["7"] = 0.0
        return out
    if container in ("tuples", "generator"):
        make = Qrel if kind == "qrels" else ScoredDoc
        items = [make(q, d, v) for q, d, v in table]
        return iter(items) if container == "generator" else items
    if container == "custom tuples":
        if kind == "qrels":
            return [MyQrel(q, d, v, "0", None) for q, d, v in table]
        return [MyDoc("x", q, d, v) for q, d, v in table]
    frame = pd.DataFrame({"query_id": [r[0] for r in table], "doc_id": [r[1] for r in table],
                          value_field: pd.Series([r[2] for r in table], dtype=object)})
    id_dtype = draw(st.sampled_from(["object", "category", "string", "arrow", "as is"]))
    plain_ids = not any(isinstance(x, (tuple, bytes)) or x is None for r in table for x in r[:2])
    if plain_ids and id_dtype != "as is" and not ids_as_ints:
        for col in ("query_id", "doc_id"):
            frame[col] = (frame[col].astype(pd.ArrowDtype(pa.string())) if id_dtype == "arrow"
                          else frame[col].astype(id_dtype))
    plain_values = all(type(r[2]) is float and math.isfinite(r[2]) for r in table)
    if plain_values:
        value_dtype = draw(st.sampled_from(["float64", "float32", "Float64", "object", "arrow"]
                                           + (["int64", "int8", "Int64"] if all(r[2] == int(r[2]) for r in table)
                                              else [])))
        frame[value_field] = (frame[value_field].astype(float).astype(pd.ArrowDtype(pa.float64()))
                              if value_dtype == "arrow" else frame[value_field].astype(float).astype(value_dtype))
    elif defect == "missing_value" and draw(st.booleans()):
        frame[value_field] = frame[value_field].astype("Float64")  # pd.NA in a nullable column
    if draw(st.booleans()):
        frame["iteration"] = "0"  # extra columns are ignored
    if defect == "score_twice":
        frame = pd.concat([frame, frame[[value_field]]], axis=1)
    if draw(st.booleans()):
        frame = frame.sample(frac=1.0, random_state=0)  # row order and index do not matter
    return frame


def clean_values(qrels: dict, run: dict) -> dict:
    return {(qid, measure): value for measure, (name, params) in MEASURES.items()
            for qid, value in reference.per_query(name, params, qrels, run).items()}


@settings(FUZZ)
@given(st.data())
def test_hostile_objects_through_the_api(data):
    qrels, run = data.draw(collections_())
    defect = data.draw(st.sampled_from(DEFECTS))
    in_qrels = data.draw(st.booleans()) and defect != "score_twice"
    qrels_obj = data.draw(presented(qrels, "qrels", defect if in_qrels else None))
    run_obj = data.draw(presented(run, "run", None if in_qrels else defect))
    if defect == "int_vs_float_ids":  # the same query as 1 in the qrels and 1.0 in the run
        qrels = {"1": {"d1": 1.0}, **{k: v for k, v in qrels.items() if k != "1"}}
        run = {"1": {"d1": 2.0}, **{k: v for k, v in run.items() if k != "1"}}
        qrels_obj = {(1 if k == "1" else k): v for k, v in qrels.items()}
        run_obj = {(1.0 if k == "1" else k): v for k, v in run.items()}
    snapshot = repr(qrels_obj) if not hasattr(qrels_obj, "__next__") else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a warning is a failure
            got = {(m.query_id, m.measure): m.value for m in ir_measures.iter_calc(list(MEASURES), qrels_obj, run_obj)}
    except GradedInputError as ex:
        message = str(ex)
        assert defect in MUST_FAIL + EITHER, f"clean input refused: {message}"
        assert "\n" not in message and message.strip(), message
        assert re.search(r"query|doc|column|row|id", message), message
        if defect == "numeric_string":  # the true reason: text, not a non-finite number (#35.6)
            assert "is a str, not a number" in message, message
        return
    assert defect not in MUST_FAIL, f"{defect} ({'qrels' if in_qrels else 'run'}) was accepted: {got}"
    expected = clean_values(qrels, run)
    assert got.keys() == expected.keys()
    for key, value in got.items():
        assert not math.isnan(value), key
        assert value == pytest.approx(expected[key], rel=1e-9, abs=1e-12), (defect, key)
    if snapshot is not None:
        assert repr(qrels_obj) == snapshot  # inputs are never modified



@settings(FUZZ, max_examples=examples(60))
@given(collections_(), st.sampled_from([1, 300, 1100, 5000]), st.data())
def test_extreme_gain_parameters(collection, scale, data):
    """Huge labels, gains and tiny norms give the finite, correct value (2^g itself is never needed)."""
    qrels, run = collection
    qrels = {q: {d: v * scale for d, v in docs.items()} for q, docs in qrels.items()}
    name = data.draw(st.sampled_from(["nDCNG", "meanNDCG", "meanNDCNG"]))
    params: dict = {"cutoff": data.draw(st.sampled_from([3, 10]))}
    if data.draw(st.booleans()):
        params["gains"] = {data.draw(st.sampled_from([1.0, 2.0, 3.0])) * scale: data.draw(st.sampled_from([2000, 1e6]))}
    if name != "meanNDCG" and data.draw(st.booleans()):
        params["norm"] = data.draw(st.sampled_from([0.001, 1e-6, 0.5]))
    measure = {"nDCNG": nDCNG, "meanNDCG": meanNDCG, "meanNDCNG": meanNDCNG}[name](**params)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    expected = reference.per_query(name, params, qrels, run)
    for qid, value in got.items():
        assert math.isfinite(value), (str(measure), qid)
        assert value == pytest.approx(expected[qid], rel=1e-9, abs=1e-12), (str(measure), qid)


# --- issue 21: shared evaluators, long colliding ids, extreme labels and floors --------------------

SHARED = [muAP, muAP @ 3, muAP(levels="collection"), muAP(levels="collection-all"), muAP(ties="expected"),
          muP @ 2, muP(levels="collection-all", ties="expected") @ 3, GAP, GAP(ties="expected") @ 4, nDCNG @ 3,
          nDCNG(norm="collection", dcg="exp-log2"), meanNDCG @ 4, meanNDCNG(ties="expected")]


def grouped_frame(qrels: dict) -> pd.DataFrame:
    return pd.DataFrame([(q, str(d), float(v)) for q, docs in qrels.items() for d, v in docs.items()],
                        columns=["query_id", "doc_id", "relevance"])


def per_query_values(evaluator_or_measures, run, qrels=None) -> dict:
    metrics = (evaluator_or_measures.iter_calc(run) if qrels is None
               else ir_measures.iter_calc(evaluator_or_measures, qrels, run))
    return {(m.query_id, str(m.measure)): m.value for m in metrics}


@settings(FUZZ, max_examples=examples(40))
@given(collections_(), st.data())
def test_an_evaluator_shared_across_threads_and_in_place_edits(collection, data):
    """One evaluator, several threads at once, the caller's frame edited in place in between: every
    call gives the values of the judgments as they were when the evaluator was built."""
    from concurrent.futures import ThreadPoolExecutor

    qrels, run = collection
    measures = data.draw(st.lists(st.sampled_from(SHARED), min_size=1, max_size=4, unique_by=str))
    frame = grouped_frame(qrels)
    original = frame.copy()
    expected = per_query_values(measures, run, original)
    evaluator = ir_measures.evaluator(measures, frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ThreadPoolExecutor(3) as pool:
            first = list(pool.map(lambda _: per_query_values(evaluator, run), range(3)))
        edit = data.draw(st.sampled_from(["one label", "all labels", "one query"]))
        if edit == "one label":
            frame.loc[frame.index[data.draw(st.integers(0, len(frame) - 1))], "relevance"] = 7.5
        elif edit == "all labels":
            frame.loc[:, "relevance"] = frame["relevance"] * 2 - 1
        else:
            frame.loc[frame["query_id"] == frame["query_id"].iloc[0], "relevance"] = 0.0
        with ThreadPoolExecutor(3) as pool:
            second = list(pool.map(lambda _: per_query_values(evaluator, run), range(3)))
    for got in first + second:
        assert got.keys() == expected.keys()
        for key, value in got.items():
            assert value == pytest.approx(expected[key], abs=1e-12), (edit, key)


def long_id(short: str, at: int) -> str:
    """``short`` hidden inside a long id: only bytes around ``at`` differ between two ids. Long ids
    sort as the short ones (hex keeps the bytes' order, '!' sorts before any hex digit), so tied
    scores are ranked alike."""
    pad = "x" * 120
    return pad[:at] + short.encode().hex() + "!" + pad[at:]


@settings(FUZZ, max_examples=examples(40))
@given(collections_(), st.integers(0, 120), st.sampled_from(["dict", "frame", "arrow"]))
def test_long_ids_that_differ_only_inside(collection, at, container):
    """Ids of 120+ bytes that differ only in a few inner bytes: the same values as the short ids."""
    qrels, run = collection
    expected = per_query_values([muAP, nDCNG @ 5, GAP], run, qrels)
    long_qrels = {q: {long_id(str(d), at): v for d, v in docs.items()} for q, docs in qrels.items()}
    long_run = {q: {long_id(str(d), at): v for d, v in docs.items()} for q, docs in run.items()}
    if container != "dict":
        long_qrels, long_run = grouped_frame(long_qrels), grouped_frame(long_run).rename(columns={"relevance": "score"})
        if container == "arrow":
            long_qrels, long_run = pa.Table.from_pandas(long_qrels), pa.Table.from_pandas(long_run)
    assert per_query_values([muAP, nDCNG @ 5, GAP], long_run, long_qrels) == pytest.approx(expected, abs=1e-12)


#: Measures whose values do not change when labels and floor are multiplied by one positive factor.
SCALE_FREE = [muAP, muAP(levels="collection"), muAP(levels="collection-all"), muAP(ties="expected"), muP @ 2,
              muP(weights="uniform") @ 3, GAP, nDCNG @ 3, nDCNG(norm="collection"), nDCNG(dcg="exp-log2"),
              meanNDCNG, meanNDCG(dcg="log2")]


@settings(FUZZ, max_examples=examples(60))
@given(collections_(), st.sampled_from([2.0**1022, 2.0**-1060, 1.0]), st.sampled_from([0.0, -1.0, 0.5, -1.7]),
       st.data())
def test_extreme_labels_and_floors(collection, factor, floor, data):
    """Labels and floors scaled to the edges of float64 (label - floor overflows, or underflows to
    subnormals): a scale-free measure gives the value of the unscaled collection; meanNDCG's 2^g a
    finite value or one clear line — never NaN or a warning."""
    qrels, run = collection
    measure = data.draw(st.sampled_from(SCALE_FREE))
    scaled_qrels = {q: {d: v * factor for d, v in docs.items()} for q, docs in qrels.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = {q: v for (q, _), v in per_query_values([measure(floor=floor)], run, qrels).items()}
        got = {q: v for (q, _), v in per_query_values([measure(floor=floor * factor)], run, scaled_qrels).items()}
        try:
            exponential = per_query_values([meanNDCG(floor=floor * factor) @ 3], run, scaled_qrels)
        except GradedInputError as ex:
            assert "\n" not in str(ex) and "float64" in str(ex)
            exponential = {}
    assert all(math.isfinite(v) for v in exponential.values())
    if factor < 1:  # labels as subnormal numbers lose bits: their distances may differ in the last bits
        assert got.keys() == expected.keys() and all(math.isfinite(v) for v in got.values())
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


# --- issue 44 item 4, issue 46 item 1: generators and readers as inputs, at every entry point --------

TUPLE_DEFECTS = ["none"] * 4 + ["bool_value", "nan_value", "missing_value", "none_id", "tuple_id",
                                "numeric_string", "bytes_ids", "decimal_value"]
ONE_SHOT_MEASURES = [muAP, nDCNG @ 5, muP @ 3, meanNDCNG]


def one_shot(nested: dict, kind: str, container: str, folder: str, defect: str, at: int):
    """``nested`` as a one-shot input: a generator of named tuples, ir_measures' reader of a TREC file,
    or an Arrow record batch reader (batches of two rows); ``defect`` in row ``at`` (generators only)."""
    table = [list(r) for r in rows(nested)]
    if container == "generator" and table:
        row = table[at % len(table)]
        if defect == "bool_value":
            row[2] = True
        elif defect == "nan_value":
            row[2] = math.nan
        elif defect == "missing_value":
            row[2] = None
        elif defect == "none_id":
            row[0] = None
        elif defect == "tuple_id":
            row[1] = ("d", 1)
        elif defect == "numeric_string":
            row[2] = repr(row[2])
        elif defect == "decimal_value":
            row[2] = decimal.Decimal(repr(row[2]))
        elif defect == "bytes_ids":
            row[1] = str(row[1]).encode()
    make = Qrel if kind == "qrels" else ScoredDoc
    if container == "generator":
        return (make(*r) for r in table)
    if container == "reader":
        value = "relevance" if kind == "qrels" else "score"
        arrow = pa.table({"query_id": [str(r[0]) for r in table], "doc_id": [str(r[1]) for r in table],
                          value: pa.array([float(r[2]) for r in table], pa.float64())})
        return pa.RecordBatchReader.from_batches(arrow.schema, arrow.to_batches(max_chunksize=2))
    path = f"{folder}/{kind}.txt"  # ir_measures' own readers (integer labels: its qrels reader's int())
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(f"{q} 0 {d} {int(v)}\n" if kind == "qrels" else f"{q} Q0 {d} 1 {v!r} t\n" for q, d, v in table)
    return ir_measures.read_trec_qrels(path) if kind == "qrels" else ir_measures.read_trec_run(path)


@settings(FUZZ, max_examples=examples(120))
@given(collections_(), st.sampled_from(["generator", "generator", "reader", "file reader"]),
       st.sampled_from(["generator", "reader", "file reader", "dict"]), st.sampled_from(TUPLE_DEFECTS),
       st.booleans(), st.integers(0, 50), st.sampled_from(["iter_calc", "experiment", "experiment kept"]))
def test_generators_and_readers_through_every_entry_point(collection, run_form, qrels_form, defect, in_qrels, at,
                                                          entry):
    """A run or qrels given as a generator, ir_measures' reader of a file or a record batch reader gives
    the values of the same rows held in a dict, through ``ir_measures.iter_calc`` and ``experiment()``
    (streamed, or read once and kept); a defect is one line naming the row — never another exception."""
    import tempfile

    import ir_measures_graded

    qrels, run = collection
    if "file reader" in (run_form, qrels_form):  # ir_measures' qrels reader takes integer labels only
        qrels = {q: {d: float(int(v)) for d, v in docs.items()} for q, docs in qrels.items()}
    with tempfile.TemporaryDirectory() as folder:
        qrels_obj = (qrels if qrels_form == "dict"
                     else one_shot(qrels, "qrels", qrels_form, folder, defect if in_qrels else "none", at))
        run_obj = one_shot(run, "run", run_form, folder, "none" if in_qrels else defect, at)
        defective = defect != "none" and (qrels_form if in_qrels else run_form) == "generator"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                if entry == "iter_calc":
                    got = {(m.query_id, str(m.measure)): m.value
                           for m in ir_measures.iter_calc(ONE_SHOT_MEASURES, qrels_obj, run_obj)}
                else:
                    exp = ir_measures_graded.experiment(qrels_obj, {"r": run_obj}, ONE_SHOT_MEASURES,
                                                        warn=lambda _: None)
                    got = {(q, m): v for q, m, v in exp.per_query[["query_id", "measure", "value"]].itertuples(
                        index=False)}
                    if entry == "experiment kept":  # what every view takes: the inputs as read, once
                        assert all(i.kept for i in [exp.qrels, *exp.inputs])
        except GradedInputError as ex:
            message = str(ex)
            assert defective, f"clean input refused: {message}"
            assert "\n" not in message and re.search(r"row \d+", message), message
            return
    if entry == "iter_calc":
        expected = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(ONE_SHOT_MEASURES, qrels, run)}
    else:
        held = ir_measures_graded.experiment(qrels, {"r": run}, ONE_SHOT_MEASURES, warn=lambda _: None)
        expected = {(q, m): v for q, m, v in held.per_query[["query_id", "measure", "value"]].itertuples(index=False)}
    if defective:  # accepted: only a Decimal, read as its number (a numeric string or bytes are refused)
        assert defect == "decimal_value", (defect, got)
    assert got.keys() == expected.keys()
    for key, value in got.items():
        assert value == expected[key] or (math.isnan(value) and math.isnan(expected[key])), key


# --- issue 44: run names as a reader sees them in Markdown and LaTeX ---------------------------------------

#: Every ASCII punctuation (what Markdown and LaTeX treat specially), letters, digits, spaces and a few
#: characters beyond ASCII; but the double quote, which LaTeX's default font encoding (OT1) draws as a
#: closing quote unless the document loads T1 (a known limit of the LaTeX output).
NAME_CHARACTERS = list("!#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ \taZ09éµ—")


def _markdown_cells(text: str) -> list[str]:
    """The first cell of every body row of the tables in ``text``, as a CommonMark renderer (with GFM
    tables and strikethrough) shows it; markup (emphasis, link, raw HTML, code) shows as ``<type>``."""
    from markdown_it import MarkdownIt

    cells, body, first = [], False, False
    for token in MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(text):
        if token.type == "tbody_open":
            body = True
        elif token.type == "tr_open" and body:
            first = True
        elif token.type == "inline" and first:
            cells.append("".join(c.content if c.type == "text" else f"<{c.type}>" for c in token.children or []))
            first = False
    return cells


@settings(FUZZ, max_examples=examples(60))
@given(st.lists(st.text(st.sampled_from(NAME_CHARACTERS), min_size=1, max_size=10).filter(lambda n: n.strip()),
                min_size=2, max_size=3, unique_by=lambda n: " ".join(n.split())))
def test_run_names_render_as_typed_in_markdown_and_latex(names):
    """Whatever a run is called, the Markdown table renders its name (no emphasis, link or raw HTML) and
    the LaTeX table's cell reads back as the name (pylatexenc's LaTeX to text)."""
    from pylatexenc.latex2text import LatexNodes2Text

    from ir_measures_graded import experiment

    qrels = {"q1": {"d1": 2, "d2": 0}, "q2": {"d1": 1}}
    runs = {name: {"q1": {"d1": 1.0 + k, "d2": 2.0}, "q2": {"d1": 1.0}} for k, name in enumerate(names)}
    comparison = experiment(qrels, runs, ["muMAP"], baseline=0).compare()
    typed = [" ".join(n.split()) for n in names]
    assert _markdown_cells(comparison.to_markdown()) == typed
    latex = comparison.to_latex(label="tab:fuzz_names")
    body = latex.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    rows = [row[len("\\quad "):] for row in body.strip().splitlines() if row.startswith("\\quad ")]  # a run's row
    first_cells = [row.split(" & ", 1)[0].replace("\\textbf{", "", 1) for row in rows]
    shown = [LatexNodes2Text().latex_to_text(c).replace("ˆ", "^").strip() for c in first_cells]
    assert [" ".join(s.split()) for s in shown] == typed
