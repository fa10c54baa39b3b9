"""How the tables of a :class:`~textsift.counting.counts.Counts` are made from what it is
given: the fields it keeps checked and completed (:func:`settled_fields`: ``N``, ``df`` and
``TF(t)`` summed when left out), a document-term matrix checked (:func:`as_csr`) and counted
against a labelling (:func:`matrix_fields`: one pass over the non-zeros, or sparse products,
:func:`count_by_product`), tables given in the sparse layout made canonical
(:func:`sparse_tables`), and two counts checked and their tables added over the union of their
classes (:func:`sum_fields`, :func:`add_dense`, :func:`add_sparse`). It returns arrays and the
fields of a ``Counts``, never one: ``counts`` imports it, not the other way round.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..errors import TextsiftError
from ..labels import as_labels
from ._tables import check_fits, choose_layout, count_dtype, count_sparse, count_table

__all__ = ["add_dense", "add_sparse", "as_csr", "cell_keys", "count_by_product", "frozen",
           "matrix_fields", "settled_fields", "sparse_tables", "sum_fields"]


def settled_fields(doc_counts, term_freq, class_sizes, n_docs, df, tf, multilabel) -> dict:
    """The fields a ``Counts`` keeps of those it was given (``Counts.__post_init__``): sparse
    tables made canonical (a sparse ``term_freq`` beside dense counts written dense), ``N``,
    ``df`` and ``TF(t)`` summed over the classes when left out (one class per document only),
    the per-term arrays checked for length and frozen."""
    if term_freq is None and tf is not None:
        raise TextsiftError("tf (TF(t)) without term_freq (TF(t, c)): give both or neither")
    if sp.issparse(doc_counts):
        doc_counts, term_freq = sparse_tables(doc_counts, term_freq)
    elif sp.issparse(term_freq):
        term_freq = term_freq.toarray()
    fields = {"doc_counts": doc_counts, "term_freq": term_freq, "n_docs": n_docs, "df": df,
              "tf": tf}
    stored = ("n_docs", "df") + (() if term_freq is None else ("tf",))
    given = [fields[name] is not None for name in stored]
    if not all(given):
        if multilabel or any(given):
            raise TextsiftError("give n_docs, df and tf together (they can be left out only "
                                "for one class per document, where they are sums over "
                                "the classes)")
        fields["n_docs"] = class_sizes.sum()
        fields["df"] = _row_sums(doc_counts)
        if term_freq is not None:
            fields["tf"] = _row_sums(term_freq)
    fields["n_docs"] = int(fields["n_docs"])
    fields["multilabel"] = bool(multilabel)
    for name in stored[1:]:
        a = np.asarray(fields[name]).astype(np.int64 if name == "df" else np.float64,
                                            copy=False)
        if a.shape != (doc_counts.shape[0],):
            raise TextsiftError(f"{name} must hold one value per term "
                                f"({doc_counts.shape[0]}), got shape {a.shape}")
        fields[name] = frozen(a.view())
    return fields


def matrix_fields(X, y, classes, feature_names, multiplicity, term_freq: bool,
                  layout: str) -> dict:
    """The fields of the counts of ``X`` against the labels ``y`` (``Counts.from_matrix``,
    which states the arguments): the input checked, then one class per document counted in
    one pass over the non-zeros into a dense table (``textsift.counting._tables.count_table``),
    a sparse table and label sets by :func:`count_by_product`."""
    X = as_csr(X)
    n_docs, n_terms = X.shape
    labels = as_labels(y, classes)
    if labels.n_docs != n_docs:
        raise TextsiftError(
            f"X has {n_docs} documents but y has {labels.n_docs} labels; "
            "pass one label per row of X"
        )
    if n_docs == 0:
        raise TextsiftError("the corpus is empty: X has no documents")
    if multiplicity is not None:
        multiplicity = np.asarray(multiplicity)
        if (multiplicity.shape != (n_docs,) or multiplicity.dtype.kind not in "biu"
                or (multiplicity < 0).any()):
            raise TextsiftError("multiplicity must hold one non-negative integer per document")
    if feature_names is not None:
        feature_names = np.asarray(feature_names, dtype=object)
        if feature_names.shape != (n_terms,):
            raise TextsiftError(
                f"{len(feature_names)} feature names for {n_terms} columns of X"
            )
    m = labels.n_classes
    # a class's cells are at most its documents' entries: X.nnz bounds the non-zero cells
    if labels.multilabel or choose_layout(layout, n_terms * m, X.nnz) == "sparse":
        return count_by_product(X, labels, feature_names, multiplicity, term_freq, layout)
    codes = labels.codes
    class_sizes = np.bincount(codes, weights=multiplicity, minlength=m).astype(np.int64)
    dtype = count_dtype(int(class_sizes.sum()))
    check_fits(n_terms, m, np.dtype(dtype).itemsize + 8 * term_freq, "a dense count table",
               "count with layout='sparse' (or 'auto')")
    docs, weights = count_table(X, codes, m, multiplicity, dtype, term_freq)
    return dict(classes=labels.classes, class_sizes=class_sizes, doc_counts=docs,
                term_freq=weights, feature_names=feature_names)


def sum_fields(one, other) -> dict:
    """The fields of ``one + other`` (``Counts.__add__``: the counts of the union of two
    disjoint chunks), refused unless both count the same vocabulary, labelled alike, with
    term frequencies or both without; the class axis is the sorted union of their classes."""
    if one.n_terms != other.n_terms:
        raise TextsiftError(
            f"cannot add counts over {one.n_terms} and {other.n_terms} terms: "
            "both chunks must be vectorized with the same vocabulary"
        )
    if (
        one.feature_names is not None
        and other.feature_names is not None
        and not np.array_equal(one.feature_names, other.feature_names)
    ):
        raise TextsiftError("cannot add counts over different vocabularies")
    if one.multilabel != other.multilabel:
        raise TextsiftError("cannot add the counts of label lists (multi-label) to those of "
                            "one label per document: every chunk must be labelled alike")
    if (one.term_freq is None) != (other.term_freq is None):
        raise TextsiftError("cannot add counts with term frequencies to counts without "
                            "them: count both with the same term_freq")
    classes = np.union1d(one.classes, other.classes)
    n_docs = one.n_docs + other.n_docs
    if one.layout == other.layout == "dense":
        docs, tf, sizes = add_dense(one, other, classes, count_dtype(n_docs))
    else:  # either sparse: the sum is sparse too
        docs, tf, sizes = add_sparse(one, other, classes, count_dtype(n_docs))
    names = one.feature_names if one.feature_names is not None else other.feature_names
    return dict(classes=classes, class_sizes=sizes, doc_counts=docs, term_freq=tf,
                feature_names=names, n_docs=n_docs, df=one.df + other.df,
                tf=None if tf is None else one.tf + other.tf, multilabel=one.multilabel)


def frozen(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only (a ``Counts`` keeps and caches it: callers must not change it)."""
    a.flags.writeable = False
    return a


def _row_sums(table) -> np.ndarray:
    return np.asarray(table.sum(axis=1)).ravel()


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
