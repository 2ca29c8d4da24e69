"""The plugin hook docs/upstream.md proposes to ir_measures, as a sketch applied to the installed ir_measures
(tests/e2e/test_upstream_hook.py runs it in a fresh interpreter): ``parse_measure``, on a measure name its
registry does not hold, reads the entry-point group ``ir_measures.plugins`` once, loads each plugin on its own
(one that fails is reported and skipped), and looks the name up again. Upstream, these lines would sit in
``ir_measures.util`` (the lookup inside ``parse_measure``), not in a wrapper."""

from __future__ import annotations

import warnings
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

GROUP = "ir_measures.plugins"


def load_plugins() -> list[str]:
    """Load every plugin of the group, each isolated; the names of those loaded."""
    loaded = []
    for plugin in entry_points(group=GROUP):
        try:
            plugin.load()  # a plugin registers its measures and providers when imported
        except Exception as error:  # a broken plugin must not break ir_measures
            warnings.warn(f"ir_measures plugin {plugin.name} ({plugin.value}) failed to load: {error}", stacklevel=2)
        else:
            loaded.append(plugin.name)
    return loaded


def install_hook(ir_measures: ModuleType) -> None:
    """``ir_measures.parse_measure`` reading the plugins on the first unknown measure name (once)."""
    parse_measure = ir_measures.parse_measure
    state = {"read": False}

    def parse_measure_with_plugins(measure: Any) -> Any:
        try:
            return parse_measure(measure)
        except NameError:  # ir_measures' "measure not found"
            if state["read"]:
                raise
            state["read"] = True
            load_plugins()
            return parse_measure(measure)

    ir_measures.parse_measure = ir_measures.util.parse_measure = parse_measure_with_plugins
