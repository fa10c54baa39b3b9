"""N-grams of numbered items (words, characters), packed into integers and counted.

An n-gram of items numbered ``1..A`` (``A`` below ``2^b``) is one integer: ``b`` bits an item,
the first item highest, a shorter n-gram padded with zeros --
``r_1 2^{b(n-1)} + ... + r_k 2^{b(n-k)}`` for ``k <= n`` items. When the items are numbered in
the order of their strings, integer order is the order of the n-grams' strings with a prefix
first: Python's order of joined words (:mod:`textsift.text.tokens`) or of substrings
(:mod:`textsift.text.chars`). :func:`window_keys` forms the keys of every window of a document;
:func:`tally` counts them into a document-term matrix by sorting integers, not strings (the
character n-grams; word n-grams are counted by the compiled kernel of :mod:`textsift.text.tokens`,
on the same packing).
Everything must fit 63 bits: the key's ``n b`` and a part's document numbers;
:class:`NotPackable` otherwise (the caller falls back to ``CountVectorizer``).
"""

from __future__ import annotations

import ctypes
import threading
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

import numpy as np
import scipy.sparse as sp

__all__ = ["MAX_PAIRS", "NotPackable", "Stopped", "pool_map", "stack_rows",
           "stopping", "tally", "window_keys"]

#: (n-gram, document) pairs sorted at once by :func:`tally`: bounds its memory (about 24
#: bytes a pair while sorting) whatever the corpus.
MAX_PAIRS = 4_000_000


class NotPackable(Exception):
    """The n-grams asked for do not fit 63 bits (too many words or characters, or n too
    large): the caller counts with ``CountVectorizer`` instead."""


class Stopped(Exception):
    """A job of :func:`pool_map` stopped because another one failed or Ctrl-C came."""


_STOP = threading.Event()
#: How often (seconds) the thread waiting for :func:`pool_map`'s jobs wakes up.
POLL_SECONDS = 0.1


def release_freed() -> None:
    """Give the memory of freed arrays back to the system (glibc's ``malloc_trim``; nothing
    elsewhere). Written by hand because no library does it: once a large array has been
    freed, glibc keeps arrays below 32 MB on its heap (its mmap threshold rises), so the
    parts that :func:`tally` and :func:`stack_rows` free one by one would stay resident while
    the final matrix is written beside them -- the peak twice the matrix. Called after each
    freed part, the peak is the matrix plus one part."""
    trim = getattr(_LIBC, "malloc_trim", None)
    if trim is not None:
        trim(0)


try:
    _LIBC = ctypes.CDLL(None)  # the running process's C library
except OSError:  # pragma: no cover - a platform without one to open
    _LIBC = None


def stopping() -> bool:
    """Whether the jobs of :func:`pool_map` are to stop: a long job (a tokenizer's pass over
    its block) asks between documents, and raises :class:`Stopped`."""
    return _STOP.is_set()


def pool_map(fn, jobs, threads: int) -> list:
    """``[fn(j) for j in jobs]``, on ``threads`` threads when there are several jobs. When
    the caller's wait is interrupted (Ctrl-C) or a job fails, the jobs still running are
    told to stop (:func:`stopping`) before the pool is shut down: an interrupted run ends
    within a document, not when its blocks are done (the Korean tokenizer's took 40 s). The
    wait wakes every ``POLL_SECONDS``: a Ctrl-C that the kernel hands to a worker thread
    (Kiwi's, busy) only sets Python's flag, which the main thread must wake to act on."""
    threads = min(len(jobs), threads)
    if threads <= 1:
        return [fn(j) for j in jobs]
    pool = ThreadPoolExecutor(threads)
    try:
        futures = [pool.submit(fn, job) for job in jobs]
        while wait(futures, POLL_SECONDS, FIRST_EXCEPTION).not_done:
            if any(f.done() and f.exception() is not None for f in futures):
                break
        return [f.result() for f in futures]
    except BaseException:
        _STOP.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _STOP.clear()


def window_keys(r, lengths, sizes, bits: int, high: int, shorter: bool = False):
    """Packed keys of the windows of ``sizes`` consecutive items (numbered ``r``, ``1..``;
    ``lengths`` of them per document, end to end), ``bits`` an item: ``(keys, docs,
    n_docs)``, ``docs`` each key's document (int32); ``shorter`` keeps only windows shorter
    than their document (char_wb's). Written into arrays of the final size."""
    lengths = np.asarray(lengths, np.int64)
    doc = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
    room = np.repeat(np.cumsum(lengths).astype(np.int32), lengths)  # items left in its doc
    room -= np.arange(len(r), dtype=np.int32)
    size = np.repeat(lengths.astype(np.int32), lengths) if shorter else None
    counts = {n: int(np.count_nonzero((room >= n) & (size > n) if shorter else room >= n))
              for n in sizes}
    keys = np.empty(sum(counts.values()), np.int64)
    docs = np.empty(len(keys), np.int32)
    key = np.zeros(len(r), np.int64)
    at = 0
    for n in range(1, min(high, len(r)) + 1):  # key: the n items from each position
        key[:len(r) - n + 1] |= r[n - 1:].astype(np.int64) << (bits * (high - n))
        if n in sizes:
            valid = (room >= n) & (size > n) if shorter else room >= n
            keys[at:at + counts[n]] = key[valid]
            docs[at:at + counts[n]] = doc[valid]
            at += counts[n]
    return keys, docs, len(lengths)


