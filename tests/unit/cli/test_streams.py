"""What the command line writes where (issue 44): standard output carries the results alone, whatever
a dependency prints; ``--output-dir`` never writes over an input; standard input is read once."""

from __future__ import annotations

import json

from support.cli import run_main
from support.paths import QRELS, STRONG, WEAK


def test_all_trec_keeps_what_ir_measures_prints_off_standard_output(capsys):
    # ir_measures prints "skipped [...]: measures not yet supported" while expanding all_trec
    out, err = run_main(capsys, QRELS, STRONG, WEAK, "all_trec", "-o", "jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert {r["run"] for r in records} == {"strong.run", "weak.run"}
    assert "skipped" in err
    out, _ = run_main(capsys, QRELS, STRONG, WEAK, "all_trec", "-o", "csv")
    assert out.splitlines()[0].startswith("run,")
