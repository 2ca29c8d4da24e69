"""Everything the command line writes: results (tsv, trec, jsonl, csv, tables), comparisons, per-threshold
tables and the demo; where each table goes (:class:`Streams`), and the check of every output file before
anything is evaluated (:func:`output_file`). Files are written by :mod:`ir_measures_graded.files`."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from ir_measures_graded.cli.args import UsageError, places_of
from ir_measures_graded.experiments.formats import FORMATS, json_number, number
from ir_measures_graded.files import Inputs, blocked, display, writing

if TYPE_CHECKING:  # pandas is imported where a table is written: --help and argument errors never load it
    import pandas as pd

SUMMARY_QID = "all"


def fmt(value: float, places: int) -> str:
    """As the ir_measures command: fixed places, or Python's own repr with -1 (NaN as ``nan``)."""
    return number(value, places, missing="nan")


def write_results(exp: Any, args: argparse.Namespace, out: TextIO, breakdown: pd.DataFrame | None = None) -> None:
    """An experiment's results in ``args.output_format``: as the ir_measures command (tsv, one run),
    trec_eval's lines (trec; with a breakdown, its lines under each run's), JSON lines, or a table (csv,
    several runs, text, markdown, latex). Measures are named by their labels (as given)."""
    results, measures, label = exp.results, exp.measures, exp.label
    places = places_of(args)  # jsonl: None (every digit) unless -p is given
    several = len(results) > 1
    summary = not args.no_summary
    shown = args.by_query

    def named(metric: Any) -> str:
        return label.get(metric.measure) or str(metric.measure)

    if args.output_format == "jsonl":
        for result in results:
            for metric in result.per_query if shown else []:
                write_json(out, result.name if several else None, metric.query_id, named(metric), metric.value,
                           places, extra_fields(metric))
            for measure in measures if summary else []:
                write_json(out, result.name if several else None, SUMMARY_QID if shown else None,
                           label[measure], result.summary[measure], places)
    elif args.output_format == "trec":
        for result, tag in zip(results, exp.tags, strict=True):
            out.write(f"{'runid':<22}\t{SUMMARY_QID}\t{tag}\n")
            for metric in result.per_query if shown else []:
                out.write(f"{trec_name(named(metric)):<22}\t{metric.query_id}\t{fmt(metric.value, places)}\n")
            for measure in measures if summary else []:
                out.write(f"{trec_name(label[measure]):<22}\t{SUMMARY_QID}\t{fmt(result.summary[measure], places)}\n")
            if breakdown is not None:  # under this run's runid line: each threshold's measure over all queries
                from ir_measures_graded.per_level import single_threshold

                for rec in breakdown[breakdown["run"] == result.name].itertuples(index=False):
                    name = single_threshold(exp.measure(rec.of), rec.threshold)
                    out.write(f"{name:<22}\t{SUMMARY_QID}\t{fmt(rec.all_queries, places)}\n")
    elif args.output_format != "tsv" or several:
        write_table(exp, args, places, out)
    else:  # tsv, one run: exactly the ir_measures command's lines, in its order
        (result,) = results
        for metric in result.per_query if shown else []:
            out.write(f"{metric.query_id}\t{named(metric)}\t{fmt(metric.value, places)}\n")
        for measure in measures if summary else []:
            prefix = f"{SUMMARY_QID}\t" if shown else ""
            out.write(f"{prefix}{label[measure]}\t{fmt(result.summary[measure], places)}\n")


def trec_name(label: str) -> str:
    """A measure as trec_eval prints it: its spelling ``ndcg_cut.10`` is printed ``ndcg_cut_10`` (so the
    lines diff against trec_eval's); any other label as it is."""
    return re.sub(r"^([A-Za-z_]+)\.(?=[0-9])", r"\1_", label) if re.fullmatch(r"[A-Za-z_]+\.[0-9.,]+", label) else label


