"""The registry of the learners an experiment may fit (:data:`LEARNERS`), their input
weightings (:data:`WEIGHTINGS`) and the pipeline of a registered learner
(:func:`make_learner`); the package docstring states the rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from numbers import Integral, Real

from sklearn.base import BaseEstimator
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Binarizer
from sklearn.svm import LinearSVC
from sklearn.utils.validation import has_fit_parameter

from ..errors import TextsiftError, lookup
from ..labels import LabelKind
from ._costs import CostSensitiveClassifier
from ._estimators import (
    ClassWeighted,
    OneVsRest,
    PerLabelClassifier,
    RankSVR,
    check_class_weight,
    class_weight_codes,
)
from ._perlabel import LABEL_RATIOS, PerLabelSearchClassifier
from ._thresholds import (
    FIXED,
    STRATEGIES,
    STRATEGY_KEYS,
    FixedThresholdClassifier,
    TunedThresholdClassifier,
)


@dataclass(frozen=True)
class Learner:
    """A registered learner.

    ``factory(seed, ranks, **params)`` builds the estimator: ``seed`` its random state,
    ``ranks`` the rank scale of an ordinal task (``None`` for a nominal one), ``params`` its
    own parameters (the names in ``params``, which an experiment file may set in
    ``[[learners]]`` or tune in ``[tuning]``, with ``class_weight``: :attr:`keys`).
    ``label_kinds`` are the label kinds it serves (:class:`~textsift.labels.LabelKind`: ``nominal``
    classes, ``ordinal`` ranks, ``multilabel`` label sets: a binary classifier, fitted once
    per label) and
    ``weighting`` its default input (a key of :data:`WEIGHTINGS`)."""

    name: str
    factory: Callable[..., BaseEstimator]
    summary: str
    label_kinds: tuple[LabelKind, ...]
    weighting: str
    params: tuple[str, ...]

    def build(self, seed: int = 0, ranks=None, class_weight=None, classes=None,
              **params) -> BaseEstimator:
        """The estimator, unfitted. ``class_weight`` (``None``, ``"balanced"`` or a mapping
        class -> positive weight; :func:`check_class_weight`) weights the classes of a nominal
        learner by the rule of the module docstring: the estimator's own ``class_weight``
        where it has one, else sample weights in ``fit`` (:class:`ClassWeighted`). ``classes``
        names the integer codes the estimator is fitted on (``classes[code]``): a mapping
        keyed by class names is re-keyed to those codes."""
        estimator = self.factory(seed, ranks, **params)
        if class_weight is None:
            return estimator
        if not self.weights_classes:
            raise TextsiftError(f"learner {self.name!r} ({self.summary}) does not weight "
                                "classes: class_weight is for the learners of nominal labels")
        class_weight = class_weight_codes(check_class_weight(class_weight), classes)
        if self.class_weight:
            return estimator.set_params(class_weight=class_weight)
        return ClassWeighted(estimator, class_weight)

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys a ``[[learners]]`` table may set and ``[tuning]`` try: ``params``,
        and ``class_weight`` for a learner that weights classes."""
        return (*self.params, "class_weight") if self.weights_classes else self.params

    @cached_property
    def weights_classes(self) -> bool:
        """Whether the learner takes ``class_weight``: a learner of nominal labels whose
        estimator has a ``class_weight`` parameter or a ``fit`` that takes ``sample_weight``."""
        return LabelKind.NOMINAL in self.label_kinds and (self.class_weight or self.sample_weight)

    @property
    def class_weight(self) -> bool:
        """Whether the estimator takes a ``class_weight`` parameter."""
        return self._weights[0]

    @property
    def sample_weight(self) -> bool:
        """Whether the estimator's ``fit`` takes ``sample_weight``."""
        return self._weights[1]

    @cached_property
    def _weights(self) -> tuple[bool, bool]:
        """:attr:`class_weight` and :attr:`sample_weight`, read from one estimator."""
        estimator = self.build()
        return ("class_weight" in estimator.get_params(),
                has_fit_parameter(estimator, "sample_weight"))


