"""A corpus: records with a text and a label, read from a source (a file, a directory or a
glob pattern of JSONL, CSV or Parquet files, or an aclImdb / 20news-bydate tree; see
:mod:`textsift.sources`), checked, and the small real samples shipped with the package.

A :class:`Corpus` is a table of records (a pandas DataFrame) plus the names of its text and
label fields. Every problem raises a :class:`CorpusError` that names the file (and line or
record) and says what to do. The rules for field values (:func:`select_records`):

* a text is a string; a missing text (``null``, an absent key, an empty CSV cell) is an empty
  document; any other value (a number, ``true``, a list, an object) is an error;
* a label is a string, a number or true/false, the same type in every record of the source
  (``1`` and ``"b"`` in one corpus are an error: is ``1`` the class ``"1"``?); a missing
  label, a list or an object is an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from numbers import Number
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import CorpusError
from .sources import data_files, describe, iter_frames, iter_jsonl, record_unit

__all__ = [
    "SAMPLES",
    "Corpus",
    "CorpusError",
    "EmptyCorpusError",
    "LabelTypes",
    "Records",
    "check_texts",
    "iter_jsonl",
    "label_type",
    "load_sample",
    "numeric_labels",
    "read_corpus",
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
    """Read a corpus -- a file, a directory or a glob pattern (:mod:`textsift.sources`), or a
    list of them -- and check the fields a scorer needs (:func:`select_records`).

    ``split`` keeps the records whose ``split_field`` (default ``"split"``) equals it; for the
    directory trees it picks ``train`` or ``test``. Empty corpora, a split no record has,
    missing fields, texts that are not strings and labels that are missing, of mixed types or
    not scalars are errors that say how to fix them. ``on_bad_line="skip"`` skips malformed
    or undecodable JSONL lines, recording them in ``bad_lines`` as ``(file, line)`` pairs.
    """
    splits = set() if split is not None else None
    records = Records(text_field, label_field, split_field, split)
    frames = list(records.read(path, None, on_bad_line, bad_lines, split_values=splits))
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(frame) == 0:
        raise no_records(path, split_field, split, splits or ())
    return Corpus(frame, text_field, label_field, describe(path))


class EmptyCorpusError(CorpusError):
    """A source holds no (selected) record."""


def no_records(source, split_field=None, split=None, values=()) -> EmptyCorpusError:
    """The error for a source with no (selected) record; ``values`` are the split values
    seen, when a split was asked for."""
    source = describe(source)
    if split is None:
        return EmptyCorpusError(f"{source}: the corpus is empty (no record); check the path")
    field = split_field or "split"
    seen = sorted(map(str, values))
    there = (f"the values of {field!r} are {', '.join(map(repr, seen[:10]))}; choose one of "
             "them" if seen else "no record has that field")
    return EmptyCorpusError(f"{source}: no record has {field} = {split!r} (an empty split); "
                            f"{there}")


def select_records(frame: pd.DataFrame, source, text_field: str, label_field: str | None,
                   split_field: str | None = None, split=None, unit: str = "record"
                   ) -> pd.DataFrame:
    """The records of ``frame`` a scorer uses, checked: those whose ``split_field`` (default
    ``"split"``) equals ``split``, with the text and label fields present, texts as strings
    (:func:`check_texts`) and labels present and of one scalar type (:func:`label_type`).
    Messages name ``source`` and the record (``unit`` and the frame's index: a line number
    for JSON Lines). Shared by :func:`read_corpus` and the streamed readers, which call it
    once per chunk."""
    if split is not None:
        split_field = split_field or "split"
        if split_field not in frame.columns:
            raise CorpusError(
                f"{source}: no split field {split_field!r}; the records have the fields "
                f"{list(frame.columns)}. Name the field holding the split (--split-field)")
        frame = frame[frame[split_field].astype(str) == str(split)]
    if len(frame) == 0:
        return frame
    for field, role in ((text_field, "text"), (label_field, "label")):
        if field is not None and field not in frame.columns:
            raise CorpusError(
                f"{source}: no field {field!r} (the {role} field); the records have the fields "
                f"{list(frame.columns)}. Choose the {role} field among them (--{role}-field, "
                f"or {role}_field in an experiment's [corpus])")
    frame = frame.assign(**{text_field: check_texts(frame[text_field], source, unit)})
    if label_field is not None:
        label_type(frame[label_field], source, unit)
    return frame


class Records:
    """:func:`select_records` over the frames of one source, in order (the files of a
    directory, the chunks of a stream): a field that earlier records had and a frame lacks is
    missing in its records (not absent from the corpus), and the label type must stay the
    first records' (:class:`LabelTypes`)."""

    def __init__(self, text_field: str, label_field: str | None, split_field: str | None = None,
                 split=None):
        self.text_field, self.label_field = text_field, label_field
        self.split_field, self.split = split_field, split
        self.seen: set = set()
        self.labels = LabelTypes(label_field)

    def select(self, frame: pd.DataFrame, source, unit: str = "record") -> pd.DataFrame:
        wanted = (self.text_field, self.label_field,
                  (self.split_field or "split") if self.split is not None else None)
        lacking = [f for f in wanted if f is not None and f in self.seen and f not in frame]
        self.seen.update(frame.columns)
        if lacking:
            frame = frame.assign(**{f: np.nan for f in lacking})
        frame = select_records(frame, source, self.text_field, self.label_field,
                               self.split_field, self.split, unit)
        self.labels.check(frame, source, unit)
        return frame

    def read(self, path, chunk_size: int | None = None, on_bad_line: str = "error",
             bad_lines: list | None = None, row_groups=None,
             split_values: set | None = None) -> Iterator[pd.DataFrame]:
        """The selected records of every file of ``path`` (:func:`~textsift.sources.data_files`),
        frame by frame (at most ``chunk_size`` records each; ``None``: one frame per file), as
        every engine reads a corpus. The values of the split field met on the way go into
        ``split_values`` when it is given (for the message of an empty split)."""
        field = self.split_field or "split"
        tree_split = self.split if self.split_field in (None, "split") else None
        for file in data_files(path):
            unit = record_unit(file)
            for frame in iter_frames(file, chunk_size, on_bad_line, bad_lines, row_groups,
                                     self.label_field, tree_split):
                if split_values is not None and field in frame.columns:
                    split_values.update(frame[field].astype(str).unique()[:20])
                yield self.select(frame, file, unit)


