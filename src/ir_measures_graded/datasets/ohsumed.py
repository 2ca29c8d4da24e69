"""OHSUMED (Hersh et al., SIGIR 1994) and its LETOR versions, registered with ir_datasets.

Dataset ids (``ir_datasets.load(...)``):

- ``ohsumed``: 348,566 MEDLINE documents, 106 queries, 16,140 judged pairs (0/1/2).
- ``ohsumed/letor3``: LETOR 3.0 OHSUMED (``QueryLevelNorm``, 45 features) — qrels from LETOR's labels;
  ``ohsumed/letor3/raw``: the same with unnormalised features (``Feature_min``, else ``Feature_null``).
- ``ohsumed/letor2``: LETOR 2.0 OHSUMED (25 features), the version used by Scheel et al. (2011).

Nothing can be downloaded: the files are placed under the ir_datasets home
(``$IR_DATASETS_HOME``, default ``~/.ir_datasets``) — see :data:`PLACEMENT` and the README.
Document ids are MEDLINE UIs everywhere; LETOR's ``#docid`` (the sequential ``.I`` number) is
mapped to the UI through the ``judged`` file (or the documents).
"""

from __future__ import annotations

import functools
import pkgutil
from collections.abc import Iterator
from pathlib import Path

import ir_datasets
import numpy as np
import pandas as pd
from ir_datasets.datasets.base import Dataset, YamlDocumentation
from ir_datasets.formats import BaseDocs, BaseQrels, BaseQueries, TrecQrel
from ir_datasets.indices import DEFAULT_DOCSTORE_OPTIONS, PickleLz4FullStore

from ir_measures_graded.datasets import letor
from ir_measures_graded.datasets.letor import JUDGEMENT_LABELS, LetorTable, OhsumedDoc, OhsumedQuery
from ir_measures_graded.errors import GradedInputError
from ir_measures_graded.io.columns import integral_labels

NAME = "ohsumed"
DOC_FILES = tuple(f"ohsumed.{year}" for year in range(87, 92))
QRELS_DEFS = {0: "not relevant", 1: "possibly relevant", 2: "definitely relevant"}
OHSUMED_SOURCE = ("the OHSUMED test collection (W. Hersh, Oregon Health & Science University), e.g. from "
                  "the TREC-9 Filtering Track data page (trec.nist.gov/data/t9_filtering.html)")
LETOR_SOURCE = "LETOR (Microsoft Research, www.microsoft.com/en-us/research/project/letor-learning-rank-information-retrieval)"

#: Where each dataset looks for its files, below the ir_datasets home.
PLACEMENT = {
    "ohsumed": ("ohsumed/", f"{', '.join(DOC_FILES)}, queries, judged (each plain or .gz), or archives "
                "holding them (.tar, .tar.gz, .tgz, .zip; .tar.Z with unlzw3)", OHSUMED_SOURCE),
    "letor3": ("ohsumed/letor3/", "LETOR 3.0's OHSUMED folder (QueryLevelNorm/Fold1/{train,vali,test}.txt, "
               "Feature_min/... for ohsumed/letor3/raw), extracted or as a .zip/.tar.gz archive", LETOR_SOURCE),
    "letor2": ("ohsumed/letor2/", "LETOR 2.0's OHSUMED folder (Fold1/ with its training, validation and test "
               "files), extracted or as a .zip/.tar.gz archive", LETOR_SOURCE),
}


def home() -> Path:
    return ir_datasets.util.home_path() / NAME


def _missing(kind: str, what: str) -> GradedInputError:
    folder, files, source = PLACEMENT[kind]
    return GradedInputError(
        f"{what} not found: place {files} in {ir_datasets.util.home_path() / folder} "
        f"(the ir_datasets home is $IR_DATASETS_HOME, default ~/.ir_datasets). Published by {source}.")


def _original_members(*names: str) -> list[letor.Member]:
    """The original distribution's files ``names``, found in one scan of the folder (archives listed once)."""
    found: dict[str, letor.Member] = {}
    for member in letor.find_members(home()):
        if "/" in member.name.split("!")[0] and not member.name.split("!")[0].endswith(letor.ARCHIVE_SUFFIXES):
            continue  # files in sub-folders (letor2/, letor3/) belong to other datasets
        for name in names:
            if name not in found and letor.basename(member) in (name, f"{name}.gz", f"{name}.txt"):
                found[name] = member
    for name in names:
        if name not in found:
            raise _missing("ohsumed", f"OHSUMED file {name!r}")
    return [found[name] for name in names]


