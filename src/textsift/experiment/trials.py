"""One trial of an experiment (see :mod:`.plan`): select, fit, measure -- with its tuning.

:func:`run_trial` opens the trial's fold once (:func:`~.loaded.open_fold`: the cached matrices
and counts, read once per process, or the fold the runner keeps open) and hands it down. A
``select`` trial keeps the first ``k`` terms of the fold's ranking of its selection
(:meth:`LoadedFold.ranking <.loaded.LoadedFold.ranking>`, shared by the trials of a ranking),
or at an alpha level the terms that pass it (:meth:`LoadedFold.passing
<.loaded.LoadedFold.passing>`), fits the learner on those columns of the training matrix and
measures its test predictions. Where no term passes an alpha, no learner is fitted: the
trial's values are NaN, with ``n_features`` 0, and the run says so in a note. An ``all`` trial
fits on every column; a ``triv`` trial predicts the trivial answer.

Label sets (a multilabel task) learn one binary learner per label of the trial's label set
(:func:`textsift.labels.evaluated_labels`), on the 0/1 indicator columns of those labels, and
measure the predicted indicators: under a policy (scope "global") every label's learner reads
the same columns (scikit-learn's ``OneVsRestClassifier``); in the scope ``"local"`` each
label's reads its own terms (:meth:`LoadedFold.kept_by_label
<.loaded.LoadedFold.kept_by_label>`, :class:`~textsift.learners.PerLabelClassifier`; at an
alpha level, a label with none answers its training majority). Such a trial also gives each
label's F1 (``TrialResult.labels``). Their Triv is the most frequent training label set.

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
from .specs import TrainTest, Trial

__all__ = ["TrialResult", "run_trial"]


@dataclass
class Clock:
    """Seconds a trial spends selecting, learning (wall and CPU) and measuring, and the
    learners' convergence warnings: the trial's ``timing``, not part of the results."""

    select_s: float = 0.0
    learner_s: float = 0.0
    metrics_s: float = 0.0
    learner_cpu_s: float = 0.0
    convergence_warnings: int = 0


@dataclass(frozen=True)
class TrialResult:
    """A finished trial: its file name, its rows of the results table and its timing; for
    label sets, ``labels``: a row per (results row, learner, label) with the label's F1,
    precision and recall and its training and test documents."""

    name: str
    rows: list[dict]
    timing: dict
    labels: list[dict] = field(default_factory=list)


def _labels(trial: Trial, loaded: LoadedFold, p: TrainTest):
    if trial.multilabel:  # dense 0/1 indicators of the trial's labels (documents x labels)
        cols = loaded.label_columns(trial.label_set)
        return p.y_train[:, cols].toarray(), p.y_test[:, cols].toarray()
    if trial.positive is None:
        return p.y_train, p.y_test
    return binary_labels(p.y_train, trial.positive), binary_labels(p.y_test, trial.positive)


def _coded(trial: Trial, loaded: LoadedFold, p: TrainTest):
    """``(y_train, y_test, positive, names)``: the part's labels of the trial's task, nominal
    ones as integer codes (``names[code]``; ``positive`` the code of ``"pos"``), ordinal ranks
    as the numbers they are (``names`` None); read-only."""
    y_train, y_test = _labels(trial, loaded, p)
    pos, names = "pos", None
    if y_train.dtype.kind == "U":
        y_train, y_test, names = encode(y_train, y_test)
        pos = int(np.searchsorted(names, "pos"))
    for y in (y_train, y_test):  # shared by the task's trials: no learner may change them
        y.flags.writeable = False
    return y_train, y_test, pos, names


def _predict(trial: Trial, loaded: LoadedFold, holdout, choice: dict, clock: Clock):
    """Fit the trial's learner on its terms of the part ``holdout`` with the parameters
    ``choice``; return ``(y_true, prediction, terms used, positive label, scale)`` -- the
    prediction ``None`` where no term passes an alpha level (nothing to fit)."""
    t0 = time.perf_counter()
    p = loaded.part(holdout)
    own = set(trial.tuning.method_params) if trial.tuning else set()
    per_label = None
    if trial.kind == "all":
        X_train, X_test, k = p.X_train, p.X_test, p.n_terms
    else:
        k = trial.level.k(int(p.counts.seen.sum()), p.counts.n_terms)
        params = tuple(sorted({**dict(trial.params), **{key: choice[key] for key in own}}.items()))
        alpha = trial.level.kind == "alpha"
        if trial.scope == "local":  # each label's learner on its own columns
            X_train, X_test = p.X_train, p.X_test
            per_label = (loaded.passing(holdout, trial, params) if alpha else
                         loaded.kept_by_label(holdout, trial, params, k))
            used = [len(c) for c in per_label]
        else:
            X_train, X_test = loaded.columns(holdout, trial, params, k)
            used = [X_train.shape[1]]
        if alpha:  # as many as pass: the terms each learner reads, on average (scope local)
            k = round(float(np.mean(used)))
            if not any(used):
                return _labels(trial, loaded, p)[1], None, 0, "pos", None
    y_train, y_test, pos, names = loaded.learned(holdout, trial, lambda: _coded(trial, loaded, p))
    scale = list(p.counts.classes) if trial.label_kind.ranks else None
    if trial.learner.threshold is not None:  # tuned on the validation part tuning uses
        choice = {**choice, "val_size": (trial.tuning.val_size if trial.tuning else
                                         default("tuning", "val_size"))}
    learner = trial.learner.pipeline(trial.seed, scale, names, multilabel=trial.multilabel,
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


def _tune(trial: Trial, loaded: LoadedFold, clock: Clock) -> tuple[dict, float | None]:
    """The grid point with the best first measure on the validation part."""
    if not trial.tuning:
        return {}, None
    measure, holdout = MEASURES[trial.measures[0]], (trial.tuning.val_size, trial.seed)
    grid, values = trial.tuning.points(), []
    for choice in grid:
        y, pred, _, pos, scale = _predict(trial, loaded, holdout, choice, clock)
        values.append(np.nan if pred is None else measure(y, pred, scale, pos))
    if np.isnan(values).all():  # no term passes alpha on the fit part, whatever the choice
        return grid[0], None
    best = int(np.nanargmin(values) if measure.lower_is_better else np.nanargmax(values))
    return grid[best], values[best]


def _triv(trial: Trial, loaded: LoadedFold) -> dict:
    """Measures of the trivial predictor on the fold's test part."""
    p = loaded.data
    y_train, y_test = _labels(trial, loaded, p)
    scale = list(p.counts.classes) if trial.label_kind.ranks else None
    answer = trivial_prediction(y_train, scale)
    pos = "pos"
    if y_train.dtype.kind == "U":
        y_train, y_test, names = encode(y_train, y_test)
        answer, pos = np.searchsorted(names, answer), int(np.searchsorted(names, "pos"))
    pred = np.tile(answer, (len(y_test), 1)) if trial.multilabel else np.full(len(y_test), answer)
    return {m: MEASURES[m](y_test, pred, scale, pos) for m in trial.measures}


