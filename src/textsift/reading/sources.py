"""Where a corpus comes from: what a path means, and reading its files record by record
(each format's reader: :mod:`textsift.reading.formats`).

A *source* is one of three things, the same in every engine (memory, stream, Dask) -- or a
list of them, read one after the other as one corpus:

* a **file**: JSON Lines (``.jsonl``, ``.ndjson``, ``.json``), CSV/TSV (``.csv``, ``.tsv``)
  -- each optionally gzipped (``.gz``) -- or Parquet (``.parquet``, ``.pq``);
* a **directory**: an aclImdb tree (``{train,test}/{pos,neg}/*.txt``), or the data files
  directly inside it (sorted by name), or a 20news-bydate tree (``<group>/<id>`` files, or
  ``20news-bydate-{train,test}/<group>/<id>``). Hidden files (``.name``) are ignored; any other
  file that is not a data file is an error naming it, as are files beside a 20news tree's
  group directories. Subdirectories of a directory of data files are not read;
* a **glob pattern** (quote it on the command line, ``'data/*.jsonl.gz'``): the files it
  matches, sorted; each must be a data file.

:func:`iter_frames` reads one file (or tree) as DataFrames of at most ``chunk_size`` records,
indexed by each record's number in its file -- its line number for JSON Lines. Every problem
with the bytes raises :class:`~textsift.errors.CorpusError` naming the file (and line) and the
fix: a truncated or corrupt gzip stream, plain text named ``.gz``, a file in UTF-16 or another
encoding than UTF-8 (a UTF-8 byte-order mark is accepted), a malformed JSON line (skippable
with ``on_bad_line="skip"``), a CSV that does not parse, a corrupt Parquet file.

A file in another encoding than UTF-8 is read with ``encoding`` (``--encoding latin-1``: any
of Python's codecs; JSON Lines and CSV only), and a CSV file separated by another character
than its extension's (``,`` for ``.csv``, a tab for ``.tsv``) with ``sep`` (``--sep ';'``):
:func:`check_reading` checks both where they are given.

CSV has no types: its values are read as strings, labels included (``01`` and ``1`` are two
classes; pandas' guess per column would also differ from chunk to chunk), and with a label
separator (``label_sep``, ``--label-sep``) the label field is split into label lists
(:func:`textsift.labels.csv_labels`), as JSON Lines and Parquet hold them. Where the labels
must be ranks, every format's are read as numbers (:func:`textsift.labels.read_labels`).
"""

from __future__ import annotations

import codecs
import itertools
from collections.abc import Iterator
from glob import glob, has_magic
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import CorpusError, missing_path
from .formats import _batches, _csv, _jsonl, _parquet
from .trees import is_aclimdb, iter_20news, iter_aclimdb

__all__ = ["DATA_SUFFIXES", "check_reading", "data_files", "describe", "file_kind", "iter_frames",
           "record_unit"]

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz", ".json", ".json.gz")
CSV_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".tsv.gz")
PARQUET_SUFFIXES = (".parquet", ".pq")
#: The file name endings textsift reads as data (JSON Lines, CSV/TSV, Parquet).
DATA_SUFFIXES = JSONL_SUFFIXES + CSV_SUFFIXES + PARQUET_SUFFIXES
READABLE = ".jsonl/.ndjson/.json, .csv/.tsv (each optionally .gz) and .parquet"


# --------------------------------------------------------------------------- what a path means
def _names(paths, n: int = 5) -> str:
    names = [p.name for p in paths]
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


def is_data_file(path: Path) -> bool:
    return path.name.lower().endswith(DATA_SUFFIXES)


def file_kind(path: Path) -> str:
    """``"jsonl"``, ``"csv"`` or ``"parquet"`` for a data file, ``"aclimdb"`` or ``"20news"``
    for a directory tree (as :func:`data_files` returns them)."""
    path = Path(path)
    if path.is_dir():
        return "aclimdb" if is_aclimdb(path) else "20news"
    name = path.name.lower()
    for kind, suffixes in (("jsonl", JSONL_SUFFIXES), ("csv", CSV_SUFFIXES),
                           ("parquet", PARQUET_SUFFIXES)):
        if name.endswith(suffixes):
            return kind
    raise CorpusError(f"{path}: unknown file type; textsift reads {READABLE} files, or an "
                      "aclImdb / 20news-bydate directory. Rename the file if it is one of these")


