"""One cell of an experiment (see :mod:`.plan`): select, fit, measure -- with its tuning.

:func:`run_cell` opens the cell's fold once (:func:`~.loaded.open_fold`: the cached matrices
and counts, read once per process, or the fold the runner keeps open) and hands it down. A
``select`` cell keeps the first ``k`` terms of the fold's ranking of its selection
(:meth:`LoadedFold.ranking <.loaded.LoadedFold.ranking>`, shared by the cells of a ranking),
or at an alpha level the terms that pass it (:meth:`LoadedFold.passing
<.loaded.LoadedFold.passing>`), fits the learner on those columns of the training matrix and
measures its test predictions. Where no term passes an alpha, no learner is fitted: the
cell's values are NaN, with ``n_features`` 0, and the run says so in a note. An ``all`` cell
fits on every column; a ``triv`` cell predicts the trivial answer.

Label sets (a multilabel task) learn one binary learner per label of the cell's label set
(:func:`textsift.labels.evaluated_labels`), on the 0/1 indicator columns of those labels, and
measure the predicted indicators: under a policy (scope "global") every label's learner reads
the same columns (scikit-learn's ``OneVsRestClassifier``); in the scope ``"local"`` each
label's reads its own terms (:meth:`LoadedFold.kept_by_label
<.loaded.LoadedFold.kept_by_label>`, :class:`~textsift.learners.PerLabelClassifier`; at an
alpha level, a label with none answers its training majority). Such a cell also gives each
label's F1 (``CellResult.labels``). Their Triv is the most frequent training label set.

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
from dataclasses import asdict, dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import precision_recall_fscore_support

from ..learners.metrics import MEASURES
from .learn import binary_labels, encode, trivial_prediction
from .loaded import LoadedFold, open_fold
from .schema import default
from .specs import Cell, TrainTest

__all__ = ["CellResult", "run_cell"]


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
    """A finished cell: its file name, its rows of the results table and its timing; for
    label sets, ``labels``: a row per (results row, learner, label) with the label's F1,
    precision and recall and its training and test documents."""

    name: str
    rows: list[dict]
    timing: dict
    labels: list[dict] = field(default_factory=list)


def _labels(cell: Cell, loaded: LoadedFold, p: TrainTest):
    if cell.multilabel:  # dense 0/1 indicators of the cell's labels (documents x labels)
        cols = loaded.label_columns(cell.label_set)
        return p.y_train[:, cols].toarray(), p.y_test[:, cols].toarray()
    if cell.positive is None:
        return p.y_train, p.y_test
    return binary_labels(p.y_train, cell.positive), binary_labels(p.y_test, cell.positive)


def _coded(cell: Cell, loaded: LoadedFold, p: TrainTest):
    """``(y_train, y_test, positive, names)``: the part's labels of the cell's task, nominal
    ones as integer codes (``names[code]``; ``positive`` the code of ``"pos"``), ordinal ranks
    as the numbers they are (``names`` None); read-only."""
    y_train, y_test = _labels(cell, loaded, p)
    pos, names = "pos", None
    if y_train.dtype.kind == "U":
        y_train, y_test, names = encode(y_train, y_test)
        pos = int(np.searchsorted(names, "pos"))
    for y in (y_train, y_test):  # shared by the task's cells: no learner may change them
        y.flags.writeable = False
    return y_train, y_test, pos, names


def _predict(cell: Cell, loaded: LoadedFold, holdout, choice: dict, clock: Clock):
    """Fit the cell's learner on its terms of the part ``holdout`` with the parameters
    ``choice``; return ``(y_true, prediction, terms used, positive label, scale)`` -- the
    prediction ``None`` where no term passes an alpha level (nothing to fit)."""
    t0 = time.perf_counter()
    p = loaded.part(holdout)
    own = set(cell.tuning.method_params) if cell.tuning else set()
    per_label = None
    if cell.kind == "all":
        X_train, X_test, k = p.X_train, p.X_test, p.n_terms
    else:
        k = cell.level.k(int(p.counts.seen.sum()), p.counts.n_terms)
        params = tuple(sorted({**dict(cell.params), **{key: choice[key] for key in own}}.items()))
        alpha = cell.level.kind == "alpha"
        if cell.scope == "local":  # each label's learner on its own columns
            X_train, X_test = p.X_train, p.X_test
            per_label = (loaded.passing(holdout, cell, params) if alpha else
                         loaded.kept_by_label(holdout, cell, params, k))
            used = [len(c) for c in per_label]
        else:
            X_train, X_test = loaded.columns(holdout, cell, params, k)
            used = [X_train.shape[1]]
        if alpha:  # as many as pass: the terms each learner reads, on average (scope local)
            k = round(float(np.mean(used)))
            if not any(used):
                return _labels(cell, loaded, p)[1], None, 0, "pos", None
    y_train, y_test, pos, names = loaded.learned(holdout, cell, lambda: _coded(cell, loaded, p))
    scale = list(p.counts.classes) if cell.label_kind.ranks else None
    if cell.learner.threshold is not None:  # tuned on the validation part tuning uses
        choice = {**choice, "val_size": (cell.tuning.val_size if cell.tuning else
                                         default("tuning", "val_size"))}
    learner = cell.learner.pipeline(cell.seed, scale, names, multilabel=cell.multilabel,
                                    columns=per_label,
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
        values.append(np.nan if pred is None else measure(y, pred, scale, pos))
    if np.isnan(values).all():  # no term passes alpha on the fit part, whatever the choice
        return grid[0], None
    best = int(np.nanargmin(values) if measure.lower_is_better else np.nanargmax(values))
    return grid[best], values[best]


def _triv(cell: Cell, loaded: LoadedFold) -> dict:
    """Measures of the trivial predictor on the fold's test part."""
    p = loaded.data
    y_train, y_test = _labels(cell, loaded, p)
    scale = list(p.counts.classes) if cell.label_kind.ranks else None
    answer = trivial_prediction(y_train, scale)
    pos = "pos"
    if y_train.dtype.kind == "U":
        y_train, y_test, names = encode(y_train, y_test)
        answer, pos = np.searchsorted(names, answer), int(np.searchsorted(names, "pos"))
    pred = np.tile(answer, (len(y_test), 1)) if cell.multilabel else np.full(len(y_test), answer)
    return {m: MEASURES[m](y_test, pred, scale, pos) for m in cell.measures}


