"""One cell of an experiment (see :mod:`.plan`): select, fit, measure -- with its tuning.

A ``select`` cell keeps the first ``n`` terms of the fold's ranking under (method, policy),
fits the learner on those columns of the training matrix and scores its test predictions.
The ranking comes from :class:`~textsift.selectors.TermSelector` fitted on the fold's cached
:class:`~textsift.counts.Counts` (``fit_counts``: nothing is re-counted) with ``k`` the
experiment's largest level, and is memoised per process: the cells of a ranking share it.
Taking a prefix is exact for every policy: top-k is a prefix of the order, and a round robin
stopped after ``n`` picks is the prefix of a longer one (METHODS.md §0.6). An ``all`` cell
fits on every column; a ``triv`` cell predicts the trivial answer.

With ``[tuning]``, a stratified ``val_size`` part of the fold's training set is held out
(the rest, the *fit* part, keeps the fold's vocabulary; its counts are taken once per
process), every combination of the grid selects on the fit part and is scored on the
validation part by the first metric, and the best (the first in grid order on a tie) is used
to re-select on the whole training part and refit, as Baccianella et al. tune ``a``.
"""

from __future__ import annotations

import itertools
import time
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from ..counts import Counts
from ..metrics import LOWER_IS_BETTER
from ..selectors import TermSelector
from ._keys import ConfigError
from ._methods import resolve_method
from .folds import fold_key, load_fold
from .learn import binary_labels, encode, make_learner, one_vs_rest, score, trivial_prediction
from .plan import n_kept

__all__ = ["Part", "columns", "load_part", "ranking", "run_cell"]


@dataclass(frozen=True, eq=False)
class Part:
    """The learning problem of a cell: a training matrix and its counts, and the matrix its
    predictions are scored on (the fold's test part, or the validation part)."""

    X_train: sp.csr_matrix
    y_train: np.ndarray
    X_test: sp.csr_matrix
    y_test: np.ndarray
    counts: Counts


def load_part(fold: tuple, part) -> Part:
    """The whole fold (``part=None``; ``fold`` is its :func:`~.folds.fold_key`) or its
    ``(val_size, seed)`` validation split: the fit part against the validation part."""
    if part is None:
        d = load_fold(fold[0])
        return Part(d.X_train, d.y_train, d.X_test, d.y_test, d.counts)
    return _validation(fold, *part)


@lru_cache(maxsize=2)
def _validation(fold: tuple, val_size: float, seed: int) -> Part:
    d = load_fold(fold[0])
    try:
        fit, val = train_test_split(np.arange(len(d.y_train)), test_size=val_size,
                                    stratify=d.y_train, random_state=seed)
    except ValueError as exc:
        raise ConfigError(f"cannot hold out a stratified validation part of {val_size:g} "
                          f"([tuning] val_size): {exc}") from None
    X_fit = d.X_train[fit]
    counts = Counts.from_matrix(X_fit, d.y_train[fit], classes=d.counts.classes,
                                feature_names=d.counts.feature_names)
    return Part(X_fit, d.y_train[fit], d.X_train[val], d.y_train[val], counts)


@lru_cache(maxsize=32)
def ranking(fold: tuple, part, method: str, aggregate: str, k: int, rr_variant: str,
            params: tuple, task=None) -> np.ndarray:
    """The first ``k`` selected term indices of a fold's part under (method, aggregate).
    For a one-vs-rest ``task`` (a class), the counts are that binary task's and the policy
    ``"pos"`` ranks by the positive class's scores, as Forman (2003) selects per task."""
    counts = load_part(fold, part).counts
    if task is not None:
        counts = one_vs_rest(counts, task)
    by_class = {"class_label": "pos"} if aggregate == "pos" else {"aggregate": aggregate}
    sel = TermSelector(resolve_method(method), k=min(k, counts.n_terms),
                       rr_variant=rr_variant, method_params=dict(params), **by_class)
    return sel.fit_counts(counts).selected_


@lru_cache(maxsize=2)
def columns(fold: tuple, part, method: str, aggregate: str, k: int, rr_variant: str,
            params: tuple, task, n: int):
    """The training and test matrices restricted to the first ``n`` terms of a ranking, in
    column order (memoised: the learners of one level share them)."""
    p = load_part(fold, part)
    idx = np.sort(ranking(fold, part, method, aggregate, k, rr_variant, params, task)[:n])
    return p.X_train[:, idx], p.X_test[:, idx]


