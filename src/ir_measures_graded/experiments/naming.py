"""How runs are named and how a baseline is found among them: one rule for every entry point.

A run given as a file is named by its file name (no directory); names that would be equal get as
many parent folders as tell them apart, and a file given more than once gets ``#k`` by position. A
run given in memory is named by its key (``{name: run}``) or ``run k``. ``names=`` overrides all of
it. File names that are not UTF-8 are shown with backslash escapes, so every table can print them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.files import display  # one rule for a file name in every message

__all__ = ["display", "run_names", "find_baseline", "STDIN"]

STDIN = "-"


def _parts(spec: Any) -> list[str]:
    """The path's components, last first (``a/b/c.run`` -> ``['c.run', 'b', 'a']``)."""
    path = os.path.normpath(os.fspath(spec))
    return [p for p in reversed(path.split(os.sep)) if p] or [path]


def _is_path(spec: Any) -> bool:
    return isinstance(spec, (str, os.PathLike))


def run_names(specs: Sequence[Any], names: Sequence[str] | None = None) -> list[str]:
    """The names of ``specs`` (paths, ``-`` or runs in memory), by the rule above; ``names`` as given
    when there are as many, each a distinct non-empty string."""
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != len(specs):
            raise GradedInputError(f"{len(names)} name(s) for {len(specs)} run(s): give one name per run")
        empty = [i + 1 for i, n in enumerate(names) if not n.strip()]
        if empty:
            raise GradedInputError(f"run name {empty[0]} is empty")
        again = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if again is not None:
            raise GradedInputError(f"run name {again!r} is given twice: names must tell the runs apart")
        return names
    stdin = [isinstance(s, str) and s == STDIN for s in specs]
    parts = [_parts(s) if _is_path(s) and not stdin[i] else None for i, s in enumerate(specs)]
    depth = [1] * len(specs)
    found = ["" for _ in specs]
    while True:
        for i, p in enumerate(parts):
            found[i] = (STDIN if stdin[i] else f"run {i + 1}") if p is None else os.sep.join(
                reversed(p[:depth[i]]))
        clash = False
        for i, name in enumerate(found):
            others = [j for j, n in enumerate(found) if n == name and j != i]
            if others and parts[i] is not None and depth[i] < len(parts[i]) and any(
                    parts[j] != parts[i] for j in others):
                depth[i] += 1
                clash = True
        if not clash:
            break
    labelled = [display(n) for n in found]
    return [n if labelled.count(n) == 1 else f"{n} #{labelled[:i + 1].count(n)}" for i, n in enumerate(labelled)]


def find_baseline(key: Any, names: Sequence[str], specs: Sequence[Any] = (), tags: Sequence[str] = (),
                  option: str = "baseline") -> str:
    """The name of the one run ``key`` names: its position (an int, from 0, as PyTerrier's
    ``baseline=``; a string of digits when no run has that name, path or tag), its name, the path as
    given or any other spelling of that file (``./runs/a.run``, its absolute path, a link to it), its file
    name, file name without extension or run tag.
    A GradedInputError naming ``option`` and the runs otherwise, before anything is evaluated."""
    names = list(names)
    if isinstance(key, int) and not isinstance(key, bool):
        if not -len(names) <= key < len(names):
            raise GradedInputError(f"{option} {key} is no run's position: there are {len(names)} runs "
                                   f"({', '.join(names)}), counted from 0")
        return names[key]
    key = str(key)
    if key in names:
        return key
    candidates: dict[str, list[str]] = {}
    for i, name in enumerate(names):
        spec = specs[i] if i < len(specs) else None
        aliases = [tags[i]] if i < len(tags) and tags[i] else []
        if _is_path(spec):
            path = os.fspath(spec)
            base = os.path.basename(path)
            aliases += [path, display(path), base, display(base), base.split(".")[0], display(base.split(".")[0])]
        for alias in aliases:
            candidates.setdefault(alias, [])
            if name not in candidates[alias]:
                candidates[alias].append(name)
    matches = candidates.get(key, []) or _same_file(key, names, specs)
    if not matches and key.lstrip("-").isdigit() and -len(names) <= int(key) < len(names):
        return names[int(key)]  # a position, as the command line gives it: after every name, path and tag
    if len(matches) != 1:
        why = "matches several runs" if matches else "is none of the runs"
        raise GradedInputError(f"{option} {display(key)!r} {why} ({', '.join(names)})")
    return matches[0]


def _same_file(key: str, names: Sequence[str], specs: Sequence[Any]) -> list[str]:
    """The runs whose file ``key`` names under another spelling (``./a.run``, an absolute path, a link)."""
    if key == STDIN or not os.path.isfile(key):
        return []
    found = []
    for name, spec in zip(names, specs, strict=False):
        if _is_path(spec) and os.fspath(spec) != STDIN and os.path.isfile(spec) and os.path.samefile(spec, key):
            found.append(name)
    return found
