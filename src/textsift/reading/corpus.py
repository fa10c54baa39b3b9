"""A corpus: records with a text and a label, read from a source (a file, a directory or a
glob pattern of JSONL, CSV or Parquet files, or an aclImdb / 20news-bydate tree; see
:mod:`textsift.reading.sources`), checked, and the small real samples shipped with the package.

A :class:`Corpus` is a table of records (a pandas DataFrame) plus the names of its text and
label fields. Every problem raises a :class:`CorpusError` that names the file (and line or
record) and says what to do. The rules for field values (:func:`select_records`):

* a text is a string; a missing text (``null``, an absent key, an empty CSV cell) is an empty
  document; any other value (a number, ``true``, a list, an object) is an error;
* a label is a string, a number or true/false, the same type in every record of the source
  (``1`` and ``"b"`` in one corpus are an error: is ``1`` the class ``"1"``?), or -- for a
  document with several labels -- a list of strings in every record (``[]``: no label; in CSV,
  labels joined by ``label_sep``); a missing label or an object is an error
  (:mod:`textsift.labels` holds these rules).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import CorpusError
from ..labels import (
    LabelForms,
    LabelTypes,
    check_label_spelling,
    distinct_labels,
    label_type,
    numeric_labels,
    plain_values,
    read_labels,
    show_value,
    strip_labels,
)
from .formats import iter_jsonl
from .sources import data_files, describe, iter_frames, record_unit

__all__ = [
    "SAMPLES",
    "Corpus",
    "CorpusError",
    "EmptyCorpusError",
    "EmptyTextError",
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
    label_sep: str | None = None,
    strip_labels: bool = False,
    ranks: bool = False,
    check_spelling: bool = True,
    forms: LabelForms | None = None,
    encoding: str | None = None,
    sep: str | None = None,
) -> Corpus:
    """Read a corpus -- a file, a directory or a glob pattern (:mod:`textsift.reading.sources`),
    or a list of them, or a table in memory (a pandas or Polars DataFrame, a Hugging Face
    ``Dataset``: ``is_table``) -- and check the fields a scorer needs
    (:func:`select_records`).

    ``split`` keeps the records whose ``split_field`` (default ``"split"``) equals it; for the
    directory trees it picks ``train`` or ``test``. Empty corpora, a split no record has,
    missing fields, texts that are not strings and labels that are missing, of mixed types,
    objects, or label lists in some records only (or empty in all) are errors that say how to
    fix them. ``on_bad_line="skip"`` skips malformed or undecodable JSONL lines, recording
    them in ``bad_lines`` as ``(file, line)`` pairs. ``label_sep`` splits a CSV label field
    into several labels (``"earn;acq"``). ``ranks`` reads the labels as the ranks of a
    scale, numbers in every format (``"4"``, CSV's ``04``: 4; :func:`~textsift.labels.read_labels`):
    what the ordinal methods and commands ask for; otherwise labels are as written (CSV's are
    strings).

    Labels that differ only by the white space around them or by case warn
    (:func:`~textsift.labels.check_label_spelling`; ``check_spelling=False`` leaves it to a
    caller that reads several sources as one corpus); ``strip_labels`` removes the white
    space around every label (:func:`~textsift.labels.strip_labels`). A corpus whose texts are all
    empty, and one whose every line was skipped as malformed, are errors that say so.
    String labels are read in Unicode NFC; labels written in two forms, now one class, warn
    (:class:`~textsift.labels.LabelForms`), unless ``forms`` is given: their spellings are
    noted there, for a caller that reads several sources as one corpus and warns once.
    ``encoding`` and ``sep``: the encoding of JSON Lines and CSV files (default UTF-8) and
    the separator of CSV files (default the extension's;
    :func:`textsift.reading.sources.iter_frames`).
    """
    if is_table(path):
        return _read_table(path, text_field, label_field, split_field, split, label_sep,
                           strip_labels, ranks, check_spelling, encoding, sep)
    splits = set() if split is not None else None
    skipped = [] if bad_lines is None else bad_lines
    records = Records(text_field, label_field, split_field, split, label_sep, strip_labels,
                      ranks, forms, encoding=encoding, sep=sep)
    frames = list(records.read(path, None, on_bad_line, skipped, split_values=splits))
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(frame) == 0:
        raise no_records(path, split_field, split, splits or (), skipped)
    records.finish(describe(path))
    if label_field is not None and check_spelling:
        check_label_spelling(distinct_labels(frame[label_field]), describe(path))
    return Corpus(frame, text_field, label_field, describe(path))


#: How a table in memory is named in messages.
TABLE = "the DataFrame"


def is_table(source) -> bool:
    """Whether ``source`` is a table in memory -- a pandas or Polars DataFrame, or a Hugging
    Face ``Dataset`` -- rather than a path."""
    if isinstance(source, pd.DataFrame):
        return True
    kind = type(source)
    return (kind.__name__ == "DataFrame" and kind.__module__.startswith("polars")) or (
        kind.__name__ == "Dataset" and kind.__module__.startswith("datasets"))


def _read_table(table, text_field, label_field, split_field, split, label_sep, strip_labels,
                ranks, check_spelling, encoding, sep) -> Corpus:
    """:func:`read_corpus` of a table in memory: its rows checked as a file's records are
    (:class:`Records`; messages name ``the DataFrame`` and the row)."""
    if encoding is not None or sep is not None:
        raise CorpusError(f"{TABLE} is read already: --encoding and --sep are for files; drop "
                          "them")
    if label_sep is not None:
        raise CorpusError(f"{TABLE} holds label lists as lists: label_sep is for CSV files; "
                          "drop it (split the column into lists first)")
    frame = table if isinstance(table, pd.DataFrame) else table.to_pandas()
    frame = frame.reset_index(drop=True)
    records = Records(text_field, label_field, split_field, split, None, strip_labels, ranks)
    values = set()
    if split is not None and (split_field or "split") in frame.columns:
        values = set(frame[split_field or "split"].astype(str).unique()[:20])
    frame = records.select(frame, TABLE, "row")
    if len(frame) == 0:
        raise no_records(TABLE, split_field, split, values)
    records.finish(TABLE)
    if label_field is not None and check_spelling:
        check_label_spelling(distinct_labels(frame[label_field]), TABLE)
    return Corpus(frame.reset_index(drop=True), text_field, label_field, TABLE)


def _separated(columns, source) -> str | None:
    """The fix for a CSV file separated otherwise than by commas (``text;label``: one field,
    named with the separator), which textsift does not guess."""
    if len(columns) != 1:
        return None
    for sep in (";", "|", "\t"):
        if sep in str(columns[0]):
            return (f"The file looks separated by {sep!r}; textsift reads comma-separated "
                    ".csv and tab-separated .tsv files unless told: give the separator, "
                    f"--sep {sep!r} (sep={sep!r} in Python, sep in an experiment's "
                    "[corpus])")
    return None


class EmptyCorpusError(CorpusError):
    """A source holds no (selected) record."""


def no_records(source, split_field=None, split=None, values=(), skipped=()
                ) -> EmptyCorpusError:
    """The error for a source with no (selected) record; ``values`` are the split values
    seen, when a split was asked for, ``skipped`` the ``(file, line)`` of the lines skipped
    as malformed (``on_bad_line="skip"``): when every line was, the error says so."""
    source = describe(source)
    if skipped:
        file, line = min(skipped)
        first = f"line {line}" + ("" if str(file) == source else f" of {file}")
        return EmptyCorpusError(
            f"{source}: every line was skipped as malformed ({len(set(skipped)):,} line(s), "
            f"the first {first}), so the corpus is empty; check that the file is JSON Lines "
            "(one JSON object per line), or read it without --skip-bad-lines to see the first "
            "error")
    if split is None:
        return EmptyCorpusError(f"{source}: the corpus is empty (no record); check the path")
    field = split_field or "split"
    seen = sorted(map(str, values))
    there = (f"the values of {field!r} are {', '.join(map(repr, seen[:10]))}; choose one of "
             "them" if seen else "no record has that field")
    return EmptyCorpusError(f"{source}: no record has {field} = {split!r} (an empty split); "
                            f"{there}")


class EmptyTextError(CorpusError):
    """Every text of a source is empty."""


def no_text(source, text_field: str) -> EmptyTextError:
    """The error for a source whose texts are all empty (or white space)."""
    return EmptyTextError(
        f"{f'{source}: ' if source else ''}every text is empty (the text field "
        f"{text_field!r} is empty or white space in every record); choose the field that "
        "holds the text (--text-field, or text_field in an experiment's [corpus])")


def select_records(frame: pd.DataFrame, source, text_field: str, label_field: str | None,
                   split_field: str | None = None, split=None, unit: str = "record",
                   ranks: bool = False, forms: LabelForms | None = None) -> pd.DataFrame:
    """The records of ``frame`` a scorer uses, checked: those whose ``split_field`` (default
    ``"split"``) equals ``split``, with the text and label fields present, texts as strings
    (:func:`check_texts`) and labels read as the corpus means them (empty labels name no class;
    with ``ranks``, numbers: :func:`~textsift.labels.read_labels`), present and of one type
    (:func:`~textsift.labels.label_type`: one scalar type, or label lists), string labels in
    Unicode NFC (their spellings noted in ``forms``, :class:`~textsift.labels.LabelForms`).
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
                f"{list(frame.columns)}. " + (_separated(frame.columns, source) or
                f"Choose the {role} field among them (--{role}-field, or {role}_field in an "
                "experiment's [corpus])"))
    frame = frame.assign(**{text_field: check_texts(frame[text_field], source, unit)})
    if label_field is not None:
        labels = read_labels(frame[label_field], source, unit, ranks, forms)
        label_type(labels, source, unit)
        frame = frame.assign(**{label_field: labels})
    return frame


