"""File formats of OHSUMED and LETOR, and finding their files in folders or archives.

Parsing only: nothing here knows about ir_datasets (see :mod:`.ohsumed` for the registration).

- OHSUMED documents (``ohsumed.87`` ... ``ohsumed.91``): SMART-style records. ``.I <n>`` opens a
  record; each following tag line (``.U .S .M .T .P .W .A``) is followed by its content.
- OHSUMED ``queries``: records ``.I <n>``, ``.B`` (patient information), ``.W`` (information need).
- OHSUMED ``judged``: ``query <TAB> UI <TAB> sequential id <TAB> rel1 [<TAB> rel2] [<TAB> rel3]``
  with labels ``d``/``p``/``n`` (definitely / possibly / not relevant).
- LETOR: ``label qid:<q> 1:<v> ... n:<v> #docid = <id> ...`` (for OHSUMED, ``<id>`` is the
  document's sequential ``.I`` number, not its MEDLINE UI).
"""

# No ``from __future__ import annotations`` here: ir_datasets' export and lookup read the record
# types' ``__annotations__`` to decide which fields to print, and skip fields whose type is a string.
import bz2
import gzip
import io
import re
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, NamedTuple

import numpy as np
import pandas as pd

from ir_measures_graded.errors import GradedInputError

JUDGEMENT_LABELS = {"d": 2, "p": 1, "n": 0}
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.Z")


class OhsumedDoc(NamedTuple):
    doc_id: str  # MEDLINE UI (.U)
    seq_id: str  # sequential identifier (.I), which LETOR calls docid
    title: str  # .T
    abstract: str  # .W
    mesh: str  # .M, human-assigned MeSH terms
    authors: str  # .A
    source: str  # .S
    publication_type: str  # .P

    def default_text(self) -> str:
        """title and abstract"""
        return f"{self.title} {self.abstract}".strip()


class OhsumedQuery(NamedTuple):
    query_id: str  # .I
    patient: str  # .B, information about the patient
    text: str  # .W, the information need

    def default_text(self) -> str:
        """the information need"""
        return self.text


class Judgement(NamedTuple):
    query_id: str
    doc_id: str  # MEDLINE UI
    seq_id: str
    labels: tuple[str, ...]  # one to three judges' d / p / n, in file order


_DOC_FIELDS = {".U": "doc_id", ".S": "source", ".M": "mesh", ".T": "title", ".P": "publication_type",
               ".W": "abstract", ".A": "authors"}
_QUERY_FIELDS = {".B": "patient", ".W": "text"}


def _records(lines: Iterator[str], name: str, fields: dict[str, str]) -> Iterator[tuple[str, dict[str, str]]]:
    """(``.I`` value, {field: text}) for each SMART record of a text stream."""
    seq, record, current = None, {}, None
    for lineno, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if line.startswith(".I"):
            if seq is not None:
                yield seq, record
            seq, record, current = line[2:].strip(), {}, None
            if not seq:
                raise GradedInputError(f"{name}:{lineno}: record without an identifier after .I")
        elif len(line) == 2 and line.startswith("."):
            if seq is None:
                raise GradedInputError(f"{name}:{lineno}: field {line} before the first .I record")
            current = fields.get(line)
            if current is None:
                raise GradedInputError(f"{name}:{lineno}: unknown field {line!r} (expected {', '.join(fields)})")
            record.setdefault(current, "")
        elif line.strip():
            if current is None:
                raise GradedInputError(f"{name}:{lineno}: text outside a field: {line.strip()[:60]!r}")
            record[current] = f"{record[current]} {line.strip()}" if record[current] else line.strip()
    if seq is not None:
        yield seq, record


def parse_docs(lines: Iterator[str], name: str) -> Iterator[OhsumedDoc]:
    for seq, record in _records(lines, name, _DOC_FIELDS):
        if not record.get("doc_id"):
            raise GradedInputError(f"{name}: document .I {seq} has no .U (MEDLINE UI)")
        yield OhsumedDoc(seq_id=seq, **{f: record.get(f, "") for f in OhsumedDoc._fields if f != "seq_id"})


def parse_queries(lines: Iterator[str], name: str) -> Iterator[OhsumedQuery]:
    for seq, record in _records(lines, name, _QUERY_FIELDS):
        yield OhsumedQuery(query_id=seq, patient=record.get("patient", ""), text=record.get("text", ""))


def parse_judged(lines: Iterator[str], name: str) -> Iterator[Judgement]:
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        cols = line.rstrip("\r\n").split("\t")
        labels = tuple(c.strip() for c in cols[3:] if c.strip())
        if len(cols) < 4 or not 1 <= len(labels) <= 3 or any(lab not in JUDGEMENT_LABELS for lab in labels):
            raise GradedInputError(
                f"{name}:{lineno}: expected 'query<TAB>UI<TAB>sequential id<TAB>d|p|n' with one to three "
                f"judgements, got {line.strip()!r}")
        yield Judgement(cols[0].strip(), cols[1].strip(), cols[2].strip(), labels)


_LETOR_LINE = re.compile(r"^\s*(\S+)\s+qid:(\S+)\s+([^#]*?)\s*#\s*docid\s*=\s*(\S+)")


@dataclass
class LetorTable:
    """All query-document pairs of a LETOR collection: labels, features (columns 1..n) and ids."""

    query_id: np.ndarray  # str
    letor_doc_id: np.ndarray  # str, as in the file's '#docid = ...'
    label: np.ndarray  # float64
    features: np.ndarray  # float64, shape (pairs, n_features); NaN for LETOR's 'NULL'
    doc_id: np.ndarray = field(default=None)  # str: the id used everywhere else (MEDLINE UI)

    @property
    def n_features(self) -> int:
        return self.features.shape[1]


