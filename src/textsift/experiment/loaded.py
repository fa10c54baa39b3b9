"""A fold as its trials use it: loaded once per process (:func:`open_fold`), and what its trials
derive from it, each computed once (:class:`LoadedFold`): the validation part of tuning, the
binary counts of one-vs-rest tasks, the rankings of the selections to the experiment's largest
level (a smaller level is a prefix), each label's own terms (scope ``"local"``), the terms that
pass an alpha level, and on fold 0 what the report shows of the scores its trials computed.

The ranking is the one a :class:`~textsift.selection.selectors.TermSelector` keeps -- the method's
scores
of the fold's :class:`~textsift.counting.counts.Counts` (nothing is re-counted) under the policy
(:func:`textsift.selection.ranking.ranking_of`). Taking a prefix is exact for every policy: top-k
is a
prefix of the order, and a round robin stopped after ``k`` picks is the prefix of a longer one
(:func:`textsift.selection.policies.round_robin`). At an alpha level the terms kept are those whose
p-value adjusted by the experiment's correction over its family passes alpha
(:func:`textsift.evidence.significant.passes`, the rule of
:func:`~textsift.evidence.significant.significant_terms`
and ``TermSelector(alpha=...)``), from adjusted p-values computed once for all the alphas
(:meth:`LoadedFold.passing`).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from ..counting.counts import Counts
from ..evidence.significant import passing_scores, passing_terms
from ..evidence.terms import best_classes
from ..labels import Labels, evaluated_labels
from ..scores import compute, pvalues
from ..selection.policies import Ranking
from ..selection.ranking import class_terms, default_aggregate, ranking_of
from ._keys import ConfigError
from ._methods import resolve_method
from .folds import load_fold
from .specs import FoldRef, TrainTest, Trial

__all__ = ["CLASS_TOP", "REPORT_TOP", "FoldTerms", "LoadedFold", "keep_open", "open_fold"]


#: How many terms the report shows of each selection's ranking, and of each class (fold 0).
REPORT_TOP, CLASS_TOP = 20, 10


# ------------------------------------------------------------ what a fold's trials derive
# One cache (:class:`_Derived`), its values under typed keys: a key's type says what its value
# is, and two kinds of values never share a key (frozen dataclasses compare their type).
@dataclass(frozen=True)
class _Part:
    """-> the fold (``holdout`` None) or its validation split (``(val_size, seed)``)."""

    holdout: tuple | None


@dataclass(frozen=True)
class _TaskCounts:
    """-> the counts of a part's training set, of the binary task ``positive`` if any."""

    holdout: tuple | None
    positive: object


@dataclass(frozen=True)
class _Ranked:
    """-> a selection's ranking on a part (what it depends on besides its fold)."""

    holdout: tuple | None
    positive: object
    method: str
    aggregate: str | None
    scope: str
    class_label: object
    rr_variant: str | None
    params: tuple

    @classmethod
    def of(cls, holdout, trial: Trial, params: tuple) -> _Ranked:
        return cls(holdout, trial.positive, trial.method, trial.aggregate, trial.scope,
                   trial.class_label, trial.rr_variant, params)


@dataclass(frozen=True)
class _LabelRanked:
    """-> scope "local": each label's own ranking (label index -> its terms)."""

    ranked: _Ranked


@dataclass(frozen=True)
class _Columns:
    """-> the part's training and test matrices at a selection's columns (one kept: the
    learners of one level share it)."""

    ranked: _Ranked
    level: tuple
    k: int | None


@dataclass(frozen=True)
class _Learned:
    """-> the labels a part's learners fit and are measured on (a task, or a label set's
    columns), as codes: ``(train, test, positive code, names)``."""

    holdout: tuple | None
    positive: object
    label_set: str | None


@dataclass(frozen=True)
class _LabelColumns:
    """-> the labels a trial of label sets learns and measures."""

    label_set: str


@dataclass(frozen=True)
class _Tested:
    """-> ``(adjusted p-values, scores)`` of a part and task, for every alpha level."""

    holdout: tuple | None
    positive: object
    method: str
    params: tuple
    correction: str | None
    family: str | None


@dataclass(frozen=True)
class _Passing:
    """-> the terms that pass an alpha level (a list per label in the scope "local")."""

    tested: _Tested
    level: tuple
    scope: str
    class_label: object
    label_set: str | None


