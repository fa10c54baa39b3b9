"""Evaluation measures of a learner's predictions, and their registry (the MAEs of Baccianella,
Esuli & Sebastiani 2010; the misclassification error of the AdaBag paper).

An *evaluation measure* scores predictions against the true labels; it is not a *term score*
(:mod:`textsift.scores`), which scores a word. Every measure an experiment may report is one
entry of :data:`MEASURES`, which records its function, the label kinds it applies to and whether
lower is better; the experiment file's validation, its documented schema, the tuning (which
way the first measure is optimised) and the report all read it.

* ``mae_micro`` -- ``MAE^mu = (1/|Te|) sum_d |pred(d) - y(d)|``.
* ``mae_macro`` -- ``MAE^M = (1/n') sum_j (1/|Te_j|) sum_{d in Te_j} |pred(d) - y(d)|``
  (Baccianella, Esuli & Sebastiani, ISDA 2009), averaged over the ``n'`` ranks that have
  test documents (our choice: a rank with no test documents is left out, as JaTeCS
  ``RegressionReport`` does).
* ``misclassification_error`` -- ``1 - accuracy``.

A measure may serve label sets (the kind ``multilabel``): ``y_true`` and ``y_pred`` are then
0/1 indicator matrices (documents x labels), which scikit-learn's measures read as
multi-label: ``micro_f1`` pools every (document, label) decision, ``macro_f1`` averages the
F1 of each label, ``samples_f1`` the F1 of each document's label set, ``accuracy`` is the
share of documents whose label set is predicted exactly (subset accuracy) and
``hamming_loss`` the share of wrong (document, label) decisions.

``MAE^M`` is a weighted MAE: giving document ``d`` the weight ``1/|Te_{y(d)}|`` makes the
weighted mean of ``|pred - y|`` equal to the average over ranks. The code uses
scikit-learn's ``mean_absolute_error`` with those weights (scikit-learn's "balanced" sample
weights, which are proportional to them) rather than a loop over ranks. Every other measure
(accuracy, F1, ...) is :mod:`sklearn.metrics`'s own.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    f1_score,
    hamming_loss,
    make_scorer,
    mean_absolute_error,
    precision_score,
    recall_score,
)
from sklearn.utils.class_weight import compute_sample_weight

from ..errors import TextsiftError, lookup
from ..labels import LabelKind
from ..labels.ranks import check_ranks

__all__ = [
    "MEASURES",
    "Measure",
    "get_measure",
    "lower_is_better",
    "mae_macro",
    "mae_macro_scorer",
    "mae_micro",
    "misclassification_error",
    "register_measure",
]

#: The keywords a measure may take besides ``(y_true, y_pred)``: the rank scale of an ordinal
#: task, and the label of the positive class of a binary task.
_CONTEXT = ("ranks", "pos_label")


@dataclass(frozen=True)
class Measure:
    """A registered evaluation measure.

    ``func(y_true, y_pred, **context)`` takes those of the keywords ``ranks`` (the rank scale
    of an ordinal task) and ``pos_label`` it declares (``context``, read from its signature);
    ``label_kinds`` are the label kinds it applies to (:class:`~textsift.labels.LabelKind`:
    ``nominal`` classes, ``ordinal`` ranks, ``multilabel`` label sets, given as indicator
    matrices);
    a measure that takes ``pos_label`` measures the positive class of a binary task."""

    name: str
    func: Callable[..., float]
    summary: str
    label_kinds: tuple[LabelKind, ...]
    lower_is_better: bool
    context: tuple[str, ...]

    @property
    def positive(self) -> bool:
        """Whether it measures the positive class (``"pos"``) of a binary task."""
        return "pos_label" in self.context

    def __call__(self, y_true, y_pred, ranks=None, pos_label="pos") -> float:
        given = {"ranks": ranks, "pos_label": pos_label}
        return float(self.func(y_true, y_pred, **{k: given[k] for k in self.context}))


#: Every evaluation measure: name -> :class:`Measure`.
MEASURES: dict[str, Measure] = {}


def register_measure(name: str, summary: str,
                     label_kinds=(LabelKind.NOMINAL, LabelKind.ORDINAL),
                     lower_is_better: bool = False):
    """Decorator adding ``func(y_true, y_pred[, ranks][, pos_label])`` to :data:`MEASURES`."""

    def deco(func):
        if name in MEASURES:
            raise RuntimeError(f"measure {name!r} is registered twice")
        params = list(inspect.signature(func).parameters)[2:]
        context = tuple(p for p in params if p in _CONTEXT)
        MEASURES[name] = Measure(name, func, summary, tuple(map(LabelKind, label_kinds)),
                                 lower_is_better, context)
        return func

    return deco


def get_measure(name: str) -> Measure:
    """The registered measure ``name``; an unknown name raises with the closest match."""
    return lookup(MEASURES, name, "measure")


def lower_is_better(name: str) -> bool:
    """Whether a smaller value of the measure ``name`` is better (an error), read from the
    registry when asked -- never from a copy taken at import, so a measure registered later
    counts; ``False`` for a name the registry does not hold (a column of other numbers)."""
    measure = MEASURES.get(name)
    return measure is not None and measure.lower_is_better


def _check_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.ndim != 1 or y_pred.ndim != 1:
        raise TextsiftError(
            f"y_true and y_pred must be one-dimensional, got shapes {y_true.shape} and "
            f"{y_pred.shape}"
        )
    _check_lengths(y_true, y_pred, "ranks")
    for name, v in (("y_true", y_true), ("y_pred", y_pred)):
        if v.dtype.kind not in "biuf":
            raise TextsiftError(f"{name} must hold numeric ranks, got dtype {v.dtype}")
        if not np.all(np.isfinite(v)):
            raise TextsiftError(f"{name} contains NaN or infinite values")
    return y_true.astype(np.float64), y_pred.astype(np.float64)


def _check_lengths(y_true: np.ndarray, y_pred: np.ndarray, what: str) -> None:
    if len(y_true) != len(y_pred):
        raise TextsiftError(f"y_true has {len(y_true)} {what} but y_pred has {len(y_pred)}; "
                            "pass one prediction per test document")
    if len(y_true) == 0:
        raise TextsiftError("cannot evaluate on an empty test set")


# --------------------------------------------------------------------------- nominal
#: The label kinds of a measure of classes that also reads label sets.
_ALL_KINDS = (LabelKind.NOMINAL, LabelKind.ORDINAL, LabelKind.MULTILABEL)


@register_measure("accuracy", "fraction of correct predictions (for label sets: of documents "
                  "whose label set is predicted exactly)", label_kinds=_ALL_KINDS)
def _accuracy(y_true, y_pred) -> float:
    if _class_counts(y_true, y_pred) is not None:  # integer codes: the same value, to the bit
        return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))
    return accuracy_score(y_true, y_pred)


@register_measure("balanced_accuracy", "recall of each class, averaged over the classes")
def _balanced_accuracy(y_true, y_pred) -> float:
    return balanced_accuracy_score(y_true, y_pred)


@register_measure("micro_f1", "F1 over every decision (micro-average; accuracy for one "
                  "label per document)", label_kinds=_ALL_KINDS)
def _micro_f1(y_true, y_pred) -> float:
    counts = _class_counts(y_true, y_pred)
    if counts is not None:
        tp, true, pred = (np.array([c.sum()]) for c in counts)
        return _f1(tp, true, pred)
    return f1_score(y_true, y_pred, average="micro", zero_division=0)


@register_measure("macro_f1", "F1 of each class (label), averaged over the classes",
                  label_kinds=_ALL_KINDS)
def _macro_f1(y_true, y_pred) -> float:
    counts = _class_counts(y_true, y_pred)
    if counts is not None:
        return _f1(*counts)
    return f1_score(y_true, y_pred, average="macro", zero_division=0)


def _class_counts(y_true, y_pred):
    """``(tp, true, predicted)`` documents of each label present in ``y_true`` or ``y_pred``
    (ascending: scikit-learn's labels) for one integer label per document (what an
    experiment's trials measure: the classes' codes), by three ``bincount`` (the labels
    present found by a fourth when they are small codes, sorted otherwise); None for any other
    input (label sets, names, numbers that are not integers), which scikit-learn measures
    and checks. An experiment measures each of its trials' predictions with three measures:
    scikit-learn's checks of the labels cost more than the measures."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if (y_true.ndim != 1 or y_pred.shape != y_true.shape or not len(y_true)
            or y_true.dtype.kind not in "iu" or y_pred.dtype.kind not in "iu"):
        return None
    both = np.concatenate([y_true, y_pred])
    low, high = int(both.min()), int(both.max())
    if low >= 0 and high < 4 * len(both) + 1024:  # codes: ranked by a table, not sorted
        present = np.bincount(both, minlength=high + 1) > 0
        codes = (np.cumsum(present) - 1)[both]  # each label's rank among those present
        m = int(present.sum())
    else:
        labels, codes = np.unique(both, return_inverse=True)
        m = len(labels)
    truth, guess = codes[:len(y_true)], codes[len(y_true):]
    return (np.bincount(truth[truth == guess], minlength=m), np.bincount(truth, minlength=m),
            np.bincount(guess, minlength=m))


