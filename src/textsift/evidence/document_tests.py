"""Document-level tests of a frequency difference: each document one observation.

A token-level test (chi2 or G2 of token counts) takes a term's occurrences as independent
draws, which they are not: a word used 50 times by one text is one writer's choice, not 50.
J. Lijffijt, T. Nevalainen, T. Saily, P. Papapetrou, K. Puolamaki and H. Mannila,
"Significance testing of word frequencies in corpora", Digital Scholarship in the Humanities
31(2) (2016) 374-397, show that such tests overstate significance, and propose testing texts
instead: the Wilcoxon rank-sum test of the texts' relative frequencies, or a bootstrap of the
texts. Both are here, each for every term at once (no loop over terms), between the target's
documents and the reference's; a document's relative frequency of a term is ``x = f / s``,
its count over its size (:mod:`textsift.evidence.dispersion`; documents with no counted token are
left
out).

* :func:`wilcoxon` -- the Wilcoxon rank-sum (Mann-Whitney U) test, two-sided, in its normal
  approximation with the tie correction and the continuity correction, as
  ``scipy.stats.mannwhitneyu(x, y, method="asymptotic")`` computes it (H. B. Mann and D. R.
  Whitney, Ann. Math. Statist. 18(1) (1947) 50-60): with ``n1`` target and ``n2`` reference
  documents, ``n = n1 + n2``, ``R1`` the sum of the target's ranks (ties averaged),

  .. math::

     U_1 = R_1 - \\frac{n_1 (n_1 + 1)}{2}, \\quad
     z = \\frac{\\max(U_1, n_1 n_2 - U_1) - n_1 n_2 / 2 - 1/2}
              {\\sqrt{\\frac{n_1 n_2}{12} \\left((n + 1) - \\frac{\\sum_k (t_k^3 - t_k)}{n (n - 1)}
              \\right)}},
     \\quad p = \\min(1, 2 \\Phi(-z)),

  ``t_k`` the sizes of the groups of tied values. For a term that few documents use, almost
  every value is a tied zero: the test is then one of presence, and its normal approximation
  is anti-conservative in the far tail, as Pearson's chi2 is on rare terms (measured on 20
  Newsgroups in the keyness guide). Most documents lack a term: their ``z_0 =
  n - range`` zeros are one tie group of average rank ``(z_0 + 1) / 2``, and a non-zero value
  of within-term rank ``k`` (ties averaged) has rank ``z_0 + k``. So only the non-zero entries
  are sorted, once for all terms (by term, then value), and the ranks, rank sums and tie
  terms are sums over them.
* :func:`bootstrap` -- Lijffijt et al.'s bootstrap test (2016, section 3.3): ``B`` times,
  resample each group's documents with replacement (as many as it has) and compare the
  term's frequency in the two samples, ``freq = sum f / sum s`` over the sampled documents;
  with ``H(d) = 1, 1/2, 0`` for ``d > 0, = 0, < 0``,

  .. math::

     p_1 = \\frac1B \\sum_{b=1}^{B} H(\\mathrm{freq}_b(T) - \\mathrm{freq}_b(R)), \\quad
     p = \\frac{1 + 2 B \\min(p_1, 1 - p_1)}{1 + B}.

  The resampled counts of every term are one product of the documents' multiplicities with
  the sparse matrix (by blocks of resamples, so memory stays ``V x block``). The smallest
  p-value is ``1 / (B + 1)``: a correction over thousands of terms needs ``B`` in the
  thousands. The test is a resampling approximation: for a term most documents of both
  groups use, its p-values are uniform under the null (``tests/test_document_tests.py``);
  for a term in a handful of documents, resamples without it on one side are frequent and
  its p-values are not (a term in 2 of 2,500 reference documents and none of the target's
  gets ``p`` of about 0.13 whatever the groups).

Both give ``NaN`` (no test) for a term neither group has, and for a group with no document.
The p-values are corrected with :mod:`textsift.evidence.corrections` like every other test's
(:func:`textsift.evidence.terms.evidence`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import ndtr

from ..errors import TextsiftError

__all__ = ["WilcoxonResult", "bootstrap", "relative_frequencies", "wilcoxon"]

#: Lijffijt et al. 2016, for the docstrings and the evidence's references.
LIJFFIJT_2016 = ("J. Lijffijt, T. Nevalainen, T. Saily, P. Papapetrou, K. Puolamaki and "
                 "H. Mannila, \"Significance testing of word frequencies in corpora\", Digital "
                 "Scholarship in the Humanities 31(2) (2016) 374-397")


@dataclass(frozen=True)
class WilcoxonResult:
    """The rank-sum test of every term: ``u`` (``U_1``, the target's statistic), ``z`` (the
    two-sided deviate, continuity-corrected) and ``p``; arrays of shape (V,). ``u > n1 n2 /
    2``: the target's documents use the term at higher rates."""

    u: np.ndarray
    z: np.ndarray
    p: np.ndarray


