"""The parameter objects, built here (not at import), and registration: what each constructor makes.

The measures build their parameter objects once, at import; these tests build them again so that
what the constructors set (description, what is accepted, default, requirement, role, bounds) is
checked where a change to a constructor shows — the text users read in ``ir_measures``' parameter
documentation and in every "invalid value" message.
"""

from __future__ import annotations

import ast
import math

import pytest

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures import base, params
from ir_measures_graded.measures.params import (
    LABEL,
    NEITHER,
    THRESHOLD,
    Choice,
    Cutoff,
    Flag,
    Floor,
    Levels,
    Norm,
    Number,
    NumberMap,
    Param,
    Probabilities,
    ScaleTop,
)


def test_param_holds_what_it_is_given_and_reports_it():
    p = Param("a description", "what is accepted")
    assert (p.desc, p.accepts, p.default, p.required, p.dtype, p.role) == (
        "a description", "what is accepted", None, False, None, NEITHER)
    q = Param("d", "a", default=3, required=True)
    assert (q.default, q.required) == (3, True)
    error = p.error("muAP", "floor", "x", "a reason")
    assert isinstance(error, GradedInputError)
    assert str(error) == "muAP: invalid floor='x' (a reason); expected what is accepted"
    assert str(p.error("muAP", "floor", 1)) == "muAP: invalid floor=1; expected what is accepted"


def test_cutoff():
    c = Cutoff()
    assert (c.desc, c.accepts, c.default, c.required, c.role) == (
        "ranking depth k", "a positive integer (the ranking depth k)", None, False, NEITHER)
    assert Cutoff(required=True).required is True
    assert str(c.error("muP", "cutoff", 0)) == "muP: invalid cutoff=0; expected a positive integer (the ranking depth k)"


def test_flag():
    f = Flag("a flag")
    assert (f.desc, f.accepts, f.default, f.required) == ("a flag", "True or False", False, False)
    assert Flag("a flag", default=True).default is True


def test_choice_accepts_its_names_and_defaults_to_the_first():
    c = Choice("a choice", {"one": "the first", "two": "the second"})
    assert (c.desc, c.accepts, c.default, c.required) == (
        "a choice", "'one' (the first) or 'two' (the second)", "one", False)
    assert c.choices == ["one", "two"]
    assert c.normalise("two") == "two"
    with pytest.raises(ValueError):
        c.normalise("three")


def test_floor():
    f = Floor()
    assert f.desc == ("label of the irrelevant grade: labels <= floor are irrelevant; distances and gains are "
                      "measured from it")
    assert f.accepts == "a finite number (write a negative floor as a string in a measure name: floor='-1')"
    assert (f.default, f.required, f.role) == (0.0, False, LABEL)
    assert f.normalise(f.default) == 0.0


def test_levels_names_every_choice_with_its_meaning():
    lv = Levels()
    assert (lv.desc, lv.default, lv.required, lv.role) == (
        "relevance thresholds t (relevant means label >= t)", "query", False, THRESHOLD)
    named = "; ".join(f"{name!r}: {meaning}" for name, meaning in Levels.NAMED.items())
    assert lv.accepts == f"{named}; or explicit thresholds such as (1, 2) or '1,2'"
    assert lv.accepts.startswith("'query': every label above the floor in the query's judgments (Eq. 4); ")


def test_norm():
    n = Norm()
    assert (n.desc, n.default, n.required, n.role) == ("gain normaliser m", "query", False, LABEL)
    assert n.accepts == ("'query' (the highest gain in the query's judgments), 'collection' (the highest gain in "
                         "the qrels) or a positive number (the scale's top)")
    other = Norm(default=None, desc="another normaliser")
    assert (other.desc, other.default) == ("another normaliser", None)