def _f1(tp, true, pred) -> float:
    """The mean over the labels of ``F1 = 2 TP / (2 TP + FP + FN) = 2 TP / (true + predicted)``,
    each label's and the mean formed as scikit-learn's ``precision_recall_fscore_support``
    forms them (``(1 + beta^2) TP / (beta^2 true + predicted)``, ``numpy.nanmean``), so the
    same value, to the bit; every label here has a document, true or predicted: no zero
    division."""
    denom = 1 * true.astype(np.float64) + pred.astype(np.float64)
    return float(np.nanmean((1 + 1) * tp.astype(np.float64) / denom))


@register_measure("micro_precision", "precision over every decision (micro-average): for "
                  "label sets with one label predicted per document (RCut, rank 1), the "
                  "precision at 1", label_kinds=_ALL_KINDS)
def _micro_precision(y_true, y_pred) -> float:
    return precision_score(y_true, y_pred, average="micro", zero_division=0)


@register_measure("precision", "precision of each class (label), averaged over the classes",
                  label_kinds=_ALL_KINDS)
def _precision(y_true, y_pred) -> float:
    return precision_score(y_true, y_pred, average="macro", zero_division=0)


@register_measure("recall", "recall of each class (label), averaged over the classes",
                  label_kinds=_ALL_KINDS)