def _label_rows(trial: Trial, loaded: LoadedFold, k: int, y_test, pred) -> list[dict]:
    """Each label's F1, precision and recall (scikit-learn's, 0 where undefined, as the
    macro average takes them) and its training and test documents, per row of the trial."""
    cols = loaded.label_columns(trial.label_set)
    p, r, f, support = precision_recall_fscore_support(y_test, pred, average=None,
                                                       zero_division=0)
    names = loaded.data.counts.classes[cols]
    train = loaded.data.counts.class_sizes[cols]
    per = [{"label": str(c), "f1": float(fv), "precision": float(pv), "recall": float(rv),
            "train": int(n), "test": int(s)}
           for c, fv, pv, rv, n, s in zip(names, f, p, r, train, support, strict=True)]
    level = _level_columns(trial)
    return [{"dataset": trial.dataset, "fold": trial.fold, "method": method,
             "aggregate": aggregate, "n_features": k, "learner": learner, **level, **row}
            for method, aggregate in trial.rows for learner in trial.learner_names for row in per]


def _level_columns(trial: Trial) -> dict:
    """The level of a trial's rows: its ``ratio`` (none for Triv), and ``alpha`` at an alpha
    level (the column is written only by an experiment with alphas)."""
    out = {"ratio": None if trial.kind == "triv" else trial.level.ratio}
    return {**out, "alpha": trial.level.alpha} if trial.level.kind == "alpha" else out


def _trial_value(value):
    """A tuned value as the results table holds it: a table (a ``class_weight``) as its JSON
    text, so that a column of ``"balanced"`` and tables has one type."""
    return json.dumps(value, sort_keys=True) if isinstance(value, dict) else value


def run_trial(trial: Trial) -> TrialResult:
    """Run one trial; return its rows and timing."""
    loaded = open_fold(trial.fold_ref)
    clock = Clock()
    extra: dict = {}
    labels: list[dict] = []
    if trial.kind == "triv":
        t0 = time.perf_counter()
        measures = _triv(trial, loaded)
        clock.metrics_s = time.perf_counter() - t0
        k = 0
    else:
        choice, val_value = _tune(trial, loaded, clock)
        y, pred, k, pos, scale = _predict(trial, loaded, None, choice, clock)
        t0 = time.perf_counter()
        measures = {m: np.nan if pred is None else MEASURES[m](y, pred, scale, pos)
                    for m in trial.measures}
        if trial.multilabel and pred is not None:
            labels = _label_rows(trial, loaded, k, y, pred)
        clock.metrics_s = time.perf_counter() - t0
        if trial.tuning:
            extra = {key: _trial_value(choice.get(key)) for key, _ in trial.tuning.grid}
            extra[f"val_{trial.measures[0]}"] = val_value
    level = _level_columns(trial)
    rows = [{"dataset": trial.dataset, "fold": trial.fold, "method": method,
             "aggregate": aggregate, "n_features": k, "learner": learner, "metric": m,
             "value": v, **level, **extra}
            for method, aggregate in trial.rows for learner in trial.learner_names
            for m, v in measures.items()]
    return TrialResult(trial.name, rows, {**asdict(clock), "n_used": k}, labels)
