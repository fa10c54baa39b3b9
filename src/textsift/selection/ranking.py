"""Terms ranked by a method under a policy: the step from counts to an ordered vocabulary.

:func:`rank` scores the counts (:func:`textsift.scores.compute`) and ranks them under a policy
(:mod:`textsift.selection.policies`) into a :class:`TermRanking` -- the terms best first, with their
scores, the groups a round robin took them from and the policy actually used. It ranks a
per-class table without writing it whole (:func:`ranking_of`), so its memory does not grow
with the number of classes. :class:`~textsift.selection.selectors.TermSelector` keeps one such
ranking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..counting.counts import Counts
from ..errors import TextsiftError
from ..labels import group_index
from ..scores import (
    REGISTRY,
    SIGNED_POLICIES,
    Method,
    ScoreTable,
    compute,
    compute_many,
    get_method,
    policy_refusal,
)
from ..scores._per_class import nonempty_classes
from ..scores.direction import check_direction
from ..scores.direction import direction as direction_table
from .policies import AGGREGATES, Ranking, rank_scores

__all__ = ["TermRanking", "class_terms", "default_aggregate", "rank", "rank_per_class",
           "ranking_of", "score_all", "score_table", "shown_direction"]


@dataclass(frozen=True, eq=False, repr=False)
class TermRanking:
    """Terms ranked by one method under one policy: what :func:`rank` returns and what a
    fitted :class:`~textsift.selection.selectors.TermSelector` keeps (``ranking_``).

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
    direction : {"over", "under", "both"}
        Which terms were ranked: those over-represented in the class (in each class, for a
        policy over classes), under-represented, or both
        (:mod:`textsift.scores.direction`).
    signs : ndarray of shape (n,) or None
        For a class's ranking, each ranked term's direction in that class: ``+1``
        over-represented, ``-1`` under-represented, ``0`` neither.
    """

    index: np.ndarray
    scores: np.ndarray
    groups: np.ndarray | None
    policy: str
    method: str
    class_label: object = None
    feature_names: np.ndarray | None = None
    direction: str = "both"
    signs: np.ndarray | None = None

    @property
    def terms(self) -> np.ndarray:
        """The ranked terms' names (their indices as strings when the counts have none)."""
        names = self.feature_names
        return names[self.index] if names is not None else self.index.astype(str)

    def __len__(self) -> int:
        return len(self.index)

    def head(self, n: int) -> TermRanking:
        """The first ``n`` ranked terms."""
        from dataclasses import replace

        cut = slice(0, max(0, int(n)))
        return replace(self, index=self.index[cut], scores=self.scores[cut],
                       groups=None if self.groups is None else self.groups[cut],
                       signs=None if self.signs is None else self.signs[cut])

    def __repr__(self) -> str:
        on = f"class {self.class_label}" if self.class_label is not None else self.policy
        return f"TermRanking of {len(self)} terms by {self.method} ({on}):\n{self.to_frame()}"

    def to_frame(self) -> pd.DataFrame:
        """The ranking as a table: ``position`` (from 1, the best), ``term``, ``score``,
        ``group`` when the policy is a round robin, and ``direction`` (``over`` or ``under``)
        when a class's ranking holds both."""
        frame = pd.DataFrame({"position": np.arange(1, len(self) + 1), "term": self.terms,
                              "score": self.scores})
        if self.groups is not None:
            frame["group"] = self.groups
        if self.signs is not None and self.direction == "both":
            frame["direction"] = direction_words(self.signs)
        return frame


def direction_words(signs: np.ndarray) -> np.ndarray:
    """``+1, -1, 0`` as ``"over"``, ``"under"``, ``""``."""
    return np.select([signs > 0, signs < 0], ["over", "under"], "").astype(object)


