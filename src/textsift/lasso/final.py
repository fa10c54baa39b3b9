"""AdaBag's final model on the selected words (:class:`~textsift.lasso.AdaBagClassifier`'s
``final``): the paper's least squares of the rating (``"ols"``, the default; classifier (2.2),
:func:`~.adabag.nested_models`), or -- ours -- a shrunk model from scikit-learn: ridge
regression of the rating (``"ridge"``, :class:`sklearn.linear_model.Ridge`, which minimises
``sum_i w_i (y_i - b_0 - x_i'b)^2 + alpha ||b||^2``) or logistic regression of the class
(``"logistic"``, :class:`sklearn.linear_model.LogisticRegression`, lbfgs, which minimises
``||b||^2 / 2 + C sum_i w_i log(1 + exp(-s_i (b_0 + x_i'b)))``, ``s_i = +-1``). The rows are
weighted by the class weights (``w_i``), as the least squares are; the bootstraps, the
bagging frequencies and the nested models ``A_c`` do not change.

Why: the least squares of the rating are unshrunk. On amazon_alexa (191 low training
reviews) they overfit past about 100 words, so the validation curve chooses a small model,
while logistic regression on the same words does better with more of them (the reproductions,
section 4.1).

**How the penalty is chosen**: on the validation rows, as the cutoff is (the protocol's
validation part, no cross-validation). For each penalty of the grid (:data:`PENALTIES`:
``alpha`` for ridge, ``C`` for logistic regression, from the strongest penalty to the
weakest), every ``A_c`` is fitted on the core rows and scored by the criterion on the
validation rows, and the cutoff rule (``cutoff_selection``, ``max_features``) chooses that
penalty's cutoff; the penalty whose cutoff has the lowest loss wins, with its cutoff (ties:
the stronger penalty). The chosen model, and every other cutoff's for the test curve, is
then refitted on core + validation with that penalty.

**The decision**: ridge, the fitted rating, "high" iff at least ``(a + b) / 2``, as (2.2);
logistic regression, the log-odds of "high", "high" iff at least 0 (a probability of 1/2).
``threshold="validation"`` moves either threshold on the validation rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._choices import ADABAG_CHOICES
from .adabag import assemble, nested_models, nested_order
from .classifier import OLSFit

__all__ = ["FINALS", "PENALTIES", "Rows", "final_models", "midpoint", "shrunk_models"]

#: The final models (module docstring).
FINALS = ADABAG_CHOICES["final"]
#: The penalties tried, strongest first: ridge's ``alpha``, logistic regression's ``C``
#: (``None``: the least squares have none).
PENALTIES = {"ols": (None,), "ridge": tuple(np.logspace(3, -1, 9).tolist()),
             "logistic": tuple(np.logspace(-2, 2, 9).tolist())}


@dataclass
class Rows:
    """The kept rows of a fit: ``X`` (CSR; ``Xc`` the same in CSC), ratings ``y``, classes
    ``theta``, group codes ``gcode``, ``part`` (0 core, 1 validation) and class weights
    ``rw`` (``None``: 1)."""

    X: sp.csr_matrix
    Xc: sp.csc_matrix
    y: np.ndarray
    theta: np.ndarray
    gcode: np.ndarray
    part: np.ndarray
    rw: np.ndarray | None

    @property
    def core(self) -> np.ndarray:
        return np.flatnonzero(self.part == 0)

    @property
    def val(self) -> np.ndarray:
        return np.flatnonzero(self.part == 1)


def midpoint(final: str, a: float, b: float) -> float:
    """The threshold of the midpoint rule on the final model's scale (module docstring)."""
    return 0.0 if final == "logistic" else (a + b) / 2


def final_models(final: str, penalties, rows: Rows, fit_rows, frequencies, cutoffs,
                 per_group: bool = False, n_groups: int = 1) -> dict:
    """``{penalty: models}``: every ``A_c`` fitted on ``fit_rows`` by the final model
    ``final`` with each of ``penalties`` (``(None,)`` for least squares)."""
    if final == "ols":
        return {None: nested_models(rows.X, rows.y, rows.gcode, fit_rows, frequencies,
                                    cutoffs, per_group, n_groups, X_csc=rows.Xc,
                                    sample_weight=rows.rw)}
    return shrunk_models(final, penalties, rows, fit_rows, frequencies, cutoffs, per_group,
                         n_groups)


def shrunk_models(final: str, penalties, rows: Rows, fit_rows, frequencies, cutoffs,
                  per_group: bool = False, n_groups: int = 1) -> dict:
    """``{penalty: models}``: ridge regression of the rating or logistic regression of the
    class on ``A_c`` fitted on ``fit_rows`` (pooled, or one model per group) for each cutoff
    ``c`` and each of ``penalties``. Logistic regression starts each fit from the next smaller
    model's coefficients (0 for the words it lacks): a few words more change them little."""
    n_groups = n_groups if per_group else 1
    order = nested_order(frequencies)
    f = np.asarray(frequencies)[order]
    sizes = np.array([np.count_nonzero(f >= c) for c in cutoffs])
    groups = [fit_rows] if not per_group else [fit_rows[rows.gcode[fit_rows] == g]
                                               for g in range(n_groups)]
    target = rows.y if final == "ridge" else rows.theta
    fits: dict = {penalty: {} for penalty in penalties}
    for g, r in enumerate(groups):
        X = rows.Xc[r][:, order[:sizes.max()]]  # the nested models are its first columns
        w = None if rows.rw is None else rows.rw[r]
        for penalty in penalties:
            model = None
            for size in sorted(set(sizes.tolist())):
                coef, intercept, model = _fit(final, penalty, X[:, :size], target[r], w, model)
                fits[penalty][g, size] = OLSFit(order[:size], coef, intercept, size)
    return {penalty: assemble(fits[penalty], sizes, n_groups, rows.X.shape[1])
            for penalty in penalties}


def _fit(final, penalty, X, target, w, model):
    """``(coef, intercept, model)``: one fit; ``model``, the logistic regression of the same
    penalty on the first of these columns, is started from."""
    if X.shape[1] == 0:  # the intercept alone (scikit-learn needs a feature)
        mean = float(np.average(target, weights=w))
        return np.zeros(0), mean if final == "ridge" else float(np.log(mean / (1 - mean))), None
    from sklearn.linear_model import LogisticRegression, Ridge

    if final == "ridge":
        model = Ridge(alpha=penalty, solver="sparse_cg", tol=1e-10)  # to ~machine precision
    elif model is None:
        model = LogisticRegression(C=penalty, max_iter=5000, warm_start=True)
    else:  # scikit-learn's warm start, from the smaller model's coefficients
        model.coef_ = np.pad(model.coef_, ((0, 0), (0, X.shape[1] - model.coef_.shape[1])))
    model.fit(X, target, sample_weight=w)
    return model.coef_.ravel(), float(np.ravel(model.intercept_)[0]), model