#: Every learner an experiment may fit: name -> :class:`Learner`.
LEARNERS: dict[str, Learner] = {}


#: Input weightings over the selected terms: term counts, presence, tf-idf (L2-normalised),
#: and tf-idf with ``1 + ln tf`` (Baccianella et al.'s learner input); each the steps put
#: before the estimator.
WEIGHTINGS: dict[str, Callable[[], list]] = {
    "counts": lambda: [],
    "binary": lambda: [Binarizer()],
    "tfidf": lambda: [TfidfTransformer()],
    "sublinear_tfidf": lambda: [TfidfTransformer(sublinear_tf=True)],
}


def register_learner(name: str, summary: str, *,
                     label_kinds=(LabelKind.NOMINAL, LabelKind.ORDINAL),
                     weighting: str, params: tuple[str, ...]):
    """Decorator adding the factory ``func(seed, ranks, **params)`` to :data:`LEARNERS`."""

    def deco(func):
        if name in LEARNERS:
            raise RuntimeError(f"learner {name!r} is registered twice")
        if weighting not in WEIGHTINGS:
            raise RuntimeError(f"learner {name!r}: unknown weighting {weighting!r}")
        LEARNERS[name] = Learner(name, func, summary, tuple(map(LabelKind, label_kinds)), weighting,
                                 tuple(params))
        return func

    return deco


def get_learner(name: str) -> Learner:
    """The registered learner ``name``; an unknown name raises with the closest match."""
    return lookup(LEARNERS, name, "learner")


def make_learner(name: str, weighting: str | None = None, seed: int = 0, ranks=None,
                 classes=None, *, multilabel: bool = False, columns=None, threshold=None,
                 **params):
    """The pipeline of a registered learner: its input weighting (default the learner's
    own), then the estimator with ``params`` (``class_weight`` and ``classes``:
    :meth:`Learner.build`).

    For label sets (``multilabel=True``; ``fit(X, Y)`` with a 0/1 indicator ``Y``): the
    weighting, then one binary estimator per label
    (:class:`~sklearn.multiclass.OneVsRestClassifier`); with ``columns`` (one array of column
    indices per label), a :class:`PerLabelClassifier` of that pipeline, each label's on its
    own columns. ``threshold`` (label sets only) decides the labels otherwise
    (:mod:`textsift.learners`' thresholds; its seed is ``seed``): ``"scut"`` or
    ``"micromacro"`` tuned on the training part (:class:`TunedThresholdClassifier`, reading
    ``fbr``, ``fallback``, ``cv`` and ``val_size`` from ``params``), ``"rcut"`` or
    ``"pcut"`` (:class:`FixedThresholdClassifier`, reading ``rank`` or ``proportion``), or
    ``"cost"``: each label's positive weight chosen on ``cv`` inner folds
    (:class:`CostSensitiveClassifier`).

    ``label_ratios``, ``label_C`` and ``label_method`` (label sets, each label read from the
    columns it is given) give each label its own share of the terms (ranked by
    ``label_method``, default chi2) and its own ``C``, both chosen on ``cv`` inner folds, with
    the threshold ``None``, ``"scut"`` or ``"micromacro"`` tuned on the same folds
    (:class:`PerLabelSearchClassifier`)."""
    search = {key: params.pop(key) for key in PER_LABEL_KEYS if key in params}
    cut = {key: params.pop(key) for key in THRESHOLD_KEYS if key in params}
    if threshold is None and cut and not (search and set(cut) <= {"cv"}):
        raise TextsiftError(f"{', '.join(cut)} set the labels' thresholds; give threshold = "
                            f"\"scut\" or \"rcut\" with them")
    if threshold is not None and threshold not in STRATEGIES:
        raise TextsiftError(f"unknown threshold {threshold!r}; choose one of "
                            f"{', '.join(STRATEGIES)}")
    other = [key for key in cut if key != "val_size"
             and key not in STRATEGY_KEYS.get(threshold, ())]
    if threshold is not None and other:
        raise TextsiftError(
            f"{', '.join(other)} {'is not a key' if len(other) == 1 else 'are not keys'} of "
            f"threshold = {threshold!r}, which reads {', '.join(STRATEGY_KEYS[threshold])}; drop "
            f"{', '.join(other)}, or choose the threshold {'it' if len(other) == 1 else 'they'}"
            " belong to")
    if threshold is not None and not (multilabel or columns is not None):
        raise TextsiftError(f"threshold is for label sets (one decision per label): "
                            f"{threshold!r} asked for on a single-label task, where the learner "
                            "picks one class per document; drop it")
    if search and not (multilabel or columns is not None):
        raise TextsiftError(f"{', '.join(search)} choose each label's own terms, for label "
                            "sets; drop them on a single-label task")
    if search:
        return _per_label(name, weighting, seed, ranks, classes, columns, params, threshold,
                          cut, search)
    if threshold == "cost":
        return _cost_sensitive(name, weighting, seed, ranks, classes, columns, params,
                               cut.get("cv"))
    model = _pipeline(name, weighting, seed, ranks, classes, multilabel, columns, params)
    if threshold is None:
        return model
    if threshold in FIXED:
        return FixedThresholdClassifier(model, threshold, **{k: v for k, v in cut.items()
                                                              if k != "val_size"})
    return TunedThresholdClassifier(model, threshold, random_state=seed, **cut)