def score_table(counts: Counts, method, params: dict | None = None) -> ScoreTable:
    """The scores of every term: :func:`textsift.scores.compute` for a registered method name,
    or a user's own scoring function ``method(counts, **params)`` called as it is (one score
    per term, one per term and class, or a :class:`~textsift.scores.ScoreTable`). NaN scores
    and unseen terms are ``-inf``: never ranked. A registered method is first checked against
    the labels of ``counts`` (:func:`textsift.labels.check_requirement`, in ``compute``)."""
    return compute(counts, method, **(params or {}))


def default_aggregate(method) -> str:
    """The policy a method ranks by unless told otherwise (``max`` for a user's function)."""
    if isinstance(method, Method):
        return method.default_aggregate
    return "max" if callable(method) else get_method(method).default_aggregate


def _name(method) -> str:
    if isinstance(method, Method):
        return method.name
    return getattr(method, "__name__", repr(method)) if callable(method) else str(method)


def ranking_of(
    table: ScoreTable,
    aggregate: str,
    class_label=None,
    rr_variant: str = "skip",
    limit: int | None = None,
    signs: ScoreTable | None = None,
    direction: str = "both",
) -> Ranking:
    """Rank a score table under a policy, or by one group's column (``class_label``; a
    class-independent score, a single ``"all"`` column, is the same for every class).

    ``table`` is a :class:`~textsift.scores.ScoreTable` or a per-class table in sparse form
    (``compute(..., dense=False)``), which is never written whole: a column is read alone
    (or, for its first ``limit`` terms, found from the class's non-zero cells:
    :func:`textsift.selection.classwise.top`); ``max``, ``sum`` and ``wavg`` globalise it by blocks
    of
    rows (``textsift.counting.counts.BLOCK_CELLS`` cells), or, on counts of the sparse layout, from
    its
    non-zero cells (:func:`textsift.selection.classwise.reduce`); a round robin reads whole columns
    of
    a dense layout's table and asks each class of a sparse one for the terms its turns
    reach (:func:`textsift.selection.classwise.round_robin`). The memory of a ranking does not grow
    with the number of classes.

    ``signs`` (:func:`textsift.scores.direction.direction` of the same counts) and
    ``direction`` (``"over"`` or ``"under"``) keep only the terms of that direction in the
    class ranked, or, under a policy, each term's scores in the classes where it has that
    direction (the others read as ``-inf``; read from the table's rows and columns);
    ``"both"`` ranks every term. Direction is read for the groups that are classes of the
    counts (not an ordinal method's cuts)."""
    if aggregate not in AGGREGATES:
        raise TextsiftError(
            f"unknown aggregate {aggregate!r}; choose one of {', '.join(AGGREGATES)}")
    groups = np.asarray(table.groups)
    directed = signs is not None and direction != "both"
    if class_label is not None and len(groups) > 1:
        j = group_index(groups, class_label, "scored groups")
        if directed:
            return rank_scores(_directed_column(table.column(j), signs, direction,
                                                class_label), table.seen, limit)
        index, score = table.top_many([j], limit)[0]
        return Ranking(index, score, np.full(len(index), -1, dtype=np.intp), "max")
    if len(groups) == 1:  # every policy is the identity on a single column
        if table.signed and class_label is None:
            return _rank_signed(table.column(0), table.seen, limit, direction)
        return rank_scores(_directed_column(table.column(0), signs, direction, class_label),
                           table.seen, limit)
    one_way = directed and _same_groups(groups, signs.groups)
    if table.signed and aggregate in SIGNED_POLICIES and not one_way:
        raise TextsiftError(policy_refusal(aggregate))
    if one_way:
        table = table.directed(signs, 1 if direction == "over" else -1)
    if aggregate == "rr":
        return table.rank_rr(rr_variant, limit)
    return rank_scores(table.reduce(aggregate), table.seen, limit, aggregate)


