"""``ir-measures-graded``: trec_eval / ir_measures-style evaluation from the shell, with our measures.

    ir-measures-graded [evaluate] QRELS RUN [RUN ...] MEASURE [MEASURE ...] [options]
    ir-measures-graded judge QRELS RUN RUN [RUN ...] MEASURE [...] [options]
    ir-measures-graded report QRELS RUN [RUN ...] MEASURE [...] --html FILE [options]
    ir-measures-graded agree QRELS_A QRELS_B RUN RUN [RUN ...] MEASURE [...] [options]
    ir-measures-graded pool RUN [RUN ...] --strategy depth --depth 10 [--budget N | --total N] [--output FILE]
    ir-measures-graded simulate QRELS RUN RUN [RUN ...] MEASURE [...] [--budgets 10,20,50,100] [--figure FILE]
    ir-measures-graded demo

One parser (:mod:`.args`): every subcommand takes the same inputs (QRELS, runs, measures positional or
with ``-m``, ``--names``), the same comparison options (``--baseline``, ``--test``, ``--correction``, ...)
and the same ``-o`` formats (:mod:`ir_measures_graded.experiments.formats`); each evaluates one
experiment (:func:`.args.experiment_of`) and writes views of it. A subcommand is a module with a
``run(args, runs, measures, out)``, listed once in :data:`COMMANDS`.

Arguments and options follow the ``ir_measures`` command (positional qrels, run(s), measures;
``-q``, ``-n``, ``-p``, ``-o``, ``--provider``) and so does the output (lines in the same order),
so one can be swapped for the other; a measure is printed by the name it was given. QRELS is a TREC
qrels file (plain or gzip; relevance may be real-valued) or an ir_datasets id; each RUN is a
six-column TREC run file (plain or gzip), ``-`` for standard input, or any readable path such as
``/dev/stdin`` or a shell's ``<(...)``. Bad input gives one line on stderr and exit status 2, never a
traceback.
"""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Sequence

from ir_measures_graded.cli.args import SUBCOMMANDS, UsageError, inputs_of
from ir_measures_graded.cli.output import PROG, fail, warn
from ir_measures_graded.cli.parser import build_parser
from ir_measures_graded.errors import GradedInputError

__all__ = ["main", "console", "UsageError", "PROG", "COMMANDS", "fail", "warn"]

#: Each subcommand's module (its ``run(args, runs, measures, out)``); ``demo`` takes no inputs.
COMMANDS = {"evaluate": "ir_measures_graded.cli.evaluate", "judge": "ir_measures_graded.cli.judge",
            "report": "ir_measures_graded.cli.report", "leaderboard": "ir_measures_graded.cli.leaderboard",
            "agree": "ir_measures_graded.cli.agree", "pool": "ir_measures_graded.cli.pool",
            "simulate": "ir_measures_graded.cli.simulate"}


def console() -> int:
    """The console script and ``python -m ir_measures_graded``: :func:`main` as the whole process.

    The one process-wide setting, and only here (:func:`main`, called from a notebook or a test,
    leaves the process as it was): what is left is frozen at the end, so the interpreter's
    collection passes at exit do not walk every object of the imported modules again (measured,
    paired: 8-14% of a 50-query evaluation's wall time).
    """
    status = main()
    gc.freeze()
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (2 with one line on stderr for bad input)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv:
            argv = ["demo"]
        if argv[0] not in SUBCOMMANDS and argv[0] not in ("-h", "--help", "--version"):
            argv = ["evaluate", *argv]  # the default subcommand
        if argv[0] == "demo" and len(argv) > 1 and argv[1] not in ("-h", "--help"):
            raise UsageError(f"'demo' takes no arguments (got {' '.join(argv[1:])}); to evaluate files: "
                             f"{PROG} QRELS RUN [RUN ...] MEASURE [MEASURE ...]")
        args = build_parser(argv[0] if argv[0] in SUBCOMMANDS else None).parse_args(argv)
        if args.command == "demo":
            from ir_measures_graded.cli.writers import print_demo

            print_demo(sys.stdout)
            return 0
        runs, measures = inputs_of(args)
        command = importlib.import_module(COMMANDS[args.command])
        if args.command == "report":
            args.command_line = shell_line(argv)
        return command.run(args, runs, measures, sys.stdout)
    except (UsageError, GradedInputError, ImportError) as ex:
        return fail(str(ex))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return fail("interrupted")
    except Exception as ex:  # never a traceback: one line naming what went wrong
        return fail(f"{type(ex).__name__}: {ex}")


def shell_line(argv: Sequence[str]) -> str:
    """The command as a shell would take it (for the report's header)."""
    import shlex

    from ir_measures_graded.experiments.naming import display

    return " ".join(shlex.quote(display(a)) for a in [PROG, *argv])
