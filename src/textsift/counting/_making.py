"""How the tables of a :class:`~textsift.counting.counts.Counts` are made from what it is
given: a document-term matrix checked (:func:`as_csr`) and counted by sparse products against
any labelling (:func:`count_by_product`), tables given in the sparse layout made canonical
(:func:`sparse_tables`), and two counts' tables added over the union of their classes
(:func:`add_dense`, :func:`add_sparse`). It returns arrays and the fields of a ``Counts``,
never one: ``counts`` imports it, not the other way round.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..errors import TextsiftError
from ._tables import check_fits, choose_layout, count_dtype, count_sparse

__all__ = ["add_dense", "add_sparse", "as_csr", "cell_keys", "count_by_product",
           "sparse_tables"]


def as_csr(X) -> sp.csr_matrix:
    if sp.issparse(X):
        X = X.tocsr()
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise TextsiftError(
                f"X must be two-dimensional (documents x terms), got shape {X.shape}")
        X = sp.csr_matrix(X)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    if X.data.size and not np.all(np.isfinite(X.data)):
        raise TextsiftError("X contains NaN or infinite values; term weights must be finite")
    if X.data.size and X.data.min() < 0:
        raise TextsiftError(
            "Negative values in data: X holds term weights, which must be counts or >= 0")
    return X


def count_by_product(X: sp.csr_matrix, labels, feature_names, multiplicity, with_tf: bool,
                     layout: str) -> dict:
    """The counts of any labelling by sparse products (``Counts.from_matrix``): ``N``,
    ``df`` and ``TF(t)`` from one pass over the non-zeros of ``X``, the (V, m) cells from the
    products ``Y^T P`` and ``Y^T X`` of the indicator ``Y`` (weighted by ``multiplicity``;
    ``textsift.counting._tables.count_sparse``), kept sparse or written dense by ``layout``."""
    n_docs, n_terms = X.shape
    Y = labels.indicator
    weight = None
    if multiplicity is not None:
        Y = sp.csr_matrix(Y.multiply(multiplicity.astype(np.int64)[:, None]))
        weight = np.repeat(multiplicity, np.diff(X.indptr))
    n = int(n_docs if multiplicity is None else multiplicity.sum())
    present = X.data > 0
    if not present.all():  # a stored zero is no entry: no cell, no weight
        X = sp.csr_matrix((X.data[present], X.indices[present],
                           np.r_[0, np.cumsum(present)][X.indptr]), shape=X.shape)
        weight = None if weight is None else weight[present]
    docs, term_freq = count_sparse(X, Y, count_dtype(n), with_tf)
    if choose_layout(layout, n_terms * labels.n_classes, docs.nnz) == "dense":
        check_fits(n_terms, labels.n_classes, docs.dtype.itemsize + 8 * with_tf,
                   "a dense count table", "count with layout='sparse' (or 'auto')")
        docs = docs.toarray()
        term_freq = None if term_freq is None else term_freq.toarray()
    df = np.bincount(X.indices, minlength=n_terms, weights=weight)
    data = X.data if weight is None else X.data * weight
    return dict(
        classes=labels.classes,
        class_sizes=np.asarray(Y.sum(axis=0)).ravel().astype(np.int64),
        doc_counts=docs,
        term_freq=term_freq,
        feature_names=feature_names,
        n_docs=n,
        df=np.rint(df).astype(np.int64),
        tf=np.bincount(X.indices, weights=data, minlength=n_terms) if with_tf else None,
        multilabel=labels.multilabel,
    )


def sparse_tables(doc_counts, term_freq):
    """``(doc_counts, term_freq)`` of the sparse layout: CSC matrices with each cell once and
    no stored zero (sorted within a column, but for a sparse product's, which are distinct as
    they come), the term weights on the cells of the counts -- a weight where no document has
    the term is refused."""
    docs = sp.csc_matrix(doc_counts)
    if docs.dtype.kind not in "iu":
        raise TextsiftError(f"doc_counts must hold integer counts, got dtype {docs.dtype}")
    if not (docs.has_canonical_format or getattr(doc_counts, "textsift_distinct", False)):
        docs = docs.copy()  # sorted, and each cell once
        docs.sum_duplicates()
    if docs.data.size and (docs.data == 0).any():
        docs = docs.copy()
        docs.eliminate_zeros()
    if term_freq is None:
        return docs, None
    weights = sp.csc_matrix(term_freq, dtype=np.float64)
    if weights.shape != docs.shape:
        raise TextsiftError(f"term_freq has shape {weights.shape}, doc_counts {docs.shape}")
    same = (weights.indptr is docs.indptr and weights.indices is docs.indices) or (
        (weights.has_canonical_format or getattr(term_freq, "textsift_distinct", False))
        and np.array_equal(weights.indptr, docs.indptr)
        and np.array_equal(weights.indices, docs.indices))
    if not same:  # the weights looked up on the counts' cells (keys: column-major index)
        weights = weights.copy()
        weights.sum_duplicates()
        weights.eliminate_zeros()
        n_rows = docs.shape[0]
        have = cell_keys(weights, n_rows)
        want = cell_keys(docs, n_rows)
        if not np.isin(have, want).all():
            raise TextsiftError("term_freq has weight in a cell where doc_counts counts no "
                                "document; the two tables must describe the same documents")
        data = np.zeros(docs.nnz)
        at = np.searchsorted(have, want)
        found = at < len(have)
        found[found] = have[at[found]] == want[found]
        data[found] = weights.data[at[found]]
        weights = sp.csc_matrix((data, docs.indices, docs.indptr), shape=docs.shape)
    return docs, sp.csc_matrix((weights.data, docs.indices, docs.indptr), shape=docs.shape)


def cell_keys(table: sp.csc_matrix, n_rows: int) -> np.ndarray:
    """The column-major index of each stored cell of a canonical CSC matrix (ascending)."""
    cols = np.repeat(np.arange(table.shape[1], dtype=np.int64), np.diff(table.indptr))
    return cols * n_rows + table.indices


def add_dense(one, other, classes, dtype):
    """The dense tables and class sizes of ``one + other`` over ``classes``."""
    m = len(classes)
    sizes = np.zeros(m, dtype=np.int64)
    docs = np.zeros((one.n_terms, m), dtype=dtype)
    tf = None if one.term_freq is None else np.zeros((one.n_terms, m), dtype=np.float64)
    for part in (one, other):
        idx = np.searchsorted(classes, part.classes)
        sizes[idx] += part.class_sizes
        docs[:, idx] += part.doc_counts
        if tf is not None:
            tf[:, idx] += part.term_freq
    return docs, tf, sizes


def add_sparse(one, other, classes, dtype):
    """The sparse tables and class sizes of ``one + other`` over ``classes``: each part's
    cells moved to its classes' columns and summed (scipy)."""
    m = len(classes)
    sizes = np.zeros(m, dtype=np.int64)
    docs, tf = None, None
    for part in (one, other):
        idx = np.searchsorted(classes, part.classes)
        sizes[idx] += part.class_sizes
        cells = part.cells
        shape = (part.n_terms, m)
        d = sp.csc_matrix((cells.a.astype(dtype), (cells.row, idx[cells.col])), shape=shape)
        docs = d if docs is None else docs + d
        if part.term_freq is not None:
            t = sp.csc_matrix((cells.tf, (cells.row, idx[cells.col])), shape=shape)
            tf = t if tf is None else tf + t
    return docs, tf, sizes
