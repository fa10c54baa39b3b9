"""Lazy, chunked readers: a corpus as a stream of :class:`Chunk` s of at most ``chunk_size``
documents, never the whole table at once.

A source is a JSONL (``.jsonl``/``.ndjson``, plain or ``.gz``), CSV/TSV or Parquet file, a
directory of such files, or a glob pattern; files are read in sorted order. JSONL goes through
:func:`textsift.corpus.iter_jsonl` (so a malformed line names its file and line, and
``on_bad_line="skip"`` skips and counts it), CSV through ``pandas.read_csv(chunksize=...)`` and
Parquet through ``pyarrow.parquet.ParquetFile.iter_batches``. Each chunk is checked the way
:func:`textsift.corpus.read_corpus` checks a whole corpus (fields present, split selected,
missing text read as ``""``, a missing label is an error), so the streamed documents and labels
are exactly the in-memory ones.

Caveat: CSV column types are inferred per chunk by pandas; a label column whose values look
numeric in one chunk and not in another gives mixed label types. Use JSONL or Parquet (typed)
for such data.
"""

from __future__ import annotations

import glob
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..corpus import CorpusError, iter_jsonl, select_records

__all__ = ["Chunk", "FilePart", "data_files", "file_parts", "iter_chunks", "iter_frames"]

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz", ".json", ".json.gz")
CSV_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".tsv.gz")
PARQUET_SUFFIXES = (".parquet", ".pq")
DATA_SUFFIXES = JSONL_SUFFIXES + CSV_SUFFIXES + PARQUET_SUFFIXES


@dataclass(frozen=True)
class Chunk:
    """Texts and labels of consecutive documents."""

    texts: list[str]
    labels: np.ndarray

    def __len__(self) -> int:
        return len(self.texts)


def data_files(path) -> list[Path]:
    """The data files of a source: the file itself, the data files directly inside a directory,
    or the files matching a glob pattern, sorted by name."""
    text = str(path)
    p = Path(text)
    if p.is_file():
        return [p]
    if p.is_dir():
        files = sorted(f for f in p.iterdir()
                       if f.is_file() and f.name.lower().endswith(DATA_SUFFIXES))
        if not files:
            raise CorpusError(
                f"{p}: no .jsonl(.gz), .csv or .parquet files in this directory. The streaming "
                "engines read data files; for an aclImdb / 20news-bydate tree use --engine memory"
            )
        return files
    if glob.has_magic(text):
        files = sorted(Path(f) for f in glob.glob(text) if Path(f).is_file())
        if files:
            return files
        raise CorpusError(f"{text}: the pattern matches no files; check the path")
    raise CorpusError(f"{p}: no such file or directory; check the path")


def _kind(path: Path) -> str:
    name = path.name.lower()
    for kind, suffixes in (("jsonl", JSONL_SUFFIXES), ("csv", CSV_SUFFIXES),
                           ("parquet", PARQUET_SUFFIXES)):
        if name.endswith(suffixes):
            return kind
    raise CorpusError(f"{path}: unknown file type; use .jsonl(.gz), .csv(.gz), .tsv or .parquet")


def iter_frames(path, chunk_size: int = 10_000, on_bad_line: str = "error",
                bad_lines: list | None = None, row_groups=None) -> Iterator[pd.DataFrame]:
    """Yield the records of one data file as DataFrames of at most ``chunk_size`` rows.

    Skipped JSONL lines (``on_bad_line="skip"``) are appended to ``bad_lines`` as
    ``(file, line)`` pairs. ``row_groups`` restricts a Parquet file to those row groups.
    """
    path = Path(path)
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive number of documents, got {chunk_size}")
    kind = _kind(path)
    if kind == "jsonl":
        lines: list[int] = []
        records = iter_jsonl(path, on_bad_line=on_bad_line, bad_lines=lines)
        while batch := list(itertools.islice(records, chunk_size)):
            yield pd.DataFrame.from_records(batch)
        if bad_lines is not None:
            bad_lines.extend((str(path), n) for n in lines)
    elif kind == "csv":
        sep = "\t" if ".tsv" in path.name.lower() else ","
        try:
            reader = pd.read_csv(path, sep=sep, chunksize=chunk_size, keep_default_na=False,
                                 na_values=[""], encoding="utf-8")
            yield from reader
        except UnicodeDecodeError:
            raise CorpusError(
                f"{path}: undecodable bytes (not UTF-8); re-encode the file as UTF-8"
            ) from None
    else:
        import pyarrow.parquet as pq

        batches = pq.ParquetFile(path).iter_batches(batch_size=chunk_size, row_groups=row_groups)
        for batch in batches:
            yield batch.to_pandas()


def _to_chunk(frame: pd.DataFrame, source, text_field, label_field, split_field, split,
              offset: int) -> Chunk:
    """Check and select one frame as :func:`textsift.corpus.read_corpus` does a corpus."""
    frame = select_records(frame, source, text_field, label_field, split_field, split, offset)
    if not len(frame):
        return Chunk([], np.empty(0))
    return Chunk(frame[text_field].tolist(), frame[label_field].to_numpy())


def iter_chunks(path, text_field: str = "text", label_field: str = "label",
                split_field: str | None = None, split=None, chunk_size: int = 10_000,
                on_bad_line: str = "error", bad_lines: list | None = None,
                row_groups=None) -> Iterator[Chunk]:
    """Yield the (selected) documents and labels of a source, ``chunk_size`` at a time.

    Chunks left empty by the split selection are not yielded.
    """
    for file in data_files(path):
        seen = 0
        for frame in iter_frames(file, chunk_size, on_bad_line, bad_lines, row_groups):
            chunk = _to_chunk(frame, file, text_field, label_field, split_field, split, seen)
            seen += len(chunk)
            if len(chunk):
                yield chunk


@dataclass(frozen=True)
class FilePart:
    """One partition of a source for the Dask engine: a whole file, or some row groups of a
    Parquet file. Calling it streams its chunks (``kw`` are :func:`iter_chunks` options)."""

    path: str
    row_groups: tuple[int, ...] | None = None
    kw: dict = field(default_factory=dict)

    def __call__(self, bad_lines: list | None = None) -> Iterator[Chunk]:
        rg = list(self.row_groups) if self.row_groups is not None else None
        return iter_chunks(self.path, bad_lines=bad_lines, row_groups=rg, **self.kw)


def file_parts(path, **kw) -> list[FilePart]:
    """Partitions of a source: one per JSONL/CSV file (gzip streams cannot be split, and CSV
    quoting forbids splitting on newlines) and one per Parquet row group. Shard a large JSONL
    corpus into several files to spread it over several workers."""
    parts = []
    for file in data_files(path):
        if _kind(file) == "parquet":
            import pyarrow.parquet as pq

            n = pq.ParquetFile(file).metadata.num_row_groups
            parts.extend(FilePart(str(file), (i,), kw) for i in range(n))
        else:
            parts.append(FilePart(str(file), None, kw))
    return parts
