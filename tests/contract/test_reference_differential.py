"""Differential test: the vectorised provider against the slow reference (tests/support/reference.py), per query.

Hypothesis draws small collections that hit every convention at once — score ties (exact, after the
float32 cast, and -0.0 vs 0.0), doc ids whose string order differs from their numeric order,
unjudged retrieved and judged unretrieved documents, real and negative labels, queries only in the
qrels, only in the run, with no judgments or no retrieved document — and a measure with random
parameters (cutoffs beyond the ranking, judged_only, levels, weights, negative floors, gains, dcg,
norm). Only public API is used: measure objects and ``ir_measures.iter_calc`` / ``calc_aggregate``.
"""

from __future__ import annotations

import ir_measures
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ir_measures_graded import muAP, muP, nDCNG
from ir_measures_graded.measures import MEASURES, params
from support import reference
from support.random_collections import collections
from support.warned import no_warning

#: Values to draw for each kind of parameter (keyed by the parameter object or class the measures
#: share): a measure is covered by registering it; a new kind of parameter needs a line here.
FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])



def _floor(draw, values: dict) -> float:
    return draw(st.sampled_from([0, 0, -1, -2.5, 1, 0.25]))


def _cutoff(draw, values: dict) -> int | None:
    return draw(st.one_of(st.none(), st.integers(1, 12)))  # up to beyond every ranking


def _levels(draw, values: dict) -> str | tuple:
    floor = values.get("floor", 0)
    kind = draw(st.sampled_from(["query", "query", "collection", "explicit"]))
    if kind != "explicit":
        return kind
    above = st.floats(floor + 0.01, floor + 6, allow_nan=False).map(lambda x: round(x, 2))
    return tuple(sorted(set(draw(st.lists(above.filter(lambda t: t > floor), min_size=1, max_size=4)))))


def _gains(draw, values: dict) -> dict | None:
    source = st.one_of(st.integers(-2, 4), st.sampled_from([0.5, 2.5]))
    return draw(st.one_of(st.none(), st.dictionaries(source, st.integers(-2, 10), min_size=1, max_size=4)))


def _probs(draw, values: dict) -> str | dict:
    floor = values.get("floor", 0)
    above = st.sampled_from([0.5, 1, 2, 2.5, 3, 4]).map(lambda t: t + floor)
    return draw(st.one_of(st.just("uniform"), st.dictionaries(above, st.sampled_from([0.25, 1, 3]), min_size=1,
                                                               max_size=4)))


def _choice(param: params.Choice):
    return lambda draw, values: draw(st.sampled_from(param.choices))


DRAW = {
    params.FLOOR: _floor,  # first: levels and probs lie above it
    params.CUTOFF: _cutoff,
    params.CUTOFF_REQUIRED: lambda draw, values: draw(st.integers(1, 12)),
    params.JUDGED_ONLY: lambda draw, values: draw(st.booleans()),
    params.TIES: lambda draw, values: "first",  # ties='expected' has its own reference (test_ties)
    params.LEVELS: _levels,
    params.WEIGHTS: _choice(params.WEIGHTS),
    params.GAINS: _gains,
    params.DCG: _choice(params.DCG),
    params.NORM: lambda draw, values: draw(st.sampled_from(["query", "query", "collection", 0.5, 1, 3, 7.5])),
    params.PROBABILITIES: _probs,
}


def _number(param: params.Number):
    valid = [x for x in (0.0, 0.3, 0.5, 0.8, 0.95, 1.0, 3.0) if param.validate(x)]
    return lambda draw, values: draw(st.sampled_from(valid))


#: Parameters a measure declares for itself, by kind: numbers in the parameter's interval; a scale's
#: top and a numeric normaliser above every label the collections hold (10, with a floor down to -2.5),
#: as ERR and RBP require.
BY_KIND = {
    params.Number: _number,
    params.ScaleTop: lambda param: lambda draw, values: draw(st.sampled_from([12.5, 20.0])),
    params.Norm: lambda param: lambda draw, values: draw(st.sampled_from([param.default, "query", "collection", 20.0])),
}


def drawer(param: params.Param):
    """How to draw values of ``param``: by the shared parameter object, else by its kind."""
    return DRAW[param] if param in DRAW else BY_KIND[type(param)](param)


@st.composite
def measures(draw, qrels: dict) -> tuple[str, dict]:
    """A registered measure's name and parameters valid for it (only non-default ones are set)."""
    name = draw(st.sampled_from(list(MEASURES)))
    supported = MEASURES[name].SUPPORTED_PARAMS
    values: dict = {}
    for key in sorted(supported, key=lambda k: supported[k] is not params.FLOOR):
        value = drawer(supported[key])(draw, values)
        if value is not None and value != supported[key].default:
            values[key] = value
    return name, values


