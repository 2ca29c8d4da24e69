"""Everything the command line writes: results (tsv, trec, jsonl, csv, tables), comparisons, per-threshold
tables and the demo (the meta-evaluation report's tables: meta.tables)."""

from __future__ import annotations

import argparse
import contextlib
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

import ir_measures
import numpy as np

from ir_measures_graded.cli.args import DEFAULT_PLACES, SECTIONS, STANDARD_INPUT, UsageError

if TYPE_CHECKING:  # pandas is imported where a table is written: --help and argument errors never load it
    import pandas as pd

SUMMARY_QID = "all"


def fmt(value: float, places: int) -> str:
    """As the ir_measures command: fixed places, or Python's own repr with -1."""
    return f"{value:{'' if places < 0 else f'.{places}f'}}"


def json_value(value: float, places: int | None) -> float | None:
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN
    return round(value, places) if places is not None and places >= 0 else value


def write_results(exp: Any, args: argparse.Namespace, out: TextIO) -> None:
    """An experiment's results in ``args.output_format``: as the ir_measures command (tsv, one run),
    trec_eval's lines (trec), JSON lines, or a table (csv, several runs, text, markdown, latex)."""
    results, measures = exp.results, exp.measures
    places = DEFAULT_PLACES if args.places is None else args.places
    several = len(results) > 1
    summary = not args.no_summary
    if args.output_format == "jsonl":
        for result in results:
            for metric in result.per_query if args.by_query else []:
                write_json(out, result.name if several else None, metric.query_id, metric.measure, metric.value,
                           args.places, extra_fields(metric))
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
            if args.thresholds and result.levels is not None:  # under this run's runid line, not after the last
                for rec in result.levels.itertuples(index=False):
                    out.write(f"{rec.measure:<22}\t{SUMMARY_QID}\t{fmt(rec.value, places)}\n")
    elif args.output_format != "tsv" or several:
        write_table(results, measures, args, places, out)
    else:  # tsv, one run: exactly the ir_measures command's lines, in its order
        (result,) = results
        for metric in result.per_query if args.by_query else []:
            out.write(f"{metric.query_id}\t{metric.measure}\t{fmt(metric.value, places)}\n")
        for measure in measures if summary else []:
            prefix = f"{SUMMARY_QID}\t" if args.by_query else ""
            out.write(f"{prefix}{measure}\t{fmt(result.summary[measure], places)}\n")


def write_json(out: TextIO, run_name: str | None, query_id: str | None, measure: ir_measures.Measure,
               value: float, places: int | None, extra: dict[str, Any] | None = None) -> None:
    item = {} if run_name is None else {"run": run_name}
    if query_id is not None:
        item["query_id"] = query_id
    import json  # here: the text outputs, the default, do not need it

    item.update(measure=str(measure), value=json_value(value, places))
    item.update({k: json_value(v, places) for k, v in (extra or {}).items()})
    out.write(json.dumps(item) + "\n")


def extra_fields(metric: Any) -> dict[str, Any]:
    """What a provider's per-query result holds beside query_id, measure and value (cwl_eval's expected
    utility and costs), as ``python -m ir_measures -o jsonl`` prints it."""
    if not hasattr(metric, "_asdict"):
        return {}
    return {k: v for k, v in metric._asdict().items() if k not in ("query_id", "measure", "value")}