@pytest.mark.parametrize("kwargs, accepts", [
    ({}, "a number in (-inf, inf)"),
    ({"low": 0.0}, "a number in (0, inf)"),
    ({"low": 0.0, "high": 1.0, "closed": (True, False)}, "a number in [0, 1)"),
    ({"low": -1.5, "high": 2.0, "closed": (False, True)}, "a number in (-1.5, 2]"),
])
def test_number_says_its_interval(kwargs, accepts):
    n = Number("a number", 0.5, **kwargs)
    assert (n.desc, n.accepts, n.default, n.required, n.role) == ("a number", accepts, 0.5, False, NEITHER)
    assert (n.low, n.high, n.closed) == (kwargs.get("low", -math.inf), kwargs.get("high", math.inf),
                                         kwargs.get("closed", (False, False)))


def test_number_bounds_are_excluded_unless_closed():
    open_ = Number("d", 0.5, low=0.0, high=1.0)
    closed = Number("d", 0.5, low=0.0, high=1.0, closed=(True, True))
    for bound in (0.0, 1.0):
        with pytest.raises(ValueError):
            open_.normalise(bound)
        assert closed.normalise(bound) == bound


def test_scale_top_moves_with_the_labels_unless_its_normaliser_is_set():
    top = ScaleTop("the top grade", default=4.0, unless="norm")
    assert (top.desc, top.default, top.unless, top.low, top.high, top.closed, top.role) == (
        "the top grade", 4.0, "norm", 0.0, math.inf, (False, False), LABEL)
    assert top.accepts == "a number in (0, inf)"
    with pytest.raises(ValueError):
        top.normalise(0)
    assert ScaleTop("d", 4.0, unless="norm", low=1.0).low == 1.0
    double = lambda x: 2 * x  # noqa: E731
    assert top.relabel(4.0, double, {"floor": 0.0, "norm": None}) == 8.0
    assert top.relabel(4.0, double, {"floor": 0.0, "norm": "query"}) == 4.0
    assert top.relabel(4.0, lambda x: x + 1, {"floor": 1.0, "norm": None}) == 4.0


def test_number_map():
    m = NumberMap("a mapping", "dicts")
    assert (m.desc, m.accepts, m.default, m.required, m.drop_identity, m.role) == (
        "a mapping", "dicts", None, False, False, LABEL)
    assert m.normalise({1: 1, 2: 5}) == ((1.0, 1.0), (2.0, 5.0))
    dropping = NumberMap("a mapping", "dicts", drop_identity=True)
    assert dropping.drop_identity is True
    assert dropping.normalise({1: 1, 2: 5}) == ((2.0, 5.0),)


def test_probabilities():
    p = Probabilities()
    assert p.desc == "probability g_t that a user's threshold is t (relevant means label >= t)"
    assert p.accepts.startswith("'uniform' (equal probability for every label above the floor found in the qrels) ")
    assert p.accepts.endswith("not all zero (normalised to sum 1), e.g. {1:0.25,2:0.75}")
    assert (p.default, p.required, p.drop_identity, p.role) == ("uniform", False, False, THRESHOLD)
    assert p.normalise({1: 1, 2: 1}) == ((1.0, 0.5), (2.0, 0.5))  # an identity pair is kept


def test_shared_parameters_are_built_by_these_constructors():
    # what the measures declare (module constants) is what the constructors make
    assert params.CUTOFF.required is False and params.CUTOFF_REQUIRED.required is True
    assert params.TIES.choices == ["first", "expected"] and params.TIES.default == "first"
    assert params.WEIGHTS.choices == ["distance", "uniform"]
    assert params.DCG.choices == ["exp-log2", "log2"]
    assert params.GAINS.drop_identity is True
    assert params.RANKING == {"cutoff": params.CUTOFF, "judged_only": params.JUDGED_ONLY, "ties": params.TIES}