class OhsumedDocs(BaseDocs):
    def docs_iter(self) -> Iterator[OhsumedDoc]:
        for member in _original_members(*DOC_FILES):
            yield from letor.parse_docs(member.lines(), member.name)

    def docs_cls(self) -> type:
        return OhsumedDoc

    def docs_store(self, field: str = "doc_id", options=DEFAULT_DOCSTORE_OPTIONS) -> PickleLz4FullStore:
        return PickleLz4FullStore(
            path=str(home() / "docs.pklz4"),
            init_iter_fn=self.docs_iter,
            data_cls=self.docs_cls(),
            lookup_field=field,
            index_fields=["doc_id"],
            options=options,
        )

    def docs_count(self) -> int | None:
        store = self.docs_store()
        return store.count() if store.built() else None

    def docs_namespace(self) -> str:
        return NAME

    def docs_lang(self) -> str:
        return "en"


class OhsumedQueries(BaseQueries):
    def queries_iter(self) -> Iterator[OhsumedQuery]:
        (member,) = _original_members("queries")
        yield from letor.parse_queries(member.lines(), member.name)

    def queries_cls(self) -> type:
        return OhsumedQuery

    def queries_store(self) -> QueryStore:
        return QueryStore(self.queries_iter())

    def queries_namespace(self) -> str:
        return NAME

    def queries_lang(self) -> str:
        return "en"


class QueryStore:
    """``queries_store()`` for ir_datasets' ``lookup --qid``: OHSUMED's 106 queries held in a dict."""

    def __init__(self, queries: Iterator[OhsumedQuery]):
        self._by_id = {query.query_id: query for query in queries}

    def get(self, query_id: str, field: str = "query_id") -> OhsumedQuery:
        return self._by_id[query_id]  # KeyError for an unknown id, as ir_datasets' stores

    def get_many(self, query_ids: Iterator[str], field: str = "query_id") -> dict[str, OhsumedQuery]:
        return {qid: self._by_id[qid] for qid in query_ids if qid in self._by_id}


def judgements() -> Iterator[letor.Judgement]:
    (member,) = _original_members("judged")
    yield from letor.parse_judged(member.lines(), member.name)


class OhsumedQrels(BaseQrels):
    """Qrels from ``judged``: the first (original) judgement of each pair, d/p/n -> 2/1/0.

    The first judgement is the one the collection's own drel/pdrel files use; the second and third
    were made to measure agreement between judges (or judged pairs found later by SMART).
    """

    def qrels_iter(self) -> Iterator[TrecQrel]:
        for j in judgements():
            yield TrecQrel(j.query_id, j.doc_id, JUDGEMENT_LABELS[j.labels[0]], "0")

    def qrels_cls(self) -> type:
        return TrecQrel

    def qrels_defs(self) -> dict[int, str]:
        return QRELS_DEFS


class LetorQrels(BaseQrels):
    """Qrels from LETOR's labels (0/1/2 for OHSUMED), document ids mapped to MEDLINE UIs."""

    def __init__(self, version: str, variant: str):
        self.version, self.variant = version, variant

    def table(self) -> LetorTable:
        return letor_table(self.version, self.variant)

    def qrels_iter(self) -> Iterator[TrecQrel]:
        table = self.table()
        for qid, did, label in zip(table.query_id, table.doc_id, table.label, strict=True):
            yield TrecQrel(qid, did, int(label) if float(label).is_integer() else float(label), "0")

    def qrels_cls(self) -> type:
        return TrecQrel

    def qrels_defs(self) -> dict[int, str]:
        return QRELS_DEFS


def _letor_files(version: str, variant: str) -> list[letor.Member]:
    folder = home() / version
    members = letor.find_members(folder)
    fold1 = [m for m in members if "/fold1/" in f"/{m.name.lower().replace('!', '/')}"]
    if version == "letor3":
        wanted = {"QueryLevelNorm": ("querylevelnorm",), "raw": ("feature_min", "feature_null")}[variant]
        for folder_name in wanted:
            chosen = [m for m in fold1 if f"/{folder_name}/" in f"/{m.name.lower().replace('!', '/')}"]
            if chosen:
                fold1 = chosen
                break
        else:
            fold1 = []
    files = [m for m in fold1 if letor.basename(m).lower().startswith(("train", "vali", "test"))]
    if not files:
        raise _missing(version, f"LETOR {version[-1]}.0 OHSUMED files ({variant}, Fold1)")
    return files


@functools.lru_cache(maxsize=8)
def _cached_table(version: str, variant: str, home_dir: str) -> LetorTable:
    files = _letor_files(version, variant)
    table = letor.concat_letor([letor.parse_letor(m.lines(), m.name) for m in files], f"{home_dir}/{version}")
    # queries in numeric order (the folds split them arbitrarily), pairs in file order within a query
    order = np.argsort([int(q) if q.isdigit() else -1 for q in table.query_id], kind="stable")
    table = LetorTable(table.query_id[order], table.letor_doc_id[order], table.label[order], table.features[order])
    table.doc_id = _ui_of(table.letor_doc_id)
    for array in (table.query_id, table.letor_doc_id, table.label, table.features, table.doc_id):
        array.flags.writeable = False  # shared by every caller of this cache: read-only
    return table


