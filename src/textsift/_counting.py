"""How the (V, m) tables of :class:`~textsift.counts.Counts` are counted and scanned: in one
pass over a matrix's entries for a small table, by blocks of terms for a large one, so that
no temporary of the table's size is made on the way (the table itself is the only array of
that size), and the narrowest exact integer type for the counts.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["BLOCK_CELLS", "DIRECT_CELLS", "count_dtype", "count_table", "nonzero_cells"]

#: Cells per block when a (V, m) table is counted or scanned by blocks of terms (8 MB of
#: int64): small enough to stay in cache, large enough that the loop costs nothing.
BLOCK_CELLS = 2**20
#: Up to this many cells a table is counted in one pass over the matrix's entries (a
#: ``bincount`` of the whole table, at most 64 MB of int64); above it, by blocks of terms,
#: which costs a sort of the entries (``tocsc``) but no temporary of the table's size. (Timed
#: once, at load 8 on 2 cores: 20 Newsgroups, 2.6M cells, 73 ms at once and 141 ms by blocks;
#: the synthetic corpus of ``bench/scores.py`` with 200 classes, 20M cells, 1.23 s and 0.40 s.)
DIRECT_CELLS = 2**23


def count_dtype(n_docs: int) -> type:
    """The narrowest signed integer type that holds every count of ``n_docs`` documents
    (a count of documents never exceeds it): ``int32`` or ``int64``."""
    return np.int32 if n_docs < 2**31 else np.int64


def count_table(X: sp.csr_matrix, codes, m: int, multiplicity, dtype, with_tf: bool):
    """``(doc_counts, term_freq or None)`` of a CSR matrix against class codes: at once up to
    :data:`DIRECT_CELLS` cells (:func:`count_cells`), else by blocks of terms
    (:func:`count_cells_by_blocks`)."""
    small = X.shape[1] * m <= DIRECT_CELLS
    return (count_cells if small else count_cells_by_blocks)(X, codes, m, multiplicity, dtype,
                                                             with_tf)


def count_cells(X: sp.csr_matrix, codes, m: int, multiplicity, dtype, with_tf: bool):
    """``(doc_counts, term_freq)`` of a CSR matrix in one ``bincount`` each: the cell
    ``term * m + class`` of every entry, counted in place in the (V, m) layout."""
    n_terms = X.shape[1]
    per_doc = np.diff(X.indptr)
    key = X.indices.astype(np.intp)  # in place from here: few fresh pages
    key *= m
    key += np.repeat(codes.astype(np.min_scalar_type(m)), per_doc)
    weight = None if multiplicity is None else np.repeat(multiplicity, per_doc)
    docs, tf = _bincounts(key, X.data, weight, n_terms * m, dtype, with_tf)
    return docs.reshape(n_terms, m), None if tf is None else tf.reshape(n_terms, m)


def count_cells_by_blocks(X: sp.csr_matrix, codes, m: int, multiplicity, dtype,
                           with_tf: bool):
    """The counts of :func:`count_cells` by blocks of :data:`BLOCK_CELLS` cells: the entries
    in column order (``tocsc``, a counting sort), each block of terms one slice of them,
    counted into a small table and written into the (V, m) result -- no int64 or float64
    table of the whole size on the way. Within a cell the entries come in document order, as
    in the CSR, so every sum (the weights of ``term_freq``) is the same to the bit."""
    n_terms = X.shape[1]
    Xc = X.tocsc()
    code = codes[Xc.indices]
    weight = None if multiplicity is None else multiplicity[Xc.indices]
    docs = np.empty((n_terms, m), dtype)
    tf = np.empty((n_terms, m)) if with_tf else None
    rows = max(1, BLOCK_CELLS // m)
    for start in range(0, n_terms, rows):
        stop = min(n_terms, start + rows)
        lo, hi = Xc.indptr[start], Xc.indptr[stop]
        key = np.repeat(np.arange(stop - start), np.diff(Xc.indptr[start:stop + 1])) * m
        key += code[lo:hi]
        d, t = _bincounts(key, Xc.data[lo:hi], None if weight is None else weight[lo:hi],
                          (stop - start) * m, dtype, with_tf)
        docs[start:stop] = d.reshape(stop - start, m)
        if with_tf:
            tf[start:stop] = t.reshape(stop - start, m)
    return docs, tf


def _bincounts(key, data, weight, size: int, dtype, with_tf: bool):
    """Presence counts (``data > 0``, each entry ``weight`` times) and summed weights of the
    cells ``key``, as ``(dtype array, float64 array or None)``."""
    present = data > 0
    if present.all():
        docs = np.bincount(key, weights=weight, minlength=size)
    else:
        docs = np.bincount(key[present], minlength=size,
                           weights=None if weight is None else weight[present])
    if weight is not None:  # float sums of integers: exact, but of float type
        docs = np.rint(docs)
    tf = None
    if with_tf:
        tf = np.bincount(key, weights=data if weight is None else data * weight, minlength=size)
    return docs.astype(dtype), tf


def nonzero_cells(doc_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(flat, a)``: the flat (V, m) index of every non-zero cell, ascending, and its count
    as float64 -- found by blocks of :data:`BLOCK_CELLS` cells (no mask of the whole table)."""
    n_terms, m = doc_counts.shape
    rows = max(1, BLOCK_CELLS // max(m, 1))
    flats, values = [], []
    for start in range(0, n_terms, rows):
        block = doc_counts[start:start + rows].ravel()
        nz = np.flatnonzero(block != 0)  # via a mask: twice as fast
        values.append(block[nz].astype(np.float64))
        nz += start * m
        flats.append(nz)
    if not flats:
        return np.zeros(0, dtype=np.intp), np.zeros(0)
    return np.concatenate(flats), np.concatenate(values)
