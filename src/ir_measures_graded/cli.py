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

import argparse
import difflib
import gzip
import json
import math
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import ir_measures
import numpy as np

import ir_measures_graded
from ir_measures_graded import files
from ir_measures_graded._lazy import LazyModule
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.formats import read_run_table
from ir_measures_graded.measures import GradedMeasure

pd = LazyModule("pandas")  # --help and argument errors never load pandas

PROG = "ir-measures-graded"
SUMMARY_QID = "all"
DEFAULT_PLACES = 4
FORMATS = ("tsv", "jsonl", "trec", "csv")
STDIN = "-"
USAGE_ORDER = "the arguments are QRELS RUN [RUN ...] MEASURE [MEASURE ...]"
BREAKDOWN = ("muAP", "muP")  # measures --thresholds breaks down into their per-level parts


class UsageError(Exception):
    """A problem with what the user asked for: printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Evaluate TREC run files with µMAP, NDCNG and every ir_measures measure. "
        f"'{PROG} demo' (or no arguments) evaluates the bundled sample data.",
        epilog="measures of this package (besides every ir_measures measure, e.g. AP, nDCG@10, P@5):\n"
        f"{measures_help()}\n\n"
        "examples:\n"
        f"  {PROG} qrels.txt run.txt muMAP nDCNG@10 AP nDCG@10\n"
        f"  {PROG} qrels.txt run.txt 'muMAP nDCNG@10' -q\n"
        f"  {PROG} qrels.txt runs/*.txt muMAP nDCNG@10 MAP\n"
        f"  {PROG} qrels.txt run.txt muMAP --thresholds\n"
        f"  zcat run.gz | {PROG} qrels.txt - muMAP\n"
        f"  {PROG} ohsumed run.txt muMAP",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", help="TREC qrels file (plain or .gz; real-valued labels allowed) or an ir_datasets id")
    parser.add_argument("inputs", nargs="+", metavar="RUN_OR_MEASURE",
                        help="one or more TREC run files ('-' reads standard input), then one or more "
                        "measures (e.g. muMAP 'nDCNG@10 AP')")
    parser.add_argument("--places", "-p", type=int, default=None,
                        help=f"decimal places (default {DEFAULT_PLACES}; -1: all digits; with -o jsonl, "
                        "values are rounded only when given)")
    parser.add_argument("--by_query", "-q", action="store_true",
                        help="per-query values (in the order ir_measures prints them), then the summary ('all')")
    parser.add_argument("--no_summary", "-n", action="store_true", help="with -q: omit the summary lines")
    parser.add_argument("--output_format", "-o", choices=FORMATS, default="tsv",
                        help="tsv (as ir_measures; a table for several runs), jsonl, trec (trec_eval's "
                        "'measure qid value', run tag from the run file), csv (a table: a row per run)")
    parser.add_argument("--provider", choices=sorted(ir_measures.providers.registry),
                        help="compute every measure with this ir_measures provider")
    parser.add_argument("--thresholds", action="store_true",
                        help="also print, for each muMAP / muP@k asked for, MAP (P@k) at every relevance "
                        "level of the qrels with its weight")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (shown on stderr when it is a terminal)")
    columns = parser.add_argument_group("Parquet / Arrow IPC inputs (default columns query_id, doc_id, score, "
                                        "relevance)")
    columns.add_argument("--query-column", metavar="NAME", help="column holding the query id")
    columns.add_argument("--doc-column", metavar="NAME", help="column holding the doc id")
    columns.add_argument("--score-column", metavar="NAME", help="column holding the run's score")
    columns.add_argument("--relevance-column", metavar="NAME", help="column holding the qrels' label")
    parser.add_argument("--compare", metavar="BASELINE",
                        help="after the results: every other run against this one (path, file name or run tag) "
                        "per measure: mean, delta, paired p-value and the p-value corrected for multiple runs")
    parser.add_argument("--test", choices=("t", "randomization"), default="t",
                        help="with --compare: paired t-test (default, as PyTerrier) or randomization test")
    parser.add_argument("--correction", choices=("holm", "bonferroni", "fdr_bh", "none"), default="holm",
                        help="with --compare: multiple-testing correction across the runs (default holm)")
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {ir_measures_graded.__version__} (ir_measures {ir_measures.__version__})")
    parser.add_argument("--engine", choices=("local", "spark"), default="local",
                        help="local (this process) or spark (inputs read and evaluated by Spark; TREC text or "
                        "Parquet files; needs the 'spark' extra and Java)")
    parser.add_argument("--master", help="with --engine spark: the Spark master URL (default local[*])")
    return parser


def measures_help() -> str:
    """One line per measure of this package: name, aliases and what it is."""
    aliases: dict[str, list[str]] = {}
    graded = {}
    for name, measure in ir_measures.measures.registry.items():
        if isinstance(measure, GradedMeasure):
            graded.setdefault(measure.NAME, measure)
            if name != measure.NAME:
                aliases.setdefault(measure.NAME, []).append(name)
    lines = []
    for name, measure in graded.items():
        cutoff = measure.SUPPORTED_PARAMS.get("cutoff")
        shown = name + ("@k" if cutoff is not None and cutoff.required else "")
        also = f" ({', '.join(aliases[name])})" if name in aliases else ""
        lines.append(f"  {shown + also:<26} {measure.SHORT_DESC}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or (argv[0] == "demo" and not os.path.exists("demo")):
            if len(argv) > 1:
                raise UsageError(f"'demo' takes no arguments (got {' '.join(argv[1:])}); to evaluate files: "
                                 f"{PROG} QRELS RUN [RUN ...] MEASURE [MEASURE ...]")
            print_demo(sys.stdout)
            return 0
        if argv[0] == "compare":
            from ir_measures_graded.meta.cli import main as compare

            return compare(argv[1:])
        if argv[0] == "report":
            from ir_measures_graded.report.cli import main as report

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


# --- arguments ------------------------------------------------------------------------------------

def is_run_input(item: str) -> bool:
    """``-`` or an existing path that is not a directory (regular file, pipe, ``/dev/stdin``, ...)."""
    return item == STDIN or (os.path.exists(item) and not os.path.isdir(item))


def looks_like_path(item: str) -> bool:
    return bool(re.search(r"[/\\]|\.[A-Za-z][\w-]*$", item))


def split_inputs(inputs: list[str]) -> tuple[list[str], list[ir_measures.Measure]]:
    """Run files first, then measures; every mistake in that order gets its own message."""
    runs: list[str] = []
    measures: list[ir_measures.Measure] = []
    for item in inputs:
        if not measures and is_run_input(item):
            if item == STDIN and STDIN in runs:
                raise UsageError("standard input ('-') can be only one of the runs")
            runs.append(item)
            continue
        if os.path.isdir(item):
            raise UsageError(f"run {item} is a directory, not a file")
        try:
            parsed = parse_measures(item)
        except UsageError:
            if measures and is_run_input(item):
                raise UsageError(f"run file {item} comes after the measures; {USAGE_ORDER}") from None
            if not measures and (not runs or looks_like_path(item)):
                raise UsageError(f"run file not found: {item}") from None
            raise
        if not runs:
            raise UsageError(f"{item!r} is a measure, but no run file comes before it; {USAGE_ORDER}")
        measures.extend(m for m in parsed if m not in measures)
    if not measures:
        raise UsageError(f"no measure given after the run file(s) (e.g. muMAP nDCNG@10 AP); {USAGE_ORDER}")
    return runs, measures


def parse_measures(text: str) -> list[ir_measures.Measure]:
    result = []
    for token in text.split():
        try:
            measure = ir_measures.parse_measure(token)
        except NameError:
            raise UsageError(f"unknown measure: {token}{suggest(token)}") from None
        except (ValueError, SyntaxError) as ex:
            raise UsageError(f"cannot parse measure {token!r}: {ex}{minus_hint(token)}") from None
        measure.validate_params()
        result.append(measure)
    return result


def suggest(token: str) -> str:
    name = re.split(r"[(@]", token, maxsplit=1)[0]
    close = difflib.get_close_matches(name, list(ir_measures.measures.registry), n=3, cutoff=0.5)
    close += [n for n in ir_measures.measures.registry if n.lower() == name.lower() and n not in close]
    return f" (did you mean {', '.join(close)}?)" if close else ""


def minus_hint(token: str) -> str:
    """ir_measures' parser reads no minus sign; our measures take the number as a string instead."""
    match = re.search(r"(\w+)\s*=\s*(-[\d.eE+]+)", token)
    if not match:
        return ""
    name, value = match.groups()
    if name in ("floor", "levels"):
        return f" (the measure parser reads no minus sign: write {name}='{value}', quoted)"
    return " (the measure parser reads no minus sign)"