def letor_table(version: str, variant: str = "QueryLevelNorm") -> LetorTable:
    """All query-document pairs of a LETOR OHSUMED version (parsed once per process)."""
    return _cached_table(version, variant, str(home()))


def _ui_of(seq_ids: np.ndarray) -> np.ndarray:
    """MEDLINE UIs of LETOR's docids (OHSUMED sequential ids), through ``judged`` or the documents."""
    try:
        pairs = {j.seq_id: j.doc_id for j in judgements()}
    except GradedInputError:
        try:
            pairs = {d.seq_id: d.doc_id for d in OhsumedDocs().docs_iter()}
        except GradedInputError:
            raise _missing("ohsumed", "OHSUMED 'judged' file (or the documents), needed to map LETOR's "
                           "docids (sequential .I numbers) to MEDLINE UIs,") from None
    unknown = [s for s in dict.fromkeys(seq_ids) if s not in pairs]
    if unknown:
        raise GradedInputError(f"LETOR docid(s) {unknown[:5]} have no MEDLINE UI in the OHSUMED files under {home()}")
    return np.asarray([pairs[s] for s in seq_ids], dtype=object)


LETOR_DATASETS = {
    "ohsumed/letor3": ("letor3", "QueryLevelNorm"),
    "ohsumed/letor3/raw": ("letor3", "raw"),
    "ohsumed/letor2": ("letor2", "QueryLevelNorm"),
}


def _letor_of(dataset: str | LetorTable) -> tuple[LetorTable, str]:
    if isinstance(dataset, LetorTable):
        return dataset, "the LETOR table"
    if dataset not in LETOR_DATASETS:
        raise GradedInputError(f"{dataset!r} is not a LETOR dataset; use one of {', '.join(LETOR_DATASETS)}")
    return letor_table(*LETOR_DATASETS[dataset]), dataset


def _feature(table: LetorTable, name: str, feature: int) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(feature, bool) or not isinstance(feature, (int, np.integer)) or not 1 <= feature <= table.n_features:
        raise GradedInputError(f"{name} has features 1..{table.n_features}, not {feature!r}")
    values = table.features[:, feature - 1]
    known = ~np.isnan(values)  # LETOR's NULL: the pair has no value for this feature
    return values, known


def feature_run(dataset: str | LetorTable, feature: int) -> pd.DataFrame:
    """A run ranking each query's LETOR documents by feature ``feature`` (1-based): a retrieval strategy.

    ``dataset`` is a LETOR dataset id (``'ohsumed/letor3'``, ...) or a :class:`LetorTable`.
    """
    table, name = _letor_of(dataset)
    values, known = _feature(table, name, feature)
    return pd.DataFrame({"query_id": table.query_id[known], "doc_id": table.doc_id[known], "score": values[known]})


def feature_qrels(dataset: str | LetorTable, feature: int) -> pd.DataFrame:
    """Qrels whose labels are feature ``feature``'s values: the paper's "virtual user" (real-valued)."""
    table, name = _letor_of(dataset)
    values, known = _feature(table, name, feature)
    return pd.DataFrame({"query_id": table.query_id[known], "doc_id": table.doc_id[known],
                         "relevance": values[known]})


def label_qrels(dataset: str | LetorTable) -> pd.DataFrame:
    """Qrels from LETOR's own labels (the experts' 0/1/2), as a DataFrame."""
    table, _ = _letor_of(dataset)
    labels = table.label.astype(np.int64) if integral_labels(table.label) else table.label
    return pd.DataFrame({"query_id": table.query_id, "doc_id": table.doc_id, "relevance": labels})


class _PackageYamlDocumentation(YamlDocumentation):
    """ir_datasets' YAML documentation, read from this package instead of ir_datasets'."""

    def get_key(self, key: str):
        if not self._contents:
            yaml = ir_datasets.lazy_libs.yaml()
            self._contents = yaml.load(pkgutil.get_data(__package__, self._file), Loader=yaml.BaseLoader)
        return self._contents.get(key)


#: Dataset ids this module registered with ir_datasets (removed again by :func:`unregister`).
_registered: list[str] = []


def register() -> None:
    """Register OHSUMED and its LETOR versions with ir_datasets (once; importing this module does it)."""
    if NAME in ir_datasets.registry._registered:  # importing twice is harmless
        return
    documentation = _PackageYamlDocumentation("ohsumed.yaml")
    docs, queries = OhsumedDocs(), OhsumedQueries()
    ir_datasets.registry.register(NAME, Dataset(docs, queries, OhsumedQrels(), documentation("_")))
    _registered.append(NAME)
    for dataset_id, (version, variant) in LETOR_DATASETS.items():
        ir_datasets.registry.register(dataset_id, Dataset(
            docs, queries, LetorQrels(version, variant), documentation(dataset_id.split("/", 1)[1])))
        _registered.append(dataset_id)


def unregister() -> None:
    """Remove what :func:`register` added to ir_datasets' registry."""
    while _registered:
        ir_datasets.registry._registered.pop(_registered.pop(), None)


register()