def _label_rows(cell: Cell, loaded: LoadedFold, k: int, y_test, pred) -> list[dict]:
    """Each label's F1, precision and recall (scikit-learn's, 0 where undefined, as the
    macro average takes them) and its training and test documents, per row of the cell."""
    cols = loaded.label_columns(cell.label_set)
    p, r, f, support = precision_recall_fscore_support(y_test, pred, average=None,
                                                       zero_division=0)
    names = loaded.data.counts.classes[cols]
    train = loaded.data.counts.class_sizes[cols]
    per = [{"label": str(c), "f1": float(fv), "precision": float(pv), "recall": float(rv),
            "train": int(n), "test": int(s)}
           for c, fv, pv, rv, n, s in zip(names, f, p, r, train, support, strict=True)]
    level = _level_columns(cell)
    return [{"dataset": cell.dataset, "fold": cell.fold, "method": method,
             "aggregate": aggregate, "n_features": k, "learner": learner, **level, **row}
            for method, aggregate in cell.rows for learner in cell.learner_names for row in per]


def _level_columns(cell: Cell) -> dict:
    """The level of a cell's rows: its ``ratio`` (none for Triv), and ``alpha`` at an alpha
    level (the column is written only by an experiment with alphas)."""
    out = {"ratio": None if cell.kind == "triv" else cell.level.ratio}
    return {**out, "alpha": cell.level.alpha} if cell.level.kind == "alpha" else out


def _cell_value(value):
    """A tuned value as the results table holds it: a table (a ``class_weight``) as its JSON
    text, so that a column of ``"balanced"`` and tables has one type."""
    return json.dumps(value, sort_keys=True) if isinstance(value, dict) else value


def run_cell(cell: Cell) -> CellResult:
    """Run one cell; return its rows and timing."""
    loaded = open_fold(cell.fold_ref)
    clock = Clock()
    extra: dict = {}
    labels: list[dict] = []
    if cell.kind == "triv":
        t0 = time.perf_counter()
        measures = _triv(cell, loaded)
        clock.metrics_s = time.perf_counter() - t0
        k = 0
    else:
        choice, val_value = _tune(cell, loaded, clock)
        y, pred, k, pos, scale = _predict(cell, loaded, None, choice, clock)
        t0 = time.perf_counter()
        measures = {m: np.nan if pred is None else MEASURES[m](y, pred, scale, pos)
                    for m in cell.measures}
        if cell.multilabel and pred is not None:
            labels = _label_rows(cell, loaded, k, y, pred)
        clock.metrics_s = time.perf_counter() - t0
        if cell.tuning:
            extra = {key: _cell_value(choice.get(key)) for key, _ in cell.tuning.grid}
            extra[f"val_{cell.measures[0]}"] = val_value
    level = _level_columns(cell)
    rows = [{"dataset": cell.dataset, "fold": cell.fold, "method": method,
             "aggregate": aggregate, "n_features": k, "learner": learner, "metric": m,
             "value": v, **level, **extra}
            for method, aggregate in cell.rows for learner in cell.learner_names
            for m, v in measures.items()]
    return CellResult(cell.name, rows, {**asdict(clock), "n_used": k}, labels)
