"""The command line's parser is built for the subcommand at hand: it parses as the whole parser does."""

from __future__ import annotations

import pytest

from ir_measures_graded.cli.args import SUBCOMMANDS
from ir_measures_graded.cli.parser import build_parser

ARGV = {
    "evaluate": ["q.txt", "r1.txt", "r2.txt", "muMAP", "nDCNG@10", "-q", "--baseline", "r1.txt", "-o", "text"],
    "judge": ["q.txt", "r1.txt", "r2.txt", "-m", "muMAP", "--transform", "scale:2", "--samples", "20"],
    "report": ["q.txt", "r1.txt", "r2.txt", "-m", "muMAP", "--html", "page.html", "--no-scale"],
    "leaderboard": ["q.txt", "r1.txt", "r2.txt", "-m", "nDCNG@10", "AP", "--pool-depth", "10"],
    "agree": ["q.txt", "b.txt", "r1.txt", "r2.txt", "-m", "muMAP", "--map", "map:1=1,2=3", "--test", "t"],
    "pool": ["r1.txt", "r2.txt", "--strategy", "bandit", "--judgments", "q.txt", "--total", "50", "--seed", "1"],
    "simulate": ["q.txt", "r1.txt", "r2.txt", "-m", "muMAP", "--budgets", "5,10", "--strategies", "rbp", "-o", "tsv"],
    "demo": [],
}


def _options(parser) -> dict[str, list[str]]:
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    return {name: sorted(o for a in sub._actions for o in a.option_strings) for name, sub in subparsers.items()}


@pytest.mark.parametrize("command", list(SUBCOMMANDS))
def test_a_subcommands_own_parser_parses_as_the_whole_one(command):
    argv = [command, *ARGV[command]]
    assert vars(build_parser(command).parse_args(argv)) == vars(build_parser().parse_args(argv))
    # its options are all built; the other subcommands are only listed (-h)
    whole, own = _options(build_parser()), _options(build_parser(command))
    assert list(own) == list(whole) == list(SUBCOMMANDS)
    assert own[command] == whole[command]
    assert all(own[name] == ["--help", "-h"] for name in own if name != command)
    assert len(whole["evaluate"]) > 20


def test_an_option_of_another_subcommand_is_refused_as_before(capsys):
    for parser in (build_parser("evaluate"), build_parser()):
        with pytest.raises(SystemExit):
            parser.parse_args(["evaluate", "q.txt", "r.txt", "muMAP", "--html", "x.html"])
    assert "unrecognized arguments: --html" in capsys.readouterr().err
