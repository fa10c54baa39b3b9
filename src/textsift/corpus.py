"""Corpus readers: JSONL (plain or gzip), CSV and Parquet by extension; the aclImdb and
20news-bydate directory layouts; and the small real samples shipped with the package.

A :class:`Corpus` is a table of records (a pandas DataFrame) plus the names of its text and
label fields. Every reader raises a :class:`CorpusError` that names the file (and line, for
JSONL) and says what to do.
"""

from __future__ import annotations

import gzip
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import TextsiftError

__all__ = [
    "SAMPLES",
    "Corpus",
    "CorpusError",
    "iter_jsonl",
    "load_sample",
    "numeric_labels",
    "read_corpus",
    "read_table",
    "select_records",
]

#: Bundled samples: name -> (file, text field, label field, description with source).
SAMPLES = {
    "20ng": (
        "sample_20ng.jsonl.gz",
        "text",
        "label",
        "20 Newsgroups (bydate): 100 training and 40 test messages per newsgroup, 20 classes",
    ),
    "reviews": (
        "sample_reviews.jsonl.gz",
        "text",
        "rating",
        "Women's E-Commerce Clothing Reviews (Brooks, Kaggle 2018): 3,000 reviews, 1-5 stars",
    ),
}


class CorpusError(TextsiftError):
    """A corpus cannot be read or used as asked; the message says why and what to do."""


@dataclass
class Corpus:
    """Records of a corpus and which fields hold the text and the label."""

    frame: pd.DataFrame
    text_field: str = "text"
    label_field: str | None = "label"
    source: str = ""

    def __len__(self) -> int:
        return len(self.frame)

    @property
    def texts(self) -> list[str]:
        return self.frame[self.text_field].tolist()

    @property
    def labels(self) -> np.ndarray:
        if self.label_field is None:
            raise CorpusError(f"{self.source}: no label field was given; pass --label-field")
        return self.frame[self.label_field].to_numpy()

    def subset(self, mask) -> Corpus:
        return Corpus(self.frame[mask].reset_index(drop=True), self.text_field, self.label_field,
                      self.source)


# --------------------------------------------------------------------------- low-level readers
def _open_bytes(path: Path):
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def iter_jsonl(path, on_bad_line: str = "error", bad_lines: list | None = None) -> Iterator[dict]:
    """Yield the JSON objects of a JSONL file (``.gz`` transparently), lazily.

    Undecodable bytes or malformed JSON raise :class:`CorpusError` naming the file and line;
    with ``on_bad_line="skip"`` such lines are skipped and their numbers appended to
    ``bad_lines`` (when given).
    """
    path = Path(path)
    if on_bad_line not in ("error", "skip"):
        raise ValueError("on_bad_line must be 'error' or 'skip'")
    with _open_bytes(path) as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
                if not line.strip():
                    continue
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise ValueError("a JSONL line must hold a JSON object")
            except UnicodeDecodeError as exc:
                problem = f"undecodable bytes (not UTF-8: {exc.reason} at byte {exc.start})"
            except ValueError as exc:
                problem = f"malformed JSON ({exc})"
            else:
                yield record
                continue
            if on_bad_line == "skip":
                if bad_lines is not None:
                    bad_lines.append(lineno)
                continue
            raise CorpusError(
                f"{path}, line {lineno}: {problem}. Fix or remove the line, re-encode the file "
                "as UTF-8, or skip bad lines (on_bad_line='skip' / --skip-bad-lines)"
            )


