"""trec_eval 10.0 built from NIST's source (``shared/tools/trec_eval-10.0-src.tar.gz`` beside the clone or above
it) into a temporary folder, for the tests that compare with it; without the archive, make or a C compiler they
are skipped, saying why."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from support.paths import ROOT

ARCHIVE = "trec_eval-10.0-src.tar.gz"


def build_trec_eval(folder: Path) -> Path:
    """The trec_eval binary built in ``folder`` (the test skipped when it cannot be)."""
    archive = next((p / "shared" / "tools" / ARCHIVE for p in ROOT.parents if (p / "shared" / "tools" / ARCHIVE).is_file()),
                   None)
    if archive is None:
        pytest.skip(f"no shared/tools/{ARCHIVE} beside the clone or above it: trec_eval cannot be built")
    if not shutil.which("make") or not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no make or C compiler: trec_eval cannot be built")
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    source = next(p.parent for p in folder.rglob("Makefile"))
    subprocess.run(["make", "-C", str(source)], check=True, capture_output=True)
    return source / "trec_eval"


def lines(text: str) -> dict[tuple[str, str], float]:
    """trec_eval's ``-q`` lines as ``{(measure, query): value}`` (its run id and relevance strings left out)."""
    found = {}
    for line in text.splitlines():
        name, query, value = line.split()
        if name not in ("runid", "relstring"):
            found[(name, query)] = float(value)
    return found
