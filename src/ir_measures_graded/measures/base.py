"""What all of this package's measures share: parameter specs, validation and naming.

Measures are plain ``ir_measures`` measures (subclasses of :class:`ir_measures.measures.Measure`),
so they compose with ``@``, ``(...)``, ``parse_measure`` and mixed measure lists. What this base
adds: parameter errors are :class:`~ir_measures_graded.errors.GradedInputError` with a message
that says what is accepted, and tuple-valued parameters print in a form ``parse_measure`` reads.
"""

from __future__ import annotations

import math
import numbers
import sys
from typing import Any

import ir_measures
from ir_measures import measures
from ir_measures.measures.base import _NOT_PROVIDED

from ir_measures_graded.errors import GradedInputError

# Parameter specs shared by several measures (one definition each).
CUTOFF = measures.ParamInfo(dtype=int, required=False, desc="ranking cutoff threshold")
CUTOFF_REQUIRED = measures.ParamInfo(dtype=int, required=True, desc="ranking cutoff threshold")
JUDGED_ONLY = measures.ParamInfo(
    dtype=bool, default=False, desc="ignore returned documents that do not have relevance judgments"
)
FLOOR = measures.ParamInfo(
    dtype=(int, float, str),
    default=0,
    desc="label of the irrelevant level: labels <= floor are irrelevant; distances and gains are measured from it",
)
LEVELS = measures.ParamInfo(
    dtype=(str, tuple, list),
    default="query",
    desc="relevance thresholds: 'query' (labels present in the query's judgments, Eq. 4), "
    "'collection' (labels present anywhere in the qrels), or explicit thresholds, e.g. (1, 2) or '1,2'",
)
WEIGHTS = measures.ParamInfo(
    dtype=str,
    choices=["distance", "uniform"],
    default="distance",
    desc="weight of each threshold: 'distance' to the level below (Eq. 4) or 'uniform'",
)
GAINS = measures.ParamInfo(dtype=dict, desc="custom label -> gain mapping, applied before anything else")
DCG = measures.ParamInfo(
    dtype=str,
    choices=["exp-log2", "log2"],
    default="exp-log2",
    desc="gain and discount: 'exp-log2' (2^g - 1, 1/log2(i+1); Eq. 5) or 'log2' (linear gain g, 1/log2(i+1))",
)
NORM = measures.ParamInfo(
    dtype=(str, int, float),
    default="query",
    desc="gain normaliser m: 'query' (highest gain in the query's judgments), 'collection' "
    "(highest gain in the qrels) or a positive number (the scale's top)",
)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _accepted(info: measures.ParamInfo) -> str:
    """The values a parameter accepts, for error messages (its description says what it means)."""
    if info.dtype is bool:
        return f"True or False ({info.desc})"
    if info.choices is not _NOT_PROVIDED:
        return f"one of {', '.join(repr(c) for c in info.choices)} ({info.desc})"
    return info.desc


