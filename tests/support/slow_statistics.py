"""Slow, obviously correct statistics: counting pairs, walking down a ranking, enumerating every sign
vector. The statistics tests check ir_measures_graded.statistics against them, and the judging tests
(tests/unit/meta) the statistics they report."""

from __future__ import annotations

import itertools
import math

import numpy as np


def slow_tau_b(x, y):
    """Kendall's τ-b by counting pairs."""
    concordant = discordant = ties_x = ties_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            ties_x += 1
        elif dy == 0:
            ties_y += 1
        elif dx == dy:
            concordant += 1
        else:
            discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return (concordant - discordant) / denominator


def slow_tau_ap(truth, estimate):
    """τ_AP of Yilmaz et al. (2008) for rankings without ties: walk down ``estimate``."""
    items = sorted(range(len(truth)), key=lambda k: -estimate[k])
    total = sum(sum(1 for j in range(i) if truth[items[j]] > truth[items[i]]) / i for i in range(1, len(items)))
    return 2.0 / (len(items) - 1) * total - 1.0


def slow_randomization_p(d):
    """Exact two-sided paired randomization test by enumerating every sign assignment."""
    observed = abs(sum(d) / len(d))
    hits = 0
    for signs in itertools.product((-1, 1), repeat=len(d)):
        if abs(sum(s * v for s, v in zip(signs, d, strict=True)) / len(d)) >= observed - 1e-12:
            hits += 1
    return hits / 2 ** len(d)
