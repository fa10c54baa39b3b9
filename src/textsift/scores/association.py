"""Association scores: DIA, AM and the relative contribution RC (the RC paper of Yang, Wang and Qu).

* ``dia`` -- Darmstadt indexing approach association factor ``P(c|t) = A / df``.
* ``am`` -- ambiguity measure ``TF(t, c) / TF(t)`` (Mengle & Goharian 2009).
* ``rc`` -- relative contribution (Yang, Wang, Qu): how far a term's relative frequency in
  ``c_i`` exceeds that in each other class, summed over the other classes,
  ``RC(t, c_i) = sum_{j != i} (p(t|c_i) - p(t|c_j)) = m p(t|c_i) - sum_j p(t|c_j)``.
"""

from __future__ import annotations

import numpy as np

from ._absent import Absent
from ._registry import ScoreTable, binary_scores, nonempty_classes, register

RC_PAPER = ("Yang Jieming, Wang Jing, Qu Zhaoyang, feature selection based on relative "
            "contribution (RC), Northeast Electric Power University; normalisation and smoothing "
            "as reconstructed for textsift (textsift.scores.association)")

__all__ = ["dia", "relative_contribution", "sparse_tf_table"]


def dia(A, B, C, D):
    """``P(c|t) = A / (A + B)``; 0 for an unseen term."""
    df = A + B
    return np.where(df > 0, A / np.where(df > 0, df, 1.0), 0.0)


def relative_contribution(term_freq, normalize=True, smooth=True):
    """RC for every term and class from the (V, m) term-frequency table of the non-empty
    classes.

    * ``normalize=False``: ``RC0 = m TF(t, c_i) - TF(t)`` (the paper's un-normalised form,
      Table 1: 64 and 224).
    * ``normalize=True, smooth=False``: ``p(t|c) = TF(t, c) / TF(c)``.
    * ``normalize=True, smooth=True`` (the paper's final RC; default): Laplace add-one
      ``p(t|c) = (TF(t, c) + 1) / (TF(c) + V)``, ``V`` the vocabulary size.

    The normalisation and smoothing formulas were lost from the source text; these are
    textsift's reconstruction (an assumption). A class with ``TF(c) = 0`` (and ``smooth=False``)
    gives ``p = 0``.
    """
    tf = np.asarray(term_freq, dtype=np.float64)
    n_terms, m = tf.shape
    if not normalize:
        p = tf
    elif smooth:
        p = (tf + 1.0) / (tf.sum(axis=0, keepdims=True) + n_terms)
    else:
        totals = tf.sum(axis=0, keepdims=True)
        p = np.divide(tf, totals, out=np.zeros_like(tf), where=totals > 0)
    return m * p - p.sum(axis=1, keepdims=True)


def sparse_tf_table(counts, zero_value, cell_value) -> ScoreTable:
    """A (V, m) table in sparse form whose ``TF(t, c) = 0`` cells are ``zero_value(counts)``
    (an :class:`~textsift.scores.Absent`, or an array broadcastable to (V, m)) and
    whose non-zero cells are ``cell_value(counts, cells)``: never an operation over the whole
    term-frequency table."""
    counts = nonempty_classes(counts)
    return ScoreTable.of_cells(counts, zero=zero_value(counts),
                               nz=cell_value(counts, counts.cells))


@register("dia", "nominal", "DIA association factor P(c | t)",
          formula=r"P(c \mid t) = \frac{A}{\mathrm{df}} \quad (0 \text{ for an unseen term})",
          reference="N. Fuhr et al., the Darmstadt Indexing Approach (AIR/X, RIAO 1991), as in "
                    "F. Sebastiani, ACM Computing Surveys 34 (2002); a baseline of the RC paper",
          absent="the same for every term")
def _dia(counts):
    return binary_scores(counts, dia)


@register("am", "nominal", "ambiguity measure TF(t,c) / TF(t) (term frequencies)",
          formula=r"\frac{\mathrm{TF}(t, c)}{\mathrm{TF}(t)}",
          reference="S. S. R. Mengle and N. Goharian, \"Ambiguity measure feature-selection "
                    "algorithm\", JASIST 60(5) (2009) 1037-1050", reads_term_freq=True,
          absent="the same for every term")
def _am(counts):
    """``AM(t, c) = TF(t, c) / TF(t)``: 0 where the term is absent from the class. No
    requirement of the labelling: ``TF(t)`` is the term's total over the documents (stored,
    right for label sets too)."""
    return sparse_tf_table(
        counts, lambda c: np.zeros((1, 1)), lambda c, cells: cells.tf / c.tf[cells.row]
    )


@register("rc", "nominal", "relative contribution: class-normalised, smoothed frequency lead",
          formula=r"\sum_{j \ne i} \big(\tilde p(t \mid c_i) - \tilde p(t \mid c_j)\big), \quad "
                  r"\tilde p(t \mid c) = \frac{\mathrm{TF}(t, c) + 1}{\mathrm{TF}(c) + V}",
          reference=RC_PAPER, reads_term_freq=True, absent="falls with sum_j p(t|c_j)",
          signed=True)
def _rc(counts, normalize=True, smooth=True):
    """:func:`relative_contribution` evaluated sparsely: ``p(t|c)`` takes one value per class
    where ``TF(t, c) = 0`` (``1 / (TF(c) + V)`` smoothed, else 0), so ``m p(t|c_i) - sum_j
    p(t|c_j)`` needs the per-term sum only over the non-zero cells."""
    counts = nonempty_classes(counts)
    cells = counts.cells
    m, n_terms = counts.n_classes, counts.n_terms
    if not normalize:
        p0, pnz = np.zeros(m), cells.tf
    elif smooth:
        den = counts.class_tf + n_terms
        p0, pnz = 1.0 / den, (cells.tf + 1.0) / den[cells.col]
    else:
        tot = counts.class_tf
        p0 = np.zeros(m)
        pnz = np.divide(cells.tf, tot[cells.col], out=np.zeros_like(cells.tf),
                        where=tot[cells.col] > 0)
    row_sum = p0.sum() + np.bincount(cells.row, weights=pnz - p0[cells.col], minlength=n_terms)
    mp0 = m * p0
    # where TF(t, c) = 0: m p0(c) - sum_j p(t|c_j), increasing in p0(c), decreasing in the sum
    # (-row_sum[t] + mp0[c]: the same double as mp0[c] - row_sum[t], negation being exact)
    absent = Absent.outer(np.add, -row_sum, mp0, counts.seen, term_key=-row_sum,
                          class_key=p0, totals=lambda w: w @ mp0 - np.sum(w) * row_sum)
    return sparse_tf_table(counts, lambda c: absent,
                           lambda c, cells: m * pnz - row_sum[cells.row])
