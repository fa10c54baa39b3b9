"""The policies on a per-class table held by its cells (the cells storage of a
:class:`~textsift.scores.ScoreTable`), without writing its (V, m) values: each class's best
terms (:func:`top`), the scores of ``max``, ``sum`` and ``wavg`` over the classes
(:func:`reduce`), a round robin that asks each class only for the terms it reaches
(:func:`round_robin`).

Each reads the non-zero cells (``A > 0``: few, for thousands of labels with a few documents
each) and the rule of the others (:class:`~textsift.scores.Grid`,
:class:`~textsift.scores.Absent`): a class's best absent terms are found without scanning the
vocabulary, and a term's best absent class without scanning the classes. The results are those
of :mod:`textsift.selection.policies` on the dense table -- exactly for a class's ranking, ``max``
and
the round robin; ``sum`` and ``wavg`` add the same values in another order (every class's
absent value, less those of the term's own classes, plus its non-zero cells), so they agree to
rounding, and exactly for a term found in more than half of the classes (summed as the dense
table sums it). What a rule does not say (an absent score without a known order) is read from
the dense values, a column or a block of rows at a time.
"""

from __future__ import annotations

import numpy as np

from ..counting.counts import BLOCK_CELLS
from ..scores._absent import slices
from ..scores._per_class import Cells
from .policies import addends_of, globalise, globalise_blocks, order, settle

__all__ = ["by_blocks", "reduce", "round_robin", "top", "top_many",
           "values_at"]


def _members(table: Cells) -> np.ndarray:
    """A scratch mask over the terms, all False between uses (kept on the table)."""
    mask = table.__dict__.get("_members")
    if mask is None:
        mask = table.__dict__["_members"] = np.zeros(table.counts.n_terms, dtype=bool)
    return mask