def _rank_signed(values: np.ndarray, seen, limit: int | None, direction: str) -> Ranking:
    """A signed score of the whole table (one column: ``mann_whitney``'s z, positive where
    the term's documents rank higher) ranked two-sided, by its size, as its test is
    (``"both"``), or only the terms of one sign, strongest first (``"over"``: positive,
    ``"under"``: negative); the scores keep their sign."""
    values = np.asarray(values, dtype=np.float64)
    scored = values > -np.inf
    size = np.where(scored, np.abs(values), -np.inf)
    if direction == "over":
        size[values <= 0] = -np.inf
    elif direction == "under":
        size[values >= 0] = -np.inf
    ranked = rank_scores(size, seen, limit)
    shown = np.where(ranked.scores > -np.inf, values[ranked.index], -np.inf)
    return Ranking(ranked.index, shown, ranked.groups, ranked.policy)


def _same_groups(groups, classes) -> bool:
    return len(groups) == len(classes) and bool(
        (np.asarray(groups).astype(str) == np.asarray(classes).astype(str)).all())


def _directed_column(values: np.ndarray, signs: ScoreTable | None, direction: str,
                     class_label) -> np.ndarray:
    """A class's column with the terms of the other direction as ``-inf`` (a copy)."""
    if signs is None or direction == "both" or class_label is None:
        return values
    groups = np.asarray(signs.groups).astype(str)
    if str(class_label) not in groups:
        return values
    s = signs.column(group_index(groups, class_label))
    return np.where(s == (1 if direction == "over" else -1), values, -np.inf)


def _shown(groups, n: int = 30) -> str:
    """The first ``n`` groups, for a message."""
    names = [str(g) for g in groups[:n]]
    return "[" + ", ".join(names) + (", ...]" if len(groups) > n else "]")


def rank(
    counts: Counts,
    method,
    aggregate: str | None = None,
    class_label=None,
    top: int | None = None,
    rr_variant: str = "skip",
    direction: str | None = None,
    **params,
) -> TermRanking:
    """The terms of ``counts`` ranked by ``method`` (a registered name, a
    :class:`~textsift.scores.Method`, or a scoring function, see :func:`score_table`) under
    ``aggregate`` (default: the method's own policy) or by ``class_label``'s column: the
    whole vocabulary, or its first ``top`` terms (which spares a round robin its later
    turns). ``direction`` keeps the terms over-represented in the class (``"over"``; under
    a policy, each term's scores in the classes where it is), under-represented
    (``"under"``) or both (:func:`ranking_of`); by default (``None``) a class's ranking
    shows its over-represented terms and a policy's ranking every term
    (:func:`shown_direction`, as ``textsift score`` shows them). ``params`` go to the
    method."""
    direction = shown_direction(direction, class_label)
    aggregate = aggregate or default_aggregate(method)
    if top is not None and top <= 0:
        raise TextsiftError(f"top must be a positive number of terms, got {top}")
    check_direction(direction)
    table = compute(counts, method, dense=False, **params)  # ranked without the dense table
    signs = direction_of(counts, class_label, direction)
    r = ranking_of(table, aggregate, class_label, rr_variant, top, signs, direction)
    groups = None
    if r.policy == "rr":
        labels = np.asarray(table.groups, dtype=object)
        groups = np.where(r.groups >= 0, labels[np.maximum(r.groups, 0)], None)
    return TermRanking(r.index, r.scores, groups, r.policy, _name(method), class_label,
                       counts.feature_names, direction, _signs_of(signs, class_label, r.index))


def shown_direction(direction: str | None, class_label=None, per_class: bool = False) -> str:
    """The direction of a view: ``direction`` when given, else ``"over"`` where a class's
    terms are shown (``class_label``, or every class's own ranking) -- what a reader of
    "the terms of class c" means (:mod:`textsift.scores.direction`) -- and ``"both"`` for
    the ranking of all classes under a policy. The one default of :func:`rank` and the
    command line's ``--direction``."""
    if direction is not None:
        return direction
    return "over" if class_label is not None or per_class else "both"


def direction_of(counts: Counts, class_label=None, direction: str = "both") -> ScoreTable | None:
    """The direction table a ranking needs: for a class's ranking (always: it marks each
    term), or for a policy that keeps one direction; ``None`` otherwise."""
    if class_label is None and direction == "both":
        return None
    return direction_table(counts)


