"""Measure parameters as objects: each one validates, normalises, prints and documents itself.

Vocabulary (used everywhere in this package): a *label* is a judgment value; a *threshold* t says
"relevant means label >= t"; the *floor* is the label of the irrelevant grade (labels <= floor are
irrelevant). The parameter ``levels`` chooses the thresholds; its name is kept from earlier
releases.

A parameter turns what the user wrote into one normal form (``normalise``) and prints that form
so that ``ir_measures.parse_measure(str(measure)) == measure`` (``show``). ``parse_measure`` reads
numbers, strings, booleans and dicts but neither tuples nor a minus sign, so those print as
strings, which ``normalise`` reads back.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any

from ir_measures.measures.base import ParamInfo

from ir_measures_graded.errors import GradedInputError

#: What a parameter's values are, for a relabelling of the qrels (see :meth:`Param.relabel`).
LABEL, THRESHOLD, NEITHER = "label", "threshold", "neither"

# Cutoffs beyond any ranking's length are all the same; clamping keeps numpy comparisons in int64.
_LARGEST_CUTOFF = 2**62


def is_number(value: Any) -> bool:
    """A finite real number (``True``/``False`` are not numbers here)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def show_number(value: float) -> str:
    """A number as parse_measure reads it back: ``2`` for 2.0, ``'-1'`` for a negative number."""
    text = repr(int(value)) if float(value).is_integer() and abs(value) < 2**53 else repr(float(value))
    return repr(text) if value < 0 else text


def _read_number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _as_number(value: Any) -> float | None:
    """A finite number, or a string holding one (how a negative number is written); None otherwise."""
    return _read_number(value) if isinstance(value, str) else (float(value) if is_number(value) else None)


class Param(ParamInfo):
    """One parameter of a measure. ``accepts`` says in words what values are valid.

    ``role`` says what its values are: labels (``LABEL``), thresholds (``THRESHOLD``: "relevant
    means label >= t") or neither; :meth:`relabel` moves them when the labels are relabelled
    (meta-evaluation's ``scale:2``, ``merge:3,4``, ...), so the measure keeps meaning the same.
    """

    role = NEITHER

    def __init__(self, desc: str, accepts: str, default: Any = None, required: bool = False):
        super().__init__(dtype=None, required=required, default=default, desc=desc)
        self.accepts = accepts

    def relabel(self, value: Any, move: Callable[[float], float], values: Mapping[str, Any]) -> Any:
        """The normal form ``value`` after a monotone relabelling ``move`` of labels and thresholds.

        ``values``: the measure's parameters in normal form (before the relabelling). Raises
        ``ValueError`` where the relabelled value cannot be said (two keys merged into one).
        """
        return value

    def normalise(self, value: Any) -> Any:
        """The normal form of ``value``; raises ``ValueError`` (with a reason, or none) when invalid."""
        raise NotImplementedError

    def of_collection(self, value: Any) -> bool:
        """Whether the normal form ``value`` takes something from the whole qrels (their labels), so
        that a query's value depends on other queries' judgments."""
        return False

    def show(self, value: Any) -> str:
        """The normal form printed as ``parse_measure`` reads it."""
        return repr(value)

    def validate(self, value: Any) -> bool:  # ir_measures' ParamInfo interface
        try:
            self.normalise(value)
        except (ValueError, TypeError):
            return False
        return True

    def error(self, measure: str, name: str, value: Any, reason: str = "") -> GradedInputError:
        why = f" ({reason})" if reason else ""
        return GradedInputError(f"{measure}: invalid {name}={value!r}{why}; expected {self.accepts}")


class Cutoff(Param):
    """The ranking depth k (``measure@k``)."""

    def __init__(self, required: bool = False):
        super().__init__("ranking depth k", "a positive integer (the ranking depth k)", required=required)

    def normalise(self, value: Any) -> int:
        if not isinstance(value, numbers.Integral) or isinstance(value, bool):
            raise ValueError
        if value < 1:
            raise ValueError("cutoff must be a positive integer")
        return min(int(value), _LARGEST_CUTOFF)


