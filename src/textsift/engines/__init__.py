"""Counting engines beyond one in-memory matrix: streamed chunks and Dask.

:func:`count_file` is the entry point the CLI uses (``textsift score DATA --engine stream|dask``);
:mod:`.readers` cuts a source into chunks and partitions, :mod:`.stream` counts chunks (exact
and hashing modes), :mod:`.dask` runs the exact counting on a Dask cluster.
"""

from __future__ import annotations

import warnings
from functools import partial

from ..counts import Counts
from ..vectorize import VectorizerOptions
from .readers import Chunk, FilePart, file_parts, iter_chunks
from .stream import (
    DocumentFrequencies,
    count_exact,
    count_hashed,
    name_buckets,
    recover_terms,
)

__all__ = [
    "Chunk",
    "DocumentFrequencies",
    "FilePart",
    "count_exact",
    "count_file",
    "count_hashed",
    "file_parts",
    "iter_chunks",
    "name_buckets",
    "recover_terms",
]

ENGINES = ("stream", "dask")


def count_file(path, text_field: str = "text", label_field: str = "label",
               split_field: str | None = None, split=None,
               opts: VectorizerOptions | None = None, engine: str = "stream",
               scheduler: str | None = None, chunk_size: int = 10_000, *,
               on_bad_line: str = "error", bad_lines: list | None = None, classes=None,
               client=None, timeout: float = 10, progress: bool | None = None) -> Counts:
    """Exact counts of a corpus file, directory of files or glob, read ``chunk_size`` documents
    at a time; equal to ``Counts.from_texts`` on the corpus ``read_corpus`` would load.

    ``engine="stream"`` counts in this process in two passes (:func:`count_exact`);
    ``engine="dask"`` runs the same passes on a Dask cluster, one partition per file or Parquet
    row group: the scheduler at ``scheduler`` (``TimeoutError`` if it does not answer within
    ``timeout`` seconds), an existing ``client``, or a local cluster started for the call.
    ``on_bad_line="skip"`` skips malformed JSONL lines, appends ``(file, line)`` to
    ``bad_lines`` and warns with their number. ``progress`` (default: when stderr is a
    terminal) draws the stream engine's progress.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive number of documents, got {chunk_size!r}")
    if on_bad_line not in ("error", "skip"):
        raise ValueError(f"on_bad_line must be 'error' or 'skip', got {on_bad_line!r}")
    fields = dict(text_field=text_field, label_field=label_field, split_field=split_field,
                  split=split, chunk_size=chunk_size, on_bad_line=on_bad_line)
    skipped: list = []
    if engine == "stream":
        if progress is None:
            import sys

            progress = sys.stderr.isatty()
        source = partial(iter_chunks, path, bad_lines=skipped, **fields)
        counts = count_exact(source, opts, classes=classes, progress=progress)
    else:
        from .dask import cluster_client, count_dask

        parts = file_parts(path, **fields)
        if client is not None:
            counts = count_dask(parts, opts, client, classes, bad_lines=skipped)
        else:
            with cluster_client(scheduler, timeout) as c:
                counts = count_dask(parts, opts, c, classes, bad_lines=skipped)
    skipped = sorted(set(skipped))  # each pass meets the same bad lines
    if skipped:
        if bad_lines is not None:
            bad_lines.extend(skipped)
        where = ", ".join(f"{f} line {n}" for f, n in skipped[:3])
        warnings.warn(f"skipped {len(skipped)} malformed line(s): {where}"
                      + (" ..." if len(skipped) > 3 else ""), stacklevel=2)
    return counts