#: The keys of the thresholds (:data:`STRATEGY_KEYS`) a learner may be given, and
#: ``val_size``, the validation part of a tuned threshold without ``cv``.
THRESHOLD_KEYS = ("rank", "fbr", "fallback", "cv", "proportion", "val_size")


def _weighting(learner: Learner, weighting: str | None) -> str:
    """The input weighting asked for (a key of :data:`WEIGHTINGS`), else the learner's own."""
    weighting = weighting or learner.weighting
    if weighting not in WEIGHTINGS:
        raise TextsiftError(f"unknown weighting {weighting!r}; choose one of "
                            f"{', '.join(WEIGHTINGS)}")
    return weighting


#: The keys of each label's own choices on inner folds (:class:`PerLabelSearchClassifier`).
PER_LABEL_KEYS = ("label_ratios", "label_C", "label_method")


def _per_label(name, weighting, seed, ranks, classes, columns, params, threshold, cut, search):
    """:class:`PerLabelSearchClassifier` over the learner's binary pipeline: each label's
    share of the terms (``label_ratios``) and ``C`` (``label_C``) chosen on inner folds."""
    keys = ", ".join(search)
    if columns is not None:
        raise TextsiftError(f"{keys} choose each label's own terms on inner folds: give the "
                            "learner every term, or a global selection, not each label's "
                            "columns (scope \"local\")")
    if threshold not in (None, "scut", "micromacro"):
        raise TextsiftError(f"{keys} go with threshold = \"scut\", \"micromacro\" or none "
                            f"(tuned on the same inner folds), not {threshold!r}")
    learner = get_learner(name)
    if "label_C" in search and ("C" not in learner.params or "C" in params):
        raise TextsiftError(f"label_C chooses each label's C: learner {name!r} "
                            + ("is given one; drop C" if "C" in learner.params else
                               "has no C"))
    if not isinstance(cut.get("cv", 3), Integral):
        raise TextsiftError(f"{keys} are chosen on cv inner folds, an integer of at least 2; "
                            f"got cv = {cut['cv']!r}")
    for key, low in (("label_ratios", "a share of the terms in (0, 1]"),
                     ("label_C", "a number above 0")):
        values = search.get(key, [1.0])
        if (isinstance(values, str) or not hasattr(values, "__len__") or not len(values)
                or not all(isinstance(v, Real) and not isinstance(v, bool) and 0 < v
                           and (key == "label_C" or v <= 1) for v in values)):
            raise TextsiftError(f"{key} is a list of values to try, each {low}; got "
                                f"{values!r}")
    weighting = _weighting(learner, weighting)
    binary = make_pipeline(*WEIGHTINGS[weighting](),
                           learner.build(seed, ranks, classes=classes, **params))
    grid = ({f"{binary.steps[-1][0]}__C": list(search["label_C"])} if "label_C" in search
            else None)
    return PerLabelSearchClassifier(
        binary, method=search.get("label_method", "chi2"),
        ratios=tuple(search.get("label_ratios", LABEL_RATIOS)), param_grid=grid,
        threshold=threshold, random_state=seed,
        **{k: v for k, v in cut.items() if k in ("fbr", "fallback", "cv")})