def load_qrels(spec: str, columns: dict[str, str] | None = None) -> Any:
    """Qrels from a file (TREC text, Parquet, Arrow IPC; '-' for standard input) or an ir_datasets id."""
    if os.path.isdir(spec):
        raise UsageError(f"qrels {spec} is a directory, not a file")
    if spec == STDIN or os.path.exists(spec):
        return files.read_qrels_table(spec, columns)
    try:
        import ir_datasets
    except ImportError:
        raise UsageError(f"qrels file not found: {spec} (install ir_datasets to use dataset ids)") from None
    import ir_measures_graded.datasets.ohsumed  # noqa: F401  (registers our collections)

    try:
        dataset = ir_datasets.load(spec)
    except KeyError:
        raise UsageError(f"qrels not found: {spec!r} is neither a file nor an ir_datasets id") from None
    if not dataset.has_qrels():
        raise UsageError(f"ir_datasets id {spec!r} has no qrels")
    return pd.DataFrame(dataset.qrels_iter())


def run_source(spec: str) -> str:
    """What the reader opens for a run argument: ``-`` is standard input."""
    return "/dev/stdin" if spec == STDIN else spec


def check_label_types(qrels: Any, measures: list[ir_measures.Measure], provider: str | None) -> None:
    labels = np.asarray(qrels.column("relevance") if hasattr(qrels, "column") else qrels["relevance"],
                        dtype=np.float64)
    if np.all(labels == np.round(labels)):
        return
    integer_only = [str(m) for m in measures if provider not in (None, "graded") or not isinstance(m, GradedMeasure)]
    if integer_only:
        raise UsageError(f"the qrels have real-valued labels, which {', '.join(integer_only)} cannot take "
                         "(trec_eval-based measures need integers); muMAP, nDCNG, muP, meanNDCG and "
                         "meanNDCNG accept them")


