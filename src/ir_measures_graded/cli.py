"""``ir-measures-graded``: trec_eval / ir_measures-style evaluation from the shell, with our measures.

    ir-measures-graded QRELS RUN [RUN ...] MEASURE [MEASURE ...] [options]
    ir-measures-graded demo

Arguments and options follow the ``ir_measures`` command (positional qrels, run(s), measures;
``-q``, ``-n``, ``-p``, ``-o``, ``--provider``), so one can be swapped for the other. QRELS is a
TREC qrels file (plain or gzip; relevance may be real-valued) or an ir_datasets id; each RUN is a
six-column TREC run file (plain or gzip). Bad input gives one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
from collections.abc import Sequence
from typing import TextIO

import ir_measures
import numpy as np
import pandas as pd

import ir_measures_graded  # noqa: F401  (registers the measures and the provider)
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.formats import read_qrels, read_run
from ir_measures_graded.measures import GradedMeasure, muMAP
from ir_measures_graded.per_level import by_level
from ir_measures_graded.sample import demo_tables

PROG = "ir-measures-graded"
SUMMARY_QID = "all"
DEFAULT_PLACES = 4
FORMATS = ("tsv", "jsonl", "trec", "csv")
COLUMNS = ["run", "query_id", "measure", "value"]


class UsageError(Exception):
    """A problem with what the user asked for: printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Evaluate TREC run files with µMAP, NDCNG and every ir_measures measure. "
        f"'{PROG} demo' (or no arguments) evaluates the bundled sample data.",
        epilog="examples:\n"
        f"  {PROG} qrels.txt run.txt muMAP nDCNG@10 AP nDCG@10\n"
        f"  {PROG} qrels.txt run.txt 'muMAP nDCNG@10' -q\n"
        f"  {PROG} qrels.txt runs/*.txt muMAP nDCNG@10 MAP\n"
        f"  {PROG} qrels.txt run.txt muMAP --thresholds\n"
        f"  {PROG} ohsumed run.txt muMAP",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", help="TREC qrels file (plain or .gz; real-valued labels allowed) or an ir_datasets id")
    parser.add_argument("inputs", nargs="+", metavar="RUN_OR_MEASURE",
                        help="one or more TREC run files, then one or more measures (e.g. muMAP 'nDCNG@10 AP')")
    parser.add_argument("--places", "-p", type=int, default=DEFAULT_PLACES,
                        help="decimal places (default 4; -1: all digits)")
    parser.add_argument("--by_query", "-q", action="store_true", help="per-query values, then the summary ('all')")
    parser.add_argument("--no_summary", "-n", action="store_true", help="with -q: omit the summary lines")
    parser.add_argument("--output_format", "-o", choices=FORMATS, default="tsv",
                        help="tsv (as ir_measures; a table for several runs), jsonl, trec (trec_eval's "
                        "'measure qid value'), csv (a table: a row per run)")
    parser.add_argument("--provider", choices=sorted(ir_measures.providers.registry),
                        help="compute every measure with this ir_measures provider")
    parser.add_argument("--thresholds", action="store_true",
                        help="for each run: MAP at every relevance level of the qrels, its weight, and µMAP")
    parser.add_argument("--engine", choices=("local", "spark"), default="local",
                        help="local (this process) or spark (inputs read and evaluated by Spark; TREC text or "
                        "Parquet files; needs the 'spark' extra and Java)")
    parser.add_argument("--master", help="with --engine spark: the Spark master URL (default local[*])")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or argv == ["demo"]:
            print_demo(sys.stdout)
            return 0
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
    sys.stderr.write(f"{PROG}: error: {message}\n")
    return 2


def warn(message: str) -> None:
    sys.stderr.write(f"{PROG}: warning: {message}\n")


# --- input ----------------------------------------------------------------------------------------

def split_inputs(inputs: list[str]) -> tuple[list[str], list[ir_measures.Measure]]:
    """Run files first (the first input always is one), then measures."""
    runs, measures = [inputs[0]], []
    for item in inputs[1:]:
        if not measures and os.path.isfile(item):
            runs.append(item)
            continue
        parsed = parse_measures(item, looks_like_file=not measures)
        measures.extend(m for m in parsed if m not in measures)
    if not measures:
        raise UsageError("no measure given (e.g. muMAP nDCNG@10 AP)")
    return runs, measures


