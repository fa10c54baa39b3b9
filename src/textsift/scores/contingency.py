"""The tests of a 2 x 2 table, computed from its four cells (arrays of any shape, broadcast):
the presence of a term (rows: with it, without it) against a class (columns: the class, the
rest), ``A``, ``B``, ``C``, ``D`` as :meth:`textsift.counting.counts.Counts.tables_at` gives
them.

* Pearson's chi-square (:func:`pearson_2x2`, Yates' correction with ``yates``) and the
  log-likelihood ratio G2 (:func:`g2_statistic`, Dunning 1993; :func:`signed_g2` signed by the
  direction), summed over the cells as ``scipy.stats`` sums them, and their p-values at 1
  degree of freedom (:func:`chi2_2x2_pvalue`, :func:`g2_pvalue`) from the chi-square tail
  (:func:`chi2_pvalue`, any degrees of freedom);
* Fisher's exact test (:func:`fisher_log_pvalue` in log space, :func:`fisher_pvalue`), one of
  three :data:`Alternative` hypotheses, computed in C (``textsift.scores._hypergeom``).

The methods that are these tests (``chi2``, ``g2``, ``fisher``) and the p-values of a whole
score table are :mod:`textsift.scores.significance`'s.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..errors import TextsiftError
from . import _hypergeom
from .direction import representation

__all__ = ["Alternative", "chi2_2x2_pvalue", "chi2_pvalue", "fisher_log_pvalue",
           "fisher_pvalue", "g2_pvalue", "g2_statistic", "pearson_2x2", "signed_g2"]

#: Yates' continuity correction of the chi-square test (``pearson_2x2(..., yates=True)``).
YATES = ("F. Yates, \"Contingency tables involving small numbers and the chi-square test\", "
         "Supplement to JRSS 1(2) (1934) 217-235")
#: The alternatives of Fisher's test: over-representation of the term in the class (the
#: default: what a selection of a class's terms asks), under-representation, or either.
Alternative = Literal["greater", "two-sided", "less"]


def _expected(A, B, C, D):
    """The four expected counts ``row x column / N``, as ``scipy.stats.contingency.
    expected_freq`` computes them (rows: the term present, absent; columns: the class, the
    rest)."""
    n = A + B + C + D
    r0, r1, c0, c1 = A + B, C + D, A + C, B + D
    return r0 * c0 / n, r0 * c1 / n, r1 * c0 / n, r1 * c1 / n


def pearson_2x2(A, B, C, D, yates: bool = False):
    """Pearson's chi-square of the 2 x 2 table, summed over the four cells as
    ``scipy.stats.chi2_contingency`` sums them; with ``yates`` each observed count moved
    towards its expected one by ``min(0.5, |O - E|)`` (Yates 1934, scipy's rule). 0 where a
    margin is 0 (scipy refuses such a table; its p-value is 1)."""
    cells = (A, B, C, D)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = _expected(*cells)
        terms = []
        for o, e in zip(cells, expected, strict=True):
            if yates:
                diff = e - o
                o = o + np.minimum(0.5, np.abs(diff)) * np.sign(diff)
            terms.append((o - e) ** 2 / e)
        stat = ((terms[0] + terms[1]) + terms[2]) + terms[3]
    return np.where(_margins_nonzero(*cells), stat, 0.0)


def g2_statistic(A, B, C, D):
    """The log-likelihood ratio ``G2 = 2 sum O ln(O / E)`` of the 2 x 2 table (Dunning
    1993), as ``scipy.stats.power_divergence(lambda_="log-likelihood")`` sums it (``0 ln 0 =
    0``); 0 where a margin is 0."""
    from scipy.special import xlogy

    cells = (A, B, C, D)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = [2.0 * xlogy(o, o / e) for o, e in zip(cells, _expected(*cells), strict=True)]
        stat = ((terms[0] + terms[1]) + terms[2]) + terms[3]
    return np.where(_margins_nonzero(*cells), stat, 0.0)


def _margins_nonzero(A, B, C, D):
    return (A + B > 0) & (C + D > 0) & (A + C > 0) & (B + D > 0)


def chi2_pvalue(stat, df):
    """The chi-square distribution's upper tail (``scipy.stats.chi2.sf``); with 1 degree of
    freedom as ``erfc(sqrt(stat / 2))`` (the same function: the square of a standard
    normal), fifty times faster than the incomplete gamma function's ``chdtrc``. Below the
    smallest normal double (a statistic above about 1400) ``erfc`` underflows to 0 where
    ``chdtrc`` still gives the subnormal value: there ``chdtrc`` is taken, so that every
    p-value equals ``scipy.stats.chi2.sf``, 0 only where it is 0."""
    from scipy.special import chdtrc, erfc

    stat = np.maximum(stat, 0.0)
    if np.ndim(df) == 0 and df == 1:
        p = np.asarray(erfc(np.sqrt(stat / 2.0)))
        low = p < np.finfo(np.float64).tiny
        if low.any():
            p = p.copy()
            p[low] = chdtrc(1, np.broadcast_to(stat, p.shape)[low])
        return p if p.ndim else p[()]
    return chdtrc(df, stat)


def fisher_log_pvalue(A, B, C, D, alternative: Alternative = "greater"):
    """The natural log of Fisher's exact p-value of each 2 x 2 table (Fisher 1935), in log
    space (no underflow). With ``r = A + B`` (the term's documents), ``b = C + D`` and ``n
    = A + C`` (the class's), ``X`` the hypergeometric count of the class's documents with
    the term given the margins, ``P(X = x) = C(r, x) C(b, n - x) / C(r + b, n)``:
    ``greater`` is ``P(X >= A)``, ``less`` ``P(X <= A)``, and ``two-sided`` the probability
    of the tables no more probable than the one observed, as ``scipy.stats.fisher_exact``
    defines it: 1 where ``P(A)`` is within a relative 1e-14 of the mode's, else ``A``'s tail
    plus the far tail of the ``x`` with ``P(x) < P(A) (1 + 1e-14)`` (``A`` below the mode;
    ``<=`` above it), its bound searched from ``A``'s mirror image about the mean. 0 (p = 1)
    where a margin is 0.

    Computed in C (``textsift.scores._hypergeom``: the density from log-factorials in
    double-double, the tails by the ratios of successive probabilities), accurate to a few
    ulps of ``|ln p|`` (1e-13 at p = 1e-300), and near p = 1 to a few ulps of ``1 - p``."""
    if alternative not in ("greater", "two-sided", "less"):
        raise TextsiftError(f"unknown alternative {alternative!r}; choose greater (the term "
                            "over-represented in the class), less or two-sided")
    return _hypergeom.fisher_log_pvalue(A, B, C, D, alternative)


def fisher_pvalue(A, B, C, D, alternative: Alternative = "greater"):
    """Fisher's exact p-value, ``exp`` of :func:`fisher_log_pvalue` (0 below 1e-308). Its
    relative accuracy is a few ulps of ``|ln p|`` (1e-13 at p = 1e-300): better than
    Boost's (``scipy.stats.hypergeom``), which is 6e-12 off on ``[[1, 0], [0, 104723]]``."""
    return np.exp(fisher_log_pvalue(A, B, C, D, alternative))


def signed_g2(A, B, C, D):
    """G2 signed by the direction: negative where the term is under-represented in the
    class (as quanteda's keyness signs it)."""
    return representation(A, B, C, D) * g2_statistic(A, B, C, D)


def chi2_2x2_pvalue(A, B, C, D, yates: bool = False):
    """The p-value of Pearson's chi-square of each 2 x 2 table (:func:`pearson_2x2`; with
    ``yates``, Yates' correction), 1 degree of freedom (:func:`chi2_pvalue`)."""
    return chi2_pvalue(pearson_2x2(A, B, C, D, yates), 1)


def g2_pvalue(A, B, C, D):
    """The p-value of the log-likelihood ratio of each 2 x 2 table (:func:`g2_statistic`),
    1 degree of freedom (:func:`chi2_pvalue`)."""
    return chi2_pvalue(g2_statistic(A, B, C, D), 1)
