"""Compact letter display (Piepho 2004): letters such that two runs share one exactly when the test
cannot separate them.

Insert-and-absorb: start with one letter holding every run; for each significantly different pair,
split every letter holding both into two copies, one without each run (insert), then drop every
letter whose runs another letter holds too (absorb). Letters are then named a, b, … in the order of
the best run each holds, so the best run carries ``a``.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

import numpy as np

__all__ = ["compact_letters", "letter_name", "group_names", "ordered_names", "LETTERS"]

#: The groups named by one letter each; more are numbered.
LETTERS = string.ascii_lowercase + string.ascii_uppercase


def letter_name(k: int, groups: int = 0) -> str:
    """The name of the k-th of ``groups`` groups: a … z, A … Z; with more than 52 groups, its number (k + 1)."""
    return str(k + 1) if groups > len(LETTERS) or k >= len(LETTERS) else LETTERS[k]


def group_names(group: str) -> list[str]:
    """The groups a run's ``group`` text holds: one per letter, or numbers separated by commas."""
    if not group:
        return []
    return group.split(",") if group[0].isdigit() else list(group)


def ordered_names(groups: Sequence[str]) -> list[str]:
    """Every group named in ``groups`` (runs' group texts) once, in the order they were named."""
    found = {name for group in groups for name in group_names(group)}
    return sorted(found, key=lambda c: (0, int(c), "") if c.isdigit() else (1, LETTERS.index(c), c)
                  if c in LETTERS else (2, 0, c))


def compact_letters(significant: np.ndarray, order: Sequence[int] | np.ndarray | None = None) -> list[str]:
    """Per item, its letters: ``significant`` is a symmetric boolean matrix (True: the pair is
    significantly different); ``order`` lists the items best first (the default: as given) and names the
    letters. Items that share a letter are not significantly different, items significantly different
    share none, and every pair not significantly different shares at least one."""
    sig = np.asarray(significant, dtype=bool)
    n = len(sig)
    if sig.shape != (n, n):
        raise ValueError("the significance matrix must be square")
    order = list(range(n)) if order is None else list(order)
    columns: list[frozenset[int]] = [frozenset(range(n))] if n else []
    i, j = np.triu_indices(n, k=1)
    for a, b in zip(i[sig[i, j]].tolist(), j[sig[i, j]].tolist(), strict=True):
        split = [c for c in columns if a in c and b in c]
        if not split:
            continue
        kept = [c for c in columns if not (a in c and b in c)]
        inserted = [c - {a} for c in split] + [c - {b} for c in split]
        columns = _absorb(kept + inserted)
    position = {item: p for p, item in enumerate(order)}
    columns.sort(key=lambda c: sorted(position[x] for x in c))
    held: list[list[str]] = [[] for _ in range(n)]
    for k, column in enumerate(columns):
        for item in column:
            held[item].append(letter_name(k, len(columns)))
    separator = "," if len(columns) > len(LETTERS) else ""
    return [separator.join(names) for names in held]


def _absorb(columns: list[frozenset[int]]) -> list[frozenset[int]]:
    """The columns without duplicates and without those another column contains."""
    unique = sorted(set(columns), key=len, reverse=True)
    kept: list[frozenset[int]] = []
    for column in unique:
        if not any(column <= other for other in kept):
            kept.append(column)
    return kept