def write_json(out: TextIO, run_name: str | None, query_id: str | None, measure: str,
               value: float, places: int | None, extra: dict[str, Any] | None = None) -> None:
    item = {} if run_name is None else {"run": run_name}
    if query_id is not None:
        item["query_id"] = query_id
    import json  # here: the text outputs, the default, do not need it

    item.update(measure=str(measure), value=json_number(value, places))
    item.update({k: json_number(v, places) for k, v in (extra or {}).items()})
    out.write(json.dumps(item) + "\n")


def extra_fields(metric: Any) -> dict[str, Any]:
    """What a provider's per-query result holds beside query_id, measure and value (cwl_eval's expected
    utility and costs), as ``python -m ir_measures -o jsonl`` prints it."""
    if not hasattr(metric, "_asdict"):
        return {}
    return {k: v for k, v in metric._asdict().items() if k not in ("query_id", "measure", "value")}


def write_table(exp: Any, args: argparse.Namespace, places: int, out: TextIO) -> None:
    """A row per run (and per query with -q, in the order the queries come), a column per measure."""
    names = list(exp.labels)
    rows = []
    for result in exp.results:
        if args.by_query:
            by_query: dict[str, dict[str, float]] = {}
            for metric in result.per_query:
                name = exp.label.get(metric.measure) or str(metric.measure)
                by_query.setdefault(metric.query_id, {})[name] = float(metric.value)
            rows += [{"run": result.name, "query_id": qid, **values} for qid, values in by_query.items()]
        if not args.no_summary:
            summary = {exp.label[m]: float(v) for m, v in result.summary.items()}
            rows.append({"run": result.name, **({"query_id": SUMMARY_QID} if args.by_query else {}), **summary})
    columns = ["run", *(["query_id"] if args.by_query else []), *names]
    if args.output_format in ("csv", "tsv"):  # no pandas (0.3 s, 65 MiB): the csv module writes what to_csv did
        import csv

        def cell(value: Any) -> str:  # None: a measure without a value for that query
            return fmt(value, places) if isinstance(value, float) or value is None else str(value)

        writer = csv.writer(out, delimiter="," if args.output_format == "csv" else "\t", lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([cell(row.get(c)) for c in columns] for row in rows)
        return
    import pandas as pd

    from ir_measures_graded.experiments import tables

    out.write(tables.render(pd.DataFrame(rows, columns=columns), args.output_format, places))


def write_comparison(comparison: Any, args: argparse.Namespace, out: TextIO) -> None:
    """The comparison against the baseline: tidy in a machine format (tsv, csv, jsonl; tsv after trec's
    lines), the paper's view in text and markdown, the one LaTeX table in latex. What was not tested,
    and why, goes to stderr."""
    from ir_measures_graded.cli.output import warn

    fmt = "tsv" if args.output_format == "trec" else args.output_format
    out.write(comparison.render(fmt, places_of(args), title=f"Against the baseline {comparison.baseline}"))
    for note in comparison.notes:
        warn(note)


#: The breakdown's columns as its human tables head them.
BREAKDOWN_HEADERS = {"at": "at t", "queries": "queries ≥ t", "value": "value (queries ≥ t)",
                     "all_queries": "value (all queries)", "weighted": "value (weighted)",
                     "contribution": "share × value (weighted)"}
BREAKDOWN_LEGEND = (
    "value (queries ≥ t): M^t averaged over the queries with a document judged ≥ t (the paper's MAP^t); "
    "value (all queries): averaged over every judged query, 0 where none is judged ≥ t (for µMAP: AP(rel=t), "
    "trec_eval's -l t map); value (weighted): M^t averaged as the measure averages it, each query weighed by its "
    "weight on t (per-query µMAP: a query's weight on t over the total of its weights; levels='collection': the "
    "value (queries ≥ t), 'collection-all': the value (all queries)); share: the threshold's part of the "
    "measure's weights (per-query µMAP: that query weight averaged over every judged query); share × value "
    "(weighted): the threshold's contribution, what it adds to the run's value, and sum: their total, the run's value.")


def write_breakdown(exp: Any, table: pd.DataFrame, args: argparse.Namespace, out: TextIO) -> None:
    """The per-threshold breakdown (``Experiment.breakdown``): tidy in a machine format; in text,
    markdown and latex with a ``sum`` row per run and measure (its value) and a legend. (With ``-o
    trec`` its lines are part of each run's: :func:`write_results`.)"""
    import pandas as pd

    from ir_measures_graded.experiments import tables

    fmt, places = args.output_format, places_of(args)
    if FORMATS[fmt].machine:
        out.write(tables.machine(table, fmt, places))
        return
    values = exp.aggregates.set_index(["run", "measure"])["value"]
    parts = []
    for (run, of), rows in table.groupby(["run", "of"], sort=False):
        shown = rows.rename(columns={"measure": "at"})
        total = {"run": run, "of": of, "at": "sum", "contribution": float(values[(run, of)])}
        parts += [shown, pd.DataFrame([total])]
    shown = pd.concat(parts, ignore_index=True)[["run", "of", "at", "threshold", "queries", "value", "all_queries",
                                                  "weighted", "share", "contribution"]]
    shown["threshold"] = [f"{t:g}" if t == t else "" for t in shown["threshold"]]
    shown["queries"] = ["" if q != q else str(int(q)) for q in shown["queries"]]
    shown = shown.rename(columns=BREAKDOWN_HEADERS)
    out.write(tables.render(shown, fmt, places, "Per relevance threshold", BREAKDOWN_LEGEND))


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


def read_by(args: argparse.Namespace) -> Inputs:
    """The files the command reads (the qrels, judge B's with ``agree``, the runs, the file behind standard input,
    a ``--groups`` file), by identity: what no file it writes may be."""
    return Inputs.of([args.qrels, getattr(args, "qrels_b", None), *args.inputs, getattr(args, "groups", None)])


def output_file(args: argparse.Namespace, option: str, path: str, does: str) -> None:
    """Before anything is evaluated, a one-line error unless the file ``option`` names can be written
    (not a directory, no file where a folder on its way should be: the folders missing are made) and is
    none of the inputs (under any spelling, symbolic or hard link, or the file standard input was
    redirected from): ``{option} {path} would {does} over the input ...``."""
    why = blocked(path)
    if why:
        raise UsageError(f"{option} {display(path)}: not a file ({why}); give the file's path")
    read_by(args).refuse(path, f"{option} {display(path)} would {does}", "give another file")


class Streams:
    """Where each table goes: standard output, tables separated by a blank line (text, markdown, latex,
    trec; machine formats hold one table there), or with ``--output-dir`` a file per table in that folder
    (``results.tsv``, ``comparison.tsv``, one per section), each written whole or not at all
    (:func:`ir_measures_graded.files.writing`).

    Made before anything is evaluated, with the names of every table the command will write (the one
    list it then writes from): a file among them that is one of the inputs (the qrels, a run or the
    file behind standard input, under any spelling, link or hard link) is refused with one line, and
    nothing is written."""

    def __init__(self, args: argparse.Namespace, out: TextIO, tables: Sequence[str]) -> None:
        self.folder, self.out, self.written = getattr(args, "output_dir", None), out, []
        self.tables = tuple(tables)
        self.suffix = FORMATS[args.output_format].suffix
        if self.folder:
            why = blocked(self.folder, folder=True)
            if why:
                raise UsageError(f"--output-dir {display(self.folder)}: not a folder ({why})")
            inputs = read_by(args)
            for name in self.tables:
                inputs.refuse(self.path(name), f"--output-dir {display(self.folder)} would write {name}.{self.suffix}",
                              "choose another folder")

    def path(self, name: str) -> str:
        """The file of the table ``name`` under ``--output-dir``."""
        return os.path.join(self.folder, f"{name}.{self.suffix}")

    @contextlib.contextmanager
    def table(self, name: str) -> Iterator[TextIO]:
        if name not in self.tables:  # every table is checked before evaluating: one that was not is a bug
            raise ValueError(f"table {name!r} is not among those the command declared: {', '.join(self.tables)}")
        if self.folder:
            with writing(self.path(name)) as stream:
                yield stream
        else:
            if self.written:
                self.out.write("\n")
            yield self.out
        self.written.append(name)
