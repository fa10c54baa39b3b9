"""scikit-learn compatible term selectors over the scoring registry.

:class:`TermSelector` keeps a :class:`~textsift.selection.ranking.TermRanking`
(:func:`textsift.selection.ranking.rank`:
the terms best first, with their scores and the policy used) as an estimator (``fit``/
``transform``, ``get_feature_names_out``) and derives its selection from it, usable in
``Pipeline`` and ``GridSearchCV``::

    Pipeline([("vec", CountVectorizer()), ("sel", TermSelector("bns", k=500)),
              ("clf", LinearSVC())])

Its ordinal form, restricted to the ordinal methods and ranks, is
:class:`~textsift.selection.ordinal.OrdinalSelector`.
"""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_consistent_length, check_is_fitted, validate_data

from .._bounds import ALPHA, RATIO, K, choices_documented, constraints, validate_params
from .._choices import (
    AGGREGATES,
    CORRECTION,
    CORRECTIONS,
    DIRECTIONS,
    FAMILIES,
    FAMILY,
    RR_VARIANTS,
)
from ..counting.counts import Counts
from ..errors import TextsiftError
from ..scores import Method, get_method
from .policies import resolve_k, size_note
from .ranking import TermRanking, default_aggregate, rank, score_table

__all__ = ["TermSelector", "resolve_k"]


def _reads_term_freq(method) -> bool:
    """Whether a method reads ``Counts.term_freq`` (a user's function may)."""
    if isinstance(method, Method):
        return method.reads_term_freq
    return callable(method) or get_method(method).reads_term_freq


#: The parameters that decide the ranking (not the cut): ``fit`` keeps each as a fitted
#: attribute (``method_``, ``aggregate_``, ...), and a change of one after ``fit`` asks for a
#: refit instead of taking effect silently.
_RANKED_BY = ("method", "aggregate", "class_label", "rr_variant", "method_params", "direction")

#: The parameters with a numeric range (``textsift._bounds``, which the command line and
#: an experiment file read too).
_BOUNDS = {"k": K, "ratio": RATIO, "alpha": ALPHA}


def _rank(counts: Counts, limit: int | None, *, method, aggregate, class_label, rr_variant,
          method_params, direction) -> TermRanking:
    """The ranking of ``counts`` under the parameters of :data:`_RANKED_BY`."""
    return rank(counts, method, aggregate, class_label, top=limit, rr_variant=rr_variant,
                direction=direction, **method_params)


