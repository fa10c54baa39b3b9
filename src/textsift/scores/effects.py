"""Effect sizes with confidence intervals, for a class (the target) against its reference (the
documents without it, or a chosen reference: :func:`textsift.evidence.reference.against`).

A p-value says whether a difference is there; an effect size says how large it is. Each is a
pure function of the one-vs-rest cells ``A, B, C, D`` (the target's documents with and without
the term: ``A``, ``C``; the reference's: ``B``, ``D``), evaluated on whole arrays, at a
confidence level ``level`` (default 0.95, ``alpha = 1 - level``). Proportions are of
*documents*, as every test of textsift counts them: ``p1 = A / N_c``, ``p2 = B / (N - N_c)``.

* :func:`log_ratio` -- ``log2(p1 / p2)``, the binary log of the ratio of relative
  frequencies (A. Hardie, "Log Ratio -- an informal introduction", CASS, Lancaster
  University, 2014): 1 is twice as frequent, -1 half. Its interval is exact: given the
  term's ``A + B`` documents, ``A`` is binomial with ``pi = N_c p1 / (N_c p1 + (N - N_c)
  p2)``, and the Clopper-Pearson interval of ``pi`` (C. J. Clopper and E. S. Pearson,
  Biometrika 26(4) (1934) 404-413) maps onto the ratio by ``p1 / p2 = pi / (1 - pi) x (N -
  N_c) / N_c``. A zero count gives an infinite estimate and a finite bound.
* :func:`lrc` -- the conservative log ratio: the bound of that interval nearer zero, 0 when
  the interval holds 0 (S. Evert's LRC, as CQPweb and his ``corpora`` R package compute it
  from the exact conditional interval). It ranks a term by the smallest effect the data
  support, so that a word seen twice does not top the list.
* :func:`odds_ratio` -- ``A D / (B C)`` with Woolf's interval ``exp(ln OR +- z sqrt(1/A +
  1/B + 1/C + 1/D))`` (B. Woolf, "On estimating the relation between blood group and
  disease", Ann. Hum. Genet. 19(4) (1955) 251-253); with a zero cell, 1/2 is added to every
  cell first (J. B. S. Haldane, Ann. Hum. Genet. 20 (1956) 309-311).
* :func:`proportion_difference` -- ``p1 - p2`` with Newcombe's hybrid score interval from
  the two Wilson intervals (R. G. Newcombe, "Interval estimation for the difference between
  independent proportions", Stat. Med. 17 (1998) 873-890, method 10; E. B. Wilson, JASA 22
  (1927) 209-212), which stays inside [-1, 1] and behaves at zero counts.

The intervals are each at ``level`` on its own; for many terms at once, a Bonferroni level
``1 - alpha / n`` gives simultaneous coverage (:mod:`textsift.evidence.corrections`).
"""

from __future__ import annotations

import numpy as np

from ..errors import TextsiftError

__all__ = ["check_level", "effect_sizes", "log_ratio", "lrc", "odds_ratio",
           "proportion_difference"]


def check_level(level) -> float:
    """``level`` if it is a confidence level in (0, 1), else an error that says so."""
    ok = isinstance(level, int | float | np.floating) and not isinstance(level, bool)
    if not ok or not 0 < float(level) < 1:
        raise TextsiftError(f"the confidence level must be in (0, 1), e.g. 0.95; got {level!r}")
    return float(level)


def _z(level: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(1 - (1 - check_level(level)) / 2))


def _arrays(*cells):
    return np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in cells))


def log_ratio(A, B, C, D, level: float = 0.95):
    """``(estimate, low, high)`` of ``log2(p1 / p2)`` (module docstring); NaN where the
    target or the reference has no document, or no document has the term."""
    from scipy.special import betaincinv

    A, B, C, D = _arrays(A, B, C, D)
    alpha = 1 - check_level(level)
    n1, n2 = A + C, B + D
    factor = n2 / n1
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = np.log2(A / n1) - np.log2(B / n2)
        lo_pi = np.where(A > 0, betaincinv(A, B + 1, alpha / 2), 0.0)
        hi_pi = np.where(B > 0, betaincinv(A + 1, B, 1 - alpha / 2), 1.0)
        low = np.log2(lo_pi / (1 - lo_pi) * factor)
        high = np.log2(hi_pi / (1 - hi_pi) * factor)
    bad = (n1 == 0) | (n2 == 0) | (A + B == 0)
    return tuple(np.where(bad, np.nan, x) for x in (estimate, low, high))


def lrc(A, B, C, D, level: float = 0.95):
    """The conservative log ratio: the bound of :func:`log_ratio`'s interval nearer zero, 0
    when the interval holds 0 (NaN where the log ratio is)."""
    _, low, high = log_ratio(A, B, C, D, level)
    return np.where(low > 0, low, np.where(high < 0, high, np.where(np.isnan(low), np.nan,
                                                                    0.0)))


def odds_ratio(A, B, C, D, level: float = 0.95):
    """``(estimate, low, high)``: ``A D / (B C)`` and Woolf's interval, 1/2 added to every
    cell of a table with a zero (module docstring)."""
    A, B, C, D = _arrays(A, B, C, D)
    z = _z(level)
    zero = (A == 0) | (B == 0) | (C == 0) | (D == 0)
    A, B, C, D = (np.where(zero, x + 0.5, x) for x in (A, B, C, D))
    log_or = np.log(A) + np.log(D) - np.log(B) - np.log(C)
    se = np.sqrt(1 / A + 1 / B + 1 / C + 1 / D)
    return np.exp(log_or), np.exp(log_or - z * se), np.exp(log_or + z * se)


def _wilson(k, n, z):
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, centre - half, centre + half


def proportion_difference(A, B, C, D, level: float = 0.95):
    """``(estimate, low, high)``: ``p1 - p2`` and Newcombe's hybrid score interval (module
    docstring); NaN where the target or the reference has no document."""
    A, B, C, D = _arrays(A, B, C, D)
    z = _z(level)
    p1, l1, u1 = _wilson(A, A + C, z)
    p2, l2, u2 = _wilson(B, B + D, z)
    d = p1 - p2
    low = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return d, low, high


def effect_sizes(A, B, C, D, level: float = 0.95) -> dict[str, np.ndarray]:
    """Every effect size and its interval, by column name: ``log_ratio``,
    ``log_ratio_low``, ``log_ratio_high``, ``lrc``, ``odds_ratio`` (with ``_low``,
    ``_high``) and ``prop_diff`` (with ``_low``, ``_high``)."""
    out = {}
    for name, f in (("log_ratio", log_ratio), ("odds_ratio", odds_ratio),
                    ("prop_diff", proportion_difference)):
        est, low, high = f(A, B, C, D, level)
        out[name], out[f"{name}_low"], out[f"{name}_high"] = est, low, high
        if name == "log_ratio":
            out["lrc"] = np.where(low > 0, low, np.where(high < 0, high,
                                                         np.where(np.isnan(low), np.nan, 0.0)))
    return out
