"""Additive sufficient statistics of a labelled document-term matrix.

Every score in textsift is a function of these counts, taken in **one pass** over the
non-zeros of a CSR matrix (METHODS.md §0.2-§0.4):

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

Memory: the (V, m) tables are the only arrays of that size. A large table is counted by
blocks of terms (the matrix's entries taken in column order), so no int64 or float64 copy of
it is made on the way; its non-zero cells (``Counts.cells``) are found block by block too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from ._counting import (  # noqa: F401  (BLOCK_CELLS: the block size of the rankings too)
    BLOCK_CELLS,
    count_dtype,
    count_table,
    nonzero_cells,
)
from .errors import TextsiftError
from .labels import as_labels, encode_labels

__all__ = ["Counts", "count_dtype", "encode_labels"]

@dataclass(frozen=True, eq=False)
class Counts:
    """Per-term, per-class counts of a labelled corpus (see module docstring).

    Attributes
    ----------
    classes : (m,) array of class labels, sorted.
    class_sizes : (m,) int64, documents per class.
    doc_counts : (V, m) integers (:func:`count_dtype`), documents of each class containing
        each term.
    term_freq : (V, m) float64, summed term weights of each term in each class; or None when
        counted without them (the methods that read them, ``Method.reads_term_freq``, then
        refuse the counts).
    feature_names : (V,) array of str, or None.
    n_docs : int, ``N``.
    df : (V,) int64, documents containing each term.
    tf : (V,) float64, summed weight of each term over all documents; None with
        ``term_freq``.
    multilabel : bool, whether the labelling gives each document a set of labels
        (:mod:`textsift.labels`) rather than one class.

    ``n_docs``, ``df`` and ``tf`` may be left out for one class per document, where they are
    the sums over the classes; multi-label counts must give them.
    """

    classes: np.ndarray
    class_sizes: np.ndarray
    doc_counts: np.ndarray
    term_freq: np.ndarray | None
    feature_names: np.ndarray | None = None
    n_docs: int | None = None
    df: np.ndarray | None = None
    tf: np.ndarray | None = None
    multilabel: bool = False

    def __post_init__(self):
        if self.term_freq is None and self.tf is not None:
            raise TextsiftError("tf (TF(t)) without term_freq (TF(t, c)): give both or neither")
        stored = ("n_docs", "df") + (() if self.term_freq is None else ("tf",))
        given = [getattr(self, name) is not None for name in stored]
        if not all(given):
            if self.multilabel or any(given):
                raise TextsiftError("give n_docs, df and tf together (they can be left out only "
                                    "for one class per document, where they are sums over "
                                    "the classes)")
            object.__setattr__(self, "n_docs", self.class_sizes.sum())
            object.__setattr__(self, "df", self.doc_counts.sum(axis=1))
            if self.term_freq is not None:
                object.__setattr__(self, "tf", self.term_freq.sum(axis=1))
        object.__setattr__(self, "n_docs", int(self.n_docs))
        object.__setattr__(self, "multilabel", bool(self.multilabel))
        for name in stored[1:]:
            a = np.asarray(getattr(self, name)).astype(np.int64 if name == "df" else np.float64,
                                                       copy=False)
            if a.shape != (self.doc_counts.shape[0],):
                raise TextsiftError(f"{name} must hold one value per term "
                                    f"({self.doc_counts.shape[0]}), got shape {a.shape}")
            object.__setattr__(self, name, _frozen(a.view()))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_matrix(cls, X, y, classes=None, feature_names=None,
                    multiplicity=None, term_freq: bool = True) -> Counts:
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

        One class per document is counted in one pass over the non-zeros (each entry's
        (term, class) cell; by blocks of terms for a large table); label sets by that pass for
        ``N``, ``df`` and ``TF(t)`` and one sparse product with the indicator ``Y`` each for
        the presence and the term-weight cells (``Y^T X``, as scikit-learn's ``chi2`` computes
        them).
        """
        X = _as_csr(X)
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
        if labels.multilabel:
            return _count_label_sets(X, labels, feature_names, multiplicity, term_freq)
        classes, codes = labels.classes, labels.codes
        m = len(classes)
        class_sizes = np.bincount(codes, weights=multiplicity, minlength=m).astype(np.int64)

        dtype = count_dtype(int(class_sizes.sum()))
        counted = count_table(X, codes, m, multiplicity, dtype, term_freq)
        return cls(classes, class_sizes, *counted, feature_names)

    @classmethod
    def from_texts(cls, texts, y, opts=None, classes=None, **kw) -> Counts:
        """Vectorize ``texts`` (:func:`textsift.vectorize.vectorize` with ``opts``/``kw``) and
        count them against ``y``."""
        from .vectorize import vectorize

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
        return _frozen(self.term_freq.sum(axis=0))

    @property
    def priors(self) -> np.ndarray:
        """``P(c) = N_c / N`` (summing to 1 only for one class per document)."""
        return self.class_sizes / self.n_docs

    @cached_property
    def seen(self) -> np.ndarray:
        """Terms with ``df > 0``; the others are never ranked (METHODS.md §0.5.1)."""
        return _frozen(self.df > 0)

    def contingency(self):
        """One-vs-rest cells ``(A, B, C, D)``, each (V, m) float64 (METHODS.md §0.2)."""
        A = self.doc_counts.astype(np.float64)
        df = self.df.astype(np.float64)[:, None]
        pos = self.class_sizes.astype(np.float64)[None, :]
        B = df - A
        C = pos - A
        D = self.n_docs - pos - B
        return A, B, C, D

    @cached_property
    def cells(self) -> SparseCells:
        """The non-zero presence cells and the distinct document frequencies, computed once
        per :class:`Counts` (a cache of derived values; the counts themselves never change).

        Per-class scores use it to evaluate a metric once per distinct ``(df, class)`` for the
        ``A = 0`` cells, which are most of the (V, m) table, and once per non-zero cell.
        """
        df = self.df
        # distinct document frequencies by counting (they are integers <= N): no sort
        dfi = df.astype(np.intp, copy=False)
        occurs = np.bincount(dfi, minlength=1) > 0
        df_values = np.flatnonzero(occurs)
        df_index = (np.cumsum(occurs) - 1)[dfi]
        flat, a = nonzero_cells(self.doc_counts)
        row, col = np.divmod(flat, self.n_classes)
        b = df[row] - a
        c = self.class_sizes[col] - a
        d = self.n_docs - self.class_sizes[col] - b
        tf = None if self.term_freq is None else self.term_freq.ravel()[flat]
        return SparseCells(df_values.astype(np.float64), df_index, flat, row, col, a, b, c, d,
                           tf, self.class_sizes.astype(np.float64), float(self.n_docs))

    # ------------------------------------------------------------------ algebra
    def __add__(self, other: Counts) -> Counts:
        if not isinstance(other, Counts):
            return NotImplemented
        if self.n_terms != other.n_terms:
            raise TextsiftError(
                f"cannot add counts over {self.n_terms} and {other.n_terms} terms: "
                "both chunks must be vectorized with the same vocabulary"
            )
        if (
            self.feature_names is not None
            and other.feature_names is not None
            and not np.array_equal(self.feature_names, other.feature_names)
        ):
            raise TextsiftError("cannot add counts over different vocabularies")
        if self.multilabel != other.multilabel:
            raise TextsiftError("cannot add the counts of label lists (multi-label) to those of "
                                "one label per document: every chunk must be labelled alike")
        if (self.term_freq is None) != (other.term_freq is None):
            raise TextsiftError("cannot add counts with term frequencies to counts without "
                                "them: count both with the same term_freq")
        classes = np.union1d(self.classes, other.classes)
        m = len(classes)
        sizes = np.zeros(m, dtype=np.int64)
        n_docs = self.n_docs + other.n_docs
        docs = np.zeros((self.n_terms, m), dtype=count_dtype(n_docs))
        tf = None if self.term_freq is None else np.zeros((self.n_terms, m), dtype=np.float64)
        for part in (self, other):
            idx = np.searchsorted(classes, part.classes)
            sizes[idx] += part.class_sizes
            docs[:, idx] += part.doc_counts
            if tf is not None:
                tf[:, idx] += part.term_freq
        names = self.feature_names if self.feature_names is not None else other.feature_names
        return Counts(classes, sizes, docs, tf, names, n_docs, self.df + other.df,
                      None if tf is None else self.tf + other.tf, self.multilabel)

    @cached_property
    def with_documents(self) -> Counts:
        """The counts without the classes that have no documents (``self`` when every class
        has some); cached, so the per-class scores of one :class:`Counts` share its cells."""
        keep = self.class_sizes > 0
        return self if keep.all() else self.select_classes(keep)

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
        per-class scores do, METHODS.md §0.7) changes no other count either way."""
        index = np.asarray(index)
        if index.dtype == bool and index.shape != self.classes.shape:
            raise TextsiftError(f"a class mask needs {self.n_classes} entries, got {index.shape}")
        classes = self.classes[index]
        if len(classes) == 0:
            raise TextsiftError("select_classes needs at least one class")
        tf = None if self.term_freq is None else self.term_freq[:, index]
        kept = Counts(classes, self.class_sizes[index], self.doc_counts[:, index], tf,
                      self.feature_names)
        if not self.multilabel:
            return kept  # N, df, TF(t): the sums over the kept classes' documents
        return replace(kept, n_docs=self.n_docs, df=self.df, tf=self.tf, multilabel=True)

    def one_vs_rest(self, positive) -> Counts:
        """The counts of the binary task ``positive`` against the other classes merged
        (classes ``"neg"``, ``"pos"``): those of the relabelled documents, without
        re-counting (Forman 2003's one-vs-rest tasks). The rest is every document without
        ``positive`` (``N - N_c``, ``df - A``, ``TF(t) - TF(t, c)``), which is right for label
        sets too, where the other classes overlap."""
        j = int(np.flatnonzero(self.classes == positive)[0])
        dc, tf = self.doc_counts, self.term_freq
        return Counts(np.array(["neg", "pos"]),
                      np.array([self.n_docs - self.class_sizes[j], self.class_sizes[j]]),
                      np.column_stack([self.df - dc[:, j], dc[:, j]]),
                      None if tf is None else np.column_stack([self.tf - tf[:, j], tf[:, j]]),
                      self.feature_names)

    def equals(self, other: Counts) -> bool:
        """Exact equality of every count (term weights to float equality)."""
        same_names = (self.feature_names is None) == (other.feature_names is None) and (
            self.feature_names is None or np.array_equal(self.feature_names, other.feature_names)
        )
        return (
            same_names
            and self.multilabel == other.multilabel
            and self.n_docs == other.n_docs
            and np.array_equal(self.classes, other.classes)
            and np.array_equal(self.class_sizes, other.class_sizes)
            and np.array_equal(self.doc_counts, other.doc_counts)
            and np.array_equal(self.df, other.df)
            and (self.term_freq is None) == (other.term_freq is None)
            and (self.term_freq is None
                 or (np.allclose(self.term_freq, other.term_freq, rtol=0, atol=1e-9)
                     and np.allclose(self.tf, other.tf, rtol=0, atol=1e-9)))
        )


def _count_label_sets(X: sp.csr_matrix, labels, feature_names, multiplicity,
                      with_tf: bool = True) -> Counts:
    """The counts of a multi-label indicator (:meth:`Counts.from_matrix`): ``N``, ``df`` and
    ``TF(t)`` from one pass over the non-zeros of ``X``, the (V, m) cells from two sparse
    products ``Y^T X`` (presence, then term weights -- left out without ``with_tf``; scipy's,
    the fastest of the layouts measured), ``Y`` weighted by ``multiplicity``."""
    n_docs, n_terms = X.shape
    Y = labels.indicator.astype(np.int64)
    present = X.data > 0
    weight = None
    if multiplicity is not None:
        Y = sp.csr_matrix(Y.multiply(multiplicity.astype(np.int64)[:, None]))
        weight = np.repeat(multiplicity, np.diff(X.indptr))
    presence = sp.csr_matrix((present.astype(np.int64), X.indices, X.indptr), shape=X.shape)
    YT = Y.T.tocsr()
    n = int(n_docs if multiplicity is None else multiplicity.sum())
    doc_counts = np.ascontiguousarray((YT @ presence).toarray().T, dtype=count_dtype(n))
    term_freq = (np.ascontiguousarray((YT @ X).toarray().T, dtype=np.float64) if with_tf
                 else None)
    data = X.data if weight is None else X.data * weight
    df = np.bincount(X.indices[present], minlength=n_terms,
                     weights=None if weight is None else weight[present])
    return Counts(
        classes=labels.classes,
        class_sizes=np.asarray(Y.sum(axis=0)).ravel().astype(np.int64),
        doc_counts=doc_counts,
        term_freq=term_freq,
        feature_names=feature_names,
        n_docs=n,
        df=np.rint(df).astype(np.int64),
        tf=np.bincount(X.indices, weights=data, minlength=n_terms) if with_tf else None,
        multilabel=True,
    )


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False  # cached: callers must not change it
    return a


@dataclass(frozen=True, eq=False)
class SparseCells:
    """Sparse view of ``doc_counts``: distinct ``df`` values with each term's index into them,
    and the non-zero cells (``flat`` index into the (V, m) table, ``row``, ``col``) with their
    one-vs-rest cells ``a, b, c, d`` (§0.2, float64) and their ``TF(t, c)``. Term weights are
    non-negative, so a cell with ``A = 0`` has ``TF(t, c) = 0``.

    A cell's one-vs-rest table ``(A, B, C, D)`` is fixed by ``(A, df, class)``, and most cells
    share theirs with many others: every ``A = 0`` cell of a class with the same ``df``, and
    the non-zero cells of the many rare terms. :attr:`evaluation_set` lists each distinct
    table once, so that a metric of ``(A, B, C, D)`` is evaluated once per distinct table, in
    one vectorised call, and gathered (:attr:`nz_table`). ``pos`` are the class sizes and
    ``n`` is ``N``."""

    df_values: np.ndarray
    df_index: np.ndarray
    flat: np.ndarray
    row: np.ndarray
    col: np.ndarray
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    d: np.ndarray
    tf: np.ndarray | None
    pos: np.ndarray
    n: float

    @property
    def n_zero(self) -> int:
        """Cells of the ``A = 0`` grid: one per distinct ``df`` and class."""
        return len(self.df_values) * len(self.pos)

    @cached_property
    def _distinct(self) -> tuple[np.ndarray, np.ndarray]:
        """``(some, code)``: a non-zero cell of each distinct ``(A, df, class)`` (any one: they
        share their table), and each non-zero cell's number among them (pandas' hash
        factorisation: no sort)."""
        n_df, m = len(self.df_values), len(self.pos)
        bound = (int(self.pos.sum()) + 1) * max(n_df, 1) * m
        if bound >= 2**62:  # the key could overflow: one table per cell
            return np.arange(len(self.flat)), np.arange(len(self.flat))
        import pandas as pd

        key = (self.a.astype(np.int64) * n_df + self.df_index[self.row]) * m + self.col
        code, _ = pd.factorize(key)
        some = np.empty(code.max(initial=-1) + 1, dtype=np.intp)
        some[code] = np.arange(len(code))
        return some, code

    @cached_property
    def nz_table(self) -> np.ndarray:
        """For each non-zero cell, the index of its table in :attr:`evaluation_set`."""
        return self._distinct[1] + self.n_zero

    @cached_property
    def evaluation_set(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(A, B, C, D)`` of every distinct one-vs-rest table: first the :attr:`n_zero`
        tables with ``A = 0``, distinct ``df`` by class (row-major), then those of the non-zero
        cells."""
        dfu = self.df_values[:, None]
        n = self.n
        grid = (np.zeros(self.n_zero), np.broadcast_to(dfu, (len(dfu), len(self.pos))),
                np.broadcast_to(self.pos, (len(dfu), len(self.pos))), n - self.pos - dfu)
        some = self._distinct[0]
        return tuple(np.concatenate([g.ravel(), x[some]]) for g, x in
                     zip(grid, (self.a, self.b, self.c, self.d), strict=True))


def _as_csr(X) -> sp.csr_matrix:
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
