"""Multiple-testing corrections of the p-values of every term, and the family each controls.

With 100,000 terms and 20 classes, two million tests are run: at p < 0.05 about 100,000 pass
by chance alone. A correction adjusts each p-value so that a cut at ``alpha`` controls an
error rate over a *family* of tests:

* ``bonferroni`` -- ``min(1, n p)``: the family-wise error rate (the chance of any false
  discovery) at most ``alpha`` (C. E. Bonferroni 1936; O. J. Dunn, JASA 56 (1961) 52-64);
* ``holm`` -- the step-down form of Bonferroni, never larger, same guarantee (S. Holm,
  "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6 (1979)
  65-70): ``max_{j <= i} min(1, (n - j + 1) p_(j))``;
* ``bh`` -- Benjamini-Hochberg: the false discovery rate (the expected share of false ones
  among the terms kept) at most ``alpha`` for independent or positively dependent tests
  (Y. Benjamini and Y. Hochberg, JRSS B 57 (1995) 289-300);
* ``by`` -- Benjamini-Yekutieli: the same under any dependence, ``bh`` times ``sum_{i<=n}
  1/i`` (Y. Benjamini and D. Yekutieli, Ann. Statist. 29 (2001) 1165-1188);
* ``none`` -- the p-values as they are (scikit-learn's ``SelectFpr``).

Each is computed once per distinct p-value of a family, with the number of tests having it
(:func:`adjust_distinct`; a per-class test has one p-value per distinct one-vs-rest table, a
few thousand for a class's 26,000 terms). The adjusted p-values equal statsmodels'
``multipletests`` (``tests/test_corrections.py``).

**The family.** ``family="class"`` (the default) corrects each class's terms apart (a
column of the (V, m) table: ``V`` tests); ``family="all"`` corrects every term-class cell
at once (``V x m`` tests). The default is each class's terms because that is the question
each view and each per-class test asks -- "which of class c's terms are real?" -- and a
class's list is read, kept or discarded as one list; correcting it for the other classes'
tests would make a class's list depend on how many other classes the corpus has (and a
one-vs-rest task, scikit-learn's ``SelectFdr`` on a binary problem, corrects the class's
terms alone). Choose ``"all"`` when the claim is about the union over the classes: a
selection that keeps a term if *any* class keeps it, read as one set of discoveries, has
its false discovery rate (or family-wise error) controlled only by a family of every
cell. A test with one p-value per term (``chi2_sklearn``, ``ig_multi``, ``chi2_multi``,
``mann_whitney``) has one family either way. Terms with no test (NaN: no document has
them) are in no family.
"""

from __future__ import annotations

import numpy as np

from .._bounds import ALPHA
from .._choices import CORRECTION, FAMILY
from .._choices import CORRECTIONS as _CORRECTIONS
from .._choices import FAMILIES as _FAMILIES
from ..errors import TextsiftError, choose

#: The corrections by name (``none`` leaves the p-values as they are).
CORRECTIONS = _CORRECTIONS
#: The families a correction controls: each class's terms, or every term-class cell.
FAMILIES = _FAMILIES

__all__ = ["CORRECTIONS", "FAMILIES", "adjust", "adjust_distinct", "adjust_families",
           "adjust_table", "check_alpha", "check_correction", "check_family"]


def check_correction(correction) -> str:
    """``correction`` if it is one of :data:`CORRECTIONS`, else an error naming them."""
    return choose(correction, CORRECTIONS, "correction", "bh: Benjamini-Hochberg's false "
                  "discovery rate, holm or bonferroni: the family-wise error")


def check_family(family) -> str:
    """``family`` if it is one of :data:`FAMILIES`, else an error naming them."""
    return choose(family, FAMILIES, "family", "class: each class's terms corrected apart, "
                  "all: every term-class cell at once")


def check_alpha(alpha, name: str = "alpha") -> float:
    """``alpha`` if it is a number in (0, 1] (``textsift._bounds.ALPHA``, the one range
    of a significance level), else an error that says so."""
    return float(ALPHA.check(alpha, name))


def adjust(p, correction: str = CORRECTION) -> np.ndarray:
    """The adjusted p-values of one family ``p`` (any shape; NaN entries are not tested,
    not counted, and stay NaN)."""
    check_correction(correction)
    p = np.asarray(p, dtype=np.float64)
    flat = p.ravel()
    tested = np.flatnonzero(~np.isnan(flat))
    if tested.size and ((flat[tested] < 0) | (flat[tested] > 1)).any():
        raise TextsiftError("p-values must lie in [0, 1]")
    return adjust_families(flat, np.ones(flat.size), tested, np.array([0, tested.size]),
                           correction).reshape(p.shape)


