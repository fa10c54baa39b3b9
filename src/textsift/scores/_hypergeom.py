"""The hypergeometric law of Fisher's exact test, many tables at once, in C
(``textsift._fisher``, built with the package): log-probabilities and tails accurate to about
one rounding of their logs, in log space (no underflow), whatever the counts.

``X`` counts the "red" items among ``n`` drawn from ``r`` red and ``b`` black ones: ``P(X =
x) = C(r, x) C(b, n - x) / C(r + b, n)``.

* The density's log is a sum of nine log-factorials, each in double-double arithmetic (about
  32 digits): ``log k!`` from the exact ``k!`` up to 15, beyond by Stirling's series ``(k +
  1/2) log k - k + log(2 pi) / 2 + 1/(12 k) - 1/(360 k^3) + ...`` (eight terms: within 1e-21
  from ``k = 16``). The large parts cancel exactly, so nothing of ``log P`` is lost to the
  size of the counts (a double's sum of ``log k!`` of 10^4 documents loses about 1e-11). The
  values of ``0..K`` are kept in a table of the process, grown as larger totals come.
* A tail is the density at its end times ``1 +`` the sum of the products of the ratios of
  successive probabilities ``P(X = x - 1) / P(X = x) = x (b - n + x) / ((n + 1 - x) (r + 1 -
  x))``, summed outwards until a term is below 2^-52 of the sum, when the tail lies beyond
  the mean (its terms fall: R's ``pdhyper``); otherwise it is 1 minus the other tail.

Written by hand because scipy's do not serve here (measured on 200,000 random tables of
11,000 documents): ``scipy.stats.hypergeom``'s ``sf`` (Boost) costs 62 microseconds a table,
its ``logsf`` loops in Python (600 microseconds), and its ``logpmf``, a difference of
``betaln`` terms, loses about 1e-11 of relative accuracy at 10^4 documents.
"""

from __future__ import annotations

import numpy as np

from .. import _fisher

__all__ = ["fisher_log_pvalue", "log_pmf"]

#: The alternatives of Fisher's test, as the kernel numbers them.
ALTERNATIVES = {"greater": 0, "less": 1, "two-sided": 2}


def _inputs(*arrays):
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in arrays))
    shape = arrays[0].shape
    return shape, [np.ascontiguousarray(a).ravel() for a in arrays]


def log_pmf(x, r, b, n) -> np.ndarray:
    """``log P(X = x)`` (whole numbers, broadcast), ``-inf`` outside the support."""
    shape, arrays = _inputs(x, r, b, n)
    out = np.empty(arrays[0].shape)
    _fisher.log_pmf(*arrays, out)
    return out.reshape(shape)


def fisher_log_pvalue(A, B, C, D, alternative: str) -> np.ndarray:
    """The log of Fisher's p-value of each table ``[[A, B], [C, D]]`` (broadcast), ``r = A +
    B``, ``b = C + D``, ``n = A + C``: ``greater`` ``log P(X >= A)``, ``less`` ``log P(X <=
    A)``, ``two-sided`` scipy's rule (:func:`textsift.scores.contingency.fisher_log_pvalue`);
    0 where a margin is 0. ``alternative`` is one of :data:`ALTERNATIVES`."""
    shape, arrays = _inputs(A, B, C, D)
    out = np.empty(arrays[0].shape)
    _fisher.log_pvalue(*arrays, ALTERNATIVES[alternative], out)
    return out.reshape(shape)
