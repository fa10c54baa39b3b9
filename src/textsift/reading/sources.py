"""Where a corpus comes from: what a path means, and reading its files record by record.

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

CSV has no types: its values are read as strings, labels included (``01`` and ``1`` are two
classes; pandas' guess per column would also differ from chunk to chunk), and with a label
separator (``label_sep``, ``--label-sep``) the label field is split into label lists
(:func:`textsift.labels.csv_labels`), as JSON Lines and Parquet hold them. Where the labels
must be ranks, every format's are read as numbers (:func:`textsift.labels.read_labels`).
"""

from __future__ import annotations

import codecs
import gzip
import io
import itertools
import json
import re
import warnings
import zlib
from collections.abc import Iterator
from glob import glob, has_magic
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import CorpusError, DataWarning, missing_path
from ..labels import csv_labels
from .trees import is_aclimdb, iter_20news, iter_aclimdb

__all__ = ["DATA_SUFFIXES", "data_files", "describe", "file_kind", "iter_frames", "iter_jsonl",
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


# --------------------------------------------------------------------------- bytes and encodings
def _open_bytes(path: Path):
    try:
        return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else open(path, "rb")
    except OSError as exc:
        raise CorpusError(f"{path}: cannot be read ({exc.strerror or exc}); check the path "
                          "and its permissions") from None


def _stream_error(path: Path, exc: BaseException, line: int | None) -> CorpusError:
    """The error for a file whose bytes cannot be read to the end."""
    after = f" after line {line}" if line else ""
    if isinstance(exc, gzip.BadGzipFile) and str(exc).startswith("Not a gzipped file"):
        return CorpusError(f"{path}: not a gzip file, though its name ends in .gz ({exc}); if it "
                           "is plain text, drop the .gz from its name, or compress it with gzip")
    if isinstance(exc, EOFError):
        return CorpusError(f"{path}: the gzip stream ends early{after} (the file is truncated, "
                           "e.g. by an interrupted download or copy); fetch or compress it again")
    if isinstance(exc, zlib.error | gzip.BadGzipFile):  # bad deflate data, CRC or length
        return CorpusError(f"{path}: corrupt gzip data{after} ({exc}); fetch or compress the "
                           "file again")
    return CorpusError(f"{path}: cannot be read{after} ({exc}); check the file")


_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
         (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


def _check_encoding(path: Path) -> None:
    """A file in UTF-16 or UTF-32 (a byte-order mark, or NUL bytes in its first 4 KB) is an
    error for the whole file, not a bad line: re-encoding it is the fix."""
    try:
        with _open_bytes(path) as fh:
            head = fh.read(4096)
    except (EOFError, OSError, zlib.error) as exc:
        raise _stream_error(path, exc, None) from None
    found = next((name for bom, name in _BOMS if head.startswith(bom)), None)
    if found is None and head.count(b"\x00") > len(head) // 4:  # ASCII in UTF-16: every other
        found = "UTF-16 or UTF-32 (a NUL byte beside most characters)"
    if found:
        raise CorpusError(f"{path}: the file is encoded as {found}; textsift reads UTF-8. "
                          f"Re-encode it, e.g. iconv -f {found.split()[0]} -t UTF-8")


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """``(line number, raw line)`` of a (gzipped) file; read errors name the file."""
    line = 0
    with _open_bytes(path) as fh:
        try:
            for line, raw in enumerate(fh, start=1):
                yield line, raw
        except (EOFError, OSError, zlib.error) as exc:
            raise _stream_error(path, exc, line) from None


# --------------------------------------------------------------------------- JSON Lines
#: A JSON escape of a UTF-16 surrogate (``\\ud800``-``\\udfff``), half of a pair or alone.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_surrogates(value):
    """A JSON value with every lone surrogate of its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value


def _surrogate_warning(path: Path, lines: list[int]) -> None:
    warnings.warn(
        f"{path}: {len(lines):,} line(s) hold a lone surrogate, a JSON escape such as \\ud800 "
        f"that is half of a UTF-16 pair and no character (the first at line {lines[0]}); each "
        "is read as U+FFFD, the replacement character. Fix the program that wrote the file "
        "if the text matters there", DataWarning, stacklevel=4)


def _jsonl(path, on_bad_line: str = "error", bad_lines: list | None = None
           ) -> Iterator[tuple[int, dict]]:
    path = Path(path)
    if on_bad_line not in ("error", "skip"):
        raise CorpusError(f"on_bad_line must be 'error' or 'skip', got {on_bad_line!r}")
    _check_encoding(path)
    surrogates: list[int] = []
    for lineno, raw in _lines(path):
        if lineno == 1:
            raw = raw.removeprefix(codecs.BOM_UTF8)
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
            if b"\r" in raw.rstrip(b"\r\n"):  # records split by CR alone read as one line
                raise _cr_endings(path, lineno) from None
            problem = f"malformed JSON ({exc})"
        else:
            if _SURROGATE_ESCAPE.search(raw):  # a pair decodes to one character; not a lone one
                fixed = _without_surrogates(record)
                if fixed != record:
                    surrogates.append(lineno)
                    record = fixed
            yield lineno, record
            continue
        if on_bad_line == "skip":
            if bad_lines is not None:
                bad_lines.append(lineno)
            continue
        raise CorpusError(
            f"{path}, line {lineno}: {problem}. Fix or remove the line, re-encode the file as "
            "UTF-8, or skip bad lines (on_bad_line='skip' / --skip-bad-lines)")
    if surrogates:
        _surrogate_warning(path, surrogates)


def _cr_endings(path: Path, lineno: int) -> CorpusError:
    """The error for a JSON Lines file whose lines end in CR alone (classic Mac OS): every
    record then reads as one line, and JSON Lines ends its lines in LF (or CRLF). An error for
    the whole file, whatever ``on_bad_line`` says: converting it is the fix."""
    convert = (f"gunzip -c {path} | tr '\\r' '\\n' | gzip > fixed.jsonl.gz"
               if path.name.lower().endswith(".gz") else f"tr '\\r' '\\n' < {path} > fixed.jsonl")
    return CorpusError(
        f"{path}, line {lineno}: the file ends its lines with CR alone (old Mac line endings), "
        f"so its records read as one line; JSON Lines ends each line with LF (or CRLF). "
        f"Convert the line endings, e.g. {convert}")


def iter_jsonl(path, on_bad_line: str = "error", bad_lines: list | None = None) -> Iterator[dict]:
    """Yield the JSON objects of a JSONL file (``.gz`` transparently), lazily.

    Undecodable bytes or malformed JSON raise :class:`CorpusError` naming the file and line;
    with ``on_bad_line="skip"`` such lines are skipped and their numbers appended to
    ``bad_lines`` (when given). A truncated or corrupt gzip stream, or a file in another
    encoding than UTF-8, is an error whatever ``on_bad_line`` says.
    """
    return (record for _, record in _jsonl(path, on_bad_line, bad_lines))


def _batches(numbered, size: int | None) -> Iterator[pd.DataFrame]:
    """DataFrames of at most ``size`` ``(number, record)`` pairs, indexed by the numbers."""
    index, records = [], []
    for number, record in numbered:
        index.append(number)
        records.append(record)
        if len(records) == size:
            yield pd.DataFrame.from_records(records, index=pd.Index(index, dtype=np.int64))
            index, records = [], []
    if records:
        yield pd.DataFrame.from_records(records, index=pd.Index(index, dtype=np.int64))


# --------------------------------------------------------------------------- CSV and Parquet
def _first_bad_line(path: Path) -> int | None:
    for lineno, raw in _lines(path):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return lineno
    return None


def _csv(path: Path, size: int | None, label_field: str | None,
         label_sep: str | None = None) -> Iterator[pd.DataFrame]:
    _check_encoding(path)
    sep = "\t" if ".tsv" in path.name.lower() else ","
    offset = 1
    with _open_bytes(path) as raw, io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as text:
        try:
            options = dict(sep=sep, dtype=str, keep_default_na=False, na_values=[""])
            frames = ([pd.read_csv(text, **options)] if size is None
                      else pd.read_csv(text, chunksize=size, **options))
            for frame in frames:
                frame.index = pd.RangeIndex(offset, offset + len(frame))
                offset += len(frame)
                if label_field in frame.columns:
                    frame[label_field] = csv_labels(frame[label_field], label_sep)
                yield frame
        except UnicodeDecodeError:
            line = _first_bad_line(path)
            raise CorpusError(
                f"{path}{f', line {line}' if line else ''}: undecodable bytes (not UTF-8); "
                "re-encode the file as UTF-8 (e.g. iconv -f LATIN1 -t UTF-8)") from None
        except pd.errors.EmptyDataError:
            raise CorpusError(f"{path}: the file is empty (no header line); a CSV file starts "
                              "with a line naming its fields, e.g. text,label") from None
        except pd.errors.ParserError as exc:
            raise CorpusError(f"{path}: not valid CSV ({str(exc).strip()}); check the quoting "
                              "and the number of fields on that line") from None
        except (EOFError, OSError, zlib.error) as exc:
            raise _stream_error(path, exc, None) from None


def _parquet(path: Path, size: int | None, row_groups=None) -> Iterator[pd.DataFrame]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        starts = np.concatenate([[1], np.cumsum([pf.metadata.row_group(i).num_rows
                                                 for i in range(pf.num_row_groups)])])
        for group in range(pf.num_row_groups) if row_groups is None else row_groups:
            at = int(starts[group])
            tables = ([pf.read_row_group(group)] if size is None
                      else pf.iter_batches(batch_size=size, row_groups=[group]))
            for table in tables:
                frame = table.to_pandas()
                frame.index = pd.RangeIndex(at, at + len(frame))
                at += len(frame)
                yield frame
    except (pa.ArrowException, OSError) as exc:
        raise CorpusError(f"{path}: not a readable Parquet file ({exc}); check that it was "
                          "written completely, or export it again") from None


def parquet_row_groups(path: Path) -> int:
    """The number of row groups of a Parquet file (its Dask partitions)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path).metadata.num_row_groups
    except (pa.ArrowException, OSError) as exc:
        raise CorpusError(f"{path}: not a readable Parquet file ({exc}); check that it was "
                          "written completely, or export it again") from None


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
                split: str | None = None, label_sep: str | None = None
                ) -> Iterator[pd.DataFrame]:
    """The records of one file or tree (as :func:`data_files` returns them) as DataFrames of
    at most ``chunk_size`` records (``None``: one frame), indexed by record number (the line
    number for JSON Lines, counted from 1).

    Skipped JSONL lines (``on_bad_line="skip"``) are appended to ``bad_lines`` as
    ``(file, line)`` pairs. ``row_groups`` restricts a Parquet file to those row groups;
    ``label_field`` is the CSV field that ``label_sep`` splits into label lists
    (:func:`textsift.labels.csv_labels`; a CSV file only: the other formats hold lists as
    lists); ``split`` lets a directory tree read only that split's
    subtree.
    """
    path = Path(path)
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(
            chunk_size, int | np.integer) or chunk_size < 1):
        raise CorpusError(f"chunk_size must be a positive number of documents, got "
                          f"{chunk_size!r}")
    kind = file_kind(path)
    if label_sep is not None:
        _check_label_sep(path, kind, label_sep)
    if kind == "jsonl":
        lines: list[int] = []
        yield from _batches(_jsonl(path, on_bad_line, lines), chunk_size)
        if bad_lines is not None:
            bad_lines.extend((str(path), n) for n in lines)
    elif kind == "csv":
        yield from _csv(path, chunk_size, label_field, label_sep)
    elif kind == "parquet":
        yield from _parquet(path, chunk_size, row_groups)
    else:
        records = (iter_aclimdb if kind == "aclimdb" else iter_20news)(path, split)
        yield from _batches(enumerate(records, start=1), chunk_size)
