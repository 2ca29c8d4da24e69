"""Messages name ids as text (issue 52, item 6): never ``b'doc0006'`` (the small-file reader holds ids as bytes),
and the document a message names is the one it means; gdeval's failures (ERR through ir_measures) are one line
saying what gdeval needs, with this package's graded ERR suggested, instead of a raw ``CalledProcessError``."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ir_measures_graded import experiment
from ir_measures_graded.errors import GradedInputError, as_text
from support.cli import ERROR, fail
from support.paths import QRELS, STRONG

needs_perl = pytest.mark.skipif(not shutil.which("perl"), reason="gdeval (ir_measures' ERR) runs Perl")


def frame(path: Path, value: str) -> pd.DataFrame:
    return pd.read_csv(path, sep=r"\s+", header=None, names=["query_id", "it", "doc_id", value],
                       dtype={"query_id": str, "doc_id": str}).drop(columns="it")


def rewritten(tmp_path: Path, source: str, name: str, line) -> str:
    path = tmp_path / name
    path.write_text("".join(line(row.split()) + "\n" for row in Path(source).read_text().splitlines()))
    return str(path)


@pytest.mark.parametrize("id_, text", [(b"doc0006", "doc0006"), (np.bytes_(b"d\xc3\xa9"), "dé"), ("S01", "S01"),
                                       (pa.scalar("x1"), "x1"), (pa.scalar(7), "7"), (12, "12")])
def test_as_text_gives_the_id_as_compared(id_, text):
    assert as_text(id_) == text


def test_duplicate_messages_name_the_pair_as_text(tmp_path):
    doubled = tmp_path / "x2.qrels"
    doubled.write_text(Path(QRELS).read_text() * 2)
    line = fail(str(doubled), STRONG, "gERR@10")
    assert "b'" not in line and "query 'S01', doc 'doc4007' appears again (first at line 1)" in line


def test_g_err_above_g_max_names_the_judged_document_as_text_on_every_reader(tmp_path):
    """Labels doubled (4 -> 8, above gERR's g_max=4): the message names a document judged 8 for that query,
    as text — the small-file reader's ids are bytes, and were named as ``b'...'`` (and the wrong one)."""
    doubled = rewritten(tmp_path, QRELS, "x2.qrels", lambda f: f"{f[0]} {f[1]} {f[2]} {int(f[3]) * 2}")
    judged = frame(Path(doubled), "relevance")

    def named(message: str) -> tuple[str, str]:
        assert "b'" not in message and "above g_max=4" in message, message
        query = message.split(" of query ")[1].split(",")[0]
        doc = message.split(", document ")[1].split(" ")[0]
        return query, doc

    pairs = [named(fail(doubled, STRONG, "gERR@10")[len(ERROR):])]
    for qrels in (doubled, judged, pa.Table.from_pandas(judged)):  # the small reader, a frame, an Arrow table
        with pytest.raises(GradedInputError) as raised:
            experiment(qrels, [STRONG], ["gERR@10"], warn=lambda _: None)
        pairs.append(named(str(raised.value)))
    for query, doc in pairs:
        labels = judged.loc[(judged.query_id == query) & (judged.doc_id == doc), "relevance"].tolist()
        assert labels == [8], (query, doc)


@needs_perl
def test_err_on_non_numeric_topic_ids_is_one_line_suggesting_g_err():
    message = ("ERR@10: ir_measures computes it with gdeval, which needs numeric topic ids (the qrels have 'S01'); "
               "use gERR@10, this package's graded ERR, which takes any ids")
    assert fail(QRELS, STRONG, "ERR@10", "AP") == ERROR + message  # one line: no Perl message, no traceback
    with pytest.raises(GradedInputError, match=r"^" + message.replace("(", r"\(").replace(")", r"\)") + "$"):
        experiment(QRELS, [STRONG], ["ERR@10"], warn=lambda _: None)
    run = pd.read_csv(STRONG, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                      dtype={"query_id": str, "doc_id": str})[["query_id", "doc_id", "score"]]
    with pytest.raises(GradedInputError, match=r"^ERR@5: .* numeric topic ids \(the qrels have 'S01'\); use gERR@5"):
        experiment(frame(Path(QRELS), "relevance"), [run], ["ERR@5", "AP"], warn=lambda _: None)  # in memory


@needs_perl
def test_err_on_a_run_with_a_non_numeric_topic_or_labels_above_four_is_one_line(tmp_path):
    qrels = rewritten(tmp_path, QRELS, "n.qrels", lambda f: " ".join([f[0].replace("S", "1"), *f[1:]]))
    run = rewritten(tmp_path, STRONG, "n.run", lambda f: " ".join([f[0].replace("S", "1"), *f[1:]]))
    Path(run).write_text(Path(run).read_text() + "zz Q0 doc1 1 1.0 x\n")
    assert fail(qrels, run, "ERR@10") == (f"{ERROR}ERR@10: ir_measures computes it with gdeval, which needs numeric "
                                          "topic ids (the run has 'zz'); use gERR@10, this package's graded ERR, "
                                          "which takes any ids")
    doubled = rewritten(tmp_path, qrels, "x2.qrels", lambda f: f"{f[0]} {f[1]} {f[2]} {int(f[3]) * 2}")
    message = ("ERR@10: ir_measures computes it with gdeval, which takes labels up to 4 (the qrels have 8); use "
               "gERR(g_max=8)@10, this package's graded ERR")
    assert fail(doubled, run, "ERR@10") == ERROR + message
    with pytest.raises(GradedInputError) as raised:
        experiment(doubled, [run], ["ERR@10"], warn=lambda _: None)
    assert str(raised.value) == message
    # what the message suggests computes
    done = experiment(doubled, [run], ["gERR(g_max=8)@10"], warn=lambda _: None)
    assert 0 < done.aggregates["value"].iloc[0] < 1