def top(table: Cells, j: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(terms, scores)``: the first ``k`` terms of class ``j``'s ranking, exactly
    ``policies.order(table.column(j), seen, k)`` and those terms' scores (:func:`top_many`)."""
    return top_many(table, [j], k)[0]


#: The non-zero cells of many classes are ranked together in blocks of at most this many
#: (padded) cells: a few tens of megabytes.
TOP_BLOCK = 2**18
#: A class holding more than ``1 / WHOLE_COLUMN`` of the terms finds its best absent terms in
#: its whole column (skipping its own terms would cost more).
WHOLE_COLUMN = 8


def top_many(table: Cells, classes, k: int, with_cells: bool = False) -> list[tuple]:
    """:func:`top` of each class of ``classes`` (column indices), in that order; with
    ``with_cells``, ``(terms, scores, cells)``: each listed term's non-zero cell (its index in
    ``counts.cells``), ``-1`` where no document of the class has the term.

    A class's first ``k`` terms are the best of its non-zero cells (the ``k``-th and every
    term tied with it kept) and of its best absent terms (:meth:`Grid.best_terms
    <textsift.scores.Grid.best_terms>`), merged by descending score, ties by index;
    the absent terms are asked for only when they could rank: fewer than ``k`` non-zero
    cells, or an absent score (:meth:`~textsift.scores.Grid.bounds`) as high as the
    ``k``-th. The non-zero cells of classes with about as many are ranked together, a row
    each of a padded block (one ``partition`` and one ``lexsort`` for thousands of classes);
    classes whose cells lie in one run of the cells' own order (every class of the sparse
    layout, in order) are read in place, not gathered."""
    counts, cells = table.counts, table.counts.cells
    absent, nz = table.parts
    k = min(int(k), counts.n_terms)
    classes = np.asarray(classes, dtype=np.int64).reshape(-1)
    order, start = cells.by_class
    size = start[classes + 1] - start[classes]
    first = np.zeros(len(classes), dtype=np.int64)  # where each class's cells begin
    np.cumsum(size[:-1], out=first[1:])
    if cells.class_major and (np.diff(classes) == 1).all():  # one run, as stored
        mine = None
        if len(classes):
            first += start[classes[0]]
        values, terms = nz, cells.row
    else:  # the classes' cells, gathered once
        mine = order[slices(start[classes], size)]
        values, terms = nz[mine], cells.row[mine]
        if not with_cells:
            mine = None
    width = 2 ** np.ceil(np.log2(np.maximum(size, 1))).astype(np.int64)
    out: list = [None] * len(classes)
    for w in np.unique(width):
        todo = np.flatnonzero(width == w)
        step = max(1, TOP_BLOCK // int(w))
        for lo in range(0, len(todo), step):
            part = todo[lo:lo + step]
            for i, found in zip(part, _best_cells(values, terms, first[part], size[part],
                                                  int(w), k), strict=True):
                out[i] = found if mine is None else (*found[:2], mine[found[2]])
    del values, terms, mine
    bounds = absent.bounds(classes)
    for i, (t, v, c) in enumerate(out):
        if len(v) < k or v[k - 1] <= bounds[i]:  # an absent term could rank
            out[i] = _with_absent(table, int(classes[i]), k, t, v, c)
        else:
            out[i] = t[:k], v[:k], c[:k]
    return out if with_cells else [(t, v) for t, v, _ in out]


def _best_cells(values, terms, first, size, width: int, k: int):
    """For classes whose non-zero cells' scores and terms are ``values[first[i]:first[i] +
    size[i]]`` and ``terms[...]`` (at most ``width`` each): their best ``k`` cells by
    descending score, ties by term, and every cell tied with the ``k``-th after them --
    ``(terms, scores, positions)`` each (positions in ``values``; only scores above
    ``-inf``)."""
    n = len(first)
    at = np.arange(width)
    valid = at[None, :] < size[:, None]
    cell = np.where(valid, first[:, None] + at[None, :], 0)
    scores = values[cell] if len(values) else np.full(cell.shape, -np.inf)
    scores[~valid] = -np.inf
    if width > k:
        kth = np.partition(scores, width - k, axis=1)[:, width - k]
        chosen = (scores >= kth[:, None]) & (scores > -np.inf)
    else:
        chosen = scores > -np.inf
    r, c = np.nonzero(chosen)
    v, p = scores[r, c], cell[r, c]
    t = terms[p]
    ranked = np.lexsort((t, -v, r))
    r, v, t, p = r[ranked], v[ranked], t[ranked].astype(np.intp), p[ranked]
    ends = np.searchsorted(r, np.arange(n + 1))
    return [(t[ends[i]:ends[i + 1]], v[ends[i]:ends[i + 1]], p[ends[i]:ends[i + 1]])
            for i in range(n)]


def _with_absent(table: Cells, j: int, k: int, terms: np.ndarray, values: np.ndarray,
                 at: np.ndarray):
    """Class ``j``'s first ``k`` terms from its best non-zero cells (``terms``, ``values``,
    ranked; ``at`` their cells) and its best absent terms; every other term scores ``-inf``
    when too few score above it (then the seen ones by index, then the unseen):
    ``(terms, scores, cells)``, ``-1`` for a term absent from the class."""
    counts, cells = table.counts, table.counts.cells
    absent, _ = table.parts
    mine = table.cells_of(j)
    if (len(values) >= k and hasattr(absent, "best_absent")
            and absent.best_absent(j, cells.row[mine]) < values[k - 1]):
        return terms[:k], values[:k], at[:k]  # no absent term reaches the k-th: loose bound
    found = None
    if WHOLE_COLUMN * len(mine) < counts.n_terms:  # else the whole column costs less
        members = _members(table)
        members[cells.row[mine]] = True
        try:
            found = absent.best_terms(j, k, members)
        finally:
            members[cells.row[mine]] = False
    if found is None:  # no known order, or a class with most terms: the whole column
        column = table.column(j)
        index = order(column, counts.seen, k)
        return index, column[index], _cells_at(table, j, index)
    terms, values = np.concatenate([terms, found[0]]), np.concatenate([values, found[1]])
    at = np.concatenate([at, np.full(len(found[0]), -1, dtype=at.dtype)])
    best = np.lexsort((terms, -values))[:k]
    terms, values, at = terms[best].astype(np.intp), values[best], at[best]
    if len(terms) < k:  # then every other term scores -inf
        rest = _first_others(counts.seen, terms, k - len(terms))
        terms = np.concatenate([terms, rest])
        values = np.concatenate([values, np.full(len(rest), -np.inf)])
        at = np.concatenate([at, _cells_at(table, j, rest)])
    return terms, values, at


def _cells_at(table: Cells, j: int, terms: np.ndarray) -> np.ndarray:
    """The non-zero cell of each of ``terms`` in class ``j`` (index in ``counts.cells``),
    ``-1`` where the class has none of its documents."""
    mine = table.cells_of(j)
    where = np.full(table.counts.n_terms, -1, dtype=np.int64)
    where[table.counts.cells.row[mine]] = mine
    return where[terms]


def _first_others(seen: np.ndarray, taken: np.ndarray, n: int) -> np.ndarray:
    """The first ``n`` terms not in ``taken``: the seen ones by index, then the unseen."""
    out = []
    for pool in (np.flatnonzero(seen), np.flatnonzero(~seen)):
        pool = pool[:n + len(taken)]
        out.append(pool[~np.isin(pool, taken)][:n - sum(map(len, out))])
    return np.concatenate(out)


def reduce(table: Cells, aggregate: str) -> np.ndarray:
    """One score per term under ``max``, ``sum`` or ``wavg``
    (:func:`textsift.selection.policies.globalise`'s
    rule) from the non-zero cells and the absent rule (module docstring); from the dense
    rows, by blocks, where the rule does not say enough."""
    counts, cells = table.counts, table.counts.cells
    absent, nz = table.parts
    order, start = cells.by_term
    out = None
    if aggregate == "max":
        out = absent.best_over_classes(cells.row, cells.col)
        if out is not None:
            has = np.flatnonzero(start[1:] > start[:-1])
            if len(has):
                out[has] = np.maximum(out[has], np.maximum.reduceat(nz[order], start[has]))
    elif aggregate in ("sum", "wavg"):
        out = _sums(table, aggregate, start)
    if out is None:  # the dense rows, by blocks
        return by_blocks(table, aggregate)
    out[~counts.seen] = -np.inf
    return out


def _sums(table: Cells, aggregate: str, start: np.ndarray) -> np.ndarray | None:
    """``sum`` or ``wavg``: each term's total of the absent rule over every class, less its
    value at the term's own cells, plus theirs; a term in more than half of the classes
    summed from its dense row (no cancellation, and the dense table's sum to the bit); the
    terms whose order rounding could decide, summed exactly (:func:`_settled`)."""
    counts, cells = table.counts, table.counts.cells
    absent, nz = table.parts
    n_terms, m = counts.n_terms, counts.n_classes
    weights = np.ones(m) if aggregate == "sum" else counts.priors
    found = absent.totals(weights)
    if found is None:
        return None
    whole, n_scored = found
    row = cells.row
    at = absent.values(row, cells.col)
    if np.isposinf(at).any() or np.isposinf(whole).any():  # inf - inf: sum them densely
        return None
    w = weights[cells.col]
    own, held = at > -np.inf, nz > -np.inf
    own_part = np.bincount(row, np.where(own, w * at, 0.0), n_terms)
    held_part = np.bincount(row, np.where(held, w * nz, 0.0), n_terms)
    with np.errstate(invalid="ignore", over="ignore"):
        total = whole - own_part + held_part
    n_scored = (n_scored - np.bincount(row, own, n_terms) + np.bincount(row, held, n_terms))
    total[n_scored <= 0] = -np.inf
    for t in np.flatnonzero(2 * np.diff(start) > m):  # the frequent terms: their dense row
        total[t] = globalise(table.rows(t, t + 1), aggregate, counts.priors)[0]
    with np.errstate(invalid="ignore", over="ignore"):
        magnitude = np.abs(whole) + np.abs(own_part) + np.abs(held_part)
    return _settled(table, aggregate, total, (m + 2 * np.diff(start) + 2) * magnitude)


def _settled(table: Cells, aggregate: str, total: np.ndarray, scale: np.ndarray
             ) -> np.ndarray:
    """``total`` with the terms whose order rounding could decide summed exactly from their
    dense rows (:func:`textsift.selection.policies.settle`, as the dense table's sums are). A total
    of
    the absent rule over the ``m`` classes, less a term's ``k`` own cells' absent values,
    plus their scores, is within ``(m + 2k + 2) u`` (``scale``) times the magnitudes of the
    three (``u`` the unit roundoff) of the exact sum when the addends have one sign -- as
    the scores that offer ``sum`` and ``wavg`` do (they are >= 0; the signed ones refuse
    them)."""
    n_terms, m = table.counts.n_terms, table.counts.n_classes
    step = max(1, BLOCK_CELLS // m)
    buffer = np.empty((min(step, n_terms), m))
    weights = None if aggregate == "sum" else table.counts.priors
    error = np.nan_to_num(scale * (np.finfo(np.float64).eps / 2), nan=np.inf)
    return settle(total, error, lambda terms: addends_of(
        lambda a, b: table.rows(a, b, buffer), n_terms, step, terms, weights))


def by_blocks(table, aggregate: str) -> np.ndarray:
    """:func:`~textsift.selection.policies.globalise` of the dense rows by blocks, into one small
    buffer (:func:`~textsift.selection.policies.globalise_blocks`): the same values, to the bit, as
    on
    the whole table."""
    n_terms, m = len(table.seen), len(table.groups)
    step = max(1, BLOCK_CELLS // m)
    buffer = np.empty((min(step, n_terms), m))
    return globalise_blocks(lambda start, stop: table.rows(start, stop, buffer), n_terms, step,
                            aggregate, table.weights)


def values_at(table: Cells, terms: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The scores of the cells ``(terms[i], classes[i])``: a non-zero cell's value, found by
    a binary search among its class's cells, else the absent rule's."""
    cells = table.counts.cells
    absent, nz = table.parts
    order, _ = cells.by_term
    m = table.counts.n_classes
    key = cells.row[order].astype(np.int64) * m + cells.col[order]  # ascending
    want = np.asarray(terms, dtype=np.int64) * m + np.asarray(classes)
    at = np.minimum(np.searchsorted(key, want), max(len(key) - 1, 0))
    out = absent.values(np.asarray(terms), np.asarray(classes))
    hit = (key[at] == want) if len(key) else np.zeros(len(want), dtype=bool)
    out[hit] = nz[order[at[hit]]]
    return out


def round_robin(table: Cells, n_select: int, variant: str = "skip"):
    """:func:`textsift.selection.policies.round_robin` of the table, each class asked (:func:`top`)
    only for as many of its best terms as its turns reach (doubling when they run out):
    ``(selected, group)``, the same picks."""
    from .policies import round_robin_lists

    def candidates(g, n):
        terms, values = top(table, g, n)
        return terms[values > -np.inf]

    return round_robin_lists(candidates, table.counts.n_classes, table.counts.n_terms,
                             n_select, variant)