@dataclass(frozen=True)
class _ReportTerms:
    """-> what the report shows of a method's scores on the fold (:class:`FoldTerms`)."""

    method: str
    params: tuple
    policy: str
    rr_variant: str | None


class _Derived:
    """What a fold's trials derive from it, each value computed once and kept under its
    typed key (the classes above)."""

    def __init__(self):
        self._values: dict = {}

    def get(self, key, make):
        """The value of ``key``, made by ``make()`` the first time it is asked for."""
        if key not in self._values:
            self._values[key] = make()
        return self._values[key]

    def peek(self, key):
        """The value of ``key`` if it was made, else None."""
        return self._values.get(key)

    def put(self, key, value, alone: bool = False):
        """Keep ``value`` under ``key`` (``alone``: dropping the values of other keys of its
        type first); return it."""
        if alone:
            for old in [k for k in self._values if type(k) is type(key)]:
                del self._values[old]
        self._values[key] = value
        return value


@dataclass(frozen=True, eq=False)
class FoldTerms:
    """What the report shows of a method's scores on a fold: its ranking under a policy
    (``index``, ``scores``: the first :data:`REPORT_TOP` terms) and each class's terms
    (``classes``: :func:`textsift.selection.ranking.class_terms`); ``best``, the class of
    each ranked term's best score (:func:`textsift.evidence.terms.best_classes`; ``None`` for
    each term of a table of one column), whose evidence the report shows."""

    index: np.ndarray
    scores: np.ndarray
    classes: pd.DataFrame
    best: np.ndarray


