"""The estimators of the learners that scikit-learn lacks: :class:`RankSVR` (Baccianella,
Esuli & Sebastiani's rounded epsilon-SVR), :class:`ClassWeighted` (class weights through
``sample_weight``) and :class:`PerLabelClassifier` (one binary classifier per label on its own
columns); the checks of ``class_weight``; and :func:`label_scores`, the per-label scores of a
multi-label estimator, which the thresholds (``_thresholds``) read. This module imports no
other module of the package's learners."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    RegressorMixin,
    clone,
)
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import LinearSVR
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    validate_data,
)

from ..errors import TextsiftError
from ..labels import group_indices
from ..labels.ranks import check_ranks, nearest_rank
from .metrics import mae_macro


class PerLabelClassifier(ClassifierMixin, BaseEstimator):
    """One binary classifier per label, each on its own columns of ``X``.

    scikit-learn's :class:`~sklearn.multiclass.OneVsRestClassifier` fits one estimator per
    label on the same columns; a label's own selection of terms (Forman 2003's one-against-all
    tasks, each with its top ``k`` terms) needs a subset of columns per label, which no
    scikit-learn meta-estimator takes: written here, in its image. A label whose training
    column is constant is predicted as that constant, as ``OneVsRestClassifier`` does; a label
    given no column (none of its terms passes a significance level) as its training majority,
    the only answer a learner with nothing to read has (ties: 0).

    Parameters
    ----------
    estimator : classifier
        Cloned and fitted once per label (with its input weighting: a pipeline).
    columns : sequence of index arrays
        ``columns[j]``: the columns of ``X`` label ``j`` (column ``j`` of ``Y``) is fitted on.

    Attributes
    ----------
    estimators_ : list
        Per label, the fitted clone, or the constant 0 or 1 it always predicts.
    """

    def __init__(self, estimator, columns):
        self.estimator = estimator
        self.columns = columns

    def fit(self, X, Y):
        X = validate_data(self, X, accept_sparse="csr", dtype=None)
        Y = np.asarray(Y)
        if Y.ndim != 2 or Y.shape != (X.shape[0], len(self.columns)):
            raise TextsiftError(f"Y must be a 0/1 indicator of shape ({X.shape[0]}, "
                                f"{len(self.columns)}) (documents x labels, one label per "
                                f"entry of columns), got shape {Y.shape}")
        self.estimators_ = []
        for j, cols in enumerate(self.columns):
            y = Y[:, j]
            if y.min() == y.max():
                self.estimators_.append(int(y[0]))
            elif len(cols) == 0:
                self.estimators_.append(int(2 * y.sum() > len(y)))
            else:
                self.estimators_.append(clone(self.estimator).fit(X[:, cols], y))
        return self

    def predict(self, X) -> np.ndarray:
        """The ``(n, labels)`` 0/1 indicator of the predicted label sets."""
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", dtype=None, reset=False)
        out = np.zeros((X.shape[0], len(self.estimators_)), dtype=np.int64)
        for j, (cols, est) in enumerate(zip(self.columns, self.estimators_, strict=True)):
            out[:, j] = est if isinstance(est, int) else est.predict(X[:, cols])
        return out

    def decision_function(self, X) -> np.ndarray:
        """The ``(n, labels)`` scores: each label's estimator's ``decision_function`` on its
        own columns (else its probability of the label); ``-inf`` or ``inf`` for a label
        that was constant in training (never or always)."""
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", dtype=None, reset=False)
        out = np.empty((X.shape[0], len(self.estimators_)))
        for j, (cols, est) in enumerate(zip(self.columns, self.estimators_, strict=True)):
            out[:, j] = (np.inf if est else -np.inf) if isinstance(est, int) else (
                label_scores(est, X[:, cols])[:, -1])
        return out

    def __sklearn_tags__(self):
        return sparse_tags(super().__sklearn_tags__(), multi_output=True)


class OneVsRest(OneVsRestClassifier):
    """scikit-learn's :class:`~sklearn.multiclass.OneVsRestClassifier`, fitted on a label
    indicator as a sparse matrix and predicting a dense one: the same estimators, fitted on
    the same columns in the same order, the same predictions. Its label binarizer reads a
    dense indicator of ``n`` documents and ``m`` labels through ``np.unique`` over all
    ``n m`` cells, several times per fit (type of target, classes): on 12,404 documents and
    735 tags that took more CPU time than the 735 linear SVMs; over a sparse one it reads the
    stored ones only."""

    def fit(self, X, y, **fit_params):
        if not sp.issparse(y) and np.ndim(y) == 2:
            y = sp.csr_matrix(np.asarray(y))
        return super().fit(X, y, **fit_params)

    def predict(self, X):
        pred = super().predict(X)
        return pred.toarray() if sp.issparse(pred) else pred


def label_scores(estimator, X) -> np.ndarray:
    """The ``(n, labels)`` scores of a fitted multi-label estimator: its
    ``decision_function``, else the probability of each label (``predict_proba``)."""
    if hasattr(estimator, "decision_function"):
        try:
            scores = estimator.decision_function(X)
        except AttributeError:  # a meta-estimator whose inner estimator has none (naive Bayes)
            scores = None
        if scores is not None:
            return np.asarray(scores, dtype=np.float64).reshape(X.shape[0], -1)
    proba = estimator.predict_proba(X)
    if isinstance(proba, list):  # one (n, 2) array per label
        proba = np.column_stack([p[:, -1] for p in proba])
    return np.asarray(proba, dtype=np.float64).reshape(X.shape[0], -1)


def sparse_tags(tags, multi_output: bool = False):
    """scikit-learn's tags of an estimator of this module: it takes sparse input (a
    document-term matrix is never densified), and with ``multi_output`` a 0/1 indicator of
    label sets as its target."""
    tags.input_tags.sparse = True
    tags.target_tags.multi_output = tags.target_tags.multi_output or multi_output
    return tags


def check_class_weight(class_weight):
    """``"balanced"`` or a mapping class -> weight, each weight a positive finite number;
    anything else is an error naming the value and the fix. The one check of a class weight
    (the learners', and AdaBag's: :func:`textsift.lasso.skew.check_class_weight`)."""
    if isinstance(class_weight, str) and class_weight == "balanced":
        return class_weight
    if not isinstance(class_weight, dict) or not class_weight:
        raise TextsiftError(f"class_weight must be \"balanced\" or a table of positive weights, "
                            f"one per class (e.g. {{\"spam\" = 5, \"ham\" = 1}}), got "
                            f"{class_weight!r}")
    for c, w in class_weight.items():
        if isinstance(w, bool) or not isinstance(w, Real) or not np.isfinite(w) or w <= 0:
            raise TextsiftError(f"class_weight: the weight of class {c!r} is {w!r}; weights "
                                "must be finite numbers > 0")
    return class_weight


def class_weight_codes(class_weight, classes):
    """``class_weight`` with its class names replaced by their codes in ``classes``."""
    if classes is None or not isinstance(class_weight, dict):
        return class_weight
    at = group_indices(classes, list(class_weight))
    unknown = [c for c, j in zip(class_weight, at, strict=True) if j < 0]
    if unknown:
        raise TextsiftError(f"class_weight names {unknown!r}, which are not classes of the "
                            f"labels; the classes are {', '.join(map(str, classes[:20]))}")
    codes = {int(j): w for j, w in zip(at, class_weight.values(), strict=True)}
    if len(codes) < len(class_weight):
        raise TextsiftError(f"class_weight names a class twice ({list(class_weight)!r}: "
                            "a class is matched by its name as text); give each class once")
    return codes


class ClassWeighted(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """``estimator`` fitted with each document weighted by the weight of its class:
    ``sample_weight = compute_sample_weight(class_weight, y)`` (times a ``sample_weight``
    given to ``fit``), for an estimator whose ``fit`` takes sample weights but that has
    no ``class_weight`` parameter (:class:`~sklearn.naive_bayes.MultinomialNB`). With
    ``"balanced"`` the weight of class ``c`` is ``n / (m n_c)`` (``n`` documents, ``m``
    classes, ``n_c`` of class ``c``), as in scikit-learn's estimators that take
    ``class_weight``; for naive Bayes it scales each class's term counts and prior by that
    weight, so every class enters the priors with the same total weight.

    Attributes
    ----------
    estimator_ : the fitted clone of ``estimator``.
    classes_ : the classes seen in ``fit``.
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        "class_weight": [StrOptions({"balanced"}), dict, None],
    }

    def __init__(self, estimator, class_weight="balanced"):
        self.estimator = estimator
        self.class_weight = class_weight

    def _validate_params(self):
        super()._validate_params()
        if hasattr(self.estimator, "_validate_params"):
            self.estimator._validate_params()

    def fit(self, X, y, sample_weight=None):
        self._validate_params()
        weight = compute_sample_weight(self.class_weight, y)
        if sample_weight is not None:
            weight = weight * _check_sample_weight(sample_weight, X)
        self.estimator_ = clone(self.estimator).fit(X, y, sample_weight=weight)
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    @available_if(lambda self: hasattr(self.estimator, "predict_proba"))
    def predict_proba(self, X):
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict_proba(X)

    def __sklearn_tags__(self):
        return sparse_tags(super().__sklearn_tags__())


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
        return sparse_tags(super().__sklearn_tags__())


def _weighted_median(y: np.ndarray, weight: np.ndarray) -> float:
    """The lower weighted median (the smallest ``v`` with at least half the weight at
    ``y <= v``)."""
    order = np.argsort(y, kind="stable")
    cum = np.cumsum(weight[order])
    return float(y[order][np.searchsorted(cum, cum[-1] / 2, side="left")])
