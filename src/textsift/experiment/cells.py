"""One cell of an experiment (see :mod:`.plan`): select, fit, measure -- with its tuning.

:func:`run_cell` opens the cell's fold once (:func:`open_fold`: the cached matrices and counts,
read once per process, or the fold the runner keeps open) and hands it down. A ``select``
cell keeps the first ``k`` terms of the fold's ranking of its selection, fits the learner on
those columns of the training matrix and measures its test predictions. The ranking is the one
a :class:`~textsift.selectors.TermSelector` keeps -- the method's scores of the fold's
:class:`~textsift.counts.Counts` (nothing is re-counted) under the policy
(:func:`textsift.ranking.ranking_of`) -- computed to the experiment's largest level, once per
fold and process (:meth:`LoadedFold.ranking`): the cells of a ranking share it, and on fold 0
the report's terms are taken from the same scores. Taking a prefix is exact for
every policy: top-k is a prefix of the order, and a round robin stopped after ``k`` picks is
the prefix of a longer one (:func:`textsift.policies.round_robin`). An ``all`` cell fits on
every column; a ``triv`` cell predicts the trivial answer.

Label sets (a multilabel task) learn one binary learner per label of the cell's label set
(:func:`textsift.labels.evaluated_labels`), on the 0/1 indicator columns of those labels, and
measure the predicted indicators: under a policy (scope "global") every label's learner reads
the same columns (scikit-learn's ``OneVsRestClassifier``); in the scope ``"local"`` each
label's reads the first ``k`` terms of its own column of the scores
(:meth:`LoadedFold.kept_by_label`, :class:`~textsift.learners.PerLabelClassifier`). Such a
cell also gives each label's F1 (``CellResult.labels``). Their Triv is the most frequent
training label set.

At an alpha level (``[selection] alphas``) a ``select`` cell keeps, instead of a prefix of a
ranking, the terms whose p-value adjusted by the experiment's correction over its family passes
alpha in any class (:func:`textsift.evidence.passes`, the rule of
:func:`~textsift.evidence.significant_terms` and ``TermSelector(alpha=...)``), two-sided; in the
scope ``"local"`` each label's own passing terms, a label with none answering its training
majority (:class:`~textsift.learners.PerLabelClassifier`). The adjusted p-values of a part are
computed once for all its alphas (:meth:`LoadedFold.passing`). Where no term passes, no learner
is fitted: the cell's values are NaN, with ``n_features`` 0, and the run says so in a note.

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
from collections import OrderedDict
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import precision_recall_fscore_support
from sklearn.model_selection import train_test_split

from ..classwise import top_many
from ..counts import Counts
from ..evidence import adjusted_pvalues, passes
from ..labels import Labels, evaluated_labels
from ..metrics import MEASURES
from ..policies import Ranking
from ..ranking import class_terms, default_aggregate, ranking_of
from ..scores import PerClass, compute
from ._keys import ConfigError
from ._methods import resolve_method
from .folds import load_fold
from .learn import binary_labels, encode, trivial_prediction
from .schema import default
from .specs import Cell, FoldRef, TrainTest

__all__ = ["CLASS_TOP", "REPORT_TOP", "CellResult", "FoldTerms", "LoadedFold", "keep_open",
           "open_fold", "run_cell"]


#: How many terms the report shows of each selection's ranking, and of each class (fold 0).
REPORT_TOP, CLASS_TOP = 20, 10


@dataclass(frozen=True, eq=False)
class FoldTerms:
    """What the report shows of a method's scores on a fold: its ranking under a policy
    (``index``, ``scores``: the first :data:`REPORT_TOP` terms) and each class's terms
    (``classes``: :func:`textsift.ranking.class_terms`)."""

    index: np.ndarray
    scores: np.ndarray
    classes: pd.DataFrame


class LoadedFold:
    """A loaded fold (``data``) and what its cells derive from it, each computed once and kept
    as long as the fold is: the validation split of tuning, the binary counts of one-vs-rest
    tasks, the rankings, and the columns of the last number of terms asked for (which the
    learners of one level share). A *holdout* names the part: ``None`` for the fold itself,
    ``(val_size, seed)`` for its validation split.

    The fold whose terms the report shows (``hand_on``: fold 0, opened by the runner) also
    keeps, for each method and policy it scores the multi-class task of its training part
    with, what the report shows of those scores (:meth:`report_terms`), taken from the scores
    the cell computed."""

    def __init__(self, data: TrainTest, hand_on: bool = False):
        self.data = data
        self.hand_on = hand_on
        self._validation: dict = {}
        self._counts: dict = {}
        self._ranked: dict = {}
        self._columns: tuple | None = None
        self._label_columns: dict = {}
        self._terms: dict = {}
        self._q: dict = {}

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

    def _scores(self, holdout, cell: Cell, params: tuple, positive=None):
        """The scores of the part's counts (of the task ``positive``) under the cell's method
        (the sparse form of a per-class table: :func:`textsift.scores.compute`)."""
        return compute(self.counts(holdout, positive), resolve_method(cell.method),
                       dense=False, **dict(params))

    def _hands_on(self, holdout, positive) -> bool:
        """Whether scores of this part and task are the ones the report shows."""
        return self.hand_on and holdout is None and positive is None

    def ranking(self, holdout, cell: Cell, params: tuple, limit: int) -> Ranking:
        """The ranking of the cell's selection (its method, policy or class column, round-
        robin rule and task, with the method's ``params``) on the part, to at least ``limit``
        terms: the whole vocabulary, or for a round robin its first ``limit`` (a round robin
        stopped after ``k`` picks is the prefix of a longer one:
        :func:`textsift.policies.round_robin`). Computed once per ranking, to the cell's
        largest level."""
        key = _ranking(holdout, cell, params)
        found = self._ranked.get(key)
        if found is None or len(found.index) < min(limit, self.part(holdout).n_terms):
            policy = cell.aggregate or default_aggregate(resolve_method(cell.method))
            table = self._scores(holdout, cell, params, cell.positive)
            top = limit if policy == "rr" and cell.class_label is None else None
            found = self._ranked[key] = ranking_of(table, policy, cell.class_label,
                                                   cell.rr_variant, limit=top)
            if self._hands_on(holdout, cell.positive):
                self._keep_terms(table, cell.method, params, policy, cell.rr_variant,
                                 None if cell.class_label is not None else found)
        return found

    def kept(self, holdout, cell: Cell, params: tuple, k: int) -> np.ndarray:
        """The columns of the first ``k`` terms of the cell's ranking (:meth:`ranking`), in
        column order."""
        counts = self.counts(holdout, cell.positive)
        longest = cell.max_level.k(int(counts.seen.sum()), counts.n_terms)
        return np.sort(self.ranking(holdout, cell, params, max(longest, k)).index[:k])

    def label_columns(self, label_set: str) -> np.ndarray:
        """The labels a cell of label sets learns and measures (``label_set``,
        :func:`~textsift.labels.evaluated_labels` on the fold's training and test parts), as
        indices of its classes: the same in the fold and in its validation split."""
        if label_set not in self._label_columns:
            cols = evaluated_labels(self.data.y_train, self.data.y_test, label_set)
            if not len(cols):
                raise ConfigError(
                    "no label has a document in both the training and the test part of a fold "
                    "([evaluation] label_set = 'train_and_test'); check the split, or set "
                    "label_set = 'all'")
            self._label_columns[label_set] = cols
        return self._label_columns[label_set]

    def kept_by_label(self, holdout, cell: Cell, params: tuple, k: int) -> list[np.ndarray]:
        """Scope "local": for each label of :meth:`label_columns`, the columns of the first
        ``k`` terms of its own column of the scores (its one-vs-rest scores, the ranking
        ``TermSelector(class_label=...)`` gives), in column order; none for a label without
        training documents (its learner is the constant "no"). The table is scored once and
        each column ranked once, to the cell's largest level."""
        key = _ranking(holdout, cell, params)
        if key not in self._ranked:
            counts = self.counts(holdout, None)
            longest = cell.max_level.k(int(counts.seen.sum()), counts.n_terms)
            table = self._scores(holdout, cell, params)
            if self._hands_on(holdout, None):
                self._keep_terms(table, cell.method, params,
                                 default_aggregate(resolve_method(cell.method)), cell.rr_variant)
            labels = self.label_columns(cell.label_set)
            if len(table.groups) == 1:  # a score of the term alone: one list for all
                one = ranking_of(table, "max", None, cell.rr_variant, limit=longest).index
                self._ranked[key] = dict.fromkeys(labels, one)
            else:
                self._ranked[key] = _own_terms(table, counts.classes, labels, longest)
        ranked = self._ranked[key]
        return [np.sort(ranked[j][:k]) if j in ranked else np.zeros(0, np.intp)
                for j in self.label_columns(cell.label_set)]

    def columns(self, holdout, cell: Cell, params: tuple, k: int):
        """The part's training and test matrices restricted to :meth:`kept` columns (at an
        alpha level, :meth:`passing`'s)."""
        key = _ranking(holdout, cell, params), cell.level, k
        if self._columns is None or self._columns[0] != key:
            p = self.part(holdout)
            idx = (self.passing(holdout, cell, params) if cell.level.kind == "alpha" else
                   self.kept(holdout, cell, params, k))
            self._columns = key, (p.X_train[:, idx], p.X_test[:, idx])
        return self._columns[1]

    def passing(self, holdout, cell: Cell, params: tuple):
        """At the cell's alpha level: the columns whose adjusted p-value passes it in any
        class (``class_label``'s column only, when the cell has one), in column order; in the
        scope ``"local"`` a list, for each label of :meth:`label_columns`, of the columns
        passing in its own column (none for a label without one: no training documents). The
        adjusted p-values are computed once per part, task, method and parameters."""
        counts = self.counts(holdout, cell.positive)
        key = holdout, cell.positive, cell.method, params, cell.correction, cell.family
        if key not in self._q:
            p, q = adjusted_pvalues(counts, resolve_method(cell.method), cell.correction,
                                    cell.family, **dict(params))
            self._q[key] = np.asarray(p.groups).tolist(), q
        groups, q = self._q[key]
        kept = passes(q, cell.level.alpha, cell.correction)
        if cell.class_label is not None and len(groups) > 1:
            return np.flatnonzero(kept[:, list(map(str, groups)).index(str(cell.class_label))])
        if cell.scope != "local":
            return np.flatnonzero(kept.any(axis=1))
        labels = self.label_columns(cell.label_set)
        if len(groups) == 1:  # a test of the term alone: one list for all
            return [np.flatnonzero(kept[:, 0])] * len(labels)
        at = {g: j for j, g in enumerate(groups)}
        return [np.flatnonzero(kept[:, at[c]]) if c in at else np.zeros(0, np.intp)
                for c in counts.classes[labels].tolist()]

    def report_terms(self, method: str, params: tuple, policy: str, rr_variant: str
                     ) -> FoldTerms:
        """What the report shows of ``method``'s scores on the fold's training part under
        ``policy`` (:class:`FoldTerms`): kept when a cell scored them, computed otherwise."""
        key = method, params, policy, rr_variant
        if key not in self._terms:
            table = compute(self.data.counts, resolve_method(method), dense=False,
                            **dict(params))
            self._keep_terms(table, *key)
        return self._terms[key]

    def _keep_terms(self, table, method: str, params: tuple, policy: str, rr_variant: str,
                    ranked: Ranking | None = None) -> None:
        """Keep what the report shows of the multi-class scores ``table`` of the fold's
        training part under ``policy`` (label sets: the terms of each label with training
        documents), reading ``ranked``, their ranking under it, when it has enough terms."""
        key = method, params, policy, rr_variant
        if key in self._terms:
            return
        counts = self.data.counts
        if ranked is None or len(ranked.index) < min(REPORT_TOP, counts.n_terms):
            ranked = ranking_of(table, policy, None, rr_variant, limit=REPORT_TOP)
        full = len(ranked.index) == counts.n_terms  # the whole order: the classes' cut reads it
        classes = class_terms(counts.with_documents if counts.multilabel else counts,
                              resolve_method(method), policy, CLASS_TOP, table=table,
                              order=ranked.index if full else None)
        self._terms[key] = FoldTerms(ranked.index[:REPORT_TOP], ranked.scores[:REPORT_TOP],
                                     classes)


def _own_terms(table, classes: np.ndarray, labels: np.ndarray, k: int) -> dict:
    """Label ``j``'s (of ``labels``, indices of ``classes``) first ``k`` terms by its own
    column of ``table``: from its non-zero cells (:func:`textsift.classwise.top_many`), for
    the labels with a column (those with documents)."""
    groups = np.asarray(table.groups)
    labels = np.asarray(labels)
    at = np.minimum(np.searchsorted(groups, classes[labels]), len(groups) - 1)  # a subset
    scored = groups[at] == classes[labels]
    if isinstance(table, PerClass):
        best = [index for index, _ in top_many(table, at[scored], k)]
    else:  # a user's scoring function: its dense columns
        best = [ranking_of(table, "max", groups[g], limit=k).index for g in at[scored]]
    return dict(zip(labels[scored].tolist(), best, strict=True))


def _ranking(holdout, cell: Cell, params: tuple) -> tuple:
    """What a ranking depends on, besides its fold."""
    return (holdout, cell.positive, cell.method, cell.aggregate, cell.scope, cell.class_label,
            cell.rr_variant, params)


#: The folds a process has open (:func:`open_fold`): at most two, the last used last.
_OPEN: OrderedDict = OrderedDict()


def open_fold(ref: FoldRef) -> LoadedFold:
    """The fold ``ref`` names, read from its cache file once per process (a worker runs a
    fold's cells one after another: see :func:`~.plan.plan_cells`), or the one the runner
    keeps open (:func:`keep_open`)."""
    if ref in _OPEN:
        _OPEN.move_to_end(ref)
        return _OPEN[ref]
    return keep_open(ref, load_fold(ref))


def keep_open(ref: FoldRef, data: TrainTest, hand_on: bool = False) -> LoadedFold:
    """Keep the fold ``ref`` open in this process as ``data`` (the matrices and counts its
    file holds, e.g. as they were built before being written); return it."""
    _OPEN[ref] = loaded = LoadedFold(data, hand_on)
    _OPEN.move_to_end(ref)
    while len(_OPEN) > 2:
        _OPEN.popitem(last=False)
    return loaded


open_fold.cache_clear = _OPEN.clear


def _validation(d: TrainTest, val_size: float, seed: int) -> TrainTest:
    """The fit and validation parts of a fold's training part (label sets: not stratified,
    as their folds, :mod:`.folds`)."""
    label_sets = d.counts.multilabel
    try:
        fit, val = train_test_split(np.arange(d.y_train.shape[0]), test_size=val_size,
                                    stratify=None if label_sets else d.y_train,
                                    random_state=seed)
    except ValueError as exc:
        raise ConfigError(f"cannot hold out a stratified validation part of {val_size:g} "
                          f"([tuning] val_size): {exc}") from None
    X_fit = d.X_train[fit]
    y_fit = Labels(d.counts.classes, matrix=d.y_train[fit]) if label_sets else d.y_train[fit]
    counts = Counts.from_matrix(X_fit, y_fit, classes=None if label_sets else d.counts.classes,
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
    y_train, y_test, pos = *_labels(cell, loaded, p), "pos"
    names = None
    if y_train.dtype.kind == "U":  # nominal labels (ordinal ranks stay the numbers they are)
        y_train, y_test, names = encode(y_train, y_test)
        pos = int(np.searchsorted(names, "pos"))
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