def _signs_of(signs: ScoreTable | None, class_label, index: np.ndarray) -> np.ndarray | None:
    if signs is None or class_label is None:
        return None
    groups = np.asarray(signs.groups).astype(str)
    if str(class_label) not in groups:
        return None
    return signs.column(group_index(groups, class_label))[index]


def rank_per_class(counts: Counts, method, top: int | None = None, direction: str = "over",
                   **params) -> list[TermRanking]:
    """Every class's own ranking: the terms ranked by the class's column of ``method``'s
    table (its one-vs-rest scores; for label sets, a label's; for an ordinal method, a
    rank's or a cut's), one :class:`TermRanking` per column in the table's order, each
    holding its first ``top`` terms (default: every term) that have a score in that column
    (above ``-inf``). The one-shot view of "the top terms of every class", as scattertext's
    and Weka's per-class term lists give it; the table is scored once and read a column at
    a time (never written whole). A global score (one column, e.g. ``ig_multi``) ranks
    every class alike, so it is refused.

    ``direction`` (default ``"over"``) keeps each class's over-represented terms, as a
    person reading "the terms of class c" means them (:mod:`textsift.scores.direction`);
    ``"under"`` its under-represented ones, ``"both"`` every term, each marked
    (``TermRanking.signs``)."""
    if top is not None and top <= 0:
        raise TextsiftError(f"top must be a positive number of terms, got {top}")
    check_direction(direction)
    table = compute(counts, method, dense=False, **params)
    groups = np.asarray(table.groups, dtype=object)
    if len(groups) == 1:
        raise TextsiftError(f"{_name(method)} gives one score per term, not one per class, so "
                            "every class would have the same ranking; choose a method that "
                            "scores each class (chi2, ig, bns, ...: `textsift methods`)")
    name = _name(method)
    classes = np.arange(len(groups))
    signs = None
    if _same_groups(groups, nonempty_classes(counts).classes):  # else not classes (cuts)
        if direction != "both":
            signs = direction_table(counts)
            table = table.directed(signs, 1 if direction == "over" else -1)
        # a table held by its cells: each term's mark read from the cell it was found in
        found = table.top_signs(classes, top) if top is not None else None
        if found is not None:
            return [TermRanking(t[v > -np.inf], v[v > -np.inf], None, "max", name, group,
                                counts.feature_names, direction, s[v > -np.inf])
                    for group, (t, v, s) in zip(groups, found, strict=True)]
        if signs is None:
            signs = direction_table(counts)
    best = table.top_many(classes, top)  # each class's best terms
    kept = [(index[score > -np.inf], score[score > -np.inf]) for index, score in best]
    marks = [None] * len(kept)
    if signs is not None:  # every class's marks in one search
        sizes = [len(t) for t, _ in kept]
        found = signs.values_at(np.concatenate([t for t, _ in kept]),
                                np.repeat(np.arange(len(kept)), sizes))
        marks = np.split(found, np.cumsum(sizes)[:-1])
    return [TermRanking(terms, score, None, "max", name, group, counts.feature_names,
                        direction, mark)
            for group, (terms, score), mark in zip(groups, kept, marks, strict=True)]