def parse_measures(text: str, looks_like_file: bool) -> list[ir_measures.Measure]:
    result = []
    for token in text.split():
        try:
            measure = ir_measures.parse_measure(token)
        except NameError:
            if looks_like_file and re.search(r"[/\\]|\.(txt|run|gz|res|trec|tsv)$", token):
                raise UsageError(f"run file not found: {token}") from None
            raise UsageError(f"unknown measure: {token}{suggest(token)}") from None
        except (ValueError, SyntaxError) as ex:
            raise UsageError(f"cannot parse measure {token!r}: {ex}") from None
        measure.validate_params()
        result.append(measure)
    return result


def suggest(token: str) -> str:
    name = re.split(r"[(@]", token, maxsplit=1)[0]
    close = difflib.get_close_matches(name, list(ir_measures.measures.registry), n=3, cutoff=0.5)
    close += [n for n in ir_measures.measures.registry if n.lower() == name.lower() and n not in close]
    return f" (did you mean {', '.join(close)}?)" if close else ""


def load_qrels(spec: str) -> pd.DataFrame:
    if os.path.exists(spec):
        return read_qrels(spec)
    try:
        import ir_datasets
    except ImportError:
        raise UsageError(f"qrels file not found: {spec} (install ir_datasets to use dataset ids)") from None
    try:
        dataset = ir_datasets.load(spec)
    except KeyError:
        raise UsageError(f"qrels not found: {spec!r} is neither a file nor an ir_datasets id") from None
    if not dataset.has_qrels():
        raise UsageError(f"ir_datasets id {spec!r} has no qrels")
    return pd.DataFrame(dataset.qrels_iter())


def check_label_types(qrels: pd.DataFrame, measures: list[ir_measures.Measure], provider: str | None) -> None:
    labels = qrels["relevance"].to_numpy(dtype=np.float64)
    if np.all(labels == np.round(labels)):
        return
    integer_only = [str(m) for m in measures if provider not in (None, "graded") or not isinstance(m, GradedMeasure)]
    if integer_only:
        raise UsageError(f"the qrels have real-valued labels, which {', '.join(integer_only)} cannot take "
                         "(trec_eval-based measures need integers); muMAP, nDCNG, muP, meanNDCG and "
                         "meanNDCNG accept them")


# --- evaluation -----------------------------------------------------------------------------------

def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.engine == "spark":
        from ir_measures_graded.spark import run_cli
        return run_cli(args, out)
    if args.no_summary and not args.by_query:
        raise UsageError("--no_summary (-n) only goes with --by_query (-q)")
    if args.thresholds and (args.by_query or args.output_format == "trec"):
        raise UsageError("--thresholds prints per-run tables: use it without -q and with -o tsv, csv or jsonl")
    run_paths, measures = split_inputs(args.inputs)
    qrels = load_qrels(args.qrels)
    check_label_types(qrels, measures, args.provider)
    runs = {path: read_run(path) for path in run_paths}
    qrels_queries = set(qrels["query_id"])
    for path, frame in runs.items():
        if len(frame) and qrels_queries.isdisjoint(frame["query_id"]):
            warn(f"run {path} shares no query with the qrels {args.qrels}; every query scores 0")
    if args.thresholds:
        write_thresholds(threshold_table(qrels, runs, measures), args, out)
        return 0
    calc_obj = ir_measures.providers.registry[args.provider] if args.provider else ir_measures.DefaultPipeline
    unsupported = [str(m) for m in measures if not calc_obj.supports(m)]
    if unsupported:
        by = f"provider {args.provider}" if args.provider else "any installed ir_measures provider"
        raise UsageError(f"{', '.join(unsupported)} cannot be computed by {by}")
    evaluator = calc_obj.evaluator(measures, qrels)
    results = []
    for path, frame in runs.items():
        for metric in evaluator.iter_calc(frame):
            results.append((path, metric.query_id, str(metric.measure), metric.value))
    table = pd.DataFrame(results, columns=COLUMNS, dtype=object)  # values keep what aggregator() needs
    write_results(table, [str(m) for m in measures], {str(m): m for m in measures}, args, out)
    return 0


def summarise(table: pd.DataFrame, run_names: list[str], names: list[str], by_name: dict) -> pd.DataFrame:
    """Per run and measure (in the order given), the measure's own aggregate over queries, as ir_measures."""
    rows = []
    for run_name in run_names:
        of_run = table[table["run"] == run_name]
        for name in names:
            agg = by_name[name].aggregator()
            for value in of_run.loc[of_run["measure"] == name, "value"]:
                agg.add(value)
            rows.append((run_name, SUMMARY_QID, name, agg.result()))
    return pd.DataFrame(rows, columns=COLUMNS)