def record_unit(path: Path) -> str:
    """What a frame's index counts in messages: ``"line"`` (JSON Lines), ``"row"`` (Parquet)
    or ``"record"`` (CSV data rows, records of a tree)."""
    return {"jsonl": "line", "parquet": "row"}.get(file_kind(path), "record")


def describe(source) -> str:
    """A source for messages: its path, or its paths joined (a list of sources)."""
    if isinstance(source, list | tuple):
        return ", ".join(map(str, source))
    return str(source)


def data_files(source) -> list[Path]:
    """The files (or the one tree) a source stands for (module docstring), sorted by name; a
    list of sources stands for their files in turn."""
    if isinstance(source, list | tuple):
        if not source:
            raise CorpusError("no corpus given; name a file, a directory or a glob pattern")
        return _each_once(source)
    text = str(source)
    path = Path(text)
    if path.is_file():
        file_kind(path)
        return [path]
    if path.is_dir():
        return _directory(path)
    if has_magic(text):
        matches = sorted(Path(m) for m in glob(text))
        if not matches:
            raise CorpusError(f"{text}: the pattern matches no file; check the path")
        others = [m for m in matches if not (m.is_file() and is_data_file(m))]
        if others:
            raise CorpusError(f"{text}: the pattern also matches {_names(others)}, which "
                              f"textsift cannot read ({READABLE} are); narrow the pattern, "
                              "e.g. to '*.jsonl.gz'")
        return matches
    raise missing_path(path)


def _each_once(sources) -> list[Path]:
    """The files of several sources in turn, each named once: a file that two sources name
    (``ok.jsonl ok.jsonl``, or a file and a directory or glob that holds it) is an error
    naming it and both, since each of its documents would count twice. Files are compared by
    their resolved paths (through ``..`` and symbolic links)."""
    seen: dict[Path, str] = {}
    files = []
    for source in sources:
        for f in data_files(source):
            first = seen.setdefault(f.resolve(), str(source))
            if len(seen) == len(files):  # already there
                raise CorpusError(
                    f"{f}: the corpus names this file twice ({first} and {source}), so each "
                    "of its documents would count twice; name each file once")
            files.append(f)
    return files


def _directory(root: Path) -> list[Path]:
    if is_aclimdb(root):
        return [root]
    entries = sorted(e for e in root.iterdir() if not e.name.startswith("."))
    files = [e for e in entries if e.is_file()]
    data, others = [], []  # one pass: a test of membership in data was quadratic
    for f in files:
        (data if is_data_file(f) else others).append(f)
    if data and others:
        raise CorpusError(
            f"{root}: the directory mixes data files ({_names(data)}) with files textsift "
            f"cannot read ({_names(others)}); move those out, or name the data files with a "
            f"quoted glob such as '{root}/*{data[0].name[data[0].name.index('.'):]}'")
    if data:
        return data
    subdirectories = [e for e in entries if e.is_dir()]
    if subdirectories:
        nested = [f for d in subdirectories for f in itertools.islice(d.rglob("*"), 50)
                  if f.is_file() and is_data_file(f)]
        if nested:  # not newsgroup messages: data files one level down
            raise CorpusError(
                f"{root}: no data file directly in this directory, but its subdirectories "
                f"hold some ({_names(nested)}); name them with a quoted glob such as "
                f"'{root}/*/*{nested[0].name[nested[0].name.index('.'):]}'")
        if others:
            raise CorpusError(
                f"{root}: read as a 20news-bydate tree (<group>/<id> files), but it also holds "
                f"{_names(others)}; move those out, or point at the data files")
        return [root]
    if others:
        raise CorpusError(f"{root}: no data file in this directory (it holds {_names(others)}); "
                          f"textsift reads {READABLE} files, or an aclImdb / 20news-bydate tree")
    raise CorpusError(f"{root}: the directory is empty; check the path")


