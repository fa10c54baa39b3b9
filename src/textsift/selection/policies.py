"""Selection policies: ranking, globalisation of per-group scores, top-k and round robin.

One implementation serves every method. A score table is a (V, G) float array: one column
per *group* -- a class (one-vs-rest), a rank, an ordinal binary split, or a single column for
a global score. The rules implemented here:

* The tables are clean: never NaN, and the rows of unseen terms are ``-inf``. That is the
  rule of :class:`~textsift.scores.ScoreTable`, established once where a table is made
  (:func:`textsift.scores.compute`, which turns NaN into ``-inf``); the functions here trust
  it and never copy a table to clean it. ``+inf`` sorts above every finite value.
* Ties: descending score, then ascending feature index (a stable sort).
* Unseen terms (``df = 0``) are never ranked: they follow every ranked term, by index.
* ``-inf`` means "no score in this group": in a round robin a group's candidate list holds the
  terms whose score in that column is greater than ``-inf`` (so a method marks "not a
  candidate of this group" with ``-inf``, as JaTeCS scores per category only the terms that
  occur in it), and ``sum`` and ``wavg`` add a term's scores over the groups where it has one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from .._choices import AGGREGATES
from ..errors import TextsiftError

__all__ = [
    "AGGREGATES",
    "Ranking",
    "globalise",
    "addends_of",
    "globalise_blocks",
    "n_from_ratio",
    "order",
    "rank_scores",
    "rank_terms",
    "resolve_k",
    "after_round_robin",
    "round_robin",
    "round_robin_lists",
    "settle",
    "size_note",
]


def order(score: np.ndarray, seen: np.ndarray | None = None,
          limit: int | None = None) -> np.ndarray:
    """Indices of ``score`` (one float per term, no NaN) by descending value, ties by
    ascending index; unseen terms last. ``limit`` keeps the first ``limit``
    (``order(s, seen)[:limit]``, found by a partial sort when that many seen terms score above
    ``-inf``).

    >>> order(np.array([1.0, 3.0, 3.0, -np.inf]))
    array([1, 2, 0, 3])
    """
    score = np.asarray(score, dtype=np.float64)
    if limit is not None and 0 < limit < len(score):
        ok = score > -np.inf
        if seen is not None:
            ok &= np.asarray(seen, dtype=bool)
        cand = score[ok]
        if limit <= len(cand):
            cut = np.partition(cand, len(cand) - limit)[len(cand) - limit]
            idx = np.flatnonzero(ok & (score >= cut))  # ties at the cut, by index
            return idx[np.argsort(-score[idx], kind="stable")][:limit]
    idx = np.argsort(-score, kind="stable")
    if seen is None:
        return idx[:limit]
    seen = np.asarray(seen, dtype=bool)
    return np.concatenate([idx[seen[idx]], np.flatnonzero(~seen)])[:limit]


def globalise(table: np.ndarray, aggregate: str, weights: np.ndarray | None = None) -> np.ndarray:
    """Collapse a clean (V, G) score table into one score per term (module docstring).

    ``max``: ``max_g f(t, g)``; ``sum``: ``sum_g f(t, g)``; ``wavg``: ``sum_g P(g) f(t, g)``
    with ``weights = P(g)`` (class priors). Follows JaTeCS ``MaximumTSRPolicy``,
    ``SumTSRPolicy`` and ``WeightedSumTSRPolicy``. Columns of excluded groups (classes with no
    documents) must be dropped by the caller.

    ``sum`` and ``wavg`` add a term's scores over the groups where it has one (``> -inf``; for
    ``wavg`` also of positive weight), and give ``-inf`` to a term with none. Without that
    rule a single ``-inf`` would sink a term: pointwise MI is ``-inf`` in every class that
    lacks the term, so every term missing from one class would sum to ``-inf`` and the
    ranking would be column order; so would the ordinal round-robin tables, ``-inf`` outside
    a term's own group. The sums are exact where the order needs it
    (:func:`globalise_blocks`): two terms whose scores are the same numbers in another order
    tie, and the tie goes to the lower index.
    """
    table = np.atleast_2d(np.asarray(table, dtype=np.float64).T).T
    return globalise_blocks(lambda start, stop: table[start:stop], table.shape[0],
                            max(table.shape[0], 1), aggregate, weights)


def globalise_blocks(rows, n_terms: int, step: int, aggregate: str,
                     weights: np.ndarray | None = None) -> np.ndarray:
    """:func:`globalise` of the (V, G) table whose rows ``start:stop`` ``rows(start, stop)``
    gives, ``step`` rows at a time (never the whole table at once).

    ``sum`` and ``wavg`` are numpy's sums, then :func:`settle`'d: numpy's sum of ``G``
    numbers ``x`` is within ``(G - 1) u sum|x|`` of their exact sum (``u`` the unit roundoff;
    Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, section 4.2), and the
    terms whose order that leaves in doubt (exact ties among them: the same scores in
    another order) are summed exactly, in a second pass over their blocks. The order by
    value, ties by lower index, is then the order of the exact sums. Two groups need no
    second pass: one addition is correctly rounded."""
    spans = [(a, min(a + step, n_terms)) for a in range(0, n_terms, step)]
    if aggregate == "max":
        return np.concatenate([rows(a, b).max(axis=1) for a, b in spans] or [np.zeros(0)])
    if aggregate not in ("sum", "wavg"):
        raise TextsiftError(f"unknown aggregate {aggregate!r}; choose one of max, sum, wavg, rr")
    if aggregate == "wavg" and weights is None:
        raise TextsiftError("aggregate='wavg' needs the class priors as weights")
    w = None if aggregate == "sum" else np.asarray(weights, dtype=np.float64)
    out, error = np.empty(n_terms), np.empty(n_terms)
    n_groups = 1
    for a, b in spans:
        terms, none = _addends(rows(a, b), w)
        n_groups = terms.shape[1]
        out[a:b] = np.where(none, -np.inf, terms.sum(axis=1))
        with np.errstate(invalid="ignore", over="ignore"):  # +inf scores: no doubt there
            error[a:b] = (n_groups - 1) * _UNIT * np.abs(terms).sum(axis=1)
    if n_groups <= 2:
        return out
    return settle(out, error, lambda terms: addends_of(rows, n_terms, step, terms, w))


def addends_of(rows, n_terms: int, step: int, terms: np.ndarray,
               weights: np.ndarray | None = None) -> np.ndarray:
    """The addends of ``sum`` (``weights=None``) or ``wavg`` of the rows ``terms``
    (ascending) of the (V, G) table that ``rows(start, stop)`` gives ``step`` rows at a time:
    only the blocks holding one of them are read."""
    parts = []
    for a in range(0, n_terms, step):
        b = min(a + step, n_terms)
        inside = terms[(terms >= a) & (terms < b)] - a
        if len(inside):
            parts.append(_addends(rows(a, b)[inside], weights)[0])
    return np.concatenate(parts)


#: The unit roundoff of float64 (half the distance from 1 to the next float).
_UNIT = np.finfo(np.float64).eps / 2


def settle(sums: np.ndarray, error: np.ndarray, addends) -> np.ndarray:
    """``sums`` with each term whose order could be the rounding's replaced by its exact sum
    (``math.fsum``, correctly rounded): ``error[i]`` bounds how far ``sums[i]`` is from
    the exact sum of its addends, and ``addends(terms)`` gives the addends (one row each) of
    the terms ``terms`` (ascending indices). A term whose interval ``sums +- 2 error`` meets
    no other's is ordered as its exact sum is; the others are summed exactly, each distinct
    multiset of addends once. The order of the result (by value, ties by lower index) is the
    order of the exact sums. In place; returns ``sums``."""
    with np.errstate(over="ignore"):
        doubt = np.flatnonzero(_in_doubt(sums, 2 * error))
    if len(doubt):
        sums[doubt] = _exact_sums(addends(doubt))
    return sums


def _exact_sums(terms: np.ndarray) -> np.ndarray:
    """``math.fsum`` of each row, once per distinct multiset of values: the same row, or the
    same scores in another order, is one sum."""
    rows, again = _distinct(terms)
    rows, more = _distinct(np.sort(rows, axis=1))
    return np.array([math.fsum(r) for r in rows.tolist()])[more][again]


def _distinct(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct, codes)``: the distinct rows of a 2-D float array (told apart by their
    bits) and each row's index among them (``distinct[codes]`` is ``rows``). Rows are
    grouped by a 64-bit hash of their bits, and every row is then compared with its group's
    first: a collision (never seen) falls back to ``numpy.unique`` of the rows."""
    bits = np.ascontiguousarray(rows).view(np.uint64)
    mixers = np.random.default_rng(0).integers(1, 2**62, size=bits.shape[1], dtype=np.uint64)
    hashed = (bits * (2 * mixers + 1)).sum(axis=1)  # odd multipliers, wrapping: a hash
    _, first, codes = np.unique(hashed, return_index=True, return_inverse=True)
    codes = codes.ravel()
    if (bits[first][codes] == bits).all():
        return rows[first], codes
    _, first, codes = np.unique(bits, axis=0, return_index=True, return_inverse=True)
    return rows[first], codes.ravel()