def parse_letor(lines: Iterator[str], name: str) -> LetorTable:
    qids, docids, labels, rows = [], [], [], []
    n_features = 0
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        match = _LETOR_LINE.match(line)
        if not match:
            raise GradedInputError(f"{name}:{lineno}: not a LETOR line 'label qid:Q 1:v ... #docid = D': "
                                   f"{line.strip()[:80]!r}")
        label, qid, feats, docid = match.groups()
        values = {}
        try:
            for item in feats.split():
                index, value = item.split(":", 1)
                values[int(index)] = np.nan if value == "NULL" else float(value)
            labels.append(float(label))
        except ValueError:
            raise GradedInputError(f"{name}:{lineno}: malformed label or feature in {line.strip()[:80]!r}") from None
        if not values or min(values) < 1:
            raise GradedInputError(f"{name}:{lineno}: features must be numbered from 1: {line.strip()[:80]!r}")
        n_features = max(n_features, max(values))
        qids.append(qid)
        docids.append(docid)
        rows.append(values)
    features = np.full((len(rows), n_features), np.nan)
    for i, values in enumerate(rows):
        features[i, np.fromiter(values.keys(), dtype=np.int64) - 1] = list(values.values())
    return LetorTable(np.asarray(qids, dtype=object), np.asarray(docids, dtype=object),
                      np.asarray(labels, dtype=np.float64), features)


def concat_letor(tables: list[LetorTable], name: str) -> LetorTable:
    """One table from several files (e.g. train, vali, test); a pair given twice must agree."""
    width = max(t.n_features for t in tables)
    features = np.vstack([np.pad(t.features, ((0, 0), (0, width - t.n_features)), constant_values=np.nan)
                          for t in tables])
    table = LetorTable(np.concatenate([t.query_id for t in tables]), np.concatenate([t.letor_doc_id for t in tables]),
                       np.concatenate([t.label for t in tables]), features)
    frame = pd.DataFrame({"q": table.query_id, "d": table.letor_doc_id})
    dup = frame.duplicated(keep="first").to_numpy()
    if dup.any():
        first = frame.drop_duplicates(keep="first").reset_index().set_index(["q", "d"])["index"]
        for row in np.flatnonzero(dup):
            other = first[(table.query_id[row], table.letor_doc_id[row])]
            same = table.label[row] == table.label[other] and np.array_equal(
                table.features[row], table.features[other], equal_nan=True)
            if not same:
                raise GradedInputError(f"{name}: query {table.query_id[row]}, docid {table.letor_doc_id[row]} "
                                       "appears twice with different labels or features")
        keep = ~dup
        table = LetorTable(table.query_id[keep], table.letor_doc_id[keep], table.label[keep], table.features[keep])
    return table


# --- finding files in folders and archives --------------------------------------------------------

@dataclass
class Member:
    """A file found in a folder or inside an archive."""

    name: str  # path relative to the searched folder (archive members: 'archive.zip!inner/path')
    open_binary: Callable[[], IO[bytes]]

    def lines(self) -> Iterator[str]:
        with self.open_binary() as raw:
            stream = gzip.GzipFile(fileobj=raw) if self.name.endswith(".gz") and "!" not in self.name else raw
            with io.TextIOWrapper(stream, encoding="utf-8", errors="replace") as text:
                yield from text


def find_members(folder: Path) -> list[Member]:
    """Every file below ``folder`` and inside the archives there (zip, tar, tar.gz/.bz2/.Z)."""
    members: list[Member] = []
    if not folder.is_dir():
        return members
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if rel.endswith(ARCHIVE_SUFFIXES):
            members.extend(_archive_members(path, rel))
        else:
            members.append(Member(rel, lambda path=path: open(path, "rb")))
    return members


def _archive_members(path: Path, rel: str) -> list[Member]:
    try:
        if rel.endswith(".zip"):
            with zipfile.ZipFile(path) as zf:
                names = [i.filename for i in zf.infolist() if not i.is_dir()]
            return [Member(f"{rel}!{n}", lambda n=n: _zip_open(path, n)) for n in names]
        with _open_tar(path, rel) as tf:
            names = [m.name for m in tf.getmembers() if m.isfile()]
        return [Member(f"{rel}!{n}", lambda n=n: _tar_open(path, rel, n)) for n in names]
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError) as ex:
        raise GradedInputError(f"cannot read archive {path}: {ex}") from None


def _zip_open(path: Path, name: str) -> IO[bytes]:
    zf = zipfile.ZipFile(path)
    return zf.open(name)


def _open_tar(path: Path, rel: str) -> tarfile.TarFile:
    if rel.endswith(".tar.Z"):  # compress(1), as the original OHSUMED distribution
        try:
            import unlzw3
        except ImportError:
            raise GradedInputError(f"{path} is compressed with compress(1): install unlzw3 "
                                   "(pip install unlzw3) or uncompress it") from None
        return tarfile.open(fileobj=io.BytesIO(unlzw3.unlzw(path.read_bytes())))
    if rel.endswith((".tar.bz2",)):
        return tarfile.open(fileobj=bz2.open(path))
    return tarfile.open(path)


def _tar_open(path: Path, rel: str, name: str) -> IO[bytes]:
    tf = _open_tar(path, rel)
    extracted = tf.extractfile(name)
    assert extracted is not None
    return extracted


def basename(member: Member) -> str:
    return member.name.rsplit("!", 1)[-1].rsplit("/", 1)[-1]
