"""The hypergeometric distribution of Fisher's exact test: log-probabilities and tails of
many tables at once, accurate to a few ulps and in log space (no underflow).

Written by hand because scipy's do not serve here (measured on 200,000 random tables of 11,000
documents): ``scipy.stats.hypergeom``'s ``pmf``, ``cdf`` and ``sf`` (Boost) cost 27, 38 and
62 microseconds a table (12 s for the sf of the 200,000), its ``logsf`` loops in Python
(600 microseconds a table), and its fast ``logpmf`` is a difference of ``betaln`` terms that
loses about 1e-11 of relative accuracy at 10^4 documents. The algorithms are those of R's
``dhyper`` and ``phyper``:

* the density in C. Loader's saddle-point form ("Fast and accurate computation of binomial
  probabilities", 2000): ``log P(X = x) = log b(x; r, p) + log b(n - x; B, p) - log b(n; r +
  B, p)`` with ``p = n / (r + B)``, each binomial term from Stirling's error ``stirlerr`` and
  the deviance ``bd0``, accurate to about 1e-15 relative whatever the counts;
* a tail as the density at its end times ``1 + sum of products of the ratios of successive
  probabilities``, summed from there towards the far end (R's ``pdhyper``) when it starts
  beyond the mean, where the terms fall; otherwise as the complement of the other tail.

The summed series has about eight standard deviations of terms; a table whose series would
be longer than :data:`MAX_TERMS` (a standard deviation above ~500: counts of millions) is
left to Boost's ``scipy.stats.hypergeom``, which has no such cost.

Notation: ``X`` counts the "red" items among ``n`` drawn from ``r`` red and ``B`` black ones.
"""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import numpy as np

__all__ = ["log_cdf", "log_pmf"]

#: Terms of the tail series summed before Boost takes over (see the module docstring).
MAX_TERMS = 4096
_LN_2PI = math.log(2 * math.pi)
_S = (1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188)


def _stirlerr_table() -> np.ndarray:
    """``log(n!) - log(sqrt(2 pi n) (n / e)^n)`` for n = 0..15, to 40 digits (0 at n = 0,
    where it is never used): decimal arithmetic, since in double precision the difference
    cancels most of ``log(n!)``."""
    getcontext().prec = 50
    pi = Decimal("3.14159265358979323846264338327950288419716939937510")
    half_ln_2pi = (2 * pi).ln() / 2
    out = [0.0]
    for n in range(1, 16):
        d = Decimal(n)
        out.append(float(Decimal(math.factorial(n)).ln() - (d + Decimal("0.5")) * d.ln()
                         + d - half_ln_2pi))
    return np.array(out)


_STIRLERR = _stirlerr_table()


def _stirlerr(n: np.ndarray) -> np.ndarray:
    """Stirling's error of ``n!`` for whole numbers ``n >= 0`` (Loader 2000): the table up to
    15, the asymptotic series beyond (as many terms as R's ``stirlerr`` takes)."""
    s0, s1, s2, s3, s4 = _S
    small = n <= 15
    big = np.where(small, 16.0, n)
    nn = big * big
    series = np.where(big > 500, (s0 - s1 / nn) / big,
                      np.where(big > 80, (s0 - (s1 - s2 / nn) / nn) / big,
                               np.where(big > 35, (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / big,
                                        (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn)
                                        / big)))
    return np.where(small, _STIRLERR[np.where(small, n, 0).astype(np.intp)], series)


def _bd0(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The deviance ``x log(x / m) + m - x`` (Loader 2000), by its series where ``x`` is near
    ``m`` (a plain evaluation would cancel); ``x >= 0``, ``m > 0``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        plain = np.where(x > 0, x * np.log(x / m), 0.0) + m - x
        close = np.abs(x - m) < 0.1 * (x + m)
        v = np.where(close, (x - m) / (x + m), 0.0)
    s = (x - m) * v
    ej = 2 * x * v
    v2 = v * v
    for j in range(1, 1000):  # |v| < 0.1: each term is 1/100 of the last; about 8 terms
        ej = ej * v2
        s1 = s + ej / (2 * j + 1)
        if np.array_equal(s1, s):
            break
        s = s1
    return np.where(close, s, plain)


def _log_binom(x, n, p, q):
    """``log b(x; n, p)`` (R's ``dbinom_raw``, ``q = 1 - p`` given apart for accuracy), for
    whole ``0 <= x <= n`` and ``0 < p < 1``."""
    safe_n = np.maximum(n, 1.0)
    edge0 = np.where(p < 0.1, -_bd0(n, n * q) - n * p, n * np.log(q))
    edgen = np.where(q < 0.1, -_bd0(n, n * p) - n * q, n * np.log(p))
    inner_x = np.clip(x, 1.0, np.maximum(n - 1, 1.0))
    lc = (_stirlerr(n) - _stirlerr(inner_x) - _stirlerr(n - inner_x) - _bd0(inner_x, n * p)
          - _bd0(n - inner_x, n * q))
    with np.errstate(divide="ignore", invalid="ignore"):
        # log(1 - x/n) as log((n - x) / n) where x/n is near 1: n - x is exact, 1 - x/n not
        # (R's dbinom_raw loses 1e-11 there)
        lf = _LN_2PI + np.log(inner_x) + np.where(
            2 * inner_x > safe_n, np.log(n - inner_x) - np.log(safe_n),
            np.log1p(-inner_x / safe_n))
        inner = lc - 0.5 * lf
    return np.where(n == 0, 0.0, np.where(x == 0, edge0, np.where(x == n, edgen, inner)))


def log_pmf(x, r, b, n) -> np.ndarray:
    """``log P(X = x)`` of the hypergeometric law (module docstring), broadcast; ``-inf``
    outside the support."""
    x, r, b, n = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (x, r, b, n)))
    total = r + b
    inside = (x >= 0) & (x <= r) & (n - x >= 0) & (n - x <= b)
    p = np.where(total > 0, n / np.maximum(total, 1.0), 0.5)
    q = np.where(total > 0, (total - n) / np.maximum(total, 1.0), 0.5)
    full = (p == 0) | (q == 0)  # no draw, or every item drawn: X is certain
    p, q = np.where(full, 0.5, p), np.where(full, 0.5, q)
    xs = np.where(inside, x, 0.0)
    value = (_log_binom(xs, r, p, q) + _log_binom(np.where(inside, n - x, 0.0), b, p, q)
             - _log_binom(n, total, p, q))
    value = np.where(full, 0.0, value)
    return np.where(inside, value, -np.inf)