class GradedMeasure(measures.Measure):
    """Base class of the measures served by the ``graded`` provider."""

    NAME: str
    SUPPORTED_PARAMS: dict[str, measures.ParamInfo] = {}

    def validate_params(self) -> None:
        if self.validated:
            return
        if not isinstance(self.params, dict):
            raise GradedInputError(f"{self.NAME}: params must be a dict")
        unknown = sorted(set(self.params) - set(self.SUPPORTED_PARAMS))
        if unknown:
            raise GradedInputError(
                f"{self.NAME}: unknown parameter(s) {unknown}; supported: {', '.join(self.SUPPORTED_PARAMS)}"
            )
        for name, info in self.SUPPORTED_PARAMS.items():
            value = self.params.get(name, _NOT_PROVIDED)
            if value is _NOT_PROVIDED:
                if info.required:
                    raise GradedInputError(
                        f"{self.NAME}: parameter {name} ({info.desc}) is required, e.g. {self.NAME}@10"
                    )
                continue
            wrong_bool = isinstance(value, bool) and info.dtype is not bool
            if wrong_bool or not info.validate(value):
                raise GradedInputError(f"{self.NAME}: invalid {name}={value!r}; expected {_accepted(info)}")
        self._check_values()
        self.validated = True

    def _check_values(self) -> None:
        """Checks of parameter values beyond their types."""
        cutoff = self.params.get("cutoff")
        if cutoff is not None and cutoff < 1:
            raise GradedInputError(f"{self.NAME}: cutoff must be a positive integer, got {cutoff!r}")
        if "floor" in self.SUPPORTED_PARAMS:
            self.floor()
        if "levels" in self.SUPPORTED_PARAMS:
            self.levels()
        if "norm" in self.SUPPORTED_PARAMS:
            norm = self["norm"]
            if isinstance(norm, str) and norm not in ("query", "collection") or (
                not isinstance(norm, str) and not (_is_number(norm) and norm > 0)
            ):
                raise GradedInputError(
                    f"{self.NAME}: invalid norm={norm!r}; expected {self.SUPPORTED_PARAMS['norm'].desc}"
                )
        if "gains" in self.params:
            gains = self.params["gains"]
            if not all(_is_number(k) and _is_number(v) for k, v in gains.items()):
                raise GradedInputError(f"{self.NAME}: gains must map numbers to numbers, got {gains!r}")

    def floor(self) -> float:
        """The ``floor`` parameter as a float (a numeric string such as '-1' is accepted)."""
        value = self["floor"]
        try:
            floor = float(value) if isinstance(value, str) else value
        except ValueError:
            floor = None
        if not _is_number(floor):
            raise GradedInputError(f"{self.NAME}: floor must be a finite number, got {value!r}")
        return float(floor)

    def levels(self) -> str | tuple[float, ...]:
        """The ``levels`` parameter resolved: 'query', 'collection' or sorted distinct thresholds."""
        value = self["levels"]
        if value in ("query", "collection"):
            return value
        if isinstance(value, str):
            parts = [p.strip() for p in value.split(",") if p.strip()]
            try:
                thresholds = [float(p) for p in parts]
            except ValueError:
                thresholds = []
        else:
            thresholds = list(value) if all(_is_number(v) for v in value) else []
        desc = self.SUPPORTED_PARAMS["levels"].desc
        if not thresholds or not all(_is_number(t) for t in thresholds):
            raise GradedInputError(f"{self.NAME}: invalid levels={value!r}; expected {desc}")
        floor = self.floor()
        if min(thresholds) <= floor:
            raise GradedInputError(
                f"{self.NAME}: levels={value!r} must all lie above floor={floor!r} (the irrelevant level)"
            )
        return tuple(sorted({float(t) for t in thresholds}))

    def __repr__(self) -> str:
        # As ir_measures', but an unknown parameter must not raise KeyError here: measures are
        # hashed (by repr) before they are validated, and validation gives the clear message.
        shown = {
            k: v for k, v in self.params.items()
            if k != self.AT_PARAM and (k not in self.SUPPORTED_PARAMS or v != self.SUPPORTED_PARAMS[k].default)
        }
        result = self.__name__
        if shown:
            result += "(" + ",".join(f"{k}={self._param_repr(v)}" for k, v in shown.items()) + ")"
        if self.AT_PARAM in self.params:
            result += f"@{self.params[self.AT_PARAM]}"
        return result

    def _param_repr(self, v: Any) -> str:
        # parse_measure reads numbers, strings, booleans and dicts, but neither tuples nor a minus
        # sign: print levels=(1, 2) as '1,2' and floor=-1 as '-1'.
        if isinstance(v, (tuple, list)):
            return repr(",".join(repr(x) for x in v))
        if _is_number(v) and v < 0:
            return repr(repr(v))
        return super()._param_repr(v)


def register(measure: ir_measures.Measure, aliases: list[str]) -> None:
    """Register ``measure`` under its name and aliases; registering again is a no-op.

    PyTerrier copies ir_measures' registry into ``pyterrier.measures`` when it is imported; if it
    was imported first, the measure is added there too, so ``pt.measures.muMAP`` works either way.
    """
    pt_measures = sys.modules.get("pyterrier.measures")
    for name in [measure.NAME, *aliases]:
        existing = measures.registry.get(name)
        if existing is None:
            measures.registry[name] = measure
        elif type(existing).__name__ != type(measure).__name__ or existing.NAME != measure.NAME:
            raise RuntimeError(f"measure name {name!r} is already registered to {existing!r}")
        if pt_measures is not None:
            setattr(pt_measures, name, measures.registry[name])
