"""The randomization test in bounded memory (issue 44, item 14): its sign vectors are drawn a chunk at a
time — all at once, 10,000 permutations of 10,000 queries took 895 MiB for one pair — and give the
p-values of the test that drew them at once, for the same seed (the generator's stream is the same)."""

from __future__ import annotations

import numpy as np
import pytest

from ir_measures_graded import statistics
from ir_measures_graded.statistics import _beyond, _check_alternative, _p_value, _untested
from support.memory import MB, peak_bytes


def randomization_all_at_once(differences, permutations=10_000, seed=0, alternative="two-sided"):
    """The randomization test as it was before the chunks (every sign vector drawn at once): the reference."""
    _check_alternative(alternative)
    d = np.atleast_2d(np.asarray(differences, dtype=np.float64))
    n_pairs, n = d.shape
    if n == 0:
        return np.full(n_pairs, np.nan)
    untested = _untested(d)
    d = np.where(untested[:, None], 0.0, d)
    signs, exact = statistics.sign_matrix(n, permutations, np.random.default_rng(seed))
    observed = d.mean(axis=1)
    extreme = np.zeros(n_pairs, dtype=np.int64)
    for start in range(0, len(signs), 1024):
        means = d @ signs[start:start + 1024].T.astype(np.float64) / n
        extreme += _beyond(means, observed, alternative).sum(axis=1)
    return np.where(untested, np.nan, _p_value(extreme, len(signs), exact))


@pytest.mark.parametrize("pairs, queries, permutations", [
    (1, 2500, 3001), (3, 1001, 10_000), (2, 7, 99), (4, 12, None), (1, 10, 1024), (5, 33, 5), (300, 40, 2049),
])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_chunked_draws_give_the_p_values_of_one_draw(pairs, queries, permutations, alternative):
    rng = np.random.default_rng(queries)
    d = np.round(rng.normal(0.01, 0.1, size=(pairs, queries)), 2)  # rounded: ties and zero differences too
    d[0, ::3] = 0.0
    for seed in (0, 7):
        got = statistics.randomization_test(d, permutations, seed, alternative)
        assert np.array_equal(got, randomization_all_at_once(d, permutations, seed, alternative), equal_nan=True)


def test_sign_chunks_are_the_sign_matrix_in_order():
    for n, permutations in ((9, None), (9, 600), (13, 100), (1, 10)):
        whole, exact = statistics.sign_matrix(n, permutations, np.random.default_rng(3))
        chunks, count, chunked_exact = statistics.sign_chunks(n, permutations, np.random.default_rng(3), rows=37)
        assert np.array_equal(np.concatenate(list(chunks)), whole) and (count, chunked_exact) == (len(whole), exact)


def peak_mib(call) -> float:
    return peak_bytes(call) / MB


def test_memory_is_bounded_whatever_the_permutations_and_queries():
    """2,500 queries, 10,000 permutations: 251 MiB drawn at once; in chunks of at most 16 MiB per array."""
    d = np.random.default_rng(0).normal(0.01, 0.1, size=(1, 2500))
    chunked = peak_mib(lambda: statistics.randomization_test(d, 10_000, 0))
    assert chunked < 64, chunked  # a few 16 MiB intermediate arrays at most
    assert peak_mib(lambda: randomization_all_at_once(d, 10_000, 0)) > 200  # what it was: the measure measures
    more = peak_mib(lambda: statistics.randomization_test(d, 40_000, 0))
    assert more < 64 and more < chunked * 1.5, (chunked, more)  # not linear in the permutations any more
