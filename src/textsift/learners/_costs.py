"""Cost-sensitive one-vs-rest learning: :class:`CostSensitiveClassifier`, each label's binary
learner fitted with the weight of its positive class chosen by inner cross-validation.

Instead of moving a label's threshold, the cost of missing its positive documents is raised:
for each label ``j`` and each weight ``w`` of ``weights`` the learner is fitted with
``class_weight = {0: 1, 1: w}`` on ``cv - 1`` inner folds of the training part and predicts
the held-out fold at its own cut; the ``w`` whose pooled held-out predictions have the best F1
of the label (the smallest on a tie) is kept, and the learner refit on every training document
with it (an inner fold whose training part lacks the label, or has nothing else, predicts
that constant, as scikit-learn's ``OneVsRestClassifier`` does). The weights 1, 1.33, 1.8,
2.5, 3.67, 6, 13 and 3 folds are those of the cost-sensitive one-vs-rest of LibSVM Tools'
multi-label page (R.-E. Fan and C.-J. Lin, "A study on threshold selection for multi-label
classification", 2007), which LibMultiLabel's ``train_cost_sensitive`` follows.
scikit-learn's ``OneVsRestClassifier`` fits one estimator with one set of parameters for
every label: written here.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import KFold
from sklearn.pipeline import Pipeline
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from ..errors import TextsiftError
from ._estimators import label_scores, sparse_tags

__all__ = ["COST_WEIGHTS", "CostSensitiveClassifier"]

#: The positive-class weights tried per label (Fan and Lin's grid, module docstring).
COST_WEIGHTS = (1.0, 1.33, 1.8, 2.5, 3.67, 6.0, 13.0)


class CostSensitiveClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """One binary learner per label, each with its positive class's weight chosen by inner
    cross-validation (module docstring).

    Parameters
    ----------
    estimator : binary classifier, or a ``Pipeline`` ending in one
        Its last step takes ``class_weight`` (a linear SVM, logistic regression,
        :class:`~textsift.learners.ClassWeighted`). The steps before it are fitted without
        the labels (an input weighting): once per inner fold, shared by the labels, when
        every label reads every column.
    weights : sequence of float > 0, default=COST_WEIGHTS
        The positive-class weights tried per label.
    cv : int >= 2, default=3
        Inner folds of the training part (shuffled).
    columns : sequence of index arrays or None
        ``columns[j]``: the columns of ``X`` label ``j`` reads (as
        :class:`~textsift.learners.PerLabelClassifier`); ``None``: every column.
    random_state : int, default=0
        The folds' seed.

    Attributes
    ----------
    estimators_ : list
        Per label the fitted learner, or the constant 0 or 1 of a label constant in training.
    weights_ : ndarray of shape (labels,)
        Each label's chosen weight (NaN for a constant label).
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit"])],
        "weights": ["array-like"],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "columns": [list, tuple, None],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator, weights=COST_WEIGHTS, cv=3, columns=None, random_state=0):
        self.estimator = estimator
        self.weights = weights
        self.cv = cv
        self.columns = columns
        self.random_state = random_state

    def fit(self, X, Y):
        self._validate_params()
        weights = np.asarray(self.weights, dtype=np.float64)
        if weights.ndim != 1 or not len(weights) or not (np.isfinite(weights).all()
                                                          and (weights > 0).all()):
            raise TextsiftError(f"weights must be positive numbers to try, got {self.weights!r}")
        X = validate_data(self, X, accept_sparse="csr", dtype=None)
        Y = np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y)
        n_labels = Y.shape[1] if Y.ndim == 2 else 0
        if Y.ndim != 2 or Y.shape[0] != X.shape[0] or not np.isin(Y, (0, 1)).all() or (
                self.columns is not None and len(self.columns) != n_labels):
            raise TextsiftError(f"Y must be a 0/1 indicator of shape ({X.shape[0]}, labels) "
                                "(documents x labels, one label per entry of columns), got "
                                f"shape {Y.shape}")
        if self.cv > X.shape[0]:
            raise TextsiftError(f"cv = {self.cv} inner folds need at least {self.cv} training "
                                f"documents, there are {X.shape[0]}; lower cv")
        folds = list(KFold(self.cv, shuffle=True, random_state=self.random_state).split(X))
        shared = None if self.columns is not None else [
            (fit, val, *_prefit(self.estimator, X[fit], X[val])) for fit, val in folds]
        self.estimators_, chosen = [], []
        for j in range(n_labels):
            y = Y[:, j]
            if y.min() == y.max():
                self.estimators_.append(int(y[0]))
                chosen.append(np.nan)
                continue
            cols = None if self.columns is None else np.asarray(self.columns[j])
            best, best_f1 = weights[0], -1.0
            for w in weights:
                pred = np.zeros_like(y)
                for i, (fit, val) in enumerate(folds):
                    if y[fit].min() == y[fit].max():  # a fold without the label: constant
                        pred[val] = y[fit][0]
                    elif shared is not None:
                        _, _, final, X_fit, X_val = shared[i]
                        pred[val] = _weighted(final, w).fit(X_fit, y[fit]).predict(X_val)
                    else:
                        model = _weighted(self.estimator, w).fit(X[fit][:, cols], y[fit])
                        pred[val] = model.predict(X[val][:, cols])
                tp = int((pred & y).sum())
                f1 = 2 * tp / (pred.sum() + y.sum())
                if f1 > best_f1:
                    best, best_f1 = w, f1
            Xj = X if cols is None else X[:, cols]
            self.estimators_.append(_weighted(self.estimator, best).fit(Xj, y))
            chosen.append(best)
        self.weights_ = np.array(chosen)
        return self

    def decision_function(self, X) -> np.ndarray:
        """The ``(n, labels)`` scores of each label's learner (``-inf``/``inf`` for a label
        constant in training)."""
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", dtype=None, reset=False)
        out = np.empty((X.shape[0], len(self.estimators_)))
        for j, est in enumerate(self.estimators_):
            Xj = X if self.columns is None else X[:, np.asarray(self.columns[j])]
            out[:, j] = (np.inf if est else -np.inf) if isinstance(est, int) else (
                label_scores(est, Xj)[:, -1])
        return out

    def predict(self, X) -> np.ndarray:
        """The ``(n, labels)`` 0/1 indicator: each label's learner at its own cut."""
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", dtype=None, reset=False)
        out = np.zeros((X.shape[0], len(self.estimators_)), dtype=np.int64)
        for j, est in enumerate(self.estimators_):
            Xj = X if self.columns is None else X[:, np.asarray(self.columns[j])]
            out[:, j] = est if isinstance(est, int) else est.predict(Xj)
        return out

    def __sklearn_tags__(self):
        return sparse_tags(super().__sklearn_tags__(), multi_output=True)


def _last(estimator):
    return estimator.steps[-1][1] if isinstance(estimator, Pipeline) else estimator


def _weighted(estimator, w: float):
    """A clone of ``estimator`` whose (last step's) ``class_weight`` is ``{0: 1, 1: w}``."""
    model = clone(estimator)
    _last(model).set_params(class_weight={0: 1.0, 1: float(w)})
    return model


def _prefit(estimator, X_fit, X_val):
    """The learner (the last step) and the fold's two parts through the steps before it,
    fitted on ``X_fit`` without labels."""
    if not isinstance(estimator, Pipeline) or len(estimator.steps) == 1:
        return _last(estimator), X_fit, X_val
    pre = clone(Pipeline(estimator.steps[:-1])).fit(X_fit)
    return _last(estimator), pre.transform(X_fit), pre.transform(X_val)
