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

import re
from collections.abc import Callable, Iterable, Iterator
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ir_measures import measures
from ir_measures.measures.base import MeanAgg

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.measures.params import NEITHER, Param

if TYPE_CHECKING:
    import numpy as np

    from ir_measures_graded.prepare import Judgments, Ranking

#: Every registered measure of this package, by NAME, in registration order.
MEASURES: dict[str, GradedMeasure] = {}

#: The measure name that stands for :func:`all_measures`, and the cutoff it gives a measure that
#: requires one (as ``muP@10``).
ALL_NAME, ALL_CUTOFF = "all", 10


def all_measures(cutoff: int = ALL_CUTOFF) -> list[GradedMeasure]:
    """Every measure of this package at its defaults, in registration order (``all`` on the command
    line, as trec_eval's ``-m all_trec``); one that requires a cutoff at ``@cutoff``."""
    return [m @ cutoff if getattr(m.SUPPORTED_PARAMS.get("cutoff"), "required", False) else m
            for m in MEASURES.values()]


def parse_measures(given: Iterable[measures.Measure | str], at_least_one: bool = True) -> list[measures.Measure]:
    """Measures given as objects or as their names, as every entry point takes them (the command
    line, meta-evaluation, the report, Spark): names parsed by ``ir_measures.parse_measure``,
    :data:`ALL_NAME` expanded to :func:`all_measures`, every measure's parameters checked, each
    measure once, in the order given.

    A name that does not parse is a :class:`GradedInputError` naming it (close names suggested for
    an unknown one); so is an empty list, unless ``at_least_one`` is false.
    """
    import ir_measures

    parsed: list[measures.Measure] = []
    for item in given:
        if item == ALL_NAME:  # every measure of this package at its defaults
            parsed.extend(all_measures())
            continue
        try:
            measure = ir_measures.parse_measure(item) if isinstance(item, str) else item
        except NameError:
            raise GradedInputError(f"unknown measure: {item}{_close_names(item)}") from None
        except (ValueError, SyntaxError) as ex:
            raise GradedInputError(f"cannot parse measure {item!r}: {ex}{_minus_hint(item)}") from None
        measure.validate_params()
        parsed.append(measure)
    if at_least_one and not parsed:
        raise GradedInputError("no measure given")
    return list(dict.fromkeys(parsed))


def _close_names(name: str) -> str:
    import difflib  # only for an unknown measure name

    name = re.split(r"[(@]", name, maxsplit=1)[0]
    close = difflib.get_close_matches(name, list(measures.registry), n=3, cutoff=0.5)
    close += [n for n in measures.registry if n.lower() == name.lower() and n not in close]
    return f" (did you mean {', '.join(close)}?)" if close else ""


def _minus_hint(text: str) -> str:
    """ir_measures' parser reads no minus sign; our measures take the number as a string instead."""
    match = re.search(r"(\w+)\s*=\s*(-[\d.eE+]+)", text)
    if not match:
        return ""
    name, value = match.groups()
    if name in ("floor", "levels"):
        return f" (the measure parser reads no minus sign: write {name}='{value}', quoted)"
    return " (the measure parser reads no minus sign)"


#: The paper every µ-measure and NDCNG come from: the last paragraph of their docstrings (their citation).
SCHEEL_2011 = ("C. Scheel, A. Lommatzsch, S. Albayrak. Performance Measures for Multi-Graded Relevance. "
               "Technische Universität Berlin, DAI-Labor, 2011.")


class GradedMeasure(measures.Measure):
    """Base class of the measures served by the ``graded`` provider.

    A subclass declares ``__name__`` (its ``NAME`` follows, as in ir_measures' measures) and may leave its
    citation to ``CITATION``, written once here as its docstring's last paragraph."""

    NAME: str
    ALIASES: tuple[str, ...] = ()
    SUPPORTED_PARAMS: dict[str, Param] = {}
    CITATION: str | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__name__" in cls.__dict__:
            cls.NAME = cls.__dict__["__name__"]
        doc = cls.__dict__.get("__doc__")
        if cls.CITATION and doc and not " ".join(doc.split()).endswith(cls.CITATION):
            cls.__doc__ = f"{doc.rstrip()}\n\n    {cls.CITATION}\n    "

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

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the parameters' normal form (a read-only mapping, which does not pickle):
        derived again on first use, so measures cross to worker processes."""
        state = dict(self.__dict__)
        state.pop("_values", None)
        state["validated"] = False
        return state

    def value(self, name: str) -> Any:
        """Parameter ``name`` in normal form (validating the measure first)."""
        self.validate_params()
        return self._values[name]

    def __getitem__(self, name: str) -> Any:
        return self.value(name)

    def uses_collection(self) -> bool:
        """Whether a query's value depends on other queries' judgments: a parameter takes something
        from the whole qrels (``levels='collection'``, ``norm='collection'``, GAP's uniform grades).
        Engines that evaluate queries apart (Spark) gather the qrels' labels only then; the tests
        check, for every registered measure, that the values of the others never change with them."""
        self.validate_params()
        return any(param.of_collection(self._values[name]) for name, param in self.SUPPORTED_PARAMS.items())

    def relabelled(self, move: Callable[[float], float]) -> GradedMeasure:
        """This measure after a monotone relabelling ``move`` of the qrels: every parameter whose
        values are labels or thresholds (its ``role``) moved alike, so it selects the same documents.

        Raises ``ValueError`` where that cannot be said (labels with different gains merged).
        """
        self.validate_params()
        changes = {}
        for name, param in self.SUPPORTED_PARAMS.items():
            if param.role == NEITHER or self._values[name] is None:
                continue
            moved = param.relabel(self._values[name], move, self._values)
            if moved != self._values[name]:
                changes[name] = moved
        return self(**changes) if changes else self

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

    def aggregator(self) -> Mean:
        """How per-query values combine into the measure's value: the mean over the queries."""
        return Mean()

    def results(self, judgments: Judgments, ranking: Ranking) -> Iterator[tuple[int, float]]:
        """``(query code, value)`` for the queries the run ranks something for (others score DEFAULT)."""
        values = self.per_query(judgments, ranking)
        for q in ranking.present.nonzero()[0]:
            yield int(q), float(values[q])


#: One partial aggregate: (threshold index or -1, sum of values, number of values, threshold weight).
Partial = tuple[int, float, int, float]


class Mean(MeanAgg):
    """ir_measures' mean of the per-query values, also computed from partial sums (Spark partitions).

    ``partials()`` is this aggregator's share; ``merge()`` adds shares (summed or not) into it, so
    ``result()`` of the merged aggregator is the mean over every value added anywhere.
    """

    def partials(self) -> list[Partial]:
        return [(-1, float(self.sum), int(self.count), 0.0)] if self.count else []

    def merge(self, partials: list[Partial]) -> None:
        for _, total, count, _ in partials:
            self.sum += total
            self.count += count


#: Called with every measure registered (the ir_measures integration names it there).
on_register: list[Callable[[GradedMeasure], None]] = []


def register(measure: GradedMeasure) -> GradedMeasure:
    """Register ``measure`` under its NAME (its ALIASES are names too); registering again is a no-op.

    The provider serves, and the ir_measures integration (:mod:`ir_measures_graded.integration`)
    names in ``ir_measures``, every measure registered here; nothing else needs to list it.
    """
    if measure.NAME not in MEASURES:
        MEASURES[measure.NAME] = measure
        for listener in list(on_register):
            listener(measure)
    return measure