def read_table(path, on_bad_line: str = "error", bad_lines: list | None = None) -> pd.DataFrame:
    """Read a JSONL, CSV or Parquet file (chosen by extension) into a DataFrame.

    ``on_bad_line`` and ``bad_lines`` apply to JSONL (see :func:`iter_jsonl`)."""
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"{path}: no such file or directory; check the path")
    name = path.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz", ".json.gz", ".json")):
        return pd.DataFrame.from_records(list(iter_jsonl(path, on_bad_line, bad_lines)))
    if name.endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz")):
        sep = "\t" if ".tsv" in name else ","
        try:
            with _open_bytes(path) as fh:
                text = fh.read().decode("utf-8")
        except UnicodeDecodeError as exc:
            line = fh_line_of_offset(path, exc.start)
            raise CorpusError(
                f"{path}, line {line}: undecodable bytes (not UTF-8); re-encode the file as UTF-8"
            ) from None
        return pd.read_csv(io.StringIO(text), sep=sep, keep_default_na=False, na_values=[""])
    if name.endswith((".parquet", ".pq")):
        return pd.read_parquet(path)
    raise CorpusError(
        f"{path}: unknown file type; use .jsonl(.gz), .csv(.gz), .tsv or .parquet, "
        "or an aclImdb / 20news-bydate directory"
    )


def fh_line_of_offset(path: Path, offset: int) -> int:
    with _open_bytes(path) as fh:
        return fh.read(offset).count(b"\n") + 1


def _read_text_file(path: Path, encoding: str) -> str:
    try:
        return path.read_bytes().decode(encoding)
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"{path}: undecodable bytes at byte {exc.start} as {encoding}; re-encode the file"
        ) from None


def read_aclimdb(root, split: str | None = None) -> pd.DataFrame:
    """The aclImdb layout ``ROOT/{train,test}/{pos,neg}/<id>_<rating>.txt`` (Maas et al. 2011).

    Fields: ``id``, ``text`` (``<br />`` turned into newlines), ``label`` (pos/neg),
    ``rating`` (1-10, from the file name) and ``split``.
    """
    root = Path(root)
    rows = []
    for sp in [split] if split else ["train", "test"]:
        for label in ("neg", "pos"):
            folder = root / sp / label
            if not folder.is_dir():
                continue
            for f in sorted(folder.glob("*.txt")):
                _, _, rating = f.stem.partition("_")
                text = _read_text_file(f, "utf-8").replace("<br />", "\n")
                rows.append({"id": f"{label}/{f.stem}", "text": text, "label": label,
                             "rating": int(rating) if rating.isdigit() else None, "split": sp})
    if not rows:
        raise CorpusError(
            f"{root}: no aclImdb reviews found under {{train,test}}/{{pos,neg}}/*.txt")
    return pd.DataFrame(rows)


def read_20news(root, split: str | None = None) -> pd.DataFrame:
    """The 20news-bydate layout: ``ROOT/20news-bydate-{train,test}/<group>/<id>`` or a
    single ``ROOT/<group>/<id>`` tree. Files are decoded as Latin-1 (as scikit-learn does)."""
    root = Path(root)
    parts = {s: root / f"20news-bydate-{s}" for s in ("train", "test")}
    if any(p.is_dir() for p in parts.values()):
        trees = [(s, p) for s, p in parts.items() if p.is_dir() and (split in (None, s))]
    else:
        trees = [(split or "", root)]
    rows = []
    for sp, tree in trees:
        for group in sorted(d for d in tree.iterdir() if d.is_dir()):
            for f in sorted(group.iterdir(), key=lambda p: (len(p.name), p.name)):
                if f.is_file():
                    rows.append({"id": f"{group.name}/{f.name}",
                                 "text": _read_text_file(f, "latin-1"),
                                 "label": group.name, "split": sp})
    if not rows:
        raise CorpusError(f"{root}: no newsgroup messages found (expected <group>/<id> files)")
    return pd.DataFrame(rows)


def _looks_like_aclimdb(root: Path) -> bool:
    return any((root / s / lab).is_dir() for s in ("train", "test") for lab in ("pos", "neg"))


