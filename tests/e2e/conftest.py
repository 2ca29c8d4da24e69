"""End-to-end tests: everything here is marked ``slow`` (the everyday subset is ``pytest -m 'not slow'``),
and only these are: subprocesses, fresh interpreters, notebooks, Spark, Chromium, the docs build."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # A conftest's hook sees every collected item (not only its folder's): mark those under tests/e2e/.
    for item in items:
        if HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.slow)
