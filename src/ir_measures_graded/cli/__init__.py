"""``ir-measures-graded``: trec_eval / ir_measures-style evaluation from the shell, with our measures.

    ir-measures-graded QRELS RUN [RUN ...] MEASURE [MEASURE ...] [options]
    ir-measures-graded demo

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
from typing import TextIO

from ir_measures_graded.cli.args import PROG, UsageError, build_parser, check_options, split_inputs
from ir_measures_graded.errors import GradedInputError

__all__ = ["main", "console", "run", "UsageError", "PROG"]


def console() -> int:
    """The console script and ``python -m ir_measures_graded``: :func:`main`, after which the process ends.

    What is left is frozen first: the interpreter's collection passes at exit then do not walk
    every object of the imported modules again (about a tenth of a small evaluation's time).
    """
    status = main()
    gc.freeze()
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or (argv[0] == "demo" and not os.path.exists("demo")):
            if len(argv) > 1:
                raise UsageError(f"'demo' takes no arguments (got {' '.join(argv[1:])}); to evaluate files: "
                                 f"{PROG} QRELS RUN [RUN ...] MEASURE [MEASURE ...]")
            from ir_measures_graded.cli.writers import print_demo

            print_demo(sys.stdout)
            return 0
        if argv[0] == "compare":
            from ir_measures_graded.cli.compare import main as compare

            return compare(argv[1:])
        if argv[0] == "report":
            from ir_measures_graded.cli.report import main as report

            return report(argv[1:])
        args = build_parser().parse_args(argv)
        return run(args, sys.stdout)
    except (UsageError, GradedInputError) as ex:
        return fail(str(ex))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return fail("interrupted")
    except Exception as ex:  # never a traceback: one line naming what went wrong
        return fail(f"{type(ex).__name__}: {ex}")


def fail(message: str) -> int:
    sys.stderr.write(f"{PROG}: error: {' '.join(message.split())}\n")
    return 2


def warn(message: str) -> None:
    sys.stderr.write(f"{PROG}: warning: {message}\n")


def run(args, out: TextIO) -> int:  # noqa: ANN001 - an argparse.Namespace of build_parser()
    """Evaluate with the chosen engine, then write the results (and the tables asked for)."""
    from ir_measures_graded import engines
    from ir_measures_graded.cli import writers

    run_paths, measures = split_inputs(args.inputs)
    check_options(args, measures)
    request = engines.Request(
        qrels=args.qrels, runs=run_paths, measures=measures, provider=args.provider,
        by_query=args.by_query or args.compare is not None, summary=not args.no_summary or args.compare is not None,
        qrels_columns=column_names(args, "relevance"), run_columns=column_names(args, "score"),
        progress=not args.quiet, thresholds=args.thresholds, master=args.master, warn=warn, whole_process=True)
    results = engines.engine(args.engine).evaluate(request)
    writers.write_results(results, measures, args, out)
    if args.thresholds and args.output_format != "trec":  # trec: under each run's runid line
        import pandas as pd

        tables = [r.levels.assign(run=r.name)[["run", *r.levels.columns]] for r in results]
        writers.write_breakdown(pd.concat(tables, ignore_index=True), args, out)
    if args.compare is not None:
        from ir_measures_graded import meta

        table = meta.compare_results(results, measures, args.compare, test=args.test, correction=args.correction,
                                     alternative=args.alternative, family=args.family,
                                     by_tag=args.output_format == "trec",  # named as the summary names them
                                     warn=warn)
        writers.write_comparison(table, args, out)
    return 0


def column_names(args, value: str) -> dict[str, str]:  # noqa: ANN001 - an argparse.Namespace
    """Column names of Parquet / Arrow inputs from the options; ``value``: 'relevance' or 'score'."""
    given = (("query_id", args.query_column), ("doc_id", args.doc_column),
             (value, args.relevance_column if value == "relevance" else args.score_column))
    return {k: v for k, v in given if v}
