"""Dispersion: is a term spread over a group's documents, or carried by a few of them?

A keyness test says that a term is more frequent in the target than in the reference; it
does not say whether many documents of the target use it or one long document repeats it
(S. Th. Gries, "Dispersions and adjusted frequencies in corpora", International Journal of
Corpus Linguistics 13(4) (2008) 403-437; Gries 2024, *Frequency, dispersion, association and
keyness*, Benjamins: report the three as separate values). For each term and each group of
documents (the target, the reference), with the group's documents as the corpus parts:

* ``range`` -- the documents of the group that contain the term;
* ``dp`` -- Gries' deviation of proportions,

  .. math:: DP = \\frac12 \\sum_{i=1}^{n} \\left| \\frac{f_i}{f} - \\frac{s_i}{s} \\right|,

  with ``f_i`` the term's count in document ``i``, ``f`` its count in the group, ``s_i`` the
  document's size and ``s`` the group's (Gries 2008, p. 415): 0 when the term is spread over
  the documents in proportion to their sizes, near 1 when one small document holds it all;
* ``dp_norm`` -- DP divided by its largest possible value, ``DP / (1 - min_i s_i / s)``
  (J. Lijffijt and S. Th. Gries, "Correction to Stefan Th. Gries' 'Dispersions and adjusted
  frequencies in corpora'", IJCL 17(1) (2012) 147-149), in [0, 1] whatever the documents'
  sizes; NaN for a group of one document, where it is 0 / 0;
* ``cv`` -- the coefficient of variation of the term's relative frequency ``x_i = f_i /
  s_i`` over the group's documents, ``sd(x) / mean(x)`` with the population standard
  deviation (Gries 2008's ``vc``, taken over documents of unequal sizes by their relative
  frequencies): 0 when every document has the term at one rate, ``sqrt(n - 1)`` when one
  document of ``n`` has it all.

A document's **size** is its number of counted tokens: the sum of its row of the count matrix
(the terms of the vocabulary, after the preprocessing and its pruning). A document with no
counted token has no relative frequency and is no part: it is left out of the dispersion
(and of the document-level tests, :mod:`textsift.evidence.document_tests`). A term the group lacks
has range 0 and NaN for the rest.

Every measure is computed from the non-zero entries of the sparse document-term matrix, never
from a dense one: the documents without the term add ``sum_{f_i = 0} s_i / s = 1 - sum_{f_i >
0} s_i / s`` to DP's sum and ``(n - range) mean(x)^2`` to the squared deviations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..errors import TextsiftError

__all__ = ["DISPERSION_COLUMNS", "Dispersion", "Documents", "dispersion"]

#: The dispersion measures, in the order the evidence shows them (each for the target and the
#: reference: ``range_target``, ``range_reference``, ...).
DISPERSION_COLUMNS = ("range", "dp", "dp_norm", "cv")


@dataclass(frozen=True)
class Dispersion:
    """Each term's dispersion over one group of documents (module docstring): arrays of
    shape (V,)."""

    range: np.ndarray
    dp: np.ndarray
    dp_norm: np.ndarray
    cv: np.ndarray


def _csr(X) -> sp.csr_matrix:
    X = sp.csr_matrix(X, dtype=np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    if X.data.size and (not np.isfinite(X.data).all() or X.data.min() < 0):
        raise TextsiftError("the document-term matrix must hold non-negative finite counts")
    return X


def dispersion(X, sizes=None) -> Dispersion:
    """The dispersion of every term (columns of ``X``) over the documents (rows of ``X``):
    :class:`Dispersion` (module docstring). ``X``: term counts, any scipy sparse or dense
    array; ``sizes``: each document's size (default: its row sum, the counted tokens).
    Documents of size 0 are left out."""
    X = _csr(X)
    sizes = np.asarray(X.sum(axis=1)).ravel() if sizes is None else np.asarray(
        sizes, dtype=np.float64)
    if sizes.shape != (X.shape[0],):
        raise TextsiftError(f"{len(sizes)} document sizes for {X.shape[0]} documents")
    keep = sizes > 0
    if not keep.all():
        X, sizes = X[keep], sizes[keep]
    n, V = X.shape
    if n == 0:
        nan = np.full(V, np.nan)
        return Dispersion(np.zeros(V, dtype=np.int64), nan, nan.copy(), nan.copy())
    entries = X.data > 0
    rows = np.repeat(np.arange(n), np.diff(X.indptr))[entries]
    cols, f = X.indices[entries], X.data[entries]
    total = sizes.sum()
    share = sizes / total  # s_i / s
    rng = np.bincount(cols, minlength=V)
    freq = np.bincount(cols, weights=f, minlength=V)  # f, the term's count in the group
    seen = rng > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        v = f / freq[cols]
        s = share[rows]
        # the documents without the term add their share: 1 - (the shares of those with it)
        dp = 0.5 * (np.bincount(cols, weights=np.abs(v - s) - s, minlength=V) + 1.0)
        dp = np.where(seen, np.clip(dp, 0.0, 1.0), np.nan)
        largest = 1.0 - share.min()
        dp_norm = np.clip(dp / largest, 0.0, 1.0) if largest > 0 else np.full(V, np.nan)
        x = f / sizes[rows]  # relative frequencies of the documents with the term
        mean = np.bincount(cols, weights=x, minlength=V) / n
        squares = (np.bincount(cols, weights=(x - mean[cols]) ** 2, minlength=V)
                   + (n - rng) * mean ** 2)
        cv = np.where(seen, np.sqrt(squares / n) / mean, np.nan)
    return Dispersion(rng.astype(np.int64), dp, np.where(seen, dp_norm, np.nan), cv)


@dataclass(frozen=True, eq=False)
class Documents:
    """The documents behind a :class:`~textsift.counting.counts.Counts`: what the dispersion and the
    document-level tests read and the counts have summed away.

    Attributes
    ----------
    X : (n, V) CSR matrix of term counts, the columns the counts' terms.
    member : (n, m) boolean CSR matrix, ``member[d, c]``: document ``d`` has class ``c`` (the
        counts' classes, in their order). A class's reference is the documents without it,
        as the counts' one-vs-rest cells count them.
    sizes : (n,) float64, each document's size (:mod:`textsift.evidence.dispersion`: its counted
        tokens).
    """

    X: sp.csr_matrix
    member: sp.csr_matrix
    sizes: np.ndarray

    @classmethod
    def of(cls, X, labels, classes) -> Documents:
        """The documents of the count matrix ``X`` labelled ``labels`` (anything
        :func:`textsift.labels.as_labels` reads), their classes ordered as ``classes`` (the
        counts')."""
        from ..labels import as_labels, group_index

        X = _csr(X)
        read = as_labels(labels, classes)
        order = [group_index(read.classes, c) for c in classes]
        member = sp.csr_matrix(read.indicator, dtype=bool)[:, order]
        if member.shape[0] != X.shape[0]:
            raise TextsiftError(f"{member.shape[0]} labels for {X.shape[0]} documents")
        return cls(X, member, np.asarray(X.sum(axis=1), dtype=np.float64).ravel())

    @classmethod
    def two_groups(cls, target, reference) -> Documents:
        """The documents of two count matrices over one vocabulary, the first the target
        (class 0), the second the reference (class 1): the documents of
        :func:`textsift.evidence.reference.against_corpus`'s counts."""
        target, reference = _csr(target), _csr(reference)
        if target.shape[1] != reference.shape[1]:
            raise TextsiftError("the target's and the reference's documents must be counted "
                                "over one vocabulary")
        n1, n2 = target.shape[0], reference.shape[0]
        member = sp.csr_matrix(np.r_[np.c_[np.ones(n1, bool), np.zeros(n1, bool)],
                                     np.c_[np.zeros(n2, bool), np.ones(n2, bool)]])
        X = sp.vstack([target, reference], format="csr")
        return cls(X, member, np.asarray(X.sum(axis=1), dtype=np.float64).ravel())

    def select_classes(self, index) -> Documents:
        """The documents of the classes ``index`` only (those with one of them), as
        :meth:`textsift.counting.counts.Counts.select_classes` keeps them for one class per
        document."""
        member = self.member[:, np.asarray(index)]
        rows = np.flatnonzero(np.asarray(member.sum(axis=1)).ravel() > 0)
        return Documents(self.X[rows], member[rows], self.sizes[rows])

    def groups(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Boolean masks of class ``j``'s documents (the target) and of the others (its
        reference)."""
        target = self.member[:, j].toarray().ravel()
        return target, ~target

    def dispersion(self, j: int) -> tuple[Dispersion, Dispersion]:
        """Each term's dispersion in class ``j``'s documents and in its reference's."""
        target, reference = self.groups(j)
        return (dispersion(self.X[target], self.sizes[target]),
                dispersion(self.X[reference], self.sizes[reference]))
