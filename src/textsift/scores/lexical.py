"""Lexical comparison of a class with the rest: the log-odds ratio with an informative
Dirichlet prior (Monroe, Colaresi & Quinn 2008, "Fightin' Words").

For a class (or label) ``c`` against the documents without it, with term frequencies ``y_w =
TF(w, c)`` and ``y'_w = TF(w) - TF(w, c)``, totals ``n = TF(c)`` and ``n' = sum_w y'_w``, and
prior counts ``a_w`` with ``a_0 = sum_w a_w``::

    delta_w = log((y_w + a_w) / (n + a_0 - y_w - a_w)) - log((y'_w + a_w) / (n' + a_0 - y'_w - a_w))
    zeta_w  = delta_w / sqrt(1 / (y_w + a_w) + 1 / (y'_w + a_w))

the log-odds ratio of ``w`` in ``c`` and in the rest, under the posterior of a multinomial
with a Dirichlet prior, divided by its approximate standard deviation (Monroe et al., eqs. 16
and 18-20). The prior is informative: the corpus's own term frequencies, ``a_w = s TF(w)``
(``s = prior_scale``, default 1), as Demszky et al. rank the words of each GoEmotions emotion
(their ``extract_words.py``, after Jurafsky et al.: ``prior = counts in the emotion + counts
in the rest``). Term frequencies are the counts' ``term_freq``: term counts for a count matrix
(the default of every command), document counts for a binary one.

scattertext's ``LogOddsRatioInformativeDirichletPrior`` differs in its variance, which adds
``1 / (n + a_0 - y_w - a_w) + 1 / (n' + a_0 - y'_w - a_w)`` (the other two cells of the
approximation); those terms are small beside ``1 / (y_w + a_w)`` on a corpus of any size, and
this module follows the paper's eq. 20 and the GoEmotions code, which leave them out.
"""

from __future__ import annotations

import numpy as np

from ..errors import TextsiftError
from ._absent import Absent, Grid
from ._registry import ScoreTable, nonempty_classes, register

__all__ = ["log_odds_dirichlet"]

MONROE_2008 = ("B. L. Monroe, M. P. Colaresi and K. M. Quinn, \"Fightin' words: lexical "
               "feature selection and evaluation for identifying the content of political "
               "conflict\", Political Analysis 16(4) (2008) 372-403; prior a_w = TF(w) as in "
               "D. Demszky et al., \"GoEmotions: a dataset of fine-grained emotions\", ACL 2020")


def log_odds_dirichlet(y, y_rest, prior, n, n_rest, a0):
    """``zeta_w`` (module docstring) of term frequencies ``y`` (the class) and ``y_rest`` (the
    rest), prior counts ``prior``, totals ``n`` and ``n_rest`` and prior total ``a0``, all
    broadcast together."""
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = (np.log((y + prior) / (n + a0 - y - prior))
                 - np.log((y_rest + prior) / (n_rest + a0 - y_rest - prior)))
        return delta / np.sqrt(1.0 / (y + prior) + 1.0 / (y_rest + prior))


def _z_pvalue(z):
    from scipy.special import ndtr

    with np.errstate(invalid="ignore"):
        return 2.0 * ndtr(-np.abs(z))


def _log_odds_pvalue(counts, prior_scale=1.0):
    """The two-sided normal p-value of the z-score, ``2 Phi(-|z|)`` (Monroe et al. read
    their z-scores against the normal law)."""
    counts, zero, nz = _log_odds_parts(counts, prior_scale)
    if isinstance(zero, Grid):  # unseen terms stay untested (-inf)
        p = np.where(zero.grid > -np.inf, _z_pvalue(zero.grid), -np.inf)
        absent = Grid(p, zero.df_index, zero.size_index)
    else:
        absent = Absent(lambda t, c: _z_pvalue(zero.fn(t, c)), zero.seen, zero.n_classes)
    return ScoreTable.of_cells(counts, zero=absent, nz=_z_pvalue(nz))