def relative_frequencies(X, sizes=None) -> tuple[sp.csr_matrix, np.ndarray]:
    """``(R, kept)``: each document's relative frequency of each term (``f / s``, CSR) for
    the documents of positive size (``kept``, a boolean mask over the rows of ``X``)."""
    X = sp.csr_matrix(X, dtype=np.float64)
    sizes = np.asarray(X.sum(axis=1)).ravel() if sizes is None else np.asarray(
        sizes, dtype=np.float64)
    if sizes.shape != (X.shape[0],):
        raise TextsiftError(f"{len(sizes)} document sizes for {X.shape[0]} documents")
    kept = sizes > 0
    X = X[kept]
    if not X.has_canonical_format:
        X.sum_duplicates()
    X.eliminate_zeros()
    R = sp.csr_matrix((X.data / np.repeat(sizes[kept], np.diff(X.indptr)), X.indices,
                       X.indptr), shape=X.shape)
    return R, kept


def _groups(X, sizes, target, reference):
    target = np.asarray(target, dtype=bool)
    reference = np.asarray(reference, dtype=bool)
    if target.shape != (X.shape[0],) or reference.shape != (X.shape[0],):
        raise TextsiftError("give one target and one reference flag per document")
    if (target & reference).any():
        raise TextsiftError("a document is in both the target and the reference; the groups "
                            "of a two-sample test must not overlap")
    R, kept = relative_frequencies(X, sizes)
    return R, target[kept], reference[kept]


def wilcoxon(X, target, reference, sizes=None) -> WilcoxonResult:
    """The Wilcoxon rank-sum test of every term (module docstring) between the documents
    flagged ``target`` and those flagged ``reference`` (boolean masks over the rows of the
    count matrix ``X``; ``sizes``: the documents' sizes, default the row sums)."""
    R, t_mask, r_mask = _groups(X, sizes, target, reference)
    rows = np.flatnonzero(t_mask | r_mask)
    R = R[rows].tocsc()
    in_target = t_mask[rows]
    n1, n2 = float(in_target.sum()), float(len(rows) - in_target.sum())
    V = R.shape[1]
    n = n1 + n2
    nnz = np.diff(R.indptr)
    col = np.repeat(np.arange(V), nnz)
    value = R.data
    order = _by_term_then_value(col, value)
    col, value, doc = col[order], value[order], R.indices[order]
    # within each term: the position of each non-zero among the term's non-zeros (from 1),
    # and the tie groups (equal values of one term)
    start = np.r_[0, np.cumsum(nnz)][:-1]
    k = np.arange(len(col)) - start[col] + 1
    new = np.r_[True, (col[1:] != col[:-1]) | (value[1:] != value[:-1])] if len(col) else (
        np.zeros(0, dtype=bool))
    group = np.cumsum(new) - 1
    size = np.bincount(group).astype(np.float64) if len(col) else np.zeros(0)
    first = k[new]
    mean_k = first + (size - 1) / 2  # the average within-term position of each tie group
    zeros = n - nnz  # documents without the term: one tie group at the bottom
    rank = zeros[col] + mean_k[group]
    target_nz = in_target[doc]
    r1 = np.bincount(col[target_nz], weights=rank[target_nz], minlength=V)
    zeros_target = n1 - np.bincount(col[target_nz], minlength=V)
    R1 = r1 + zeros_target * (zeros + 1) / 2
    U1 = R1 - n1 * (n1 + 1) / 2
    ties = np.bincount(col[new], weights=size ** 3 - size, minlength=V) + zeros ** 3 - zeros
    U = np.maximum(U1, n1 * n2 - U1)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))))
        z = (U - n1 * n2 / 2 - 0.5) / s
    p = np.clip(2 * ndtr(-z), 0.0, 1.0)
    untested = (nnz == 0) | (n1 == 0) | (n2 == 0)
    return WilcoxonResult(np.where(untested, np.nan, U1), np.where(untested, np.nan, z),
                          np.where(untested, np.nan, p))


