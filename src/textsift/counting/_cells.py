"""The non-zero cells of a (V, m) presence table and the distinct one-vs-rest tables they make:
what every per-class score reads (:attr:`textsift.counting.counts.Counts.cells`), the same for a
dense
and a sparse table of the same counts.

A cell's one-vs-rest table ``(A, B, C, D)`` is fixed by ``(A, df, N_c)`` (with ``B = df - A``,
``C = N_c - A``, ``D = N - N_c - B``), and most cells share theirs with many others: every
``A = 0`` cell whose term has the same ``df`` and whose class has the same size, and the
non-zero cells of the many rare terms. A metric of ``(A, B, C, D)`` is therefore evaluated once
per distinct table -- first the ``A = 0`` grid of distinct ``df`` by distinct ``N_c``, then
the distinct tables of the non-zero cells -- in one vectorised call, and gathered.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from ._tables import nonzero_cells

__all__ = ["INDEX_CELLS", "SparseCells", "distinct"]


def distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted distinct values as float64, each value's index among them)`` of non-negative
    integers (counts: ``df``, ``N_c``), by counting: no sort."""
    v = np.asarray(values).astype(np.intp, copy=False)
    occurs = np.bincount(v, minlength=1) > 0
    return np.flatnonzero(occurs).astype(np.float64), (np.cumsum(occurs) - 1)[v]