# --------------------------------------------------------------------------- field checks
def _what(value) -> str:
    """A value's JSON kind and a short repr, for messages."""
    text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"{_kind(value)} {text}"


def _kind(value) -> str:
    if isinstance(value, bool | np.bool_):
        return "boolean"
    if isinstance(value, Number):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple | np.ndarray):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def check_texts(column: pd.Series, source, unit: str = "record") -> pd.Series:
    """A text field as strings. A missing text (JSON ``null``, an absent key, an empty CSV
    cell) is an empty document -- it has no terms but counts in its class; a text that is
    not a string (a number, ``true``, a list, an object) is an error naming the record: the
    field is probably not the text."""
    if isinstance(column.dtype, pd.StringDtype) or pd.api.types.infer_dtype(
            column, skipna=True) in ("string", "empty"):
        return column.fillna("").astype(str)
    missing = column.isna().to_numpy()
    at = next((i for i, (v, m) in enumerate(zip(column, missing, strict=True))
               if not (m or isinstance(v, str))), None)
    if at is None:  # strings and missing values only
        return column.fillna("").astype(str)
    raise CorpusError(
        f"{source}, {unit} {column.index[at]}: the text field {column.name!r} holds the "
        f"{_what(column.iloc[at])}, not a string. Choose the field that holds the text "
        "(--text-field), or write the text as a JSON string")


_NUMBER_TYPES = ("integer", "floating", "mixed-integer-float", "decimal")


def label_type(column: pd.Series, source, unit: str = "record") -> str:
    """The type of a label field's values -- ``"string"``, ``"number"`` or ``"boolean"`` --
    checked: a missing label, a label that is a list or an object, and labels of two types
    (``1`` and ``"b"``: is ``1`` the class ``"1"``?) are errors naming the records."""
    field = column.name
    missing = column.isna().to_numpy()
    if missing.any():
        raise CorpusError(
            f"{source}, {unit} {column.index[np.flatnonzero(missing)[0]]}: the record has no "
            f"label ({field!r} is missing or null); drop such records or fill the field")
    if pd.api.types.is_bool_dtype(column.dtype):
        return "boolean"
    if pd.api.types.is_numeric_dtype(column.dtype):
        return "number"
    inferred = pd.api.types.infer_dtype(column, skipna=False)
    if inferred == "string":
        return "string"
    if inferred in _NUMBER_TYPES:
        return "number"
    kinds = [_kind(v) for v in column]
    for i, kind in enumerate(kinds):
        if kind not in ("string", "number", "boolean"):
            raise CorpusError(
                f"{source}, {unit} {column.index[i]}: the label {field!r} is the "
                f"{_what(column.iloc[i])}; a label must be a string, a number or true/false. "
                "Choose another label field (--label-field), or give each record one label")
    first = {}
    for i, kind in enumerate(kinds):
        first.setdefault(kind, i)
    a, b = sorted(first.values())[:2]
    raise CorpusError(
        f"{source}: the label {field!r} mixes types: the {_what(column.iloc[a])} at {unit} "
        f"{column.index[a]}, the {_what(column.iloc[b])} at {unit} {column.index[b]}. Write "
        'every label as a string ("1") or every one as a number, so that each class has one '
        "name")


def label_type_of(labels: np.ndarray) -> str:
    """The label type of a chunk's labels, already checked to be of one type."""
    if labels.dtype.kind == "b":
        return "boolean"
    if labels.dtype.kind in "iuf":
        return "number"
    return _kind(labels[0]) if len(labels) else "string"


class LabelTypes:
    """The label type of the first records read from a source, to check the records read
    after them against it (chunks, files, partitions): ``1`` in one file and ``"b"`` in the
    next are the same mistake as in one file."""

    def __init__(self, field: str | None):
        self.field = field
        self.first: tuple[str, str] | None = None

    def check(self, frame: pd.DataFrame, source, unit: str = "record") -> None:
        if self.field is None or not len(frame):
            return
        kind = label_type(frame[self.field], source, unit)
        self.note(kind, f"{source}, {unit} {frame.index[0]}")

    def note(self, kind: str, where: str) -> None:
        if self.first is None:
            self.first = (kind, where)
        elif kind != self.first[0]:
            raise CorpusError(
                f"the label {self.field!r} mixes types: {_a(self.first[0])} at "
                f"{self.first[1]}, {_a(kind)} at {where}. Write every label as a string (\"1\") "
                "or every one as a number, in every file, so that each class has one name")


def _a(kind: str) -> str:
    return {"string": "a string", "number": "a number", "boolean": "true/false"}[kind]


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
