"""The scores of the cells with ``A = 0`` -- a term absent from every document of a class --
of a per-class table held by its cells (:meth:`~textsift.scores.ScoreTable.of_cells`), in two
forms that never hold the (V, m) table:

* :class:`Grid`: a one-vs-rest metric of ``(A, B, C, D)`` depends, where ``A = 0``, on the
  term's ``df`` and the class's size ``N_c`` alone (``B = df``, ``C = N_c``, ``D = N - N_c -
  df``): one value per distinct ``(df, N_c)``;
* :class:`Absent`: the scores of the term-frequency methods, ``fn(terms, classes)`` of a
  term's and a class's own quantities (``TF(t)``, ``TF(c)``, ``P(c)``...), with what is known
  of their order: a per-term key in which every class's scores are non-decreasing, and a
  per-class key in which every term's are.

Each answers what the policies need of the ``A = 0`` cells without writing them: a block of
rows or a column of the dense table, a class's best absent terms (:meth:`Grid.best_terms`),
each term's best score over the classes that lack it (:meth:`Grid.best_over_classes`), and
each term's weighted sum over every class (:meth:`Grid.totals`). A class's best absent
terms are found without scanning the vocabulary: the grid's distinct ``df`` values are
sorted by their score in the class's column (exact for any metric: no assumption on its
shape), and an :class:`Absent` walks the terms in the order of its term key. Both stop as soon
as ``k`` terms that the class lacks, and every term tied with the last, are found.

Every value is clean (:func:`~textsift.scores._tables.clean`'s rule): NaN and unseen terms
``-inf``.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

__all__ = ["Absent", "Grid", "slices"]

#: Cells of an :class:`Absent` rule evaluated at once when a block of the dense table is
#: written: temporaries of half a megabyte, in the cache.
BLOCK_CELLS = 2**16


def slices(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The indices ``starts[i] .. starts[i] + lengths[i] - 1`` of every ``i``, concatenated."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offset = np.repeat(np.asarray(starts, dtype=np.int64) - np.cumsum(lengths) + lengths,
                       lengths)
    return offset + np.arange(total)


def walk(order_slice, score, members: np.ndarray, k: int, total: int):
    """The best ``k`` terms that are not ``members`` (a mask over the terms) of an order of
    ``total`` terms whose scores never increase (``order_slice(lo, hi)``: its terms ``lo``
    to ``hi``; ``score(terms)``: their scores), with every term tied with the ``k``-th:
    ``(terms, scores)``, fewer when the order runs out. Read in slices that double, from
    ``4k + 32`` terms; terms scored ``-inf`` are never candidates (and end the walk)."""
    found_t, found_v, n_found = [], [], 0
    lo, step = 0, 4 * k + 32
    while lo < total:
        terms = order_slice(lo, min(lo + step, total))
        lo, step = lo + len(terms), 2 * step
        terms = terms[~members[terms]]
        if not len(terms):
            continue
        values = score(terms)
        found_t.append(terms)
        found_v.append(values)
        n_found += len(terms)
        if values[-1] == -np.inf:
            break
        if n_found >= k and values[-1] < np.concatenate(found_v)[k - 1]:
            break
    if not found_t:
        return np.zeros(0, dtype=np.intp), np.zeros(0)
    terms, values = np.concatenate(found_t), np.concatenate(found_v)
    chosen = values > -np.inf
    if len(values) >= k:
        chosen &= values >= values[k - 1]
    return terms[chosen], values[chosen]


class Grid:
    """The ``A = 0`` scores of a one-vs-rest metric: ``grid[df_index[t], size_index[c]]``
    (distinct ``df`` by distinct class size, clean: the row of ``df = 0`` is ``-inf``).

    A row may stand for another per-term key than the distinct ``df`` (a term-frequency
    method's distinct ``TF(t)``, say, whose ``A = 0`` score depends on it and the class
    alone): ``df_index`` is then each term's row by that key, with the unseen terms on a row
    of ``-inf``; everything below holds for any key."""

    def __init__(self, grid: np.ndarray, df_index: np.ndarray, size_index: np.ndarray):
        self.grid, self.df_index, self.size_index = grid, df_index, size_index

    def absent_counts(self, cells) -> np.ndarray:
        """(rows x m): how many terms of each row have no document in each class (the ``A =
        0`` cells the row's value stands for), ``cells`` the counts' non-zero cells:
        ``cells.absent_by_df`` for the distinct ``df``, else counted."""
        if self.df_index is cells.df_index:
            return cells.absent_by_df
        n_rows, m = self.grid.shape[0], cells.n_classes
        per_row = np.bincount(self.df_index, minlength=n_rows).astype(np.int32)
        nz = np.bincount(self.df_index[cells.row].astype(np.int64) * m + cells.col,
                         minlength=n_rows * m).reshape(n_rows, m)
        return np.subtract(per_row[:, None], nz, dtype=np.int32)

    def values(self, terms, classes) -> np.ndarray:
        return self.grid[self.df_index[terms], self.size_index[classes]]

    def by_class(self) -> np.ndarray:
        """The (distinct df x m) values in class order (the grid itself when it has a column
        per class already, as the adjusted p-values' has)."""
        index = self.size_index
        if len(index) == self.grid.shape[1] and (index == np.arange(len(index))).all():
            return self.grid
        return self.grid[:, index]

    @cached_property
    def _by_class(self) -> np.ndarray | None:
        """The grid's columns in class order (distinct df x m), when that is small."""
        n_df, m = self.grid.shape[0], len(self.size_index)
        return self.grid[:, self.size_index] if n_df * m <= 2**22 else None

    def block(self, start: int, stop: int, out: np.ndarray) -> None:
        """Rows ``start:stop`` of the dense table into ``out`` ((stop - start) x m)."""
        rows = self.df_index[start:stop]
        if self._by_class is not None:
            np.take(self._by_class, rows, axis=0, out=out, mode="clip")  # no copy
        else:
            np.take(self.grid[rows], self.size_index, axis=1, out=out, mode="clip")

    def column(self, j: int) -> np.ndarray:
        return self.grid[:, self.size_index[j]][self.df_index]

    # ---------------------------------------------------------------- a class's best terms
    @cached_property
    def _groups(self) -> tuple[np.ndarray, np.ndarray]:
        """``(terms, start)``: the seen terms by distinct df, then index; where each df's
        terms begin."""
        terms = np.argsort(self.df_index, kind="stable")
        start = np.zeros(self.grid.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.df_index, minlength=self.grid.shape[0]), out=start[1:])
        return terms, start

    def _order(self, v: int) -> tuple[np.ndarray, np.ndarray]:
        """``(groups, ends)``: the distinct df values by descending score in the column of
        class size ``v`` (ties by df), and the cumulative number of their terms."""
        cache = self.__dict__.setdefault("_orders", {})
        if v not in cache:
            groups = np.argsort(-self.grid[:, v], kind="stable")
            _, start = self._groups
            cache[v] = groups, np.cumsum(start[groups + 1] - start[groups])
        return cache[v]

    def _slice(self, v: int, lo: int, hi: int) -> np.ndarray:
        """Terms ``lo`` to ``hi`` of the order of class size ``v``: the distinct df values
        by descending score, each df's terms by index (unseen terms last: ``-inf``)."""
        groups, ends = self._order(v)
        terms, start = self._groups
        first = int(np.searchsorted(ends, lo, side="right"))
        g = groups[first:int(np.searchsorted(ends, hi)) + 1]
        offset = int(ends[first - 1]) if first else 0
        return terms[slices(start[g], start[g + 1] - start[g])][lo - offset:hi - offset]

    @cached_property
    def _best(self) -> np.ndarray:
        return self.grid.max(axis=0, initial=-np.inf)

    def bounds(self, classes: np.ndarray) -> np.ndarray:
        """The best ``A = 0`` score of each class (over every term: an upper bound of those
        of the terms it lacks)."""
        return self._best[self.size_index[classes]]

    def best_absent(self, j: int, terms: np.ndarray) -> float:
        """The best ``A = 0`` score of class ``j``, whose terms are ``terms`` (its non-zero
        cells'): the score of the first distinct df, in the order of its column, that has a
        term the class lacks (fewer of its terms among ``terms`` than it has)."""
        v = int(self.size_index[j])
        groups, _ = self._order(v)
        _, start = self._groups
        held = np.bincount(self.df_index[terms], minlength=len(start) - 1)[groups]
        free = held < (start[groups + 1] - start[groups])
        return float(self.grid[groups[int(np.argmax(free))], v]) if free.any() else -np.inf

    def best_terms(self, j: int, k: int, members: np.ndarray):
        """The best ``k`` terms class ``j`` lacks (not ``members``), ties with the last
        included (``walk``), in the order of the grid's column."""
        v = int(self.size_index[j])
        total = len(self.df_index)
        return walk(lambda lo, hi: self._slice(v, lo, hi),
                    lambda t: self.grid[self.df_index[t], v], members, k, total)

    # ---------------------------------------------------------------- a term over classes
    def best_over_classes(self, row: np.ndarray, col: np.ndarray) -> np.ndarray:
        """Each term's best ``A = 0`` score over the classes it is absent from (``row``,
        ``col``: the non-zero cells, by term), ``-inf`` for a term in every class. The class
        sizes are tried in the order of the term's row of the grid: the first size with a
        class that lacks the term gives its best."""
        n_terms, n_size = len(self.df_index), self.grid.shape[1]
        per_size = np.bincount(self.size_index, minlength=n_size)
        order = np.argsort(-self.grid, axis=1, kind="stable")  # distinct df x sizes
        best = np.full(n_terms, -np.inf)
        todo = np.arange(n_terms)
        cells = np.arange(len(row))
        for r in range(n_size):
            if not len(todo):
                break
            v = order[self.df_index[todo], r]
            wanted = np.full(n_terms, -1, dtype=np.int64)
            wanted[todo] = v
            mine = cells[self.size_index[col[cells]] == wanted[row[cells]]]
            held = np.bincount(row[mine], minlength=n_terms)[todo]
            free = held < per_size[v]
            best[todo[free]] = self.grid[self.df_index[todo[free]], v[free]]
            todo = todo[~free]
            still = np.zeros(n_terms, dtype=bool)
            still[todo] = True
            cells = cells[still[row[cells]]]
        return best

    def totals(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each term's sum over every class of ``weights[c]`` times its ``A = 0`` score
        where that is above ``-inf``, and the number of such classes."""
        n_size = self.grid.shape[1]
        w = np.bincount(self.size_index, weights=weights, minlength=n_size)
        n = np.bincount(self.size_index, minlength=n_size)
        scored = self.grid > -np.inf
        return (np.where(scored, self.grid, 0.0) @ w)[self.df_index], (scored @ n)[
            self.df_index]


class Absent:
    """The ``A = 0`` scores of a term-frequency method: ``fn(terms, classes)`` (index arrays,
    broadcast together; NaN and unseen terms made ``-inf`` here).

    ``term_key`` (one value per term), when given: every class's scores are a non-decreasing
    function of it (equal keys, equal scores), so a class's best absent terms are found by
    walking the terms by descending key. ``class_key`` (one per class): every term's scores
    are a non-decreasing function of it, so a term's best score over the classes that lack
    it is at the first of them by descending key. ``totals(weights)``, when given: each
    term's sum over every class of ``weights[c] * fn(t, c)`` in closed form (every value
    above ``-inf``; or ``(sums, how many classes have a value above -inf)``). What is not
    given is computed from the dense values, by blocks."""

    def __init__(self, fn, seen: np.ndarray, n_classes: int, term_key=None, class_key=None,
                 totals=None):
        self.fn, self.seen, self.n_classes = fn, seen, n_classes
        self.term_key, self.class_key, self._totals = term_key, class_key, totals
        self._outer = None
        self._constant = None

    @classmethod
    def outer(cls, ufunc, per_term: np.ndarray, per_class: np.ndarray, seen: np.ndarray,
              **keys) -> Absent:
        """The rule ``ufunc(per_term[t], per_class[c])`` (a numpy binary ufunc), which a block
        of the dense table takes straight into its rows (no temporary); ``keys`` as the
        constructor's."""
        rule = cls(lambda t, c: ufunc(per_term[t], per_class[c]), seen, len(per_class),
                   **keys)
        rule._outer = (ufunc, per_term, per_class)
        return rule

    @classmethod
    def constant(cls, value: float, seen: np.ndarray, n_classes: int, **keys) -> Absent:
        """The rule of one value for every cell (``keys`` as the constructor's), which a
        block of the dense table takes by a fill."""
        rule = cls(lambda t, c: value, seen, n_classes, **keys)
        rule._constant = float(value)
        return rule

    @cached_property
    def _may_be_nan(self) -> bool:
        """Whether a value of the rule may be NaN: not for a constant that is not, nor for
        a sum, difference or product of finite per-term and per-class values."""
        if self._constant is not None:
            return bool(np.isnan(self._constant))
        if self._outer is not None:
            ufunc, per_term, per_class = self._outer
            return not (ufunc in (np.add, np.subtract, np.multiply)
                        and np.isfinite(per_term).all() and np.isfinite(per_class).all())
        return True

    def values(self, terms, classes) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = np.array(self.fn(terms, classes), dtype=np.float64)
        out = np.broadcast_to(out, np.broadcast_shapes(np.shape(terms), np.shape(classes),
                                                       out.shape)).copy()
        np.copyto(out, -np.inf, where=np.isnan(out) | ~self.seen[terms])
        return out

    def block(self, start: int, stop: int, out: np.ndarray) -> None:
        """Rows ``start:stop`` of the dense table into ``out``, ``BLOCK_CELLS`` cells at
        a time: ``fn``'s temporaries stay in the cache, and each value is written once into
        ``out`` and cleaned there."""
        classes = np.arange(self.n_classes)[None, :]
        rows = max(1, BLOCK_CELLS // max(self.n_classes, 1))
        for lo in range(start, stop, rows):
            hi = min(stop, lo + rows)
            part = out[lo - start:hi - start]
            with np.errstate(all="ignore"):
                if self._constant is not None:
                    part.fill(self._constant)
                elif self._outer is not None:
                    ufunc, per_term, per_class = self._outer
                    part[...] = per_term[lo:hi, None]  # then the class's value on each
                    ufunc(part, per_class[None, :], out=part)
                else:
                    part[...] = self.fn(np.arange(lo, hi)[:, None], classes)
                if self._may_be_nan and np.isnan(np.add.reduce(part, axis=None)):
                    np.copyto(part, -np.inf, where=np.isnan(part))  # a NaN (or +inf and -inf)
            unseen = ~self.seen[lo:hi]
            if unseen.any():
                part[unseen] = -np.inf

    def column(self, j: int) -> np.ndarray:
        return self.values(np.arange(len(self.seen)), j)

    @cached_property
    def _walk_order(self) -> np.ndarray:
        """The seen terms by descending term key, ties by index."""
        seen = np.flatnonzero(self.seen)
        return seen[np.argsort(-self.term_key[seen], kind="stable")]

    def bounds(self, classes: np.ndarray) -> np.ndarray:
        """As :meth:`Grid.bounds` (``+inf`` without a term key: no bound known)."""
        if self.term_key is None or not len(self._walk_order):
            return np.full(len(classes), np.inf if self.term_key is None else -np.inf)
        return self.values(self._walk_order[0], classes)

    def best_terms(self, j: int, k: int, members: np.ndarray):
        """As :meth:`Grid.best_terms`, by the term key; ``None`` without one."""
        if self.term_key is None:
            return None
        order = self._walk_order
        return walk(lambda lo, hi: order[lo:hi], lambda t: self.values(t, j), members, k,
                    len(order))

    def best_over_classes(self, row: np.ndarray, col: np.ndarray) -> np.ndarray | None:
        """As :meth:`Grid.best_over_classes`, by the class key; ``None`` without one. A
        term's best class is the first, by descending key, that its row lacks: the smallest
        position (in that order) not among its cells' (the *mex* of its positions)."""
        if self.class_key is None:
            return None
        n_terms, m = len(self.seen), self.n_classes
        order = np.argsort(-self.class_key, kind="stable")
        position = np.empty(m, dtype=np.int64)
        position[order] = np.arange(m)
        length = np.bincount(row, minlength=n_terms)
        pos = position[col]
        low = pos < length[row]  # only a position below the row's length can block the mex
        r, p = row[low].astype(np.int64), pos[low]
        key = np.sort(r * m + p)
        r, p = key // m, key % m
        first = np.searchsorted(r, np.arange(n_terms))
        rank = np.arange(len(r)) - first[r]
        mex = np.bincount(r, minlength=n_terms)  # when 0 .. n - 1 are all held: n
        gap = p != rank
        np.minimum.at(mex, r[gap], rank[gap])
        best = np.full(n_terms, -np.inf)
        free = mex < m
        best[free] = self.values(np.flatnonzero(free), order[mex[free]])
        return best

    def totals(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        if self._totals is None:
            return None
        total = self._totals(weights)
        scored = np.where(self.seen, self.n_classes, 0)
        if isinstance(total, tuple):
            total, scored = total
        return np.where(self.seen, np.asarray(total, dtype=np.float64), 0.0), scored