@register("log_odds_dirichlet", "nominal",
          "log-odds ratio with an informative Dirichlet prior, z-scored (Fightin' Words)",
          formula=r"\frac{\delta_w}{\sqrt{\frac{1}{y_w + a_w} + \frac{1}{y'_w + a_w}}}, \quad "
                  r"\delta_w = \log \frac{y_w + a_w}{n + a_0 - y_w - a_w} - "
                  r"\log \frac{y'_w + a_w}{n' + a_0 - y'_w - a_w}, \quad "
                  r"a_w = s\, \mathrm{TF}(w)",
          reference=MONROE_2008, reads_term_freq=True, pvalue=_log_odds_pvalue,
          test="the two-sided normal p-value of the z-score", absent="falls with TF(t)",
          signed=True)
def _log_odds_dirichlet(counts, prior_scale=1.0):
    """Each class (label) ``c`` against the documents without it: ``y_w = TF(w, c)``, ``y'_w
    = TF(w) - TF(w, c)``, prior ``a_w = prior_scale * TF(w)`` (module docstring). Right for
    label sets too, since ``TF(w)`` is over all documents. A term the corpus never has is
    not ranked.

    Sparse, like the other per-class scores: where ``TF(w, c) = 0`` the score depends only on
    ``(TF(w), TF(c))``, so it is evaluated once per distinct ``TF(w)`` and class (when there
    are not too many classes; else where asked for), and once per non-zero cell. There it is
    non-increasing in ``TF(w)`` and in ``TF(c)``: with ``y = 0``, ``R = TF - TF(w)`` (``TF``
    the corpus's total, ``a_0 = s TF``), ``delta = log(s ((1 + s) R - n) / ((1 + s) (n + s
    R)))``, at most 0 and non-increasing as ``TF(w)`` or ``n = TF(c)`` grows, times the
    positive ``sqrt(TF(w) / (1/s + 1/(1 + s)))``, which grows with ``TF(w)``: so a class's best
    absent terms are its rarest (a test checks it on random counts)."""
    counts, zero, nz = _log_odds_parts(counts, prior_scale)
    return ScoreTable.of_cells(counts, zero=zero, nz=nz)


def _log_odds_parts(counts, prior_scale):
    """``(counts, absent, nz)``: the non-empty classes' counts, the rule of the cells with
    ``TF(w, c) = 0`` and the z-scores of the non-zero cells (as computed, NaN kept)."""
    if not isinstance(prior_scale, int | float) or isinstance(prior_scale, bool) or not (
            np.isfinite(prior_scale) and prior_scale > 0):
        raise TextsiftError(f"prior_scale must be a positive number (the prior counts are "
                            f"prior_scale * TF(w)), got {prior_scale!r}")
    counts = nonempty_classes(counts)
    cells, s = counts.cells, float(prior_scale)
    n = counts.class_tf
    total = counts.tf.sum()
    n_rest, a0 = total - n, s * total
    tf = counts.tf[cells.row]
    nz = log_odds_dirichlet(cells.tf, tf - cells.tf, s * tf, n[cells.col], n_rest[cells.col], a0)
    return counts, _absent(counts, s, n, n_rest, a0), nz


def _absent(counts, s: float, n, n_rest, a0) -> Grid | Absent:
    """The scores of the cells with ``TF(w, c) = 0``: a :class:`Grid` of distinct ``TF(w)``
    by class when that is small (up to 2**22 values; the unseen terms on a row of
    ``-inf``), else an :class:`Absent` evaluated where asked for."""
    import pandas as pd

    seen, m = counts.seen, counts.n_classes
    at, tf_values = pd.factorize(counts.tf[seen])  # hashed, not sorted: any order serves
    if (len(tf_values) + 1) * m <= 2**22:
        v = np.asarray(tf_values, dtype=np.float64)[:, None]
        grid = np.full((len(v) + 1, m), -np.inf)
        grid[:-1] = log_odds_dirichlet(0.0, v, s * v, n, n_rest, a0)
        np.copyto(grid, -np.inf, where=np.isnan(grid))
        key = np.full(counts.n_terms, len(v), dtype=np.intp)
        key[seen] = at
        return Grid(grid, key, np.arange(m))
    tf = counts.tf

    def fn(t, c):
        return log_odds_dirichlet(0.0, tf[t], s * tf[t], n[c], n_rest[c], a0)

    return Absent(fn, counts.seen, m, term_key=-counts.tf, class_key=-n)
