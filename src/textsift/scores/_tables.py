"""The two forms of a score table: :class:`ScoreTable` (dense, (V, G)) and :class:`PerClass`
(a per-class (V, m) table in sparse form), and :func:`clean`, the one rule both follow (never
NaN; unseen terms ``-inf``).

Per-class scores cost one pass over the cells that differ: a cell with ``A = 0`` (most of
the (V, m) table) depends only on ``(df, class)``, so a score is evaluated once per distinct
``(df, class)`` and once per non-zero cell, in one vectorised call
(:attr:`~textsift.counting.counts.SparseCells.evaluation_set`, built once per :class:`Counts` and
shared by every method), and the table is written by one gather and one scatter -- whole, or
a block of rows or one column at a time. NaN and unseen terms are turned into ``-inf`` on
those few values, before any table exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..counting._tables import check_fits
from ..counting.counts import Counts
from ..labels import check_labelled
from ._absent import Absent, Grid

__all__ = ["Absent", "PerClass", "ScoreTable", "binary_method", "binary_scores", "clean",
           "global_table", "nonempty_classes", "per_class"]


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """Scores of every term for every group.

    Attributes
    ----------
    values : ndarray of shape (V, G), float64
        ``-inf`` marks unseen terms and "no score in this group" (for round robin, terms that
        are not candidates of a group); never NaN. :func:`compute` establishes this rule
        (:func:`clean`) for every table it returns, a user's function's included, and the
        policies trust it.
    groups : ndarray of shape (G,)
        Group labels (classes, ranks, split names, or ``["all"]``).
    seen : ndarray of shape (V,), bool
        ``df > 0``.
    weights : ndarray of shape (G,) or None
        Group weights for ``wavg`` (class priors).
    signed : bool
        A negative score is an association against the group (``Method.signed``): the
        policies that add scores over the groups refuse the table.
    """

    values: np.ndarray
    groups: np.ndarray
    seen: np.ndarray
    weights: np.ndarray | None = None
    signed: bool = False

    #: the values are held as the (V, G) array (``PerClass``: in sparse form)
    is_dense = True

    def cleaned(self) -> ScoreTable:
        """The table under the rule of :func:`clean` (NaN and unseen terms ``-inf``)."""
        return clean(self)

    # the reading interface it shares with the sparse form, PerClass
    def table(self, out: np.ndarray | None = None) -> ScoreTable:
        """The table itself (``out``, a buffer the sparse form writes into, is not needed)."""
        return self

    def rows(self, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``start:stop`` (a view; ``out`` is not needed)."""
        return self.values[start:stop]

    def column(self, j: int) -> np.ndarray:
        return self.values[:, j]

    # the policies' operations, paired with PerClass's (each table type answers them the
    # way its storage allows; callers never ask which type they hold)
    def top_many(self, classes, k: int | None) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(terms, scores)`` of each column of ``classes``: its first ``k`` terms (every
        term: ``None``) by :func:`textsift.selection.policies.order`."""
        from ..selection.policies import order

        out = []
        for j in np.asarray(classes, dtype=np.intp).reshape(-1):
            column = self.values[:, j]
            index = order(column, self.seen, k)
            out.append((index, column[index]))
        return out

    def reduce(self, aggregate: str) -> np.ndarray:
        """One score per term under ``max``, ``sum`` or ``wavg``
        (:func:`textsift.selection.policies.globalise`, by blocks of rows)."""
        from ..selection.classwise import by_blocks

        return by_blocks(self, aggregate)

    def rank_rr(self, variant: str = "skip", limit: int | None = None):
        """The round robin's :class:`~textsift.selection.policies.Ranking` of the columns
        (:func:`textsift.selection.policies.rank_terms`)."""
        from ..selection.policies import rank_terms

        return rank_terms(self.values, "rr", self.seen, self.weights, variant, limit)

    def values_at(self, terms, classes) -> np.ndarray:
        """The scores of the cells ``(terms[i], classes[i])``."""
        return self.values[np.asarray(terms, dtype=np.intp), np.asarray(classes, dtype=np.intp)]

    def scored_terms(self) -> np.ndarray:
        """The terms with a score above ``-inf`` in some column."""
        return np.flatnonzero((self.values > -np.inf).any(axis=1))

    def n_scored(self) -> np.ndarray:
        """How many terms have a score above ``-inf`` in each column."""
        return (self.values > -np.inf).sum(axis=0)

    def directed(self, signs: PerClass, keep: int) -> ScoreTable:
        """The table with the cells whose direction (``signs``, of the same groups) is not
        ``keep`` as ``-inf``."""
        values = np.where(signs.table().values == keep, self.values, -np.inf)
        return ScoreTable(values, self.groups, self.seen, self.weights, self.signed)


def clean(table: ScoreTable) -> ScoreTable:
    """The table with NaN and unseen terms as ``-inf``: the one rule every :class:`ScoreTable`
    follows, applied where a table is made (a full pass only when there is something to
    change). Policies (:mod:`textsift.selection.policies`) rely on it and never clean again."""
    values = table.values
    if np.isnan(values).any() or not table.seen.all():
        values = np.where(np.isnan(values) | ~table.seen[:, None], -np.inf, values)
    return ScoreTable(values, table.groups, table.seen, table.weights, table.signed)


def nonempty_classes(counts: Counts) -> Counts:
    """``counts`` without the classes that have no documents (excluded from every per-class
    score); at least two must remain (one label, for label sets:
    :func:`textsift.labels.check_labelled`)."""
    check_labelled(counts)
    return counts.with_documents


@dataclass(frozen=True, eq=False)
class PerClass:
    """A per-class (V, m) score table in sparse form, over ``counts`` (whose classes all have
    documents, in either layout): the values of its non-zero cells (``A > 0``) and a rule
    for the others, never the (V, m) values themselves. Either ``tables`` holds one value
    per distinct one-vs-rest table of ``counts.cells.evaluation_set`` (the ``A = 0`` cells
    then take the values of the distinct ``(df, N_c)`` grid:
    :class:`~textsift.scores.Grid`), or ``zero`` gives the values of the cells with ``A =
    0`` -- a :class:`~textsift.scores.Grid`, an :class:`~textsift.scores.Absent` or an array
    broadcastable to (V, m) -- and ``nz`` those of the non-zero cells, in ``counts.cells``
    order.

    The dense values are written only when asked for, and follow the rule of
    :class:`ScoreTable` (NaN and unseen terms as ``-inf``, the sparse values cleaned once):
    the whole table (:meth:`table`), a block of its rows (:meth:`rows`, what a policy needs
    to globalise a (V, m) table of any size in a buffer of a few megabytes) or one column
    (:meth:`column`). Each gives the same values, to the bit. A class's best terms and the
    policies over the classes are found without them, from the non-zero cells and the rule
    (:mod:`textsift.selection.classwise`)."""

    counts: Counts
    tables: np.ndarray | None = None
    zero: Absent | Grid | np.ndarray | None = None
    nz: np.ndarray | None = None
    signed: bool = False

    is_dense = False

    def cleaned(self) -> PerClass:
        """The table itself: its values are cleaned once, where they are read (``parts``)."""
        return self

    @property
    def groups(self) -> np.ndarray:
        return self.counts.classes

    @property
    def seen(self) -> np.ndarray:
        return self.counts.seen

    @property
    def weights(self) -> np.ndarray:
        return self.counts.priors

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
        tables = _minus_inf_for_nan(self.tables)
        return _grid(tables[:cells.n_zero], cells), tables.take(cells.nz_table)

    def table(self, out: np.ndarray | None = None) -> ScoreTable:
        """The dense table: one gather and one scatter, into ``out`` (a (V, m) float64
        array) when given, else into fresh memory (refused, with the memory it would need,
        when it cannot fit)."""
        c = self.counts
        if out is None:
            check_fits(c.n_terms, c.n_classes, 8, "a dense score table",
                       "rank the terms (textsift.selection.ranking.rank, rank_per_class) or read one "
                       "class's column, which never write it")
        values = self.rows(0, c.n_terms, out)
        return ScoreTable(values, c.classes, c.seen, c.priors, self.signed)

    def rows(self, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``start:stop`` of the dense table, written into the first ``stop - start``
        rows of ``out`` (a C-contiguous float64 array ``m`` wide) when given."""
        c, cells = self.counts, self.counts.cells
        m = c.n_classes
        values = np.empty((stop - start, m)) if out is None else out[:stop - start]
        absent, nz = self.parts
        absent.block(start, stop, values)
        order, first = cells.by_term
        mine = order[first[start]:first[stop]]
        np.put(values, (cells.row[mine].astype(np.int64) - start) * m + cells.col[mine],
               nz[mine])
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

    # the policies' operations (those of ScoreTable): from the non-zero cells and the absent
    # rule (textsift.selection.classwise) when the counts are in the sparse layout, else from the
    # dense rows, as the dense table gives them -- chosen here, once, by the storage
    @property
    def _cellwise(self) -> bool:
        return self.counts.layout == "sparse"

    def top_many(self, classes, k: int | None) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(terms, scores)`` of each class of ``classes``: its first ``k`` terms (every
        term: ``None``), exactly ``policies.order`` of its column
        (:func:`textsift.selection.classwise.top_many`)."""
        from ..selection.classwise import top_many
        from ..selection.policies import order

        if k is None:  # every term: each column, read whole
            return [(index := order(column := self.column(j), self.seen), column[index])
                    for j in np.asarray(classes, dtype=np.intp).reshape(-1)]
        return top_many(self, classes, k)

    def reduce(self, aggregate: str) -> np.ndarray:
        """One score per term under ``max``, ``sum`` or ``wavg``
        (:func:`textsift.selection.classwise.reduce` or the dense rows by blocks)."""
        from ..selection.classwise import by_blocks, reduce

        return reduce(self, aggregate) if self._cellwise else by_blocks(self, aggregate)

    def rank_rr(self, variant: str = "skip", limit: int | None = None):
        """The round robin's :class:`~textsift.selection.policies.Ranking`: each class asked for the
        terms its turns reach (:func:`textsift.selection.classwise.round_robin`), or that of the
        dense
        table -- the same picks."""
        from ..selection.classwise import reduce, round_robin
        from ..selection.policies import after_round_robin

        if not self._cellwise:
            return self.table().rank_rr(variant, limit)
        sel, grp = round_robin(self, self.counts.n_terms if limit is None else limit, variant)
        return after_round_robin(sel, grp, self.values_at(sel, grp), reduce(self, "max"),
                                 self.seen, limit)

    def values_at(self, terms, classes) -> np.ndarray:
        """The scores of the cells ``(terms[i], classes[i])``
        (:func:`textsift.selection.classwise.values_at`)."""
        from ..selection.classwise import values_at

        return values_at(self, terms, classes)

    def scored_terms(self) -> np.ndarray:
        """The terms with a cell above ``-inf``, from the masks, not the (V, m) values: a
        term is scored where one of its non-zero cells is, or where the absent rule scores
        it in more classes than the term has non-zero cells among them (one of those
        classes has no document with the term: an absent cell). The rule must be a
        :class:`Grid` (its values per (df, class)) or a constant."""
        counts, cells = self.counts, self.counts.cells
        zero, nz = self.parts
        found = np.bincount(cells.row[nz > -np.inf], minlength=counts.n_terms) > 0
        if isinstance(zero, Grid):
            grid = zero.by_class() > -np.inf
            own = grid[cells.df_index[cells.row], cells.col]  # a cell's class scores absent
            covered = np.bincount(cells.row[own], minlength=counts.n_terms)
            found |= grid.sum(axis=1)[cells.df_index] > covered
        else:  # a rule without a (df, class) grid: its dense rows
            found |= (self.table().values > -np.inf).any(axis=1)
        return np.flatnonzero(found & counts.seen)

    def n_scored(self) -> np.ndarray:
        """How many terms have a score above ``-inf`` in each class: the absent cells' from
        the (df, class) grid times the terms of each df absent from each class
        (``SparseCells.absent_by_df``), plus the non-zero cells'."""
        zero, nz = self.parts
        cells = self.counts.cells
        if not isinstance(zero, Grid):
            return (self.table().values > -np.inf).sum(axis=0)
        return ((zero.by_class() > -np.inf) * cells.absent_by_df).sum(axis=0) + np.bincount(
            cells.col[nz > -np.inf], minlength=self.counts.n_classes)

    def directed(self, signs: PerClass, keep: int) -> PerClass:
        """The table with the cells of the other direction than ``keep`` (``signs``: the
        direction table of the same counts) as ``-inf``, still in sparse form. A term that
        none of a class's documents has (``A = 0``) is under-represented in it (``sign(0 -
        B / (N - N_c)) = -1`` for a seen term): over-represented terms are non-zero cells
        only, so ``keep = 1`` keeps no absent term and ``keep = -1`` keeps the absent rule."""
        absent, nz = self.parts
        return PerClass(self.counts, zero=absent if keep < 0 else np.float64(-np.inf),
                        nz=np.where(signs.parts[1] == keep, nz, -np.inf), signed=self.signed)


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

        return Absent(lambda t, c: full[t, c], counts.seen, m, np.zeros(V), np.zeros(m), total)
    return Absent(lambda t, c: full[t, c], counts.seen, m)


def _minus_inf_for_nan(a) -> np.ndarray:
    a = np.array(a, dtype=np.float64)  # a copy: the caller's array is never changed
    np.copyto(a, -np.inf, where=np.isnan(a))
    return a


def binary_scores(counts: Counts, binary_score, **params) -> PerClass:
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
        return PerClass(counts, tables=_evaluated(binary_score, cells.evaluation_set, params))
    grid = _evaluated(binary_score, cells.grid_tables, params)
    nz = np.empty(len(cells.row))
    for start in range(0, len(nz), CELL_BLOCK):
        stop = min(start + CELL_BLOCK, len(nz))
        nz[start:stop] = _evaluated(binary_score, cells.cell_tables(start, stop), params)
    return PerClass(counts, zero=_grid(_minus_inf_for_nan(grid), cells), nz=nz)


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
    """The dense table of ``binary_scores`` (NaN and unseen terms as ``-inf``)."""
    return binary_scores(counts, binary_score, **params).table()


def global_table(counts: Counts, values: np.ndarray) -> ScoreTable:
    """A one-column table for a class-independent score."""
    column = np.asarray(values, dtype=np.float64)[:, None]
    return ScoreTable(column, np.array(["all"], dtype=object), counts.seen, None)