def adjust_families(values, weights, members, bounds, correction: str) -> np.ndarray:
    """The adjusted value of each entry of ``values`` (1-D), the families given apart:
    ``members[bounds[f]:bounds[f + 1]]`` (entries) is family ``f``, each entry a p-value
    that ``weights`` tests have (whole numbers; entries may repeat a value: they are one
    distinct value of their family). NaN entries are untested and stay NaN; entries in no
    family are 1. One sort per family, then every family's distinct values corrected at
    once (``_adjusted``), the running extremes family by family."""
    values = np.asarray(values, dtype=np.float64)
    q = np.where(np.isnan(values), np.nan, 1.0)
    if correction == "none":
        q[members] = values[members]
        return q
    check_correction(correction)
    if np.isnan(values[members]).any():  # no test: in no family
        keep = ~np.isnan(values[members])
        members, bounds = members[keep], np.r_[0, np.cumsum(keep)][bounds]
    bounds = np.asarray(bounds, dtype=np.int64)
    spans = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))
    order = np.concatenate([members[a:b][np.argsort(values[members[a:b]])] for a, b in spans]
                           or [np.zeros(0, dtype=np.intp)])
    if not len(order):
        return q
    v = values[order]
    family = np.repeat(np.arange(len(spans)), np.diff(bounds))
    new = np.empty(len(v), dtype=bool)  # the first entry of each distinct value of a family
    new[0] = True
    np.not_equal(v[1:], v[:-1], out=new[1:])
    new[1:] |= family[1:] != family[:-1]
    start = np.flatnonzero(new)
    tests = np.add.reduceat(np.asarray(weights, dtype=np.float64)[order], start)
    adjusted = _adjusted(v[start], tests, family[start], len(spans), correction)
    q[order] = adjusted[np.cumsum(new) - 1]
    return q


def _adjusted(u, w, family, n_families: int, correction: str) -> np.ndarray:
    """The corrections' procedures, written once: the adjusted value of each distinct
    p-value ``u`` of several families at once (``family``: each value's, ascending; ``u``
    ascending within a family), ``w`` the tests having each (whole numbers, so that every
    sum below is exact in any order). With ``n`` tests in the family and ``R_k`` its tests
    with a p-value at most ``u_k``:

    * Bonferroni: ``min(1, n u_k)``;
    * Holm: ``max_{l <= k} min(1, (n - R_{l-1}) u_l)`` (tied tests take the multiplier of
      the first of them, as the step-down does);
    * BH: ``min_{l >= k} min(1, n u_l / R_l)``; BY: BH times ``sum_{i <= n} 1/i``.

    A name without a procedure here is refused (a new correction is its entry in
    ``textsift._choices.CORRECTION_TABLE`` and its procedure here)."""
    ends = np.searchsorted(family, np.arange(n_families + 1))
    total = np.zeros(len(u) + 1)
    np.cumsum(w, out=total[1:])
    before = total[ends[:-1]][family]  # the tests of the families before each value's
    R = total[1:] - before
    n = (total[ends[1:]] - total[ends[:-1]])[family]
    if correction == "none":
        return u.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, n * u)
    if correction == "holm":
        adjusted = (n - (R - w)) * u  # n - R_{k-1}
        _running(np.maximum, adjusted, ends, reverse=False)
    elif correction in ("bh", "by"):
        adjusted = n * u / R
        if correction == "by":
            harmonic = np.array([np.sum(1.0 / np.arange(1, int(t) + 1))
                                 for t in total[ends[1:]] - total[ends[:-1]]])
            adjusted = adjusted * harmonic[family]
        _running(np.minimum, adjusted, ends, reverse=True)
    else:
        raise TextsiftError(f"the correction {correction!r} has no procedure in "
                            "textsift.evidence.corrections._adjusted; write it there")
    return np.minimum(1.0, adjusted, out=adjusted)


def _running(ufunc, values, ends, reverse: bool) -> None:
    """``ufunc.accumulate`` within each family's run ``values[ends[f]:ends[f + 1]]`` (in
    place), from its last entry back when ``reverse``."""
    for a, b in zip(ends[:-1].tolist(), ends[1:].tolist(), strict=True):
        if b - a > 1:
            run = values[a:b][::-1] if reverse else values[a:b]
            run[...] = ufunc.accumulate(run)


def adjust_distinct(values, weights, correction: str) -> np.ndarray:
    """The adjusted p-values of a family given as its distinct p-values ``values`` (sorted
    ascending, no NaN) and the number of tests having each (``weights``, > 0): what
    :func:`adjust` gives each test, computed once per distinct value, by the procedures of
    ``_adjusted`` (one family). Written by hand (scipy's ``false_discovery_control``
    takes every test, and costs 30 ms for a class's 26,000 terms -- twenty times the scores
    of every class; the p-values of a per-class test take one value per distinct one-vs-rest
    table, so a family of 26,000 tests has a few thousand distinct values)."""
    check_correction(correction)
    u = np.asarray(values, dtype=np.float64)
    if u.size == 0:
        return u.copy()
    return _adjusted(u, np.asarray(weights, dtype=np.float64), np.zeros(len(u), np.intp), 1,
                     correction)


def adjust_table(values, correction: str = CORRECTION, family: str = FAMILY) -> np.ndarray:
    """The adjusted p-values of a (V, G) table (:class:`textsift.scores.PValues`'s
    ``values``): each column a family (``family="class"``) or the whole table one
    (``"all"``); see the module docstring for the choice."""
    check_family(family)
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1 or family == "all":
        return adjust(values, correction)
    check_correction(correction)
    flat = values.T.ravel()  # column by column
    tested = np.flatnonzero(~np.isnan(flat))
    bounds = np.searchsorted(tested, np.arange(values.shape[1] + 1) * values.shape[0])
    q = adjust_families(flat, np.ones(flat.size), tested, bounds, correction)
    return q.reshape(values.shape[::-1]).T.copy()