def check_reading(encoding=None, sep=None) -> None:
    """``encoding`` (a Python codec's name) and ``sep`` (one character) when given, else an
    error naming the choices."""
    if encoding is not None:
        try:
            if not isinstance(encoding, str):
                raise LookupError
            codecs.lookup(encoding)
        except LookupError:
            raise CorpusError(f"unknown encoding {encoding!r}; give the name of one, e.g. "
                              "utf-8, latin-1, cp1252 or utf-16 (Python's codecs)") from None
    if sep is not None and (not isinstance(sep, str) or len(sep) != 1 or sep in '\r\n"'):
        raise CorpusError(f"the separator (--sep) must be one character other than a quote "
                          f"or a line break, e.g. ';' or '|'; got {sep!r}")


# --------------------------------------------------------------------------- one file as frames
def _check_label_sep(path: Path, kind: str, sep) -> None:
    """``--label-sep`` splits the label field of a CSV file, which has no lists."""
    if not isinstance(sep, str) or not sep:
        raise CorpusError(f"the label separator (--label-sep) must be one or more characters, "
                          f"got {sep!r}; e.g. ';' for labels written earn;acq")
    if kind != "csv":
        holds = {"jsonl": "a JSON Lines file, whose labels are lists already "
                          '("labels": ["earn", "acq"])',
                 "parquet": "a Parquet file, whose labels are list columns already"}.get(
                     kind, f"an {kind} tree, whose label is its directory")
        raise CorpusError(f"{path}: --label-sep splits the label field of a CSV file, but this "
                          f"is {holds}; drop --label-sep")


def iter_frames(path, chunk_size: int | None = None, on_bad_line: str = "error",
                bad_lines: list | None = None, row_groups=None, label_field: str | None = None,
                split: str | None = None, label_sep: str | None = None,
                encoding: str | None = None, sep: str | None = None
                ) -> Iterator[pd.DataFrame]:
    """The records of one file or tree (as :func:`data_files` returns them) as DataFrames of
    at most ``chunk_size`` records (``None``: one frame), indexed by record number (the line
    number for JSON Lines, counted from 1).

    Skipped JSONL lines (``on_bad_line="skip"``) are appended to ``bad_lines`` as
    ``(file, line)`` pairs. ``row_groups`` restricts a Parquet file to those row groups;
    ``label_field`` is the CSV field that ``label_sep`` splits into label lists
    (:func:`textsift.labels.csv_labels`; a CSV file only: the other formats hold lists as
    lists); ``split`` lets a directory tree read only that split's
    subtree. ``encoding`` reads a JSON Lines or CSV file in that encoding (default UTF-8),
    ``sep`` separates a CSV file's fields (default its extension's); both are refused for
    the other formats, which define their own.
    """
    path = Path(path)
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(
            chunk_size, int | np.integer) or chunk_size < 1):
        raise CorpusError(f"chunk_size must be a positive number of documents, got "
                          f"{chunk_size!r}")
    kind = file_kind(path)
    if label_sep is not None:
        _check_label_sep(path, kind, label_sep)
    check_reading(encoding, sep)
    if sep is not None and kind != "csv":
        raise CorpusError(f"{path}: --sep separates the fields of a CSV file, and this is "
                          f"{'a JSON Lines file' if kind == 'jsonl' else 'not CSV'}; drop --sep")
    if encoding is not None and kind not in ("jsonl", "csv"):
        own = ("Parquet stores UTF-8" if kind == "parquet" else
               "a directory tree is read as its format says")
        raise CorpusError(f"{path}: --encoding is for JSON Lines and CSV files; {own}; drop "
                          "--encoding")
    if kind == "jsonl":
        lines: list[int] = []
        yield from _batches(_jsonl(path, on_bad_line, lines, encoding), chunk_size)
        if bad_lines is not None:
            bad_lines.extend((str(path), n) for n in lines)
    elif kind == "csv":
        yield from _csv(path, chunk_size, label_field, label_sep, encoding, sep)
    elif kind == "parquet":
        yield from _parquet(path, chunk_size, row_groups)
    else:
        records = (iter_aclimdb if kind == "aclimdb" else iter_20news)(path, split)
        yield from _batches(enumerate(records, start=1), chunk_size)
