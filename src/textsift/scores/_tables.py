"""The score table: one type, :class:`ScoreTable`, for every table of scores (per class, per
rank, one column), with two storages chosen once, where the table is made:

* **dense** (:class:`_Dense`): the (V, G) values as an array;
* **cells** (:class:`~textsift.scores._per_class.Cells`): a per-class (V, m) table held as
  the values of its non-zero cells (``A > 0``) and the rule of the others (a one-vs-rest
  score of a cell with ``A = 0`` depends on ``(df, N_c)`` alone, or on the term's and the
  class's own totals): what lets thousands of labels be scored, ranked, tested and selected
  without writing the (V, m) table.

Every stage reads a table through the operations below -- a column, the values at given
cells, each group's first ``k`` terms, the policies' reductions, the round robin, the terms
scored, elementwise combinations of tables of the same counts, the corrections of p-values
-- and each storage answers them its own way: no caller asks which storage it holds (the
pattern of skglm's datafits, whose dense and sparse forms are paired methods chosen once per
solver, and of ``scipy.sparse``'s one interface over several formats). A third storage (a
memory-mapped table, say) is a class with the same methods.

The one rule of every table, whatever made it: never NaN, unseen terms ``-inf`` (:func:`clean`;
the cells storage cleans its few values where they are read).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..counting.counts import Counts

__all__ = ["ScoreTable", "clean", "global_table"]


class ScoreTable:
    """Scores of every term for every group.

    ``ScoreTable(values, groups, seen, weights=None, signed=False)`` makes a dense table;
    :meth:`of_cells` a per-class table held by its cells (module docstring).

    Attributes
    ----------
    values : ndarray of shape (V, G), float64
        The dense values (written out, and refused with the memory it would need when it
        cannot fit, for a table held by its cells: the rankings never read it). ``-inf``
        marks unseen terms and "no score in this group" (for round robin, terms that are not
        candidates of a group); never NaN.
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

    __slots__ = ("_store", "signed")

    def __init__(self, values, groups, seen, weights=None, signed: bool = False):
        self._store = _Dense(np.asarray(values), np.asarray(groups), np.asarray(seen),
                             None if weights is None else np.asarray(weights))
        self.signed = bool(signed)

    @classmethod
    def of_cells(cls, counts: Counts, *, tables=None, zero=None, nz=None,
                 signed: bool = False) -> ScoreTable:
        """A per-class table of ``counts`` (whose classes all have documents) held by its
        cells: ``tables``, one value per distinct one-vs-rest table of
        ``counts.cells.evaluation_set``, or ``zero`` (the rule of the ``A = 0`` cells: a
        :class:`~textsift.scores.Grid`, an :class:`~textsift.scores.Absent` or an array
        broadcastable to (V, m)) and ``nz`` (the non-zero cells' values, ``counts.cells``
        order)."""
        from ._per_class import Cells

        return cls._of(Cells(counts, tables, zero, nz), signed)

    @classmethod
    def _of(cls, store, signed: bool = False) -> ScoreTable:
        table = object.__new__(cls)
        table._store, table.signed = store, bool(signed)
        return table

    def _same(self, store) -> ScoreTable:
        return ScoreTable._of(store, self.signed)

    def __repr__(self) -> str:
        return (f"ScoreTable({len(self.seen):,} terms x {len(self.groups):,} groups, "
                f"{self.storage} storage"
                f"{', signed' if self.signed else ''})")

    # ------------------------------------------------------------------ what it holds
    @property
    def groups(self) -> np.ndarray:
        return self._store.groups

    @property
    def seen(self) -> np.ndarray:
        return self._store.seen

    @property
    def weights(self) -> np.ndarray | None:
        return self._store.weights

    @property
    def values(self) -> np.ndarray:
        return self._store.values()

    @property
    def storage(self) -> str:
        """The storage's name, ``"dense"`` or ``"cells"``: for inspection and tests. No code
        path branches on it: every operation is answered by the storage itself."""
        return self._store.name

    def as_signed(self) -> ScoreTable:
        """The table marked signed (``Method.signed``)."""
        return ScoreTable._of(self._store, True)

    def cleaned(self) -> ScoreTable:
        """The table under the rule of :func:`clean` (NaN and unseen terms ``-inf``)."""
        return self._same(self._store.cleaned())

    # ------------------------------------------------------------------ reading it
    def table(self, out: np.ndarray | None = None) -> ScoreTable:
        """The table in dense storage (itself when it is; a table held by its cells is
        written into ``out``, a (V, m) float64 buffer, when given)."""
        store = self._store.dense(out)
        return self if store is self._store else self._same(store)

    def rows(self, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``start:stop`` of the values, written into the first ``stop - start`` rows
        of ``out`` (C-contiguous float64, G wide) when given; without ``out`` the result may
        be a read-only view of the table."""
        return self._store.rows(start, stop, out)

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` (the scores of one group), a fresh array."""
        return self._store.column(j)

    def values_at(self, terms, classes) -> np.ndarray:
        """The scores of the cells ``(terms[i], classes[i])``."""
        return self._store.values_at(np.asarray(terms, dtype=np.intp),
                                     np.asarray(classes, dtype=np.intp))

    def scored_terms(self) -> np.ndarray:
        """The terms with a score above ``-inf`` in some group."""
        return self._store.scored_terms()

    def n_scored(self) -> np.ndarray:
        """How many terms score above ``-inf`` in each group."""
        return self._store.n_scored()

    # ------------------------------------------------------------------ the policies
    def top_many(self, groups, k: int | None) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(terms, scores)`` of each column of ``groups``: its first ``k`` terms (every
        term: ``None``) by :func:`textsift.selection.policies.order` (descending, ties by index)."""
        return self._store.top_many(np.asarray(groups, dtype=np.intp).reshape(-1), k)

    def top_signs(self, groups, k: int):
        """:meth:`top_many` (``k`` terms) with each listed term's direction in its group,
        ``(terms, scores, signs)`` per group (:func:`textsift.scores.direction.direction`'s
        values, read from the cells the terms were found in): from a table held by the
        cells of counts in the sparse layout; None from any other storage."""
        return self._store.top_signs(np.asarray(groups, dtype=np.intp).reshape(-1), k)

    def reduce(self, aggregate: str) -> np.ndarray:
        """One score per term under ``max``, ``sum`` or ``wavg``
        (:func:`textsift.selection.policies.globalise`)."""
        return self._store.reduce(aggregate)

    def rank_rr(self, variant: str = "skip", limit: int | None = None):
        """The round robin's :class:`~textsift.selection.policies.Ranking` of the groups
        (:func:`textsift.selection.policies.rank_terms`)."""
        return self._store.rank_rr(variant, limit)

    # ------------------------------------------------------------------ new tables of it
    def directed(self, signs: ScoreTable, keep: int) -> ScoreTable:
        """The table with the cells whose direction (``signs``, the direction table of the
        same counts) is not ``keep`` as ``-inf``."""
        return self._same(self._store.directed(signs._store, keep))

    def combine(self, func, *others: ScoreTable) -> ScoreTable:
        """``func(mine, *theirs)`` cell by cell over tables of the same terms and groups
        (``func`` elementwise; its values clean, as every table's are): for tables held by
        their cells whose absent cells follow a (df, class) grid, on the grids and the
        non-zero cells only; else on the dense values. The result keeps this table's
        groups, weights and sign."""
        return self._same(self._store.combine(func, [o._store for o in others]))

    def only(self, j: int) -> ScoreTable:
        """The table with every column but ``j`` as ``-inf``."""
        return self._same(self._store.only(int(j)))

    def adjusted(self, correction: str, family: str) -> ScoreTable:
        """A table of p-values (``-inf``: no test) corrected for multiple testing
        (:mod:`textsift.evidence.corrections`; ``family``: each group, or all), in this table's
        storage: held by its cells, each distinct p-value is corrected once with the number
        of terms that have it, and no (V, m) table is written."""
        return ScoreTable._of(self._store.adjusted(correction, family))

    # ------------------------------------------------------------------ permutation tests
    def absent_grid(self):
        """The (df, class) :class:`~textsift.scores.Grid` of the ``A = 0`` cells where the
        table is held per distinct one-vs-rest table (a permutation of the documents keeps
        those cells' scores), else None."""
        return self._store.absent_grid()

    def held_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """``(flat, values)``: the cells held one by one (flat indices ``term * G + group``)
        and their values: a table held by its cells, its non-zero cells; a dense one, every
        cell."""
        return self._store.held_cells()


@dataclass(frozen=True, eq=False)
class _Dense:
    """The dense storage: the (V, G) values."""

    name = "dense"
    array: np.ndarray
    groups: np.ndarray
    seen: np.ndarray
    weights: np.ndarray | None = None

    def values(self) -> np.ndarray:
        return self.array

    def cleaned(self) -> _Dense:
        values = self.array
        if np.isnan(values).any() or not self.seen.all():
            values = np.where(np.isnan(values) | ~self.seen[:, None], -np.inf, values)
        return _Dense(np.asarray(values, dtype=np.float64), self.groups, self.seen,
                      self.weights)

    def _with(self, values: np.ndarray) -> _Dense:
        return _Dense(values, self.groups, self.seen, self.weights)

    def dense(self, out=None) -> _Dense:
        return self

    def rows(self, start: int, stop: int, out=None) -> np.ndarray:
        view = self.array[start:stop]
        if out is not None:
            out[:stop - start] = view
            return out[:stop - start]
        view = view.view()
        view.flags.writeable = False
        return view

    def column(self, j: int) -> np.ndarray:
        return self.array[:, j].copy()

    def values_at(self, terms, classes) -> np.ndarray:
        return self.array[terms, classes]

    def scored_terms(self) -> np.ndarray:
        return np.flatnonzero((self.array > -np.inf).any(axis=1))

    def n_scored(self) -> np.ndarray:
        return (self.array > -np.inf).sum(axis=0)

    def top_many(self, groups, k):
        from ..selection.policies import order

        return [(index := order(column := self.array[:, j], self.seen, k), column[index])
                for j in groups]

    def top_signs(self, groups, k):
        return None

    def reduce(self, aggregate: str) -> np.ndarray:
        from ..selection.classwise import by_blocks

        return by_blocks(self, aggregate)

    def rank_rr(self, variant: str, limit):
        from ..selection.policies import rank_terms

        return rank_terms(self.array, "rr", self.seen, self.weights, variant, limit)

    def directed(self, signs, keep: int) -> _Dense:
        return self._with(np.where(signs.dense().array == keep, self.array, -np.inf))

    def combine(self, func, others) -> _Dense:
        with np.errstate(invalid="ignore"):
            return self._with(func(self.array, *(o.dense().array for o in others)))

    def only(self, j: int) -> _Dense:
        values = np.full_like(self.array, -np.inf)
        values[:, j] = self.array[:, j]
        return self._with(values)

    def adjusted(self, correction: str, family: str) -> _Dense:
        from ..evidence.corrections import adjust_table

        p = np.where(np.isneginf(self.array), np.nan, self.array)
        q = adjust_table(p, correction, family)
        return _Dense(np.where(np.isnan(q), -np.inf, q), self.groups, self.seen)

    def absent_grid(self):
        return None

    def held_cells(self):
        return np.arange(self.array.size), self.array.ravel()


def clean(table: ScoreTable) -> ScoreTable:
    """The table with NaN and unseen terms as ``-inf``: the one rule every
    :class:`ScoreTable` follows, applied where a table is made (a full pass only when there is
    something to change). Policies (:mod:`textsift.selection.policies`) rely on it and never clean
    again."""
    return table.cleaned()


def global_table(counts: Counts, values: np.ndarray) -> ScoreTable:
    """A one-column table for a class-independent score."""
    column = np.asarray(values, dtype=np.float64)[:, None]
    return ScoreTable(column, np.array(["all"], dtype=object), counts.seen, None)