def threshold_table(qrels: pd.DataFrame, runs: dict[str, pd.DataFrame], measures: list) -> pd.DataFrame:
    mu = [m for m in measures if isinstance(m, GradedMeasure) and m.NAME in ("muAP", "muP")] or [muMAP]
    rows = []
    for path, frame in runs.items():
        for measure in mu:
            levels = by_level(measure, qrels, frame)
            label = "MAP" if measure.NAME == "muAP" else f"P@{measure['cutoff']}"
            for level, weight, value, _ in levels.itertuples(index=False):
                rows.append((path, f"{label}(rel>={level:g})", level, weight, value))
            collection = measure(levels="collection") if measure.levels() == "query" else measure
            for summary in dict.fromkeys([collection, measure]):
                rows.append((path, str(summary), np.nan, np.nan, summary.calc_aggregate(qrels, frame)))
    return pd.DataFrame(rows, columns=["run", "measure", "level", "weight", "value"])


# --- output ---------------------------------------------------------------------------------------

def fmt(value: float, places: int) -> str:
    if isinstance(value, float) and np.isnan(value):
        return ""
    return repr(value) if places < 0 else f"{value:.{places}f}"


def write_results(table: pd.DataFrame, names: list[str], by_name: dict, args: argparse.Namespace, out: TextIO) -> None:
    run_names = list(dict.fromkeys(table["run"]))
    parts = []
    if args.by_query:
        order = table.assign(_run=table["run"].map({n: i for i, n in enumerate(run_names)}),
                             _measure=table["measure"].map({n: i for i, n in enumerate(names)}))
        parts.append(order.sort_values(["_run", "query_id", "_measure"], kind="stable")[COLUMNS])
    if not args.no_summary:
        parts.append(summarise(table, run_names, names, by_name))
    long = (pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS)).astype({"value": float})
    several = len(run_names) > 1
    places = args.places
    if args.output_format == "jsonl":
        for rec in long.itertuples(index=False):
            item = {"run": rec.run} if several else {}
            if args.by_query:
                item["query_id"] = rec.query_id
            item.update(measure=rec.measure, value=rec.value)
            out.write(json.dumps(item) + "\n")
    elif args.output_format == "trec":
        for run_name in run_names:
            out.write(f"{'runid':<22}\t{SUMMARY_QID}\t{run_name}\n")
            for rec in long[long["run"] == run_name].itertuples(index=False):
                out.write(f"{rec.measure:<22}\t{rec.query_id}\t{fmt(rec.value, places)}\n")
    elif args.output_format == "csv" or several:
        wide = long.pivot_table(index=["run", "query_id"], columns="measure", values="value", sort=False)
        wide = wide.reindex(columns=names).reset_index()
        if not args.by_query:
            wide = wide.drop(columns="query_id")
        sep = "," if args.output_format == "csv" else "\t"
        float_format = None if places < 0 else f"%.{places}f"
        wide.to_csv(out, sep=sep, index=False, float_format=float_format, lineterminator="\n")
    else:  # tsv, one run: exactly the ir_measures command's lines
        for rec in long.itertuples(index=False):
            prefix = f"{rec.query_id}\t" if args.by_query else ""
            out.write(f"{prefix}{rec.measure}\t{fmt(rec.value, places)}\n")


def write_thresholds(table: pd.DataFrame, args: argparse.Namespace, out: TextIO) -> None:
    if args.output_format == "jsonl":
        for rec in table.itertuples(index=False):
            item = rec._asdict()
            for key in ("level", "weight"):
                if np.isnan(item[key]):
                    del item[key]
            out.write(json.dumps(item) + "\n")
        return
    sep = "," if args.output_format == "csv" else "\t"
    float_format = None if args.places < 0 else f"%.{args.places}f"
    shown = table.assign(level=table["level"].map(lambda v: "" if np.isnan(v) else f"{v:g}"),
                         weight=table["weight"].map(lambda v: "" if np.isnan(v) else f"{v:g}"))
    shown.to_csv(out, sep=sep, index=False, float_format=float_format, lineterminator="\n")


def print_demo(out: TextIO) -> None:
    """Evaluate the bundled sample data and print one table per collection."""
    out.write("ir-measures-graded demo: our measures (muAP = µMAP, nDCNG, meanNDCG, meanNDCNG) beside "
              "the standard ones, on bundled data\n")
    with pd.option_context("display.width", 200, "display.max_columns", None,
                           "display.float_format", "{:.4f}".format):
        for title, table in demo_tables().items():
            out.write(f"\n{title}\n{table.to_string()}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
