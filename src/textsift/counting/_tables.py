"""How the (V, m) tables of :class:`~textsift.counting.counts.Counts` are counted and scanned: in
one
pass over a matrix's entries for a small table, by blocks of terms for a large one, so that
no temporary of the table's size is made on the way (the table itself is the only array of
that size), and the narrowest exact integer type for the counts; or, for a table whose cells
are mostly zero, as a sparse matrix of its non-zero cells (:func:`count_sparse`), and which
of the two layouts a table takes (:func:`choose_layout`), refused with the memory it would
need when it cannot fit (:func:`check_fits`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["BLOCK_CELLS", "DIRECT_CELLS", "LAYOUTS", "SMALL_TABLE", "SPARSE_BELOW", "check_fits",
           "choose_layout", "count_dtype", "count_sparse", "count_table", "nonzero_cells"]

#: Cells per block when a (V, m) table is counted or scanned by blocks of terms (8 MB of
#: int64): small enough to stay in cache, large enough that the loop costs nothing.
BLOCK_CELLS = 2**20
#: Up to this many cells a table is counted in one pass over the matrix's entries (a
#: ``bincount`` of the whole table, at most 64 MB of int64); above it, by blocks of terms,
#: which costs a sort of the entries (``tocsc``) but no temporary of the table's size. (Timed
#: once, at load 8 on 2 cores: 20 Newsgroups, 2.6M cells, 73 ms at once and 141 ms by blocks;
#: the synthetic corpus of ``bench/scores.py`` with 200 classes, 20M cells, 1.23 s and 0.40 s.)
DIRECT_CELLS = 2**23
#: The layouts of the (V, m) tables: ``dense`` (a (V, m) array), ``sparse`` (a scipy sparse
#: matrix of the non-zero cells), or ``auto``, chosen by :func:`choose_layout`.
LAYOUTS = ("auto", "dense", "sparse")
#: ``auto`` keeps a table sparse when fewer than this fraction of its cells are non-zero: a
#: sparse cell costs 8 bytes (its count and its term's index, 4 each) against 4 for every
#: cell of a dense table, and every per-class score reads only the non-zero cells, which a
#: dense table must first be scanned for -- below 1/16 the sparse form is at least 8 times
#: smaller and never slower to score.
SPARSE_BELOW = 1 / 16
#: Tables of at most this many cells (4 MiB of int32) stay dense under ``auto``, however
#: sparse: small enough that the layout does not matter.
SMALL_TABLE = 2**20


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


def choose_layout(layout: str, n_cells: int, n_nonzero: int) -> str:
    """``dense`` or ``sparse`` for a table of ``n_cells`` cells of which ``n_nonzero`` (or an
    upper bound) are non-zero: ``layout`` itself unless it is ``auto``, which is sparse for a
    table of more than :data:`SMALL_TABLE` cells with fewer than :data:`SPARSE_BELOW` of them
    non-zero."""
    if layout not in LAYOUTS:
        from ..errors import TextsiftError

        raise TextsiftError(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
    if layout != "auto":
        return layout
    return "sparse" if n_cells > SMALL_TABLE and n_nonzero < SPARSE_BELOW * n_cells else "dense"


def available_memory() -> int | None:
    """Bytes this process may still allocate: the system's available memory (Linux's
    ``MemAvailable``), or less under a control group's limit; ``None`` where unknown."""
    found = []
    try:
        with open("/proc/meminfo") as fh:
            found += [int(line.split()[1]) * 1024 for line in fh
                      if line.startswith("MemAvailable:")]
    except OSError:
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as fh:
            limit = fh.read().strip()
        with open("/sys/fs/cgroup/memory.current") as fh:
            if limit != "max":
                found.append(int(limit) - int(fh.read().strip()))
    except (OSError, ValueError):
        pass
    return min(found) if found else None


def check_fits(n_terms: int, n_classes: int, bytes_per_cell: int, what: str, fix: str) -> None:
    """Refuse a dense (V, m) array that cannot fit in the memory available
    (:func:`available_memory`), naming the memory it would need and ``fix``, instead of
    failing in the middle of the work with a ``MemoryError``."""
    need = n_terms * n_classes * bytes_per_cell
    free = available_memory()
    if free is not None and need > free:
        from ..errors import TextsiftError

        raise TextsiftError(
            f"{what} of {n_terms:,} terms x {n_classes:,} classes would need "
            f"{_gib(need)} ({bytes_per_cell} bytes a cell), more than the {_gib(free)} of "
            f"memory available; {fix}")


def _gib(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.0f} MiB"


def count_sparse(X: sp.csr_matrix, Y: sp.csr_matrix, dtype, with_tf: bool):
    """``(doc_counts, term_freq or None)`` as (V, m) CSC matrices of the non-zero cells: the
    sparse products ``(Y^T P)^T`` and ``(Y^T X)^T`` of the 0/1 indicator (or count-weighted:
    multiplicities) ``Y`` (n x m) with the presence ``P = X > 0`` and the weights, as
    scikit-learn's ``chi2`` computes ``Y^T X`` (scipy's sparse product). ``X`` holds no
    stored zero (a stored zero would add a cell with no document), so both products have the
    same cells, in the same order: the term weights share the counts' index arrays. Within a
    cell the weights add in document order, as :func:`count_cells` adds them."""
    YT = Y.T.tocsr()
    presence = sp.csr_matrix((np.ones(X.nnz, dtype), X.indices, X.indptr), shape=X.shape)
    docs = YT.astype(dtype) @ presence
    tf = None
    if with_tf:
        weights = YT.astype(np.float64) @ X
        if not (np.array_equal(weights.indptr, docs.indptr)
                and np.array_equal(weights.indices, docs.indices)):
            raise AssertionError("the products Y^T P and Y^T X have different cells")
        tf = _no_duplicates(sp.csc_matrix((weights.data, docs.indices, docs.indptr),
                                          shape=docs.shape[::-1]))
    return _no_duplicates(sp.csc_matrix((docs.data, docs.indices, docs.indptr),
                                        shape=docs.shape[::-1])), tf


def _no_duplicates(table):
    """Mark a sparse product's cells as distinct (each is one sum of the product), though
    not sorted within a column: :class:`~textsift.counting.counts.Counts` then keeps them as they
    are
    (sorting them, which nothing needs, costs as much as the product)."""
    table.textsift_distinct = True
    return table