class Records:
    """:func:`select_records` over the frames of one source, in order (the files of a
    directory, the chunks of a stream): a field that earlier records had and a frame lacks is
    missing in its records (not absent from the corpus), and the label type must stay the
    first records' (:class:`~textsift.labels.LabelTypes`). ``encoding`` and ``sep`` read
    JSON Lines and CSV files (:func:`~textsift.reading.sources.iter_frames`). ``label_sep`` splits
    CSV
    labels;
    ``strip_labels`` removes the white space around each label; ``ranks`` reads the labels as
    numbers (:func:`select_records`)."""

    def __init__(self, text_field: str, label_field: str | None, split_field: str | None = None,
                 split=None, label_sep: str | None = None, strip_labels: bool = False,
                 ranks: bool = False, forms: LabelForms | None = None, *,
                 encoding: str | None = None, sep: str | None = None):
        from .sources import check_reading

        check_reading(encoding, sep)
        self.encoding, self.sep = encoding, sep
        self.text_field, self.label_field = text_field, label_field
        self.split_field, self.split = split_field, split
        self.label_sep = label_sep
        self.strip_labels = strip_labels
        self.ranks = ranks
        self.seen: set = set()
        self.labels = LabelTypes(label_field)
        # the labels' spellings, read in Unicode NFC (a caller's: it warns, not finish)
        self.forms = LabelForms() if forms is None else forms
        self.warn_forms = forms is None
        self.n_records = 0
        self.has_text = False  # a record whose text holds more than white space was read

    def select(self, frame: pd.DataFrame, source, unit: str = "record") -> pd.DataFrame:
        wanted = (self.text_field, self.label_field,
                  (self.split_field or "split") if self.split is not None else None)
        lacking = [f for f in wanted if f is not None and f in self.seen and f not in frame]
        self.seen.update(frame.columns)
        if lacking:
            frame = frame.assign(**{f: np.nan for f in lacking})
        frame = select_records(frame, source, self.text_field, self.label_field,
                               self.split_field, self.split, unit, self.ranks, self.forms)
        self.labels.check(frame, source, unit)
        if self.strip_labels and self.label_field is not None and len(frame):
            frame = frame.assign(**{self.label_field: strip_labels(frame[self.label_field])})
        self.n_records += len(frame)
        self.has_text = self.has_text or any(t.strip() for t in frame[self.text_field])
        return frame

    def finish(self, source) -> None:
        """After the last record of the whole source: label lists empty in every record
        (:meth:`~textsift.labels.LabelTypes.finish`) and texts that are all empty are
        errors; labels written in two Unicode forms, now one class, are warned about
        (:meth:`~textsift.labels.LabelForms.warn`)."""
        self.labels.finish(source)
        if self.warn_forms:
            self.forms.warn(source)
        if self.n_records and not self.has_text:
            raise no_text(source, self.text_field)

    def read(self, path, chunk_size: int | None = None, on_bad_line: str = "error",
             bad_lines: list | None = None, row_groups=None,
             split_values: set | None = None) -> Iterator[pd.DataFrame]:
        """The selected records of every file of ``path``
        (:func:`~textsift.reading.sources.data_files`),
        frame by frame (at most ``chunk_size`` records each; ``None``: one frame per file), as
        every engine reads a corpus. The values of the split field met on the way go into
        ``split_values`` when it is given (for the message of an empty split)."""
        field = self.split_field or "split"
        tree_split = self.split if self.split_field in (None, "split") else None
        for file in data_files(path):
            unit = record_unit(file)
            for frame in iter_frames(file, chunk_size, on_bad_line, bad_lines, row_groups,
                                     self.label_field, tree_split, self.label_sep,
                                     self.encoding, self.sep):
                if split_values is not None and field in frame.columns:
                    split_values.update(frame[field].astype(str).unique()[:20])
                yield self.select(frame, file, unit)