def tally(keyed, blocks, key_bits: int, n_threads: int = 1):
    """Counts of packed, non-negative keys in each document: ``(X, vocab)``, ``X`` the
    canonical CSR matrix (documents x distinct keys, int32) and ``vocab`` the distinct keys,
    sorted. ``keyed(block)`` gives a block's ``(keys, docs, n_docs)``: its keys (each below
    ``2**key_bits``), the document of each (``0..n_docs-1`` within the block) and its number
    of documents. Blocks are keyed and counted on ``n_threads`` threads, their rows stacked.

    Written by hand (no library counts pairs of integers into a sparse matrix by sorting):
    a block is cut into parts of about :data:`MAX_PAIRS` keys whose document numbers fit
    beside the key in 63 bits; each part's ``key << d | document`` values are sorted by
    Polars (multi-threaded), equal runs counted, and the part's matrix read off by columns
    (CSC, rows sorted; scipy's conversion to CSR is linear). The parts' vocabularies are then
    merged (a monotone renumbering keeps each row sorted)."""
    if key_bits > 62:
        raise NotPackable
    boxes = [[b] for b in blocks]  # each block is freed once counted (taken from its box)
    blocks.clear()
    def count(box):
        parts = _tally_block(*keyed(box.pop()), key_bits)
        release_freed()  # the block's keys, freed on return from _tally_block
        return parts

    parts = [p for ps in pool_map(count, boxes, n_threads) for p in ps]
    if len(parts) == 1:
        return parts[0]
    vocab = np.unique(np.concatenate([v for _, v in parts]))
    return stack_rows([(X, np.searchsorted(vocab, v)) for X, v in parts], len(vocab)), vocab


def stack_rows(parts: list, n_columns: int) -> sp.csr_matrix:
    """The rows of canonical CSR matrices one under the other, the columns of each renumbered
    by its (increasing) ``where`` (``parts``: ``(X, where)`` pairs, or ``(X, None)``), into
    arrays of the final size; each part is freed once copied (``parts`` is emptied)."""
    nnz = sum(X.nnz for X, _ in parts)
    data, indices = np.empty(nnz, np.int32), np.empty(nnz, np.int32)
    indptr, row, at = np.zeros(sum(X.shape[0] for X, _ in parts) + 1, np.int64), 0, 0
    while parts:
        X, where = parts.pop(0)
        data[at:at + X.nnz] = X.data
        indices[at:at + X.nnz] = X.indices if where is None else where[X.indices]
        indptr[row + 1:row + X.shape[0] + 1] = X.indptr[1:] + at
        row, at = row + X.shape[0], at + X.nnz
        del X, where
        release_freed()
    X = sp.csr_matrix((data, indices, indptr), shape=(row, n_columns))
    X.has_sorted_indices = True
    return X


def _tally_block(keys, docs, n_docs: int, key_bits: int):
    """The parts of one block (:func:`tally`), counted one after the other."""
    max_docs = 1 << min(63 - key_bits, 31)
    if len(keys) <= MAX_PAIRS and n_docs <= max_docs:
        return [_tally_part(keys, docs, n_docs)]
    ends = np.cumsum(np.bincount(docs, minlength=n_docs))
    cuts, start = [0], 0
    while start < n_docs:
        base = int(ends[start - 1]) if start else 0
        stop = int(np.searchsorted(ends, base + MAX_PAIRS, side="right"))
        start = min(max(stop, start + 1), start + max_docs, n_docs)
        cuts.append(start)
    parts = []
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):
        inside = (docs >= a) & (docs < b)
        parts.append(_tally_part(keys[inside], docs[inside] - a, b - a))
    return parts


def _tally_part(keys, docs, n: int):
    import polars as pl

    doc_bits = max(n - 1, 1).bit_length()
    packed = keys << doc_bits
    packed |= docs
    packed = pl.Series(packed).sort().to_numpy()  # (the unsorted array is freed here)
    if not len(packed):
        return sp.csr_matrix((n, 0), dtype=np.int32), np.zeros(0, np.int64)
    new = np.empty(len(packed), bool)
    new[0] = True
    np.not_equal(packed[1:], packed[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    counts = np.diff(np.r_[starts, len(packed)]).astype(np.int32)
    pairs = packed[starts]
    del packed, new, starts
    key, rows = pairs >> doc_bits, (pairs & ((1 << doc_bits) - 1)).astype(np.int32)
    first = np.empty(len(key), bool)
    first[0] = True
    np.not_equal(key[1:], key[:-1], out=first[1:])
    column_starts = np.flatnonzero(first)
    indptr = np.r_[column_starts, len(key)].astype(np.int64)
    by_column = sp.csc_matrix((counts, rows, indptr), shape=(n, len(column_starts)))
    return by_column.tocsr(), key[column_starts]