def check_options(args: argparse.Namespace, measures: list[ir_measures.Measure]) -> None:
    if args.no_summary and not args.by_query:
        raise UsageError("--no_summary (-n) only goes with --by_query (-q)")
    if args.places is not None and args.places < -1:
        raise UsageError(f"--places (-p) must be -1 (all digits) or at least 0, got {args.places}")
    if args.compare is not None and len(split_inputs(args.inputs)[0]) < 2:
        raise UsageError("--compare needs at least two runs: the baseline and one to compare with it")
    if args.thresholds and not broken_down(measures):
        raise UsageError("--thresholds breaks down muMAP (muAP) or muP@k: add one of them to the measures")


def broken_down(measures: list[ir_measures.Measure]) -> list[GradedMeasure]:
    return [m for m in measures if isinstance(m, GradedMeasure) and m.NAME in BREAKDOWN]


# --- evaluation -----------------------------------------------------------------------------------

@dataclass
class RunResult:
    """One run's values: per query in the order the evaluator yields them, and the summary."""

    name: str
    tag: str
    per_query: list[ir_measures.Metric]
    summary: dict[ir_measures.Measure, float]


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.engine == "spark":
        from ir_measures_graded.spark import run_cli
        return run_cli(args, out)
    run_paths, measures = split_inputs(args.inputs)
    check_options(args, measures)
    qrels = load_qrels(args.qrels, files.qrels_columns(args))
    check_label_types(qrels, measures, args.provider)
    check_supported(measures, args.provider)
    if not (qrels.num_rows if hasattr(qrels, "num_rows") else len(qrels)):
        warn(f"the qrels {args.qrels} hold no judgments: every measure is undefined (nan), as in ir_measures")
    kept: dict[str, Any] = {}  # runs as read, for --thresholds and run tags
    results = collect(evaluate_runs(qrels, run_paths, measures, args, kept), run_paths, measures, kept)
    write_results(results, measures, args, out)
    if args.thresholds:
        write_breakdown(breakdown_table(qrels, run_paths, kept, measures), args, out)
    if args.compare is not None:
        write_comparison(comparison_table(results, measures, args), args, out)
    return 0


