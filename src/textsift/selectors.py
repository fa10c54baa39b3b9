"""scikit-learn compatible term selectors over the scoring registry.

:func:`rank` turns counts into a :class:`TermRanking` (the terms, best first, with their
scores and the policy used); :class:`TermSelector` keeps one as an estimator (``fit``/
``transform``, ``get_feature_names_out``) and derives its selection from it, usable in
``Pipeline`` and ``GridSearchCV``::

    Pipeline([("vec", CountVectorizer()), ("sel", TermSelector("bns", k=500)),
              ("clf", LinearSVC())])
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .counts import BLOCK_CELLS, Counts
from .errors import TextsiftError
from .policies import AGGREGATES, Ranking, globalise, n_from_ratio, rank_scores, rank_terms
from .ranks import check_ranks
from .scores import REGISTRY, Method, ScoreTable, check_applies, compute, compute_many, get_method
from .scores._registry import PerClass

__all__ = ["OrdinalSelector", "TermRanking", "TermSelector", "check_method", "default_aggregate",
           "rank", "ranking_of", "resolve_k", "score_all", "score_table"]


@dataclass(frozen=True, eq=False)
class TermRanking:
    """Terms ranked by one method under one policy: what :func:`rank` returns and what a
    fitted :class:`TermSelector` keeps (``ranking_``).

    Attributes
    ----------
    index : ndarray of shape (n,), int
        Feature indices, best first: the whole vocabulary, or its first ``top`` terms.
    scores : ndarray of shape (n,), float
        The score each term was ranked by: its globalised score, its score in
        ``class_label``'s column, or for ``rr`` its score in the group it was taken from.
    groups : ndarray of shape (n,), object, or None
        For ``rr``, the group (class, rank or cut) each term was taken from, ``None`` for the
        terms no group listed (ranked after the round robin by their best score); ``None``
        under the other policies.
    policy : str
        The policy actually used: ``max``, ``sum``, ``wavg`` or ``rr`` -- ``max`` on a
        single column (a global score, or ``class_label``'s), where every policy is the
        identity.
    method : str
        The method's name (a scoring function's ``__name__``).
    class_label : object or None
        The class whose one-vs-rest scores were ranked, if one was.
    feature_names : ndarray of shape (V,) or None
        The names of the vocabulary, when the counts have them.
    """

    index: np.ndarray
    scores: np.ndarray
    groups: np.ndarray | None
    policy: str
    method: str
    class_label: object = None
    feature_names: np.ndarray | None = None

    @property
    def terms(self) -> np.ndarray:
        """The ranked terms' names (their indices as strings when the counts have none)."""
        names = self.feature_names
        return names[self.index] if names is not None else self.index.astype(str)

    def __len__(self) -> int:
        return len(self.index)

    def to_frame(self) -> pd.DataFrame:
        """The ranking as a table: ``rank`` (from 1), ``term``, ``score``, and ``group`` when
        the policy is a round robin."""
        frame = pd.DataFrame({"rank": np.arange(1, len(self) + 1), "term": self.terms,
                              "score": self.scores})
        if self.groups is not None:
            frame["group"] = self.groups
        return frame


def score_table(counts: Counts, method, params: dict | None = None) -> ScoreTable:
    """The scores of every term: :func:`textsift.scores.compute` for a registered method name,
    or a user's own scoring function ``method(counts, **params)`` called as it is (one score
    per term, one per term and class, or a :class:`~textsift.scores.ScoreTable`). NaN scores
    and unseen terms are ``-inf``: never ranked. A registered method is first checked against
    the labels of ``counts`` (:func:`check_method`)."""
    check_method(counts, method)
    return compute(counts, method, **(params or {}))


def check_method(counts: Counts, method) -> None:
    """Raise unless ``method`` applies to the labels of ``counts``
    (:func:`textsift.scores.check_applies`: ordered integer ranks for the ordinal methods;
    one label per document, which :class:`Counts` always has today). A user's function is
    taken as it is."""
    if not callable(method):
        check_applies(method, ranks=_are_ranks(counts.classes))


def _are_ranks(classes) -> bool:
    """Whether labels are integer ranks (numbers with integer values; their scale is checked
    by :func:`textsift.ranks.check_ranks` when a method reads it)."""
    c = np.asarray(classes)
    return c.dtype.kind in "biuf" and bool(np.all(np.isfinite(c) & (c == np.round(c))))


