"""Additive sufficient statistics of a labelled document-term matrix.

Every score in textsift is a function of these counts, taken in **one pass** over the
non-zeros of a CSR matrix:

* ``doc_counts[t, c]`` -- documents of class ``c`` that contain term ``t`` (binary presence,
  the ``A`` cell of the one-vs-rest contingency table), exact integers of the narrowest type
  that holds the number of documents (``int32`` below 2**31, else ``int64``);
* ``term_freq[t, c]`` -- ``TF(t, c)``, the summed term frequency of ``t`` in class ``c``
  (used by RC, AM, ``chi2_sklearn`` and ``log_odds_dirichlet`` only; ``None`` when counted
  without it, ``term_freq=False``, which halves the memory or more);
* ``class_sizes[c]`` -- ``N_c``;
* ``n_docs`` -- ``N``, ``df[t]`` -- the documents containing ``t``, and ``tf[t]`` -- ``TF(t)``,
  the summed weight of ``t`` in every document (``None`` with ``term_freq``).

They are right for any labelling (:mod:`textsift.labels`): one class per document, or label
sets (multi-label: a document may have no label or several, so ``N_c`` need not sum to ``N``
nor ``A`` to ``df``). The one-vs-rest cells of a class or label ``c`` are ``A``, ``B = df -
A``, ``C = N_c - A`` and ``D = N - N_c - B``, derived, as are ``TF(c)`` and the priors ``P(c) =
N_c / N`` (which sum to 1 only for one class per document). Counts over disjoint document
chunks add up (``a + b``) to the counts of the union, which is what streaming and the Dask
engine build on. When the chunks saw different classes, the class axis grows to the sorted
union.

Two layouts (:attr:`Counts.layout`): **dense**, the (V, m) tables as arrays, and **sparse**,
the same tables as scipy sparse (V, m) CSC matrices of their non-zero cells (``A > 0``; the
term weights on the same cells), ``N_c``, ``df``, ``TF(t)`` and ``N`` dense. A cell with ``A =
0`` is never stored: each of its one-vs-rest cells is a function of ``(df, N_c)`` alone, which
is how every per-class score evaluates it on either layout (``Counts.cells``). The layout
is chosen by the fraction of non-zero cells (``layout="auto"``: sparse when fewer than 1/16
of the cells of a table larger than 2**20 cells are non-zero), or given; tags, headings and product
categories -- thousands of labels with a few documents each -- take the sparse one, whose
memory grows with the non-zero cells, not with V x m. Every score is the same on both.

Memory: the (V, m) tables are the only arrays of that size. A large dense table is counted by
blocks of terms (the matrix's entries taken in column order), so no int64 or float64 copy of
it is made on the way; its non-zero cells (``Counts.cells``) are found block by block too. A
dense table that cannot fit in the memory available is refused with the memory it would
need.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from ..errors import TextsiftError
from ..labels import encode_labels, group_index
from ._cells import SparseCells
from ._making import frozen, matrix_fields, settled_fields, sum_fields
from ._tables import (  # noqa: F401  (BLOCK_CELLS: the block size of the rankings too)
    BLOCK_CELLS,
    LAYOUTS,
    check_fits,
    choose_layout,
    count_dtype,
)

__all__ = ["LAYOUTS", "Counts", "SparseCells", "count_dtype", "encode_labels"]


@dataclass(frozen=True, eq=False, repr=False)
class Counts:
    """Per-term, per-class counts of a labelled corpus (see module docstring).

    Attributes
    ----------
    classes : (m,) array of class labels, sorted.
    class_sizes : (m,) int64, documents per class.
    doc_counts : (V, m) integers (:func:`count_dtype`), documents of each class containing
        each term: an array, or in the sparse layout a scipy ``csc_matrix`` of the non-zero
        cells.
    term_freq : (V, m) float64, summed term weights of each term in each class (sparse
        layout: a ``csc_matrix`` on the cells of ``doc_counts``); or None when counted
        without them (the methods that read them, ``Method.reads_term_freq``, then refuse the
        counts).
    feature_names : (V,) array of str, or None.
    n_docs : int, ``N``.
    df : (V,) int64, documents containing each term.
    tf : (V,) float64, summed weight of each term over all documents; None with
        ``term_freq``.
    multilabel : bool, whether the labelling gives each document a set of labels
        (:mod:`textsift.labels`) rather than one class.
    layout : ``"dense"`` or ``"sparse"`` (a property: which ``doc_counts`` is).

    ``n_docs``, ``df`` and ``tf`` may be left out for one class per document, where they are
    the sums over the classes; multi-label counts must give them.
    """

    classes: np.ndarray
    class_sizes: np.ndarray
    doc_counts: np.ndarray | sp.csc_matrix
    term_freq: np.ndarray | sp.csc_matrix | None
    feature_names: np.ndarray | None = None
    n_docs: int | None = None
    df: np.ndarray | None = None
    tf: np.ndarray | None = None
    multilabel: bool = False

    def __post_init__(self):
        for name, value in settled_fields(self.doc_counts, self.term_freq, self.class_sizes,
                                          self.n_docs, self.df, self.tf,
                                          self.multilabel).items():
            object.__setattr__(self, name, value)

    @property
    def layout(self) -> str:
        """``"sparse"`` when the (V, m) tables hold only their non-zero cells (scipy CSC
        matrices), else ``"dense"`` (module docstring)."""
        return "sparse" if sp.issparse(self.doc_counts) else "dense"

    @property
    def cellwise(self) -> bool:
        """Whether a reader of every class's counts goes through the non-zero cells
        (``cells``) rather than dense rows: the tables hold only those cells (the sparse
        layout), so rows would be made, not read."""
        return self.layout == "sparse"

    @property
    def n_nonzero(self) -> int:
        """The non-zero cells of the presence table (``A > 0``)."""
        if self.layout == "sparse":
            return int(self.doc_counts.nnz)
        return len(self.cells.row)

    def __repr__(self) -> str:
        cells = self.n_terms * self.n_classes
        share = f" ({self.n_nonzero / cells:.2%})" if cells else ""
        what = "labels" if self.multilabel else "classes"
        extra = "" if self.term_freq is not None else ", without term frequencies"
        return (f"Counts({self.n_terms:,} terms x {self.n_classes:,} {what}, N = "
                f"{self.n_docs:,}, {self.layout} layout: {self.n_nonzero:,} non-zero cells"
                f"{share}{extra})")

    def to_layout(self, layout: str) -> Counts:
        """The same counts in ``layout`` (``"dense"``, ``"sparse"`` or ``"auto"``: by the
        fraction of non-zero cells); ``self`` when they are in it already. A dense table
        that cannot fit in memory is refused with the memory it would need."""
        layout = choose_layout(layout, self.n_terms * self.n_classes, self.n_nonzero)
        if layout == self.layout:
            return self
        if layout == "sparse":
            docs = sp.csc_matrix(self.doc_counts)
            tf = None if self.term_freq is None else sp.csc_matrix(self.term_freq)
        else:
            check_fits(self.n_terms, self.n_classes, _dense_bytes(self), "a dense count table",
                       "keep the sparse layout")
            docs = self.doc_counts.toarray()
            tf = None if self.term_freq is None else self.term_freq.toarray()
        return replace(self, doc_counts=docs, term_freq=tf)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_matrix(cls, X, y, classes=None, feature_names=None,
                    multiplicity=None, term_freq: bool = True, layout: str = "auto") -> Counts:
        """Count a document-term matrix ``X`` (n_docs x V, any scipy sparse or dense array of
        non-negative term weights) against labels ``y`` in one pass over its non-zeros.

        ``y`` is any labelling :func:`textsift.labels.as_labels` reads: one label per document,
        a label list (or set) per document, or an indicator matrix (dense or sparse, with
        ``classes`` the names of its columns). Presence is ``X[d, t] > 0``; ``term_freq`` sums
        the weights themselves, so a count matrix gives ``TF`` and a binary one gives
        ``doc_counts`` again (``term_freq=False`` leaves it and ``tf`` out: ``None``). A dense
        ``X`` is converted to CSR (never the other way round).
        ``multiplicity`` (non-negative integers, one per document) counts document ``d`` that
        many times: the counts of a bootstrap sample without copying a row.

        ``layout`` is ``"dense"``, ``"sparse"`` or ``"auto"`` (module docstring): the sparse
        layout for a table whose cells are mostly zero (more than 2**20 cells, fewer than 1/16
        of them non-zero).

        One class per document is counted in one pass over the non-zeros (each entry's
        (term, class) cell; by blocks of terms for a large table) into a dense table; a
        sparse table, and label sets, by that pass for ``N``, ``df`` and ``TF(t)`` and one
        sparse product with the indicator ``Y`` each for the presence and the term-weight
        cells (``Y^T X``, as scikit-learn's ``chi2`` computes them).
        """
        return cls(**matrix_fields(X, y, classes, feature_names, multiplicity, term_freq,
                                   layout))

    @classmethod
    def from_texts(cls, texts, y, opts=None, classes=None, **kw) -> Counts:
        """Vectorize ``texts`` (:func:`textsift.text.vectorize.vectorize` with ``opts``/``kw``) and
        count them against ``y``."""
        from ..text.vectorize import vectorize

        texts = list(texts)
        n_labels = y.shape[0] if hasattr(y, "shape") else len(y)
        if len(texts) != n_labels:
            raise TextsiftError(f"{len(texts)} texts but {n_labels} labels; pass one label per "
                                "text")
        X, names, _ = vectorize(texts, opts, **kw)
        return cls.from_matrix(X, y, classes=classes, feature_names=names)

    # ------------------------------------------------------------------ derived quantities
    @property
    def n_terms(self) -> int:
        return self.doc_counts.shape[0]

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @cached_property
    def class_tf(self) -> np.ndarray:
        """``TF(c)``, all term weight in class ``c``."""
        if self.term_freq is None:
            raise TextsiftError(
                "these counts have no term frequencies (counted with term_freq=False); the "
                "methods that read them need them: count with term_freq=True")
        return frozen(np.asarray(self.term_freq.sum(axis=0), dtype=np.float64).ravel())

    @property
    def priors(self) -> np.ndarray:
        """``P(c) = N_c / N`` (summing to 1 only for one class per document)."""
        return self.class_sizes / self.n_docs

    @cached_property
    def seen(self) -> np.ndarray:
        """Terms with ``df > 0``; the others are never ranked
        (:mod:`textsift.selection.policies`)."""
        return frozen(self.df > 0)

    def contingency(self):
        """One-vs-rest cells ``(A, B, C, D)``, each (V, m) float64 (written dense, whatever
        the layout: refused with the memory it would need when it cannot fit)."""
        check_fits(self.n_terms, self.n_classes, 32, "the contingency tables",
                   "read the non-zero cells of Counts.cells, or Counts.tables_at, instead")
        return self._tables(self.presence_table().astype(np.float64),
                            self.df[:, None], self.class_sizes[None, :])

    def presence_table(self) -> np.ndarray:
        """``doc_counts`` as a dense (V, m) array, whatever the layout (the array itself on
        the dense layout; refused with the memory it would need when it cannot fit)."""
        if self.layout == "dense":
            return self.doc_counts
        check_fits(self.n_terms, self.n_classes, self.doc_counts.dtype.itemsize,
                   "a dense count table", "read one class's column (Counts.column) or given "
                   "cells (Counts.at) instead")
        return self.doc_counts.toarray()

    def at(self, terms, classes) -> tuple[np.ndarray, np.ndarray | None]:
        """``(A, TF(t, c) or None)`` of the cells ``(terms[i], classes[i])`` (index arrays of
        one length, or scalars broadcast against them), as 1-d arrays, on either layout."""
        terms, classes = (np.array(a).ravel() for a in np.broadcast_arrays(
            np.asarray(terms, dtype=np.intp), np.asarray(classes, dtype=np.intp)))

        def read(table):
            if table is None:
                return None
            return np.asarray(table[terms, classes]).ravel()

        return read(self.doc_counts), read(self.term_freq)

    def tables_at(self, terms, classes) -> tuple[np.ndarray, ...]:
        """The one-vs-rest 2 x 2 tables ``(A, B, C, D)`` (float64) of the cells ``(terms[i],
        classes[i])`` (:meth:`at`): ``B = df - A``, ``C = N_c - A``, ``D = N - N_c - B``, the
        one place these cells are derived from the counts."""
        terms, classes = (np.array(a).ravel() for a in np.broadcast_arrays(
            np.asarray(terms, dtype=np.intp), np.asarray(classes, dtype=np.intp)))
        A = self.at(terms, classes)[0].astype(np.float64)
        return self._tables(A, self.df[terms], self.class_sizes[classes])

    def _tables(self, A: np.ndarray, df, sizes) -> tuple[np.ndarray, ...]:
        df = np.asarray(df, dtype=np.float64)
        pos = np.asarray(sizes, dtype=np.float64)
        B = df - A
        return A, B, pos - A, self.n_docs - pos - B

    @cached_property
    def cells(self) -> SparseCells:
        """The non-zero presence cells and the distinct document frequencies and class sizes
        (:class:`~textsift.counting._cells.SparseCells`), computed once per :class:`Counts` (a cache
        of derived values; the counts themselves never change), the same on both layouts.

        Per-class scores use it to evaluate a metric once per distinct ``(df, N_c)`` for the
        ``A = 0`` cells, which are most of the (V, m) table, and once per distinct table of
        the non-zero cells."""
        return SparseCells.of(self.doc_counts, self.term_freq, self.df, self.class_sizes,
                              self.n_docs)

    # ------------------------------------------------------------------ files
    def table_arrays(self) -> dict:
        """The (V, m) tables as plain arrays, for a file (:meth:`tables_of_arrays` reads
        them back): the dense tables, or the sparse layout's non-zero cells (sorted), the
        counts' and the weights'."""
        if self.layout == "dense":
            return {"doc_counts": self.doc_counts, "term_freq": self.term_freq}
        docs = self.doc_counts
        at = sp.csc_matrix((np.arange(docs.nnz), docs.indices, docs.indptr),
                           shape=docs.shape).sorted_indices()
        return {"dc_data": docs.data[at.data], "dc_indices": at.indices, "dc_indptr": at.indptr,
                "dc_shape": np.array(docs.shape), "tf_data": self.term_freq.data[at.data]}

    @staticmethod
    def tables_of_arrays(a) -> tuple:
        """``(doc_counts, term_freq)`` of :meth:`table_arrays`' arrays, in their layout."""
        if "dc_data" not in a:
            return a["doc_counts"], a["term_freq"]
        shape = tuple(a["dc_shape"])
        docs = sp.csc_matrix((a["dc_data"], a["dc_indices"], a["dc_indptr"]), shape=shape)
        weights = sp.csc_matrix((a["tf_data"], a["dc_indices"], a["dc_indptr"]), shape=shape)
        return docs, weights

    # ------------------------------------------------------------------ algebra
    def __add__(self, other: Counts) -> Counts:
        if not isinstance(other, Counts):
            return NotImplemented
        return Counts(**sum_fields(self, other))

    @property
    def with_documents(self) -> Counts:
        """The counts without the classes that have no documents (``self`` when every class
        has some); cached, so the per-class scores of one :class:`Counts` share its cells.
        (``self`` is not cached in itself: a reference cycle would keep the counts, tables
        and all, until the garbage collector's next full pass -- a loop over many counts, as
        a permutation test makes, would grow by a table each time.)"""
        keep = self.class_sizes > 0
        if keep.all():
            return self
        if "_with_documents" not in self.__dict__:
            self.__dict__["_with_documents"] = self.select_classes(keep)
        return self.__dict__["_with_documents"]

    def select_terms(self, index) -> Counts:
        """Counts restricted to the terms ``index`` (an index array or boolean mask)."""
        names = None if self.feature_names is None else self.feature_names[index]
        tf, total = (None, None) if self.term_freq is None else (self.term_freq[index],
                                                                 self.tf[index])
        return Counts(self.classes, self.class_sizes, self.doc_counts[index], tf, names,
                      self.n_docs, self.df[index], total, self.multilabel)

    def select_classes(self, index) -> Counts:
        """Counts restricted to the classes ``index`` (an index array or a boolean mask over
        ``classes``). With one class per document, the counts of the documents of those
        classes (``N``, ``df``, ``TF(t)`` become theirs); with label sets, the same documents
        with fewer labels (``N``, ``df``, ``TF(t)`` unchanged: a document whose labels are all
        dropped stays, with no label). Dropping a declared class with no documents (what
        per-class scores do) changes no other count either way."""
        index = np.asarray(index)
        if index.dtype == bool and index.shape != self.classes.shape:
            raise TextsiftError(f"a class mask needs {self.n_classes} entries, got {index.shape}")
        if index.dtype == bool:
            index = np.flatnonzero(index)
        classes = self.classes[index]
        if len(classes) == 0:
            raise TextsiftError("select_classes needs at least one class")
        tf = None if self.term_freq is None else self.term_freq[:, index]
        kept = Counts(classes, self.class_sizes[index], self.doc_counts[:, index], tf,
                      self.feature_names)
        if not self.multilabel:
            return kept  # N, df, TF(t): the sums over the kept classes' documents
        return replace(kept, n_docs=self.n_docs, df=self.df, tf=self.tf, multilabel=True)

    def column(self, j: int) -> tuple[np.ndarray, np.ndarray | None]:
        """``(A, TF(t, c) or None)`` of class ``j`` (its column of each table), dense."""
        def dense(table):
            if table is None:
                return None
            col = table[:, j]
            return col.toarray().ravel() if sp.issparse(col) else col

        return dense(self.doc_counts), dense(self.term_freq)

    def largest_share(self, terms) -> np.ndarray:
        """For each of ``terms``, the class with the largest share ``A / N_c`` of its
        documents containing it (the first of equal shares; ``N_c = 0`` read as 1), on either
        layout."""
        sizes = np.maximum(self.class_sizes, 1)
        docs = self.doc_counts
        if not sp.issparse(docs):
            return np.argmax(docs[terms] / sizes[None, :], axis=1)
        rows = docs.tocsr()[terms]
        share = sp.csr_matrix((rows.data / sizes[rows.indices], rows.indices, rows.indptr),
                              shape=rows.shape)
        return np.asarray(share.argmax(axis=1)).ravel()

    def one_vs_rest(self, positive) -> Counts:
        """The counts of the binary task ``positive`` against the other classes merged
        (classes ``"neg"``, ``"pos"``): those of the relabelled documents, without
        re-counting (Forman 2003's one-vs-rest tasks). The rest is every document without
        ``positive`` (``N - N_c``, ``df - A``, ``TF(t) - TF(t, c)``), which is right for label
        sets too, where the other classes overlap."""
        j = group_index(self.classes, positive)
        docs, tf = self.column(j)
        return Counts(np.array(["neg", "pos"]),
                      np.array([self.n_docs - self.class_sizes[j], self.class_sizes[j]]),
                      np.column_stack([self.df - docs, docs]),
                      None if tf is None else np.column_stack([self.tf - tf, tf]),
                      self.feature_names)

    def equals(self, other: Counts) -> bool:
        """Exact equality of every count (term weights to float equality), whatever the
        layouts."""
        same_names = (self.feature_names is None) == (other.feature_names is None) and (
            self.feature_names is None or np.array_equal(self.feature_names, other.feature_names)
        )
        if not (same_names and self.multilabel == other.multilabel
                and self.n_docs == other.n_docs and self.n_terms == other.n_terms
                and np.array_equal(self.classes, other.classes)
                and np.array_equal(self.class_sizes, other.class_sizes)
                and np.array_equal(self.df, other.df)
                and (self.term_freq is None) == (other.term_freq is None)):
            return False
        mine, theirs = self.cells, other.cells
        if len(mine.row) != len(theirs.row):
            return False
        at, their = mine.by_term[0], theirs.by_term[0]  # the cells in one order
        return (np.array_equal(mine.row[at], theirs.row[their])
                and np.array_equal(mine.col[at], theirs.col[their])
                and np.array_equal(mine.a[at], theirs.a[their])
                and (self.term_freq is None
                     or (np.allclose(mine.tf[at], theirs.tf[their], rtol=0, atol=1e-9)
                         and np.allclose(self.tf, other.tf, rtol=0, atol=1e-9))))


def _dense_bytes(counts) -> int:
    """Bytes a cell of ``counts``' dense tables takes."""
    return counts.doc_counts.dtype.itemsize + (0 if counts.term_freq is None else 8)
