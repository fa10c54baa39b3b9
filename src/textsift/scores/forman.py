"""Forman's scores of a binary (one-vs-rest) task (his "feature selection metrics").

Each score is a vectorised function of the contingency cells ``A = tp``, ``B = fp``,
``C = fn``, ``D = tn`` (:class:`~textsift.counting.counts.Counts`), with ``pos = A + C``,
``neg = B + D``, ``df = A + B``, ``tpr = A/pos`` and ``fpr = B/neg``. Definitions follow G.
Forman, "An extensive empirical study of feature selection metrics for text classification",
JMLR 3 (2003) 1289-1305, as taught in P. Kang's Text Analytics lecture 6.
The registered methods apply them one-vs-rest to every class (``binary_scores``).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..errors import TextsiftError
from ._registry import binary_method, global_table, register

__all__ = [
    "acc",
    "acc_ratio",
    "bns",
    "f1",
    "odds_numerator",
    "odds_ratio",
    "pow_",
    "prob_ratio",
]

BNS_CLIP = (0.0005, 0.9995)


def _rates(A, B, C, D):
    return A / (A + C), B / (B + D)


def acc(A, B, C, D):
    """Acc = ``tp - fp`` = ``A - B``. Asymmetric: favours positive-class indicators."""
    return A - B


def acc_ratio(A, B, C, D):
    """AccR (Forman's "Acc2", balanced accuracy) = ``|tpr - fpr|``."""
    tpr, fpr = _rates(A, B, C, D)
    return np.abs(tpr - fpr)


def prob_ratio(A, B, C, D, zero_denominator: Literal["inf", "add_one"] = "inf"):
    """PR = ``tpr / fpr``.

    ``fpr = 0`` with ``tpr > 0`` gives ``+inf`` (the lecture prints Inf); ``tpr = 0`` gives 0.
    ``zero_denominator="add_one"`` instead replaces ``B = 0`` by 1 (the OddR rule).
    """
    if zero_denominator not in ("inf", "add_one"):
        raise TextsiftError("zero_denominator must be 'inf' or 'add_one'")
    if zero_denominator == "add_one":
        B = np.where(B == 0, 1.0, B)
    tpr, fpr = _rates(A, B, C, D)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = tpr / fpr
    return np.where(tpr == 0, 0.0, np.where(fpr == 0, np.inf, out))


def odds_ratio(A, B, C, D):
    """OddR = ``(A/B)(D/C) = AD / (BC)``, a zero ``B`` or ``C`` replaced by 1 (lecture rule).

    A zero numerator gives 0, e.g. a term in every document (``D = 0``). Lecture T4
    (A, B, C, D = 6, 2, 0, 2) gives 6; the slide's 4.00 is an arithmetic slip (its OddN,
    12, agrees with 6).
    """
    return A * D / (np.where(B == 0, 1.0, B) * np.where(C == 0, 1.0, C))


def odds_numerator(A, B, C, D):
    """OddN = ``A * D`` (counts); Forman's ``tpr (1 - fpr)`` differs by the constant
    ``pos * neg`` within a task, so the rankings agree."""
    return A * D


def f1(A, B, C, D):
    """F1 = ``2 tp / (pos + tp + fp)`` = ``2A / (pos + df)``."""
    return 2.0 * A / ((A + C) + (A + B))


def bns(A, B, C, D):
    """BNS = ``|F^-1(tpr) - F^-1(fpr)|``, ``F^-1`` the standard normal quantile, rates clipped
    to ``[0.0005, 0.9995]`` (Forman 2003; clipping as in Forman 2008 and the lecture).

    The quantile of the upper clip is taken as ``-F^-1(0.0005)``, its exact mirror: scipy's
    ``ndtri(0.9995)`` is 3e-14 above it (0.9995 has no exact double), which would break the
    tie between mirrored cells -- ``tpr = 1, fpr = 1/2`` and ``tpr = 1/2, fpr = 0`` both score
    3.29053, and ties go to the lower index. ``ndtri`` is otherwise exactly odd about 1/2."""
    tpr, fpr = _rates(A, B, C, D)
    return np.abs(_quantile(tpr) - _quantile(fpr))


def _quantile(rate):
    """``F^-1`` of a rate clipped to :data:`BNS_CLIP`, the upper clip's as ``-F^-1(lo)``."""
    from scipy.special import ndtri  # imported here: scipy.special takes 0.1 s to import

    lo, hi = BNS_CLIP
    return np.where(rate >= hi, -ndtri(lo), ndtri(np.clip(rate, lo, hi)))


def pow_(A, B, C, D, k=5):
    """Pow = ``(1 - fpr)^k - (1 - tpr)^k``, ``k = 5`` (Forman 2003; need47/fselector)."""
    tpr, fpr = _rates(A, B, C, D)
    return (1 - fpr) ** k - (1 - tpr) ** k


#: The paper of every score in this module.
FORMAN_2003 = ('G. Forman, "An extensive empirical study of feature selection metrics for text '
               'classification", JMLR 3 (2003) 1289-1305')


def _register_binary(name, fn, summary, formula, absent, signed=False):
    register(name, "nominal", summary, formula=formula, reference=FORMAN_2003,
             absent=absent, signed=signed)(binary_method(fn))


@register("df", "nominal", "document frequency: documents containing the term",
          aggregates=("max",), formula=r"\mathrm{df}(t) = A + B", reference=FORMAN_2003)
def _df(counts):
    """DF = ``A + B``, the same for every class (a single global column)."""
    return global_table(counts, counts.df)


_register_binary("acc", acc, "accuracy tp - fp (favours positive indicators)", r"A - B",
                 "falls with df", signed=True)
_register_binary("acc_ratio", acc_ratio, "balanced accuracy |tpr - fpr| (Forman's Acc2)",
                 r"\lvert \mathrm{tpr} - \mathrm{fpr} \rvert",
                 "rises with df")
_register_binary("prob_ratio", prob_ratio, "probability ratio tpr / fpr (inf when fpr = 0)",
                 r"\mathrm{tpr} / \mathrm{fpr} \quad (+\infty \text{ when } \mathrm{fpr} = 0 "
                 r"< \mathrm{tpr})",
                 "the same for every term")
_register_binary("odds_ratio", odds_ratio, "odds ratio AD / BC, zero denominators set to 1",
                 r"\frac{A D}{B C} \quad (\text{a zero } B \text{ or } C \text{ replaced by } 1)",
                 "the same for every term")
_register_binary("odds_numerator", odds_numerator, "odds-ratio numerator A * D", r"A D",
                 "the same for every term")
_register_binary("f1", f1, "F-measure 2tp / (pos + tp + fp)", r"\frac{2 A}{N_c + \mathrm{df}}",
                 "the same for every term")
_register_binary("bns", bns, "bi-normal separation |F^-1(tpr) - F^-1(fpr)| (Forman)",
                 r"\lvert F^{-1}(\mathrm{tpr}) - F^{-1}(\mathrm{fpr}) \rvert \quad "
                 r"(\text{rates clipped to } [0.0005, 0.9995])",
                 "rises with df")
_register_binary("pow", pow_, "Forman's Pow (1 - fpr)^k - (1 - tpr)^k, k = 5",
                 r"(1 - \mathrm{fpr})^k - (1 - \mathrm{tpr})^k, \quad k = 5",
                 "falls with df", signed=True)