def default_aggregate(method) -> str:
    """The policy a method ranks by unless told otherwise (``max`` for a user's function)."""
    if isinstance(method, Method):
        return method.default_aggregate
    return "max" if callable(method) else get_method(method).default_aggregate


def _reads_term_freq(method) -> bool:
    """Whether a method reads ``Counts.term_freq`` (a user's function may)."""
    if isinstance(method, Method):
        return method.reads_term_freq
    return callable(method) or get_method(method).reads_term_freq


def _name(method) -> str:
    if isinstance(method, Method):
        return method.name
    return getattr(method, "__name__", repr(method)) if callable(method) else str(method)


def ranking_of(
    table: ScoreTable | PerClass,
    aggregate: str,
    class_label=None,
    rr_variant: str = "skip",
    limit: int | None = None,
) -> Ranking:
    """Rank a score table under a policy, or by one group's column (``class_label``; a
    class-independent score, a single ``"all"`` column, is the same for every class).

    ``table`` is a :class:`~textsift.scores.ScoreTable` or a per-class table in sparse form
    (``compute(..., dense=False)``). ``max``, ``sum`` and ``wavg`` globalise it by blocks of
    rows (``textsift.counts.BLOCK_CELLS`` cells), and a column is read alone, so neither
    writes or copies the (V, m) table: the memory of a ranking does not grow with the number
    of classes. A round robin reads whole columns: it takes the dense table."""
    if aggregate not in AGGREGATES:
        raise TextsiftError(
            f"unknown aggregate {aggregate!r}; choose one of {', '.join(AGGREGATES)}")
    groups = np.asarray(table.groups)
    if class_label is not None and len(groups) > 1:
        matches = np.flatnonzero(groups.astype(str) == str(class_label))
        if len(matches) == 0:
            raise TextsiftError(
                f"class {class_label!r} is not among the scored groups "
                f"{[str(g) for g in groups]}"
            )
        return rank_scores(table.column(matches[0]), table.seen, limit)
    if len(groups) == 1:  # every policy is the identity on a single column
        return rank_scores(table.column(0), table.seen, limit)
    if aggregate == "rr":
        return rank_terms(table.table().values, "rr", table.seen, table.weights, rr_variant,
                          limit)
    return rank_scores(_globalised(table, aggregate), table.seen, limit, aggregate)