def class_terms(counts: Counts, method, policy: str | None = None, top: int = 10,
                direction: str = "over", *, table=None, order=None, **params) -> pd.DataFrame:
    """The top ``top`` terms of each class (rank, label) of ``counts`` under ``method`` (a
    registered name or a scoring function, with ``params``): the class's own column of the
    scores when the method scores each class, otherwise the method's ranking under ``policy``
    (``None``: its default) cut into classes, each term going to the class whose documents
    contain it most often (the largest share of the class's documents). A class's own column
    lists the terms over-represented in it (``direction="over"``, what "the terms of a class"
    means; :mod:`textsift.scores.direction`), ``"under"`` the under-represented ones,
    ``"both"`` every term, each marked ``+`` or ``-``. ``table`` is the method's scores when
    they are at hand (:func:`textsift.scores.compute`, either form; of counts with the same
    terms), ``order`` that whole ranking. Index: the classes; columns ``training documents``
    (the class's) and ``terms`` (comma-separated, best first; ``attrs["index"]``: their
    indices, a list per class); ``attrs["own_column"]`` says
    which of the two it is."""
    if table is None:
        table = compute(counts, method, dense=False, **params)
    classes = [str(c) for c in counts.classes]
    groups = [str(g) for g in table.groups]
    own_column = len(groups) > 1 and set(classes) <= set(groups)
    if own_column:
        lists, indices = _own_terms(counts, table, classes, top, direction)
    else:
        if order is None:
            order = ranking_of(table, policy or default_aggregate(method)).index
        home = counts.largest_share(order)
        indices = [order[home == j][:top] for j in range(len(classes))]
        lists = [counts.feature_names[index] for index in indices]
    out = pd.DataFrame({"training documents": counts.class_sizes,
                        "terms": [", ".join(map(str, t)) for t in lists]},
                       index=pd.Index(classes, name=None))
    out.attrs["own_column"] = bool(own_column)
    out.attrs["index"] = [np.asarray(index, dtype=np.intp).tolist() for index in indices]
    return out


def _own_terms(counts: Counts, table, classes: list[str], top: int, direction: str) -> list:
    """Each class's first ``top`` terms of its own column of ``table``, of ``direction``
    (marked ``+`` or ``-`` for both), and their indices: ``(lists, indices)``."""
    signs = direction_table(counts)
    signed = [str(g) for g in signs.groups]
    lists, indices = [], []
    for c in classes:
        r = ranking_of(table, "max", c, limit=top, signs=signs, direction=direction)
        index = r.index[r.scores > -np.inf]
        terms = counts.feature_names[index]
        if direction == "both" and c in signed:
            column = signs.column(signed.index(c))[index]
            marks = np.select([column > 0, column < 0], [" +", " -"], "")
            terms = [f"{t}{mark}" for t, mark in zip(terms, marks, strict=True)]
        lists.append(terms)
        indices.append(index)
    return lists, indices


def score_all(counts: Counts, aggregate: str | None = None, class_label=None,
              top: int | None = 20, direction: str = "both") -> pd.DataFrame:
    """Every nominal method's score side by side: a column per method, each its globalised
    score under ``aggregate`` (default: the method's own policy) or ``class_label``'s column;
    the rows are the terms in some method's top ``top`` (``None``: every term), in
    vocabulary order. A round robin gives an order, not a score, so ``aggregate="rr"`` is
    refused; under ``sum`` and ``wavg`` the signed methods (``Method.signed``), which refuse
    them, are left out (unless ``direction`` keeps one direction). ``direction`` keeps the
    terms of one direction, as :func:`rank` does (a term of the other has no score there:
    ``-inf``)."""
    if aggregate == "rr":
        raise TextsiftError("score_all gives one score per method and term; the round robin "
                            "('rr') gives an order, not a score: use 'max', 'sum' or 'wavg'")
    check_direction(direction)
    signs = direction_of(counts, class_label, direction)
    columns = {}
    for name, table in compute_many(counts, dense=False):  # ranked without the (V, m) table
        if (table.signed and aggregate in SIGNED_POLICIES and class_label is None
                and direction == "both"):
            continue
        r = ranking_of(table, aggregate or REGISTRY[name].default_aggregate, class_label,
                       signs=signs, direction=direction)
        col = np.empty(counts.n_terms)
        col[r.index] = r.scores
        columns[name] = (col, None if top is None else r.index[:top])
    keep = (np.arange(counts.n_terms) if top is None else
            np.unique(np.concatenate([best for _, best in columns.values()])))
    names = counts.feature_names
    out = pd.DataFrame({"term": names[keep] if names is not None else keep.astype(str)})
    for name, (col, _) in columns.items():
        out[name] = col[keep]
    return out