def _same(a, b) -> bool:
    """Whether a parameter is unchanged since ``fit`` (a value that cannot say is changed)."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # e.g. arrays inside method_params
        return False


@choices_documented
class TermSelector(SelectorMixin, BaseEstimator):
    """Keep the best terms under any registered scoring method.

    Parameters
    ----------
    method : str or callable
        A canonical method name (``textsift methods`` lists them), e.g. ``"chi2"``, ``"bns"``,
        ``"rc"``, ``"ig_multi"``; or your own scoring function ``f(counts, **method_params)``
        of a :class:`~textsift.counting.counts.Counts`, returning one score per term or per term and
        class (the policy then globalises them), higher is better -- no registration needed::

            def doc_share(counts):  # share of a term's documents in each class
                return counts.doc_counts / np.maximum(counts.df, 1)[:, None]

            TermSelector(doc_share, k=500)
    k : int or "all", optional
        Number of terms kept; a ``k`` above the vocabulary keeps every term and warns (as
        scikit-learn's ``SelectKBest``). Default: 10 when neither ``ratio`` nor
        ``threshold`` is given. At most one of ``k``, ``ratio`` and ``threshold`` may be
        given (two are refused rather than one silently winning).
    ratio : float in (0, 1], optional
        Keep ``max(1, ceil(ratio * n_ranked))`` terms (the reduction level:
        :func:`textsift.selection.policies.n_from_ratio`).
    threshold : float, optional
        Keep every term whose (globalised) score, ``scores_``, is ``>= threshold``; not with
        ``rr``.
    aggregate : {choices}, optional
        How per-class scores become one ranking; default the method's own (``max`` for most).
    class_label : optional
        Rank by this class's one-vs-rest scores only.
    rr_variant : {choices}
        Round-robin duplicate rule (:func:`textsift.selection.policies.round_robin`).
    classes : array-like, optional
        The full label set (e.g. the whole rating scale), when ``y`` may miss some of it; for
        an indicator matrix ``y``, the name of each of its columns.
    method_params : dict, optional
        Keyword parameters of the scoring function (e.g. ``{"base": 10}`` for ``ig``).
    direction : {choices}, default="both"
        Which of a class's terms are candidates: every term (two-sided, as the per-class
        scores are: a term a class's documents lack is a feature too, Forman 2003), or only
        those over-represented (positive indicators) or under-represented in the class
        (:mod:`textsift.scores.direction`).
    alpha : float in (0, 1], optional
        Keep the terms whose p-value, adjusted by ``correction``, passes ``alpha`` instead of
        a number of terms (a method with a test: ``textsift.scores.with_pvalues()``):
        scikit-learn's ``SelectFpr`` with ``correction="none"`` (``p < alpha``),
        ``SelectFdr`` with ``"bh"`` (``q <= alpha``) and ``SelectFwe`` with
        ``"bonferroni"`` (``q < alpha``), which ``chi2_sklearn`` reproduces (scikit-learn
        counts a term no document has in its family, textsift does not: it has no test). A
        per-class test keeps a term if any class keeps it (of ``direction`` in that class;
        only ``class_label``'s column when given), in the order of a round robin over the
        classes (:func:`textsift.evidence.significant.significant_terms`). Not with ``k``,
        ``ratio`` or ``threshold``. No term passing is an empty selection (``transform`` warns, as
        scikit-learn's selectors do), not an error.
    correction : {choices}, default="bh"
        The multiple-testing correction of ``alpha`` (:mod:`textsift.evidence.corrections`).
    family : {choices}, default="class"
        The tests corrected together: each class's terms, or every term-class cell.

    Attributes
    ----------
    ranking_ : TermRanking
        The ranked terms with their scores and the policy used: the whole vocabulary, or
        under ``rr`` its first ``k`` terms (a round robin's later turns are not taken).
    selected_ : ndarray
        Indices of the kept features in rank order, cut from ``ranking_`` by the current
        ``k``, ``ratio`` or ``threshold`` when read (as scikit-learn's selectors cut their
        fitted ``scores_``): ``set_params(k=...)`` after ``fit`` changes the selection
        without a refit. Under ``rr``, a larger ``k`` than the fit ranked takes the round
        robin's further turns from ``counts_`` with the method, policy and parameters of the
        fit, and keeps that ranking. A change of ``method``, ``aggregate``, ``class_label``,
        ``rr_variant``, ``method_params`` or ``direction`` after ``fit`` is refused until the
        next fit.
    scores_ : ndarray of shape (n_features,)
        The score each feature was selected by, as ``SelectKBest.scores_``: its globalised
        score under ``max``, ``sum`` or ``wavg``, its score in ``class_label``'s column, a
        global method's score; under ``rr``, which ranks by turns rather than by one score,
        its best score over the groups (its ``max``). ``-inf`` for unseen terms.
    class_scores_ : pandas.DataFrame of shape (n_features, groups)
        Scores of every term for every class (or group) -- the table ``scores_`` globalises;
        ``-inf`` for unseen terms. Computed from ``counts_`` each time it is read (a fit
        never builds it).
    pvalues_ : ndarray of shape (n_features,)
        The method's p-value of each feature, as scikit-learn's ``pvalues_`` (unadjusted):
        for a per-class test its smallest over the classes (``class_label``'s when given);
        NaN for unseen terms. Only for a method with a test.
    counts_ : Counts
        The sufficient statistics the scores were computed from.
    method_, aggregate_, class_label_, rr_variant_, method_params_, direction_
        The parameters the ranking was made with (``aggregate_`` the policy resolved: the
        method's own when ``aggregate`` is None; ``method_params_`` a copy).

    Every parameter is checked against ``_parameter_constraints`` (scikit-learn's
    ``Interval`` and ``StrOptions``; the numeric ranges are those of ``textsift._bounds``)
    when ``fit`` or ``fit_counts`` starts, and a value outside them is a
    :class:`~textsift.errors.TextsiftError` naming the parameter, the values it takes and
    the value given.
    """

    _parameter_bounds = _BOUNDS
    _parameter_choices = {"aggregate": AGGREGATES, "rr_variant": RR_VARIANTS,
                          "direction": DIRECTIONS, "correction": CORRECTIONS,
                          "family": FAMILIES}
    _parameter_constraints = constraints(
        _BOUNDS, _parameter_choices, k=[StrOptions({"all"}), None], ratio=[None],
        alpha=[None], aggregate=[None], method=[str, callable, Method], threshold=[Real, None],
        class_label="no_validation", classes=["array-like", None], method_params=[dict, None])

    def __init__(
        self,
        method="chi2",
        k=None,
        ratio=None,
        threshold=None,
        aggregate=None,
        class_label=None,
        rr_variant="skip",
        classes=None,
        method_params=None,
        direction="both",
        alpha=None,
        correction=CORRECTION,
        family=FAMILY,
    ):
        self.method = method
        self.k = k
        self.ratio = ratio
        self.threshold = threshold
        self.aggregate = aggregate
        self.class_label = class_label
        self.rr_variant = rr_variant
        self.classes = classes
        self.method_params = method_params
        self.direction = direction
        self.alpha = alpha
        self.correction = correction
        self.family = family

    def fit(self, X, y):
        """Count ``X`` against ``y`` and rank its terms. ``y`` is one label per document, or
        label sets: a 0/1 indicator matrix (dense or sparse, as scikit-learn's
        ``MultiLabelBinarizer`` gives; ``classes`` then names its columns) or a list of label
        lists -- any labelling :func:`textsift.labels.as_labels` reads, each label scored
        against the documents without it."""
        validate_params(self)
        if y is None:
            raise TextsiftError(f"{type(self).__name__} requires y to be passed, but the "
                                "target y is None")
        X = validate_data(self, X, accept_sparse="csr", dtype=None, ensure_all_finite=True,
                          ensure_min_features=1)  # y is read by textsift.labels
        check_consistent_length(X, y)
        y, classes = self._check_labels(y)
        if X.dtype.kind not in "biuf":
            X = X.astype(np.float64)
        names = getattr(self, "feature_names_in_", None)
        counts = Counts.from_matrix(X, y, classes=classes, feature_names=names,
                                    term_freq=_reads_term_freq(self.method))
        return self._fit_counts(counts)

    def _check_labels(self, y):
        """``(y, classes)`` for counting: the labels as given and the declared class set."""
        return y, self.classes

    def fit_counts(self, counts: Counts):
        """Fit from precomputed :class:`Counts` (e.g. streamed or summed over chunks)."""
        validate_params(self)
        return self._fit_counts(counts)

    def _fit_counts(self, counts: Counts):
        ranked_by = self._ranked_by()  # kept as fitted attributes once the fit succeeds
        n_keep = self._n_keep(counts, ranked_by["aggregate"])
        self._passing = None
        if self.alpha is not None:  # a method without a test fails here, not when read
            n_keep = max(1, len(self._significant(counts, ranked_by)))
        note = size_note(self.k, counts.n_terms, "k")
        if note:
            warnings.warn(note, UserWarning, stacklevel=2)
        ranking = _rank(counts, n_keep if ranked_by["aggregate"] == "rr" else None,
                        **ranked_by)
        for name, value in ranked_by.items():
            setattr(self, f"{name}_", value)
        self.ranking_ = ranking
        self._fit_cache = {}  # what reads derive once from this fit (pvalues_, longer ranking)
        self.counts_ = counts
        self.classes_ = counts.classes
        if not hasattr(self, "n_features_in_"):
            self.n_features_in_ = counts.n_terms
        return self

    def _ranked_by(self) -> dict:
        """The parameters of :data:`_RANKED_BY` as they are now (the policy resolved, the
        method's parameters copied): what ``fit`` keeps and later reads compare with."""
        return {"method": self.method,
                "aggregate": self.aggregate or default_aggregate(self.method),
                "class_label": self.class_label, "rr_variant": self.rr_variant,
                "method_params": dict(self.method_params or {}), "direction": self.direction}

    def _check_unchanged(self) -> None:
        """Check that no parameter of the fitted ranking was changed since ``fit``."""
        check_is_fitted(self, "ranking_")
        now, fitted = self._ranked_by(), self._fitted()
        changed = [name for name in _RANKED_BY if not _same(fitted[name], now[name])]
        if changed:
            raise TextsiftError(
                f"{' and '.join(changed)} changed after fit: the selector holds the ranking "
                f"of the fitted {', '.join(f'{n}={fitted[n]!r}' for n in changed)}; refit it "
                "(fit or fit_counts) to select by the new value (only k, ratio and threshold "
                "cut the fitted ranking without a refit)")

    def _n_keep(self, counts: Counts, policy: str) -> int | None:
        """The number of terms ``k`` or ``ratio`` asks for (``None`` with a threshold or
        ``alpha``)."""
        given = [name for name in ("k", "ratio", "threshold", "alpha")
                 if getattr(self, name) is not None]
        if len(given) > 1:
            raise TextsiftError(f"give at most one of k, ratio, threshold and alpha, got "
                                f"{given[0]}={getattr(self, given[0])!r} and {given[1]}="
                                f"{getattr(self, given[1])!r} (k is 10 when none is given)")
        if self.alpha is not None:
            return None
        if self.threshold is None:
            k = 10 if self.k is None else self.k
            return resolve_k(counts.n_terms, int(counts.seen.sum()), k, self.ratio)
        if policy == "rr":
            raise TextsiftError("a score threshold does not apply to the round-robin policy")
        return None

    def _fitted(self) -> dict:
        """The fitted attributes of :data:`_RANKED_BY` (``method_``, ...), by parameter."""
        return {name: getattr(self, f"{name}_") for name in _RANKED_BY}

    def _rank(self, counts: Counts, limit: int | None) -> TermRanking:
        """The ranking of ``counts`` under the parameters ``fit`` kept."""
        return _rank(counts, limit, **self._fitted())

    @property
    def selected_(self) -> np.ndarray:
        self._check_unchanged()
        ranking = self.ranking_
        n_keep = self._n_keep(self.counts_, ranking.policy)
        if self.alpha is not None:
            return self._significant(self.counts_, self._fitted())
        if n_keep is None:
            return ranking.index[ranking.scores >= self.threshold]
        if len(ranking) < n_keep:  # a round robin stopped short of this k: its next turns
            longer = self._fit_cache.get("longer")  # (ranking_ stays what fit made)
            if longer is None or len(longer) < n_keep:
                longer = self._fit_cache["longer"] = self._rank(self.counts_, n_keep)
            ranking = longer
        return ranking.index[:n_keep]

    @property
    def scores_(self) -> np.ndarray:
        self._check_unchanged()
        ranking = self.ranking_
        if ranking.policy == "rr":  # an order by turns: each term's best score instead
            ranking = rank(self.counts_, self.method_, "max", direction=self.direction_,
                           **self.method_params_)
        scores = np.empty(self.counts_.n_terms)
        scores[ranking.index] = ranking.scores
        return scores

    def _significant(self, counts: Counts, p: dict) -> np.ndarray:
        """The terms that pass ``alpha`` after ``correction`` over ``family``, in round-robin
        order, under the ranking's parameters ``p`` (cut again when one of the three changed
        since the last read)."""
        from ..evidence.significant import significant_terms

        key = (self.alpha, self.correction, self.family)
        if self._passing is None or self._passing[0] != key:
            index, _ = significant_terms(counts, p["method"], self.alpha, self.correction,
                                         self.family, p["direction"], p["rr_variant"],
                                         class_label=p["class_label"], **p["method_params"])
            self._passing = (key, index)
        return self._passing[1]

    @property
    def pvalues_(self) -> np.ndarray:
        from ..evidence.significant import smallest_pvalues
        from ..scores import pvalues

        self._check_unchanged()
        if "pvalues" not in self._fit_cache:  # computed once per fit, on first read
            self._fit_cache["pvalues"] = smallest_pvalues(
                pvalues(self.counts_, self.method_, **self.method_params_), self.class_label_)
        return self._fit_cache["pvalues"].copy()

    @property
    def class_scores_(self) -> pd.DataFrame:
        self._check_unchanged()
        counts = self.counts_
        table = score_table(counts, self.method_, self.method_params_)
        names = counts.feature_names
        return pd.DataFrame(
            table.values, columns=pd.Index(list(table.groups), name="group"),
            index=pd.Index(names if names is not None else np.arange(counts.n_terms),
                           name="term"))

    def _get_support_mask(self):
        check_is_fitted(self, "ranking_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.target_tags.required = True
        tags.target_tags.multi_output = True  # an indicator of label sets
        return tags