# --------------------------------------------------------------------------- the entry point
def read_corpus(
    path,
    text_field: str = "text",
    label_field: str | None = "label",
    split_field: str | None = None,
    split: str | None = None,
    on_bad_line: str = "error",
    bad_lines: list | None = None,
) -> Corpus:
    """Read a corpus file or directory and check the fields a scorer needs.

    ``split`` keeps the records whose ``split_field`` (default ``"split"``) equals it; for the
    directory layouts it picks ``train`` or ``test``. Empty corpora, missing fields and rows
    without a label are errors that say how to fix them. ``on_bad_line="skip"`` skips
    malformed or undecodable JSONL lines, recording their numbers in ``bad_lines``.
    """
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"{path}: no such file or directory; check the path")
    if path.is_dir():
        frame = read_aclimdb(path, split) if _looks_like_aclimdb(path) else read_20news(path, split)
        if split_field is None and split is not None:
            split = None  # the layout already selected it
    else:
        frame = read_table(path, on_bad_line, bad_lines)
    frame = select_records(frame, path, text_field, label_field, split_field, split)
    if len(frame) == 0:
        where = f" for split {split!r}" if split else ""
        raise CorpusError(f"{path}: the corpus is empty{where}")
    return Corpus(frame, text_field, label_field, str(path))


def select_records(frame: pd.DataFrame, source, text_field: str, label_field: str | None,
                   split_field: str | None = None, split=None, offset: int = 0) -> pd.DataFrame:
    """The records of ``frame`` a scorer uses, checked: those whose ``split_field`` (default
    ``"split"``) equals ``split``, with the text and label fields present, texts as strings
    (missing ones empty) and no label missing. ``offset`` numbers the records of a chunk
    within its file, for the messages. Shared by :func:`read_corpus` and the streamed
    readers, which call it once per chunk."""
    if split is not None:
        split_field = split_field or "split"
        if split_field not in frame.columns:
            raise CorpusError(
                f"{source}: no split field {split_field!r}; fields are {list(frame.columns)}")
        frame = frame[frame[split_field].astype(str) == str(split)].reset_index(drop=True)
    if len(frame) == 0:
        return frame
    for field, what in ((text_field, "--text-field"), (label_field, "--label-field")):
        if field is not None and field not in frame.columns:
            raise CorpusError(
                f"{source}: no field {field!r}; fields are {list(frame.columns)}. Pass {what}"
            )
    frame[text_field] = frame[text_field].fillna("").astype(str)
    if label_field is not None:
        missing = frame[label_field].isna().to_numpy()
        if missing.any():
            first = offset + int(np.flatnonzero(missing)[0])
            raise CorpusError(
                f"{source}: {int(missing.sum())} record(s) without a label; the first has no "
                f"{label_field!r} at record {first + 1}: drop them or fill the field"
            )
    return frame


def numeric_labels(values, field: str) -> np.ndarray:
    """A label field as float64 ratings (``"4"`` is read as 4); any non-numeric value is an
    error naming the field and the fix."""
    y = pd.to_numeric(pd.Series(values), errors="coerce")
    bad = y.isna().to_numpy() & ~pd.isna(pd.Series(values)).to_numpy()
    if bad.any():
        found = pd.Series(values)[bad].astype(str).unique()[:3].tolist()
        raise CorpusError(
            f"field {field!r} must be numeric (numeric ratings, e.g. 1-5 stars); found "
            f"non-numeric values {found}. Choose a numeric field such as 'rating'"
        )
    return y.to_numpy(dtype=np.float64)


def sample_path(name: str = "20ng") -> Path:
    if name not in SAMPLES:
        raise CorpusError(f"unknown sample {name!r}; choose one of {', '.join(SAMPLES)}")
    return Path(str(resources.files("textsift") / "data" / SAMPLES[name][0]))


def load_sample(name: str = "20ng", split: str | None = None) -> Corpus:
    """A small real corpus shipped with the package (see ``textsift/data/README.md``)."""
    path = sample_path(name)
    _, text_field, label_field, _ = SAMPLES[name]
    return read_corpus(path, text_field, label_field, "split" if split else None, split)


_HEADER_END = re.compile(r"\n\s*\n")


def strip_header(text: str) -> str:
    """Drop an e-mail/news header: everything before the first blank line (as scikit-learn's
    ``remove=("headers",)`` does for 20 Newsgroups)."""
    m = _HEADER_END.search(text)
    return text[m.end():] if m else text