def write_table(results: list[Any], measures: list[ir_measures.Measure], args: argparse.Namespace,
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
    if args.output_format in ("csv", "tsv"):  # no pandas (0.3 s, 65 MiB): the csv module writes what to_csv did
        import csv

        def cell(value: Any) -> str:
            if isinstance(value, float):
                return "nan" if value != value else repr(value) if places < 0 else f"{value:.{places}f}"
            return "nan" if value is None else str(value)  # a measure without a value for that query

        writer = csv.writer(out, delimiter="," if args.output_format == "csv" else "\t", lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([cell(row.get(c)) for c in columns] for row in rows)
        return
    import pandas as pd

    table = pd.DataFrame(rows, columns=columns)
    if args.output_format in ("text", "markdown", "latex"):
        from ir_measures_graded.experiment import tables

        out.write(tables.render(table, args.output_format, places))
        return
    sep = "," if args.output_format == "csv" else "\t"
    float_format = None if places < 0 else f"%.{places}f"
    table.to_csv(out, sep=sep, index=False, float_format=float_format, na_rep="nan", lineterminator="\n")



def write_comparison(comparison: Any, args: argparse.Namespace, out: TextIO) -> None:
    """The comparison against the baseline: tidy in a machine format (tsv, csv, jsonl; tsv after trec's
    lines), the paper's view in text, markdown and latex. What was not tested, and why, goes to stderr."""
    from ir_measures_graded.cli import warn

    fmt = args.output_format
    if fmt in ("tsv", "csv", "jsonl"):  # values as the results: -p places (jsonl: as computed unless given)
        out.write(comparison.render(fmt, args.places if fmt == "jsonl" or args.places is not None else DEFAULT_PLACES))
    else:
        out.write(comparison.render("tsv" if fmt == "trec" else fmt, DEFAULT_PLACES if args.places is None else args.places,
                                    title=f"Against the baseline {comparison.baseline}"))
    for note in comparison.notes:
        warn(note)


def write_breakdown(table: pd.DataFrame, args: argparse.Namespace, out: TextIO) -> None:
    """The per-level table (with ``-o trec`` these are part of each run's lines: :func:`write_results`)."""
    import json

    places = DEFAULT_PLACES if args.places is None else args.places
    if args.output_format == "jsonl":
        for rec in table.to_dict(orient="records"):
            out.write(json.dumps({k: json_value(v, args.places) if k == "value" else plain(v)
                                  for k, v in rec.items()}) + "\n")
        return
    shown = table.copy()
    for column in shown.columns:
        if column not in ("run", "of", "measure", "value"):
            shown[column] = shown[column].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    if args.output_format in ("text", "markdown", "latex"):
        from ir_measures_graded.experiment import tables

        out.write(tables.render(shown, args.output_format, places, "Per relevance threshold"))
        return
    sep = "," if args.output_format == "csv" else "\t"
    float_format = None if places < 0 else f"%.{places}f"
    shown.to_csv(out, sep=sep, index=False, float_format=float_format, na_rep="nan", lineterminator="\n")


def plain(value: object) -> object:
    """numpy scalars as Python values, for json."""
    return value.item() if isinstance(value, np.generic) else value


def print_demo(out: TextIO) -> None:
    """Evaluate the bundled sample data and print one table per collection."""
    out.write("ir-measures-graded demo: our measures (muAP = µMAP, nDCNG, meanNDCG, meanNDCNG) beside "
              "the standard ones, on bundled data\n")
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", None,
                           "display.float_format", "{:.4f}".format):
        from ir_measures_graded.sample import demo_tables

        for title, table in demo_tables().items():
            out.write(f"\n{title}\n{table.to_string()}\n")


def input_at(args: argparse.Namespace, path: str, writing: str, instead: str) -> None:
    """A UsageError ``writing`` ``over the input ...``, ``instead``, when ``path`` is the qrels or a run
    (under any spelling, symbolic or hard link): every file a command writes is checked here, before
    anything is evaluated (inputs are never written)."""
    import os

    from ir_measures_graded.experiment.naming import display

    if not os.path.exists(path):
        return
    for given in [args.qrels, *args.inputs]:  # the runs (and measures: no file)
        if given not in STANDARD_INPUT and os.path.isfile(given) and os.path.samefile(path, given):
            raise UsageError(f"{writing} over the input {display(given)}: {instead} (inputs are never written)")


class Streams:
    """Where each table goes: standard output, tables separated by a blank line (text, markdown, latex,
    trec; machine formats hold one table there), or with ``--output-dir`` a file per table in that folder
    (``results.tsv``, ``thresholds.tsv``, ``comparison.tsv``, one per ``compare`` section).

    Made before anything is evaluated: a file it may write that is one of the inputs (the qrels or a
    run, under any spelling, link or hard link) is refused with one line, and nothing is written."""

    SUFFIX = {"text": "txt", "markdown": "md", "latex": "tex", "trec": "txt"}
    #: Every table a command writes (a file each with ``--output-dir``).
    TABLES = ("results", "thresholds", "comparison", *SECTIONS)

    def __init__(self, args: argparse.Namespace, out: TextIO) -> None:
        self.folder, self.out, self.written = getattr(args, "output_dir", None), out, []
        self.suffix = self.SUFFIX.get(args.output_format, args.output_format)
        if self.folder:
            import os

            from ir_measures_graded.experiment.naming import display

            for name in self.TABLES:
                input_at(args, os.path.join(self.folder, f"{name}.{self.suffix}"),
                         f"--output-dir {display(self.folder)} would write {name}.{self.suffix}",
                         "choose another folder")
            os.makedirs(self.folder, exist_ok=True)

    @contextlib.contextmanager
    def table(self, name: str) -> Iterator[TextIO]:
        if self.folder:
            import os

            path = os.path.join(self.folder, f"{name}.{self.suffix}")
            with open(path, "w", encoding="utf-8", newline="") as stream:
                yield stream
        else:
            if self.written:
                self.out.write("\n")
            yield self.out
        self.written.append(name)
