"""Information-theoretic and chi-square scores.

* ``ig`` -- binary information gain of presence against one class (Forman 2003; the RC
  paper's IG baseline): ``IG(t, c) = sum_{c' in {c, not c}} sum_{t' in {t, not t}}
  P(t', c') log(P(t', c') / (P(t') P(c')))``, with ``0 log 0 = 0``.
* ``ig_multi`` -- mutual information between presence and the m-valued class
  (Yang & Pedersen 1997): ``H(C) - P(t) H(C|t) - P(not t) H(C|not t)``.
* ``mi`` -- pointwise mutual information ``log(A N / (df pos))`` (Yang & Pedersen 1997).
* ``chi2`` -- the 2x2 Pearson statistic ``N (AD - BC)^2 / ((A+B)(C+D)(A+C)(B+D))``, no Yates
  correction, 0 when a marginal is 0.
* ``chi2_sklearn`` -- scikit-learn's ``chi2``: per class ``(O - E)^2 / E`` over summed term
  weights, ``O = TF(t, c)``, ``E = P(c) TF(t)``; summed over classes it equals
  ``sklearn.feature_selection.chi2`` on the same matrix.

All entropies use ``sum n log n`` over the cells of a contingency table divided by ``N``,
which is exact for empty cells and costs one pass over the counts.
"""

from __future__ import annotations

import numpy as np

from ..errors import TextsiftError
from ._absent import Absent
from ._registry import binary_scores, global_table, register
from .association import sparse_tf_table
from .contingency import YATES, chi2_2x2_pvalue, chi2_pvalue, pearson_2x2
from .forman import FORMAN_2003
from .significance import (  # noqa: F401  (g2 and fisher register before this module's
    PValues,  # methods: the registry's order, which listings and the reference follow)
)

YANG_PEDERSEN_1997 = ("Y. Yang and J. O. Pedersen, \"A comparative study on feature selection in "
                      "text categorization\", ICML 1997, 412-420")

__all__ = ["chi2", "ig", "ig_multi_from_counts", "mi"]


def _nlogn(x):
    """``x log x`` with ``0 log 0 = 0``, for counts ``x >= 0``: numpy's vectorised ``log``,
    several times faster than ``scipy.special.xlogy`` (equal to it within an ulp or two)."""
    x = np.asarray(x, dtype=np.float64)
    return x * np.log(np.where(x > 0, x, 1.0))


def ig(A, B, C, D, base=2.0):
    """Binary information gain (mutual information of presence and class membership) in
    units of ``log(base)``; bits by default as in Forman 2003 (the lecture slides print
    log10: pass ``base=10``). Never negative (float noise is clipped at 0)."""
    N = A + B + C + D
    cells = _nlogn(A) + _nlogn(B) + _nlogn(C) + _nlogn(D)
    rows = _nlogn(A + B) + _nlogn(C + D)
    cols = _nlogn(A + C) + _nlogn(B + D)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (cells - rows - cols + _nlogn(N)) / (N * np.log(base))
    return np.maximum(np.nan_to_num(out, nan=0.0), 0.0)


def mi(A, B, C, D, weighted=False, base=np.e):
    """Pointwise MI ``log(P(t, c) / (P(t) P(c))) = log(A N / (df pos))``; ``A = 0`` gives
    ``-inf``: no score in that class, so never a candidate of it in a round robin. Signed
    (negative where the term is under-represented in the class), so ``sum`` and ``wavg``
    (Yang & Pedersen's ``MI_avg``) are refused (``Method.signed``).

    ``weighted=True`` gives JaTeCS's ``P(t, c) log(...)`` (``A = 0`` gives 0).

    Computed as ``log((A / df) (N / pos))``: the terms found only in the class (``A = df``)
    all score ``log(N / pos)`` to the bit, whatever their frequency, so their tie is a tie
    (the ranking's tie-break orders them), where ``log A + log N - log df - log pos`` differs
    from term to term by an ulp or two.
    """
    N = A + B + C + D
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log((A / (A + B)) * (N / (A + C))) / np.log(base)
    if weighted:
        return np.where(A > 0, A / N * pmi, 0.0)
    return np.where(A > 0, pmi, -np.inf)


def chi2(A, B, C, D, yates: bool = False):
    """Pearson's chi-square of the 2x2 table, 0 when any marginal is 0 (Forman 2003); with
    ``yates``, Yates' continuity correction (as ``scipy.stats.chi2_contingency`` applies
    it: :func:`textsift.scores.contingency.pearson_2x2`)."""
    if yates:
        return pearson_2x2(A, B, C, D, yates=True)
    N = A + B + C + D
    den = (A + B) * (C + D) * (A + C) * (B + D)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = N * (A * D - B * C) ** 2 / den
    return np.where(den > 0, out, 0.0)


