"""Where things are: the repository, tests/data and the bundled sample collection."""

from __future__ import annotations

from pathlib import Path

from ir_measures_graded.sample import data_path

#: The repository's root (pyproject.toml, docs/, notebooks/, benchmarks/, .ci/).
ROOT = Path(__file__).resolve().parents[2]
#: tests/data: fixtures in exact real formats.
DATA = ROOT / "tests" / "data"
#: Tiny OHSUMED and LETOR files in the exact real formats (see its README).
OHSUMED_FIXTURE = DATA / "ohsumed"
#: The bundled sample collection (qrels and three runs) and its files as strings for argv.
SAMPLE = data_path("graded_sample")
QRELS = str(SAMPLE / "qrels.txt")
STRONG, WEAK, RANDOM = (str(SAMPLE / f"{name}.run") for name in ("strong", "weak", "random"))