def check_supported(measures: list[ir_measures.Measure], provider: str | None) -> None:
    calc_obj = ir_measures.providers.registry[provider] if provider else ir_measures.DefaultPipeline
    # Ours first: asking the pipeline would initialise (import) every provider before ours.
    ours = (None, "graded")
    unsupported = [str(m) for m in measures
                   if not (provider in ours and isinstance(m, GradedMeasure)) and not calc_obj.supports(m)]
    if unsupported:
        by = f"provider {provider}" if provider else "any installed ir_measures provider"
        raise UsageError(f"{', '.join(unsupported)} cannot be computed by {by}")


def evaluate_runs(qrels: Any, run_paths: list[str], measures: list[ir_measures.Measure], args: argparse.Namespace,
                  kept: dict[str, Any]) -> Iterator[tuple[str, ir_measures.Metric]]:
    """``(run path, Metric)`` for every run, in the order the evaluator yields them.

    The qrels side is prepared once for all runs; our measures stream each run file by query
    batches (see :func:`files.evaluate_runs`). With --thresholds each run read is put in ``kept``.
    """
    def report(path: str, rows: int, matched: int) -> None:
        check_shared_queries(path, args, rows, matched)

    judged = qrels.num_rows if hasattr(qrels, "num_rows") else len(qrels)
    yield from files.evaluate_runs(qrels, [run_source(p) for p in run_paths], measures, args.provider,
                                   columns=files.run_columns(args), progress=not args.quiet,
                                   report=report if judged else None, keep=kept if args.thresholds else None,
                                   names=run_paths)


def check_shared_queries(path: str, args: argparse.Namespace, rows: int, matched: int) -> None:
    """Warn about a run of ``rows`` lines of which ``matched`` queries are in the (non-empty) qrels."""
    if not rows:
        warn(f"run {path} is empty: every query of the qrels scores 0")
    elif not matched:
        warn(f"run {path} shares no query with the qrels {args.qrels}; every query scores 0")


def collect(pairs: Iterator[tuple[str, ir_measures.Metric]], run_paths: list[str],
            measures: list[ir_measures.Measure], kept: dict[str, Any]) -> list[RunResult]:
    """Per run: the values as yielded (values kept as given: an aggregator may need more than a
    float) and each measure's own aggregate, as ``calc_aggregate`` computes it."""
    per_query: dict[str, list[ir_measures.Metric]] = {path: [] for path in run_paths}
    aggregators = {path: {m: m.aggregator() for m in measures} for path in run_paths}
    for path, metric in pairs:
        aggregators[path][metric.measure].add(metric.value)
        per_query[path].append(metric)
    results = [RunResult(path, run_tag(path, kept.get(path)), per_query[path],
                         {m: aggregators[path][m].result() for m in measures}) for path in run_paths]
    name_tags(results)
    return results


def run_tag(path: str, frame: object = None) -> str:
    """The run's own tag: column 6 of its first line (from the file, else the frame), else its path."""
    tag = None
    if path != STDIN and os.path.isfile(path):
        with open(path, "rb") as raw:
            gzipped = raw.read(2) == b"\x1f\x8b"
        opener = gzip.open if gzipped else open
        try:
            with opener(path, "rt", encoding="utf-8", errors="replace") as text:
                first = next((line for line in text if line.strip()), "")
        except (OSError, EOFError):  # the reader reports unreadable files
            first = ""
        fields = first.split()
        tag = fields[5] if len(fields) == 6 else None
    elif isinstance(frame, pd.DataFrame) and "name" in frame.columns and len(frame):
        tag = str(frame["name"].iloc[0])
    return tag if tag and tag.strip() else path


def name_tags(results: list[RunResult]) -> None:
    """Runs whose tags collide are told apart by their paths instead."""
    seen: dict[str, int] = {}
    for result in results:
        seen[result.tag] = seen.get(result.tag, 0) + 1
    for result in results:
        if seen[result.tag] > 1:
            result.tag = result.name