def test_every_registered_measure_has_a_reference_and_drawn_parameters():
    assert set(reference.REFERENCE) == set(MEASURES)
    for name, measure in MEASURES.items():
        missing = [k for k, p in measure.SUPPORTED_PARAMS.items() if p not in DRAW and type(p) not in BY_KIND]
        assert not missing, f"{name}: add how to draw {missing} to DRAW or BY_KIND"


def provider_per_query(measure, qrels: dict, run: dict) -> dict[str, float]:
    return {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}


@FAST
@given(st.data())
def test_every_measure_and_parameter_equals_the_reference(data):
    qrels, run = data.draw(collections())
    name, params = data.draw(measures(qrels))
    measure = MEASURES[name](**params)
    expected = reference.per_query(name, params, qrels, run)
    with no_warning():  # no numpy warning on the way to a value
        got = provider_per_query(measure, qrels, run)
    assert got.keys() == expected.keys(), measure  # every qrels query; run-only queries skipped
    for qid, value in got.items():
        assert value == pytest.approx(expected[qid], rel=1e-9, abs=1e-12), (str(measure), qid)
    aggregate = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    if params.get("levels") == "collection":  # the paper's collection reading: MAP^t over queries reaching t
        kwargs = {k: v for k, v in params.items() if k in ("cutoff", "judged_only", "weights", "floor")}
        kwargs["floor"] = float(kwargs.get("floor", 0))
        mean = reference.mu_map_collection_paper(qrels, run, name=name, **kwargs)
    else:
        mean = sum(expected.values()) / len(expected)
    assert aggregate == pytest.approx(mean, rel=1e-9, abs=1e-12, nan_ok=True)


@settings(max_examples=40, deadline=None)
@given(collections())
def test_parse_measure_of_the_printed_name_gives_the_same_values(collection):
    # The measure written as text (as on the command line) is the same measure.
    qrels, run = collection
    for measure in (muAP(floor=-1, cutoff=3), nDCNG(norm="collection", gains={1: 3}) @ 5, muP(levels=(0.5, 2)) @ 4):
        parsed = ir_measures.parse_measure(str(measure))
        assert provider_per_query(parsed, qrels, run) == provider_per_query(measure, qrels, run)


@settings(max_examples=60, deadline=None)
@given(collections(), st.sampled_from([0, -1]), st.sampled_from([None, 3]))
def test_collection_levels_aggregate_follows_the_paper(collection, floor, cutoff):
    qrels, run = collection
    measure = muAP(levels="collection", floor=floor) if cutoff is None else muAP(levels="collection", floor=floor) @ cutoff
    expected = reference.mu_map_collection_paper(qrels, run, cutoff=cutoff, floor=floor)
    got = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


# --- the reference itself, on hand-checked numbers ---------------------------------------------------

def test_reference_reproduces_table1_of_the_paper():
    # Table 1: labels 1 0 3 3 2 0 1 4 ranked A..H; AP^1..AP^4 = 0.780 0.483 0.403 0.125, µAP = 0.446.
    qrels = {"q": dict(zip("ABCDEFGH", [1, 0, 3, 3, 2, 0, 1, 4], strict=True))}
    run = {"q": {d: 8.0 - i for i, d in enumerate("ABCDEFGH")}}
    ranked = reference.ranking(qrels["q"], run["q"])
    assert ranked == list("ABCDEFGH")
    aps = [reference.average_precision(ranked, qrels["q"], t) for t in (1, 2, 3, 4)]
    assert [round(a, 3) for a in aps] == [0.780, 0.483, 0.403, 0.125]
    assert reference.mu_ap(qrels, run, "q") == pytest.approx(sum(aps) / 4)


def test_reference_ranking_conventions():
    run_q = {"d9": 1.0, "d10": 1.0 + 1e-9, "x": -0.0, "y": 0.0, "top": 2.0}
    assert reference.ranking({}, run_q) == ["top", "d9", "d10", "y", "x"]
    assert reference.ranking({"x": 1}, run_q, judged_only=True) == ["x"]


def test_reference_ndcng_by_hand():
    qrels = {"q": {"a": 2, "b": 1, "c": 0}}
    run = {"q": {"c": 3.0, "a": 2.0, "z": 1.0}}
    # gains normalised by m = 2: a -> 2^1 - 1 = 1, b -> 2^0.5 - 1; ranking c, a, z
    dcg = 1 / reference.math.log2(3)
    ideal = 1 + (2 ** 0.5 - 1) / reference.math.log2(3)
    assert reference.ndcng(qrels, run, "q") == pytest.approx(dcg / ideal)
    assert reference.ndcng(qrels, run, "q", cutoff=1) == 0.0
    assert reference.mean_ndcg(qrels, run, "q", cutoff=2) == pytest.approx((0 + (3 / reference.math.log2(3))
                                                                            / (3 + 1 / reference.math.log2(3))) / 2)