class LoadedFold:
    """A loaded fold (``data``) and what its trials derive from it, each computed once and kept
    as long as the fold is: the validation split of tuning, the binary counts of one-vs-rest
    tasks, the rankings, and the columns of the last number of terms asked for (which the
    learners of one level share). A *holdout* names the part: ``None`` for the fold itself,
    ``(val_size, seed)`` for its validation split.

    The fold whose terms the report shows (``hand_on``: fold 0, opened by the runner) also
    keeps, for each method and policy it scores the multi-class task of its training part
    with, what the report shows of those scores (:meth:`report_terms`), taken from the scores
    the trial computed."""

    def __init__(self, data: TrainTest, hand_on: bool = False):
        self.data = data
        self.hand_on = hand_on
        self._derived = _Derived()

    def part(self, holdout) -> TrainTest:
        """The fold, or the fit part of its training set against the validation part."""
        if holdout is None:
            return self.data
        return self._derived.get(_Part(holdout), lambda: _validation(self.data, *holdout))

    def counts(self, holdout, positive) -> Counts:
        """The counts of the part's training set, of the binary task ``positive`` if any."""
        def make():
            counts = self.part(holdout).counts
            return counts if positive is None else counts.one_vs_rest(positive)

        return self._derived.get(_TaskCounts(holdout, positive), make)

    def learned(self, holdout, trial: Trial, make):
        """The labels the part's learners of ``trial``'s task fit and are measured on,
        ``make()`` once per part and task (every trial of a task shares them)."""
        return self._derived.get(_Learned(holdout, trial.positive,
                                          trial.label_set if trial.multilabel else None), make)

    def _scores(self, holdout, trial: Trial, params: tuple, positive=None):
        """The scores of the part's counts (of the task ``positive``) under the trial's method
        (the sparse form of a per-class table: :func:`textsift.scores.compute`)."""
        return compute(self.counts(holdout, positive), resolve_method(trial.method),
                       dense=False, **dict(params))

    def _hands_on(self, holdout, positive) -> bool:
        """Whether scores of this part and task are the ones the report shows."""
        return self.hand_on and holdout is None and positive is None

    def ranking(self, holdout, trial: Trial, params: tuple, limit: int) -> Ranking:
        """The ranking of the trial's selection (its method, policy or class column, round-
        robin rule and task, with the method's ``params``) on the part, to at least ``limit``
        terms: the whole vocabulary, or for a round robin its first ``limit`` (a round robin
        stopped after ``k`` picks is the prefix of a longer one:
        :func:`textsift.selection.policies.round_robin`). Computed once per ranking, to the trial's
        largest level."""
        key = _Ranked.of(holdout, trial, params)
        found = self._derived.peek(key)
        if found is None or len(found.index) < min(limit, self.part(holdout).n_terms):
            policy = trial.aggregate or default_aggregate(resolve_method(trial.method))
            table = self._scores(holdout, trial, params, trial.positive)
            top = limit if policy == "rr" and trial.class_label is None else None
            found = self._derived.put(key, ranking_of(table, policy, trial.class_label,
                                                      trial.rr_variant, limit=top))
            if self._hands_on(holdout, trial.positive):
                self._keep_terms(table, trial.method, params, policy, trial.rr_variant,
                                 None if trial.class_label is not None else found)
        return found

    def kept(self, holdout, trial: Trial, params: tuple, k: int) -> np.ndarray:
        """The columns of the first ``k`` terms of the trial's ranking (:meth:`ranking`), in
        column order."""
        counts = self.counts(holdout, trial.positive)
        longest = trial.max_level.k(int(counts.seen.sum()), counts.n_terms)
        return np.sort(self.ranking(holdout, trial, params, max(longest, k)).index[:k])

    def label_columns(self, label_set: str) -> np.ndarray:
        """The labels a trial of label sets learns and measures (``label_set``,
        :func:`~textsift.labels.evaluated_labels` on the fold's training and test parts), as
        indices of its classes: the same in the fold and in its validation split."""
        def make():
            cols = evaluated_labels(self.data.y_train, self.data.y_test, label_set)
            if not len(cols):
                raise ConfigError(
                    "no label has a document in both the training and the test part of a fold "
                    "([evaluation] label_set = 'train_and_test'); check the split, or set "
                    "label_set = 'all'")
            return cols

        return self._derived.get(_LabelColumns(label_set), make)

    def kept_by_label(self, holdout, trial: Trial, params: tuple, k: int) -> list[np.ndarray]:
        """Scope "local": for each label of :meth:`label_columns`, the columns of the first
        ``k`` terms of its own column of the scores (its one-vs-rest scores, the ranking
        ``TermSelector(class_label=...)`` gives), in column order; none for a label without
        training documents (its learner is the constant "no"). The table is scored once and
        each column ranked once, to the trial's largest level."""
        def make() -> dict:
            counts = self.counts(holdout, None)
            longest = trial.max_level.k(int(counts.seen.sum()), counts.n_terms)
            table = self._scores(holdout, trial, params)
            if self._hands_on(holdout, None):
                self._keep_terms(table, trial.method, params,
                                 default_aggregate(resolve_method(trial.method)), trial.rr_variant)
            labels = self.label_columns(trial.label_set)
            if len(table.groups) == 1:  # a score of the term alone: one list for all
                one = ranking_of(table, "max", None, trial.rr_variant, limit=longest).index
                return dict.fromkeys(labels, one)
            return _own_terms(table, counts.classes, labels, longest)

        ranked = self._derived.get(_LabelRanked(_Ranked.of(holdout, trial, params)), make)
        return [np.sort(ranked[j][:k]) if j in ranked else np.zeros(0, np.intp)
                for j in self.label_columns(trial.label_set)]

    def columns(self, holdout, trial: Trial, params: tuple, k: int):
        """The part's training and test matrices restricted to :meth:`kept` columns (at an
        alpha level, :meth:`passing`'s)."""
        key = _Columns(_Ranked.of(holdout, trial, params), trial.level, k)
        found = self._derived.peek(key)
        if found is None:
            p = self.part(holdout)
            idx = (self.passing(holdout, trial, params) if trial.level.kind == "alpha" else
                   self.kept(holdout, trial, params, k))
            found = self._derived.put(key, (p.X_train[:, idx], p.X_test[:, idx]), alone=True)
        return found

    def passing(self, holdout, trial: Trial, params: tuple):
        """At the trial's alpha level: the columns whose adjusted p-value passes it in any
        class (``class_label``'s column only, when the trial has one), in column order; in the
        scope ``"local"`` a list, for each label of :meth:`label_columns`, of the columns
        passing in its own column (none for a label without one: no training documents).
        From :func:`textsift.evidence.significant.passing_scores` (sparse for the 2 x 2 tests: no
        (V, m) table for thousands of labels), the adjusted p-values and the scores computed once
        per part, task, method and parameters for every alpha, each alpha's terms once for
        its learners."""
        counts, method = self.counts(holdout, trial.positive), resolve_method(trial.method)
        tested = _Tested(holdout, trial.positive, trial.method, params, trial.correction,
                         trial.family)
        adjusted, scores = self._derived.get(tested, lambda: (
            pvalues(counts, method, **dict(params)).adjusted(trial.correction, trial.family,
                                                             dense=False),
            self._scores(holdout, trial, params, trial.positive)))

        def make():  # the learners of one level share it
            table = passing_scores(counts, method, trial.level.alpha, trial.correction,
                                   trial.family, class_label=trial.class_label,
                                   adjusted=adjusted, scores=scores, **dict(params))
            return (_kept(table) if trial.scope != "local" else
                    self._kept_by_label(table, counts, adjusted.groups, trial.label_set))

        return self._derived.get(_Passing(tested, trial.level, trial.scope, trial.class_label,
                                          trial.label_set), make)

    def _kept_by_label(self, table, counts: Counts, groups, label_set: str) -> list:
        """Scope "local" at an alpha level: each label's passing terms (:meth:`passing`)."""
        labels = self.label_columns(label_set)
        groups = np.asarray(groups).tolist()
        if len(groups) == 1:  # a test of the term alone: one list for all
            return [_kept(table)] * len(labels)
        at = {g: j for j, g in enumerate(groups)}
        return [_kept(table, at[c]) if c in at else np.zeros(0, np.intp)
                for c in counts.classes[labels].tolist()]

    def report_terms(self, method: str, params: tuple, policy: str, rr_variant: str
                     ) -> FoldTerms:
        """What the report shows of ``method``'s scores on the fold's training part under
        ``policy`` (:class:`FoldTerms`): kept when a trial scored them, computed otherwise."""
        key = _ReportTerms(method, params, policy, rr_variant)
        if self._derived.peek(key) is None:
            table = compute(self.data.counts, resolve_method(method), dense=False,
                            **dict(params))
            self._keep_terms(table, method, params, policy, rr_variant)
        return self._derived.peek(key)

    def _keep_terms(self, table, method: str, params: tuple, policy: str, rr_variant: str,
                    ranked: Ranking | None = None) -> None:
        """Keep what the report shows of the multi-class scores ``table`` of the fold's
        training part under ``policy`` (label sets: the terms of each label with training
        documents), reading ``ranked``, their ranking under it, when it has enough terms."""
        key = _ReportTerms(method, params, policy, rr_variant)
        if self._derived.peek(key) is not None:
            return
        counts = self.data.counts
        if ranked is None or len(ranked.index) < min(REPORT_TOP, counts.n_terms):
            ranked = ranking_of(table, policy, None, rr_variant, limit=REPORT_TOP)
        full = len(ranked.index) == counts.n_terms  # the whole order: the classes' cut reads it
        classes = class_terms(counts.with_documents if counts.multilabel else counts,
                              resolve_method(method), policy, CLASS_TOP, table=table,
                              order=ranked.index if full else None)
        index = ranked.index[:REPORT_TOP]
        best = (best_classes(table, index) if len(table.groups) > 1 else
                np.full(len(index), None, dtype=object))
        self._derived.put(key, FoldTerms(index, ranked.scores[:REPORT_TOP], classes, best))


