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
def large_report(tmp_path_factory):
    """The HTML report of 10,000 queries (three runs of 20 documents per query; muMAP and nDCG@10,
    baseline weak, one transform): ``(Report, path of its page)``, made once for the report's tests."""
    import pandas as pd

    import ir_measures_graded
    from ir_measures_graded.sample import GRADED_SAMPLE_RUNS, write_graded_sample

    folder = tmp_path_factory.mktemp("large_report")
    write_graded_sample(folder, n_queries=10_000)  # 40 judged and 50 ranked documents per query, cut to 20
    qrels = pd.read_csv(folder / "qrels.txt", sep=" ", header=None)
    qrels.groupby(0).head(20).to_csv(folder / "qrels.txt", sep=" ", header=False, index=False)
    for name in GRADED_SAMPLE_RUNS:
        run = pd.read_csv(folder / f"{name}.run", sep=" ", header=None, dtype={4: str})
        run.groupby(0).head(20).to_csv(folder / f"{name}.run", sep=" ", header=False, index=False)
    runs = {name: folder / f"{name}.run" for name in GRADED_SAMPLE_RUNS}
    report = ir_measures_graded.report(folder / "qrels.txt", runs, ["muMAP", "nDCG@10"], baseline="weak",
                                       transforms=["scale:2"])
    return report, report.save(folder / "report.html")


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
