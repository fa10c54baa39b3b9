"""Per-label thresholds for multi-label learners (Y. Yang, "A study of thresholding strategies
for text categorization", SIGIR 2001): :class:`ThresholdClassifier`.

A one-vs-rest learner decides each label at its own default cut (0 for a linear SVM's
decision value, 1/2 for a probability), which suits frequent labels and starves rare ones:
a rare label's scores rarely cross the cut, so its recall -- and the macro-F1, which weighs
every label alike -- stays low. Yang's strategies set the cut from the scores instead:

* **SCut** (score cut): each label's threshold is the cut of its scores on a validation part
  of the training documents that maximises the label's F1 there; the learner is then refit
  on the whole training part and keeps the thresholds. A rare label's optimum on a handful of
  validation documents is noise, so where the best F1 stays below ``fbr`` the threshold falls
  back (Yang's *SCutFBR*): to the highest validation score of the label (``fallback="top"``,
  SCutFBR.1: only a document scoring above every validation document gets it) or to never
  (``"never"``, SCutFBR.0). ``fbr = 0.1``, ``fallback = "top"`` and ``val_size = 0.2`` are our
  defaults (Yang tunes ``fbr``; Lewis et al., RCV1 2004, use SCutFBR.1).
* **RCut** (rank cut): each document gets its ``rank`` best-scoring labels.

The scores are the learner's ``decision_function``, else its ``predict_proba``. Written here:
scikit-learn has no per-label threshold tuning for multi-label outputs
(``TunedThresholdClassifierCV`` tunes one binary threshold).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..errors import DataWarning, TextsiftError
from ._estimators import sparse_tags

__all__ = ["STRATEGIES", "ThresholdClassifier", "label_scores", "scut_threshold"]

#: The thresholding strategies (Yang 2001): per-label score cuts tuned on a validation part,
#: or each document's best labels.
STRATEGIES = ("scut", "rcut")
#: The keys each strategy reads (``val_size``, the validation part, is the harness's for
#: either); a key of the other strategy is refused (:func:`textsift.learners.make_learner`).
STRATEGY_KEYS = {"scut": ("fbr", "fallback"), "rcut": ("rank",)}


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


def scut_threshold(scores: np.ndarray, y: np.ndarray, fbr: float = 0.1,
                   fallback: str = "top") -> tuple[float, float]:
    """``(threshold, F1)``: the cut of one label's validation ``scores`` (a document is
    assigned when its score is above it) that maximises F1 against the 0/1 ``y``, placed
    halfway between the two scores it separates (the highest cut on a tie of F1; ``-inf``
    when every document is best assigned); where that
    F1 is below ``fbr`` (or the label has no positive document), the fallback: the highest
    score (``"top"``) or ``inf`` (``"never"``).

    >>> scut_threshold(np.array([0.9, 0.8, 0.3, 0.1]), np.array([1, 0, 1, 0]))
    (0.2, 0.8)
    """
    order = np.argsort(-scores, kind="stable")
    s, hit = scores[order], y[order].astype(np.float64)
    n_pos = hit.sum()
    n = np.arange(1, len(s) + 1)
    f1 = 2 * np.cumsum(hit) / (n + n_pos) if n_pos else np.zeros(len(s))
    cut_here = np.r_[s[1:] < s[:-1], True]  # a cut only between distinct scores
    f1 = np.where(cut_here, f1, -1.0)
    best = int(np.argmax(f1)) if len(f1) else 0
    top = float(f1[best]) if len(f1) else 0.0
    if top < fbr or top <= 0:
        return (float(s[0]) if fallback == "top" and len(s) else np.inf), max(top, 0.0)
    if best + 1 == len(s):  # every document: any cut below the lowest score
        return -np.inf, top
    return float((s[best] + s[best + 1]) / 2), top


class ThresholdClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A multi-label classifier whose labels are decided by SCut or RCut (module docstring).

    Parameters
    ----------
    estimator : multi-label classifier
        Fitted on a 0/1 indicator ``Y`` (documents x labels), with ``decision_function`` or
        ``predict_proba`` giving one score per label (a ``Pipeline`` of
        ``OneVsRestClassifier``, :class:`~textsift.learners.PerLabelClassifier`, ...).
    strategy : {"scut", "rcut"}
        Per-label thresholds tuned on a validation part, or each document's ``rank`` best
        labels.
    rank : int, default=1
        RCut's labels per document.
    fbr : float in [0, 1], default=0.1
        SCut's fallback: a label whose best validation F1 is below it falls back.
    fallback : {"top", "never"}
        SCutFBR.1 (the label's highest validation score) or SCutFBR.0 (never assigned).
    val_size : float in (0, 1), default=0.2
        The share of the training documents held out to tune the thresholds (not
        stratified: label sets).
    random_state : int, default=0
        The split's seed.
    refit : bool, default=True
        Refit the estimator on every training document once the thresholds are tuned (else
        keep the one fitted on the rest of the validation split).

    Attributes
    ----------
    estimator_ : the fitted estimator.
    thresholds_ : ndarray of shape (labels,)
        SCut's thresholds (a document gets a label when its score is above the label's).
    validation_f1_ : ndarray of shape (labels,)
        Each label's best F1 on the validation part (SCut).
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit"])],
        "strategy": [StrOptions(set(STRATEGIES))],
        "rank": [Interval(Integral, 1, None, closed="left")],
        "fbr": [Interval(Real, 0, 1, closed="both")],
        "fallback": [StrOptions({"top", "never"})],
        "val_size": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
        "refit": ["boolean"],
    }

    def __init__(self, estimator, strategy="scut", rank=1, fbr=0.1, fallback="top",
                 val_size=0.2, random_state=0, refit=True):
        self.estimator = estimator
        self.strategy = strategy
        self.rank = rank
        self.fbr = fbr
        self.fallback = fallback
        self.val_size = val_size
        self.random_state = random_state
        self.refit = refit

    def fit(self, X, Y):
        self._validate_params()
        Y = _indicator(Y, self.strategy)
        if self.strategy == "rcut":
            if self.rank >= Y.shape[1]:  # a silent "every label to every document"
                warnings.warn(f"rcut with rank = {self.rank} gives each document every one of "
                              f"the {Y.shape[1]} labels; choose a rank below {Y.shape[1]}",
                              DataWarning, stacklevel=2)
            self.estimator_ = clone(self.estimator).fit(X, Y)
            self.n_labels_ = Y.shape[1]
            return self
        fit, val = train_test_split(np.arange(Y.shape[0]), test_size=self.val_size,
                                    random_state=self.random_state)
        tuned = clone(self.estimator).fit(_rows(X, fit), Y[fit])
        scores = label_scores(tuned, _rows(X, val))
        found = [scut_threshold(scores[:, j], Y[val, j], self.fbr, self.fallback)
                 for j in range(Y.shape[1])]
        self.thresholds_ = np.array([t for t, _ in found])
        self.validation_f1_ = np.array([f for _, f in found])
        self.estimator_ = clone(self.estimator).fit(X, Y) if self.refit else tuned
        self.n_labels_ = Y.shape[1]
        return self

    def decision_function(self, X) -> np.ndarray:
        """The estimator's score of every label (``label_scores``)."""
        check_is_fitted(self, "estimator_")
        return label_scores(self.estimator_, X)

    def predict(self, X) -> np.ndarray:
        """The 0/1 indicator of the labels decided: scores above the thresholds (SCut), or
        each document's ``rank`` best labels, ties by label order (RCut)."""
        scores = self.decision_function(X)
        if self.strategy == "scut":
            return (scores > self.thresholds_[None, :]).astype(np.int64)
        r = min(self.rank, scores.shape[1])
        best = np.argsort(-scores, axis=1, kind="stable")[:, :r]
        out = np.zeros(scores.shape, dtype=np.int64)
        np.put_along_axis(out, best, 1, axis=1)
        return out

    def __sklearn_tags__(self):
        return sparse_tags(super().__sklearn_tags__(), multi_output=True)


def _indicator(Y, strategy: str) -> np.ndarray:
    """``Y`` as a dense 0/1 indicator of at least two labels; one label per document (a 1-D
    ``y``) is refused: thresholds per label are for label sets."""
    Y = Y.toarray() if sp.issparse(Y) else np.asarray(Y)
    if Y.ndim != 2 or Y.shape[1] < 2:
        raise TextsiftError(
            f"{strategy} sets per-label thresholds for label sets (a 0/1 indicator matrix, "
            f"documents x labels), but the labels have shape {Y.shape}: one label per "
            "document is a single-label task, whose learner picks one class; drop the "
            "threshold, or give each document a set of labels")
    if not np.isin(Y, (0, 1)).all():
        raise TextsiftError("the labels must be a 0/1 indicator matrix (documents x labels), "
                            "as scikit-learn's MultiLabelBinarizer gives it")
    return Y.astype(np.int64)


def _rows(X, index):
    return X[index] if hasattr(X, "shape") else [X[i] for i in index]
