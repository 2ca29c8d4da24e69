"""Small surfaces (issue 50, item 6): ``experiment()`` and ``report()`` take at most 10 parameters (options as
values: ``Reading``, ``Testing``, an engine), and they are plain functions of plain packages — no module made
callable (the ``_CallableModule`` classes that made ``ir_measures_graded.experiment`` and ``.report`` both a
package and a function are gone: the packages are ``experiments`` and ``reports``)."""

from __future__ import annotations

import inspect
import subprocess
import sys
import types

import ir_measures_graded as img


def test_experiment_and_report_take_at_most_ten_parameters():
    assert len(inspect.signature(img.experiment).parameters) <= 10
    assert len(inspect.signature(img.report).parameters) <= 10


def test_the_depth_is_how_a_run_is_read_not_an_eleventh_parameter():
    """trec_eval's ``-M`` (issue 52, item 5) came when ``experiment()`` already took 10 parameters: the depth
    is about how each run is read (only its top N documents per query count), so it is a field of ``Reading``
    (``Reading(depth=N)``, which ``-M`` sets), not a parameter of ``experiment()``."""
    from ir_measures_graded.experiments.evaluation import Reading

    assert "depth" not in inspect.signature(img.experiment).parameters
    assert Reading(depth=5).depth == 5 and Reading().depth is None


def test_the_functions_stay_functions_whatever_is_imported_first():
    """Importing a subpackage binds it to the parent's attribute: it no longer shadows the function."""
    code = ("import types, sys\nimport ir_measures_graded.experiments.comparison, ir_measures_graded.reports.build\n"
            "import ir_measures_graded as img\n"
            "print(isinstance(img.experiment, types.FunctionType), isinstance(img.report, types.FunctionType),\n"
            "      type(sys.modules['ir_measures_graded.experiments']) is types.ModuleType,\n"
            "      type(sys.modules['ir_measures_graded.reports']) is types.ModuleType)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True"] * 4
    assert isinstance(img.experiment, types.FunctionType) and isinstance(img.report, types.FunctionType)
