"""How a multi-label learner decides its labels from its per-label scores: a fixed cut
(:class:`FixedThresholdClassifier`: given thresholds, RCut, PCut) or thresholds tuned on the
training part (:class:`TunedThresholdClassifier`: SCut and SCutFBR, LibMultiLabel's
micro+macro cut), split as scikit-learn splits ``FixedThresholdClassifier`` and
``TunedThresholdClassifierCV`` (whose tuning is of one binary threshold: none of scikit-learn's
tunes a threshold per label of a label set).

A one-vs-rest learner decides each label at its own default cut (0 for a linear SVM's
decision value, 1/2 for a probability), which suits frequent labels and starves rare ones:
a rare label's scores rarely cross the cut, so its recall -- and the macro-F1, which weighs
every label alike -- stays low. The strategies (Y. Yang, "A study of thresholding strategies
for text categorization", SIGIR 2001; R.-E. Fan and C.-J. Lin, "A study on threshold
selection for multi-label classification", 2007; Y.-J. Lin et al., "On the thresholding
strategy for infrequent labels in multi-label classification", CIKM 2023):

* **SCut** (score cut): each label's threshold is the cut of its scores on held-out training
  documents that maximises the label's F1 there. A rare label's optimum on a handful of
  held-out documents is noise, so where the best F1 stays below ``fbr`` the threshold falls
  back (*SCutFBR*): to the highest held-out score of the label (``fallback="top"``,
  SCutFBR.1: only a document scoring above every held-out document gets it) or to never
  (``"never"``, SCutFBR.0). Held out: one validation part of ``val_size`` (``cv=None``,
  Yang's protocol), or ``cv`` inner folds of the training part, each fold's threshold found
  on it by a learner fitted on the others and the label's threshold their mean (Fan and
  Lin's SCutFBR.1 with cross-validation, the rare labels' remedy: every training document
  is held out once). The learner is then refit on the whole training part.
* **micromacro** (Lin et al. 2023, section 4.3, LibMultiLabel's ``train_thresholding``):
  the labels are taken from the most frequent to the rarest, and each fold's cut of a label
  maximises ``micro-F1 + F1_j / m`` -- the micro-F1 of the true and false positives and
  false negatives accumulated over the labels already cut (and this one), plus this label's
  F1 over ``m``, the labels cut so far (the macro-F1's share of the label; the others'
  shares are constant). Ties go to the higher cut; the label's threshold is the mean of its
  folds' cuts. It trades a little of SCut's macro-F1 for micro-F1.
* **RCut** (rank cut): each document gets its ``rank`` best-scoring labels.
* **PCut** (proportional cut, Yang 2001): label ``j`` goes to the ``round(p_j x n)``
  best-scoring of the ``n`` documents predicted together, ``p_j`` its share of the training
  documents and ``x`` the ``proportion``: a batch decision (a document's labels depend on the
  others of its batch), as Yang defines it.

A cut is placed halfway between the two scores it separates; a document gets a label when its
score is above the threshold. The scores are the learner's ``decision_function``, else its
``predict_proba`` (:func:`~textsift.learners.label_scores`).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import KFold, train_test_split
from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..errors import DataWarning, TextsiftError
from ._estimators import label_scores, sparse_tags

__all__ = ["FIXED", "STRATEGIES", "STRATEGY_KEYS", "TUNED", "FixedThresholdClassifier",
           "TunedThresholdClassifier", "fold_scut", "label_scores", "micromacro_cut",
           "micromacro_thresholds", "scut_threshold"]

#: The strategies tuned on the training part (:class:`TunedThresholdClassifier`).
TUNED = ("scut", "micromacro")
#: The strategies of a fixed cut (:class:`FixedThresholdClassifier`).
FIXED = ("rcut", "pcut")
#: Every way an experiment may decide a learner's labels: the tuned and fixed cuts, and
#: ``"cost"``: each label's learner fitted with its positive class's weight chosen by inner
#: cross-validation, deciding at its own cut (:class:`~textsift.learners.CostSensitiveClassifier`).
STRATEGIES = (*TUNED, *FIXED, "cost")
#: The keys each strategy reads (``val_size``, the validation part of ``cv = None``, is the
#: harness's); a key of another strategy is refused (:func:`textsift.learners.make_learner`).
STRATEGY_KEYS = {"scut": ("fbr", "fallback", "cv"), "micromacro": ("cv",), "rcut": ("rank",),
                 "pcut": ("proportion",), "cost": ("cv",)}


def scut_threshold(scores: np.ndarray, y: np.ndarray, fbr: float = 0.1,
                   fallback: str = "top") -> tuple[float, float]:
    """``(threshold, F1)``: the cut of one label's held-out ``scores`` (a document is
    assigned when its score is above it) that maximises F1 against the 0/1 ``y``, placed
    halfway between the two scores it separates (the highest cut on a tie of F1; ``-inf``
    when every document is best assigned); where that
    F1 is below ``fbr`` (or the label has no positive document), the fallback: the highest
    score (``"top"``) or ``inf`` (``"never"``). ``(inf, 0)`` where every score is ``-inf``:
    a learner that was a constant "no" (no positive document in its training part), whose
    cut -- its top score, or below every score -- would give the label to every document
    once the learner is refit on documents with the label.

    >>> scut_threshold(np.array([0.9, 0.8, 0.3, 0.1]), np.array([1, 0, 1, 0]))
    (0.2, 0.8)
    """
    order = np.argsort(-scores, kind="stable")
    s, hit = scores[order], y[order].astype(np.float64)
    if len(s) and s[0] == -np.inf:  # a constant "no": no cut relates to the refit scores
        return np.inf, 0.0
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


def micromacro_cut(scores: np.ndarray, y: np.ndarray, tp: float = 0, fp: float = 0,
                   fn: float = 0, m: int = 1) -> tuple[float, tuple[int, int, int]]:
    """``(threshold, (tp, fp, fn))``: the cut of one label's held-out ``scores`` that
    maximises ``micro-F1 + F1 / m`` (Lin et al. 2023; module docstring), the micro-F1 of
    this label's counts added to ``tp``, ``fp``, ``fn`` (the labels cut before it), ``m``
    the labels cut so far with this one; ties to the higher cut. The threshold is halfway
    between the two scores the cut separates, just above the highest score when no document
    is assigned, just below the lowest when every one is; the counts are the chosen cut's.

    >>> micromacro_cut(np.array([0.9, 0.8, 0.3, 0.1]), np.array([1, 0, 1, 0]))
    (0.2, (2, 1, 0))
    """
    order = np.argsort(-scores, kind="stable")
    s, hit = scores[order], y[order].astype(np.float64)
    n_pos = hit.sum()
    n = np.arange(len(s) + 1)  # documents assigned: the n best
    t = np.r_[0.0, np.cumsum(hit)]
    f, g = n - t, n_pos - t
    with np.errstate(invalid="ignore", divide="ignore"):
        micro = np.nan_to_num(2 * (t + tp) / (2 * (t + tp) + f + g + fp + fn))
        macro = np.nan_to_num(2 * t / (2 * t + f + g)) / m
    objective = micro + macro
    objective[1:-1][s[1:] == s[:-1]] = -np.inf  # a cut only between distinct scores
    best = int(np.argmax(objective))  # the first maximum: the fewest documents assigned
    if len(s) == 0:
        return np.inf, (0, 0, 0)
    if best == 0:
        threshold = float(np.nextafter(s[0], np.inf))
    elif best == len(s):
        threshold = float(np.nextafter(s[-1], -np.inf))
    else:
        threshold = float((s[best - 1] + s[best]) / 2)
    return threshold, (int(t[best]), int(f[best]), int(g[best]))


class FixedThresholdClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A multi-label classifier whose labels are decided by a cut that is not tuned: given
    thresholds, RCut or PCut (module docstring).

    Parameters
    ----------
    estimator : multi-label classifier
        Fitted on a 0/1 indicator ``Y`` (documents x labels), with ``decision_function`` or
        ``predict_proba`` giving one score per label (a ``Pipeline`` of
        ``OneVsRestClassifier``, :class:`~textsift.learners.PerLabelClassifier`, ...).
    strategy : {"threshold", "rcut", "pcut"}
        Scores above ``threshold``; each document's ``rank`` best labels; or each label's
        ``round(p_j x proportion x n)`` best documents of a batch of ``n``.
    threshold : float or array of shape (labels,), default=0.0
        The cut of every label, or of each.
    rank : int, default=1
        RCut's labels per document.
    proportion : float > 0, default=1.0
        PCut's factor ``x`` on each label's training share.

    Attributes
    ----------
    estimator_ : the fitted estimator.
    priors_ : ndarray of shape (labels,)
        Each label's share of the training documents (PCut reads it).
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit"])],
        "strategy": [StrOptions({"threshold", *FIXED})],
        "threshold": [Real, "array-like"],
        "rank": [Interval(Integral, 1, None, closed="left")],
        "proportion": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, estimator, strategy="threshold", threshold=0.0, rank=1, proportion=1.0):
        self.estimator = estimator
        self.strategy = strategy
        self.threshold = threshold
        self.rank = rank
        self.proportion = proportion

    def fit(self, X, Y):
        self._validate_params()
        Y = _indicator(Y, self.strategy)
        if self.strategy == "rcut" and self.rank >= Y.shape[1]:  # "every label to every one"
            warnings.warn(f"rcut with rank = {self.rank} gives each document every one of "
                          f"the {Y.shape[1]} labels; choose a rank below {Y.shape[1]}",
                          DataWarning, stacklevel=2)
        if self.strategy == "threshold" and np.ndim(self.threshold) and (
                np.shape(self.threshold) != (Y.shape[1],)):
            raise TextsiftError(f"threshold has shape {np.shape(self.threshold)}, but the "
                                f"labels are {Y.shape[1]}: give one number, or one per label")
        self.estimator_ = clone(self.estimator).fit(X, Y)
        self.priors_ = Y.mean(axis=0)
        self.n_labels_ = Y.shape[1]
        return self

    def decision_function(self, X) -> np.ndarray:
        """The estimator's score of every label (:func:`~textsift.learners.label_scores`)."""
        check_is_fitted(self, "estimator_")
        return label_scores(self.estimator_, X)

    def predict(self, X) -> np.ndarray:
        """The 0/1 indicator of the labels decided: scores above the thresholds, each
        document's ``rank`` best labels (ties by label order), or each label's best
        ``round(p_j x proportion x n)`` documents of ``X`` (ties by document order)."""
        scores = self.decision_function(X)
        out = np.zeros(scores.shape, dtype=np.int64)
        if self.strategy == "threshold":
            return (scores > np.asarray(self.threshold, dtype=np.float64)).astype(np.int64)
        if self.strategy == "rcut":
            best = np.argsort(-scores, axis=1, kind="stable")[:, :min(self.rank, scores.shape[1])]
            np.put_along_axis(out, best, 1, axis=1)
            return out
        k = np.minimum(np.rint(self.priors_ * self.proportion * len(scores)).astype(int),
                       len(scores))
        order = np.argsort(-scores, axis=0, kind="stable")
        for j in np.flatnonzero(k):
            out[order[:k[j], j], j] = 1
        return out

    def __sklearn_tags__(self):
        return sparse_tags(super().__sklearn_tags__(), multi_output=True)


class TunedThresholdClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A multi-label classifier whose per-label thresholds are tuned on its training part:
    SCut(FBR) or LibMultiLabel's micro+macro cut (module docstring), on one validation part
    or on inner cross-validation folds.

    Parameters
    ----------
    estimator : multi-label classifier
        As :class:`FixedThresholdClassifier`'s.
    strategy : {"scut", "micromacro"}
        Each label's best F1 (with SCutFBR's fallback), or micro-F1 + the label's share of
        macro-F1, labels taken from the most frequent.
    fbr : float in [0, 1], default=0.1
        SCut's fallback: a label whose best held-out F1 is below it falls back.
    fallback : {"top", "never"}
        SCutFBR.1 (the label's highest held-out score) or SCutFBR.0 (never assigned).
    cv : int >= 2, float in (0, 1) or None, default=3
        Inner folds of the training part (shuffled, not stratified: label sets), each label's
        threshold the mean of its folds' cuts; a fraction: one validation part of that
        share (as scikit-learn's ``TunedThresholdClassifierCV`` takes ``cv=0.25``);
        ``None``: one validation part of ``val_size`` (for SCut; micromacro takes 3 folds
        then, as LibMultiLabel does). 3 folds measured better than one part of 25% on
        GoEmotions and Cooking Stack Exchange (docs/reproductions.md, section 10).
    val_size : float in (0, 1), default=0.2
        The validation part's share of the training documents (``cv=None``).
    random_state : int, default=0
        The seed of the split or of the folds.
    refit : bool, default=True
        Refit the estimator on every training document once the thresholds are tuned (else,
        with ``cv=None``, keep the one fitted on the rest of the validation split).

    Attributes
    ----------
    estimator_ : the fitted estimator.
    thresholds_ : ndarray of shape (labels,)
        The thresholds (a document gets a label when its score is above the label's).
    validation_f1_ : ndarray of shape (labels,)
        SCut: each label's best held-out F1 (with ``cv``, the mean over the folds).
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit"])],
        "strategy": [StrOptions(set(TUNED))],
        "fbr": [Interval(Real, 0, 1, closed="both")],
        "fallback": [StrOptions({"top", "never"})],
        "cv": [Interval(Integral, 2, None, closed="left"),
               Interval(RealNotInt, 0, 1, closed="neither"), None],
        "val_size": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
        "refit": ["boolean"],
    }

    def __init__(self, estimator, strategy="scut", fbr=0.1, fallback="top", cv=3,
                 val_size=0.2, random_state=0, refit=True):
        self.estimator = estimator
        self.strategy = strategy
        self.fbr = fbr
        self.fallback = fallback
        self.cv = cv
        self.val_size = val_size
        self.random_state = random_state
        self.refit = refit

    def fit(self, X, Y):
        self._validate_params()
        Y = _indicator(Y, self.strategy)
        cv = self.cv if self.cv is not None or self.strategy == "scut" else 3
        if cv is None or isinstance(cv, float):  # Yang's one validation part
            fit, val = train_test_split(np.arange(Y.shape[0]),
                                        test_size=self.val_size if cv is None else cv,
                                        random_state=self.random_state)
            tuned = clone(self.estimator).fit(_rows(X, fit), Y[fit])
            held = [(val, label_scores(tuned, _rows(X, val)))]
        else:
            if cv > Y.shape[0]:
                raise TextsiftError(f"cv = {cv} inner folds need at least {cv} training "
                                    f"documents, there are {Y.shape[0]}; lower cv")
            folds = KFold(cv, shuffle=True, random_state=self.random_state).split(Y)
            tuned, held = None, []
            for fit, val in folds:
                model = clone(self.estimator).fit(_rows(X, fit), Y[fit])
                held.append((val, label_scores(model, _rows(X, val))))
        if self.strategy == "scut":
            self.thresholds_, self.validation_f1_ = fold_scut(held, Y, self.fbr, self.fallback)
        else:
            self.thresholds_ = micromacro_thresholds(held, Y)
        self.estimator_ = tuned if (tuned is not None and not self.refit) else (
            clone(self.estimator).fit(X, Y))
        self.n_labels_ = Y.shape[1]
        return self

    def decision_function(self, X) -> np.ndarray:
        """The estimator's score of every label (:func:`~textsift.learners.label_scores`)."""
        check_is_fitted(self, "estimator_")
        return label_scores(self.estimator_, X)

    def predict(self, X) -> np.ndarray:
        """The 0/1 indicator of the labels decided: scores above the thresholds."""
        return (self.decision_function(X) > self.thresholds_[None, :]).astype(np.int64)

    def __sklearn_tags__(self):
        return sparse_tags(super().__sklearn_tags__(), multi_output=True)


def fold_scut(held, Y, fbr: float = 0.1, fallback: str = "top"):
    """Each label's SCut threshold and best F1 over the held-out parts ``held`` (pairs of the
    held-out rows of ``Y`` and their ``(rows, labels)`` scores): the means over the parts;
    with several parts (folds), a part's "every document" cut is just below its lowest
    score, so that the mean is a number, and a part whose learner was constant is left out
    (:func:`_fold_mean`)."""
    finite = len(held) > 1
    cuts = np.empty((len(held), Y.shape[1]))
    f1 = np.empty_like(cuts)
    for i, (val, scores) in enumerate(held):
        for j in range(Y.shape[1]):
            t, f = scut_threshold(scores[:, j], Y[val, j], fbr, fallback)
            if finite and t == -np.inf:
                t = float(np.nextafter(scores[:, j].min(), -np.inf))
            cuts[i, j], f1[i, j] = t, f
    if finite:
        return _fold_mean(cuts, held), f1.mean(axis=0)
    return cuts.mean(axis=0), f1.mean(axis=0)


def micromacro_thresholds(held, Y) -> np.ndarray:
    """The micromacro thresholds: labels from the most frequent in training (ties by label
    order), each fold's cut given the counts accumulated over the labels before, the mean of
    the folds' cuts; the chosen cuts' counts of every fold are then added."""
    thresholds = np.empty(Y.shape[1])
    tp = fp = fn = 0
    for m, j in enumerate(np.argsort(-Y.sum(axis=0), kind="stable"), start=1):
        cuts, counts = [], np.zeros(3, dtype=np.int64)
        for val, scores in held:
            t, c = micromacro_cut(scores[:, j], Y[val, j], tp, fp, fn, m)
            cuts.append(t)
            counts += c
        thresholds[j] = _fold_mean(np.array(cuts)[:, None], held, j)[0]
        tp, fp, fn = tp + counts[0], fp + counts[1], fn + counts[2]
    return thresholds


def _fold_mean(cuts: np.ndarray, held, label: int | None = None) -> np.ndarray:
    """The mean over the folds (rows) of each label's cuts, leaving out a fold whose
    learner scored every held-out document of the label alike and not finitely (a constant
    learner, as :class:`~textsift.learners.PerLabelClassifier` gives for a label with no
    positive document in the fold's training part: its cut says nothing of the refit
    learner's scores); ``inf`` (never) for a label no fold has a cut of."""
    out = np.empty(cuts.shape[1])
    for col in range(cuts.shape[1]):
        j = col if label is None else label
        kept = [c for c, (_, scores) in zip(cuts[:, col], held, strict=True)
                if np.isfinite(scores[:, j]).any()]
        out[col] = np.mean(kept) if kept else np.inf
    return out


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