def _kept(table, j: int | None = None) -> np.ndarray:
    """The terms with a cell above ``-inf`` in
    :func:`~textsift.evidence.significant.passing_scores`' table (sparse or dense): in any column
    (:func:`~textsift.evidence.significant.passing_terms`), or in column ``j``."""
    if j is None:
        return passing_terms(table)
    return np.flatnonzero(table.column(j) > -np.inf)


def _own_terms(table, classes: np.ndarray, labels: np.ndarray, k: int) -> dict:
    """Label ``j``'s (of ``labels``, indices of ``classes``) first ``k`` terms by its own
    column of ``table``: from its non-zero cells (:func:`textsift.selection.classwise.top_many`),
    for
    the labels with a column (those with documents)."""
    groups = np.asarray(table.groups)
    labels = np.asarray(labels)
    at = np.minimum(np.searchsorted(groups, classes[labels]), len(groups) - 1)  # a subset
    scored = groups[at] == classes[labels]
    best = [index for index, _ in table.top_many(at[scored], k)]
    return dict(zip(labels[scored].tolist(), best, strict=True))


#: The folds a process has open (:func:`open_fold`): at most two, the last used last.
_OPEN: OrderedDict = OrderedDict()


def open_fold(ref: FoldRef) -> LoadedFold:
    """The fold ``ref`` names, read from its cache file once per process (a worker runs a
    fold's trials one after another: see :func:`~.plan.plan_trials`), or the one the runner
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
