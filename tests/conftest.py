"""Fixtures shared by several test modules."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

import support.examples
from support.paths import OHSUMED_FIXTURE


def pytest_configure(config: pytest.Config) -> None:
    # The everyday subset (-m "not slow": every test but the end-to-end ones) draws fewer hypothesis
    # examples in the long property runs (support.examples); a full run draws them all. Set here,
    # before any test module is imported: the counts are read when the tests are decorated.
    support.examples.BRIEF = "not slow" in (config.getoption("markexpr") or "")


@pytest.fixture()
def home(tmp_path, monkeypatch):
    """An empty ir_datasets home (IR_DATASETS_HOME), with the parsed-LETOR cache cleared."""
    from ir_measures_graded.datasets import ohsumed  # here: the minimum-versions job has no ir_datasets

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
    """The HTML report of 10,000 queries (20 judged documents per query, labels 0-4; three runs of
    20 documents each, 15 of them judged; muMAP and nDCG@10, baseline weak, one transform):
    ``(Report, path of its page)``, made once for the report's tests."""
    import numpy as np

    import ir_measures_graded

    folder = tmp_path_factory.mktemp("large_report")
    rng = np.random.default_rng(10_000)
    n, per_query = 10_000, 20
    query = np.repeat(np.arange(n), per_query)
    judged = np.tile(np.arange(per_query), n)
    label = rng.integers(0, 5, size=n * per_query)
    (folder / "qrels.txt").write_text("".join(f"q{q} 0 d{d} {g}\n" for q, d, g in
                                              zip(query.tolist(), judged.tolist(), label.tolist(), strict=True)))
    ranked = judged + 5  # d5 ... d24: the last five unjudged
    known = np.where(ranked < per_query, label[np.minimum(ranked, per_query - 1) + query * per_query], 0)
    runs = {}
    for name, weight in (("strong", 1.0), ("weak", 0.3), ("random", 0.0)):
        score = weight * known + rng.normal(0, 1, size=n * per_query)
        runs[name] = folder / f"{name}.run"
        runs[name].write_text("".join(f"q{q} Q0 d{d} {r} {s:.4f} {name}\n" for q, d, r, s in
                                      zip(query.tolist(), ranked.tolist(), (judged + 1).tolist(), score.tolist(),
                                          strict=True)))
    exp = ir_measures_graded.experiment(folder / "qrels.txt", runs, ["muMAP", "nDCG@10"])
    report = ir_measures_graded.report(exp, baseline="weak", transforms=["scale:2"])
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


#: Debian's Chromium, driven by Playwright for the report's and the documentation site's browser tests.
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-extensions",
                 "--disable-default-apps"]


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium (the system browser: Playwright's own downloads are not used)."""
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (apt-get install chromium); .ci/run installs it")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the 'test' extra)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()
