"""Learners for ordinal text classification (METHODS.md §A.9).

:class:`RankSVR` is the learner of Baccianella, Esuli & Sebastiani (SAC 2010): a linear
epsilon-support vector regressor on the rank values, whose real-valued output is rounded to
the nearest rank of the scale (which also clips it to the scale). The regression itself is
scikit-learn's :class:`~sklearn.svm.LinearSVR` (liblinear, L1 epsilon-insensitive loss).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.svm import LinearSVR
from sklearn.utils._param_validation import Interval
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .errors import TextsiftError
from .metrics import mae_macro
from .ranks import check_ranks, nearest_rank

__all__ = ["RankSVR"]


class RankSVR(RegressorMixin, BaseEstimator):
    """Linear epsilon-SVR on ranks, predictions rounded to the nearest rank of the scale.

    Parameters
    ----------
    C : float, default=1.0
        Inverse regularisation strength of the SVR.
    epsilon : float, default=0.0
        Width of the insensitive tube (in rank units).
    balanced : bool, default=False
        Weight each training document by ``N / (n_ranks * N_r)``, the inverse of the training
        frequency of its rank (scikit-learn's "balanced" weights). ``MAE^M`` averages over
        ranks, and on corpora dominated by 5-star reviews the unweighted L1 loss pulls every
        prediction towards the majority rank; balancing makes the training loss the
        ``MAE^M`` of the training set.
    ranks : array-like of int, optional
        The full scale (e.g. ``[1, 2, 3, 4, 5]``); predictions are rounded to it. Default: the
        ranks seen in ``fit``.
    max_iter, tol, random_state
        Passed to :class:`~sklearn.svm.LinearSVR`.

    Notes
    -----
    liblinear penalises the intercept like any weight. To keep that penalty from pulling
    predictions towards 0 (a rank far below the scale), the targets are centred on the
    (weighted) median training rank before fitting -- the constant that minimises the
    (weighted) absolute error -- and the offset is added back in :meth:`predict`. With
    ``balanced=True`` on a symmetric scale that constant is the middle rank, i.e. Triv.

    Attributes
    ----------
    svr_ : LinearSVR, the fitted regressor (on centred ranks).
    ranks_ : (n_ranks,) the scale predictions are rounded to.
    offset_ : float, the centring constant.
    n_iter_ : int, liblinear iterations.
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "balanced": ["boolean"],
        "ranks": ["array-like", None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(self, C=1.0, epsilon=0.0, balanced=False, ranks=None, max_iter=10_000,
                 tol=1e-4, random_state=0):
        self.C = C
        self.epsilon = epsilon
        self.balanced = balanced
        self.ranks = ranks
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        self._validate_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", y_numeric=False,
                             ensure_all_finite=True, dtype=np.float64)
        y, self.ranks_ = check_ranks(y, self.ranks)
        weight = _check_sample_weight(sample_weight, X)
        if self.balanced:
            weight = weight * compute_sample_weight("balanced", y)
        self.offset_ = _weighted_median(y, weight)
        self.svr_ = LinearSVR(C=self.C, epsilon=self.epsilon, loss="epsilon_insensitive",
                              dual=True, max_iter=self.max_iter, tol=self.tol,
                              random_state=self.random_state)
        self.svr_.fit(X, y - self.offset_, sample_weight=weight)
        self.n_iter_ = self.svr_.n_iter_
        return self

    def decision_function(self, X) -> np.ndarray:
        """The real-valued regression output, before rounding."""
        check_is_fitted(self, "svr_")
        X = validate_data(self, X, accept_sparse="csr", reset=False, dtype=np.float64)
        return self.svr_.predict(X) + self.offset_

    def predict(self, X) -> np.ndarray:
        """Predicted ranks: the regression output rounded to the nearest rank of the scale."""
        return nearest_rank(self.decision_function(X), self.ranks_)

    def score(self, X, y, sample_weight=None) -> float:
        """Negated ``MAE^M`` (greater is better, as ``GridSearchCV`` expects)."""
        if sample_weight is not None:
            raise TextsiftError("RankSVR.score is MAE^M, which defines its own weights")
        return -mae_macro(y, self.predict(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _weighted_median(y: np.ndarray, weight: np.ndarray) -> float:
    """The lower weighted median (the smallest ``v`` with at least half the weight at
    ``y <= v``)."""
    order = np.argsort(y, kind="stable")
    cum = np.cumsum(weight[order])
    return float(y[order][np.searchsorted(cum, cum[-1] / 2, side="left")])
