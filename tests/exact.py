"""Fisher's exact p-value in rational arithmetic: the reference of the tests of the Fisher
kernel (``tests/test_hypergeom.py``) and of the p-values (``tests/test_pvalues.py``)."""

from __future__ import annotations

from fractions import Fraction
from math import comb


def exact_fisher(A, B, C, D, alternative):
    """Fisher's p-value in exact rational arithmetic, with scipy's two-sided rule: the
    hypergeometric probabilities ``C(r, x) C(N - r, n - x) / C(N, n)`` of the tables with
    the margins of ``[[A, B], [C, D]]`` (the law is symmetric in the first row's total
    ``r`` and the first column's ``n``: the one nearer 0 or N is taken as ``n``, which keeps
    every binomial coefficient and the sum short)."""
    r, n, N = A + B, A + C, A + B + C + D
    if min(n, N - n) > min(r, N - r):
        r, n = n, r
    lo, hi = max(0, n - (N - r)), min(r, n)
    total = comb(N, n)
    pmf = {x: Fraction(comb(r, x) * comb(N - r, n - x), total) for x in range(lo, hi + 1)}
    if alternative == "greater":
        return sum(v for x, v in pmf.items() if x >= A)
    if alternative == "less":
        return sum(v for x, v in pmf.items() if x <= A)
    bound = pmf[A] * Fraction(1 + 10**-14)
    return min(Fraction(1), sum(v for v in pmf.values() if v <= bound))
