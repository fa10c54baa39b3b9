"""The formats of a corpus's files read record by record, each problem with the bytes a
:class:`~textsift.errors.CorpusError` naming the file (and line) and the fix: the bytes and
their encoding (gzip, UTF-8 or the encoding given, UTF-16 and UTF-32 recognised), JSON Lines
(:func:`iter_jsonl`: malformed lines an error or skipped, lone surrogates replaced, lines
ended by CR alone refused), CSV/TSV (every value a string, the label field split into label
lists by ``label_sep``) and Parquet (by row group: :func:`parquet_row_groups`).
:func:`textsift.reading.sources.iter_frames` reads a file through them.
"""

from __future__ import annotations

import codecs
import gzip
import io
import json
import re
import warnings
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import CorpusError, DataWarning
from ..labels import csv_labels

__all__ = ["iter_jsonl", "parquet_row_groups"]


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
        raise CorpusError(f"{path}: the file is encoded as {found}; textsift reads UTF-8 "
                          f"unless told: give --encoding {found.split()[0].lower()} "
                          f"(encoding= in Python), or re-encode it, e.g. iconv -f "
                          f"{found.split()[0]} -t UTF-8")


def _ascii_lines(encoding: str | None) -> bool:
    """Whether the encoding writes a line break as the byte ``\n`` (so lines are split on
    bytes, and each decoded alone); UTF-16 and UTF-32 do not."""
    return encoding is None or "\n".encode(encoding) == b"\n"


def _lines(path: Path, encoding: str | None = None) -> Iterator[tuple[int, bytes]]:
    """``(line number, raw line)`` of a (gzipped) file; read errors name the file. An
    ``encoding`` whose line break is not the byte ``\n`` (UTF-16, UTF-32) is recoded to
    UTF-8 on the way (undecodable bytes are then an error naming ``--encoding``)."""
    line = 0
    with _open_bytes(path) as fh:
        stream = fh if _ascii_lines(encoding) else codecs.EncodedFile(fh, "utf-8", encoding)
        try:
            for line, raw in enumerate(stream, start=1):
                yield line, raw
        except (EOFError, OSError, zlib.error) as exc:
            raise _stream_error(path, exc, line) from None
        except UnicodeError as exc:  # undecodable bytes, or UTF-16 without its mark
            reason = getattr(exc, "reason", None) or str(exc)
            raise CorpusError(f"{path}, after line {line}: bytes that do not decode as "
                              f"{encoding} ({reason}); give the file's encoding "
                              "(--encoding)") from None


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


def _jsonl(path, on_bad_line: str = "error", bad_lines: list | None = None,
           encoding: str | None = None) -> Iterator[tuple[int, dict]]:
    path = Path(path)
    if on_bad_line not in ("error", "skip"):
        raise CorpusError(f"on_bad_line must be 'error' or 'skip', got {on_bad_line!r}")
    if encoding is None:
        _check_encoding(path)
    decode = encoding if _ascii_lines(encoding) and encoding is not None else "utf-8"
    named = "UTF-8" if encoding is None else encoding
    surrogates: list[int] = []
    for lineno, raw in _lines(path, encoding):
        if lineno == 1:
            raw = raw.removeprefix(codecs.BOM_UTF8)
        try:
            line = raw.decode(decode)
            if lineno == 1:
                line = line.removeprefix("\ufeff")
            if not line.strip():
                continue
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("a JSONL line must hold a JSON object")
        except UnicodeDecodeError as exc:
            problem = f"undecodable bytes (not {named}: {exc.reason} at byte {exc.start})"
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
            f"{path}, line {lineno}: {problem}. Fix or remove the line, give the file's "
            "encoding (--encoding, e.g. latin-1) or re-encode it as UTF-8, or skip bad lines "
            "(on_bad_line='skip' / --skip-bad-lines)")
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
def _first_bad_line(path: Path, encoding: str | None = None) -> int | None:
    if not _ascii_lines(encoding):
        return None
    for lineno, raw in _lines(path):
        try:
            raw.decode(encoding or "utf-8")
        except UnicodeDecodeError:
            return lineno
    return None


def _csv(path: Path, size: int | None, label_field: str | None,
         label_sep: str | None = None, encoding: str | None = None,
         sep: str | None = None) -> Iterator[pd.DataFrame]:
    if encoding is None:
        _check_encoding(path)
    sep = sep or ("\t" if ".tsv" in path.name.lower() else ",")
    offset = 1
    with _open_bytes(path) as raw, io.TextIOWrapper(raw, encoding=encoding or "utf-8-sig",
                                                    newline="") as text:
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
        except UnicodeError:  # undecodable bytes, or a UTF-16 file without its mark
            line = _first_bad_line(path, encoding)
            raise CorpusError(
                f"{path}{f', line {line}' if line else ''}: undecodable bytes (not "
                f"{encoding or 'UTF-8'}); give the file's encoding (--encoding, e.g. latin-1) "
                "or re-encode it as UTF-8 (e.g. iconv -f LATIN1 -t UTF-8)") from None
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