def breakdown_table(qrels: Any, run_paths: list[str], kept: dict[str, Any], measures: list) -> pd.DataFrame:
    """For each run and each muAP / muP@k asked for: MAP^t (P^t@k) at every level, with its weight."""
    frames = []
    for path in run_paths:
        frame = kept[path] if path in kept else read_run_table(run_source(path))
        for measure in broken_down(measures):
            levels = ir_measures_graded.by_level(measure, qrels, frame)
            label = "MAP" if measure.NAME == "muAP" else f"P@{measure['cutoff']}"
            rest = [c for c in levels.columns if c != "value"]  # threshold, weight and whatever by_level adds
            part = pd.DataFrame({"run": path, "of": str(measure),
                                 "measure": [f"{label}(rel>={t:g})" for t in levels[rest[0]]]})
            frames.append(pd.concat([part, levels[rest].reset_index(drop=True),
                                     levels[["value"]].reset_index(drop=True)], axis=1))
    return pd.concat(frames, ignore_index=True)


# --- output ---------------------------------------------------------------------------------------

def fmt(value: float, places: int) -> str:
    """As the ir_measures command: fixed places, or Python's own repr with -1."""
    return f"{value:{'' if places < 0 else f'.{places}f'}}"


def json_value(value: float, places: int | None) -> float | None:
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN
    return round(value, places) if places is not None and places >= 0 else value


def write_results(results: list[RunResult], measures: list[ir_measures.Measure], args: argparse.Namespace,
                  out: TextIO) -> None:
    places = DEFAULT_PLACES if args.places is None else args.places
    several = len(results) > 1
    summary = not args.no_summary
    if args.output_format == "jsonl":
        for result in results:
            for metric in result.per_query if args.by_query else []:
                write_json(out, result.name if several else None, metric.query_id, metric.measure, metric.value,
                           args.places)
            for measure in measures if summary else []:
                write_json(out, result.name if several else None, SUMMARY_QID if args.by_query else None,
                           measure, result.summary[measure], args.places)
    elif args.output_format == "trec":
        for result in results:
            out.write(f"{'runid':<22}\t{SUMMARY_QID}\t{result.tag}\n")
            for metric in result.per_query if args.by_query else []:
                out.write(f"{str(metric.measure):<22}\t{metric.query_id}\t{fmt(metric.value, places)}\n")
            for measure in measures if summary else []:
                out.write(f"{str(measure):<22}\t{SUMMARY_QID}\t{fmt(result.summary[measure], places)}\n")
    elif args.output_format == "csv" or several:
        write_table(results, measures, args, places, out)
    else:  # tsv, one run: exactly the ir_measures command's lines, in its order
        (result,) = results
        for metric in result.per_query if args.by_query else []:
            out.write(f"{metric.query_id}\t{metric.measure}\t{fmt(metric.value, places)}\n")
        for measure in measures if summary else []:
            prefix = f"{SUMMARY_QID}\t" if args.by_query else ""
            out.write(f"{prefix}{measure}\t{fmt(result.summary[measure], places)}\n")


def write_json(out: TextIO, run_name: str | None, query_id: str | None, measure: ir_measures.Measure,
               value: float, places: int | None) -> None:
    item = {} if run_name is None else {"run": run_name}
    if query_id is not None:
        item["query_id"] = query_id
    item.update(measure=str(measure), value=json_value(value, places))
    out.write(json.dumps(item) + "\n")


def write_table(results: list[RunResult], measures: list[ir_measures.Measure], args: argparse.Namespace,
                places: int, out: TextIO) -> None:
    """A row per run (and per query with -q, in the order the queries come), a column per measure."""
    names = [str(m) for m in measures]
    rows = []
    for result in results:
        if args.by_query:
            by_query: dict[str, dict[str, float]] = {}
            for metric in result.per_query:
                by_query.setdefault(metric.query_id, {})[str(metric.measure)] = float(metric.value)
            rows += [{"run": result.name, "query_id": qid, **values} for qid, values in by_query.items()]
        if not args.no_summary:
            summary = {str(m): float(v) for m, v in result.summary.items()}
            rows.append({"run": result.name, **({"query_id": SUMMARY_QID} if args.by_query else {}), **summary})
    columns = ["run", *(["query_id"] if args.by_query else []), *names]
    table = pd.DataFrame(rows, columns=columns)
    sep = "," if args.output_format == "csv" else "\t"
    float_format = None if places < 0 else f"%.{places}f"
    table.to_csv(out, sep=sep, index=False, float_format=float_format, na_rep="nan", lineterminator="\n")


