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

``bh`` and ``by`` are scipy's ``scipy.stats.false_discovery_control``; ``bonferroni`` and
``holm`` are two lines each. The adjusted p-values equal statsmodels' ``multipletests``
(``tests/test_corrections.py``).

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

from ._choices import CORRECTIONS, FAMILIES
from .errors import TextsiftError

__all__ = ["CORRECTIONS", "FAMILIES", "adjust", "adjust_table", "check_alpha",
           "check_correction"]


def check_correction(correction) -> str:
    if correction not in CORRECTIONS:
        raise TextsiftError(f"unknown correction {correction!r}; choose one of "
                            f"{', '.join(CORRECTIONS)} (bh: Benjamini-Hochberg's false "
                            "discovery rate, holm or bonferroni: the family-wise error)")
    return correction


def check_family(family) -> str:
    if family not in FAMILIES:
        raise TextsiftError(f"unknown family {family!r}; choose class (each class's terms "
                            "corrected apart) or all (every term-class cell at once)")
    return family


def check_alpha(alpha, name: str = "alpha") -> float:
    """``alpha`` if it is a number in (0, 1], else an error that says so."""
    ok = isinstance(alpha, int | float | np.floating) and not isinstance(alpha, bool)
    if not ok or not (0 < float(alpha) <= 1):
        raise TextsiftError(f"{name} must be a significance level in (0, 1], e.g. 0.05; got "
                            f"{alpha!r}")
    return float(alpha)


def adjust(p, correction: str = "bh") -> np.ndarray:
    """The adjusted p-values of one family ``p`` (any shape; NaN entries are not tested,
    not counted, and stay NaN)."""
    check_correction(correction)
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    tested = ~np.isnan(p)
    values = p[tested]
    if values.size and ((values < 0) | (values > 1)).any():
        raise TextsiftError("p-values must lie in [0, 1]")
    out[tested] = _adjust(values, correction)
    return out


def _adjust(p: np.ndarray, correction: str) -> np.ndarray:
    n = p.size
    if n == 0 or correction == "none":
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, p * n)
    if correction == "holm":
        order = np.argsort(p, kind="stable")
        stepped = np.maximum.accumulate((n - np.arange(n)) * p[order])
        out = np.empty(n)
        out[order] = np.minimum(1.0, stepped)
        return out
    from scipy.stats import false_discovery_control

    return false_discovery_control(p, method=correction)


def adjust_table(values, correction: str = "bh", family: str = "class") -> np.ndarray:
    """The adjusted p-values of a (V, G) table (:class:`textsift.scores.PValues`'s
    ``values``): each column a family (``family="class"``) or the whole table one
    (``"all"``); see the module docstring for the choice."""
    check_family(family)
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1 or family == "all":
        return adjust(values, correction)
    return np.column_stack([adjust(values[:, j], correction)
                            for j in range(values.shape[1])]) if values.shape[1] else values