def ig_multi_from_counts(doc_counts, class_sizes, base=2.0):
    """``IG_multi`` from (V, m) presence counts and (m,) class sizes, in units of log(base).

    Equals ``sklearn.feature_selection.mutual_info_classif(X > 0, y,
    discrete_features=True)`` with ``base=e``.
    """
    A = np.asarray(doc_counts, dtype=np.float64)
    pos = np.asarray(class_sizes, dtype=np.float64)
    return _ig_multi(_nlogn(A).sum(axis=1) + _nlogn(pos - A).sum(axis=1), A.sum(axis=1), pos, base)


def _ig_multi(cells, df, pos, base):
    """``(sum_cells n log n - sum_rows - sum_cols + N log N) / (N log base)`` for the 2 x m
    table of presence against class, ``cells`` being the first sum per term."""
    N = pos.sum()
    rows = _nlogn(df) + _nlogn(N - df)
    out = (cells - rows - _nlogn(pos).sum() + _nlogn(N)) / (N * np.log(base))
    return np.maximum(out, 0.0)


@register("ig", "nominal", "information gain of presence for each class (bits)",
          formula=r"\sum_{c' \in \{c, \bar c\}} \sum_{t' \in \{t, \bar t\}} P(t', c')"
                  r" \log_2 \frac{P(t', c')}{P(t') P(c')}",
          reference=FORMAN_2003, absent="rises with df")
def _ig(counts, base=2.0):
    return binary_scores(counts, ig, base=base)


def _g_test_pvalue(counts, base=2.0):
    """The G-test of the 2 x m presence/class table, ``G = 2 N ln2 IG`` (IG in bits) =
    ``2 sum O ln(O / E)`` over its 2m cells, m - 1 degrees of freedom; evaluated as that
    sum, sparsely (the cells with ``A = 0`` of a term add up to ``(N - sum N_c) ln(N / (N -
    df))`` in the absence row and nothing in the presence row)."""
    c = counts.cells
    N, df = float(counts.n_docs), counts.df.astype(np.float64)
    pos = counts.class_sizes.astype(np.float64)
    p, d = pos[c.col], df[c.row]
    with np.errstate(divide="ignore", invalid="ignore"):
        present = _xlogy(c.a, c.a * N / (d * p))
        absent = _xlogy(p - c.a, (p - c.a) * N / ((N - d) * p))
        rest = N - np.bincount(c.row, weights=p, minlength=counts.n_terms)
        zero_rows = np.where(df < N, rest * np.log(N / (N - df)), 0.0)
    G = 2.0 * (np.bincount(c.row, weights=present + absent, minlength=counts.n_terms)
               + zero_rows)
    return global_table(counts, _p_of_rows(counts, G))


def _p_of_rows(counts, stat):
    """The p-value of a 2 x m test of each term, ``m - 1`` degrees of freedom (m: the
    classes with documents); 1 for a term in every document or in none (no test)."""
    m = int((counts.class_sizes > 0).sum())
    testable = (counts.df > 0) & (counts.df < counts.n_docs)
    return np.where(testable, chi2_pvalue(stat, m - 1), 1.0)


def _xlogy(x, y):
    from scipy.special import xlogy

    return xlogy(x, y)


@register("ig_multi", "nominal", "mutual information of presence with the m-valued class",
          aggregates=("max",), requires=("single_label",),
          formula=r"H(C) - P(t) H(C \mid t) - P(\bar t) H(C \mid \bar t) \quad "
                  r"(\text{one score per term, bits})",
          reference=YANG_PEDERSEN_1997, pvalue=_g_test_pvalue,
          test="the G-test of the 2 x m presence/class table, G = 2 N ln2 IG, m - 1 df")
def _ig_multi_method(counts, base=2.0):
    """Requires ``single_label``: the class is one m-valued variable, so the classes must
    partition the documents (with several labels per document ``H(C)`` is not defined)."""
    # sparse: the A = 0 cells of a term contribute sum_c pos_c log pos_c, a constant; only the
    # non-zero cells need their own terms
    c = counts.cells
    pos = counts.class_sizes.astype(np.float64)
    p = pos[c.col]
    per_cell = _nlogn(c.a) + _nlogn(p - c.a) - _nlogn(p)
    cells = np.bincount(c.row, weights=per_cell, minlength=counts.n_terms) + _nlogn(pos).sum()
    return global_table(counts, _ig_multi(cells, counts.df.astype(np.float64), pos, base))


@register("mi", "nominal", "pointwise mutual information log(P(t,c) / P(t)P(c))",
          formula=r"\log \frac{P(t, c)}{P(t) P(c)} = \log \frac{A N}{\mathrm{df}\, N_c} \quad "
                  r"(-\infty \text{ when } A = 0)",
          reference=YANG_PEDERSEN_1997, absent="the same for every term",
          signed=True)
def _mi(counts, weighted=False, base=np.e):
    return binary_scores(counts, mi, weighted=weighted, base=base)


def _chi2_pvalue(counts, yates=False):
    return binary_scores(counts, chi2_2x2_pvalue, yates=yates)


@register("chi2", "nominal", "chi-square of the 2x2 presence/class table",
          formula=r"\frac{N (A D - B C)^2}{(A + B)(C + D)(A + C)(B + D)} \quad "
                  r"(0 \text{ when a margin is } 0)",
          reference=FORMAN_2003 + "; yates=True: " + YATES, pvalue=_chi2_pvalue,
          test="Pearson's chi-square of the 2 x 2 presence/class table, 1 df (yates=True: "
               "Yates' continuity correction)", absent="rises with df")
