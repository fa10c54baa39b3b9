"""scikit-learn compatible term selectors over the scoring registry.

:func:`rank` turns counts into a ranked table of terms; :class:`TermSelector` is the same
thing as an estimator (``fit``/``transform``, ``get_feature_names_out``), usable in
``Pipeline`` and ``GridSearchCV``::

    Pipeline([("vec", CountVectorizer()), ("sel", TermSelector("bns", k=500)),
              ("clf", LinearSVC())])
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_consistent_length, check_is_fitted, validate_data

from .counts import Counts
from .errors import TextsiftError
from .labels import as_labels, check_requirement
from .policies import AGGREGATES, Ranking, n_from_ratio, rank_terms
from .ranks import check_ranks
from .scores import REGISTRY, ScoreTable, compute, compute_many, get_method

__all__ = ["OrdinalSelector", "TermSelector", "default_aggregate", "rank", "ranking_of",
           "resolve_k", "score_all", "score_table"]


def score_table(counts: Counts, method, params: dict | None = None) -> ScoreTable:
    """The scores of every term: :func:`textsift.scores.compute` for a registered method name,
    or a user's own scoring function ``method(counts, **params)`` called as it is.

    A function may return one score per term (shape ``(V,)``: a global score), one per term
    and class (``(V, m)``, columns in ``counts.classes`` order, globalised by the policy), or
    a :class:`~textsift.scores.ScoreTable`. NaN scores and unseen terms are never ranked."""
    if not callable(method):
        return compute(counts, method, **(params or {}))
    out = method(counts, **(params or {}))
    name = getattr(method, "__name__", repr(method))
    if isinstance(out, ScoreTable):
        values, groups, weights = out.values, out.groups, out.weights
    else:
        values = np.asarray(out, dtype=np.float64)
        if values.ndim == 1:
            values, groups, weights = values[:, None], np.array(["all"], dtype=object), None
        elif values.ndim == 2 and values.shape[1] == counts.n_classes:
            groups, weights = counts.classes, counts.priors
        else:
            raise TextsiftError(
                f"scoring function {name} returned shape {values.shape}; return one score per "
                f"term ({counts.n_terms},) or per term and class ({counts.n_terms}, "
                f"{counts.n_classes})")
    if values.shape[0] != counts.n_terms:
        raise TextsiftError(f"scoring function {name} returned {values.shape[0]} scores for "
                         f"{counts.n_terms} terms")
    values = np.where(np.isnan(values) | ~counts.seen[:, None], -np.inf, values)
    return ScoreTable(values, np.asarray(groups), counts.seen, weights)


def default_aggregate(method) -> str:
    """The policy a method ranks by unless told otherwise (``max`` for a user's function)."""
    return "max" if callable(method) else get_method(method).default_aggregate


def ranking_of(
    table: ScoreTable,
    aggregate: str,
    class_label=None,
    rr_variant: str = "skip",
    limit: int | None = None,
) -> Ranking:
    """Rank a score table under a policy, or by one group's column (``class_label``; a
    class-independent score, a single ``"all"`` column, is the same for every class)."""
    if aggregate not in AGGREGATES:
        raise TextsiftError(
            f"unknown aggregate {aggregate!r}; choose one of {', '.join(AGGREGATES)}")
    values = table.values
    if class_label is not None and values.shape[1] > 1:
        matches = np.flatnonzero(np.asarray(table.groups).astype(str) == str(class_label))
        if len(matches) == 0:
            raise TextsiftError(
                f"class {class_label!r} is not among the scored groups "
                f"{[str(g) for g in table.groups]}"
            )
        values = values[:, matches[:1]]
    if values.shape[1] == 1:
        aggregate = "max"  # every policy is the identity on a single column
    return rank_terms(values, aggregate, table.seen, table.weights, rr_variant, limit)


def rank(
    counts: Counts,
    method,
    aggregate: str | None = None,
    class_label=None,
    top: int | None = None,
    rr_variant: str = "skip",
    **params,
) -> pd.DataFrame:
    """Ranked terms as a DataFrame with columns ``rank`` (from 1), ``term``, ``score`` and
    ``group`` (the class or rank a round robin took the term from; empty otherwise).
    ``method`` is a registered name or a scoring function (see :func:`score_table`)."""
    aggregate = aggregate or default_aggregate(method)
    table = score_table(counts, method, params)
    if top is not None and top <= 0:
        raise TextsiftError(f"top must be a positive number of terms, got {top}")
    r = ranking_of(table, aggregate, class_label, rr_variant, limit=top)
    names = counts.feature_names
    terms = names[r.index] if names is not None else r.index.astype(str)
    groups = np.asarray(table.groups, dtype=object)
    group = np.where(r.group >= 0, groups[np.maximum(r.group, 0)], None)
    return pd.DataFrame(
        {"rank": np.arange(1, len(r.index) + 1), "term": terms, "score": r.score, "group": group}
    )


def score_all(counts: Counts, aggregate: str | None = None, class_label=None,
              top: int = 20) -> pd.DataFrame:
    """Every nominal method's score side by side: a column per method, each its globalised
    score under ``aggregate`` (default: the method's own policy) or ``class_label``'s column;
    the rows are the terms in some method's top ``top``, in vocabulary order."""
    if aggregate == "rr":
        raise TextsiftError("--method all prints a score per method; the round robin gives an "
                         "order, not a score: use --aggregate max, sum or wavg")
    columns = {}
    for name, table in compute_many(counts, reuse=True):  # one table's memory for them all
        r = ranking_of(table, aggregate or REGISTRY[name].default_aggregate, class_label)
        col = np.empty(counts.n_terms)
        col[r.index] = r.score
        columns[name] = (col, r.index[:top])
    keep = np.unique(np.concatenate([best for _, best in columns.values()]))
    out = pd.DataFrame({"term": counts.feature_names[keep]})
    for name, (col, _) in columns.items():
        out[name] = col[keep]
    return out


def resolve_k(n_terms: int, n_ranked: int, k=None, ratio=None) -> int:
    """Number of terms to keep from ``k`` (a count or ``"all"``) or ``ratio`` (a fraction of
    the ranked vocabulary, METHODS.md §0.5.6), with the errors a user needs."""
    if ratio is not None:
        if not isinstance(ratio, numbers.Real) or not 0 < ratio <= 1:
            raise TextsiftError(f"ratio must be a fraction in (0, 1], got {ratio!r}")
        return n_from_ratio(float(ratio), max(n_ranked, 1))
    if isinstance(k, str) and k == "all":
        return n_terms
    if not isinstance(k, numbers.Integral) or isinstance(k, bool):
        raise TextsiftError(f"k must be a positive integer or 'all', got {k!r}")
    if k <= 0:
        raise TextsiftError(f"k must be a positive number of terms, got {k}")
    if k > n_terms:
        raise TextsiftError(
            f"k={k} is larger than the vocabulary ({n_terms} terms); "
            "lower k, use k='all', or relax min_df"
        )
    return int(k)


class TermSelector(SelectorMixin, BaseEstimator):
    """Keep the best terms under any registered scoring method.

    Parameters
    ----------
    method : str or callable
        A canonical method name (``textsift methods`` lists them), e.g. ``"chi2"``, ``"bns"``,
        ``"rc"``, ``"ig_multi"``; or your own scoring function ``f(counts, **method_params)``
        of a :class:`~textsift.counts.Counts`, returning one score per term or per term and
        class (the policy then globalises them), higher is better -- no registration needed::

            def doc_share(counts):  # share of a term's documents in each class
                return counts.doc_counts / np.maximum(counts.df, 1)[:, None]

            TermSelector(doc_share, k=500)
    k : int or "all", default=10
        Number of terms kept, unless ``ratio`` or ``threshold`` is given.
    ratio : float in (0, 1], optional
        Keep ``max(1, ceil(ratio * n_ranked))`` terms (the reduction level of METHODS.md §0.5).
    threshold : float, optional
        Keep every term whose (globalised) score is ``>= threshold``; not with ``rr``.
    aggregate : {"max", "sum", "wavg", "rr"}, optional
        How per-class scores become one ranking; default the method's own (``max`` for most).
    class_label : optional
        Rank by this class's one-vs-rest scores only.
    rr_variant : {"skip", "turn_consumed"}
        Round-robin duplicate rule (METHODS.md §0.6).
    classes : array-like, optional
        The full label set (e.g. the whole rating scale), when ``y`` may miss some of it; for
        an indicator matrix ``y``, the name of each of its columns.
    method_params : dict, optional
        Keyword parameters of the scoring function (e.g. ``{"base": 10}`` for ``ig``).

    Attributes
    ----------
    scores_ : pandas.DataFrame (n_features x groups)
        Scores of every term for every class (or group); ``-inf`` for unseen terms.
    ranking_ : ndarray
        Feature indices, best first (the whole vocabulary, or the first ``k`` under ``rr``).
    selected_ : ndarray
        Indices of the kept features in rank order.
    counts_ : Counts
        The sufficient statistics the scores were computed from.
    """

    def __init__(
        self,
        method="chi2",
        k=10,
        ratio=None,
        threshold=None,
        aggregate=None,
        class_label=None,
        rr_variant="skip",
        classes=None,
        method_params=None,
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

    def fit(self, X, y):
        """Count ``X`` against ``y`` and rank its terms. ``y`` is one label per document, or
        label sets: a 0/1 indicator matrix (dense or sparse, as scikit-learn's
        ``MultiLabelBinarizer`` gives; ``classes`` then names its columns) or a list of label
        lists -- any labelling :func:`textsift.labels.as_labels` reads, each label scored
        against the documents without it."""
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
        counts = Counts.from_matrix(X, y, classes=classes, feature_names=names)
        return self.fit_counts(counts)

    def _check_labels(self, y):
        """``(y, classes)`` for counting: the labels as given and the declared class set."""
        return y, self.classes

    def fit_counts(self, counts: Counts):
        """Fit from precomputed :class:`Counts` (e.g. streamed or summed over chunks)."""
        if self.ratio is not None and self.threshold is not None:
            raise TextsiftError("give at most one of ratio and threshold (k is the default)")
        aggregate = self.aggregate or default_aggregate(self.method)
        table = score_table(counts, self.method, self.method_params)
        n_terms = counts.n_terms
        n_keep = None
        if self.threshold is None:
            n_keep = resolve_k(n_terms, int(counts.seen.sum()), self.k, self.ratio)
        elif aggregate == "rr":
            raise TextsiftError("a score threshold does not apply to the round-robin policy")
        limit = n_keep if aggregate == "rr" else None
        r = ranking_of(table, aggregate, self.class_label, self.rr_variant, limit)
        if self.threshold is not None:
            keep = r.index[r.score >= self.threshold]
        else:
            keep = r.index[:n_keep]
        self.counts_ = counts
        self.classes_ = counts.classes
        self.ranking_ = r.index
        self.ranking_scores_ = r.score
        self.selected_ = keep
        self.scores_ = pd.DataFrame(
            table.values,
            columns=pd.Index(list(table.groups), name="group"),
            index=pd.Index(
                counts.feature_names if counts.feature_names is not None else np.arange(n_terms),
                name="term",
            ),
        )
        if not hasattr(self, "n_features_in_"):
            self.n_features_in_ = n_terms
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "selected_")
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


class OrdinalSelector(TermSelector):
    """Keep the best terms for ordinal regression (METHODS.md §A): a :class:`TermSelector`
    restricted to the ordinal methods, whose labels must be ordered integer ranks.

    Parameters
    ----------
    method : str, default="rr_nc_idf"
        ``var``, ``var_idf``, ``rr_var``, ``rr_var_idf``, ``rr_igor``, ``rr_nc_idf`` or ``prp``
        (provisional).
    k : int or "all", default=10
        Number of terms kept, unless ``ratio`` is given.
    ratio : float in (0, 1], optional
        Reduction level ``|S|/|T|``: keep ``max(1, ceil(ratio * n_ranked))`` terms.
    ranks : array-like of int, optional
        The full rating scale (e.g. ``[1, 2, 3, 4, 5]``). Ranks with no training documents
        then still exist for the RR methods (§0.7), and a rating outside the scale is an
        error. Default: the ranks present in ``y``.
    rr_variant : {"skip", "turn_consumed"}
        Round-robin duplicate rule (only matters for ``rr_igor``, whose lists overlap).
    method_params : dict, optional
        E.g. ``{"a": 0.5}`` (IDF exponent), ``{"eps": 0.1}``, ``{"idf": "smooth"}``.
    """

    # The TermSelector options that do not apply to ordinal methods.
    threshold = None
    aggregate = None
    class_label = None

    def __init__(self, method="rr_nc_idf", k=10, ratio=None, ranks=None, rr_variant="skip",
                 method_params=None):
        self.method = method
        self.k = k
        self.ratio = ratio
        self.ranks = ranks
        self.rr_variant = rr_variant
        self.method_params = method_params

    @property
    def classes(self):
        return self.ranks

    def _check_labels(self, y):
        # label sets (lists, an indicator) are refused as the ordinal methods refuse them
        check_requirement(("ranks",), as_labels(y), getattr(self.method, "__name__",
                                                             self.method))
        return check_ranks(y, self.ranks)  # ordered integer ranks and their scale

    def fit_counts(self, counts: Counts):
        """Fit from precomputed :class:`Counts` whose classes are the ranks of the scale."""
        if not callable(self.method) and get_method(self.method).kind != "ordinal":
            ordinal = sorted(n for n, m in REGISTRY.items() if m.kind == "ordinal")
            raise TextsiftError(
                f"{self.method!r} is not an ordinal method; choose one of {', '.join(ordinal)}"
            )
        check_ranks(counts.classes)
        return super().fit_counts(counts)