def _cost_sensitive(name, weighting, seed, ranks, classes, columns, params, cv):
    """:class:`CostSensitiveClassifier` over the learner's binary pipeline (its
    ``class_weight`` is the one each label's weight is set through)."""
    learner = get_learner(name)
    if not learner.weights_classes or "class_weight" in params:
        raise TextsiftError(f"threshold = \"cost\" chooses each label's class_weight: "
                            f"learner {name!r} " + ("is given one; drop class_weight" if
                                                     learner.weights_classes else
                                                     "does not weight classes"))
    weighting = _weighting(learner, weighting)
    estimator = learner.build(seed, ranks, classes=classes, **params)
    if not learner.class_weight:
        estimator = ClassWeighted(estimator, None)
    binary = make_pipeline(*WEIGHTINGS[weighting](), estimator)
    return CostSensitiveClassifier(binary, cv=3 if cv is None else cv,
                                   columns=None if columns is None else list(columns),
                                   random_state=seed)


def _pipeline(name, weighting, seed, ranks, classes, multilabel, columns, params):
    learner = get_learner(name)
    weighting = _weighting(learner, weighting)
    estimator = learner.build(seed, ranks, classes=classes, **params)
    if columns is not None:
        return PerLabelClassifier(make_pipeline(*WEIGHTINGS[weighting](), estimator), columns)
    if multilabel:
        estimator = OneVsRest(estimator)
    return make_pipeline(*WEIGHTINGS[weighting](), estimator)


#: The label kinds a classifier serves: classes, ranks as classes, and label sets (once per label).
_CLASSIFIER_KINDS = (LabelKind.NOMINAL, LabelKind.ORDINAL, LabelKind.MULTILABEL)


@register_learner("nb", "multinomial naive Bayes (sklearn MultinomialNB)", weighting="counts",
                  label_kinds=_CLASSIFIER_KINDS, params=("alpha",))
def _nb(seed, ranks, **params):
    return MultinomialNB(**params)


@register_learner("linear_svm", "linear SVM, one-vs-rest (sklearn LinearSVC)",
                  label_kinds=_CLASSIFIER_KINDS, weighting="tfidf", params=("C", "max_iter", "tol"))
def _linear_svm(seed, ranks, **params):
    return LinearSVC(random_state=seed, **params)


@register_learner("logreg", "logistic regression (sklearn LogisticRegression)",
                  label_kinds=_CLASSIFIER_KINDS, weighting="tfidf", params=("C", "max_iter", "tol"))
def _logreg(seed, ranks, **params):
    return LogisticRegression(random_state=seed, **{"max_iter": 1000, **params})


@register_learner("svr", "epsilon-SVR on ranks, rounded (textsift.learners.RankSVR)",
                  label_kinds=(LabelKind.ORDINAL,), weighting="sublinear_tfidf",
                  params=("C", "epsilon", "balanced", "max_iter", "tol"))
def _svr(seed, ranks, **params):
    return RankSVR(random_state=seed, ranks=ranks, **params)
