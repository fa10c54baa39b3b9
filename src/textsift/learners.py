"""Learners of the experiments, and the one learner scikit-learn lacks (METHODS.md §A.9).

:data:`LEARNERS` is the registry of the learners an experiment may fit, shaped like the score
registry (:data:`textsift.scores.REGISTRY`): each :class:`Learner` records its factory, the
tasks it serves, its default input weighting and the parameters an experiment file may set or
tune. :func:`make_learner` puts an input weighting (:data:`WEIGHTINGS`) before the estimator.
A new learner is one :func:`register_learner` entry.

Every nominal learner weights classes the same way, by one rule (:meth:`Learner.build`):
``class_weight`` (``"balanced"``, ``w_c = n / (m n_c)``, or a weight per class) goes to the
estimator's own ``class_weight`` parameter where it has one (linear SVM, logistic regression),
and otherwise into the ``sample_weight`` of its ``fit`` (:class:`ClassWeighted`: naive Bayes),
as scikit-learn's ``compute_sample_weight(class_weight, y)`` gives them -- the weights the
``class_weight`` parameter of scikit-learn's estimators stands for.

:class:`RankSVR` is the learner of Baccianella, Esuli & Sebastiani (SAC 2010): a linear
epsilon-support vector regressor on the rank values, whose real-valued output is rounded to
the nearest rank of the scale (which also clips it to the scale). The regression itself is
scikit-learn's :class:`~sklearn.svm.LinearSVR` (liblinear, L1 epsilon-insensitive loss).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    RegressorMixin,
    clone,
)
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import Binarizer
from sklearn.svm import LinearSVC, LinearSVR
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    has_fit_parameter,
    validate_data,
)

from .errors import TextsiftError
from .metrics import mae_macro
from .ranks import check_ranks, nearest_rank

__all__ = ["LEARNERS", "WEIGHTINGS", "ClassWeighted", "Learner", "RankSVR",
           "check_class_weight", "class_weight_codes", "get_learner", "make_learner",
           "register_learner"]


@dataclass(frozen=True)
class Learner:
    """A registered learner.

    ``factory(seed, ranks, **params)`` builds the estimator: ``seed`` its random state,
    ``ranks`` the rank scale of an ordinal task (``None`` for a nominal one), ``params`` its
    own parameters (the names in ``params``, which an experiment file may set in
    ``[[learners]]`` or tune in ``[tuning]``, with ``class_weight``: :attr:`keys`).
    ``tasks`` are the label kinds it serves (``"nominal"`` classes, ``"ordinal"`` ranks) and
    ``weighting`` its default input (a key of :data:`WEIGHTINGS`)."""

    name: str
    factory: Callable[..., BaseEstimator]
    summary: str
    tasks: tuple[str, ...]
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
                                "classes: class_weight is for the learners of nominal tasks")
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
        """Whether the learner takes ``class_weight``: a learner of nominal tasks whose
        estimator has a ``class_weight`` parameter or a ``fit`` that takes ``sample_weight``."""
        return "nominal" in self.tasks and (self.class_weight or self.sample_weight)

    @cached_property
    def class_weight(self) -> bool:
        """Whether the estimator takes a ``class_weight`` parameter."""
        return "class_weight" in self.build().get_params()

    @cached_property
    def sample_weight(self) -> bool:
        """Whether the estimator's ``fit`` takes ``sample_weight``."""
        return has_fit_parameter(self.build(), "sample_weight")


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


def register_learner(name: str, summary: str, *, tasks=("nominal", "ordinal"),
                     weighting: str, params: tuple[str, ...]):
    """Decorator adding the factory ``func(seed, ranks, **params)`` to :data:`LEARNERS`."""

    def deco(func):
        if name in LEARNERS:
            raise RuntimeError(f"learner {name!r} is registered twice")
        if weighting not in WEIGHTINGS:
            raise RuntimeError(f"learner {name!r}: unknown weighting {weighting!r}")
        LEARNERS[name] = Learner(name, func, summary, tuple(tasks), weighting, tuple(params))
        return func

    return deco


