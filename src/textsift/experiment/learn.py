"""The labels a cell learns and is measured on: a one-vs-rest task's, integer codes for
nominal classes, and the trivial answer. (Learners and measures are the registries of
:mod:`textsift.learners` and :mod:`textsift.metrics`.)"""

from __future__ import annotations

import numpy as np

from ..ranks import trivial_rank

__all__ = ["binary_labels", "encode", "trivial_prediction"]


def trivial_prediction(y_train, scale=None):
    """What Triv always says: the middle rank of ``scale`` (METHODS.md §A.1), or without a
    scale the most frequent training label (the lowest of equally frequent ones)."""
    if scale is not None:
        return trivial_rank(scale)
    labels, n = np.unique(y_train, return_counts=True)
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
