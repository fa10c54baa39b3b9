"""p-values from the counts, for the scores that are tests, and the tests added as methods.

``pvalues(counts, "chi2")`` gives the p-value of every term in every group of the method's
score table (the same (V, G) layout and groups as :func:`~textsift.scores.compute`), from the
same counts, with no second pass over the documents; the per-class tests are evaluated once
per distinct one-vs-rest table, as the scores are (``binary_scores``). A method has a
p-value when its registry entry names its test (``Method.test``, ``Method.pvalue``):

============================  ===================================================  ========
method                        test                                                 df
============================  ===================================================  ========
``chi2``                      Pearson's chi-square of the 2 x 2 presence table     1
                              (``yates=True``: Yates' continuity correction)
``g2`` (new)                  the log-likelihood ratio G2 (Dunning 1993)           1
``fisher`` (new)              Fisher's exact test (hypergeometric tail)            --
``log_odds_dirichlet``        the normal p-value of its z-score (two-sided)        --
``chi2_sklearn``              scikit-learn's own: its statistic summed over the    m - 1
                              classes (one p-value per term)
``ig_multi``                  the G-test of the 2 x m table, ``G = 2 N ln2 IG``    m - 1
``chi2_multi`` (new)          Pearson's chi-square of the 2 x m table              m - 1
``mann_whitney`` (new)        Mann-Whitney U of the ranks of the documents with    --
                              the term against those without (tie-corrected)
============================  ===================================================  ========

Each per-class test takes a class (label) against the documents without it, so label sets
are served as every one-vs-rest score serves them. The statistics are computed from the
cells as ``scipy.stats`` computes them (``chi2_contingency``, ``power_divergence``,
``fisher_exact``, ``mannwhitneyu``), so the p-values agree to the last digits
(``tests/test_pvalues.py``). A p-value is NaN where there is no test: a term no document
has. Every other method: a permutation test gives a p-value for any score. The tests of one 2 x 2
table, from its cells, are :mod:`textsift.scores.contingency`'s.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._choices import CORRECTION, FAMILY
from ..counting.counts import Counts
from ..errors import TextsiftError
from ..labels import check_requirement
from ._absent import Grid
from ._per_class import Cells, binary_scores
from ._registry import REGISTRY, _call, get_method, register
from ._tables import ScoreTable
from .contingency import Alternative, fisher_log_pvalue, fisher_pvalue, g2_pvalue, signed_g2

__all__ = ["PValues", "pvalues", "with_pvalues"]

DUNNING_1993 = ("T. Dunning, \"Accurate methods for the statistics of surprise and "
                "coincidence\", Computational Linguistics 19(1) (1993) 61-74")
FISHER = ("R. A. Fisher, The Design of Experiments (Oliver and Boyd, 1935), chapter II; the "
          "two-sided p-value as scipy.stats.fisher_exact computes it (the tables no more "
          "probable than the one observed, to a relative 1e-14)")


@dataclass(frozen=True, eq=False)
class PValues:
    """p-values of every term in every group of a method's table, or their adjusted values
    (:meth:`~textsift.scores.significance.PValues.adjusted`).

    Attributes
    ----------
    table : ScoreTable
        The p-values in the storage the method's scores take (a term without a test as
        ``-inf``): for a per-class test, a table held by its cells that holds one
        p-value per distinct one-vs-rest table (and, adjusted, one per distinct table of each
        family), never the (V, m) table.
    method : str
    test : str
        The test, in words (``Method.test``).
    values : ndarray of shape (V, G)
        The dense table, written when first read: p-values in [0, 1], NaN where there is no
        test (terms no document has).
    groups : ndarray of shape (G,)
        The groups of the method's score table (classes, or ``["all"]`` for a test of the
        whole 2 x m table).
    seen : ndarray of shape (V,), bool
    """

    table: ScoreTable
    method: str
    test: str

    @property
    def groups(self) -> np.ndarray:
        return np.asarray(self.table.groups)

    @property
    def seen(self) -> np.ndarray:
        return np.asarray(self.table.seen)

    @cached_property
    def values(self) -> np.ndarray:
        store = self.table._store  # held per distinct table: one gather, NaN written there
        values = store.gathered(np.nan) if isinstance(store, Cells) else None
        if values is not None:
            return values
        dense = self.table.table()  # a table held by its cells: written here, once
        values = dense.values
        if dense is self.table or values.dtype != np.float64:  # the table's own array
            values = np.array(values, dtype=np.float64)
        np.copyto(values, np.nan, where=np.isneginf(values))
        return values

    def at(self, terms, groups) -> np.ndarray:
        """The p-values of the cells ``(terms[i], groups[i])`` (NaN where there is no test),
        read from ``table`` without writing the (V, G) table (unless it is written
        already): what a view of a few terms per class reads, with any number of
        labels."""
        terms = np.asarray(terms, dtype=np.intp)
        groups = np.broadcast_to(np.asarray(groups, dtype=np.intp), terms.shape)
        if "values" in self.__dict__:
            return self.values[terms, groups]
        values = np.array(self.table.values_at(terms, groups), dtype=np.float64)
        values[np.isneginf(values)] = np.nan
        return values

    def adjusted(self, correction: str = CORRECTION, family: str = FAMILY, dense: bool = True):
        """The adjusted p-values (:mod:`textsift.evidence.corrections`; NaN where there is no test):
        the (V, G) array, or with ``dense=False`` a :class:`PValues` whose ``table`` holds
        them in the scores' sparse form (written out when its ``values`` are read).

        A per-class test is corrected once per distinct one-vs-rest table of each family,
        with the number of terms that have it (``adjusted_tables``): the same values as
        the correction of the whole table, at the cost of its few thousand distinct tables;
        held cell by cell (many labels: ``binary_scores`` past ``DISTINCT_CELLS``), once per
        ``(df, class)`` of its ``A = 0`` cells and once per non-zero cell
        (``adjusted_cells``). Neither writes the (V, m) table."""
        from ..evidence.corrections import check_correction, check_family

        check_correction(correction)
        check_family(family)
        q = PValues(self.table.adjusted(correction, family), self.method, self.test)
        return q.values if dense else q


def from_table(table, method: str, test: str) -> PValues:
    """The :class:`PValues` of a table of p-values made as the scores are (a
    :class:`ScoreTable` in either storage, whose rule writes unseen terms as
    ``-inf``). The one rule of every method's p-values: a term no document has (``df =
    0``) has no test -- NaN, in no correction's family -- whatever its method's function
    gave it (the 2 x m tests and scikit-learn's gave 1); a per-class table follows it by
    construction, a one-column table is cleaned here."""
    return PValues(table.cleaned(), method, test)


@dataclass(frozen=True, eq=False)
class _Pairs:
    """The families of a per-class test's p-values held once per distinct one-vs-rest table
    (:attr:`~textsift.counting._cells.SparseCells.evaluation_set`): each *pair* is a distinct table
    of
    one class, with ``weight`` the class's terms that have it. First the ``A = 0`` grid,
    ``(df, class)`` row-major -- its table the grid's ``(df, N_c)``, its weight the terms of
    that ``df`` without a document in the class (none for ``df = 0``: untested) -- then the
    non-zero tables of each class; ``cell_pair`` is each non-zero cell's pair among those
    (a table is one pair where every class has its own size, several where classes share a
    size). ``by_class`` lists the pairs with terms class by class, ``bounds`` where each
    class's begin. The same for every method: built once per :class:`Counts` (as its
    evaluation set) and kept while the counts live."""

    table: np.ndarray
    weight: np.ndarray
    cell_pair: np.ndarray
    by_class: np.ndarray
    bounds: np.ndarray

    @classmethod
    def of(cls, cells) -> _Pairs:
        n_df, m, n_size = len(cells.df_values), cells.n_classes, len(cells.size_values)
        grid_weight = cells.absent_by_df.copy()
        if n_df and cells.df_values[0] == 0:
            grid_weight[0] = 0  # unseen terms: no test
        grid_table = (np.arange(n_df)[:, None] * n_size + cells.size_index[None, :]).ravel()
        if n_size == m:  # every class its own size: a non-zero table is one class's
            code = (cells.nz_table - cells.n_zero).astype(np.intp)
            owner = np.empty(len(cells.evaluation_set[0]) - cells.n_zero, dtype=np.intp)
            owner[code] = cells.col
            nz_table, nz_cls = np.arange(len(owner)) + cells.n_zero, owner
        else:
            import pandas as pd

            code, pairs = pd.factorize(cells.nz_table.astype(np.int64) * m + cells.col)
            nz_table, nz_cls = pairs // m, pairs % m
        weight = np.concatenate([grid_weight.ravel(), np.bincount(code, minlength=len(nz_cls))])
        pair_cls = np.concatenate([np.tile(np.arange(m), n_df), nz_cls])
        tested = np.flatnonzero(weight > 0)
        order = np.argsort(pair_cls[tested].astype(np.int64), kind="stable")
        return cls(np.concatenate([grid_table, nz_table]), weight.astype(np.float64), code,
                   tested[order], np.searchsorted(pair_cls[tested][order], np.arange(m + 1)))


_PAIRS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _pairs(cells) -> _Pairs:
    if cells not in _PAIRS:
        _PAIRS[cells] = _Pairs.of(cells)
    return _PAIRS[cells]


def adjusted_tables(p: Cells, correction: str, family: str) -> Cells:
    """The adjusted p-values of a per-class test held once per distinct one-vs-rest table
    (``p.tables``), in the same sparse form: each family (a class, or every class) is its
    distinct (table, class) pairs (:class:`_Pairs`), each a distinct p-value weighted by
    its number of terms, corrected as :func:`textsift.evidence.corrections.adjust_distinct` corrects
    distinct p-values; the ``A = 0`` cells as a (df, class) grid, the others per cell."""
    from ..evidence.corrections import adjust_families

    counts = p.counts
    cells, m = counts.cells, counts.n_classes
    pairs = _pairs(cells)
    val = np.asarray(p.tables, dtype=np.float64)[pairs.table]
    bounds = pairs.bounds if family == "class" else pairs.bounds[[0, -1]]
    q = adjust_families(val, pairs.weight, pairs.by_class, bounds, correction)
    if len(cells.size_values) == m:  # every class its own size: a pair is a table
        tables = np.empty(len(p.tables))
        tables[pairs.table] = q
        return Cells(counts, tables=tables)
    n_grid = len(cells.df_values) * m
    grid = q[:n_grid].reshape(len(cells.df_values), m)
    if len(cells.df_values) and cells.df_values[0] == 0:
        grid[0] = -np.inf  # unseen terms: no test
    return Cells(counts, zero=Grid(grid, cells.df_index, np.arange(m)),
                    nz=q[n_grid:][pairs.cell_pair])


#: Family entries corrected at once by :func:`adjusted_cells` (a block of whole classes).
FAMILY_BLOCK = 2**24


def adjusted_cells(p: Cells, correction: str, family: str) -> Cells:
    """:func:`adjusted_tables` for p-values held cell by cell: each family's entries are
    the ``(df, class)`` grid of its ``A = 0`` cells, weighted by the terms of that ``df``
    without a document in the class, and its non-zero cells, one test each. Each class its
    own family, the classes are corrected a block at a time (about :data:`FAMILY_BLOCK`
    entries): the memory is the result's and one block's, whatever the number of labels."""
    from ..evidence.corrections import adjust_families

    counts, cells, m = p.counts, p.counts.cells, p.counts.n_classes
    zero, nz = p.parts
    n_df, absent = zero.grid.shape[0], zero.absent_counts(cells)
    order, start = cells.by_class
    grid_q, nz_q = np.empty((n_df, m)), np.full(len(nz), -np.inf)
    step = max(1, FAMILY_BLOCK // max(n_df, 1)) if family == "class" else m
    for c0 in range(0, m, step):
        c1 = min(m, c0 + step)
        mine = order[start[c0]:start[c1]]  # the block's non-zero cells, class by class
        mine = mine[nz[mine] > -np.inf]  # tested (-inf: no test)
        value, cell_cls, weight, entry = _distinct_cells(nz[mine], cells.col[mine] - c0)
        values = np.concatenate([zero.grid[:, zero.size_index[c0:c1]].T.ravel(), value])
        values[np.isneginf(values)] = np.nan  # no test (the unseen terms' row)
        weight = np.concatenate([absent[:, c0:c1].T.ravel(), weight])
        cls = np.concatenate([np.repeat(np.arange(c1 - c0), n_df), cell_cls])
        tested = np.flatnonzero((weight > 0) & ~np.isnan(values))
        members = tested[np.argsort(cls[tested].astype(_narrow(c1 - c0)), kind="stable")]
        bounds = (np.searchsorted(cls[members], np.arange(c1 - c0 + 1)) if family == "class"
                  else np.array([0, len(members)]))
        q = adjust_families(values, weight, members, bounds, correction)
        n_grid = (c1 - c0) * n_df
        grid_q[:, c0:c1] = q[:n_grid].reshape(c1 - c0, n_df).T
        nz_q[mine] = q[n_grid:][entry]
    grid_q[np.isnan(grid_q)] = -np.inf
    nz_q[np.isnan(nz_q)] = -np.inf
    return Cells(counts, zero=Grid(grid_q, zero.df_index, np.arange(m)), nz=nz_q)


def _distinct_cells(values: np.ndarray, cls: np.ndarray):
    """``(value, class, weight, entry)``: the distinct p-values of each class's non-zero
    cells (``cls``: ascending), the cells that have each, and each cell's entry among them.
    Many cells share a p-value (those of one distinct table), and a correction of tied
    values with their numbers of tests is exact, so a family sorts its distinct values,
    not its cells: found by hashing (pandas' factorisation, no sort) in each class of at
    least :data:`HASHED_CELLS` cells, where it costs less than the sort it saves; the
    cells of a smaller class are entries of their own."""
    import pandas as pd

    bounds = np.searchsorted(cls, np.arange(int(cls.max(initial=-1)) + 2))
    parts, offset = [], 0
    entry = np.arange(len(values))
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        if b - a < HASHED_CELLS:
            parts.append((values[a:b], np.ones(b - a)))
            entry[a:b] += offset - a
            offset += b - a
            continue
        code, uniques = pd.factorize(values[a:b])
        parts.append((np.asarray(uniques, dtype=np.float64),
                      np.bincount(code, minlength=len(uniques)).astype(np.float64)))
        entry[a:b] = code + offset
        offset += len(uniques)
    if not parts:
        return values, cls, np.zeros(0), entry
    sizes = [len(v) for v, _ in parts]
    return (np.concatenate([v for v, _ in parts]), np.repeat(np.arange(len(parts)), sizes),
            np.concatenate([w for _, w in parts]), entry)


#: A class's non-zero cells are grouped by their p-value (hashed) from this many on.
HASHED_CELLS = 1024


def _narrow(n: int) -> type:
    """The narrowest unsigned type for ``n`` classes: numpy sorts it by radix, stably."""
    return np.uint8 if n <= 2**8 else np.uint16 if n <= 2**16 else np.int64


def with_pvalues() -> list[str]:
    """The methods that have a p-value (``Method.test``), sorted."""
    return sorted(n for n, m in REGISTRY.items() if m.pvalue is not None)


def pvalues(counts: Counts, method, **params) -> PValues:
    """The p-value of every term in every group of ``method``'s table (module docstring),
    ``params`` the method's own (e.g. ``yates=True`` for ``chi2``, ``alternative=`` for
    ``fisher``). A method without a test is refused with the names of those that have one
    and of the permutation test, which gives any method a p-value."""
    if not isinstance(counts, Counts):
        raise TypeError(f"expected textsift.counting.counts.Counts, got {type(counts).__name__}")
    m = get_method(method) if isinstance(method, str) else method
    if m.pvalue is None:
        raise TextsiftError(
            f"{m.name} has no p-value: it is not a statistical test. The methods that are: "
            f"{', '.join(with_pvalues())}; for any method, a permutation test gives one")
    check_requirement(m.requires, counts, m.name)
    check_requirement(m.test_requires, counts, f"{m.name}'s p-value")
    table = _call(_as_pvalue_method(m), counts, params)
    return from_table(table, m.name, m.test)


def _as_pvalue_method(m):
    """``m`` with its p-value function in the place of its scoring function (so that the
    parameters are checked as a method's are)."""
    from dataclasses import replace

    return replace(m, func=m.pvalue)


# ------------------------------------------------------------------ the methods that are tests
def _g2_pvalue(counts):
    return binary_scores(counts, g2_pvalue)


@register("g2", "nominal", "log-likelihood ratio G2 of the 2x2 table, signed (Dunning)",
          formula=r"\operatorname{sign}\Big(\frac{A}{N_c} - \frac{B}{N - N_c}\Big)\, 2 "
                  r"\sum_{\text{cells}} O \ln \frac{O}{E}, \quad E = "
                  r"\frac{\text{row} \times \text{column}}{N}",
          reference=DUNNING_1993, pvalue=_g2_pvalue,
          test="the log-likelihood ratio G2 of the 2 x 2 presence/class table, 1 df",
          absent="falls with df", signed=True)
def _g2(counts):
    """Signed as quanteda's keyness signs it: negative where the term is under-represented
    in the class, so that the top of a class's ranking is its own words."""
    return binary_scores(counts, signed_g2)


def _fisher_score(A, B, C, D, alternative: Alternative = "greater"):
    return -fisher_log_pvalue(A, B, C, D, alternative) / np.log(10.0)


def _fisher_pvalue(counts, alternative: Alternative = "greater"):
    return binary_scores(counts, fisher_pvalue, alternative=alternative)


@register("fisher", "nominal", "Fisher's exact test of the 2x2 table, -log10 p (one-sided)",
          formula=r"-\log_{10} P(X \ge A), \quad X \sim \mathrm{Hypergeometric}(N, "
                  r"\mathrm{df}, N_c)",
          reference=FISHER, pvalue=_fisher_pvalue,
          test="Fisher's exact test of the 2 x 2 presence/class table (alternative: greater, "
               "the term over-represented in the class; less; two-sided)",
          absent="the same for every term")
def _fisher(counts, alternative: Alternative = "greater"):
    """``-log10 p``, computed in log space (a p-value below 1e-308 still ranks), once per
    distinct one-vs-rest table."""
    return binary_scores(counts, _fisher_score, alternative=alternative)
