"""A rank test for ordinal labels: do the documents that contain a term have higher (or lower)
ranks than those that do not?

``mann_whitney`` is the Mann-Whitney U test (H. B. Mann and D. R. Whitney, "On a test of
whether one of two random variables is stochastically larger than the other", Ann. Math.
Statist. 18(1) (1947) 50-60) of the ranks of the ``df`` documents with the term against the
``N - df`` without it, in its normal approximation with the tie correction and the continuity
correction, as ``scipy.stats.mannwhitneyu(method="asymptotic")`` computes it. Every
document's rank is one of a few values, so the test is all ties, and everything it needs is in
the per-rank counts: with ``A_r`` the documents of rank ``r`` that have the term and ``N_r``
all documents of rank ``r``,

    U1 = sum_r A_r (sum_{s < r} (N_s - A_s) + (N_r - A_r) / 2)

(pairs of a document with the term above one without, ties counting half), ``mu = df (N -
df) / 2``, ``sigma^2 = df (N - df) / 12 ((N + 1) - sum_r (N_r^3 - N_r) / (N (N - 1)))``, and
the two-sided ``z = (max(U1, U2) - mu - 1/2) / sigma`` with ``U2 = df (N - df) - U1``. The
score is ``z`` (the larger, the smaller the p-value ``2 Phi(-z)``, at most 1); its sign,
``U1 > U2``, says whether the term's documents rank higher.
"""

from __future__ import annotations

import numpy as np

from ..counting.counts import Counts
from ..labels.ranks import check_ranks
from ._registry import global_table, register

__all__ = ["mann_whitney_u", "mann_whitney_z"]

MANN_WHITNEY = ("H. B. Mann and D. R. Whitney, Ann. Math. Statist. 18(1) (1947) 50-60; tie "
                "and continuity corrections as scipy.stats.mannwhitneyu (asymptotic) applies "
                "them")


def mann_whitney_u(doc_counts, rank_sizes) -> np.ndarray:
    """``U1`` of every term (module docstring) from its (V, R) per-rank presence counts and
    the rank sizes (ranks in ascending order)."""
    A = np.asarray(doc_counts, dtype=np.float64)
    N_r = np.asarray(rank_sizes, dtype=np.float64)
    without = N_r[None, :] - A
    below = np.cumsum(without, axis=1) - without  # documents without the term, lower ranks
    return (A * (below + 0.5 * without)).sum(axis=1)


def mann_whitney_z(doc_counts, rank_sizes) -> np.ndarray:
    """The two-sided normal deviate ``z`` of every term (module docstring), as
    ``scipy.stats.mannwhitneyu`` computes it; NaN where a group is empty or every document
    has one rank (no test)."""
    A = np.asarray(doc_counts, dtype=np.float64)
    t = np.asarray(rank_sizes, dtype=np.float64)
    n1 = A.sum(axis=1)
    n = t.sum()
    n2 = n - n1
    U1 = mann_whitney_u(A, t)
    U = np.maximum(U1, n1 * n2 - U1)
    mu = n1 * n2 / 2
    tie_term = (t ** 3 - t).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
        return np.where(s > 0, (U - mu - 0.5) / s, np.nan)


def _p_two_sided(z):
    from scipy.special import ndtr

    return np.clip(ndtr(-z) * 2, 0.0, 1.0)


def _mann_whitney_pvalue(counts: Counts):
    z = mann_whitney_z(counts.presence_table(), counts.class_sizes)
    return global_table(counts, np.where(np.isnan(z), 1.0, _p_two_sided(z)))


@register("mann_whitney", "ordinal",
          "Mann-Whitney U: ranks of the documents with the term against those without (z)",
          formula=r"z = \frac{\max(U_1, U_2) - \frac{\mathrm{df}(N - \mathrm{df})}{2} - "
                  r"\frac12}{\sigma}, \quad U_1 = \sum_r A_r \Big(\sum_{s < r} (N_s - A_s) + "
                  r"\frac{N_r - A_r}{2}\Big)",
          reference=MANN_WHITNEY, pvalue=_mann_whitney_pvalue,
          test="Mann-Whitney U of the documents' ranks, with the term against without "
               "(normal approximation, tie and continuity corrections)")
def _mann_whitney(counts):
    """One score per term (its z; NaN, so never ranked, where there is no test)."""
    check_ranks(counts.classes)
    return global_table(counts, mann_whitney_z(counts.presence_table(), counts.class_sizes))
