"""Label transforms for the scale-dependence check: what the assessors' scale could have been instead.

Each transform maps relevance labels monotonically (order kept, so a perfect ranking stays
perfect) and maps the measures' label thresholds — ``floor`` of this package's measures, ``rel``
of ir_measures' binary ones, explicit ``levels`` — the same way, so "irrelevant" keeps meaning
the same documents. A measure that does not depend on the rating scale gives the same system
ranking (and, for affine transforms, the same values) before and after.

Written as text, as on the command line: ``scale:2`` (every label × 2: 0-4 → 0-8), ``shift:1``
(+1: 1-5 stars with 1 = irrelevant), ``merge:3,4`` (labels 3 and 4 become 3), ``insert:3`` (an
empty level below 3: labels ≥ 3 move up by one), ``map:1=1,2=3,3=7`` (any monotone mapping),
``real`` or ``real:SEED`` (each distinct positive label becomes a random real number in the same
order, as the paper's virtual users).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

SYNTAX = "scale:C, shift:C, merge:A,B[,...], insert:L, map:A=B[,...], real[:SEED]"


@dataclass(frozen=True)
class Transform:
    """A named, monotone relabelling: ``apply(labels)`` for the qrels, ``threshold(t)`` for parameters."""

    name: str
    mapping: Callable[[np.ndarray], np.ndarray] = field(repr=False, compare=False)

    def apply(self, labels: np.ndarray) -> np.ndarray:
        return self.mapping(np.asarray(labels, dtype=np.float64))

    def threshold(self, value: float) -> float:
        return float(self.mapping(np.array([float(value)]))[0])


def _numbers(text: str, name: str) -> list[float]:
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        values = []
    if not values or not all(np.isfinite(values)):
        raise ValueError(f"transform {name!r} needs numbers, e.g. {name}:2; syntax: {SYNTAX}")
    return values


def parse_transform(spec: str | Transform, labels: np.ndarray | None = None) -> Transform:
    """The :class:`Transform` written as ``spec`` (see the module docstring).

    ``labels`` (the qrels' labels) are needed for ``real``, whose mapping is drawn over them; given,
    a transform that would change the order of two of them (a ``map:`` sending a label above a
    higher one it leaves alone) is refused with a ``ValueError`` naming them.
    """
    transform = _parse(spec, labels)
    if labels is not None:
        distinct = np.unique(np.asarray(labels, dtype=np.float64))
        moved = transform.apply(distinct)
        broken = np.flatnonzero(moved[1:] < moved[:-1])
        if len(broken):
            a, b = distinct[broken[0]], distinct[broken[0] + 1]
            raise ValueError(f"transform {transform.name!r} would change the order of the grades: label {a:g} "
                             f"becomes {moved[broken[0]]:g} but the higher label {b:g} becomes "
                             f"{moved[broken[0] + 1]:g}; a relabelling must keep the order of the labels")
    return transform


def _parse(spec: str | Transform, labels: np.ndarray | None) -> Transform:
    if isinstance(spec, Transform):
        return spec
    kind, _, arg = spec.strip().partition(":")
    if kind == "scale":
        (c,) = _numbers(arg, kind)[:1]
        if c <= 0:
            raise ValueError(f"scale:{arg}: the factor must be positive (a negative one reverses the order)")
        return Transform(spec, lambda x: x * c)
    if kind == "shift":
        (c,) = _numbers(arg, kind)[:1]
        return Transform(spec, lambda x: x + c)
    if kind == "merge":
        merged = np.array(sorted(_numbers(arg, kind)))
        if len(merged) < 2:
            raise ValueError(f"merge:{arg}: name at least two labels to merge, e.g. merge:3,4")
        # order is kept only for adjacent labels; those in between collapse with them
        low, high = merged[0], merged[-1]
        return Transform(spec, lambda x: np.where((x >= low) & (x <= high), low, x))
    if kind == "insert":
        (at,) = _numbers(arg, kind)[:1]
        return Transform(spec, lambda x: np.where(x >= at, x + 1.0, x))
    if kind == "map":
        pairs = {}
        for part in arg.split(","):
            source, eq, target = part.partition("=")
            try:
                pairs[float(source)] = float(target)
            except ValueError:
                raise ValueError(f"map:{arg}: expected pairs like map:1=1,2=3,3=7") from None
            if not eq:
                raise ValueError(f"map:{arg}: expected pairs like map:1=1,2=3,3=7")
        keys = sorted(pairs)
        if any(pairs[a] >= pairs[b] for a, b in zip(keys, keys[1:], strict=False)):
            raise ValueError(f"map:{arg}: the mapping must keep the order of the labels")

        def mapping(x: np.ndarray) -> np.ndarray:
            out = x.copy()
            for source, target in pairs.items():
                out[x == source] = target
            return out

        return Transform(spec, mapping)
    if kind == "real":
        seed = int(_numbers(arg, kind)[0]) if arg else 0
        if labels is None:
            raise ValueError("transform 'real' needs the qrels' labels")
        distinct = np.unique(np.asarray(labels, dtype=np.float64))
        positive = distinct[distinct > 0]
        rng = np.random.default_rng(seed)
        # strictly increasing random reals, one per positive label; labels <= 0 stay as they are
        steps = rng.uniform(0.05, 1.0, size=len(positive))
        values = np.cumsum(steps) * (positive.max() if len(positive) else 1.0) / max(steps.sum(), 1e-12)

        def mapping(x: np.ndarray) -> np.ndarray:
            out = x.copy()
            if not len(positive):  # no relevant label in the qrels: nothing to draw a real number for
                return out
            pos = np.searchsorted(positive, x)
            hit = (pos < len(positive)) & (positive[np.minimum(pos, len(positive) - 1)] == x) & (x > 0)
            out[hit] = values[pos[hit]]
            return out

        return Transform(spec, mapping)
    raise ValueError(f"unknown transform {spec!r}; expected one of: {SYNTAX}")
