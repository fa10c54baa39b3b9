"""The cells storage of a per-class score table (:class:`Cells`, behind
:class:`~textsift.scores.ScoreTable`), and the per-class one-vs-rest scores that make it
(:func:`binary_scores`).

Per-class scores cost one pass over the cells that differ: a cell with ``A = 0`` (most of
the (V, m) table) depends only on ``(df, class)``, so a score is evaluated once per distinct
``(df, class)`` and once per non-zero cell, in one vectorised call
(:attr:`~textsift.counting.counts.SparseCells.evaluation_set`, built once per :class:`Counts` and
shared by every method), and the table is written -- if ever -- whole, a block of rows or
one column at a time: a table of values held one per distinct table by one gather through
the index of every cell's table (``SparseCells.table_index``, shared by every method),
any other by a gather of its ``A = 0`` rule and a scatter of its non-zero cells. NaN and
unseen terms are turned into ``-inf`` on those few values, before any table exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..counting._tables import check_fits
from ..counting.counts import Counts
from ..labels import check_labelled
from ._absent import Absent, Grid
from ._tables import ScoreTable

__all__ = ["Cells", "binary_method", "binary_scores", "nonempty_classes", "per_class"]


def nonempty_classes(counts: Counts) -> Counts:
    """``counts`` without the classes that have no documents (excluded from every per-class
    score); at least two must remain (one label, for label sets:
    :func:`textsift.labels.check_labelled`)."""
    check_labelled(counts)
    return counts.with_documents


@dataclass(frozen=True, eq=False)
class Cells:
    """A per-class (V, m) table of ``counts`` held by its cells: the values of its non-zero
    cells (``A > 0``) and a rule for the others, never the (V, m) values themselves. Either
    ``tables`` holds one value per distinct one-vs-rest table of
    ``counts.cells.evaluation_set`` (the ``A = 0`` cells then take the values of the
    distinct ``(df, N_c)`` grid: :class:`~textsift.scores.Grid`), or ``zero`` gives the
    values of the cells with ``A = 0`` -- a :class:`~textsift.scores.Grid`, an
    :class:`~textsift.scores.Absent` or an array broadcastable to (V, m) -- and ``nz`` those
    of the non-zero cells, in ``counts.cells`` order.

    The dense values are written only when asked for, and follow the rule of every table
    (NaN and unseen terms as ``-inf``, the held values cleaned once): the whole table
    (:meth:`dense`), a block of its rows (:meth:`rows`, what a policy needs to globalise a
    (V, m) table of any size in a buffer of a few megabytes) or one column (:meth:`column`).
    Each gives the same values, to the bit. On counts in the sparse layout a class's best
    terms and the policies over the classes are found without them, from the non-zero cells
    and the rule (:mod:`textsift.selection.classwise`); on dense counts, from the dense rows."""

    counts: Counts
    tables: np.ndarray | None = None
    zero: Absent | Grid | np.ndarray | None = None
    nz: np.ndarray | None = None

    name = "cells"

    @property
    def groups(self) -> np.ndarray:
        return self.counts.classes

    @property
    def seen(self) -> np.ndarray:
        return self.counts.seen

    @property
    def weights(self) -> np.ndarray:
        return self.counts.priors

    def cleaned(self) -> Cells:
        """The store itself: its values are cleaned once, where they are read (``parts``)."""
        return self

    @cached_property
    def parts(self) -> tuple[Grid | Absent, np.ndarray]:
        """``(absent, nz)``: the rule of the ``A = 0`` cells and the values of the non-zero
        cells (in ``counts.cells`` order), without NaN."""
        c, cells = self.counts, self.counts.cells
        if self.tables is None:
            zero = self.zero
            if not isinstance(zero, Absent | Grid):
                zero = _broadcast(np.asarray(zero, dtype=np.float64), c)
            return zero, _minus_inf_for_nan(self.nz)
        tables = self._clean_tables
        return _grid(tables[:cells.n_zero], cells), tables.take(cells.nz_table)

    @cached_property
    def _clean_tables(self) -> np.ndarray:
        """The values of the distinct tables, NaN as ``-inf`` and the ``df = 0`` row of the
        grid (unseen terms) ``-inf``: a cell's value, wherever its table is."""
        tables = _minus_inf_for_nan(self.tables)
        cells = self.counts.cells
        if len(cells.df_values) and cells.df_values[0] == 0:
            tables[:len(cells.size_values)] = -np.inf
        return tables

    def _of_parts(self, zero, nz) -> Cells:
        return Cells(self.counts, zero=zero, nz=nz)

    # ------------------------------------------------------------------ the dense values
    def values(self) -> np.ndarray:
        return self.dense().array

    def dense(self, out: np.ndarray | None = None):
        """The dense storage (:meth:`rows` of every term), into ``out`` (a (V, m) float64
        array) when given, else into fresh memory (refused, with the memory it would need,
        when it cannot fit)."""
        from ._tables import _Dense

        c = self.counts
        if out is None:
            check_fits(c.n_terms, c.n_classes, 8, "a dense score table",
                       "rank the terms (textsift.rank, rank_per_class) or read one class's "
                       "column, which never write it")
        return _Dense(self.rows(0, c.n_terms, out), c.classes, c.seen, c.priors)

    def rows(self, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``start:stop`` of the dense table, written into the first ``stop - start``
        rows of ``out`` (a C-contiguous float64 array ``m`` wide) when given."""
        c, cells = self.counts, self.counts.cells
        m = c.n_classes
        values = np.empty((stop - start, m)) if out is None else out[:stop - start]
        if self.tables is not None and cells.indexable and values.flags.c_contiguous:
            # one gather of the distinct tables' values, every cell from its own table
            np.take(self._clean_tables, cells.table_index[start * m:stop * m],
                    out=values.reshape(-1), mode="clip")
            return values
        absent, nz = self.parts
        absent.block(start, stop, values)
        if start == 0 and stop == c.n_terms:  # the whole table: every cell where it lies
            if values.flags.c_contiguous:  # a flat view: an assignment, faster than put
                values.reshape(-1)[cells.flat] = nz
            else:
                np.put(values, cells.flat, nz)
            return values
        order, first = cells.by_term
        mine = order[first[start]:first[stop]]
        np.put(values, (cells.row[mine].astype(np.int64) - start) * m + cells.col[mine],
               nz[mine])
        return values

    def gathered(self, minus_inf: float) -> np.ndarray | None:
        """The dense table with ``minus_inf`` in the place of ``-inf`` (NaN for a table of
        p-values: no test), written from the held values so replaced (never a pass over
        the (V, m) table): by one gather when the table is held one value per distinct
        table (:attr:`tables`) and the index of every cell's table is kept, by a gather of
        its grid and a scatter of its non-zero cells when its absent cells are a
        :class:`Grid`; else None."""
        c, cells = self.counts, self.counts.cells
        one_gather = self.tables is not None and cells.indexable
        if not one_gather and not isinstance(self.parts[0], Grid):
            return None
        check_fits(c.n_terms, c.n_classes, 8, "a dense table of p-values",
                   "read the p-values of the cells wanted (PValues.at), which never writes it")
        values = np.empty((c.n_terms, c.n_classes))
        if one_gather:
            tables = _replaced(self._clean_tables, minus_inf)
            np.take(tables, cells.table_index, out=values.reshape(-1), mode="clip")
            return values
        zero, nz = self.parts
        Grid(_replaced(zero.grid, minus_inf), zero.df_index, zero.size_index).block(
            0, c.n_terms, values)
        values.reshape(-1)[cells.flat] = _replaced(nz, minus_inf)
        return values

    def cells_of(self, j: int) -> np.ndarray:
        """The non-zero cells of class ``j`` (indices into ``counts.cells``), by term."""
        order, start = self.counts.cells.by_class
        return order[start[j]:start[j + 1]]

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` of the dense table (the scores of one class)."""
        absent, nz = self.parts
        values = absent.column(j)
        mine = self.cells_of(j)
        values[self.counts.cells.row[mine]] = nz[mine]
        return values

    def values_at(self, terms, classes) -> np.ndarray:
        from ..selection.classwise import values_at

        return values_at(self, terms, classes)

    def scored_terms(self) -> np.ndarray:
        """The terms with a cell above ``-inf``, from the masks, not the (V, m) values: a
        term is scored where one of its non-zero cells is, or where the absent rule scores
        it in more classes than the term has non-zero cells among them (one of those
        classes has no document with the term: an absent cell). A rule without a (df,
        class) grid is read from the dense rows."""
        counts, cells = self.counts, self.counts.cells
        zero, nz = self.parts
        found = np.bincount(cells.row[nz > -np.inf], minlength=counts.n_terms) > 0
        if isinstance(zero, Grid):
            grid = zero.by_class() > -np.inf
            own = grid[zero.df_index[cells.row], cells.col]  # a cell's class scores absent
            covered = np.bincount(cells.row[own], minlength=counts.n_terms)
            found |= grid.sum(axis=1)[zero.df_index] > covered
        else:
            found |= (self.values() > -np.inf).any(axis=1)
        return np.flatnonzero(found & counts.seen)

    def n_scored(self) -> np.ndarray:
        """How many terms score above ``-inf`` in each class: the absent cells' from the
        (df, class) grid times the terms of each df absent from each class
        (:meth:`Grid.absent_counts`), plus the non-zero cells'."""
        zero, nz = self.parts
        cells = self.counts.cells
        if not isinstance(zero, Grid):
            return (self.values() > -np.inf).sum(axis=0)
        absent = zero.absent_counts(cells)
        return ((zero.by_class() > -np.inf) * absent).sum(axis=0) + np.bincount(
            cells.col[nz > -np.inf], minlength=self.counts.n_classes)

    # ------------------------------------------------------------------ the policies: from
    # the non-zero cells and the absent rule (textsift.selection.classwise) when the counts are
    # in the sparse layout, else from the dense rows, as the dense table gives them
    @property
    def _cellwise(self) -> bool:
        return self.counts.cellwise

    def top_many(self, classes, k: int | None) -> list[tuple[np.ndarray, np.ndarray]]:
        """Exactly ``policies.order`` of each class's column
        (:func:`textsift.selection.classwise.top_many`)."""
        from ..selection.classwise import top_many
        from ..selection.policies import order

        if k is None:  # every term: each column, read whole
            return [(index := order(column := self.column(j), self.seen), column[index])
                    for j in classes]
        return top_many(self, classes, k)

    def top_signs(self, classes, k: int):
        """:meth:`top_many` with each term's direction in its class
        (:func:`textsift.scores.direction.signs_at` of the cells found), from the non-zero
        cells (sparse layout); None on dense counts."""
        from ..selection.classwise import top_many
        from .direction import signs_at

        if not self._cellwise:
            return None
        found = top_many(self, classes, k, with_cells=True)
        if not found:
            return []
        sizes = [len(t) for t, _, _ in found]
        signs = signs_at(self.counts.cells, np.concatenate([t for t, _, _ in found]),
                         np.repeat(classes, sizes), np.concatenate([at for _, _, at in found]))
        return [(t, v, s) for (t, v, _), s in zip(found, np.split(signs, np.cumsum(sizes)[:-1]),
                                                 strict=True)]

    def reduce(self, aggregate: str) -> np.ndarray:
        from ..selection.classwise import by_blocks, reduce

        return reduce(self, aggregate) if self._cellwise else by_blocks(self, aggregate)

    def rank_rr(self, variant: str, limit):
        """Each class asked for the terms its turns reach
        (:func:`textsift.selection.classwise.round_robin`), or the dense table's: the same picks."""
        from ..selection.classwise import reduce, round_robin
        from ..selection.policies import after_round_robin

        if not self._cellwise:
            return self.dense().rank_rr(variant, limit)
        sel, grp = round_robin(self, self.counts.n_terms if limit is None else limit, variant)
        return after_round_robin(sel, grp, self.values_at(sel, grp), reduce(self, "max"),
                                 self.seen, limit)

    # ------------------------------------------------------------------ new tables
    def directed(self, signs, keep: int) -> Cells:
        """The cells of the other direction than ``keep`` as ``-inf``, still held by cells.
        A term that none of a class's documents has (``A = 0``) is under-represented in it
        (``sign(0 - B / (N - N_c)) = -1`` for a seen term): over-represented terms are
        non-zero cells only, so ``keep = 1`` keeps no absent term and ``keep = -1`` keeps
        the absent rule."""
        if not isinstance(signs, Cells) or signs.counts.cells is not self.counts.cells:
            return self.dense().directed(signs, keep)
        absent, nz = self.parts
        return self._of_parts(absent if keep < 0 else np.float64(-np.inf),
                              np.where(signs.parts[1] == keep, nz, -np.inf))

    def _grids(self, others):
        """The parts of this table and ``others`` when all are held by cells of the same
        counts with a grid of the same rows (a (df, class) grid) for their absent cells, else
        None."""
        stores = [self, *others]
        if not all(isinstance(s, Cells) and s.counts.cells is self.counts.cells for s in stores):
            return None
        parts = [s.parts for s in stores]
        key = parts[0][0].df_index if isinstance(parts[0][0], Grid) else None
        return parts if all(isinstance(zero, Grid) and zero.df_index is key
                            for zero, _ in parts) else None

    def combine(self, func, others) -> Cells:
        parts = self._grids(others)
        if parts is None:
            return self.dense().combine(func, others)
        m = self.counts.n_classes
        with np.errstate(invalid="ignore"):
            grid = func(*(zero.by_class() for zero, _ in parts))
            nz = func(*(values for _, values in parts))
        return self._of_parts(Grid(grid, parts[0][0].df_index, np.arange(m)), nz)

    def only(self, j: int) -> Cells:
        parts = self._grids([])
        if parts is None:
            return self.dense().only(j)
        zero, nz = parts[0]
        grid = np.full((zero.grid.shape[0], self.counts.n_classes), -np.inf)
        grid[:, j] = zero.by_class()[:, j]
        return self._of_parts(Grid(grid, zero.df_index, np.arange(self.counts.n_classes)),
                              np.where(self.counts.cells.col == j, nz, -np.inf))

    def adjusted(self, correction: str, family: str):
        """Held per distinct table: each distinct p-value corrected once, weighted by its
        terms (:func:`~textsift.scores.significance.adjusted_tables`); held cell by cell
        with a (df, class) grid: per grid entry and non-zero cell
        (:func:`~textsift.scores.significance.adjusted_cells`); else the dense values."""
        from .significance import adjusted_cells, adjusted_tables

        if self.tables is not None:
            return adjusted_tables(self, correction, family)
        if isinstance(self.parts[0], Grid):
            return adjusted_cells(self, correction, family)
        return self.dense().adjusted(correction, family)

    def absent_grid(self) -> Grid | None:
        return self.parts[0] if self.tables is not None else None

    def held_cells(self) -> tuple[np.ndarray, np.ndarray]:
        return self.counts.cells.flat, self.parts[1]


def _grid(values: np.ndarray, cells) -> Grid:
    """The :class:`Grid` of the ``A = 0`` tables' values (``cells.grid_tables`` order, NaN
    already ``-inf``); the row of ``df = 0`` (unseen terms) is ``-inf``."""
    grid = values.reshape(len(cells.df_values), len(cells.size_values))
    if len(cells.df_values) and cells.df_values[0] == 0:
        grid[0] = -np.inf
    return Grid(grid, cells.df_index, cells.size_index)


def _broadcast(zero: np.ndarray, counts: Counts) -> Absent:
    """An array broadcastable to (V, m) as the rule of the ``A = 0`` cells; a constant is
    ordered by any key and sums in closed form."""
    V, m = counts.n_terms, counts.n_classes
    full = np.broadcast_to(zero, (V, m))
    if zero.size == 1:
        value = float(zero.ravel()[0])
        def total(w):
            if np.isnan(value) or value == -np.inf:  # no score in any class
                return np.zeros(V), np.zeros(V, dtype=np.int64)
            return np.full(V, value * np.sum(w))

        return Absent.constant(value, counts.seen, m, term_key=np.zeros(V),
                               class_key=np.zeros(m), totals=total)
    return Absent(lambda t, c: full[t, c], counts.seen, m)


def _replaced(a: np.ndarray, minus_inf: float) -> np.ndarray:
    """A copy of ``a`` with ``minus_inf`` in the place of ``-inf``."""
    a = a.copy()
    a[np.isneginf(a)] = minus_inf
    return a


def _minus_inf_for_nan(a) -> np.ndarray:
    a = np.array(a, dtype=np.float64)  # a copy: the caller's array is never changed
    np.copyto(a, -np.inf, where=np.isnan(a))
    return a


def binary_scores(counts: Counts, binary_score, **params) -> ScoreTable:
    """A score of a binary task's 2x2 table, ``f(A, B, C, D)``, for every non-empty class,
    one-vs-rest (Forman 2003's multi-class use), in sparse form. Classes without training
    documents are left out.

    Exact and sparse: with ``B = df - A``, ``C = N_c - A``, ``D = N - N_c - df + A``, a cell's
    table depends only on ``(A, df, N_c)``; the score, an elementwise function, is evaluated
    once per distinct ``(df, N_c)`` for the cells with ``A = 0``, and once per distinct table
    of the non-zero cells (:attr:`~textsift.counting._cells.SparseCells.evaluation_set`) -- or,
    beyond
    :data:`DISTINCT_CELLS` non-zero cells, once per cell, by blocks, unless the distinct
    tables are known already (:func:`compute_many` finds them for several methods): finding
    them costs more than a cheap score of every cell. The values are the same either way, on
    either layout of the counts, and bit-for-bit those of ``f(*counts.contingency())``.
    """
    counts = nonempty_classes(counts)
    cells = counts.cells
    if cells.distinct_known or len(cells.row) <= DISTINCT_CELLS:
        return ScoreTable.of_cells(counts,
                                   tables=_evaluated(binary_score, cells.evaluation_set, params))
    grid = _evaluated(binary_score, cells.grid_tables, params)
    nz = np.empty(len(cells.row))
    for start in range(0, len(nz), CELL_BLOCK):
        stop = min(start + CELL_BLOCK, len(nz))
        nz[start:stop] = _evaluated(binary_score, cells.cell_tables(start, stop), params)
    return ScoreTable.of_cells(counts, zero=_grid(_minus_inf_for_nan(grid), cells), nz=nz)


#: Up to this many non-zero cells a score is evaluated on their distinct tables; beyond,
#: cell by cell (:func:`binary_scores`).
DISTINCT_CELLS = 2**20
#: Cells evaluated at once, one by one: blocks whose temporaries stay in the cache.
CELL_BLOCK = 2**16
#: A score is evaluated on at most this many distinct tables at once: its temporaries stay
#: a few hundred megabytes however many labels there are.
EVALUATION_BLOCK = 2**22


def _evaluated(binary_score, tables, params) -> np.ndarray:
    """``binary_score(A, B, C, D, **params)`` as float64, by blocks of
    :data:`EVALUATION_BLOCK`."""
    n = len(tables[0])
    values = np.empty(n)
    for start in range(0, max(n, 1), EVALUATION_BLOCK):
        part = [t[start:start + EVALUATION_BLOCK] for t in tables]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            values[start:start + len(part[0])] = binary_score(*part, **params)
    return values


def binary_method(binary_score):
    """The scoring method of a score of a binary task's 2x2 table, ``f(A, B, C, D,
    **params)``: :func:`binary_scores` over the counts, with the score's own keyword
    parameters as its signature (so that :func:`register` lists them in
    :attr:`Method.params`)."""
    import inspect
    import typing

    def method(counts, **params):
        return binary_scores(counts, binary_score, **params)

    own = list(inspect.signature(binary_score).parameters.values())[4:]
    counts = inspect.Parameter("counts", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    method.__signature__ = inspect.Signature([counts, *own])
    hints = typing.get_type_hints(binary_score)  # evaluated in the score's module
    method.__annotations__ = {p.name: hints[p.name] for p in own if p.name in hints}
    method.__name__ = method.__qualname__ = binary_score.__name__
    return method


def per_class(counts: Counts, binary_score, **params) -> ScoreTable:
    """The table of ``binary_score`` for every class (``binary_scores``), as the built-in
    methods make theirs: held by its cells, written where a caller asks for dense values
    (``.values``, ``.table(out)``: NaN and unseen terms as ``-inf`` once ``cleaned``), so a
    registered method joins :func:`~textsift.scores.compute_many`'s shared buffer as they do."""
    return binary_scores(counts, binary_score, **params)
