"""Fisher's exact test in C (``textsift._fisher`` through ``scores._hypergeom``): the
hypergeometric log-density against its exact value, the p-values against
``scipy.stats.fisher_exact`` and against the exact rational p-values of 20 Newsgroups-sized
tables."""

from decimal import Decimal, localcontext
from fractions import Fraction
from math import comb

import numpy as np
import pytest
import scipy.stats as ss
from exact import exact_fisher
from hypothesis import given, settings
from hypothesis import strategies as st

from textsift.errors import TextsiftError
from textsift.scores import _hypergeom as hg
from textsift.scores.contingency import fisher_log_pvalue


def _ln(fraction) -> float:
    """The natural log of a positive rational to 40 significant digits, then rounded to a
    double: near 1 (``ln p`` near 0) with as many more digits as ``1 - p`` has leading
    zeros."""
    num, den = fraction.numerator, fraction.denominator
    with localcontext() as ctx:
        ctx.prec = 40 + max(0, len(str(den)) - len(str(den - num)))
        return float(Decimal(num).ln() - Decimal(den).ln())


def _exact_pmf(x, r, b, n) -> Fraction:
    return Fraction(comb(r, x) * comb(b, n - x), comb(r + b, n))


def _ulps(got, exact) -> float:
    return abs(got - exact) / np.spacing(abs(exact)) if exact else abs(got) / 5e-324


@st.composite
def law(draw, top=3000):
    """A hypergeometric law (r red, b black, n drawn) and a point x of its support."""
    r, b = draw(st.integers(0, top)), draw(st.integers(0, top))
    n = draw(st.integers(0, r + b))
    x = draw(st.integers(max(0, n - b), min(r, n)))
    return x, r, b, n


@settings(max_examples=150, deadline=None)
@given(law())
def test_log_pmf_is_the_exact_log_rounded(case):
    """``log P(X = x)`` within 2 ulps of the exact value's log (double-double log-factorials:
    nothing lost to the size of the counts), and ``-inf`` just outside the support."""
    x, r, b, n = case
    got = float(hg.log_pmf(x, r, b, n))
    assert _ulps(got, _ln(_exact_pmf(x, r, b, n))) <= 2
    assert hg.log_pmf(max(0, n - b) - 1, r, b, n) == -np.inf
    assert hg.log_pmf(min(r, n) + 1, r, b, n) == -np.inf


