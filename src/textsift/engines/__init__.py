"""Counting engines: one in-memory matrix, streamed chunks, and Dask.

:func:`count_file` is the entry point the CLI uses (``textsift score DATA --engine
memory|stream|dask``): the same source (file, directory or glob), the same checks and the same
counts in every engine;
:mod:`.readers` cuts a source into chunks and partitions, :mod:`.stream` counts chunks (exact
and hashing modes), :mod:`.dask` runs the exact counting on a Dask cluster.
"""

from __future__ import annotations

import threading
import warnings
from contextlib import contextmanager
from functools import partial

from .._choices import ENGINES
from ..counting.counts import Counts
from ..errors import TextsiftError
from ..labels import as_labels, check_label_counts, check_label_spelling, no_labels
from ..reading.corpus import EmptyCorpusError, EmptyTextError, no_text, read_corpus
from ..reading.sources import describe
from ..text.tokens import reporting
from ..text.vectorize import VectorizerOptions
from .readers import Chunk, FilePart, file_parts, iter_chunks, no_documents
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

#: Documents per chunk of the stream and dask engines, unless told.
CHUNK_SIZE = 10_000


def count_file(path, text_field: str = "text", label_field: str = "label",
               split_field: str | None = None, split=None,
               opts: VectorizerOptions | None = None, engine: str = "stream",
               scheduler: str | None = None, chunk_size: int | None = None, *,
               on_bad_line: str = "error", bad_lines: list | None = None, classes=None,
               client=None, timeout: float = 10, progress=None,
               label_sep: str | None = None, strip_labels: bool = False,
               ranks: bool = False) -> Counts:
    """Exact counts of a corpus file, directory or glob pattern; whatever the engine, equal to
    ``Counts.from_texts`` on the corpus ``read_corpus`` loads.

    ``engine="memory"`` reads the whole corpus (:func:`textsift.reading.corpus.read_corpus`) and
    counts
    one matrix; ``engine="stream"`` reads ``chunk_size`` documents (default 10,000) at a time
    and counts in this process in two passes (:func:`count_exact`);
    ``engine="dask"`` runs the same passes on a Dask cluster, one partition per file or Parquet
    row group: the scheduler at ``scheduler`` (an error if it does not answer within
    ``timeout`` seconds), an existing ``client``, or a local cluster started for the call.
    ``path`` means the same for every engine and for :func:`textsift.reading.corpus.read_corpus`
    (:func:`textsift.reading.sources.data_files`), and the records are checked alike.
    ``on_bad_line="skip"`` skips malformed JSONL lines, appends ``(file, line)`` to
    ``bad_lines`` and warns with their number. ``progress(stage, done, total)``, when given,
    is told how far the stream and dask engines are (``textsift.engines.stream.Progress``:
    documents of each pass, or partitions of each pass), and how many documents a tokenizer
    callable has tokenised in the memory engine (``"tokenising"``); nothing is drawn. ``label_sep``
    splits a CSV label field into label lists (``"earn;acq"``): a multi-label corpus, as
    lists in JSON Lines and Parquet are.
    Labels that differ only by white space or case warn
    (:func:`~textsift.labels.check_label_spelling`); ``strip_labels`` removes the white space
    around every label. ``ranks`` reads the labels as the ranks of a scale, numbers in every
    format (``"4"``, CSV's ``04``: 4), as the ordinal methods need them; otherwise they are
    as written (CSV's are strings).
    """
    chunk_size = _check_engine(engine, chunk_size, on_bad_line, scheduler, client)
    fields = dict(text_field=text_field, label_field=label_field, split_field=split_field,
                  split=split, chunk_size=chunk_size, on_bad_line=on_bad_line,
                  label_sep=label_sep, strip_labels=strip_labels, ranks=ranks)
    skipped: list = []
    if engine == "memory":  # read_corpus checks the spelling of the labels
        corpus = read_corpus(path, text_field, label_field, split_field, split, on_bad_line,
                             skipped, label_sep, strip_labels, ranks)
        labels = as_labels(corpus.labels, classes)
        check_label_counts(labels.classes, labels.class_sizes, labels.n_docs,
                           labels.multilabel, describe(path), label_field)  # before the work
        with _tokenizing(progress, len(corpus)):
            counts = Counts.from_texts(corpus.texts, corpus.labels, opts, classes=classes)
    else:
        try:
            counts = _count_chunked(path, fields, opts, engine, scheduler, classes, client,
                                    timeout, progress, skipped)
        except EmptyCorpusError:
            raise no_documents(path, split_field, split, skipped) from None
        except EmptyTextError:
            raise no_text(describe(path), text_field) from None
        if counts.multilabel and not counts.class_sizes.any():
            raise no_labels(describe(path), label_field)
        check_label_spelling(counts.classes, describe(path))
        check_label_counts(counts.classes, counts.class_sizes, counts.n_docs,
                           counts.multilabel, describe(path), label_field)
    skipped = sorted(set(skipped))  # each pass meets the same bad lines
    if skipped:
        if bad_lines is not None:
            bad_lines.extend(skipped)
        where = ", ".join(f"{f} line {n}" for f, n in skipped[:3])
        warnings.warn(f"skipped {len(skipped)} malformed line(s): {where}"
                      + (" ..." if len(skipped) > 3 else ""), stacklevel=2)
    return counts


@contextmanager
def _tokenizing(progress, n_docs: int):
    """``progress("tokenising", documents, n_docs)`` while a tokenizer callable (Kiwi's Korean
    morphemes: a minute and more on 60,000 reviews) tokenises the corpus in memory."""
    if progress is None:
        yield
        return
    done = [0]
    lock = threading.Lock()

    def report(n: int) -> None:
        with lock:  # the counting threads report
            done[0] += n
            progress("tokenising", done[0], n_docs)

    with reporting(report):
        yield


def _check_engine(engine: str, chunk_size, on_bad_line: str, scheduler, client) -> int:
    """The engine's options checked together; the chunk size (:data:`CHUNK_SIZE` unless
    given)."""
    if engine not in ENGINES:
        raise TextsiftError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if engine == "memory" and chunk_size is not None:
        raise TextsiftError("the memory engine reads the corpus whole: a chunk size "
                            "(--chunk-size) is for the stream and dask engines; drop it, or "
                            "choose one of them (--engine)")
    chunk_size = CHUNK_SIZE if chunk_size is None else chunk_size
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise TextsiftError(f"chunk_size must be a positive number of documents, got "
                            f"{chunk_size!r}")
    if on_bad_line not in ("error", "skip"):
        raise TextsiftError(f"on_bad_line must be 'error' or 'skip', got {on_bad_line!r}")
    if scheduler is not None and (engine != "dask" or client is not None):
        raise TextsiftError("a scheduler address (--scheduler) is for the dask engine; drop "
                            "it, or choose engine='dask' (--engine dask)")
    return chunk_size


def _count_chunked(path, fields, opts, engine, scheduler, classes, client, timeout, progress,
                   skipped) -> Counts:
    if engine == "stream":
        source = partial(iter_chunks, path, bad_lines=skipped, **fields)
        return count_exact(source, opts, classes=classes, progress=progress)
    from .dask import cluster_client, count_dask

    parts = file_parts(path, **fields)
    if client is not None:
        return count_dask(parts, opts, client, classes, bad_lines=skipped, progress=progress)
    with cluster_client(scheduler, timeout) as c:
        return count_dask(parts, opts, c, classes, bad_lines=skipped, progress=progress)
