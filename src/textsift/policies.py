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

from ._choices import AGGREGATES
from .errors import TextsiftError

__all__ = [
    "AGGREGATES",
    "Ranking",
    "globalise",
    "n_from_ratio",
    "order",
    "rank_scores",
    "rank_terms",
    "resolve_k",
    "after_round_robin",
    "round_robin",
    "round_robin_lists",
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
    a term's own group. For pointwise MI, ``wavg`` is then Yang & Pedersen's (1997)
    ``MI_avg = sum_c P(c) MI(t, c)`` over the classes where ``MI(t, c)`` is defined
    (``A > 0``). A table without ``-inf`` sums as it always did, to the bit.
    """
    table = np.atleast_2d(np.asarray(table, dtype=np.float64).T).T
    if aggregate == "max":
        return table.max(axis=1)
    if aggregate not in ("sum", "wavg"):
        raise TextsiftError(f"unknown aggregate {aggregate!r}; choose one of max, sum, wavg, rr")
    scored = table > -np.inf
    if aggregate == "wavg":
        if weights is None:
            raise TextsiftError("aggregate='wavg' needs the class priors as weights")
        w = np.asarray(weights, dtype=np.float64)
        scored &= w[None, :] > 0  # a group of weight 0 contributes nothing (0 * inf is NaN)
        with np.errstate(invalid="ignore"):
            table = table * w[None, :]
    out = np.where(scored, table, 0.0).sum(axis=1)
    out[~scored.any(axis=1)] = -np.inf
    return out


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
    :class:`~textsift.ranking.TermRanking` names the same fields, ``groups`` by the groups'
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
