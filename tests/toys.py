"""A small learnable problem of each label kind, made from the kind's rules alone: the tests of
the learner and measure registries (``tests/test_learners.py``, ``tests/test_metrics.py``)
draw theirs from it, so a new kind is fitted and measured by registering only.

The labels are the kind's own example (:meth:`LabelKind.example
<textsift.labels.LabelKind.example>`), read as a corpus file's (``as_labels``) and put in the
form the learners fit and the measures read, as an experiment gives them: a dense 0/1 indicator
matrix for label sets, the ranks themselves for ranks, else the classes' integer codes. The
features make them learnable by every learner: column ``j`` counts 3 in every document of class
(rank, label) ``j`` and 0 in the others, and 8 columns are Poisson(0.3) noise only. (Noise on
the label columns too left a learner of label sets, logistic regression on 60 documents of the
six emotions, right on 57-63% of the training documents and the SVR on ranks on 55-62%,
below the two in three the learners' test asks; so decisive, every learner is right on 97% or
more of 100 documents, seeds 0-2.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from textsift.labels import LabelKind, as_labels


@dataclass(frozen=True)
class Toy:
    kind: LabelKind
    X: np.ndarray  # documents x (classes + 8 noise columns), counts (module docstring)
    y: np.ndarray  # the labels in the form learners fit (module docstring)
    classes: np.ndarray  # what ``y`` holds: the codes, the scale or the label columns

    @property
    def fit_params(self) -> dict:
        """``make_learner``'s arguments for the kind, as an experiment's trials pass them:
        the scale for ranks, ``multilabel`` for label sets."""
        return ({"ranks": self.classes.tolist()} if self.kind.ranks else {}) | (
            {"multilabel": True} if self.kind.label_sets else {})

    @property
    def binary(self) -> Toy:
        """The binary task of the first document's class against the rest, coded as an
        experiment codes ``neg``/``pos`` (0 and 1: the positive class 1), for the measures of
        a positive class (one label per document only)."""
        y = (self.y == self.y[0]).astype(int)
        return Toy(self.kind, self.X, y, np.array([0, 1]))

    @property
    def wrong(self) -> np.ndarray:
        """The kind's prediction wrong on every decision (:func:`wrong`)."""
        return wrong(self.kind, self.y, self.classes)


def wrong(kind: LabelKind, y, classes) -> np.ndarray:
    """A prediction wrong on every decision of the labels ``y``, in the form its learners
    fit and its measures read (a 0/1 indicator matrix for label sets, else one label per
    document: a class code or a rank), ``classes`` their sorted classes or scale (at least
    two): every label of every set flipped, ``1 - Y``; a rank the farthest of the scale,
    ``max`` if ``r - min <= max - r`` else ``min`` (a mirror would keep an odd scale's middle
    rank); a class the next of ``classes``, cyclically. Read from the kind's rules
    (``label_sets``, ``ranks``), so a new kind of one of these forms has it too; the
    measures' tests compare it with a perfect prediction."""
    y = np.asarray(y)
    if kind.label_sets:
        return 1 - y
    classes = np.sort(np.asarray(classes))
    if len(classes) < 2:
        raise ValueError("a prediction wrong on every decision needs two labels or more to "
                         f"choose from, got {classes.tolist()}")
    if kind.ranks:
        lo, hi = classes[0], classes[-1]
        return np.where(y - lo <= hi - y, hi, lo)
    return classes[(np.searchsorted(classes, y) + 1) % len(classes)]


def toy(kind, n_docs: int = 100, seed: int = 0) -> Toy:
    """The toy of ``kind``: ``n_docs`` documents of its example labels (module docstring)."""
    kind = LabelKind(kind)
    rng = np.random.default_rng(seed)
    labels = as_labels(kind.example(rng, n_docs))
    indicator = labels.indicator.toarray().astype(int)
    if kind.label_sets:
        y, classes = indicator, np.arange(labels.n_classes)
    elif kind.ranks:
        y, classes = labels.classes[labels.codes].astype(int), labels.classes.astype(int)
    else:
        y, classes = labels.codes, np.arange(labels.n_classes)
    X = np.hstack([3.0 * indicator, rng.poisson(0.3, (n_docs, 8))])
    return Toy(kind, X, y, classes)
