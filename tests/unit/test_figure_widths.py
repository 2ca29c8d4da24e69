"""Every figure the command line and the API make is one column wide (issue 52): 3.5 in in the file written
(the PNG's pixels over its dpi), whatever its height, with every text inside it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from PIL import Image

from ir_measures_graded import meta, organiser
from ir_measures_graded.canvas import COLUMN
from ir_measures_graded.experiments import experiment
from ir_measures_graded.experiments.testing import Testing as Options  # pytest would collect a "Test..." name
from ir_measures_graded.files import save_figure
from ir_measures_graded.judges import agree
from support.cli import run_main
from support.figures import overlapping_texts
from support.judges import write_collection
from support.paths import QRELS, RANDOM, STRONG, WEAK

pytest.importorskip("matplotlib")
pytestmark = pytest.mark.slow  # every figure, drawn and written: ~20 s


def width_of(path: Path) -> float:
    """The width in inches of a PNG as written: its pixels over the dpi it records."""
    with Image.open(path) as image:
        return image.width / image.info["dpi"][0]


def test_every_command_line_figure_is_one_column_wide(tmp_path, capsys):
    runs = [STRONG, WEAK, RANDOM]
    for name in ("thresholds", "differences", "scale", "intervals"):
        run_main(capsys, QRELS, *runs, "µMAP", "nDCG@10", "P@5", "--figure", name, str(tmp_path / f"{name}.png"))
    run_main(capsys, "judge", QRELS, *runs, "-m", "µMAP", "nDCG@10", "P@5", "--transform", "scale:2", "--samples",
             "5", "--permutations", "100", "--plot", str(tmp_path / "judge.png"))
    run_main(capsys, "leaderboard", QRELS, *runs, "-m", "AP", "--sections", "leaderboard", "--permutations", "100",
             "--plot", str(tmp_path / "leaderboard.png"))
    qa, qb, judged, _, _ = write_collection(tmp_path, runs=4, topics=8)
    run_main(capsys, "agree", qa, qb, *judged, "-m", "muMAP", "nDCG@10", "P@5", "--test", "t", "--plot",
             str(tmp_path / "agree.png"))
    written = sorted(tmp_path.glob("*.png"))
    assert len(written) == 7
    # to the pixel: a PNG records its dpi in whole pixels per metre
    assert {p.name: width_of(p) for p in written} == {p.name: pytest.approx(COLUMN, abs=0.005) for p in written}


def test_every_api_figure_is_one_column_wide_with_every_text_inside(tmp_path):
    from ir_measures_graded.meta import figures
    from ir_measures_graded.meta.plots import report_figure
    from ir_measures_graded.paper import plots

    exp = experiment(QRELS, [STRONG, WEAK, RANDOM], ["µMAP", "nDCG@10", "P@5"], baseline="weak.run")
    testing = Options("randomized_tukey", permutations=50)
    board = organiser.leaderboard(exp, testing=testing)
    qa, qb, judged, _, _ = write_collection(tmp_path, runs=4, topics=8)
    agreement = agree(experiment(qa, judged, ["muMAP", "nDCG@10", "P@5"]), qb, testing=Options(test="t"))
    curves = pd.DataFrame({"measure": ["muMAP"] * 4 + ["nDCG"] * 4, "levels": [2, 2, 3, 3] * 2,
                           "swaps": [0, 1, 0, 1] * 2, "mean": [1.0, 0.9, 1.0, 0.8] * 2})
    drawn = {
        "thresholds": figures.threshold_curve(exp), "differences": figures.query_differences(exp),
        "scale": figures.scale_grid(exp), "intervals": figures.intervals(exp.compare()),
        "judging": report_figure(meta.meta_evaluate(exp, transforms=["scale:2"], samples=5,
                                                    testing=Options(permutations=100))),
        "leaderboard": board.plot(), "topics": organiser.topics(exp).plot("strong.run"),
        "agreement": agreement.plot(),
        "swaps": plots.swap_curves(curves),
        "strategies": plots.strategy_performance(pd.DataFrame([[0.5, 0.4]], index=[1], columns=[1.0, 2.0]),
                                                 pd.DataFrame({"muMAP": [0.5], "nDCG": [0.6]}, index=[1])),
    }
    widths = {}
    for name, fig in drawn.items():
        assert overlapping_texts(fig) == [], name
        widths[name] = width_of(save_figure(fig, tmp_path / f"{name}.png"))
    assert widths == dict.fromkeys(drawn, pytest.approx(COLUMN, abs=0.005))
    assert all(fig.get_size_inches()[0] == COLUMN for fig in drawn.values())
