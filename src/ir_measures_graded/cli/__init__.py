"""``ir-measures-graded``: trec_eval / ir_measures-style evaluation from the shell, with our measures.

    ir-measures-graded [evaluate] QRELS RUN [RUN ...] MEASURE [MEASURE ...] [options]
    ir-measures-graded compare QRELS RUN RUN [RUN ...] MEASURE [...] [options]
    ir-measures-graded report QRELS RUN [RUN ...] MEASURE [...] --html FILE [options]
    ir-measures-graded demo

One parser (:mod:`.args`): every subcommand takes the same inputs (QRELS, runs, measures positional or
with ``-m``, ``--names``), the same comparison options (``--baseline``, ``--test``, ``--correction``, ...)
and the same ``-o`` formats; each evaluates through :func:`ir_measures_graded.experiment`.

Arguments and options follow the ``ir_measures`` command (positional qrels, run(s), measures;
``-q``, ``-n``, ``-p``, ``-o``, ``--provider``) and so does the output (lines in the same order),
so one can be swapped for the other. QRELS is a TREC qrels file (plain or gzip; relevance may be
real-valued) or an ir_datasets id; each RUN is a six-column TREC run file (plain or gzip), ``-``
for standard input, or any readable path such as ``/dev/stdin`` or a shell's ``<(...)``. Bad input
gives one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from ir_measures_graded.cli.args import PROG, SUBCOMMANDS, UsageError, build_parser, check_options, inputs_of
from ir_measures_graded.errors import GradedInputError

__all__ = ["main", "console", "run", "UsageError", "PROG"]


def console() -> int:
    """The console script and ``python -m ir_measures_graded``: :func:`main` as the whole process.

    The one process-wide setting, and only here (:func:`main`, called from a notebook or a test,
    leaves the process as it was): what is left is frozen at the end, so the interpreter's
    collection passes at exit do not walk every object of the imported modules again (measured,
    paired: 8-14% of a 50-query evaluation's wall time). glibc's malloc thresholds and pyarrow's
    system pool are not set any more: at 5M run lines they gained 1.5% of the wall time for 6-9%
    more peak memory (#36).
    """
    status = main()
    gc.freeze()
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (2 with one line on stderr for bad input)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or (argv[0] == "demo" and not os.path.exists("demo")):
            if len(argv) > 1:
                raise UsageError(f"'demo' takes no arguments (got {' '.join(argv[1:])}); to evaluate files: "
                                 f"{PROG} QRELS RUN [RUN ...] MEASURE [MEASURE ...]")
            from ir_measures_graded.cli.writers import print_demo

            print_demo(sys.stdout)
            return 0
        if argv[0] not in SUBCOMMANDS and argv[0] not in ("-h", "--help", "--version"):
            argv = ["evaluate", *argv]  # the default subcommand
        args = build_parser().parse_args(argv)
        runs, measures = inputs_of(args)
        if args.command == "compare":
            from ir_measures_graded.cli.compare import run as compare

            return compare(args, runs, measures, sys.stdout)
        if args.command == "report":
            from ir_measures_graded.cli.report import run as report

            return report(args, runs, measures, sys.stdout, command(argv))
        return run(args, runs, measures, sys.stdout)
    except (UsageError, GradedInputError, ImportError) as ex:
        return fail(str(ex))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return fail("interrupted")
    except Exception as ex:  # never a traceback: one line naming what went wrong
        return fail(f"{type(ex).__name__}: {ex}")


def command(argv: Sequence[str]) -> str:
    """The command as a shell would take it (for the report's header)."""
    import shlex

    from ir_measures_graded.experiment.naming import display

    return " ".join(shlex.quote(display(a)) for a in [PROG, *argv])


def fail(message: str) -> int:
    sys.stderr.write(f"{PROG}: error: {' '.join(message.split())}\n")
    return 2


def warn(message: str) -> None:
    sys.stderr.write(f"{PROG}: warning: {' '.join(message.split())}\n")


def evaluate(args: Any, runs: list[str], measures: list[Any], per_query: bool = True, keep_runs: bool = False,
             thresholds: bool = False, provider: str | None = None) -> Any:
    """The experiment every subcommand evaluates, from its options (one place)."""
    from ir_measures_graded.experiment import experiment

    return experiment(
        args.qrels, runs, measures, baseline=args.baseline, names=args.names, engine=args.engine,
        provider=provider, qrels_columns=column_names(args, "relevance"), run_columns=column_names(args, "score"),
        thresholds=thresholds, master=args.master, per_query=per_query, keep_runs=keep_runs,
        progress=not args.quiet, warn=warn)


def run(args: Any, runs: list[str], measures: list[Any], out: TextIO) -> int:
    """The evaluate command: the results (and the tables asked for)."""
    from ir_measures_graded.cli import writers

    check_options(args, runs, measures)
    compared = args.baseline is not None
    streams = writers.Streams(args, out)  # before evaluating: refuses an --output-dir that holds an input
    exp = evaluate(args, runs, measures, per_query=args.by_query or compared, thresholds=args.thresholds,
                   provider=args.provider)
    machine = args.output_format in ("tsv", "csv", "jsonl")
    if not (compared and machine and not args.output_dir):  # on stdout the comparison is then the one table
        with streams.table("results") as stream:
            writers.write_results(exp, args, stream)
    if args.thresholds and args.output_format != "trec":  # trec: under each run's runid line
        import pandas as pd

        tables = [r.levels.assign(run=name)[["run", *r.levels.columns]] for name, r in zip(exp.runs, exp.results,
                                                                                           strict=True)]
        with streams.table("thresholds") as stream:
            writers.write_breakdown(pd.concat(tables, ignore_index=True), args, stream)
    if compared:
        comparison = exp.compare(test=args.test, correction=args.correction, alternative=args.alternative,
                                 family=args.family, level=1 - args.alpha, permutations=args.permutations,
                                 seed=args.seed)
        with streams.table("comparison") as stream:
            writers.write_comparison(comparison, args, stream)
    return 0


def column_names(args: Any, value: str) -> dict[str, str]:
    """Column names of Parquet / Arrow inputs from the options; ``value``: 'relevance' or 'score'."""
    given = (("query_id", args.query_column), ("doc_id", args.doc_column),
             (value, args.relevance_column if value == "relevance" else args.score_column))
    return {k: v for k, v in given if v}
