"""Per-label choices on inner folds: :class:`PerLabelSearchClassifier`, each label's binary
learner with its own number of terms and its own parameters (``C``), both chosen by inner
cross-validation of the training part, and its labels decided by its own cut or by
thresholds tuned on the same inner folds.

A one-vs-rest learner reads one vocabulary with one ``C`` for every label; the labels of a
tag corpus differ by orders of magnitude in their documents, and a rare tag is best read from
its few words with a strong regularisation while a frequent one takes thousands of terms
(Forman 2003 gives each one-against-all task its own terms; Fan and Lin 2007 tune each
label's cost). For each label ``j``, each size ``k`` of ``sizes`` and each point ``p`` of
``param_grid``, the estimator is fitted on ``cv - 1`` inner folds of the training part, on
the fold's ``k`` best terms of label ``j`` by ``method`` (a textsift scoring method, scored on
the fold's own training documents: the held-out fold never ranks a term), and scores the
held-out fold. The criterion of ``(k, p)`` is the label's held-out F1: with ``threshold``
``"scut"`` or ``"micromacro"`` the best F1 of any cut of each fold's scores (SCut's F1, the
mean over the folds), the F1 the tuned threshold is after; without, the F1 of the pooled
held-out predictions at the learner's own cut. The first of the best ``(k, p)`` in the order
smallest ``k`` first, then ``param_grid``'s, is kept (the fewest terms on a tie). With a
threshold, each label's threshold is then tuned on the held-out scores of its chosen ``(k,
p)`` (:func:`~textsift.learners._thresholds.fold_scut`, SCutFBR.1 with cross-validation, or
LibMultiLabel's micro+macro cut), with no further fit; finally each label's learner is refit
on every training document with its ``k`` best terms of the whole training part.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import KFold, ParameterGrid
from sklearn.pipeline import Pipeline
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..errors import TextsiftError
from ._estimators import label_scores, sparse_tags
from ._thresholds import fold_scut, micromacro_thresholds, scut_threshold

__all__ = ["LABEL_RATIOS", "PerLabelSearchClassifier", "label_rankings"]

#: The shares of the terms each label may keep by default: from a few words to every term.
LABEL_RATIOS = (0.01, 0.03, 0.1, 0.3, 1.0)


def label_rankings(X, Y, method: str = "chi2", k: int | None = None) -> list[np.ndarray]:
    """Each label's (column of ``Y``'s) best ``k`` terms (columns of ``X``, every term when
    ``None``) by ``method``, best first (ties by column): textsift's counts of ``X`` against
    the indicator ``Y`` and the method's per-label scores (:func:`textsift.scores.compute`,
    each label's column ranked by the table's ``top_many``). A label with no document in
    ``Y`` gets no term (it cannot be scored)."""
    from ..counting.counts import Counts
    from ..scores import compute

    n_terms = X.shape[1]
    k = n_terms if k is None else min(int(k), n_terms)
    Y = np.asarray(Y)
    present = np.flatnonzero(Y.sum(axis=0) > 0)
    out = [np.zeros(0, dtype=np.intp) for _ in range(Y.shape[1])]
    if not len(present):
        return out
    counts = Counts.from_matrix(X, Y[:, present], classes=np.arange(len(present)))
    table = compute(counts, method, dense=False)
    if len(table.groups) != len(present):
        raise TextsiftError(f"{method} gives one score per term, not one per label; choose a "
                            "method that scores each label (chi2, ig, bns, ...)")
    for j, (terms, _) in zip(present, table.top_many(np.arange(len(present)), k), strict=True):
        terms = np.asarray(terms, dtype=np.intp)[:k]
        if len(terms) < k:  # the terms no score ranks (unseen here): after, by column
            rest = np.setdiff1d(np.arange(n_terms), terms, assume_unique=False)
            terms = np.r_[terms, rest[:k - len(terms)]]
        out[j] = terms
    return out


class PerLabelSearchClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """One binary learner per label, each with its own number of terms and parameters chosen
    on inner folds of the training part, and optionally its own tuned threshold (module
    docstring).

    Parameters
    ----------
    estimator : binary classifier, or a ``Pipeline`` ending in one
        Cloned per label, size and parameter point (with its input weighting: a pipeline).
    method : str, default="chi2"
        The textsift scoring method ranking each label's terms (a nominal method of
        ``textsift methods``).
    ratios : sequence of float in (0, 1], default=LABEL_RATIOS
        The shares of the terms of ``X`` a label may keep (each rounded, at least 1 term).
    param_grid : dict of lists or None
        Parameters of ``estimator`` tried per label (``set_params`` names, e.g.
        ``{"linearsvc__C": [0.5, 1, 2]}``); ``None``: its own.
    threshold : {None, "scut", "micromacro"}, default="scut"
        How each label is decided: its learner's own cut, or a threshold tuned on the held-out
        scores of its chosen learner (SCutFBR with ``fbr`` and ``fallback``, or the micro+macro
        cut).
    fbr, fallback : as :class:`~textsift.learners.TunedThresholdClassifier`'s.
    cv : int >= 2, default=3
        Inner folds of the training part (shuffled, not stratified: label sets).
    random_state : int, default=0
        The folds' seed.

    Attributes
    ----------
    columns_ : list of ndarray
        Each label's terms (columns of ``X``) its refit learner reads, in column order.
    params_ : list of dict
        Each label's chosen parameter point (``{}`` for a label constant in training).
    estimators_ : list
        Per label the fitted learner, or the constant 0 or 1 of a label constant in training.
    thresholds_ : ndarray of shape (labels,)
        With a threshold, each label's (a document gets a label when its score is above it).
    validation_f1_ : ndarray of shape (labels,)
        Each label's held-out F1 of its chosen size and parameters (the criterion).
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit"])],
        "method": [str],
        "ratios": ["array-like"],
        "param_grid": [dict, None],
        "threshold": [StrOptions({"scut", "micromacro"}), None],
        "fbr": [Interval(Real, 0, 1, closed="both")],
        "fallback": [StrOptions({"top", "never"})],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator, method="chi2", ratios=LABEL_RATIOS, param_grid=None,
                 threshold="scut", fbr=0.1, fallback="top", cv=3, random_state=0):
        self.estimator = estimator
        self.method = method
        self.ratios = ratios
        self.param_grid = param_grid
        self.threshold = threshold
        self.fbr = fbr
        self.fallback = fallback
        self.cv = cv
        self.random_state = random_state

    def _sizes(self, n_terms: int) -> np.ndarray:
        ratios = np.asarray(self.ratios, dtype=np.float64)
        if ratios.ndim != 1 or not len(ratios) or not ((ratios > 0) & (ratios <= 1)).all():
            raise TextsiftError(f"ratios must be shares of the terms in (0, 1], got "
                                f"{self.ratios!r}")
        return np.unique(np.clip(np.rint(ratios * n_terms), 1, n_terms).astype(np.int64))

    def fit(self, X, Y):
        self._validate_params()
        X = validate_data(self, X, accept_sparse="csr", dtype=None)
        X = sp.csr_matrix(X)
        Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y)
        if Y.ndim != 2 or Y.shape[0] != X.shape[0] or not np.isin(Y, (0, 1)).all():
            raise TextsiftError(f"Y must be a 0/1 indicator of shape ({X.shape[0]}, labels) "
                                f"(documents x labels), got shape {Y.shape}")
        if self.cv > X.shape[0]:
            raise TextsiftError(f"cv = {self.cv} inner folds need at least {self.cv} training "
                                f"documents, there are {X.shape[0]}; lower cv")
        Y = Y.astype(np.int64)
        sizes = self._sizes(X.shape[1])
        points = list(ParameterGrid(self.param_grid or {}))
        configs = [(int(k), p) for k in sizes for p in points]
        folds = []
        for fit, val in KFold(self.cv, shuffle=True, random_state=self.random_state).split(X):
            ranks = label_rankings(X[fit], Y[fit], self.method, int(sizes[-1]))
            folds.append((fit, val, X[fit].tocsc(), X[val].tocsc(), ranks))
        n_labels = Y.shape[1]
        held = [(val, np.zeros((len(val), n_labels))) for _, val, *_ in folds]
        chosen, f1s = [], np.zeros(n_labels)
        for j in range(n_labels):
            if Y[:, j].min() == Y[:, j].max():
                chosen.append(None)
                for i in range(len(folds)):
                    held[i][1][:, j] = np.inf if Y[0, j] else -np.inf
                continue
            best, best_f1, best_scores = 0, -1.0, None
            for at, k in enumerate(sizes):  # the configurations in order: k, then the grid
                for p, fold_scores in enumerate(self._held_scores(folds, Y[:, j], int(k),
                                                                  points, j)):
                    f1 = self._criterion(fold_scores, folds, Y[:, j])
                    if f1 > best_f1:
                        best, best_f1 = at * len(points) + p, f1
                        best_scores = fold_scores
            chosen.append(configs[best])
            f1s[j] = best_f1
            for i, s in enumerate(best_scores):
                held[i][1][:, j] = s
        if self.threshold == "scut":
            self.thresholds_ = fold_scut(held, Y, self.fbr, self.fallback)[0]
        elif self.threshold == "micromacro":
            self.thresholds_ = micromacro_thresholds(held, Y)
        self.validation_f1_ = f1s
        ranks = label_rankings(X, Y, self.method, int(sizes[-1]))
        Xc = X.tocsc()
        self.columns_, self.params_, self.estimators_ = [], [], []
        for j, config in enumerate(chosen):
            if config is None:
                self.columns_.append(np.zeros(0, dtype=np.intp))
                self.params_.append({})
                self.estimators_.append(int(Y[0, j]))
                continue
            k, point = config
            cols = np.sort(ranks[j][:k])
            self.columns_.append(cols)
            self.params_.append(dict(point))
            self.estimators_.append(clone(self.estimator).set_params(**point).fit(
                Xc[:, cols].tocsr(), Y[:, j]))
        return self

    def _held_scores(self, folds, y, k: int, points: list, j: int) -> list[list]:
        """For each point of the grid, the held-out scores of each fold of label ``j``'s
        learner on its ``k`` terms, fitted on the fold's training part (a constant
        ``-inf``/``inf`` where the label is constant there, as
        :class:`~textsift.learners.PerLabelClassifier` answers). The steps of a pipeline
        before its last (an input weighting, fitted without the labels) run once per fold
        when the grid sets the last step's parameters only."""
        pre, final, grid = _split(self.estimator, points)
        out = [[] for _ in points]
        for fit, val, X_fit, X_val, ranks in folds:
            y_fit = y[fit]
            if y_fit.min() == y_fit.max():
                for row in out:
                    row.append(np.full(len(val), np.inf if y_fit[0] else -np.inf))
                continue
            cols = np.sort(ranks[j][:k])
            A, B = X_fit[:, cols].tocsr(), X_val[:, cols].tocsr()
            if pre is not None:
                step = clone(pre)
                A = step.fit_transform(A)
                B = step.transform(B)
            for row, point in zip(out, grid, strict=True):
                model = clone(final).set_params(**point).fit(A, y_fit)
                row.append(label_scores(model, B)[:, -1])
        return out

    def _criterion(self, fold_scores, folds, y) -> float:
        """The label's held-out F1: SCut's best over cuts (mean over the folds) with a
        threshold; else the pooled F1 of the predictions at the learner's own cut (a score
        above 0, a decision value, or above 1/2 for a probability)."""
        if self.threshold is not None:
            return float(np.mean([scut_threshold(s, y[val], fbr=0.0)[1]
                                  for s, (_, val, *_) in zip(fold_scores, folds, strict=True)]))
        cut = 0.5 if not hasattr(self.estimator, "decision_function") else 0.0
        tp = n_pred = 0
        for s, (_, val, *_) in zip(fold_scores, folds, strict=True):
            pred = s > cut
            tp += int((pred & (y[val] == 1)).sum())
            n_pred += int(pred.sum())
        return 2 * tp / (n_pred + y.sum())

    def decision_function(self, X) -> np.ndarray:
        """The ``(n, labels)`` scores of each label's learner on its own terms (``-inf``/``inf``
        for a label constant in training)."""
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", dtype=None, reset=False)
        X = sp.csc_matrix(X)
        out = np.empty((X.shape[0], len(self.estimators_)))
        for j, (cols, est) in enumerate(zip(self.columns_, self.estimators_, strict=True)):
            out[:, j] = (np.inf if est else -np.inf) if isinstance(est, int) else (
                label_scores(est, X[:, cols].tocsr())[:, -1])
        return out

    def predict(self, X) -> np.ndarray:
        """The ``(n, labels)`` 0/1 indicator: scores above the thresholds, or each label's
        learner at its own cut."""
        check_is_fitted(self, "estimators_")
        if self.threshold is not None:
            return (self.decision_function(X) > self.thresholds_[None, :]).astype(np.int64)
        X = sp.csc_matrix(validate_data(self, X, accept_sparse="csr", dtype=None, reset=False))
        out = np.zeros((X.shape[0], len(self.estimators_)), dtype=np.int64)
        for j, (cols, est) in enumerate(zip(self.columns_, self.estimators_, strict=True)):
            out[:, j] = est if isinstance(est, int) else est.predict(X[:, cols].tocsr())
        return out

    def __sklearn_tags__(self):
        return sparse_tags(super().__sklearn_tags__(), multi_output=True)


def _split(estimator, points: list):
    """``(steps before the last, the last, the points on it)`` of a pipeline whose grid sets
    its last step's parameters only; else ``(None, estimator, points)``."""
    if isinstance(estimator, Pipeline) and len(estimator.steps) > 1:
        name = estimator.steps[-1][0] + "__"
        if all(key.startswith(name) for point in points for key in point):
            return (Pipeline(estimator.steps[:-1]), estimator.steps[-1][1],
                    [{key[len(name):]: v for key, v in point.items()} for point in points])
    return None, estimator, points