def _recall(y_true, y_pred) -> float:
    return recall_score(y_true, y_pred, average="macro", zero_division=0)


@register_measure("misclassification_error", "fraction of wrong predictions, 1 - accuracy",
                  label_kinds=_ALL_KINDS, lower_is_better=True)
def misclassification_error(y_true, y_pred) -> float:
    """Fraction of wrong predictions, ``1 - accuracy``: the AdaBag paper's
    ``ME = mean |theta - y_hat|`` for 0/1 classes, computed as that mean (the lasso evaluates
    it at every lambda and cutoff, :mod:`textsift.lasso`); for label sets, the share of
    documents whose label set is not predicted exactly (``1 -`` subset accuracy)."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    _check_lengths(y_true, y_pred, "labels")
    wrong = y_true != y_pred
    return float(np.mean(wrong if wrong.ndim == 1 else wrong.any(axis=1)))


# --------------------------------------------------------------------------- label sets
@register_measure("samples_f1", "F1 of each document's predicted label set, averaged over "
                  "the documents (1 for a document without labels predicted without)",
                  label_kinds=(LabelKind.MULTILABEL,))
def _samples_f1(y_true, y_pred) -> float:
    # zero_division=1: a document with no label and none predicted is answered right
    return f1_score(y_true, y_pred, average="samples", zero_division=1)


@register_measure("hamming_loss", "fraction of wrong (document, label) decisions",
                  label_kinds=(LabelKind.MULTILABEL,), lower_is_better=True)
def _hamming_loss(y_true, y_pred) -> float:
    return hamming_loss(y_true, y_pred)


# --------------------------------------------------------------------------- positive class
@register_measure("f1_pos", "F1 of the positive class of a binary task",
                  label_kinds=(LabelKind.NOMINAL,))
def _f1_pos(y_true, y_pred, pos_label) -> float:
    return f1_score(y_true, y_pred, pos_label=pos_label, average="binary", zero_division=0)


@register_measure("precision_pos", "precision of the positive class of a binary task",
                  label_kinds=(LabelKind.NOMINAL,))
def _precision_pos(y_true, y_pred, pos_label) -> float:
    return precision_score(y_true, y_pred, pos_label=pos_label, average="binary",
                           zero_division=0)


@register_measure("recall_pos", "recall of the positive class of a binary task",
                  label_kinds=(LabelKind.NOMINAL,))
def _recall_pos(y_true, y_pred, pos_label) -> float:
    return recall_score(y_true, y_pred, pos_label=pos_label, average="binary",
                        zero_division=0)


# --------------------------------------------------------------------------- ordinal
@register_measure("mae_micro", "MAE^mu, the mean absolute error over documents",
                  label_kinds=(LabelKind.ORDINAL,), lower_is_better=True)
def mae_micro(y_true, y_pred) -> float:
    """Plain (micro-averaged) mean absolute error, ``MAE^mu`` (Baccianella, Esuli & Sebastiani
    2010)."""
    y_true, y_pred = _check_pair(y_true, y_pred)
    return float(mean_absolute_error(y_true, y_pred))


@register_measure("mae_macro", "MAE^M, the mean absolute error of each true rank, averaged "
                  "over the ranks", label_kinds=(LabelKind.ORDINAL,), lower_is_better=True)
def mae_macro(y_true, y_pred, ranks=None) -> float:
    """Macroaveraged mean absolute error ``MAE^M`` (Baccianella, Esuli & Sebastiani 2010).

    The MAE of each true rank, averaged over the ranks that occur in ``y_true``; ranks with
    no test documents are left out (our choice, as JaTeCS does). ``ranks``, when given, is the
    declared scale: a true rank outside it is an error (:func:`textsift.labels.ranks.check_ranks`).

    Below, ranks 1, 2, 3 and 5 have errors 1, 0.5, 0 and 0.25 and rank 4 has no test
    document, so ``MAE^M = 1.75 / 4``:

    >>> mae_macro([1, 2, 2, 3, 5, 5, 5, 5], [2, 2, 3, 3, 4, 5, 5, 5])
    0.4375
    """
    y_true, y_pred = _check_pair(y_true, y_pred)
    if ranks is not None:
        check_ranks(y_true, ranks)
    weight = compute_sample_weight("balanced", y_true)
    return float(mean_absolute_error(y_true, y_pred, sample_weight=weight))



#: ``GridSearchCV(..., scoring=mae_macro_scorer)``: negated ``MAE^M`` (greater is better).
mae_macro_scorer = make_scorer(mae_macro, greater_is_better=False)
