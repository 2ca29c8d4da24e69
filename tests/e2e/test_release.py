"""What a release uploads: the sdist and the wheel, built as RELEASING.md builds them (``python -m build``), hold
the license, the type marker, the tests and the changelog, pass ``twine check --strict``, and carry the
metadata an index shows (Project-URLs, classifiers, the entry points)."""

from __future__ import annotations

import email
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from ir_measures_graded import __version__
from support.paths import ROOT

NAME = f"ir_measures_graded-{__version__}"
PYTHONS = ["3.10", "3.11", "3.12", "3.13"]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out


def sdist_names(dist: Path) -> set[str]:
    with tarfile.open(dist / f"{NAME}.tar.gz") as archive:
        return {name.removeprefix(f"{NAME}/") for name in archive.getnames()}


def wheel_names(dist: Path) -> set[str]:
    with zipfile.ZipFile(dist / f"{NAME}-py3-none-any.whl") as archive:
        return set(archive.namelist())


def metadata(dist: Path) -> email.message.Message:
    with zipfile.ZipFile(dist / f"{NAME}-py3-none-any.whl") as archive:
        return email.message_from_string(archive.read(f"{NAME}.dist-info/METADATA").decode("utf-8"))


def test_sdist_holds_license_tests_changelog_and_the_type_marker(dist):
    names = sdist_names(dist)
    for name in ["LICENSE", "CHANGELOG.md", "README.md", "RELEASING.md", "src/ir_measures_graded/py.typed",
                 "tests/conftest.py", "tests/contract/test_upstream_internals.py", "tests/support/paths.py"]:
        assert name in names, name
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_sdist_is_every_committed_file(dist):
    """The whole source (what the tests read: .ci/, docs/, benchmarks/, notebooks/) but .gitignore."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0 or not listed.stdout:
        pytest.skip("not a git checkout (an unpacked sdist)")
    committed = set(listed.stdout.split()) - {".gitignore"}
    names = sdist_names(dist)
    assert not committed - names, sorted(committed - names)[:10]


def test_tests_run_from_the_unpacked_sdist(dist, tmp_path):
    """Some of the shipped tests, run in the unpacked sdist (the everyday subset passes there: RELEASING.md)."""
    with tarfile.open(dist / f"{NAME}.tar.gz") as archive:
        archive.extractall(tmp_path, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                             "tests/contract/test_upstream_internals.py", "tests/contract/test_docs_generated.py",
                             "tests/unit/test_ir_measures_integration.py"],
                            cwd=tmp_path / NAME, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout.splitlines()[-1] and "failed" not in result.stdout.splitlines()[-1]


def test_wheel_holds_license_and_the_type_marker(dist):
    names = wheel_names(dist)
    assert "ir_measures_graded/py.typed" in names
    assert f"{NAME}.dist-info/licenses/LICENSE" in names
    assert not [n for n in names if n.startswith("tests/")]  # the tests ship in the sdist only


def test_twine_check_passes(dist):
    files = sorted(str(p) for p in dist.iterdir())
    assert len(files) == 2, files
    result = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *files],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2 and "warning" not in result.stdout.lower(), result.stdout


def test_metadata_has_the_urls_classifiers_and_license(dist):
    meta = metadata(dist)
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    classifiers = meta.get_all("Classifier")
    for python in PYTHONS:
        assert f"Programming Language :: Python :: {python}" in classifiers, python
    for classifier in ["Topic :: Scientific/Engineering :: Information Analysis", "Typing :: Typed"]:
        assert classifier in classifiers, classifier
    assert any(c.startswith("Development Status :: ") for c in classifiers)
    assert meta["Requires-Python"] == ">=3.10"
    urls = dict(line.split(", ", 1) for line in meta.get_all("Project-URL"))
    assert set(urls) >= {"Homepage", "Documentation", "Changelog"}, urls
    shipped = sdist_names(dist)
    for label, url in urls.items():  # an absolute URL, or (no public home yet: RELEASING.md) a shipped file
        assert url.startswith("https://") or url in shipped, (label, url)


def test_the_classifiers_name_the_pythons_requires_python_allows():
    """The Python classifiers start at requires-python's floor (.ci/minimums.py --python reads it)."""
    lowest = subprocess.run([sys.executable, str(ROOT / ".ci" / "minimums.py"), "--python"], capture_output=True,
                            text=True, check=True).stdout.strip()
    assert PYTHONS[0] == lowest


def test_wheel_declares_the_command_and_the_plugin_entry_point(dist):
    with zipfile.ZipFile(dist / f"{NAME}-py3-none-any.whl") as archive:
        entry_points = archive.read(f"{NAME}.dist-info/entry_points.txt").decode()
    assert "[console_scripts]\nir-measures-graded = ir_measures_graded.cli:console" in entry_points
    assert "[ir_measures.plugins]\ngraded = ir_measures_graded" in entry_points


def test_long_description_is_the_readme(dist):
    meta = metadata(dist)
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload().strip() == (ROOT / "README.md").read_text(encoding="utf-8").strip()
