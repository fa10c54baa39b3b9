"""The (V, m) tables of ``Counts`` added up chunk by chunk, as a
stream of chunks counts them: ``TableSums``, whose rows (terms) and columns (classes) grow
as the chunks bring new ones. Its storage is chosen from the chunks' layouts: dense (V, m)
arrays while every chunk came dense, and from the first chunk in the sparse layout on a list of
non-zero cells ``(row, class, A, TF)`` (the dense totals so far turned into cells once), summed
when the list grows past four times its first part and at the end -- so memory follows the
non-zero cells, not V x m. Every count is an integer or a sum of term weights added in chunk
order, so the totals equal the counts of the whole corpus whatever the chunking.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["SUM_AFTER", "TableSums", "grown", "rows_of"]

#: The list of cells is summed when it holds this many cells more than four times its first
#: part (the totals so far, summed), so its memory stays within a few times the totals'.
SUM_AFTER = 2**22


class TableSums:
    """The summed ``doc_counts`` and ``term_freq`` of chunks' counts over ``n_rows`` rows and
    the classes seen so far (module docstring)."""

    def __init__(self, n_classes: int):
        self.n_rows = 0  # the rows allocated: grown geometrically by the caller
        self.n_classes = n_classes
        self.doc_counts = np.zeros((0, n_classes), np.int64)
        self.term_freq = np.zeros((0, n_classes))
        #: the non-zero cells so far as (row, class, A, TF) arrays, once a chunk came in the
        #: sparse layout: then no dense table is kept
        self.cells: list | None = None

    def grow(self, n_rows: int) -> None:
        """Room for ``n_rows`` rows (zeros appended)."""
        self.n_rows = n_rows
        if self.cells is None:
            self.doc_counts = grown(self.doc_counts, n_rows)
            self.term_freq = grown(self.term_freq, n_rows)

    def widen(self, at: np.ndarray, n_classes: int) -> None:
        """The classes so far become columns ``at`` of ``n_classes`` columns."""
        if self.cells is None:
            dc = np.zeros((len(self.doc_counts), n_classes), np.int64)
            tf = np.zeros(dc.shape)
            dc[:, at], tf[:, at] = self.doc_counts, self.term_freq
            self.doc_counts, self.term_freq = dc, tf
        else:
            self.cells = [(r, at[c], a, t) for r, c, a, t in self.cells]
        self.n_classes = n_classes

    def add(self, part, rows: np.ndarray, cols: np.ndarray) -> None:
        """Add the tables of the counts ``part`` at rows ``rows`` and columns ``cols``."""
        if part.layout == "sparse" and self.cells is None:
            self._to_cells()
        if self.cells is not None:
            c = part.cells
            self.cells.append((rows[c.row], cols[c.col], c.a, c.tf))
            if sum(len(x[0]) for x in self.cells) > 4 * len(self.cells[0][0]) + SUM_AFTER:
                self.cells = [self._summed()]
            return
        cells = np.ix_(rows, cols)
        self.doc_counts[cells] += part.doc_counts
        self.term_freq[cells] += part.term_freq

    def tables(self, n: int) -> tuple:
        """``(doc_counts, term_freq)`` of the first ``n`` rows: dense arrays, or CSC matrices
        of the non-zero cells once the storage is cells."""
        if self.cells is None:
            return rows_of(self.doc_counts, n), rows_of(self.term_freq, n)
        row, col, a, t = self._summed()
        keep = row < n
        shape = (n, self.n_classes)
        docs = sp.csc_matrix((a[keep].astype(np.int64), (row[keep], col[keep])), shape=shape)
        weights = sp.csc_matrix((t[keep], (row[keep], col[keep])), shape=shape)
        return docs, weights

    def _to_cells(self) -> None:
        """The dense totals so far as a list of non-zero cells."""
        r, c = np.nonzero(self.doc_counts)
        self.cells = [(r, c, self.doc_counts[r, c].astype(np.float64), self.term_freq[r, c])]
        self.doc_counts = self.term_freq = np.zeros((0, self.n_classes))

    def _summed(self) -> tuple:
        """The cells so far with each (row, class) once, its counts summed."""
        r, c, a, t = (np.concatenate(x) for x in zip(*self.cells, strict=True))
        shape = (max(self.n_rows, 1), self.n_classes)
        docs = sp.csr_matrix((a, (r, c)), shape=shape)
        weights = sp.csr_matrix((t, (r, c)), shape=shape)  # the same cells, in the same order
        row = np.repeat(np.arange(shape[0]), np.diff(docs.indptr))
        return row, docs.indices, docs.data, weights.data


def rows_of(a: np.ndarray, rows: int) -> np.ndarray:
    """The first ``rows`` rows of ``a`` (a view), zeros appended where it has fewer."""
    return a[:rows] if len(a) >= rows else grown(a, rows)


def grown(a: np.ndarray, rows: int) -> np.ndarray:
    """``a`` with ``rows`` rows: zeros appended, or cut."""
    out = np.zeros((rows, *a.shape[1:]), a.dtype)
    out[:min(rows, len(a))] = a[:rows]
    return out
