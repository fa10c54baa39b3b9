"""The value types of an experiment: what a file is read into (:class:`Experiment` and its
parts, built by :func:`~textsift.experiment.parse_config`), and what the runner hands from
stage to stage (:class:`Level`, :class:`FoldRef`, :class:`TrainTest`, :class:`Trial`).

Frozen dataclasses without defaults of their own: a key's default is the schema's
(:mod:`.schema`), which the parser writes into every field.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from dataclasses import asdict, dataclass, field, fields, replace
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ..counting.counts import Counts
from ..errors import TextsiftError
from ..labels import LabelKind
from ..learners import LEARNERS, PER_LABEL_KEYS, STRATEGY_KEYS, make_learner
from ..selection.policies import n_from_ratio
from ..text.vectorize import VectorizerOptions

__all__ = ["Trial", "TrialTuning", "CorpusSpec", "Experiment", "FoldRef", "LearnerSpec", "Level",
           "TrainTest", "Tuning"]


# --------------------------------------------------------------------------- the file
@dataclass(frozen=True)
class CorpusSpec:
    """``[corpus]``: where the documents are and what their fields mean. ``table`` is a
    table in memory given as ``path`` from Python (a pandas or Polars DataFrame, a Hugging
    Face ``Dataset``: ``textsift.reading.corpus.is_table``), read instead of ``paths``;
    ``experiment.json`` says ``"table": "in memory"`` for it (its content is in the data key,
    :class:`~.validity.DataKey`), and an experiment of files has no such key."""

    dataset: str
    paths: tuple[str, ...]
    sample: str | None
    test_path: str | None
    text_field: str
    label_field: str
    split_field: str
    train_split: str
    test_split: str
    label_kind: LabelKind
    ranks: tuple[int, ...] | None
    skip_bad_lines: bool
    strip_labels: bool
    label_sep: str | None
    encoding: str | None
    sep: str | None
    table: object = field(compare=False, repr=False)


#: What ``experiment.json`` says of a corpus read from a table in memory.
IN_MEMORY = "in memory"


@dataclass(frozen=True)
class LearnerSpec:
    """One ``[[learners]]`` table: a registered learner (:data:`textsift.learners.LEARNERS`),
    its name in the results, its input weighting and the parameters the file fixes."""

    name: str
    label: str
    weighting: str
    params: tuple[tuple[str, object], ...]

    @property
    def threshold(self) -> str | None:
        """A strategy of :data:`textsift.learners.STRATEGIES` (``"scut"``, ``"rcut"``, ...)
        or None: how its labels are decided (label sets)."""
        return dict(self.params).get("threshold")

    @property
    def per_label(self) -> tuple[str, ...]:
        """The keys of each label's own choices on inner folds it is given (``label_ratios``,
        ``label_C``, ``label_method``: :data:`textsift.learners.PER_LABEL_KEYS`)."""
        return tuple(k for k in PER_LABEL_KEYS if k in dict(self.params))

    @property
    def tunable(self) -> tuple[str, ...]:
        """The keys ``[tuning]`` may try for it: the learner's own
        (:attr:`~textsift.learners.Learner.keys`) and those of its threshold
        (:data:`textsift.learners.STRATEGY_KEYS`)."""
        return (*LEARNERS[self.name].keys, *STRATEGY_KEYS.get(self.threshold, ()))

    def pipeline(self, seed: int, ranks=None, classes=None, *, multilabel: bool = False,
                 columns=None, **params):
        """The weighting and the estimator, with the file's parameters, then ``params`` (the
        values a tuning grid chose); ``classes`` names the codes of the labels it is fitted
        on (a ``class_weight`` table names classes: :meth:`~textsift.learners.Learner.build`);
        for label sets one estimator per label, on ``columns`` when each label has its own,
        its labels decided by Yang's thresholds when the file asks for them (``threshold``:
        :func:`~textsift.learners.make_learner`)."""
        return make_learner(self.name, self.weighting, seed, ranks, classes,
                            multilabel=multilabel, columns=columns,
                            **{**dict(self.params), **params})


@dataclass(frozen=True)
class Tuning:
    """Parameters chosen on a validation part: ``val_size`` of each fold's training set
    (stratified) is held out, every combination of ``grids`` is tried there, the first measure
    decides (ties: the first in grid order), then terms are re-selected and the learner refit
    on the whole training set with the chosen values."""

    val_size: float
    grids: tuple[tuple[str, tuple], ...]


@dataclass(frozen=True)
class Experiment:
    """A validated experiment. ``fingerprint`` identifies its results (``n_jobs`` excluded:
    the table does not depend on it). The levels: ``sizes`` (numbers of terms, or ``"all"``)
    or ``ratios`` (fractions of each fold's training vocabulary), and ``alphas``
    (significance levels of the p-values adjusted by ``correction`` over ``family``); one of
    the three at least.
    ``metrics`` are the evaluation measures (:data:`textsift.learners.metrics.MEASURES`), the first
    deciding the tuning. The fields keep the file's names: ``experiment.json`` and the
    fingerprint are written from them."""

    name: str
    corpus: CorpusSpec
    preprocessing: VectorizerOptions
    methods: tuple[str, ...]
    aggregates: tuple[str, ...]
    sizes: tuple[int | str, ...]
    learners: tuple[LearnerSpec, ...]
    metrics: tuple[str, ...]
    protocol: str
    folds: int
    stratified: bool
    tasks: str
    seed: int
    n_jobs: int
    rr_variant: str
    method_params: tuple[tuple[str, tuple[tuple[str, object], ...]], ...]
    ratios: tuple[float, ...]
    baselines: tuple[str, ...]
    tuning: Tuning | None
    test_size: float | None
    scope: tuple[str, ...]
    label_set: str
    alphas: tuple[float, ...]
    correction: str
    family: str
    source: str = field(compare=False)

    @property
    def kind(self) -> LabelKind:
        """The kind of the labels (``[corpus] label_kind``, as written or, once the labels are read,
        as they make it: :func:`~textsift.labels.decide_kind`)."""
        return LabelKind(self.corpus.label_kind)

    @property
    def n_folds(self) -> int:
        return self.folds if self.protocol == "cv" else 1

    def params_of(self, method: str) -> dict:
        return dict(dict(self.method_params).get(method, ()))

    def as_dict(self) -> dict:
        """The experiment as plain data, every key (``experiment.json`` holds it); a table in
        memory as ``"table": "in memory"`` (:class:`CorpusSpec`)."""
        table = self.corpus.table
        d = asdict(replace(self, corpus=replace(self.corpus, table=None)))
        d.pop("source")
        d["corpus"].pop("table")
        if table is not None:
            d["corpus"]["table"] = IN_MEMORY
        return d

    @classmethod
    def from_dict(cls, d: dict, source: str = "experiment.json") -> Experiment:
        """The experiment :meth:`as_dict` wrote, read back (``experiment.json``'s
        ``config``, whose JSON lists are read as the tuples the fields hold); ``source``
        names the file in errors. A file lacking a key was written by an earlier textsift,
        and is refused with what to do."""
        missing = sorted({f.name for f in fields(cls)} - {"source"} - set(d))
        if missing:
            raise TextsiftError(f"{source} lacks {', '.join(missing)}: it was written by an "
                             "earlier textsift; run the experiment again (textsift run "
                             "CONFIG.toml --out DIR)")
        corpus = {**d["corpus"], "table": d["corpus"].get("table"),
                  "label_kind": LabelKind(d["corpus"]["label_kind"]),
                  "paths": tuple(d["corpus"]["paths"]),
                  "ranks": None if d["corpus"]["ranks"] is None else tuple(d["corpus"]["ranks"])}
        tuning = d["tuning"] and Tuning(d["tuning"]["val_size"],
                                        tuple((k, tuple(v)) for k, v in d["tuning"]["grids"]))
        return cls(**{
            **{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()},
            "corpus": CorpusSpec(**corpus),
            "preprocessing": VectorizerOptions(**d["preprocessing"]),
            "learners": tuple(LearnerSpec(lr["name"], lr["label"], lr["weighting"],
                                          tuple((k, v) for k, v in lr["params"]))
                              for lr in d["learners"]),
            "method_params": tuple((m, tuple((k, v) for k, v in p))
                                   for m, p in d["method_params"]),
            "tuning": tuning or None, "source": source})

    def identity(self) -> dict:
        """``as_dict()`` without ``n_jobs`` (the table does not depend on it): what the
        :attr:`fingerprint` hashes, and what the key of the run's data is taken from
        (:class:`~.validity.DataKey`). The task is the kind as a file declares it
        (:attr:`LabelKind.declared <textsift.labels.LabelKind.declared>`: a nominal file over
        label lists is read as multilabel, and a multilabel one needs them), so the two
        spellings are one experiment."""
        d = self.as_dict()
        d.pop("n_jobs")
        d["corpus"]["label_kind"] = str(self.kind.declared)
        return d

    @property
    def fingerprint(self) -> str:
        """A hash of :meth:`identity`."""
        blob = json.dumps(self.identity(), sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


# --------------------------------------------------------------------------- the run
class Level(NamedTuple):
    """How many terms a trial keeps in each fold: ``Level("n", 300)`` a number of terms (the
    same in every fold), ``Level("ratio", 0.1)`` a fraction of the fold's training vocabulary,
    ``Level("all", None)`` every term of the fold's own vocabulary, whatever the method;
    ``Level("alpha", 0.05)`` the terms whose adjusted p-value passes 0.05 in the fold, as many
    as pass (:func:`textsift.evidence.significant.significant_terms`)."""

    kind: str
    value: int | float | None

    @property
    def name(self) -> str:
        """How the level reads in trial names: ``"all"``, a number of terms, ``r<ratio>`` or
        ``a<alpha>``."""
        kind, value = self
        return ("all" if kind == "all" else str(value) if kind == "n" else
                f"{kind[0]}{value:g}")

    @property
    def ratio(self) -> float | None:
        """The fraction of the vocabulary asked for (the results' ``ratio``): 1 for "all",
        none for a number of terms or an alpha."""
        return 1.0 if self.kind == "all" else self.value if self.kind == "ratio" else None

    @property
    def alpha(self) -> float | None:
        """The significance level asked for (the results' ``alpha``), if the level is one."""
        return self.value if self.kind == "alpha" else None

    def k(self, n_ranked: int, n_terms: int) -> int | None:
        """Terms kept in a part with ``n_ranked`` ranked terms out of ``n_terms`` (``None``:
        every column; an alpha level has no number of its own)."""
        if self.kind in ("all", "alpha"):
            return None
        if self.kind == "ratio":
            return n_from_ratio(self.value, max(n_ranked, 1))
        return min(self.value, n_terms)


#: The level that keeps every term.
ALL = Level("all", None)


@dataclass(frozen=True)
class FoldRef:
    """The identity of a cached fold: its file, and the version of the file (modification
    time and size), so that a file rebuilt under the same name (a directory taken over by
    another experiment) is never mistaken for the one a trial was planned on."""

    path: str
    mtime_ns: int
    size: int

    @classmethod
    def of(cls, path) -> FoldRef:
        st = os.stat(path)
        return cls(str(path), st.st_mtime_ns, st.st_size)


@dataclass(frozen=True, eq=False)
class TrainTest:
    """A learning problem: a training part (matrix, labels and their counts) and the part its
    predictions are scored on -- a fold's test part or, when tuning, the validation part held
    out of the fold's training part (the rest of which is then the training part). The
    labels are one per document, or for label sets 0/1 CSR indicators (documents x the
    corpus's labels, the classes of ``counts``)."""

    X_train: sp.csr_matrix
    y_train: np.ndarray | sp.csr_matrix
    X_test: sp.csr_matrix
    y_test: np.ndarray | sp.csr_matrix
    counts: Counts

    @property
    def n_terms(self) -> int:
        return self.X_train.shape[1]


@dataclass(frozen=True)
class TrialTuning:
    """The tuning of one trial: ``grid`` is (parameter, values) in the order tried, the
    method's parameters (``method_params``) first, then the learner's."""

    val_size: float
    grid: tuple[tuple[str, tuple], ...]
    method_params: tuple[str, ...]

    def points(self) -> list[dict]:
        """Every combination of the grid, in grid order (the last parameter varies fastest)."""
        keys = [key for key, _ in self.grid]
        return [dict(zip(keys, values, strict=True))
                for values in itertools.product(*(v for _, v in self.grid))]


@dataclass(frozen=True)
class Trial:
    """One unit of work of a run (see :mod:`.plan`): small, frozen and cheap to send to a
    worker -- the fold travels as its :class:`FoldRef`.

    ``kind`` is ``"select"`` (keep ``level``'s terms of the ranking of ``method`` -- under
    the policy ``aggregate`` in the ``scope`` ``"global"``, by each label's own column in the
    scope ``"local"``, or by the column of ``class_label`` -- fit ``learner``, measure: the
    fields of a :class:`~.plan.Selection`), ``"all"`` (``learner`` on every term: the rows
    of every method at level "all" and of FFS, one and the same fit) or ``"triv"`` (the
    trivial predictor, a row per learner). ``label_kind`` is the kind of the labels;
    ``positive`` is the positive class of a one-vs-rest task (``None``: the multi-class
    task); ``rows`` the (method, aggregate) pairs and ``learner_names`` the learners' names
    (``[[learners]] label``) its results are written under; ``max_level`` the experiment's
    largest level, to which the ranking is computed (a smaller level is its prefix).
    ``label_set`` is, for label sets, which labels are learned and measured
    (``[evaluation] label_set``; ``None`` for one label per document). At an alpha ``level``
    a ``select`` trial keeps the terms that pass it after ``correction`` over ``family``: in
    any class for the rows of every policy of ``method`` (the same terms pass whatever the
    policy: one fit, as an ``all`` trial's), by each label's own column in the scope
    ``"local"``, or by ``class_label``'s column."""

    kind: str
    name: str
    fold: int
    fold_ref: FoldRef
    dataset: str
    positive: object
    rows: tuple[tuple[str, str], ...]
    learner_names: tuple[str, ...]
    measures: tuple[str, ...]
    seed: int
    label_kind: LabelKind
    learner: LearnerSpec | None = None
    method: str | None = None
    aggregate: str | None = None
    scope: str = "global"
    class_label: str | None = None
    params: tuple[tuple[str, object], ...] = ()
    rr_variant: str | None = None
    level: Level = ALL
    max_level: Level | None = None
    tuning: TrialTuning | None = None
    label_set: str | None = None
    correction: str | None = None
    family: str | None = None

    @property
    def multilabel(self) -> bool:
        return self.label_kind.label_sets
