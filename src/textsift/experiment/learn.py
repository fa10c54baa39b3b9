"""Learners, measures and labels of the harness: what a cell fits and how it scores it."""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Binarizer
from sklearn.svm import LinearSVC

from ..counts import Counts
from ..errors import TextsiftError
from ..learners import RankSVR
from ..metrics import mae_macro, mae_micro, misclassification_error
from ..ranks import trivial_rank
from .config import LearnerSpec

__all__ = ["binary_labels", "encode", "make_learner", "one_vs_rest", "score",
           "trivial_prediction"]


def make_learner(spec: LearnerSpec, seed: int, ranks=None, **params):
    """The scikit-learn pipeline of a learner: input weighting, then the estimator (its
    parameters from the file, then ``params``, e.g. the values a tuning grid chose)."""
    params = {**dict(spec.params), **params}
    if spec.name == "nb":
        est = MultinomialNB(**params)
    elif spec.name == "linear_svm":
        est = LinearSVC(random_state=seed, **params)
    elif spec.name == "logreg":
        est = LogisticRegression(random_state=seed, **{"max_iter": 1000, **params})
    else:
        est = RankSVR(random_state=seed, ranks=ranks, **params)
    weighting = {"counts": [], "binary": [Binarizer()], "tfidf": [TfidfTransformer()],
                 "sublinear_tfidf": [TfidfTransformer(sublinear_tf=True)]}
    return make_pipeline(*weighting[spec.weighting], est)


def score(metric: str, y_true, y_pred, ranks=None, pos_label="pos") -> float:
    """One evaluation measure; averaged measures take every class in ``y_true`` or
    ``y_pred`` (scikit-learn's default), and 0 for a class never predicted. ``*_pos``
    measures are those of the class ``pos_label``."""
    if metric == "accuracy":
        return float(accuracy_score(y_true, y_pred))
    if metric == "micro_f1":
        return float(f1_score(y_true, y_pred, average="micro", zero_division=0))
    if metric == "macro_f1":
        return float(f1_score(y_true, y_pred, average="macro", zero_division=0))
    if metric == "precision":
        return float(precision_score(y_true, y_pred, average="macro", zero_division=0))
    if metric == "recall":
        return float(recall_score(y_true, y_pred, average="macro", zero_division=0))
    if metric in ("f1_pos", "precision_pos", "recall_pos"):
        func = {"f1_pos": f1_score, "precision_pos": precision_score,
                "recall_pos": recall_score}[metric]
        return float(func(y_true, y_pred, pos_label=pos_label, average="binary",
                          zero_division=0))
    if metric == "misclassification_error":
        return misclassification_error(y_true, y_pred)
    if metric == "mae_macro":
        return mae_macro(y_true, y_pred, ranks=ranks)
    if metric == "mae_micro":
        return mae_micro(y_true, y_pred)
    raise TextsiftError(f"unknown metric {metric!r}")


def trivial_prediction(y_train, scale=None):
    """What Triv always says: the middle rank of ``scale`` (METHODS.md §A.1), or without a
    scale the most frequent training label (the lowest of equally frequent ones)."""
    if scale is not None:
        return trivial_rank(scale)
    labels, n = np.unique(y_train, return_counts=True)
    return labels[int(np.argmax(n))]


def one_vs_rest(counts: Counts, positive) -> Counts:
    """The binary counts of ``positive`` against the other classes merged (labels
    ``"neg"``, ``"pos"``), derived from the multi-class counts without re-counting."""
    j = int(np.flatnonzero(counts.classes == positive)[0])
    dc, tf = counts.doc_counts, counts.term_freq
    return Counts(classes=np.array(["neg", "pos"]),
                  class_sizes=np.array([counts.n_docs - counts.class_sizes[j],
                                        counts.class_sizes[j]]),
                  doc_counts=np.column_stack([dc.sum(axis=1) - dc[:, j], dc[:, j]]),
                  term_freq=np.column_stack([tf.sum(axis=1) - tf[:, j], tf[:, j]]),
                  feature_names=counts.feature_names)


def binary_labels(y, positive) -> np.ndarray:
    """The labels of a one-vs-rest task: ``"pos"`` for ``positive``, ``"neg"`` otherwise."""
    return np.where(y == positive, "pos", "neg")


def encode(y_train, y_test) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class names as integer codes ``(train, test, names)``, ``names[code] == label``.

    Learners and measures see the codes: scikit-learn's checks of string labels cost more
    than fitting naive Bayes, and a one-to-one relabelling changes no prediction and no
    measure."""
    names = np.unique(np.concatenate([y_train, y_test]))
    return np.searchsorted(names, y_train), np.searchsorted(names, y_test), names