# --------------------------------------------------------------------------- field checks
def check_texts(column: pd.Series, source, unit: str = "record") -> pd.Series:
    """A text field as strings. A missing text (JSON ``null``, an absent key, an empty CSV
    cell) is an empty document -- it has no terms but counts in its class; a text that is
    not a string (a number, ``true``, a list, an object) is an error naming the record: the
    field is probably not the text. A ``category`` column is its values."""
    column = plain_values(column)
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
        f"{show_value(column.iloc[at])}, not a string. Choose the field that holds the text "
        "(--text-field), or write the text as a JSON string")


def sample_path(name: str = "20ng") -> Path:
    if name not in SAMPLES:
        raise CorpusError(f"unknown sample {name!r}; choose one of {', '.join(SAMPLES)}")
    return Path(str(resources.files("textsift") / "data" / SAMPLES[name][0]))


def load_sample(name: str = "20ng", split: str | None = None,
                check_spelling: bool = True) -> Corpus:
    """A small real corpus shipped with the package (see ``textsift/data/README.md``);
    ``check_spelling`` as :func:`read_corpus`'s."""
    path = sample_path(name)
    _, text_field, label_field, _ = SAMPLES[name]
    return read_corpus(path, text_field, label_field, "split" if split else None, split,
                       check_spelling=check_spelling)


_HEADER_END = re.compile(r"\n\s*\n")
#: A header field's line: its name (printable ASCII but the colon, RFC 5322 section 2.2) and ":".
_FIELD = re.compile(r"[!-9;-~]+:")


def strip_header(text: str) -> str:
    """Drop an e-mail/news header: everything before the first blank line (as scikit-learn's
    ``remove=("headers",)`` does for 20 Newsgroups) when that block is a header -- its lines
    header fields (``Name: value``, RFC 5322 section 2.2) or their folded continuations (a line
    starting with white space), one field at least. Any other first paragraph is text, and
    is kept (``"great movie\n\nsecond paragraph"`` was losing its first). Every message
    of 20 Newsgroups (bydate, 18,846) has such a header."""
    m = _HEADER_END.search(text)
    if m is None:
        return text
    fields = 0
    for line in text[:m.start()].split("\n"):
        if _FIELD.match(line):
            fields += 1
        elif line[:1] not in (" ", "\t"):
            return text
    return text[m.end():] if fields else text