def _chi2(counts, yates: bool = False):
    if not isinstance(yates, bool | np.bool_):
        raise TextsiftError(f"yates must be True or False, got {yates!r}")
    return binary_scores(counts, chi2, yates=bool(yates))


def chi2_multi(S, df, N):
    """Pearson's X2 of the 2 x m presence/class table of a term, from ``S = sum_c A_c^2 /
    N_c``: ``sum (O - E)^2 / E = N (N S - df^2) / (df (N - df))`` (the two rows' sums, with
    ``sum_c N_c = N`` and ``sum_c A_c = df``); 0 for a term in every document or none."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = N * (N * S - df * df) / (df * (N - df))
    return np.where((df > 0) & (df < N), np.maximum(out, 0.0), 0.0)


def _chi2_multi_stat(counts):
    c = counts.cells
    pos = counts.class_sizes.astype(np.float64)
    S = np.bincount(c.row, weights=c.a * c.a / pos[c.col], minlength=counts.n_terms)
    return chi2_multi(S, counts.df.astype(np.float64), float(counts.n_docs))


def _chi2_multi_pvalue(counts):
    return global_table(counts, _p_of_rows(counts, _chi2_multi_stat(counts)))


@register("chi2_multi", "nominal", "Pearson's chi-square of the 2 x m presence/class table",
          aggregates=("max",), requires=("single_label",),
          formula=r"\sum_{t' \in \{t, \bar t\}} \sum_c \frac{(O - E)^2}{E} = "
                  r"\frac{N (N \sum_c A_c^2 / N_c - \mathrm{df}^2)}{\mathrm{df} (N - \mathrm{df})}",
          reference="K. Pearson, \"On the criterion that a given system of deviations...\", "
                    "Philosophical Magazine 50 (1900) 157-175; the 2 x m test of presence "
                    "against the class as in Y. Yang and J. O. Pedersen, ICML 1997 (their "
                    "chi2 is per class)",
          pvalue=_chi2_multi_pvalue,
          test="Pearson's chi-square of the 2 x m presence/class table, m - 1 df")
def _chi2_multi(counts):
    """One score per term: the classes as one m-valued variable (so ``single_label``, as
    ``ig_multi``). Sparse: ``S`` sums over the non-zero cells only."""
    return global_table(counts, _chi2_multi_stat(counts))


@register("chi2_sklearn", "nominal",
          "scikit-learn's chi2 on term weights (per-class terms; 'sum' equals sklearn)",
          default_aggregate="sum",
          formula=r"\frac{(\mathrm{TF}(t, c) - E)^2}{E}, \quad E = P(c)\, \mathrm{TF}(t)",
          reference="scikit-learn's sklearn.feature_selection.chi2 (Pedregosa et al., JMLR 12 "
                    "(2011) 2825-2830), one term per class", reads_term_freq=True,
          pvalue=lambda counts: _chi2_sklearn_pvalue(counts), test_requires=("single_label",),
          test="scikit-learn's chi2 p-value: the per-class terms summed, m - 1 df (one per "
               "term)", absent="rises with TF(t)")
def _chi2_sklearn(counts):
    """Per class ``(O - E)^2 / E`` with ``E = P(c) TF(t)``; where ``O = 0`` that is ``E``.
    No requirement of the labelling: ``TF(t)`` is the term's total over the documents
    (stored, right for label sets too), as scikit-learn's ``chi2`` takes it of an indicator
    matrix."""
    return sparse_tf_table(counts, _expected,
                           lambda c, cells: _pearson_term(cells.tf,
                                                          c.tf[cells.row] * c.priors[cells.col]))


def _expected(counts) -> Absent:
    """``E = P(c) TF(t)``, the score of a cell with ``O = 0``: non-decreasing in ``TF(t)`` and
    in ``P(c)`` (both non-negative)."""
    tf, priors = counts.tf, counts.priors
    return Absent.outer(np.multiply, tf, priors, counts.seen, term_key=tf, class_key=priors,
                        totals=lambda w: tf * (w @ priors))


def _chi2_sklearn_pvalue(counts):
    """scikit-learn's p-values: its statistic (the per-class terms summed over the classes)
    against the chi-square law with m - 1 degrees of freedom, ``chdtrc(m - 1, stat)`` as
    ``sklearn.feature_selection.chi2`` computes it. One class per document (its
    ``test_requires``: scikit-learn's ``chi2`` takes one label per sample)."""
    from ._per_class import nonempty_classes

    counts = nonempty_classes(counts)
    stat = _chi2_sklearn(counts).table().values
    stat = np.where(np.isfinite(stat), stat, 0.0).sum(axis=1)
    return global_table(counts, chi2_pvalue(stat, counts.n_classes - 1))


def _pearson_term(observed, expected):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 0, (observed - expected) ** 2 / expected, 0.0)