def _by_term_then_value(col: np.ndarray, value: np.ndarray) -> np.ndarray:
    """The order of the entries by term, then by value (``np.lexsort((value, col))``): one
    sort of the float key ``term + value / (2 max value)``, three times faster than the
    lexsort, checked afterwards -- where two values of a term are too close for the key to
    tell apart (closer than about 1e-11 of the largest), the lexsort itself."""
    if not len(col):
        return np.zeros(0, dtype=np.intp)
    key = col + value / (2.0 * value.max())
    order = np.argsort(key, kind="stable")
    c, v = col[order], value[order]
    if ((c[1:] == c[:-1]) & (v[1:] < v[:-1])).any():
        return np.lexsort((value, col))
    return order


def bootstrap(X, target, reference, n_resamples: int = 999, random_state=0, sizes=None,
              block: int | None = None) -> np.ndarray:
    """Lijffijt et al.'s bootstrap p-value of every term (module docstring) between the
    documents flagged ``target`` and ``reference``, from ``n_resamples`` resamples of each
    group's documents (``random_state``: a seed or a numpy ``Generator``). ``block``: the
    resamples computed at once (default: about 2**22 values of the (V, block) arrays)."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer) or (
            n_resamples < 1):
        raise TextsiftError(f"the bootstrap needs a positive number of resamples (999 is "
                            f"usual), got {n_resamples!r}")
    R, t_mask, r_mask = _groups(X, sizes, target, reference)
    X = sp.csr_matrix(X, dtype=np.float64)
    sizes = np.asarray(X.sum(axis=1)).ravel() if sizes is None else np.asarray(
        sizes, dtype=np.float64)
    kept = sizes > 0
    X, sizes = X[kept], sizes[kept]
    V = X.shape[1]
    present = np.bincount(R[t_mask | r_mask].indices, minlength=V) > 0
    n1, n2 = int(t_mask.sum()), int(r_mask.sum())
    if n1 == 0 or n2 == 0:
        return np.full(V, np.nan)
    rng = np.random.default_rng(random_state)
    XT = [X[t_mask].T.tocsr(), X[r_mask].T.tocsr()]
    S = [sizes[t_mask], sizes[r_mask]]
    block = block or max(1, min(n_resamples, (1 << 22) // max(V, 1)))
    wins = np.zeros(V)
    done = 0
    while done < n_resamples:
        b = min(block, n_resamples - done)
        freq = []
        for XTg, Sg in zip(XT, S, strict=True):
            n = len(Sg)
            W = rng.multinomial(n, np.full(n, 1.0 / n), size=b).T.astype(np.float64)  # (n, b)
            freq.append((XTg @ W) / (Sg @ W))  # (V, b): sum f / sum s of each resample
        diff = freq[0] - freq[1]
        wins += (diff > 0).sum(axis=1) + 0.5 * (diff == 0).sum(axis=1)
        done += b
    p1 = wins / n_resamples
    p = (1 + 2 * n_resamples * np.minimum(p1, 1 - p1)) / (1 + n_resamples)
    return np.where(present, np.minimum(p, 1.0), np.nan)
