"""The two forms of a score table: :class:`ScoreTable` (dense, (V, G)) and :class:`PerClass`
(a per-class (V, m) table in sparse form), and :func:`clean`, the one rule both follow (never
NaN; unseen terms ``-inf``).

Per-class scores cost one pass over the cells that differ: a cell with ``A = 0`` (most of
the (V, m) table) depends only on ``(df, class)``, so a metric is evaluated once per distinct
``(df, class)`` and once per non-zero cell, in one vectorised call
(:attr:`~textsift.counts.SparseCells.evaluation_set`, built once per :class:`Counts` and
shared by every method), and the table is written by one gather and one scatter -- whole, or
a block of rows or one column at a time. NaN and unseen terms are turned into ``-inf`` on
those few values, before any table exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..counts import Counts
from ..labels import check_labelled

__all__ = ["PerClass", "ScoreTable", "binary_method", "binary_scores", "clean", "global_table",
           "nonempty_classes", "per_class"]


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

    # the reading interface it shares with the sparse form, PerClass
    def table(self) -> ScoreTable:
        return self

    def rows(self, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``start:stop`` (a view; ``out`` is not needed)."""
        return self.values[start:stop]

    def column(self, j: int) -> np.ndarray:
        return self.values[:, j]


def clean(table: ScoreTable) -> ScoreTable:
    """The table with NaN and unseen terms as ``-inf``: the one rule every :class:`ScoreTable`
    follows, applied where a table is made (a full pass only when there is something to
    change). Policies (:mod:`textsift.policies`) rely on it and never clean again."""
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
    documents). Either ``tables`` holds one value per distinct one-vs-rest table of
    ``counts.cells.evaluation_set``, or ``zero`` gives the values of the cells with ``A = 0``
    and ``nz`` those of the non-zero cells, in ``counts.cells.flat`` order. ``zero`` is an
    array broadcastable to (V, m), or ``(ufunc, x, y)`` for ``ufunc(x, y)`` of a (V, 1) and a
    (1, m) array (in either order), written straight into the table.

    The dense values are written only when asked for, and follow the rule of
    :class:`ScoreTable` (NaN and unseen terms as ``-inf``, the sparse values cleaned once):
    the whole table (:meth:`table`), a block of its rows (:meth:`rows`, what a policy needs
    to globalise a (V, m) table of any size in a buffer of a few megabytes) or one column
    (:meth:`column`). Each gives the same values, to the bit."""

    counts: Counts
    tables: np.ndarray | None = None
    zero: np.ndarray | None = None
    nz: np.ndarray | None = None
    signed: bool = False

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
    def _sparse(self) -> tuple[np.ndarray | None, np.ndarray]:
        """``(grid, nz)``: the ``(distinct df, class)`` grid of the ``A = 0`` values (``None``
        for the ``zero`` form) and the values of the non-zero cells, without NaN."""
        c, cells = self.counts, self.counts.cells
        if self.tables is None:
            return None, _minus_inf_for_nan(self.nz)
        tables = _minus_inf_for_nan(self.tables)
        grid = tables[:cells.n_zero].reshape(-1, c.n_classes)
        if len(cells.df_values) and cells.df_values[0] == 0:  # df = 0: unseen terms
            grid[0] = -np.inf
        return grid, tables.take(cells.nz_table)

    def table(self, out: np.ndarray | None = None) -> ScoreTable:
        """The dense table: one gather and one scatter, into ``out`` (a (V, m) float64
        array) when given, else into fresh memory."""
        c = self.counts
        values = self.rows(0, c.n_terms, out)
        return ScoreTable(values, c.classes, c.seen, c.priors, self.signed)

    def rows(self, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``start:stop`` of the dense table, written into the first ``stop - start``
        rows of ``out`` (a C-contiguous float64 array ``m`` wide) when given."""
        c, cells = self.counts, self.counts.cells
        m = c.n_classes
        values = np.empty((stop - start, m)) if out is None else out[:stop - start]
        grid, nz = self._sparse
        if grid is not None:
            np.take(grid, cells.df_index[start:stop], axis=0, out=values, mode="clip")  # no copy
        else:
            _outer_or_broadcast(_row_slice(self.zero, start, stop, c.n_terms), values)
            seen = c.seen[start:stop]
            if not seen.all():
                values[~seen] = -np.inf
        lo, hi = np.searchsorted(cells.flat, [start * m, stop * m])
        np.put(values, cells.flat[lo:hi] - start * m, nz[lo:hi])
        return values

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` of the dense table (the scores of one class)."""
        c, cells = self.counts, self.counts.cells
        grid, nz = self._sparse
        if grid is not None:
            values = grid[cells.df_index, j]
        else:
            zero = self.zero
            if isinstance(zero, tuple):
                ufunc, x, y = zero
                zero = (ufunc, *(a[:, j:j + 1] if a.shape[1] > 1 else a for a in (x, y)))
            else:
                zero = np.asarray(zero)
                zero = zero[:, j:j + 1] if zero.ndim == 2 and zero.shape[1] > 1 else zero
            values = np.empty((c.n_terms, 1))
            _outer_or_broadcast(zero, values)
            values = values[:, 0]
            values[~c.seen] = -np.inf
        mine = cells.col == j
        values[cells.row[mine]] = nz[mine]
        return values


def _row_slice(zero, start: int, stop: int, n_terms: int):
    """``zero`` (an array or ``(ufunc, x, y)``) for rows ``start:stop``: the operands with one
    row per term sliced, those with one row kept."""
    def rows(a):
        a = np.asarray(a)
        return a[start:stop] if a.ndim == 2 and a.shape[0] == n_terms > 1 else a

    if isinstance(zero, tuple):
        return (zero[0], rows(zero[1]), rows(zero[2]))
    return rows(zero)


def _outer_or_broadcast(zero, values: np.ndarray) -> None:
    """Write the ``zero`` values of :class:`PerClass` into ``values``, without NaN. NaN is
    looked for in the factors: finite factors give no NaN (an overflow gives ``inf``)."""
    if isinstance(zero, tuple):
        ufunc, x, y = zero
        with np.errstate(over="ignore"):
            ufunc(x, y, out=values)
        if not (np.isfinite(x).all() and np.isfinite(y).all()):
            np.copyto(values, -np.inf, where=np.isnan(values))
    else:
        np.copyto(values, np.broadcast_to(_minus_inf_for_nan(zero), values.shape))


def _minus_inf_for_nan(a) -> np.ndarray:
    a = np.array(a, dtype=np.float64)  # a copy: the caller's array is never changed
    np.copyto(a, -np.inf, where=np.isnan(a))
    return a


def binary_scores(counts: Counts, binary_metric, **params) -> PerClass:
    """A binary metric ``f(A, B, C, D)`` for every non-empty class, one-vs-rest (Forman
    2003's multi-class use), in sparse form. Classes without training documents are left out.

    Exact and sparse: with ``B = df - A``, ``C = pos - A``, ``D = N - pos - df + A``, a cell's
    table depends only on ``(A, df, class)``; the metric is evaluated once per distinct table
    (:attr:`~textsift.counts.SparseCells.evaluation_set`), in one call. The table's values are
    bit-for-bit those of ``f(*counts.contingency())``.
    """
    counts = nonempty_classes(counts)
    A, B, C, D = counts.cells.evaluation_set
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        values = binary_metric(A, B, C, D, **params)
    return PerClass(counts, tables=np.broadcast_to(np.asarray(values, dtype=np.float64), A.shape))


def binary_method(binary_metric):
    """The scoring method of a binary metric ``f(A, B, C, D, **params)``: :func:`binary_scores`
    over the counts, with the metric's own keyword parameters as its signature (so that
    :func:`register` lists them in :attr:`Method.params`)."""
    import inspect
    import typing

    def method(counts, **params):
        return binary_scores(counts, binary_metric, **params)

    own = list(inspect.signature(binary_metric).parameters.values())[4:]
    counts = inspect.Parameter("counts", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    method.__signature__ = inspect.Signature([counts, *own])
    hints = typing.get_type_hints(binary_metric)  # evaluated in the metric's module
    method.__annotations__ = {p.name: hints[p.name] for p in own if p.name in hints}
    method.__name__ = method.__qualname__ = binary_metric.__name__
    return method


def per_class(counts: Counts, binary_metric, **params) -> ScoreTable:
    """The dense table of ``binary_scores`` (NaN and unseen terms as ``-inf``)."""
    return binary_scores(counts, binary_metric, **params).table()


def global_table(counts: Counts, values: np.ndarray) -> ScoreTable:
    """A one-column table for a class-independent score."""
    column = np.asarray(values, dtype=np.float64)[:, None]
    return ScoreTable(column, np.array(["all"], dtype=object), counts.seen, None)