def test_all_measures_gives_a_required_cutoff_only():
    names = [str(m) for m in base.all_measures(5)]
    assert len(names) == len(base.MEASURES)
    for measure, name in zip(base.MEASURES.values(), names, strict=True):
        required = measure.SUPPORTED_PARAMS.get("cutoff") is not None and measure.SUPPORTED_PARAMS["cutoff"].required
        assert name == (f"{measure.NAME}@5" if required else measure.NAME)
    assert "muP@5" in names and "muR@5" in names and "muAP" in names
    assert [str(m) for m in base.all_measures()] == [n.replace("@5", f"@{base.ALL_CUTOFF}") for n in names]
    assert base.ALL_CUTOFF == 10 and base.ALL_NAME == "all"


def test_register_names_a_measure_once_and_tells_the_listeners(monkeypatch):
    heard = []
    monkeypatch.setattr(base, "MEASURES", dict(base.MEASURES))
    monkeypatch.setattr(base, "on_register", [heard.append])

    class Probe(base.GradedMeasure):
        NAME = "probeMeasure"

    first, second = Probe(), Probe()
    assert base.register(first) is first
    assert base.MEASURES["probeMeasure"] is first and list(base.MEASURES)[-1] == "probeMeasure"
    assert heard == [first]
    assert base.register(second) is second  # registering again changes nothing
    assert base.MEASURES["probeMeasure"] is first and heard == [first]


@pytest.mark.parametrize("text", ["inf", "-inf", "nan", "1e999", "one"])
def test_numbers_written_as_strings_must_be_finite(text):
    with pytest.raises(ValueError):
        Floor().normalise(text)
    with pytest.raises(ValueError):
        Levels().normalise(f"1,{text}")
    assert Floor().normalise(" -1.5 ") == -1.5 and Levels().normalise("2, 1") == (1.0, 2.0)


@pytest.mark.parametrize("value, normal", [
    ("1:-1,2:5", ((1.0, -1.0), (2.0, 5.0))), (" 2:5 , 1:3 ", ((1.0, 3.0), (2.0, 5.0))),
    ({2: 5, 1: 3}, ((1.0, 3.0), (2.0, 5.0))), (((1.0, 3.0),), ((1.0, 3.0),)), ("1:2,", ((1.0, 2.0),)),
])
def test_number_map_reads_dicts_strings_and_its_normal_form(value, normal):
    assert NumberMap("d", "a").normalise(value) == normal


@pytest.mark.parametrize("value", ["1:2:3", "1", "a:2", "1:b", "1:2,1:3", {1: "x"}, {"x": 1}, ((1, 2, 3),),
                                   [(1, 2)], 5])
def test_number_map_refuses(value):
    with pytest.raises(ValueError):
        NumberMap("d", "a").normalise(value)


@pytest.mark.parametrize("normal, shown", [
    (((1.0, 2.0), (2.0, 5.0)), "{1:2,2:5}"), (((0.0, 1.0),), "{0:1}"), (((1.0, 0.0),), "{1:0}"),
    (((1.0, -1.0), (2.0, 5.0)), "'1:-1,2:5'"), (((-1.0, 2.0),), "'-1:2'"), (((0.5, 1.5),), "{0.5:1.5}"),
])
def test_number_map_prints_what_it_reads_back(normal, shown):
    m = NumberMap("d", "a")
    assert m.show(normal) == shown
    assert m.normalise(shown.strip("'") if shown.startswith("'") else ast.literal_eval(shown)) == normal


@pytest.mark.parametrize("value, shown", [(0.0, "0"), (0.5, "0.5"), (3.0, "3"), (1000.0, "1000"), (-1.0, "'-1'"),
                                          (2.0**60, "1.152921504606847e+18"), (1e-3, "0.001")])
def test_show_number_prints_what_parse_measure_reads_back(value, shown):
    assert params.show_number(value) == shown


def test_measure_names_print_their_numbers_plainly():
    from ir_measures_graded import muAP, nDCNG

    assert str(nDCNG(norm=1000)) == "nDCNG(norm=1000)" and str(muAP(floor=0.5)) == "muAP(floor=0.5)"
    assert Levels().show((-1.0, 2.0)) == "'-1,2'" and Levels().show("query") == "'query'"