def comparison_table(results: list[RunResult], measures: list[ir_measures.Measure],
                     args: argparse.Namespace) -> pd.DataFrame:
    """``--compare``: every run against the baseline, on the queries of the per-query values (0 where a
    run has no value for a query another run has, as trec_eval's ``-c``)."""
    from ir_measures_graded import meta

    names = {}
    for result in results:
        for key in (result.name, result.tag, os.path.basename(result.name), os.path.basename(result.name).split(".")[0]):
            names.setdefault(key, []).append(result.name)
    matches = list(dict.fromkeys(names.get(args.compare, [])))
    if len(matches) != 1:
        known = ", ".join(r.name for r in results)
        raise UsageError(f"--compare {args.compare!r} {'matches several runs' if matches else 'is none of the runs'}"
                         f" ({known})")
    rows = [(r.name, str(m.query_id), str(m.measure), float(m.value)) for r in results for m in r.per_query]
    table = pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])
    wide = table.pivot_table(index=["measure", "query_id"], columns="run", values="value", sort=False)
    wide = wide.reindex(columns=[r.name for r in results]).fillna(0.0)
    table = wide.stack().rename("value").reset_index()[["run", "query_id", "measure", "value"]]
    order = {str(m): i for i, m in enumerate(measures)}
    table = table.sort_values("measure", key=lambda c: c.map(order), kind="stable")
    return meta.compare_runs(table, matches[0], test=args.test, correction=args.correction)


def write_comparison(table: pd.DataFrame, args: argparse.Namespace, out: TextIO) -> None:
    """The ``--compare`` table after the normal output: a blank line and a table, or more records."""
    places = DEFAULT_PLACES if args.places is None else args.places
    if args.output_format == "jsonl":
        for rec in table.to_dict("records"):
            out.write(json.dumps({"comparison": True, **{k: json_value(v, args.places) if isinstance(v, float)
                                                         else v for k, v in rec.items()}}) + "\n")
        return
    out.write("\n")
    sep = "," if args.output_format == "csv" else "\t"
    float_format = None if places < 0 else f"%.{places}f"
    shown = table.assign(p_value=table["p_value"].map(lambda p: "" if np.isnan(p) else f"{p:.3g}"),
                         p_adjusted=table["p_adjusted"].map(lambda p: "" if np.isnan(p) else f"{p:.3g}"))
    shown.to_csv(out, sep=sep, index=False, float_format=float_format, lineterminator="\n")


def write_breakdown(table: pd.DataFrame, args: argparse.Namespace, out: TextIO) -> None:
    """The per-level parts after the normal output: a blank line and a table, or more records."""
    places = DEFAULT_PLACES if args.places is None else args.places
    if args.output_format == "jsonl":
        for rec in table.to_dict(orient="records"):
            out.write(json.dumps({k: json_value(v, args.places) if k == "value" else plain(v)
                                  for k, v in rec.items()}) + "\n")
        return
    if args.output_format == "trec":
        for rec in table.itertuples(index=False):
            out.write(f"{rec.measure:<22}\t{SUMMARY_QID}\t{fmt(rec.value, places)}\n")
        return
    shown = table.copy()
    for column in shown.columns:
        if column not in ("run", "of", "measure", "value"):
            shown[column] = shown[column].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    sep = "," if args.output_format == "csv" else "\t"
    float_format = None if places < 0 else f"%.{places}f"
    out.write("\n")
    shown.to_csv(out, sep=sep, index=False, float_format=float_format, na_rep="nan", lineterminator="\n")


def plain(value: object) -> object:
    """numpy scalars as Python values, for json."""
    return value.item() if isinstance(value, np.generic) else value


def print_demo(out: TextIO) -> None:
    """Evaluate the bundled sample data and print one table per collection."""
    out.write("ir-measures-graded demo: our measures (muAP = µMAP, nDCNG, meanNDCG, meanNDCNG) beside "
              "the standard ones, on bundled data\n")
    with pd.option_context("display.width", 200, "display.max_columns", None,
                           "display.float_format", "{:.4f}".format):
        from ir_measures_graded.sample import demo_tables

        for title, table in demo_tables().items():
            out.write(f"\n{title}\n{table.to_string()}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
