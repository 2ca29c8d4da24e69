"""Fixtures shared by several test modules."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ir_measures_graded.datasets import ohsumed

#: Tiny OHSUMED and LETOR files in the exact real formats (see its README).
OHSUMED_FIXTURE = Path(__file__).parent / "data" / "ohsumed"


@pytest.fixture()
def home(tmp_path, monkeypatch):
    """An empty ir_datasets home (IR_DATASETS_HOME), with the parsed-LETOR cache cleared."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path))
    ohsumed._cached_table.cache_clear()
    yield tmp_path
    ohsumed._cached_table.cache_clear()


@pytest.fixture()
def placed(home):
    """The OHSUMED fixture placed under the ir_datasets home as extracted files."""
    shutil.copytree(OHSUMED_FIXTURE, home / "ohsumed")
    return home
