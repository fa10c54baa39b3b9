"""The labels a trial learns and is measured on: a one-vs-rest task's, integer codes for
nominal classes, and the trivial answer. (Learners and measures are the registries of
:mod:`textsift.learners` and :mod:`textsift.learners.metrics`.)"""

from __future__ import annotations

import numpy as np

from ..labels.ranks import trivial_rank

__all__ = ["binary_labels", "encode", "trivial_prediction"]


def trivial_prediction(y_train, scale=None):
    """What Triv always says: the middle rank of ``scale`` (Baccianella, Esuli & Sebastiani
    2010), or without a scale the most frequent training label (the lowest of equally frequent
    ones) -- for label sets (a 0/1 indicator, documents x labels), the most frequent training
    label set (the first in the order of its rows among equally frequent ones), which is the
    most frequent class when every document has one label."""
    if scale is not None:
        return trivial_rank(scale)
    labels, n = np.unique(y_train, return_counts=True, axis=0 if np.ndim(y_train) == 2 else None)
    return labels[int(np.argmax(n))]


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
