"""One cell of an experiment (see :mod:`.plan`): select, fit, measure -- with its tuning.

:func:`run_cell` opens the cell's fold once (:func:`open_fold`: the cached matrices and counts,
read once per process) and hands it down. A ``select`` cell keeps the first ``k`` terms of the
fold's ranking under (method, aggregate), fits the learner on those columns of the training
matrix and measures its test predictions. The ranking comes from
:class:`~textsift.selectors.TermSelector` fitted on the fold's :class:`~textsift.counts.Counts`
(``fit_counts``: nothing is re-counted) to the experiment's largest level, once per fold and
process (:meth:`LoadedFold.kept`): the cells of a ranking share it. Taking a prefix is exact for
every policy: top-k is a prefix of the order, and a round robin stopped after ``k`` picks is
the prefix of a longer one (METHODS.md §0.6). An ``all`` cell fits on every column; a
``triv`` cell predicts the trivial answer.

With ``[tuning]``, a stratified ``val_size`` part of the fold's training set is held out
(the rest, the *fit* part, keeps the fold's vocabulary; its counts are taken once per fold),
every combination of the grid selects on the fit part and is scored on the validation part by
the first measure, and the best (the first in grid order on a tie) is used to re-select on the
whole training part and refit, as Baccianella et al. tune ``a``.
"""

from __future__ import annotations

import json
import time
import warnings
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from ..counts import Counts
from ..metrics import MEASURES
from ..selectors import TermSelector
from ._keys import ConfigError
from ._methods import resolve_method
from .folds import load_fold
from .learn import binary_labels, encode, trivial_prediction
from .specs import Cell, FoldRef, TrainTest

__all__ = ["CellResult", "LoadedFold", "open_fold", "run_cell", "selector"]


def selector(method: str, aggregate: str, rr_variant: str, params, k: int) -> TermSelector:
    """The (unfitted) selector of a ranking: ``aggregate`` is the policy, or ``"pos"`` for
    the positive class's scores of a one-vs-rest task (as Forman 2003 selects per task)."""
    by_class = {"class_label": "pos"} if aggregate == "pos" else {"aggregate": aggregate}
    return TermSelector(resolve_method(method), k=k, rr_variant=rr_variant,
                        method_params=dict(params), **by_class)


class LoadedFold:
    """A loaded fold (``data``) and what its cells derive from it, each computed once and kept
    as long as the fold is: the validation split of tuning, the binary counts of one-vs-rest
    tasks, the rankings, and the columns of the last number of terms asked for (which the
    learners of one level share). A *holdout* names the part: ``None`` for the fold itself,
    ``(val_size, seed)`` for its validation split."""

    def __init__(self, data: TrainTest):
        self.data = data
        self._validation: dict = {}
        self._counts: dict = {}
        self._ranked: dict = {}
        self._columns: tuple | None = None

    def part(self, holdout) -> TrainTest:
        """The fold, or the fit part of its training set against the validation part."""
        if holdout is None:
            return self.data
        if holdout not in self._validation:
            self._validation[holdout] = _validation(self.data, *holdout)
        return self._validation[holdout]

    def counts(self, holdout, positive) -> Counts:
        """The counts of the part's training set, of the binary task ``positive`` if any."""
        key = (holdout, positive)
        if key not in self._counts:
            counts = self.part(holdout).counts
            self._counts[key] = counts if positive is None else counts.one_vs_rest(positive)
        return self._counts[key]

    def kept(self, holdout, cell: Cell, params: tuple, k: int) -> np.ndarray:
        """The columns of the first ``k`` terms of the cell's ranking (its method, aggregate
        and task, with the method's ``params``), in column order. The selector is fitted
        once per ranking, to the cell's largest level (a round robin stops there), and each
        level is ``set_params(k=...)`` on it: the selection is derived from the ranking, with
        no refit."""
        key = _ranking(holdout, cell, params)
        if key not in self._ranked:
            counts = self.counts(holdout, cell.positive)
            longest = cell.max_level.k(int(counts.seen.sum()), counts.n_terms)
            self._ranked[key] = selector(cell.method, cell.aggregate, cell.rr_variant, params,
                                         longest).fit_counts(counts)
        return np.sort(self._ranked[key].set_params(k=k).selected_)

    def columns(self, holdout, cell: Cell, params: tuple, k: int):
        """The part's training and test matrices restricted to :meth:`kept` columns."""
        key = _ranking(holdout, cell, params), k
        if self._columns is None or self._columns[0] != key:
            p, idx = self.part(holdout), self.kept(holdout, cell, params, k)
            self._columns = key, (p.X_train[:, idx], p.X_test[:, idx])
        return self._columns[1]


def _ranking(holdout, cell: Cell, params: tuple) -> tuple:
    """What a ranking depends on, besides its fold."""
    return holdout, cell.positive, cell.method, cell.aggregate, cell.rr_variant, params


@lru_cache(maxsize=2)
def open_fold(ref: FoldRef) -> LoadedFold:
    """The fold ``ref`` names, read from its cache file once per process (a worker runs a
    fold's cells one after another: see :func:`~.plan.plan_cells`)."""
    return LoadedFold(load_fold(ref))


def _validation(d: TrainTest, val_size: float, seed: int) -> TrainTest:
    try:
        fit, val = train_test_split(np.arange(len(d.y_train)), test_size=val_size,
                                    stratify=d.y_train, random_state=seed)
    except ValueError as exc:
        raise ConfigError(f"cannot hold out a stratified validation part of {val_size:g} "
                          f"([tuning] val_size): {exc}") from None
    X_fit = d.X_train[fit]
    counts = Counts.from_matrix(X_fit, d.y_train[fit], classes=d.counts.classes,
                                feature_names=d.counts.feature_names)
    return TrainTest(X_train=X_fit, y_train=d.y_train[fit], X_test=d.X_train[val],
                     y_test=d.y_train[val], counts=counts)


