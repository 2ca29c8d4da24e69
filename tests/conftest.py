"""Fixtures shared by several test modules."""

from __future__ import annotations

import os
import shutil
import sys
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


@pytest.fixture(scope="session")
def spark():
    """One local SparkSession for every Spark test module (started on first use)."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (SparkSession.builder.master("local[2]").appName("ir-measures-graded tests")
               .config("spark.sql.shuffle.partitions", "4").config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
