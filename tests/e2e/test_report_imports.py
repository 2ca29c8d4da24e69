"""The report function in a fresh interpreter (split from tests/unit/reports/test_report.py)."""

from __future__ import annotations

import subprocess
import sys


def test_the_package_attribute_is_callable_whatever_was_imported_first():
    code = ("import ir_measures_graded.reports.build, ir_measures_graded as g; "
            "from ir_measures_graded.sample import graded_sample; q, r = graded_sample(); "
            "print(type(g.report(g.experiment(q, r, ['muMAP']), transforms=[])).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "Report"


def test_the_report_page_asks_for_no_extra_the_report_does_not_use():
    """docs/report.md names an extra only if the report imports a distribution that extra adds to a plain install
    (it asked for ``report`` — scipy and jinja2, both dependencies of the package)."""
    import json
    import re

    import tomllib

    from support.paths import ROOT

    code = ("import sys, json, importlib.metadata as md, ir_measures_graded as g; "
            "from ir_measures_graded.sample import graded_sample; q, r = graded_sample(); "
            "g.report(g.experiment(q, r, ['muMAP', 'nDCG@10']), baseline='weak').html(); "
            "found = md.packages_distributions(); "
            "print(json.dumps(sorted({d for m in list(sys.modules) for d in found.get(m.split('.')[0], [])})))")
    imported = {name.lower().replace("_", "-") for name in
                json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                          check=True).stdout)}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    def names(requirements: list[str]) -> set[str]:
        return {re.split(r"[<>=\[ ;]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements}

    base = names(project["dependencies"])
    page = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    for extra in re.findall(r"`(\w+)` extra|\.\[(\w+)\]", page):
        extra = next(e for e in extra if e)
        assert names(project["optional-dependencies"][extra]) & imported - base, (
            f"docs/report.md asks for the {extra!r} extra; the report imports nothing it adds to a plain install")
    assert "scipy" in imported and "jinja2" in imported and {"scipy", "jinja2"} <= base
