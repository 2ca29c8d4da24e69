"""What every measure of this package shares: parameters, naming, registration, the evaluation hook.

A measure is one module under ``measures/``: a subclass of :class:`GradedMeasure` with ``NAME``,
``ALIASES``, ``SUPPORTED_PARAMS`` (parameter objects from :mod:`.params`), a docstring with the
formula and the citation, and ``per_query(judgments, ranking)`` — its values for every judged
query, computed from the prepared arrays with the kernels. ``register`` makes it known to
``ir_measures`` (names and aliases) and to the ``graded`` provider, whose supported measures and
dispatch are read from :data:`MEASURES`; nothing else needs to list it.

Measures are plain ``ir_measures`` measures (subclasses of :class:`ir_measures.measures.Measure`),
so they compose with ``@``, ``(...)``, ``parse_measure`` and mixed measure lists.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ir_measures import measures

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures.params import Param

if TYPE_CHECKING:
    import numpy as np

    from ir_measures_graded.prepare import Judgments, Ranking

#: Every registered measure of this package, by NAME, in registration order.
MEASURES: dict[str, GradedMeasure] = {}

#: The measure name that stands for :func:`all_measures`, and the cutoff it gives a measure that
#: requires one (as ``muP@10``).
ALL_NAME, ALL_CUTOFF = "all", 10


def all_measures() -> list[GradedMeasure]:
    """Every measure of this package at its defaults, in registration order (``all`` on the command
    line, as trec_eval's ``-m all_trec``); one that requires a cutoff at ``@ALL_CUTOFF``."""
    return [m @ ALL_CUTOFF if getattr(m.SUPPORTED_PARAMS.get("cutoff"), "required", False) else m
            for m in MEASURES.values()]


class GradedMeasure(measures.Measure):
    """Base class of the measures served by the ``graded`` provider."""

    NAME: str
    ALIASES: tuple[str, ...] = ()
    SUPPORTED_PARAMS: dict[str, Param] = {}

    # --- parameters ------------------------------------------------------------------------------

    def validate_params(self) -> None:
        if self.validated:
            return
        self._values = self._normalised()
        self.validated = True

    def _normalised(self) -> MappingProxyType:
        """Every supported parameter in normal form (defaults filled in); raises GradedInputError."""
        if not isinstance(self.params, dict):
            raise GradedInputError(f"{self.NAME}: params must be a dict")
        unknown = sorted(set(self.params) - set(self.SUPPORTED_PARAMS))
        if unknown:
            raise GradedInputError(
                f"{self.NAME}: unknown parameter(s) {unknown}; supported: {', '.join(self.SUPPORTED_PARAMS)}"
            )
        values = {}
        for name, param in self.SUPPORTED_PARAMS.items():
            if name not in self.params:
                if param.required:
                    raise GradedInputError(
                        f"{self.NAME}: parameter {name} ({param.desc}) is required, e.g. {self.NAME}@10"
                    )
                values[name] = param.default if param.default is None else param.normalise(param.default)
                continue
            value = self.params[name]
            try:
                values[name] = param.normalise(value)
            except (ValueError, TypeError) as e:
                raise param.error(self.NAME, name, value, str(e)) from None
        self.check(values)
        return MappingProxyType(values)

    def check(self, values: dict[str, Any]) -> None:
        """Checks that involve several parameters (normal forms); raise GradedInputError."""

    def value(self, name: str) -> Any:
        """Parameter ``name`` in normal form (validating the measure first)."""
        self.validate_params()
        return self._values[name]

    def __getitem__(self, name: str) -> Any:
        return self.value(name)

    # --- printing: parse_measure(str(m)) == m -----------------------------------------------------

    def __repr__(self) -> str:
        # Measures are hashed and compared by repr (ir_measures), once per value: keep it.
        cached = self.__dict__.get("_repr")
        if cached is None or cached[0] != self.params:
            cached = self.__dict__["_repr"] = (dict(self.params), self._repr())
        return cached[1]

    def _repr(self) -> str:
        try:
            shown = self._normalised()
        except GradedInputError:  # repr must work before validation reports the problem
            return super().__repr__() if set(self.params) <= set(self.SUPPORTED_PARAMS) else self._raw_repr()
        args = [
            f"{name}={param.show(shown[name])}"
            for name, param in self.SUPPORTED_PARAMS.items()
            if name != self.AT_PARAM and name in self.params and shown[name] != self._default(name)
        ]
        result = self.__name__ + (f"({','.join(args)})" if args else "")
        if self.AT_PARAM in self.params:
            result += f"@{self.params[self.AT_PARAM]}"
        return result

    def _default(self, name: str) -> Any:
        param = self.SUPPORTED_PARAMS[name]
        return None if param.default is None else param.normalise(param.default)

    def _raw_repr(self) -> str:
        args = ",".join(f"{k}={v!r}" for k, v in self.params.items() if k != self.AT_PARAM)
        return self.__name__ + (f"({args})" if args else "") + (
            f"@{self.params[self.AT_PARAM]}" if self.AT_PARAM in self.params else "")

    # --- evaluation -------------------------------------------------------------------------------

    def tie_groups(self, ranking: Ranking) -> np.ndarray | None:
        """The ranking's tie groups with ``ties='expected'``; None for trec_eval's order (by doc id)."""
        if "ties" not in self.SUPPORTED_PARAMS or self.value("ties") != "expected":
            return None
        return ranking.tie_ptr()

    def per_query(self, judgments: Judgments, ranking: Ranking) -> np.ndarray:
        """This measure's value for every judged query (index = query code)."""
        raise NotImplementedError

    def results(self, judgments: Judgments, ranking: Ranking) -> Iterator[tuple[int, float]]:
        """``(query code, value)`` for the queries the run ranks something for (others score DEFAULT)."""
        values = self.per_query(judgments, ranking)
        for q in ranking.present.nonzero()[0]:
            yield int(q), float(values[q])


def register(measure: GradedMeasure) -> GradedMeasure:
    """Register ``measure`` under its NAME and ALIASES; registering again is a no-op.

    PyTerrier copies ir_measures' registry into ``pyterrier.measures`` when it is imported; if it
    was imported first, the measure is added there too, so ``pt.measures.muMAP`` works either way.
    """
    pt_measures = sys.modules.get("pyterrier.measures")
    for name in [measure.NAME, *measure.ALIASES]:
        existing = measures.registry.get(name)
        if existing is None:
            measures.registry[name] = measure
        elif type(existing).__name__ != type(measure).__name__ or existing.NAME != measure.NAME:
            raise RuntimeError(f"measure name {name!r} is already registered to {existing!r}")
        if pt_measures is not None:
            setattr(pt_measures, name, measures.registry[name])
    MEASURES.setdefault(measure.NAME, measure)
    return measure