def _globalised(table: ScoreTable | PerClass, aggregate: str) -> np.ndarray:
    """:func:`~textsift.policies.globalise` by blocks of rows, into one small buffer: the
    same values, to the bit, as on the whole table (each row is reduced alone)."""
    n_terms, m = len(table.seen), len(table.groups)
    step = max(1, BLOCK_CELLS // m)
    buffer = np.empty((min(step, n_terms), m))
    return np.concatenate(
        [globalise(table.rows(start, min(start + step, n_terms), buffer), aggregate,
                   table.weights) for start in range(0, n_terms, step)] or [np.zeros(0)])


def rank(
    counts: Counts,
    method,
    aggregate: str | None = None,
    class_label=None,
    top: int | None = None,
    rr_variant: str = "skip",
    **params,
) -> TermRanking:
    """The terms of ``counts`` ranked by ``method`` (a registered name, a
    :class:`~textsift.scores.Method`, or a scoring function, see :func:`score_table`) under
    ``aggregate`` (default: the method's own policy) or by ``class_label``'s column: the
    whole vocabulary, or its first ``top`` terms (which spares a round robin its later
    turns). ``params`` go to the method."""
    aggregate = aggregate or default_aggregate(method)
    if top is not None and top <= 0:
        raise TextsiftError(f"top must be a positive number of terms, got {top}")
    check_method(counts, method)
    table = compute(counts, method, dense=False, **params)  # ranked without the dense table
    r = ranking_of(table, aggregate, class_label, rr_variant, limit=top)
    groups = None
    if r.policy == "rr":
        labels = np.asarray(table.groups, dtype=object)
        groups = np.where(r.group >= 0, labels[np.maximum(r.group, 0)], None)
    return TermRanking(r.index, r.score, groups, r.policy, _name(method), class_label,
                       counts.feature_names)


def score_all(counts: Counts, aggregate: str | None = None, class_label=None,
              top: int = 20) -> pd.DataFrame:
    """Every nominal method's score side by side: a column per method, each its globalised
    score under ``aggregate`` (default: the method's own policy) or ``class_label``'s column;
    the rows are the terms in some method's top ``top``, in vocabulary order. A round robin
    gives an order, not a score, so ``aggregate="rr"`` is refused."""
    if aggregate == "rr":
        raise TextsiftError("score_all gives one score per method and term; the round robin "
                            "('rr') gives an order, not a score: use 'max', 'sum' or 'wavg'")
    columns = {}
    for name, table in compute_many(counts, reuse=True):  # one table's memory for them all
        r = ranking_of(table, aggregate or REGISTRY[name].default_aggregate, class_label)
        col = np.empty(counts.n_terms)
        col[r.index] = r.score
        columns[name] = (col, r.index[:top])
    keep = np.unique(np.concatenate([best for _, best in columns.values()]))
    names = counts.feature_names
    out = pd.DataFrame({"term": names[keep] if names is not None else keep.astype(str)})
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
        The full label set (e.g. the whole rating scale), when ``y`` may miss some of it.
    method_params : dict, optional
        Keyword parameters of the scoring function (e.g. ``{"base": 10}`` for ``ig``).

    Attributes
    ----------
    ranking_ : TermRanking
        The ranked terms with their scores and the policy used: the whole vocabulary, or
        under ``rr`` its first ``k`` terms (a round robin's later turns are not taken).
    selected_ : ndarray
        Indices of the kept features in rank order, derived from ``ranking_`` for the
        current ``k``, ``ratio`` or ``threshold`` when read (as scikit-learn's selectors
        derive their support mask): ``set_params(k=...)`` after ``fit`` changes the
        selection without a refit. Under ``rr``, a larger ``k`` than the fit ranked re-ranks
        ``counts_`` up to it (the round robin's further turns) and keeps that ranking. The
        other parameters (method, policy, class, ``method_params``) take effect at the next
        fit.
    scores_ : pandas.DataFrame (n_features x groups)
        Scores of every term for every class (or group); ``-inf`` for unseen terms. Computed
        from ``counts_`` each time it is read (a fit never builds it).
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
        X, y = validate_data(
            self, X, y, accept_sparse="csr", dtype=None, ensure_all_finite=True,
            ensure_min_features=1,
        )
        y, classes = self._check_labels(y)
        if X.dtype.kind not in "biuf":
            X = X.astype(np.float64)
        names = getattr(self, "feature_names_in_", None)
        counts = Counts.from_matrix(X, y, classes=classes, feature_names=names,
                                    term_freq=_reads_term_freq(self.method))
        return self.fit_counts(counts)

    def _check_labels(self, y):
        """``(y, classes)`` for counting: the labels as given and the declared class set."""
        return y, self.classes

    def fit_counts(self, counts: Counts):
        """Fit from precomputed :class:`Counts` (e.g. streamed or summed over chunks)."""
        policy = self._policy()
        n_keep = self._n_keep(counts, policy)
        self.ranking_ = self._rank(counts, n_keep if policy == "rr" else None)
        self.counts_ = counts
        self.classes_ = counts.classes
        if not hasattr(self, "n_features_in_"):
            self.n_features_in_ = counts.n_terms
        return self

    def _policy(self) -> str:
        return self.aggregate or default_aggregate(self.method)

    def _n_keep(self, counts: Counts, policy: str) -> int | None:
        """The number of terms ``k`` or ``ratio`` asks for (``None`` with a threshold)."""
        if self.ratio is not None and self.threshold is not None:
            raise TextsiftError("give at most one of ratio and threshold (k is the default)")
        if self.threshold is None:
            return resolve_k(counts.n_terms, int(counts.seen.sum()), self.k, self.ratio)
        if policy == "rr":
            raise TextsiftError("a score threshold does not apply to the round-robin policy")
        return None

    def _rank(self, counts: Counts, limit: int | None) -> TermRanking:
        return rank(counts, self.method, self._policy(), self.class_label, top=limit,
                    rr_variant=self.rr_variant, **(self.method_params or {}))

    @property
    def selected_(self) -> np.ndarray:
        ranking = self.ranking_
        n_keep = self._n_keep(self.counts_, ranking.policy)
        if n_keep is None:
            return ranking.index[ranking.scores >= self.threshold]
        if len(ranking) < n_keep:  # a round robin stopped short of this k: its next turns
            ranking = self.ranking_ = self._rank(self.counts_, n_keep)
        return ranking.index[:n_keep]

    @property
    def scores_(self) -> pd.DataFrame:
        counts = self.counts_
        table = score_table(counts, self.method, self.method_params)
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
