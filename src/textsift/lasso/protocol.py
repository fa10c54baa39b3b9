"""The AdaBag paper's protocol (its data, and its algorithm's steps 5-6): the kept rows are
split 2:1:1 within each class x group cell into core, validation and test parts; the estimator
is fitted on core + validation with that validation part, and tested on the test quarter,
overall, per group, and for every cutoff ``c`` (OLS on ``A_c`` refitted on core + validation,
like the chosen model, so the curve passes through the reported test error at ``c*``; it is
the loss of the estimator's criterion by the midpoint rule)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from ..errors import TextsiftError
from .adabag import label_rows, split_211
from .classifier import misclassification
from .estimator import check_ratings
from .skew import class_scores

__all__ = ["HoldoutRun", "holdout_run"]


@dataclass
class HoldoutRun:
    """A fitted estimator and its test results. ``kept``: indices of the rows outside
    ``(a, b)``; ``part``: 0 core, 1 validation, 2 test per kept row; ``test_errors``: the loss
    of the criterion (ME by default) on the test part per cutoff; ``test_error`` (ME) and
    ``test_error_by_group`` at ``c*``; ``test_scores``: per decision rule (``"midpoint"``, and
    ``"validation"`` when the model chose its threshold there), the threshold and
    :func:`~.skew.class_scores` on the test part at ``c*``."""

    model: object
    kept: np.ndarray
    part: np.ndarray
    test_errors: np.ndarray
    test_error: float
    test_error_by_group: dict
    seconds: float
    test_scores: dict


def holdout_run(model, X, y, groups=None) -> HoldoutRun:
    """Run the protocol (module docstring) with a clone of ``model`` (an
    :class:`~textsift.lasso.AdaBagClassifier` with an int ``random_state``, the seed of the
    split and of the bootstraps)."""
    start = time.perf_counter()
    model = clone(model)
    model.check_params()
    seed = model.random_state
    if seed is None or not np.issubdtype(type(seed), np.integer):
        raise TextsiftError("the 2:1:1 protocol needs an int random_state (it seeds the split)")
    y = check_ratings(y)
    X = sp.csr_matrix(X, dtype=np.float64)
    if X.shape[0] != len(y):
        raise TextsiftError(f"X has {X.shape[0]} rows and y {len(y)} ratings")
    keep, theta, labels, gcode = label_rows(y, model.a, model.b, groups)
    part = split_211(theta, gcode, seed, grouped=groups is not None)
    kept = np.flatnonzero(keep)
    train = kept[part < 2]
    g = None if groups is None else np.asarray(groups)
    model.fit(X[train], y[train], None if g is None else g[train],
              validation=np.isin(train, kept[part == 1]))
    test = kept[part == 2]
    rating = model.rating(X[test], None if g is None else g[test])
    pred = (rating >= model.threshold_).astype(np.int64)  # model.predict
    ttest, gtest = theta[part == 2], gcode[part == 2]
    rules = {"midpoint": model.midpoint_}
    if model.threshold == "validation":
        rules["validation"] = model.threshold_
    scores = {rule: {"threshold": t, **class_scores(ttest, (rating >= t).astype(np.int64),
                                                     model.criterion_)}
              for rule, t in rules.items()}
    by_group = {str(label): misclassification(ttest[gtest == k], pred[gtest == k])
                for k, label in enumerate(labels)}
    test_errors = model.cutoff_errors(X[test], y[test], None if g is None else g[test])
    return HoldoutRun(model, kept, part, test_errors, misclassification(ttest, pred), by_group,
                      time.perf_counter() - start, scores)
