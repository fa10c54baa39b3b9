"""A per-class table held by its cells answers as its dense table does, whatever the rule of
its absent cells: a (df, class) grid, a grid of another per-term key (log_odds_dirichlet's
distinct TF(w)), or a rule evaluated by blocks of rows (am, rc, chi2_sklearn)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from textsift import Counts
from textsift.evidence.corrections import adjust_table
from textsift.scores import REGISTRY, compute, pvalues
from textsift.scores import _absent as absent_module
from textsift.scores._absent import Grid

NOMINAL = sorted(n for n, m in REGISTRY.items() if m.kind == "nominal")


def _counts(seed: int, weighted: bool = False) -> Counts:
    """60 documents x 40 terms in 3 classes, the first 4 terms unseen; ``weighted``: term
    weights with fractions (so that TF(w) takes values no document count takes)."""
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.4, (60, 40)) * (rng.random((60, 40)) < 0.5)
    X = X.astype(np.float64) * (rng.choice([0.5, 1.25, 3.0], X.shape) if weighted else 1.0)
    X[:, :4] = 0
    y = rng.integers(0, 3, 60)
    y[:3] = [0, 1, 2]
    return Counts.from_matrix(sp.csr_matrix(X), y)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6), st.booleans())
def test_every_cells_table_counts_and_finds_its_scored_terms_as_the_dense_one(seed, weighted):
    """``n_scored`` and ``scored_terms`` of a table held by its cells, from its rule and its
    non-zero cells, equal those of its dense values: for every nominal method (the unseen
    terms 0 to 3 never scored)."""
    counts = _counts(seed, weighted)
    for name in NOMINAL:
        table = compute(counts, name, dense=False)
        values = table.table().values
        np.testing.assert_array_equal(table.n_scored(), (values > -np.inf).sum(axis=0),
                                      err_msg=name)
        np.testing.assert_array_equal(table.scored_terms(),
                                      np.flatnonzero((values > -np.inf).any(axis=1)),
                                      err_msg=name)
        assert not (values[:4] > -np.inf).any(), name


def test_log_odds_absent_cells_are_a_grid_of_the_distinct_term_frequencies():
    """log_odds_dirichlet's A = 0 scores depend on TF(w) and the class alone: one row per
    distinct TF(w) of the seen terms, and one row of -inf the unseen terms share."""
    counts = _counts(3, weighted=True)
    zero, _ = compute(counts, "log_odds_dirichlet", dense=False)._store.parts
    assert isinstance(zero, Grid)
    seen_tf = counts.tf[counts.seen]
    assert zero.grid.shape == (len(np.unique(seen_tf)) + 1, 3)
    assert (zero.grid[zero.df_index[:4]] == -np.inf).all()
    assert len(np.unique(zero.df_index[4:])) == len(np.unique(seen_tf))


@pytest.mark.parametrize("correction", ["bh", "holm", "bonferroni"])
@pytest.mark.parametrize("family", ["class", "all"])
def test_log_odds_pvalues_corrected_on_their_grid_equal_the_whole_table(correction, family):
    """The p-values of log_odds_dirichlet held by its TF(w) grid are corrected once per grid
    entry, weighted by its absent terms, and per non-zero cell: the correction of the dense
    table, to 1e-12 (the unseen terms untested: NaN)."""
    counts = _counts(5, weighted=True)
    p = pvalues(counts, "log_odds_dirichlet")
    q = p.adjusted(correction, family)
    np.testing.assert_allclose(q, adjust_table(p.values, correction, family), rtol=1e-12)
    assert np.isnan(q[:4]).all() and not np.isnan(q[4:]).any()
    np.testing.assert_array_equal(p.adjusted(correction, family, dense=False).values, q)


@pytest.mark.parametrize("block", [1, 5, 2**15])
@pytest.mark.parametrize("name", ["am", "rc", "chi2_sklearn"])
def test_a_rule_written_by_blocks_of_rows_is_its_values(monkeypatch, block, name):
    """An absent rule evaluated into the table a few cells at a time (``BLOCK_CELLS``) gives
    its values at every cell, to the bit, unseen terms -inf."""
    counts = _counts(7)
    table = compute(counts, name, dense=False)
    zero, _ = table._store.parts
    V, m = counts.n_terms, counts.n_classes
    expected = zero.values(np.arange(V)[:, None], np.arange(m)[None, :])
    monkeypatch.setattr(absent_module, "BLOCK_CELLS", block)
    out = np.full((V - 2, m), np.nan)
    zero.block(2, V, out)
    np.testing.assert_array_equal(out, expected[2:])
    assert (out[:2] == -np.inf).all()  # terms 2 and 3: unseen


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["bh", "holm"]), st.sampled_from(["class", "all"]))
def test_a_grid_of_any_per_term_key_answers_as_its_dense_table(seed, correction, family):
    """A table held by cells whose absent rule is a grid of an arbitrary per-term key (4 keys
    drawn at random, the unseen terms on a fifth row of -inf; grid entries and non-zero cells
    -inf here and there): its n_scored, scored_terms and corrected values (read as p-values)
    are those of its dense table."""
    from textsift.scores import ScoreTable

    counts = _counts(seed)
    rng = np.random.default_rng(seed)
    V, m = counts.n_terms, counts.n_classes
    key = rng.integers(0, 4, V)
    key[~counts.seen] = 4
    grid = rng.choice([-np.inf, 0.01, 0.2, 1.0], (5, m))
    grid[4] = -np.inf
    nz = rng.choice([-np.inf, 0.03, 0.5], len(counts.cells.row))
    table = ScoreTable.of_cells(counts, zero=Grid(grid, key, np.arange(m)), nz=nz)
    values = table.table().values
    np.testing.assert_array_equal(table.n_scored(), (values > -np.inf).sum(axis=0))
    np.testing.assert_array_equal(table.scored_terms(),
                                  np.flatnonzero((values > -np.inf).any(axis=1)))
    p = np.where(values > -np.inf, values, np.nan)
    expected = adjust_table(p, correction, family)
    got = table.adjusted(correction, family).table().values
    np.testing.assert_allclose(np.where(got > -np.inf, got, np.nan), expected, rtol=1e-12)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.booleans())
def test_one_gather_through_the_index_of_every_cells_table_is_the_gather_and_scatter(
        seed, weighted):
    """A table held one value per distinct table is written by one gather through the index
    of every cell's table (``SparseCells.table_index``): whole, by a block of rows and as
    p-values with NaN for no test, bit for bit what the gather of its (df, class) grid and
    the scatter of its non-zero cells write (the index refused: ``INDEX_CELLS = -1``)."""
    from unittest import mock

    counts = _counts(seed, weighted)
    V = counts.n_terms
    for name in ("chi2", "g2", "bns", "odds_ratio"):
        table = compute(counts, name, dense=False)
        assert table._store.tables is not None, name
        whole, block = table.table().values, table.rows(5, V - 3)
        p = pvalues(counts, "chi2").values if name == "chi2" else None
        with mock.patch("textsift.counting._cells.INDEX_CELLS", -1):
            assert not counts.cells.indexable
            fresh = compute(counts, name, dense=False)
            np.testing.assert_array_equal(whole, fresh.table().values, err_msg=name)
            np.testing.assert_array_equal(block, fresh.rows(5, V - 3), err_msg=name)
            if p is not None:  # written, then -inf as NaN
                np.testing.assert_array_equal(p, pvalues(counts, "chi2").values)
                assert np.isnan(p[:4]).all() and not np.isnan(p[4:]).any()
        assert (whole[:4] == -np.inf).all(), name  # unseen terms


def test_a_constant_or_outer_rule_that_may_give_nan_is_still_cleaned():
    """The NaN scan of a block is skipped only where the rule cannot give NaN: a constant
    NaN, and a product of an infinite per-term value by a zero per-class one (NaN), are
    written -inf; a product of finite values is written as it is."""
    from textsift.scores._absent import Absent

    seen = np.array([True, True, False])
    out = np.empty((3, 2))
    Absent.constant(np.nan, seen, 2).block(0, 3, out)
    assert (out == -np.inf).all()
    Absent.outer(np.multiply, np.array([np.inf, 1.5, 2.0]), np.array([0.0, 2.0]),
                 seen).block(0, 3, out)
    np.testing.assert_array_equal(out, [[-np.inf, np.inf], [0.0, 3.0], [-np.inf, -np.inf]])
    rule = Absent.outer(np.add, np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0]), seen)
    assert not rule._may_be_nan
    rule.block(0, 3, out)
    np.testing.assert_array_equal(out, [[1.5, 0.0], [2.5, 1.0], [-np.inf, -np.inf]])