@pytest.mark.parametrize("total", [2**22 - 7, 2**22 + 13, 2**31 + 5])
def test_log_pmf_beyond_the_table(total):
    """Totals around and past the largest table of log-factorials kept (2^22 entries), where
    they are computed directly by the table's function: within 2 ulps of the exact log, or
    1e-20 (P to 1e-20 relative: log 2^31! is 4.4e10, its double-double 5e-22; a log
    near 0 -- P near 1 -- holds that, not its own ulps). A few drawn: the binomials stay
    small."""
    for x, r, n in [(0, 5, 3), (2, 1000, 7), (11, 2**20, 30), (40, total // 2, 40)]:
        b = total - r
        got, exact = float(hg.log_pmf(x, r, b, n)), _ln(_exact_pmf(x, r, b, n))
        assert abs(got - exact) <= max(2 * np.spacing(abs(exact)), 1e-20)


small = st.integers(0, 40)


@settings(max_examples=300, deadline=None)
@given(st.tuples(small, small, small, small), st.sampled_from(["greater", "less", "two-sided"]))
def test_the_kernel_equals_scipys_fisher_exact(cells, alternative):
    """Random small tables, every alternative: p equal to ``scipy.stats.fisher_exact``'s to
    1e-12 relative (p > 1e-300; small counts: Boost's hypergeometric is exact to a few ulps
    there); 1 where a margin is 0 (scipy gives 1 too)."""
    A, B, C, D = cells
    got = float(np.exp(fisher_log_pvalue(A, B, C, D, alternative)))
    expected = ss.fisher_exact([[A, B], [C, D]], alternative=alternative).pvalue
    if min(A + B, C + D, A + C, B + D) == 0:
        assert got == 1.0 == expected
    elif expected > 1e-300:
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def _error(log_p, p: Fraction) -> float:
    """The relative error of the smaller of ``p`` and ``1 - p`` (read from ``ln p`` as ``p``
    or ``-expm1(ln p)``), in units of ``eps max(1, |ln|)`` of that one: the accuracy log
    space gives (``|ln p|`` to a few ulps is ``p`` to a few ulps of ``|ln p|``; near 1, ``ln
    p = log1p(-q)`` holds ``q = 1 - p`` to its own ulps)."""
    if p <= Fraction(1, 2):
        return abs(log_p - _ln(p)) / (EPS * max(1.0, abs(_ln(p))))
    q = 1 - p
    if float(q) == 0:  # p = 1, or 1 - p below the doubles
        return 0.0 if abs(log_p) < 1e-300 else np.inf
    return abs(-np.expm1(log_p) / float(q) - 1) / (EPS * max(1.0, abs(_ln(q))))


EPS = np.finfo(float).eps

#: 20 Newsgroups' training part: 11,314 documents; (A, df, class size) of one-vs-rest tables:
#: the first eight, the tables of the corpus's 68,310 distinct ones whose p-values the numpy
#: implementation this kernel replaced got furthest from the kernel's (1.2 to 6.5 units of
#: ``_error``, the kernel's 0 to 0.2); then tables on both sides of the mean, near it and 12
#: standard deviations away.
NEWSGROUPS = [(325, 573, 594), (271, 278, 595), (315, 624, 593), (212, 391, 578),
              (289, 2547, 599), (122, 232, 600), (0, 10559, 578), (0, 9888, 599),
              (30, 600, 580), (36, 600, 580), (1, 5000, 480), (290, 5000, 480),
              (2, 40, 377), (0, 40, 377), (13, 13, 546)]


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_twenty_newsgroups_tables_are_exact(alternative):
    """Each table's p-value within 2 units of ``_error`` of its exact rational value (60+
    digits), p from 1 - 1e-300 down to 1e-812 (the kernel measured at most 1.4; the numpy
    implementation it replaced 6.5)."""
    N = 11314
    for A, df, size in NEWSGROUPS:
        table = (A, df - A, size - A, N - size - df + A)
        got = float(fisher_log_pvalue(*table, alternative))
        assert _error(got, exact_fisher(*table, alternative)) <= 2, (A, df, size)


def test_a_bad_alternative_is_refused():
    with pytest.raises(TextsiftError, match="unknown alternative 'both'"):
        fisher_log_pvalue(1, 2, 3, 4, alternative="both")


def test_broadcast_and_shape():
    """The tables broadcast as numpy arrays do; the result has their shape."""
    got = fisher_log_pvalue(np.array([[3.0], [1.0]]), 1.0, 1.0, np.array([3.0, 5.0]))
    assert got.shape == (2, 2)
    assert got[0, 0] == pytest.approx(np.log(17 / 70), rel=1e-15)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 400), st.integers(0, 400))
def test_two_sided_counts_the_mirror_tables_of_a_symmetric_law(a, d):
    """When the law is symmetric (both margins half the total), the mirror image of a table
    is exactly as probable as it, so scipy's rule counts it: the two-sided p-value of
    ``[[a, d], [d, a]]`` is twice the one-sided tail (1 where that exceeds 1). Rounded to
    doubles, the log-densities of the two tables could differ by more than the rule's
    tolerance of 1e-14 (log P = -128 for ``[[0, 95], [95, 0]]``, whose ulp is 3e-14): the
    kernel compares them in double-double, and the far tail is kept."""
    if a + d == 0:
        return
    got = float(np.exp(fisher_log_pvalue(a, d, d, a, "two-sided")))
    tail = float(np.exp(fisher_log_pvalue(a, d, d, a, "less" if a < d else "greater")))
    expected = float(exact_fisher(a, d, d, a, "two-sided"))
    if a == d:
        assert got == 1.0 == expected
        return
    assert got == pytest.approx(min(1.0, 2 * tail), rel=1e-12)
    assert got == pytest.approx(expected, rel=1e-12)


def test_two_sided_of_the_table_that_lost_its_far_tail():
    """``[[0, 95], [95, 0]]``: the two tables of probability ``1 / C(190, 95)`` each, so
    ``2 / C(190, 95) = 2.2046466661746e-56`` (scipy's ``fisher_exact`` says the same); the
    kernel once gave half of it."""
    got = float(np.exp(fisher_log_pvalue(0, 95, 95, 0, "two-sided")))
    assert got == pytest.approx(2 / comb(190, 95), rel=1e-12)
    assert got == pytest.approx(ss.fisher_exact([[0, 95], [95, 0]]).pvalue, rel=1e-12)
