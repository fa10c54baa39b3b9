"""What AdaBag offers for skewed classes: class weights, the validation criterion and the
validation threshold (:class:`~textsift.lasso.AdaBagClassifier`'s ``class_weight``,
``criterion`` and ``threshold``).

**Class weights.** ``class_weight`` gives each row of class ``c`` the weight ``w_c``: ``None``
(every row 1, the paper), ``"balanced"`` (``w_c = n / (2 n_c)`` over the kept training rows,
scikit-learn's ``compute_class_weight``) or ``{0: w0, 1: w1}`` (a class left out weighs 1).
The weights multiply a bootstrap's multiplicities in the weighted lasso (its sample weights),
and weight the OLS refits: along each path, of the nested models ``A_c`` and of the final model.

**Criteria.** The validation criterion is a loss of the 0/1 classes, lower is better; it
chooses the lambda of every bootstrap and the cutoff ``c*`` (and the threshold, below). The
paper uses the misclassification error, and chose a validation set over cross-validation so
that "different types of performance criteria such as precision and recall" could choose
lambda. Named criteria, each an evaluation measure of :data:`textsift.learners.metrics.MEASURES`
(the
one registry of measures, whose functions are :mod:`sklearn.metrics`'s) as a loss -- the
measure itself when lower is better, ``1 -`` it otherwise:

* ``"misclassification"`` -- ``misclassification_error``, ``1 - accuracy`` (the paper's ME;
  the default);
* ``"balanced_error"`` -- ``1 - balanced_accuracy``: the mean of the two classes' error
  rates;
* ``"f1"`` / ``"f1_low"`` -- ``1 - f1_pos`` of class 1 (high) / of class 0 (low);
* ``"macro_f1"`` -- ``1 - macro_f1``, the mean of the two F1.

The criterion is the loss of the validation rows as they are, unweighted (as scikit-learn's
scorers are): class weights change the fit, not the question asked of it. So with class
weights, use a criterion that weighs the two classes alike (``"balanced_error"``,
``"macro_f1"``, or the F1 of the rare class). The misclassification error and the F1 of the
common class prefer the intercept alone: a weighted fit buys each rare row it gets right with
errors on the common class, which they count against it. (On amazon_alexa, 1:11, with
``class_weight="balanced"`` every model with words had a higher validation error than calling
every review "high", so ``c* = B`` and the model has no word; a fit without words warns.)
Weighting the misclassification error by the class weights would make it the balanced error,
which is offered by name.

A callable ``criterion(y_true, y_pred) -> loss`` is used as given (``y_true`` and ``y_pred``
0/1 arrays); it must return a finite number for every prediction, including a single class
(the first lambdas of a path predict one class for every row): it is called on the
validation classes against themselves, all 0 and all 1 before any bootstrap runs, and a NaN
is an error then, or at whichever validation returns one. With ``n_jobs > 1`` it must be
picklable (a function at the top level of a module), and a ``store`` keys it by its name.

*Standard errors* (the one-standard-error rules and the stop of each path, module
:mod:`textsift.lasso.adabag`): ``sqrt(e (1 - e) / n)`` for the misclassification error ``e``
(binomial), ``sqrt(e_0 (1 - e_0) / n_0 + e_1 (1 - e_1) / n_1) / 2`` for the balanced error
(``e_c`` the error rate of class ``c``, ``n_c`` its validation rows). The F1 criteria and
callables have none: the ``"1se"`` rules refuse them, and a path stops ``patience`` lambdas
past its minimum once its loss is above it.

**Threshold.** Classifier (2.2) says "high" iff the fitted rating is at least ``(a + b) / 2``
(``threshold="midpoint"``, the paper). ``threshold="validation"`` (ours) chooses the threshold
``t`` after ``c*``: the loss of ``rating >= t`` on the validation rows (fitted on the core
set, as for ``c*``) is minimised over ``t`` among the midpoint and the points halfway between
consecutive distinct validation ratings (at most 256 of them, at quantiles, plus one below and
one above every rating); ties go to the ``t`` nearest the midpoint.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.utils.class_weight import compute_class_weight

from .._choices import ADABAG_CHOICES
from ..errors import TextsiftError, did_you_mean
from ..learners import check_class_weight as check_weights
from ..learners import class_weight_codes
from ..learners.metrics import MEASURES
from .classifier import misclassification

__all__ = ["CRITERIA", "THRESHOLDS", "Criterion", "check_class_weight", "choose_threshold",
           "class_scores", "class_weights", "resolve_criterion"]

#: How the decision threshold on the fitted rating is set (module docstring).
THRESHOLDS = ADABAG_CHOICES["threshold"]


def _binomial_se(theta, pred) -> float:
    e = misclassification(theta, pred)
    return float(np.sqrt(e * (1 - e) / len(theta)))


def _balanced_se(theta, pred) -> float:
    var = 0.0
    for c in (0, 1):
        rows = theta == c
        e = float(np.mean(pred[rows] != c))
        var += e * (1 - e) / rows.sum()
    return float(np.sqrt(var) / 2)


def _balanced_errors(theta, predictions) -> np.ndarray:
    """``1 - balanced_accuracy_score(theta, p)`` for each column ``p`` of the (rows, models)
    0/1 array ``predictions`` (both classes present), by scikit-learn's own operations (the
    two classes' recalls, their mean) without its input checks, since it is scored at every
    lambda of every path."""
    pred, low = np.asarray(predictions).astype(bool), np.asarray(theta) == 0
    n_low, n_high = int(low.sum()), int((~low).sum())
    return 1.0 - ((~pred[low]).sum(axis=0) / n_low + pred[~low].sum(axis=0) / n_high) / 2


@dataclass(frozen=True)
class _MeasureLoss:
    """The registered evaluation measure ``measure`` of the 0/1 classes as a loss: the
    measure when lower is better, ``1 -`` it otherwise (the measures of classes are shares,
    in [0, 1]); ``pos_label`` is the class a measure of the positive class measures."""

    measure: str
    pos_label: int = 1

    def __call__(self, theta, pred) -> float:
        measure = MEASURES[self.measure]
        value = measure(theta, pred, pos_label=self.pos_label)
        return value if measure.lower_is_better else 1.0 - value


@dataclass(frozen=True)
class Criterion:
    """A validation loss ``func(y_true, y_pred)`` (lower is better), and the standard error
    ``se(y_true, y_pred)`` of its value, when it has one."""

    name: str
    func: Callable
    se: Callable | None = None

    def loss(self, theta, pred) -> float:
        """The loss of ``pred`` against ``theta``; a value that is not a finite number is an
        error naming the criterion."""
        value = self.func(theta, pred)
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = None
        if number is None or not np.isfinite(number):
            raise TextsiftError(
                f"criterion {self.name!r} returned {value!r} (for {int(np.sum(pred))} of "
                f"{len(pred)} rows predicted high, {int(np.sum(theta))} high); a criterion "
                "must return a finite loss for every prediction, a single class included "
                "(e.g. zero_division=0 in scikit-learn's metrics)")
        return number

    def losses(self, theta, predictions) -> np.ndarray:
        """The loss of each column of the (rows, models) 0/1 array ``predictions``."""
        theta = np.asarray(theta)
        if self.name == "misclassification":  # one vectorised pass
            return np.mean(predictions != theta[:, None].astype(bool), axis=0)
        if self.name == "balanced_error" and theta.min() < theta.max():
            return _balanced_errors(theta, predictions)
        predictions = np.asarray(predictions, dtype=np.int8)
        return np.array([self.loss(theta, predictions[:, k])
                         for k in range(predictions.shape[1])])

    def bound(self, best: float, theta, pred) -> float:
        """``best`` plus one standard error of the loss of ``pred`` (the prediction whose loss
        is ``best``); ``best`` itself when the criterion has no standard error."""
        return best if self.se is None else best + self.se(theta, pred)

    def check(self, theta) -> None:
        """Call the loss on the validation classes predicted exactly, all 0 and all 1: a
        callable that returns NaN on some prediction fails here, before any bootstrap."""
        theta = np.asarray(theta)
        for pred in (theta, np.zeros_like(theta), np.ones_like(theta)):
            self.loss(theta, pred)


#: The named validation criteria (module docstring).
CRITERIA = {
    "misclassification": Criterion("misclassification",
                                   _MeasureLoss("misclassification_error"), _binomial_se),
    "balanced_error": Criterion("balanced_error", _MeasureLoss("balanced_accuracy"),
                                _balanced_se),
    "f1": Criterion("f1", _MeasureLoss("f1_pos", 1)),
    "f1_low": Criterion("f1_low", _MeasureLoss("f1_pos", 0)),
    "macro_f1": Criterion("macro_f1", _MeasureLoss("macro_f1")),
}


def resolve_criterion(criterion) -> Criterion:
    """The :class:`Criterion` of a name of :data:`CRITERIA` or of a callable; another value
    is an error naming the parameter (with the closest names)."""
    if isinstance(criterion, Criterion):
        return criterion
    if callable(criterion):
        name = f"{getattr(criterion, '__module__', '')}:{getattr(criterion, '__qualname__', '')}"
        return Criterion(name, criterion)
    if isinstance(criterion, str) and criterion in CRITERIA:
        return CRITERIA[criterion]
    raise TextsiftError(f"criterion={criterion!r} is not a criterion"
                        f"{did_you_mean(criterion, CRITERIA)}: choose one of "
                        f"{', '.join(CRITERIA)}, or pass a function (y_true, y_pred) -> loss")


def check_class_weight(class_weight) -> None:
    """``None``, or a class weight of the learners' one check
    (:func:`textsift.learners.check_class_weight`: ``"balanced"`` or positive finite weights)
    over AdaBag's classes 0 (low, ``y <= a``) and 1 (high, ``y >= b``); anything else is an
    error naming the parameter."""
    if class_weight is not None:
        class_weight_codes(check_weights(class_weight), _CLASSES)


#: AdaBag's classes, as :func:`~textsift.learners.class_weight_codes` names them.
_CLASSES = (0, 1)


def class_weights(class_weight, theta) -> np.ndarray | None:
    """``(w_0, w_1)`` for the classes ``theta`` of the kept training rows (module docstring);
    ``None`` for no weights."""
    check_class_weight(class_weight)
    if class_weight is None:
        return None
    if isinstance(class_weight, str):  # "balanced"
        return compute_class_weight("balanced", classes=np.array(_CLASSES), y=np.asarray(theta))
    codes = class_weight_codes(class_weight, _CLASSES)
    return np.array([float(codes.get(c, 1.0)) for c in _CLASSES])


def choose_threshold(ratings, theta, criterion: Criterion, midpoint: float,
                     max_candidates: int = 256) -> float:
    """The threshold ``t`` minimising the loss of ``ratings >= t`` against ``theta`` (module
    docstring)."""
    r = np.unique(np.asarray(ratings, dtype=float))
    between = (r[1:] + r[:-1]) / 2
    if len(between) > max_candidates:
        between = np.quantile(between, np.linspace(0, 1, max_candidates))
    candidates = np.unique(np.r_[r[0] - 1, between, r[-1] + 1, midpoint])
    losses = criterion.losses(theta, np.asarray(ratings)[:, None] >= candidates[None, :])
    best = np.flatnonzero(losses <= losses.min() + 1e-12)
    return float(candidates[best[np.argmin(np.abs(candidates[best] - midpoint))]])


def class_scores(theta, pred, criterion: Criterion | None = None) -> dict:
    """What a prediction of the classes is worth: ``misclassification``,
    ``balanced_accuracy``, ``f1_low`` and ``f1`` (F1 of class 0 and 1), and the loss of
    ``criterion`` under its name."""
    theta, pred = np.asarray(theta), np.asarray(pred)
    out = {"misclassification": MEASURES["misclassification_error"](theta, pred),
           "balanced_accuracy": MEASURES["balanced_accuracy"](theta, pred),
           "f1_low": MEASURES["f1_pos"](theta, pred, pos_label=0),
           "f1": MEASURES["f1_pos"](theta, pred, pos_label=1)}
    if criterion is not None and criterion.name not in out:
        out[criterion.name] = criterion.loss(theta, pred)
    return out