def get_learner(name: str) -> Learner:
    """The registered learner ``name``; an unknown name raises with the closest match."""
    try:
        return LEARNERS[name]
    except KeyError:
        close = difflib.get_close_matches(str(name), list(LEARNERS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TextsiftError(f"unknown learner {name!r}{hint}; choose one of "
                            f"{', '.join(LEARNERS)}") from None


def make_learner(name: str, weighting: str | None = None, seed: int = 0, ranks=None,
                 classes=None, **params) -> Pipeline:
    """The pipeline of a registered learner: its input weighting (default the learner's
    own), then the estimator with ``params`` (``class_weight`` and ``classes``:
    :meth:`Learner.build`)."""
    learner = get_learner(name)
    weighting = weighting or learner.weighting
    if weighting not in WEIGHTINGS:
        raise TextsiftError(f"unknown weighting {weighting!r}; choose one of "
                            f"{', '.join(WEIGHTINGS)}")
    return make_pipeline(*WEIGHTINGS[weighting](),
                         learner.build(seed, ranks, classes=classes, **params))


def check_class_weight(class_weight):
    """``"balanced"`` or a mapping class -> weight, each weight a positive finite number;
    anything else is an error naming the value and the fix."""
    if class_weight == "balanced":
        return class_weight
    if isinstance(class_weight, dict) and class_weight and all(
            isinstance(w, Real) and not isinstance(w, bool) and np.isfinite(w) and w > 0
            for w in class_weight.values()):
        return class_weight
    raise TextsiftError(f"class_weight must be \"balanced\" or a table of positive weights, one "
                        f"per class (e.g. {{\"spam\" = 5, \"ham\" = 1}}), got {class_weight!r}")


def class_weight_codes(class_weight, classes):
    """``class_weight`` with its class names replaced by their codes in ``classes``."""
    if classes is None or not isinstance(class_weight, dict):
        return class_weight
    names = [str(c) for c in classes]
    unknown = [c for c in class_weight if str(c) not in names]
    if unknown:
        raise TextsiftError(f"class_weight names {unknown!r}, which are not classes of the "
                            f"labels; the classes are {', '.join(names[:20])}")
    return {names.index(str(c)): w for c, w in class_weight.items()}


class ClassWeighted(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """``estimator`` fitted with each document weighted by the weight of its class:
    ``sample_weight = compute_sample_weight(class_weight, y)`` (times a ``sample_weight``
    given to ``fit``), for an estimator whose ``fit`` takes sample weights but that has
    no ``class_weight`` parameter (:class:`~sklearn.naive_bayes.MultinomialNB`). With
    ``"balanced"`` the weight of class ``c`` is ``n / (m n_c)`` (``n`` documents, ``m``
    classes, ``n_c`` of class ``c``), as in scikit-learn's estimators that take
    ``class_weight``; for naive Bayes it scales each class's term counts and prior by that
    weight, so every class enters the priors with the same total weight.

    Attributes
    ----------
    estimator_ : the fitted clone of ``estimator``.
    classes_ : the classes seen in ``fit``.
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        "class_weight": [StrOptions({"balanced"}), dict, None],
    }

    def __init__(self, estimator, class_weight="balanced"):
        self.estimator = estimator
        self.class_weight = class_weight

    def _validate_params(self):
        super()._validate_params()
        if hasattr(self.estimator, "_validate_params"):
            self.estimator._validate_params()

    def fit(self, X, y, sample_weight=None):
        self._validate_params()
        weight = compute_sample_weight(self.class_weight, y)
        if sample_weight is not None:
            weight = weight * _check_sample_weight(sample_weight, X)
        self.estimator_ = clone(self.estimator).fit(X, y, sample_weight=weight)
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    @available_if(lambda self: hasattr(self.estimator, "predict_proba"))
    def predict_proba(self, X):
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict_proba(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class RankSVR(RegressorMixin, BaseEstimator):
    """Linear epsilon-SVR on ranks, predictions rounded to the nearest rank of the scale.

    Parameters
    ----------
    C : float, default=1.0
        Inverse regularisation strength of the SVR.
    epsilon : float, default=0.0
        Width of the insensitive tube (in rank units).
    balanced : bool, default=False
        Weight each training document by ``N / (n_ranks * N_r)``, the inverse of the training
        frequency of its rank (scikit-learn's "balanced" weights). ``MAE^M`` averages over
        ranks, and on corpora dominated by 5-star reviews the unweighted L1 loss pulls every
        prediction towards the majority rank; balancing makes the training loss the
        ``MAE^M`` of the training set.
    ranks : array-like of int, optional
        The full scale (e.g. ``[1, 2, 3, 4, 5]``); predictions are rounded to it. Default: the
        ranks seen in ``fit``.
    max_iter, tol, random_state
        Passed to :class:`~sklearn.svm.LinearSVR`.

    Notes
    -----
    liblinear penalises the intercept like any weight. To keep that penalty from pulling
    predictions towards 0 (a rank far below the scale), the targets are centred on the
    (weighted) median training rank before fitting -- the constant that minimises the
    (weighted) absolute error -- and the offset is added back in :meth:`predict`. With
    ``balanced=True`` on a symmetric scale that constant is the middle rank, i.e. Triv.

    Attributes
    ----------
    svr_ : LinearSVR, the fitted regressor (on centred ranks).
    ranks_ : (n_ranks,) the scale predictions are rounded to.
    offset_ : float, the centring constant.
    n_iter_ : int, liblinear iterations.
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "balanced": ["boolean"],
        "ranks": ["array-like", None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(self, C=1.0, epsilon=0.0, balanced=False, ranks=None, max_iter=10_000,
                 tol=1e-4, random_state=0):
        self.C = C
        self.epsilon = epsilon
        self.balanced = balanced
        self.ranks = ranks
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        self._validate_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", y_numeric=False,
                             ensure_all_finite=True, dtype=np.float64)
        y, self.ranks_ = check_ranks(y, self.ranks)
        weight = _check_sample_weight(sample_weight, X)
        if self.balanced:
            weight = weight * compute_sample_weight("balanced", y)
        self.offset_ = _weighted_median(y, weight)
        self.svr_ = LinearSVR(C=self.C, epsilon=self.epsilon, loss="epsilon_insensitive",
                              dual=True, max_iter=self.max_iter, tol=self.tol,
                              random_state=self.random_state)
        self.svr_.fit(X, y - self.offset_, sample_weight=weight)
        self.n_iter_ = self.svr_.n_iter_
        return self

    def decision_function(self, X) -> np.ndarray:
        """The real-valued regression output, before rounding."""
        check_is_fitted(self, "svr_")
        X = validate_data(self, X, accept_sparse="csr", reset=False, dtype=np.float64)
        return self.svr_.predict(X) + self.offset_

    def predict(self, X) -> np.ndarray:
        """Predicted ranks: the regression output rounded to the nearest rank of the scale."""
        return nearest_rank(self.decision_function(X), self.ranks_)

    def score(self, X, y, sample_weight=None) -> float:
        """Negated ``MAE^M`` (greater is better, as ``GridSearchCV`` expects)."""
        if sample_weight is not None:
            raise TextsiftError("RankSVR.score is MAE^M, which defines its own weights")
        return -mae_macro(y, self.predict(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _weighted_median(y: np.ndarray, weight: np.ndarray) -> float:
    """The lower weighted median (the smallest ``v`` with at least half the weight at
    ``y <= v``)."""
    order = np.argsort(y, kind="stable")
    cum = np.cumsum(weight[order])
    return float(y[order][np.searchsorted(cum, cum[-1] / 2, side="left")])


# --------------------------------------------------------------------------- the registry
@register_learner("nb", "multinomial naive Bayes (sklearn MultinomialNB)", weighting="counts",
                  params=("alpha",))
def _nb(seed, ranks, **params):
    return MultinomialNB(**params)


@register_learner("linear_svm", "linear SVM, one-vs-rest (sklearn LinearSVC)",
                  weighting="tfidf", params=("C", "max_iter", "tol"))
def _linear_svm(seed, ranks, **params):
    return LinearSVC(random_state=seed, **params)


@register_learner("logreg", "logistic regression (sklearn LogisticRegression)",
                  weighting="tfidf", params=("C", "max_iter", "tol"))
def _logreg(seed, ranks, **params):
    return LogisticRegression(random_state=seed, **{"max_iter": 1000, **params})


@register_learner("svr", "epsilon-SVR on ranks, rounded (textsift.learners.RankSVR)",
                  tasks=("ordinal",), weighting="sublinear_tfidf",
                  params=("C", "epsilon", "balanced", "max_iter", "tol"))
def _svr(seed, ranks, **params):
    return RankSVR(random_state=seed, ranks=ranks, **params)
