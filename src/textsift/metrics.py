"""Evaluation measures for ordinal and nominal classification (METHODS.md §A.8, §D.3).

* ``mae_micro`` -- ``MAE^mu = (1/|Te|) sum_d |pred(d) - y(d)|``.
* ``mae_macro`` -- ``MAE^M = (1/n') sum_j (1/|Te_j|) sum_{d in Te_j} |pred(d) - y(d)|``
  (Baccianella, Esuli & Sebastiani, ISDA 2009), averaged over the ``n'`` ranks that have
  test documents (§0.7: a rank with no test documents is left out, as JaTeCS
  ``RegressionReport`` does).
* ``misclassification_error`` -- ``1 - accuracy``.

``MAE^M`` is a weighted MAE: giving document ``d`` the weight ``1/|Te_{y(d)}|`` makes the
weighted mean of ``|pred - y|`` equal to the average over ranks. The code uses
scikit-learn's ``mean_absolute_error`` with those weights (scikit-learn's "balanced" sample
weights, which are proportional to them) rather than a loop over ranks. Every other measure
(accuracy, F1, ...) comes from :mod:`sklearn.metrics` directly.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import accuracy_score, make_scorer, mean_absolute_error
from sklearn.utils.class_weight import compute_sample_weight

from .errors import TextsiftError

__all__ = [
    "LOWER_IS_BETTER",
    "mae_macro",
    "mae_macro_scorer",
    "mae_micro",
    "misclassification_error",
]


#: The measures where a smaller value is better (errors); for the others greater is better.
LOWER_IS_BETTER = frozenset({"misclassification_error", "mae_macro", "mae_micro"})


def _check_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.ndim != 1 or y_pred.ndim != 1:
        raise TextsiftError(
            f"y_true and y_pred must be one-dimensional, got shapes {y_true.shape} and "
            f"{y_pred.shape}"
        )
    if len(y_true) != len(y_pred):
        raise TextsiftError(
            f"y_true has {len(y_true)} ranks but y_pred has {len(y_pred)}; "
            "pass one prediction per test document"
        )
    if len(y_true) == 0:
        raise TextsiftError("cannot evaluate on an empty test set")
    for name, v in (("y_true", y_true), ("y_pred", y_pred)):
        if v.dtype.kind not in "biuf":
            raise TextsiftError(f"{name} must hold numeric ranks, got dtype {v.dtype}")
        if not np.all(np.isfinite(v)):
            raise TextsiftError(f"{name} contains NaN or infinite values")
    return y_true.astype(np.float64), y_pred.astype(np.float64)


def mae_micro(y_true, y_pred) -> float:
    """Plain (micro-averaged) mean absolute error, ``MAE^mu`` (METHODS.md §A.8)."""
    y_true, y_pred = _check_pair(y_true, y_pred)
    return float(mean_absolute_error(y_true, y_pred))


def mae_macro(y_true, y_pred, ranks=None) -> float:
    """Macroaveraged mean absolute error ``MAE^M`` (METHODS.md §A.8).

    The MAE of each true rank, averaged over the ranks that occur in ``y_true``; ranks with
    no test documents are left out (§0.7). ``ranks``, when given, is the declared scale:
    a true rank outside it is an error.

    >>> mae_macro([1, 2, 2, 3, 5, 5, 5, 5], [2, 2, 3, 3, 4, 5, 5, 5])  # §A.11
    0.4375
    """
    y_true, y_pred = _check_pair(y_true, y_pred)
    if ranks is not None:
        ranks = np.asarray(ranks, dtype=np.float64)
        outside = ~np.isin(y_true, ranks)
        if np.any(outside):
            raise TextsiftError(
                f"true ranks {sorted(set(y_true[outside].tolist()))[:5]} are outside the "
                f"declared scale {ranks.tolist()}"
            )
    weight = compute_sample_weight("balanced", y_true)
    return float(mean_absolute_error(y_true, y_pred, sample_weight=weight))


def misclassification_error(y_true, y_pred) -> float:
    """Fraction of wrong predictions, ``1 - accuracy`` (METHODS.md §D.3)."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if len(y_true) != len(y_pred):
        raise TextsiftError(f"y_true has {len(y_true)} labels but y_pred has {len(y_pred)}")
    if len(y_true) == 0:
        raise TextsiftError("cannot evaluate on an empty test set")
    return float(1.0 - accuracy_score(y_true, y_pred))


#: ``GridSearchCV(..., scoring=mae_macro_scorer)``: negated ``MAE^M`` (greater is better).
mae_macro_scorer = make_scorer(mae_macro, greater_is_better=False)
