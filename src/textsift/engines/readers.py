"""Lazy, chunked readers: a corpus as a stream of :class:`Chunk` s of at most ``chunk_size``
documents, never the whole table at once.

A source is a file, a directory or a glob pattern, exactly as for
:func:`textsift.reading.corpus.read_corpus` (:func:`textsift.reading.sources.data_files`: the same
files, the
same errors), read through the same :func:`textsift.reading.sources.iter_frames` (JSONL line by
line,
CSV through ``pandas.read_csv(chunksize=...)``, Parquet through
``pyarrow.parquet.ParquetFile.iter_batches``, the directory trees file by file). Each chunk is
checked by :func:`textsift.reading.corpus.select_records`, and the label type of every chunk against
the first one's, so the streamed documents and labels -- and the errors -- are exactly the
in-memory ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ..labels import LabelForms
from ..reading.corpus import Records, no_records
from ..reading.formats import parquet_row_groups
from ..reading.sources import data_files, describe, file_kind, iter_frames

__all__ = ["Chunk", "FilePart", "data_files", "file_parts", "iter_chunks", "iter_frames"]


@dataclass(frozen=True)
class Chunk:
    """Texts and labels of consecutive documents: one label, or one label list, each."""

    texts: list[str]
    labels: np.ndarray
    #: The spellings of the labels read so far from the chunk's source, the same object
    #: for each of its chunks (a Dask partition hands them to the client, which warns when
    #: two Unicode forms of a label became one class across partitions).
    forms: LabelForms | None = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.texts)


def iter_chunks(path, text_field: str = "text", label_field: str = "label",
                split_field: str | None = None, split=None, chunk_size: int = 10_000,
                on_bad_line: str = "error", bad_lines: list | None = None,
                row_groups=None, label_sep: str | None = None, strip_labels: bool = False,
                whole: bool = True, ranks: bool = False, encoding: str | None = None,
                sep: str | None = None) -> Iterator[Chunk]:
    """Yield the (selected) documents and labels of a source, ``chunk_size`` at a time,
    checked as :func:`textsift.reading.corpus.read_corpus` checks them
    (:class:`~textsift.reading.corpus.Records`: one label type and the fields seen, across chunks
    and
    files). ``label_sep`` splits CSV labels into label lists (multi-label); ``strip_labels``
    removes the white space around each label; ``ranks`` reads the labels as numbers;
    ``encoding`` and ``sep`` read JSON Lines and CSV files (:func:`iter_frames`). After
    the last chunk of a ``whole`` source (not a Dask partition), texts that are all empty
    are an error, as in ``read_corpus``.

    Chunks left empty by the split selection are not yielded.
    """
    records = Records(text_field, label_field, split_field, split, label_sep, strip_labels,
                      ranks, encoding=encoding, sep=sep)
    for frame in records.read(path, chunk_size, on_bad_line, bad_lines, row_groups):
        if len(frame):
            yield Chunk(frame[text_field].tolist(), frame[label_field].to_numpy(),
                        records.forms)
    if whole:
        records.finish(describe(path))


def split_values(path, split_field: str | None = None, limit: int = 20) -> set[str]:
    """Up to ``limit`` distinct values of the split field in a source (read to the end: for
    the message of an empty split)."""
    field_ = split_field or "split"
    seen: set[str] = set()
    for file in data_files(path):
        for frame in iter_frames(file, 10_000, on_bad_line="skip"):
            if field_ in frame.columns:
                seen.update(frame[field_].dropna().astype(str).unique()[:limit])
            if len(seen) >= limit:
                return seen
    return seen


def no_documents(path, split_field=None, split=None, skipped=()):
    """The error for a source that yielded no (selected) document (``skipped``: the lines
    skipped as malformed)."""
    values = split_values(path, split_field) if split is not None and not skipped else ()
    return no_records(path, split_field, split, values, skipped)


@dataclass(frozen=True)
class FilePart:
    """One partition of a source for the Dask engine: a whole file, or some row groups of a
    Parquet file. Calling it streams its chunks (``kw`` are :func:`iter_chunks` options)."""

    path: str
    row_groups: tuple[int, ...] | None = None
    kw: dict = field(default_factory=dict)

    def __call__(self, bad_lines: list | None = None) -> Iterator[Chunk]:
        rg = list(self.row_groups) if self.row_groups is not None else None
        return iter_chunks(self.path, bad_lines=bad_lines, row_groups=rg, whole=False,
                           **self.kw)


def file_parts(path, **kw) -> list[FilePart]:
    """Partitions of a source: one per JSONL/CSV file (gzip streams cannot be split, and CSV
    quoting forbids splitting on newlines) and one per Parquet row group. Shard a large JSONL
    corpus into several files to spread it over several workers."""
    parts = []
    for file in data_files(path):
        if file_kind(file) == "parquet":
            parts.extend(FilePart(str(file), (i,), kw) for i in range(parquet_row_groups(file)))
        else:
            parts.append(FilePart(str(file), None, kw))
    return parts