def log_cdf(x, r, b, n, upper: bool = False) -> np.ndarray:
    """``log P(X <= x)``, or with ``upper`` ``log P(X > x)``, broadcast (R's ``phyper``:
    the tail below the mean summed, the other its complement)."""
    x, r, b, n = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (x, r, b, n)))
    x = np.floor(x)
    # the tail asked for is summed where it starts beyond the mean (R's rule, but taking the
    # asked tail when the mean lies between x and x + 1: 1 - P(X <= 0) of a term in one
    # document in 8,124 would lose 1e-12), the other as its complement
    total = r + b
    swap = (x + 1) * total >= n * r if upper else x * total > n * r
    xs = np.where(swap, n - x - 1, x)
    rs, bs = np.where(swap, b, r), np.where(swap, r, b)
    lower = swap == upper  # which tail xs's sum gives: P(X' <= xs) is the asked one or not
    zero = (xs < 0) | (xs < n - bs)
    one = ~zero & ((xs >= rs) | (xs >= n))
    live = ~(zero | one)
    d = log_pmf(np.where(live, xs, 0), np.where(live, rs, 1), np.where(live, bs, 1),
                np.where(live, n, 0))
    tail = np.where(live, d + np.log1p(_ratio_sum(xs, rs, bs, n, live)), 0.0)
    tail = np.where(zero, -np.inf, tail)
    out = np.where(lower, tail, _log1mexp(tail))
    long = live & ~np.isfinite(out) | _too_long(xs, rs, bs, n, live)
    if long.any():
        out[long] = _boost(x[long], r[long], b[long], n[long], upper)
    return out


def _ratio_sum(x, r, b, n, live) -> np.ndarray:
    """``sum_k prod_{j<=k} P(X = x - j) / P(X = x - j + 1)``, the series of R's ``pdhyper``,
    for the ``live`` entries (others 0), stopped where a term falls below 2^-52 of the sum
    or after :data:`MAX_TERMS` terms. A loop over the terms, vectorised over the tables
    still summing (written by hand: no library sums this series)."""
    out = np.zeros(x.shape)
    idx = np.flatnonzero(live & (x > 0))
    xi, ri, bi, ni = x.ravel()[idx], r.ravel()[idx], b.ravel()[idx], n.ravel()[idx]
    term, total = np.ones(len(idx)), np.zeros(len(idx))
    for _ in range(MAX_TERMS):
        if len(idx) == 0:
            break
        term = term * (xi * (bi - ni + xi) / (ni + 1 - xi) / (ri + 1 - xi))
        total = total + term
        xi = xi - 1
        go = (xi > 0) & (term >= np.finfo(float).eps * total)
        if not go.all():
            out.ravel()[idx[~go]] = total[~go]
            idx, xi, ri, bi, ni = idx[go], xi[go], ri[go], bi[go], ni[go]
            term, total = term[go], total[go]
    out.ravel()[idx] = total
    return out


def _too_long(x, r, b, n, live) -> np.ndarray:
    """The tables whose series may not finish within :data:`MAX_TERMS` terms: eight and a
    half standard deviations (where the terms reach 2^-52) beyond MAX_TERMS / 2."""
    total = np.maximum(r + b, 2.0)
    var = n * r / total * b / total * (total - n) / (total - 1)
    return live & (8.5 * np.sqrt(np.maximum(var, 0)) > MAX_TERMS / 2)


def _boost(x, r, b, n, upper: bool) -> np.ndarray:
    from scipy.stats import hypergeom

    with np.errstate(divide="ignore"):
        if upper:
            return np.log(hypergeom.sf(x, r + b, r, n))
        return np.log(hypergeom.cdf(x, r + b, r, n))


def _log1mexp(a: np.ndarray) -> np.ndarray:
    """``log(1 - exp(a))`` for ``a <= 0``, accurate on both sides of ``-log 2``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a > -math.log(2), np.log(-np.expm1(a)), np.log1p(-np.exp(a)))