@dataclass
class Clock:
    """Seconds a cell spends selecting, learning (wall and CPU) and measuring, and the
    learners' convergence warnings: the cell's ``timing``, not part of the results."""

    select_s: float = 0.0
    learner_s: float = 0.0
    metrics_s: float = 0.0
    learner_cpu_s: float = 0.0
    convergence_warnings: int = 0


@dataclass(frozen=True)
class CellResult:
    """A finished cell: its file name, its rows of the results table and its timing."""

    name: str
    rows: list[dict]
    timing: dict


def _labels(cell: Cell, p: TrainTest):
    if cell.positive is None:
        return p.y_train, p.y_test
    return binary_labels(p.y_train, cell.positive), binary_labels(p.y_test, cell.positive)


def _predict(cell: Cell, loaded: LoadedFold, holdout, choice: dict, clock: Clock):
    """Fit the cell's learner on its terms of the part ``holdout`` with the parameters
    ``choice``; return ``(y_true, prediction, terms used, positive label, scale)``."""
    t0 = time.perf_counter()
    p = loaded.part(holdout)
    own = set(cell.tuning.method_params) if cell.tuning else set()
    if cell.kind == "all":
        X_train, X_test, k = p.X_train, p.X_test, p.n_terms
    else:
        k = cell.level.k(int(p.counts.seen.sum()), p.counts.n_terms)
        params = {**dict(cell.params), **{key: choice[key] for key in own}}
        X_train, X_test = loaded.columns(holdout, cell, tuple(sorted(params.items())), k)
    y_train, y_test, pos = *_labels(cell, p), "pos"
    names = None
    if y_train.dtype.kind == "U":  # nominal labels (ordinal ranks stay the numbers they are)
        y_train, y_test, names = encode(y_train, y_test)
        pos = int(np.searchsorted(names, "pos"))
    scale = list(p.counts.classes) if cell.ordinal else None
    learner = cell.learner.pipeline(cell.seed, scale, names,
                                    **{key: v for key, v in choice.items() if key not in own})
    t1, c1 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        learner.fit(X_train, y_train)
        pred = learner.predict(X_test)
    clock.select_s += t1 - t0
    clock.learner_s += time.perf_counter() - t1
    clock.learner_cpu_s += time.process_time() - c1
    clock.convergence_warnings += sum(issubclass(w.category, ConvergenceWarning)
                                      for w in caught)
    return y_test, pred, k, pos, scale


def _tune(cell: Cell, loaded: LoadedFold, clock: Clock) -> tuple[dict, float | None]:
    """The grid point with the best first measure on the validation part."""
    if not cell.tuning:
        return {}, None
    measure, holdout = MEASURES[cell.measures[0]], (cell.tuning.val_size, cell.seed)
    grid, values = cell.tuning.points(), []
    for choice in grid:
        y, pred, _, pos, scale = _predict(cell, loaded, holdout, choice, clock)
        values.append(measure(y, pred, scale, pos))
    best = int(np.argmin(values) if measure.lower_is_better else np.argmax(values))
    return grid[best], values[best]


def _triv(cell: Cell, p: TrainTest) -> dict:
    """Measures of the trivial predictor on the fold's test part."""
    y_train, y_test = _labels(cell, p)
    scale = list(p.counts.classes) if cell.ordinal else None
    answer = trivial_prediction(y_train, scale)
    pos = "pos"
    if y_train.dtype.kind == "U":
        y_train, y_test, names = encode(y_train, y_test)
        answer, pos = np.searchsorted(names, answer), int(np.searchsorted(names, "pos"))
    pred = np.full(len(y_test), answer)
    return {m: MEASURES[m](y_test, pred, scale, pos) for m in cell.measures}


def _cell_value(value):
    """A tuned value as the results table holds it: a table (a ``class_weight``) as its JSON
    text, so that a column of ``"balanced"`` and tables has one type."""
    return json.dumps(value, sort_keys=True) if isinstance(value, dict) else value


def run_cell(cell: Cell) -> CellResult:
    """Run one cell; return its rows and timing."""
    loaded = open_fold(cell.fold_ref)
    clock = Clock()
    extra: dict = {}
    if cell.kind == "triv":
        t0 = time.perf_counter()
        measures = _triv(cell, loaded.data)
        clock.metrics_s = time.perf_counter() - t0
        k = 0
    else:
        choice, val_value = _tune(cell, loaded, clock)
        y, pred, k, pos, scale = _predict(cell, loaded, None, choice, clock)
        t0 = time.perf_counter()
        measures = {m: MEASURES[m](y, pred, scale, pos) for m in cell.measures}
        clock.metrics_s = time.perf_counter() - t0
        if cell.tuning:
            extra = {key: _cell_value(choice.get(key)) for key, _ in cell.tuning.grid}
            extra[f"val_{cell.measures[0]}"] = val_value
    rows = [{"dataset": cell.dataset, "fold": cell.fold, "method": method,
             "aggregate": aggregate, "n_features": k, "learner": learner, "metric": m,
             "value": v, "ratio": None if cell.kind == "triv" else cell.level.ratio, **extra}
            for method, aggregate in cell.rows for learner in cell.labels
            for m, v in measures.items()]
    return CellResult(cell.name, rows, {**asdict(clock), "n_used": k})
