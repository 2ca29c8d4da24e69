"""What the tables print is what was computed (issue 44, items 9, 10): a p-value printed beside its
mark never reads on the other side of a significance level, and an interval's level is printed with
the digits it has."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_measures_graded.experiments import tables
from support.examples import examples

#: Levels beside the default ones: a stricter one and ones with more digits than the 3 printed.
OTHER_LEVELS = (0.1, 0.001, 0.005, 0.0125, 0.00025)


def near(level: float) -> st.SearchStrategy[float]:
    """p-values within a few units of the 4th decimal of ``level``, its neighbouring doubles included."""
    return st.one_of(st.floats(level * 0.98, level * 1.02),
                     st.integers(-3, 3).map(lambda k: float(np.nextafter(level, level * (1 + math.copysign(1, k)))
                                                        if k else level)))


def reads_as(text: str) -> float:
    """The number a reader takes a printed p-value for ("< 0.05": just below 0.05)."""
    return float(np.nextafter(float(text[2:]), 0.0)) if text.startswith("< ") else float(text)


@pytest.mark.parametrize("p, shown", [(0.009971, "0.00997"), (0.0495, "0.0495"), (0.0499999, "0.0499999"),
                                      (0.043, "0.043"), (0.05, "0.050"), (0.01, "0.010"), (0.0104, "0.010"),
                                      (0.5, "0.500"), (3.8e-10, "3.8e-10")])
def test_a_p_value_just_below_a_level_gets_the_digits_that_keep_it_below(p, shown):
    assert tables.format_p(p, "wilcoxon") == shown
    assert (reads_as(shown) < 0.01) == (p < 0.01) and (reads_as(shown) < 0.05) == (p < 0.05)


@settings(max_examples=examples(400), deadline=None)
@given(data=st.data(), levels=st.sampled_from([tables.LEVELS, (*tables.LEVELS, *OTHER_LEVELS)]))
def test_the_printed_p_value_is_on_the_side_of_every_level_the_p_value_is(data, levels):
    level = data.draw(st.sampled_from(levels))
    p = data.draw(near(level))
    for test in ("t", "wilcoxon", "randomization"):
        shown = tables.format_p(p, test, levels=levels)
        if shown.startswith("< 1e-4"):  # a resampling test's floor: below every level >= 1e-4 it reads
            assert p < 1e-4
            continue
        for other in levels:
            assert (reads_as(shown) < other) == (p < other), (p, shown, other)
        assert len(shown) <= 22
    if levels == tables.LEVELS:  # the default: marks and printed value agree
        shown = tables.format_p(p, "t")
        assert tables.mark(p) == tables.mark(reads_as(shown)) or shown.startswith("< ")


def test_a_p_value_away_from_every_level_keeps_three_decimals():
    for p in np.linspace(0.0011, 0.999, 997):
        shown = tables.format_p(float(p))
        if all(abs(p - level) > 0.0005 for level in tables.LEVELS):
            assert shown == f"{p:.3f}"


# --- the interval's level -----------------------------------------------------------------------------

@pytest.mark.parametrize("alpha, shown", [(0.001, "99.9%"), (0.025, "97.5%"), (0.05, "95%"), (0.0001, "99.99%")])
def test_the_interval_level_is_printed_with_the_digits_it_has(alpha, shown, capsys, tmp_path):
    import re

    from support.cli import run_main
    from support.paths import QRELS, RANDOM, STRONG, WEAK

    assert tables.percent(1 - alpha) == shown
    common = [QRELS, STRONG, WEAK, RANDOM, "-m", "muMAP", "--alpha", str(alpha), "-o", "text"]
    out, _ = run_main(capsys, *common[:4], *common[5:6], "--baseline", WEAK, *common[6:])
    printed = set(re.findall(r"(\d+(?:\.\d+)?)% t confidence interval", out))
    assert printed == {shown[:-1]}, out
    out, _ = run_main(capsys, "judge", *common, "--sections", "details", "--samples", "2", "--permutations", "50")
    assert f"mean difference, {shown} intervals" in out, out
    page = tmp_path / "r.html"
    run_main(capsys, "report", *common, "--html", str(page), "--no-scale", "--permutations", "50")
    html = page.read_text(encoding="utf-8")
    assert set(re.findall(r"(\d+(?:\.\d+)?)% (?:t-)?interval", html)) == {shown[:-1]}, \
        re.findall(r".{20}\d+% .{20}", html)