def _predict(cell: dict, fold: tuple, part, choice: dict, clock: dict):
    """Fit the cell's learner on its terms of ``part`` with the parameters ``choice``;
    return ``(y_true, prediction, terms used, positive label, scale)``; ``clock`` adds up
    the seconds spent selecting and learning, and the learners' convergence warnings."""
    t0 = time.perf_counter()
    p = load_part(fold, part)
    own = set(cell["tuning"]["method"]) if cell["tuning"] else set()
    if cell["kind"] == "all":
        X_train, X_test, n = p.X_train, p.X_test, p.X_train.shape[1]
    else:
        n_seen, n_terms = int(p.counts.seen.sum()), p.counts.n_terms
        n = n_kept(cell["level"], n_seen, n_terms)
        k = n_kept(cell["top"], n_seen, n_terms)
        params = {**dict(cell["params"]), **{key: choice[key] for key in own}}
        X_train, X_test = columns(fold, part, cell["method"], cell["aggregate"], k,
                                  cell["rr_variant"], tuple(sorted(params.items())),
                                  cell["task"], n)
    y_train, y_test, pos = *_labels(cell, p), "pos"
    if y_train.dtype.kind == "U":  # nominal labels (ordinal ranks stay the numbers they are)
        y_train, y_test, names = encode(y_train, y_test)
        pos = int(np.searchsorted(names, "pos"))
    scale = list(p.counts.classes) if cell["ordinal"] else None
    learner = make_learner(cell["learner"], cell["seed"], scale,
                           **{key: v for key, v in choice.items() if key not in own})
    t1, c1 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        learner.fit(X_train, y_train)
        pred = learner.predict(X_test)
    clock["select_s"] += t1 - t0
    clock["learner_s"] += time.perf_counter() - t1
    clock["learner_cpu_s"] += time.process_time() - c1
    clock["convergence_warnings"] += sum(issubclass(w.category, ConvergenceWarning)
                                         for w in caught)
    return y_test, pred, n, pos, scale


def _labels(cell: dict, p: Part):
    if cell["task"] is None:
        return p.y_train, p.y_test
    return binary_labels(p.y_train, cell["task"]), binary_labels(p.y_test, cell["task"])


def _tune(cell: dict, fold: tuple, clock: dict) -> tuple[dict, float | None]:
    """The grid point with the best first metric on the validation part."""
    if not cell["tuning"]:
        return {}, None
    keys = [key for key, _ in cell["tuning"]["grid"]]
    grid = [dict(zip(keys, values, strict=True))
            for values in itertools.product(*(v for _, v in cell["tuning"]["grid"]))]
    metric, part = cell["metrics"][0], (cell["tuning"]["val_size"], cell["seed"])
    values = []
    for choice in grid:
        y, pred, _, pos, scale = _predict(cell, fold, part, choice, clock)
        values.append(score(metric, y, pred, scale, pos))
    best = int(np.argmin(values) if metric in LOWER_IS_BETTER else np.argmax(values))
    return grid[best], values[best]


def _triv(cell: dict) -> dict:
    """Measures of the trivial predictor on the fold's test part."""
    p = load_part(fold_key(cell["fold_path"]), None)
    y_train, y_test = _labels(cell, p)
    scale = list(p.counts.classes) if cell["ordinal"] else None
    answer = trivial_prediction(y_train, scale)
    pos = "pos"
    if y_train.dtype.kind == "U":
        y_train, y_test, names = encode(y_train, y_test)
        answer, pos = np.searchsorted(names, answer), int(np.searchsorted(names, "pos"))
    pred = np.full(len(y_test), answer)
    return {m: score(m, y_test, pred, scale, pos) for m in cell["metrics"]}


def run_cell(cell: dict) -> dict:
    """Run one cell (a plain dict, cheap to send to a worker: the fold travels as the path of
    its cache file); return its rows and timing."""
    fold = fold_key(cell["fold_path"])
    clock = dict.fromkeys(("select_s", "learner_s", "metrics_s", "learner_cpu_s",
                           "convergence_warnings"), 0)
    extra: dict = {}
    if cell["kind"] == "triv":
        t0 = time.perf_counter()
        measures = _triv(cell)
        clock["metrics_s"] = time.perf_counter() - t0
        n, learners, ratio = 0, cell["learners"], None
    else:
        choice, val_value = _tune(cell, fold, clock)
        y, pred, n, pos, scale = _predict(cell, fold, None, choice, clock)
        t0 = time.perf_counter()
        measures = {m: score(m, y, pred, scale, pos) for m in cell["metrics"]}
        clock["metrics_s"] = time.perf_counter() - t0
        learners = [cell["learner"].label]
        kind, value = cell["level"]
        ratio = 1.0 if kind == "all" else value if kind == "ratio" else None
        if cell["tuning"]:
            extra = {key: choice.get(key) for key, _ in cell["tuning"]["grid"]}
            extra[f"val_{cell['metrics'][0]}"] = val_value
    rows = [{"dataset": cell["dataset"], "fold": cell["fold"], "method": method,
             "aggregate": aggregate, "n_features": n, "learner": learner, "metric": m,
             "value": v, "ratio": ratio, **extra}
            for method, aggregate in cell["rows"] for learner in learners
            for m, v in measures.items()]
    return {"name": cell["name"], "rows": rows, "timing": {**clock, "n_used": n}}