def _addends(table: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """``(addends, none)``: the (rows, G) values a term's ``sum`` (``weights=None``) or
    ``wavg`` adds -- 0 where it has no score (``-inf``; for ``wavg`` also a group of weight
    0, as ``0 * inf`` is NaN) -- and whether a row has none at all."""
    table = np.atleast_2d(np.asarray(table, dtype=np.float64).T).T
    scored = table > -np.inf
    if weights is not None:
        scored &= weights[None, :] > 0
        with np.errstate(invalid="ignore"):
            table = table * weights[None, :]
    if scored.all():  # every term scored in every group: the table itself
        return table, np.zeros(len(table), dtype=bool)
    return np.where(scored, table, 0.0), ~scored.any(axis=1)


def _in_doubt(sums: np.ndarray, error: np.ndarray) -> np.ndarray:
    """The finite ``sums`` whose interval ``sum +- error`` meets another's: those whose order
    may be the rounding's rather than their exact sums' (each is within ``error / 2`` of its
    exact sum). A sweep over the intervals by their lower ends."""
    finite = np.flatnonzero(np.isfinite(sums))
    by_low = finite[np.argsort(sums[finite] - error[finite], kind="stable")]
    low, high = sums[by_low] - error[by_low], sums[by_low] + error[by_low]
    reach = np.maximum.accumulate(high)  # the highest end of the intervals so far
    meets = np.zeros(len(by_low), dtype=bool)
    meets[1:] |= low[1:] <= reach[:-1]  # an interval before reaches this one
    meets[:-1] |= high[:-1] >= low[1:]  # this one reaches the next (then any later)
    doubt = np.zeros(len(sums), dtype=bool)
    doubt[by_low[meets]] = True
    return doubt


def round_robin(
    table: np.ndarray, n_select: int, variant: str = "skip"
) -> tuple[np.ndarray, np.ndarray]:
    """Round robin over the columns of a (V, G) score table (module docstring).

    Each group ``g`` ranks its candidates (score > ``-inf``) by descending score, ties by
    index. Groups take turns in column order ``0, 1, ..., G-1, 0, ...``; on its turn a group
    appends its best candidate not yet selected (``variant="skip"``, the default), or pops its
    top entry and loses the turn if that term was already taken (``variant="turn_consumed"``,
    JaTeCS ``RoundRobinTSR``). A group with no candidates left is skipped. Stops after
    ``n_select`` picks or when every list is exhausted.

    Returns ``(selected, group)``: term indices in pick order and the column each was taken
    from.
    """
    table = np.atleast_2d(np.asarray(table, dtype=np.float64).T).T
    n_terms, n_groups = table.shape
    return round_robin_lists(lambda g, n: _candidates(table[:, g], n), n_groups, n_terms,
                             n_select, variant, first=n_select)


def round_robin_lists(candidates, n_groups: int, n_terms: int, n_select: int,
                      variant: str = "skip", first: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """:func:`round_robin` over groups whose candidate lists are asked for as the turns
    reach them: ``candidates(g, n)`` is group ``g``'s first ``n`` candidates, best first (the
    same order at every ``n``; fewer when it has no more), asked first for ``first`` and for
    twice as many each time a group runs out. A group that never gets a turn (``n_select``
    below the number of groups) is never asked."""
    if variant not in ("skip", "turn_consumed"):
        raise TextsiftError(
            f"unknown round-robin variant {variant!r}; use 'skip' or 'turn_consumed'")
    n_select = min(int(n_select), n_terms)
    lists: list = [None] * n_groups
    asked = [0] * n_groups

    def entry(g: int, h: int):
        """Group ``g``'s ``h``-th candidate, or None when it has no more."""
        while lists[g] is None or (h >= len(lists[g]) and asked[g] <= len(lists[g])
                                   and asked[g] < n_terms):
            asked[g] = min(n_terms, max(1, first, 2 * asked[g]))
            lists[g] = candidates(g, asked[g])
        return lists[g][h] if h < len(lists[g]) else None

    taken = np.zeros(n_terms, dtype=bool)
    heads = [0] * n_groups
    selected: list[int] = []
    groups: list[int] = []
    active = list(range(n_groups))
    while len(selected) < n_select and active:
        still = []
        for g in active:
            if len(selected) >= n_select:
                still.append(g)
                continue
            h = heads[g]
            t = entry(g, h)
            if variant == "skip":
                while t is not None and taken[t]:
                    h += 1
                    t = entry(g, h)
            if t is None:  # no candidates left: the group leaves the round
                continue
            h += 1
            if not taken[t]:
                taken[t] = True
                selected.append(int(t))
                groups.append(g)
            heads[g] = h
            still.append(g)
        active = still
    return np.asarray(selected, dtype=np.intp), np.asarray(groups, dtype=np.intp)


def _candidates(col: np.ndarray, n_select: int) -> np.ndarray:
    """A group's candidates (score > -inf), best first, ties by index -- only the first
    ``n_select`` of them and any tied with the last, which is all a round robin of
    ``n_select`` picks can reach: every entry a group passes is a distinct selected term (its
    own pick, or one another group took), so it passes at most ``n_select`` entries."""
    if n_select < len(col):
        cut = np.partition(col, len(col) - n_select)[len(col) - n_select]
        idx = np.flatnonzero(col >= cut)  # ascending index, so the stable sort breaks ties
    else:
        idx = np.arange(len(col))
    idx = idx[np.argsort(-col[idx], kind="stable")]
    return idx[col[idx] > -np.inf]


@dataclass(frozen=True)
class Ranking:
    """A ranking of the vocabulary (or of its first ``limit`` terms) under one policy.

    ``index`` lists the terms, best first; ``scores[i]`` is the score the policy used for
    ``index[i]`` (the globalised score, or for ``rr`` the score in the group it was picked
    from); ``groups[i]`` is that group's column for ``rr`` and -1 otherwise; ``policy`` is
    the policy (``max``, ``sum``, ``wavg`` or ``rr``). (A
    :class:`~textsift.selection.ranking.TermRanking` names the same fields, ``groups`` by the
    groups'
    names.)
    """

    index: np.ndarray
    scores: np.ndarray
    groups: np.ndarray
    policy: str


def rank_terms(
    table: np.ndarray,
    aggregate: str,
    seen: np.ndarray,
    weights: np.ndarray | None = None,
    variant: str = "skip",
    limit: int | None = None,
) -> Ranking:
    """Rank the terms of a clean (V, G) table (no NaN; unseen terms' rows ``-inf``) under
    ``aggregate`` (max, sum, wavg or rr).

    For ``rr`` the terms no group lists (unseen, or ``-inf`` everywhere) follow the round
    robin by their best score, then unseen terms by index, so a ranking always covers the
    whole vocabulary and a selector can always return ``k <= V`` terms. ``limit`` keeps only
    the first ``limit`` terms (and spares a round robin the turns after them).
    """
    table = np.atleast_2d(np.asarray(table, dtype=np.float64).T).T
    seen = np.asarray(seen, dtype=bool)
    if aggregate != "rr":
        return rank_scores(globalise(table, aggregate, weights), seen, limit, aggregate)
    sel, grp = round_robin(table, table.shape[0] if limit is None else limit, variant)
    return after_round_robin(sel, grp, table[sel, grp], table.max(axis=1), seen, limit)


def after_round_robin(sel: np.ndarray, grp: np.ndarray, picked: np.ndarray,
                      best: np.ndarray, seen: np.ndarray, limit: int | None) -> Ranking:
    """The ``rr`` :class:`Ranking` of a round robin's picks ``sel`` (from groups ``grp``,
    with scores ``picked``), followed by the terms it did not pick by their ``best`` score
    (then unseen terms by index), up to ``limit``."""
    rest_mask = np.ones(len(seen), dtype=bool)
    rest_mask[sel] = False
    rest = order(np.where(rest_mask, best, -np.inf), seen & rest_mask)
    rest = rest[rest_mask[rest]]
    if limit is not None:
        rest = rest[: max(0, limit - len(sel))]
    idx = np.concatenate([sel, rest])
    score = np.concatenate([picked, best[rest]])
    group = np.concatenate([grp, np.full(len(rest), -1, dtype=np.intp)])
    return Ranking(idx, score, group, "rr")


def rank_scores(score: np.ndarray, seen: np.ndarray, limit: int | None = None,
                policy: str = "max") -> Ranking:
    """The :class:`Ranking` of one (globalised, by ``policy``) score per term: :func:`order`,
    with the scores in that order and no groups."""
    idx = order(score, seen, limit)
    return Ranking(idx, score[idx], np.full(len(idx), -1, dtype=np.intp), policy)


def n_from_ratio(ratio: float, n_ranked: int) -> int:
    """Number of terms kept at reduction level ``ratio`` = ``|S| / |T|`` (the fraction *kept*):
    ``max(1, ceil(ratio * n_ranked))``."""
    if not 0 < ratio <= 1:
        raise TextsiftError(f"ratio must be in (0, 1], got {ratio}")
    # round first so that 0.1 * 1000 is 100, not 101 through float noise
    return max(1, math.ceil(round(ratio * n_ranked, 9)))


def resolve_k(n_terms: int, n_ranked: int, k=None, ratio=None) -> int:
    """Number of terms to keep from ``k`` (a count or ``"all"``) or ``ratio`` (a fraction of
    the ranked vocabulary, :func:`n_from_ratio`), with the errors a user needs.

    A ``k`` above the vocabulary keeps every term (:func:`size_note` says so): the one rule
    of the selectors, the command line's ``-k`` and an experiment file's sizes, as
    scikit-learn's ``SelectKBest`` keeps every feature (with a warning) for a ``k`` above
    their number."""
    if ratio is not None:
        if not isinstance(ratio, Real) or isinstance(ratio, bool) or not 0 < ratio <= 1:
            raise TextsiftError(f"ratio must be a fraction in (0, 1], got {ratio!r}")
        return n_from_ratio(float(ratio), max(n_ranked, 1))
    if isinstance(k, str) and k == "all":
        return n_terms
    if not isinstance(k, Integral) or isinstance(k, bool):
        raise TextsiftError(f"k must be a positive integer or 'all', got {k!r}")
    if k <= 0:
        raise TextsiftError(f"k must be a positive number of terms, got {k}")
    return int(min(k, n_terms))


def size_note(size, n_terms: int, name: str = "size") -> str | None:
    """The note for a number of terms to keep above the vocabulary, which keeps every term
    (``"size 10,000 is larger than the vocabulary (1,234 terms); it keeps every term, as
    \"all\" does"``), or ``None`` when ``size`` is not above it (or is ``"all"``)."""
    if isinstance(size, str) or size is None or size <= n_terms:
        return None
    return (f"{name} {size:,} is larger than the vocabulary ({n_terms:,} terms); it keeps "
            "every term, as \"all\" does")
