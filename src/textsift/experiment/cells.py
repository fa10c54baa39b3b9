"""One cell of an experiment: (fold, method, aggregate, size, learner) -> metric values.

A cell selects the first ``n_features`` terms of the fold's ranking under (method, aggregate),
fits the learner on those columns of the training matrix and scores its test predictions.
The ranking comes from :class:`~textsift.selectors.TermSelector` fitted on the fold's cached
:class:`~textsift.counts.Counts` (``fit_counts``: nothing is re-counted) with ``k`` the largest
size of the experiment, and is memoised per process: the cells of a ranking share it. Taking a
prefix is exact for every policy: top-k is a prefix of the order, and a round robin stopped
after ``n`` picks is the prefix of a longer one (METHODS.md §0.6).
"""

from __future__ import annotations

import time
import warnings
from functools import lru_cache

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Binarizer
from sklearn.svm import LinearSVC

from ..counts import Counts
from ..errors import TextsiftError
from ..metrics import mae_macro, mae_micro, misclassification_error
from ..selectors import TermSelector
from .config import LearnerSpec
from .folds import fold_key, load_fold

__all__ = ["binary_labels", "columns", "encode", "make_learner", "one_vs_rest", "ranking",
           "run_cell", "score"]


def make_learner(spec: LearnerSpec, seed: int, ranks=None):
    """The scikit-learn pipeline of a learner: input weighting, then the estimator."""
    params = dict(spec.params)
    if spec.name == "nb":
        est = MultinomialNB(**params)
    elif spec.name == "linear_svm":
        est = LinearSVC(random_state=seed, **params)
    elif spec.name == "logreg":
        est = LogisticRegression(random_state=seed, **{"max_iter": 1000, **params})
    else:
        from ..learners import RankSVR

        est = RankSVR(random_state=seed, ranks=ranks, **params)
    weighting = {"counts": [], "binary": [Binarizer()], "tfidf": [TfidfTransformer()]}
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
    return np.where(y == positive, "pos", "neg")


def encode(y_train, y_test) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class names as integer codes ``(train, test, names)``, ``names[code] == label``.

    Learners and measures see the codes: scikit-learn's checks of string labels cost more
    than fitting naive Bayes, and a one-to-one relabelling changes no prediction and no
    measure."""
    names = np.unique(np.concatenate([y_train, y_test]))
    return np.searchsorted(names, y_train), np.searchsorted(names, y_test), names


@lru_cache(maxsize=8)
def ranking(fold: tuple, method: str, aggregate: str, k: int, rr_variant: str,
            params: tuple, task=None) -> np.ndarray:
    """The first ``k`` selected term indices of a fold (its :func:`~.folds.fold_key`) under
    (method, aggregate). For a one-vs-rest ``task`` (a class), the counts are that binary
    task's and the policy ``"pos"`` ranks by the positive class's scores, as Forman (2003)
    selects per task."""
    counts = load_fold(fold[0]).counts
    if task is not None:
        counts = one_vs_rest(counts, task)
    by_class = {"class_label": "pos"} if aggregate == "pos" else {"aggregate": aggregate}
    sel = TermSelector(method, k=min(k, counts.n_terms), rr_variant=rr_variant,
                       method_params=dict(params), **by_class)
    return sel.fit_counts(counts).selected_


@lru_cache(maxsize=2)
def columns(fold: tuple, method: str, aggregate: str, k: int, rr_variant: str, params: tuple,
            task, n: int):
    """The training and test matrices restricted to the first ``n`` terms of a ranking, in
    column order (memoised: the learners of one size share them)."""
    data = load_fold(fold[0])
    idx = np.sort(ranking(fold, method, aggregate, k, rr_variant, params, task)[:n])
    return data.X_train[:, idx], data.X_test[:, idx]


def run_cell(cell: dict) -> dict:
    """Run one cell (a plain dict, cheap to send to a worker: the fold travels as the path of
    its cache file); return its rows and timing."""
    t0 = time.perf_counter()
    fold = load_fold(cell["fold_path"])
    X_train, X_test = columns(fold_key(cell["fold_path"]), cell["method"], cell["aggregate"],
                              cell["k"], cell["rr_variant"], cell["params"], cell["task"],
                              cell["n_features"])
    y_train, y_test = fold.y_train, fold.y_test
    if cell["task"] is not None:
        y_train, y_test = binary_labels(y_train, cell["task"]), binary_labels(y_test, cell["task"])
    pos = "pos"
    if y_train.dtype.kind == "U":  # nominal labels (ordinal ranks stay the numbers they are)
        y_train, y_test, names = encode(y_train, y_test)
        pos = int(np.searchsorted(names, "pos"))
    t1, c1 = time.perf_counter(), time.process_time()
    learner = make_learner(cell["learner"], cell["seed"], cell["ranks"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        learner.fit(X_train, y_train)
        pred = learner.predict(X_test)
    t2, c2 = time.perf_counter(), time.process_time()
    rows = [{"dataset": cell["dataset"], "fold": cell["fold"], "method": cell["method"],
             "aggregate": cell["aggregate"], "n_features": cell["n_features"],
             "learner": cell["learner"].label, "metric": m,
             "value": score(m, y_test, pred, cell["ranks"], pos)} for m in cell["metrics"]]
    timing = {"select_s": t1 - t0, "learner_s": t2 - t1, "metrics_s": time.perf_counter() - t2,
              "learner_cpu_s": c2 - c1,
              "n_used": int(X_train.shape[1]),
              "convergence_warnings": sum(issubclass(w.category, ConvergenceWarning)
                                          for w in caught)}
    return {"name": cell["name"], "rows": rows, "timing": timing}