class Flag(Param):
    def __init__(self, desc: str, default: bool = False):
        super().__init__(desc, "True or False", default=default)

    def normalise(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise ValueError
        return value


class Choice(Param):
    def __init__(self, desc: str, choices: Mapping[str, str]):
        accepts = " or ".join(f"{name!r} ({meaning})" for name, meaning in choices.items())
        super().__init__(desc, accepts, default=next(iter(choices)))
        self.choices = list(choices)

    def normalise(self, value: Any) -> str:
        if value not in self.choices or not isinstance(value, str):
            raise ValueError
        return value


class Floor(Param):
    """The label of the irrelevant grade; a string such as ``'-1'`` is read as a number."""

    def __init__(self):
        super().__init__(
            "label of the irrelevant grade: labels <= floor are irrelevant; distances and gains are measured from it",
            "a finite number (write a negative floor as a string in a measure name: floor='-1')",
            default=0.0,
        )

    def normalise(self, value: Any) -> float:
        number = _as_number(value)
        if number is None:
            raise ValueError("floor must be a finite number")
        return number

    role = LABEL

    def relabel(self, value: float, move: Callable[[float], float], values: Mapping[str, Any]) -> float:
        return move(value)

    def show(self, value: float) -> str:
        return show_number(value)


class Levels(Param):
    """Which thresholds t: the query's own labels, the collection's labels, or given numbers."""

    NAMED = {
        "query": "every label above the floor in the query's judgments (Eq. 4)",
        "collection": "every label above the floor in the qrels; a query is scored at the thresholds it "
        "reaches, and the aggregate averages MAP^t over the queries with a label >= t (the paper's Figs. 6-8)",
        "collection-all": "every label above the floor in the qrels, for every query: AP^t = 0 where the query "
        "has no label >= t, averaged over all queries",
    }

    def __init__(self):
        accepts = "; ".join(f"{name!r}: {meaning}" for name, meaning in self.NAMED.items())
        super().__init__(
            "relevance thresholds t (relevant means label >= t)",
            f"{accepts}; or explicit thresholds such as (1, 2) or '1,2'",
            default="query",
        )

    def normalise(self, value: Any) -> str | tuple[float, ...]:
        if isinstance(value, str) and value in self.NAMED:
            return value
        if isinstance(value, str):
            thresholds = [_read_number(part) for part in value.split(",") if part.strip()]
        elif isinstance(value, (tuple, list)):
            thresholds = [float(v) if is_number(v) else None for v in value]
        else:
            raise ValueError
        if not thresholds or None in thresholds:
            raise ValueError
        return tuple(sorted(set(thresholds)))

    def of_collection(self, value: str | tuple[float, ...]) -> bool:
        return value in ("collection", "collection-all")

    role = THRESHOLD

    def relabel(self, value: str | tuple[float, ...], move: Callable[[float], float],
                values: Mapping[str, Any]) -> str | tuple[float, ...]:
        return value if isinstance(value, str) else tuple(sorted({move(t) for t in value}))

    def show(self, value: str | tuple[float, ...]) -> str:
        if isinstance(value, str):
            return repr(value)
        return repr(",".join(show_number(t).strip("'") for t in value))


def _relabel_grade(value: float, move: Callable[[float], float], values: Mapping[str, Any]) -> float:
    """A grade (a label's distance above the floor, such as the scale's top) after relabelling ``move``."""
    floor = values.get("floor", 0.0)
    return move(floor + value) - move(floor)


class Norm(Param):
    def __init__(self, default: str | None = "query", desc: str = "gain normaliser m"):
        super().__init__(
            desc,
            "'query' (the highest gain in the query's judgments), 'collection' (the highest gain in the qrels) "
            "or a positive number (the scale's top)",
            default=default,
        )

    def normalise(self, value: Any) -> str | float:
        if value in ("query", "collection") and isinstance(value, str):
            return value
        if is_number(value) and value > 0:
            return float(value)
        raise ValueError

    def of_collection(self, value: str | float) -> bool:
        return value == "collection"

    role = LABEL  # a number is the top of the scale: a gain, i.e. a label's distance above the floor

    def relabel(self, value: str | float, move: Callable[[float], float], values: Mapping[str, Any]) -> str | float:
        return value if isinstance(value, str) else _relabel_grade(value, move, values)

    def show(self, value: str | float) -> str:
        return repr(value) if isinstance(value, str) else show_number(value)


class Number(Param):
    """A real number in an interval; ``low`` / ``high`` are excluded unless ``closed`` says otherwise."""

    def __init__(self, desc: str, default: float, low: float = -math.inf, high: float = math.inf,
                 closed: tuple[bool, bool] = (False, False)):
        left, right = "[" if closed[0] else "(", "]" if closed[1] else ")"
        super().__init__(desc, f"a number in {left}{low:g}, {high:g}{right}", default=default)
        self.low, self.high, self.closed = low, high, closed

    def normalise(self, value: Any) -> float:
        number = _as_number(value)
        if number is None:
            raise ValueError
        above = number >= self.low if self.closed[0] else number > self.low
        below = number <= self.high if self.closed[1] else number < self.high
        if not (above and below):
            raise ValueError("out of range")
        return number

    def show(self, value: float) -> str:
        return show_number(value)


class ScaleTop(Number):
    """The top grade of the rating scale (a label's distance above the floor): moves with the labels,
    unless the parameter ``unless`` is set — a normaliser that maps labels onto grades 0 .. top,
    which makes the top a constant of the measure."""

    role = LABEL

    def __init__(self, desc: str, default: float, unless: str, low: float = 0.0):
        super().__init__(desc, default, low=low)
        self.unless = unless

    def relabel(self, value: float, move: Callable[[float], float], values: Mapping[str, Any]) -> float:
        return value if values.get(self.unless) is not None else _relabel_grade(value, move, values)


class NumberMap(Param):
    """A dict of numbers to numbers, normalised to sorted ``(key, value)`` pairs.

    Prints as a dict (``{1:2,2:5}``), or, when a number is negative (which parse_measure cannot
    read in a dict), as a string ``'1:-1,2:5'`` that is read back the same.
    """

    role = LABEL  # label -> label (the gain that replaces it): keys and values move

    def __init__(self, desc: str, accepts: str, drop_identity: bool = False):
        super().__init__(desc, accepts)
        self.drop_identity = drop_identity

    def relabel(self, value: tuple[tuple[float, float], ...] | None, move: Callable[[float], float],
                values: Mapping[str, Any]) -> tuple[tuple[float, float], ...] | None:
        if value is None:
            return None
        moved: dict[float, float] = {}
        for key, target in value:
            new = move(key)
            if moved.setdefault(new, move(target)) != move(target):
                raise ValueError(f"labels merged into {new:g} had different gains")
        return self.normalise({k: v for k, v in moved.items()})

    def normalise(self, value: Any) -> tuple[tuple[float, float], ...] | None:
        if value is None:
            return None
        if isinstance(value, str):
            pairs = [part.split(":") for part in value.split(",") if part.strip()]
            if not all(len(p) == 2 for p in pairs):
                raise ValueError
            items = [(_read_number(k), _read_number(v)) for k, v in pairs]
        elif isinstance(value, (Mapping, tuple)):  # a tuple: the normal form itself
            pairs = value.items() if isinstance(value, Mapping) else value
            if not all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
                raise ValueError
            items = [(float(k) if is_number(k) else None, float(v) if is_number(v) else None) for k, v in pairs]
        else:
            raise ValueError
        if any(k is None or v is None for k, v in items) or len({k for k, _ in items}) < len(items):
            raise ValueError("it must map distinct numbers to numbers")
        if self.drop_identity:
            items = [(k, v) for k, v in items if k != v]
        return tuple(sorted(items)) or None

    def show(self, value: tuple[tuple[float, float], ...]) -> str:
        text = ",".join(f"{show_number(k).strip(chr(39))}:{show_number(v).strip(chr(39))}" for k, v in value)
        if any(k < 0 or v < 0 for k, v in value):
            return repr(text)
        return "{" + text + "}"


class Probabilities(NumberMap):
    """GAP's grade probabilities: 'uniform' over the qrels' labels above the floor, or threshold -> weight."""

    def __init__(self):
        Param.__init__(
            self,
            "probability g_t that a user's threshold is t (relevant means label >= t)",
            "'uniform' (equal probability for every label above the floor found in the qrels) or a dict "
            "threshold -> non-negative weight, not all zero (normalised to sum 1), e.g. {1:0.25,2:0.75}",
            default="uniform",
        )
        self.drop_identity = False

    def normalise(self, value: Any) -> str | tuple[tuple[float, float], ...]:
        if value == "uniform" and isinstance(value, str):
            return value
        pairs = super().normalise(value)
        if not pairs or any(p < 0 for _, p in pairs) or not any(p > 0 for _, p in pairs):
            raise ValueError("weights must be non-negative and not all zero")
        total = math.fsum(p for _, p in pairs)
        return tuple((t, p / total) for t, p in pairs if p > 0)

    def of_collection(self, value: str | tuple[tuple[float, float], ...]) -> bool:
        return value == "uniform"  # over the labels found in the qrels

    role = THRESHOLD  # keys are thresholds; thresholds merged into one add their probabilities

    def relabel(self, value: str | tuple[tuple[float, float], ...], move: Callable[[float], float],
                values: Mapping[str, Any]) -> str | tuple[tuple[float, float], ...]:
        if isinstance(value, str):
            return value
        moved: dict[float, float] = {}
        for threshold, probability in value:
            moved[move(threshold)] = moved.get(move(threshold), 0.0) + probability
        return self.normalise(moved)

    def show(self, value: str | tuple[tuple[float, float], ...]) -> str:
        return repr(value) if isinstance(value, str) else super().show(value)


# The parameters measures share (one definition each).
CUTOFF = Cutoff()
CUTOFF_REQUIRED = Cutoff(required=True)
TIES = Choice(
    "order of documents with tied scores",
    {"first": "by doc id, descending, as trec_eval", "expected": "the mean over every order of the tied "
     "documents (McSherry & Najork, ECIR 2008)"},
)
JUDGED_ONLY = Flag("ignore returned documents that do not have relevance judgments (trec_eval -J)")
FLOOR = Floor()
LEVELS = Levels()
WEIGHTS = Choice(
    "weight of each threshold",
    {"distance": "the distance from t to the threshold below, or to the floor (Eq. 4)", "uniform": "equal weights"},
)
GAINS = NumberMap(
    "label -> gain mapping, applied before anything else",
    "a dict of numbers to numbers, e.g. {1:2,2:5} (or the string '1:-1,2:5' for negative numbers)",
    drop_identity=True,
)
DCG = Choice(
    "gain and discount",
    {"exp-log2": "gain 2^g - 1, discount 1/log2(i+1); Eq. 5", "log2": "linear gain g, discount 1/log2(i+1)"},
)
NORM = Norm()
PROBABILITIES = Probabilities()

#: What every measure of a ranking takes: its depth, judged documents only, the order of ties.
RANKING = {"cutoff": CUTOFF, "judged_only": JUDGED_ONLY, "ties": TIES}
#: What every measure with a gain function takes: the ranking's parameters, the floor and a label -> gain map.
GAINED = {**RANKING, "floor": FLOOR, "gains": GAINS}