@dataclass(frozen=True, eq=False)
class SparseCells:
    """The non-zero cells of a presence table, with the distinct ``df`` and class sizes: a
    dense table's in term-major order (by term, then class), a sparse one's in its own,
    class-major order (by class; within a class, the order of the matrix) -- the same cells,
    each with the same values, on both layouts; ``by_term`` and ``by_class`` give
    both orders. A sum over each term's cells (``np.bincount(row, weights)``) adds them in the
    order of their classes on either layout, so it is the same to the bit.

    ``row``, ``col``: each cell's term and class; ``a``: its ``A`` (float64); ``tf``: its
    ``TF(t, c)`` (float64, or ``None``). Term weights are non-negative, so a cell with ``A =
    0`` has ``TF(t, c) = 0``. ``df_values`` (distinct ``df``, ascending) with each term's
    index ``df_index``; ``size_values`` (distinct class sizes) with each class's index
    ``size_index``; ``pos`` the class sizes and ``n`` is ``N``. ``b``, ``c``, ``d`` and
    ``flat`` (the index of each cell in the row-major (V, m) table) are derived when read."""

    df_values: np.ndarray
    df_index: np.ndarray
    size_values: np.ndarray
    size_index: np.ndarray
    row: np.ndarray
    col: np.ndarray
    a: np.ndarray
    tf: np.ndarray | None
    pos: np.ndarray
    n: float

    @classmethod
    def of(cls, doc_counts, term_freq, df, class_sizes, n_docs) -> SparseCells:
        """The cells of a dense (V, m) table (found by blocks of rows, term-major) or of a
        sparse one (its stored cells, as they are: class-major)."""
        n_terms, m = doc_counts.shape
        by_class = None
        if sp.issparse(doc_counts):  # CSC: the cells by class, as they are
            row = doc_counts.indices.astype(_index(n_terms), copy=False)
            col = np.repeat(np.arange(m, dtype=_index(m)), np.diff(doc_counts.indptr))
            a = doc_counts.data.astype(np.float64)
            tf = None if term_freq is None else term_freq.data.astype(np.float64)
            by_class = (np.arange(len(a), dtype=_index(len(a))),
                        doc_counts.indptr.astype(np.int64))
        else:
            flat, a = nonzero_cells(doc_counts)
            row, col = np.divmod(flat, m)
            row, col = row.astype(_index(n_terms)), col.astype(_index(m))
            tf = None if term_freq is None else term_freq.ravel()[flat]
        df_values, df_index = distinct(df)
        size_values, size_index = distinct(class_sizes)
        cells = cls(df_values, df_index, size_values, size_index, row, col, a, tf,
                    class_sizes.astype(np.float64), float(n_docs))
        if by_class is None:  # term-major: each term's cells begin where its row does
            cells.__dict__["by_term"] = (np.arange(len(a), dtype=_index(len(a))),
                                         _row_pointer(row, n_terms))
        else:
            cells.__dict__["by_class"] = by_class
            cells.__dict__["class_major"] = True
        return cells

    @property
    def class_major(self) -> bool:
        """Whether the cells are stored class by class (a sparse table's): ``by_class``'s
        order is then the identity, and a run of classes is a run of cells."""
        return self.__dict__.get("class_major", False)

    @property
    def n_classes(self) -> int:
        return len(self.pos)

    @property
    def n_zero(self) -> int:
        """Tables of the ``A = 0`` grid: one per distinct ``df`` and class size."""
        return len(self.df_values) * len(self.size_values)

    @cached_property
    def flat(self) -> np.ndarray:
        return self.row.astype(np.int64) * self.n_classes + self.col

    @cached_property
    def b(self) -> np.ndarray:
        return self.df_values[self.df_index[self.row]] - self.a

    @cached_property
    def c(self) -> np.ndarray:
        return self.pos[self.col] - self.a

    @cached_property
    def d(self) -> np.ndarray:
        return self.n - self.pos[self.col] - self.b

    @cached_property
    def _distinct(self) -> tuple[np.ndarray, np.ndarray]:
        """``(some, code)``: a non-zero cell of each distinct ``(A, df, N_c)`` (any one: they
        share their table), and each non-zero cell's number among them (pandas' hash
        factorisation: no sort)."""
        n_df, n_size = len(self.df_values), len(self.size_values)
        bound = (int(self.pos.max(initial=0)) + 1) * max(n_df, 1) * max(n_size, 1)
        if bound >= 2**62:  # the key could overflow: one table per cell
            return np.arange(len(self.row)), np.arange(len(self.row))
        import pandas as pd

        key = self.a.astype(np.int64)
        key *= n_df
        key += self.df_index[self.row]
        key *= n_size
        key += self.size_index[self.col]
        code, _ = pd.factorize(key)
        del key
        some = np.empty(code.max(initial=-1) + 1, dtype=np.intp)
        some[code] = np.arange(len(code))
        return some, code.astype(_index(len(some)), copy=False)

    @property
    def distinct_known(self) -> bool:
        """Whether the distinct tables have been found (``evaluation_set``)."""
        return "_distinct" in self.__dict__

    @cached_property
    def nz_table(self) -> np.ndarray:
        """For each non-zero cell, the index of its table in :attr:`evaluation_set`."""
        return self._distinct[1] + self.n_zero

    @property
    def grid_tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(A, B, C, D)`` of the :attr:`n_zero` tables with ``A = 0``: distinct ``df`` by
        distinct class size (row-major), the start of ``evaluation_set``."""
        dfu, pos = self.df_values[:, None], self.size_values[None, :]
        shape = (len(self.df_values), len(self.size_values))
        return (np.zeros(self.n_zero), np.broadcast_to(dfu, shape).ravel(),
                np.broadcast_to(pos, shape).ravel(), (self.n - pos - dfu).ravel())

    def cell_tables(self, start: int, stop: int):
        """``(A, B, C, D)`` of the non-zero cells ``start:stop``, each its own (float64)."""
        a = self.a[start:stop]
        b = self.df_values[self.df_index[self.row[start:stop]]] - a
        pos = self.pos[self.col[start:stop]]
        return a, b, pos - a, self.n - pos - b

    @cached_property
    def evaluation_set(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(A, B, C, D)`` of every distinct one-vs-rest table: first the :attr:`n_zero`
        tables with ``A = 0``, distinct ``df`` by distinct class size (row-major), then those
        of the non-zero cells."""
        grid = self.grid_tables
        some = self._distinct[0]
        a = self.a[some]
        b = self.df_values[self.df_index[self.row[some]]] - a
        c = self.pos[self.col[some]] - a
        d = self.n - self.pos[self.col[some]] - b
        return tuple(np.concatenate([g, x]) for g, x in zip(grid, (a, b, c, d), strict=True))

    @property
    def indexable(self) -> bool:
        """Whether ``table_index`` is kept: a (V, m) table of at most
        ``INDEX_CELLS`` cells."""
        return len(self.df_index) * self.n_classes <= INDEX_CELLS

    @cached_property
    def table_index(self) -> np.ndarray:
        """For every cell of the row-major (V, m) table (flat, ``intp``: what ``np.take``
        reads without a copy), the index of its table in :attr:`evaluation_set`: the
        ``(df, N_c)`` grid's for an ``A = 0`` cell, ``nz_table``'s for a non-zero one. A
        table of values held one per distinct table is written whole by one gather through
        it, shared by every method (kept only when :attr:`indexable`)."""
        n_size, m = len(self.size_values), self.n_classes
        grid = np.arange(self.n_zero, dtype=np.intp).reshape(-1, n_size)[:, self.size_index]
        index = np.empty((len(self.df_index), m), dtype=np.intp)
        np.take(grid, self.df_index, axis=0, out=index, mode="clip")
        index = index.reshape(-1)
        index[self.flat] = self.nz_table
        return index

    @cached_property
    def absent_by_df(self) -> np.ndarray:
        """(distinct df x m): how many terms of each ``df`` have no document in each class
        (the ``A = 0`` cells of that ``(df, class)``; the row of ``df = 0`` counts the unseen
        terms)."""
        n_df, m = len(self.df_values), self.n_classes
        per_df = np.bincount(self.df_index, minlength=n_df).astype(np.int32)
        nz = np.bincount(self.df_index[self.row].astype(np.int64) * m + self.col,
                         minlength=n_df * m).reshape(n_df, m)
        return np.subtract(per_df[:, None], nz, dtype=np.int32)  # fewer terms than 2**31

    @cached_property
    def by_class(self) -> tuple[np.ndarray, np.ndarray]:
        """``(order, start)``: the cells in class-major order (by class; within a class by
        term, or for a sparse table in its own order) and where each class's cells begin
        (``start[j]:start[j + 1]`` of ``order``)."""
        return _regrouped(self.col, self.row, self.n_classes, len(self.df_index))

    @cached_property
    def by_term(self) -> tuple[np.ndarray, np.ndarray]:
        """``(order, start)``: the cells in term-major order (by term, then class) and where
        each term's cells begin."""
        return _regrouped(self.row, self.col, len(self.df_index), self.n_classes)


#: Up to this many (V, m) cells the index of every cell's distinct table is kept
#: (:attr:`SparseCells.table_index`, 8 bytes a cell: 128 MiB at most), so that each
#: per-class table is written by one gather; beyond, by a gather and a scatter.
INDEX_CELLS = 2**24


def _regrouped(key, other, n_key: int, n_other: int) -> tuple[np.ndarray, np.ndarray]:
    """Cells grouped by ``other`` (in ascending order of ``other``), as an order by ``key``,
    then ``other``, and each key's start: scipy's conversion of a compressed matrix from one
    axis to the other (a stable counting sort), on the cells' positions."""
    n = len(key)
    positions = sp.csr_matrix((np.arange(n, dtype=_index(n)), key, _row_pointer(other, n_other)),
                              shape=(n_other, n_key))
    return positions.tocsc().data, _row_pointer(key, n_key)


def _row_pointer(row: np.ndarray, n_rows: int) -> np.ndarray:
    ptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=n_rows), out=ptr[1:])
    return ptr


def _index(n: int) -> type:
    """The narrowest index type for ``n`` items (int32 halves the cells' memory)."""
    return np.int32 if n < 2**31 else np.int64
