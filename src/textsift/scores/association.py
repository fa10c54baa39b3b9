"""Association scores: DIA, AM and the relative contribution RC (METHODS.md §C).

* ``dia`` -- Darmstadt indexing approach association factor ``P(c|t) = A / df``.
* ``am`` -- ambiguity measure ``TF(t, c) / TF(t)`` (Mengle & Goharian 2009).
* ``rc`` -- relative contribution (Yang, Wang, Qu): how far a term's relative frequency in
  ``c_i`` exceeds that in each other class, summed over the other classes,
  ``RC(t, c_i) = sum_{j != i} (p(t|c_i) - p(t|c_j)) = m p(t|c_i) - sum_j p(t|c_j)``.
"""

from __future__ import annotations

import numpy as np

from ._registry import ScoreTable, per_class, register

__all__ = ["dia", "relative_contribution"]


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

    The normalisation and smoothing formulas were lost from the source text; these are the
    reconstruction of METHODS.md §C.1 [A]. A class with ``TF(c) = 0`` (and
    ``smooth=False``) gives ``p = 0``.
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


def _nonempty_tf_table(counts, values_fn):
    keep = counts.class_sizes > 0
    if keep.sum() < 2:
        raise ValueError(
            "this score needs at least two classes with documents; got only one class "
            f"({[str(c) for c in counts.classes[keep]]}). Check the label field."
        )
    values = values_fn(counts.term_freq[:, keep])
    return ScoreTable(values, counts.classes[keep], counts.seen, counts.priors[keep])


@register("dia", "nominal", "DIA association factor P(c | t)")
def _dia(counts):
    return per_class(counts, dia)


@register("am", "nominal", "ambiguity measure TF(t,c) / TF(t) (term frequencies)")
def _am(counts):
    def am(tf):
        total = tf.sum(axis=1, keepdims=True)
        return np.divide(tf, total, out=np.zeros_like(tf), where=total > 0)

    return _nonempty_tf_table(counts, am)


@register("rc", "nominal", "relative contribution: class-normalised, smoothed frequency lead")
def _rc(counts, normalize=True, smooth=True):
    return _nonempty_tf_table(
        counts, lambda tf: relative_contribution(tf, normalize=normalize, smooth=smooth)
    )
