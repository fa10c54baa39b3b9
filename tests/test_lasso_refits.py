"""AdaBag's least-squares refits and their rule for aliased words (textsift.lasso.classifier):
a word that is a linear combination of the intercept and the words before it gets the
coefficient 0 (R's lm), so of two aliased words the earlier one is kept -- in a nested model
the more frequently bagged one, at equal frequency the one earlier in the vocabulary."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from textsift.lasso import nested_models, ols_fit
from textsift.lasso.classifier import RANK_TOL, NestedOLS, _in_order_block, _in_order_cholesky


def _aliased(n=80, seed=0):
    """Random binary words 0-29, word 30 = word 3 (the same documents), word 31 = words 5 + 6
    (never together: their union), word 32 = 1 - word 8 (with the intercept)."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 30)) < 0.25).astype(float)
    X[:, 6] *= 1 - X[:, 5]
    X = np.c_[X, X[:, 3], X[:, 5] + X[:, 6], 1 - X[:, 8]]
    y = 1 + X[:, :10] @ rng.normal(size=10) + rng.normal(0, 0.3, n)
    return sp.csc_matrix(X), y, rng.integers(0, 3, n).astype(float)


def _reference(X, y, w, columns):
    """lm's rule by brute force: a column is kept iff its weighted residual on the intercept
    and the kept columns before it has a squared norm above RANK_TOL times its own; then
    weighted least squares on the kept ones. Coefficients over ``columns``, the intercept,
    and the number of kept columns."""
    A = np.asarray(X[:, columns].todense())[w > 0]
    w, y = w[w > 0], y[w > 0]
    sq = np.sqrt(w)[:, None]
    kept = []
    for j in range(A.shape[1]):
        B = np.c_[np.ones(len(w)), A[:, kept]] * sq
        res = A[:, [j]] * sq - B @ np.linalg.lstsq(B, A[:, [j]] * sq, rcond=None)[0]
        if (res ** 2).sum() > RANK_TOL * (A[:, j] ** 2 * w).sum():
            kept.append(j)
    B = np.c_[np.ones(len(w)), A[:, kept]] * sq
    beta = np.linalg.lstsq(B, y * sq.ravel(), rcond=None)[0]
    coef = np.zeros(len(columns))
    coef[kept] = beta[1:]
    return coef, beta[0], len(kept)


def test_of_two_aliased_words_the_first_given_is_kept():
    # word 30 has word 3's documents: whichever comes first keeps the coefficient
    X, y, _ = _aliased()
    first = ols_fit(X, y, [3, 30, 0])
    assert first.coef[0] != 0 and first.coef[1] == 0 and first.rank == 2
    second = ols_fit(X, y, [30, 3, 0])
    assert second.coef[0] == pytest.approx(first.coef[0], rel=1e-9) and second.coef[1] == 0
    # a union of two words, and a complement (aliased with the intercept): zero once the
    # words they are made of are in
    fit = ols_fit(X, y, [5, 6, 31, 8, 32])
    assert fit.coef[2] == 0 and fit.coef[4] == 0 and fit.rank == 3
    assert ols_fit(X, y, [31, 5, 6]).coef.tolist().count(0.0) == 1  # 6 = 31 - 5: the last


def test_words_added_later_along_a_path_are_the_aliased_ones():
    # the refits of a lasso path: a word aliased with one held since an earlier lambda gets
    # the 0, whatever the vocabulary order; words entering together, in the order given
    X, y, w = _aliased()
    refit = NestedOLS(X, y, w)
    refit.fit([30, 1])
    fit = refit.fit([1, 3, 30])
    assert fit.coef[list(fit.columns).index(3)] == 0 and fit.coef[2] != 0
    fit = NestedOLS(X, y, w).fit([1, 3, 30])
    assert fit.coef[2] == 0 and fit.coef[1] != 0
    # dropping the kept word frees its twin, which takes its coefficient
    alone = refit.fit([1, 3])
    assert alone.coef[1] == pytest.approx(fit.coef[1], rel=1e-9)


def test_nested_models_keep_the_more_frequently_bagged_of_aliased_words():
    X, y, w = _aliased()
    f = np.zeros(33, int)
    f[[0, 1, 2, 3, 30]] = [9, 9, 4, 5, 8]  # word 30 (8) before its twin 3 (5)
    models = nested_models(X.tocsr(), y, np.zeros(80, int), np.arange(80), f, [1, 5, 9])
    coef = models.coef[0].toarray()
    assert models.sizes.tolist() == [5, 4, 2]
    assert coef[1, 30] != 0 and coef[1, 3] == 0 and coef[0, 3] == 0  # A_5 and A_1
    f[30] = 5  # a tie: the vocabulary order, word 3 first
    coef = nested_models(X.tocsr(), y, np.zeros(80, int), np.arange(80), f, [1, 5]).coef[0]
    assert coef[0, 3] != 0 and coef[0, 30] == 0


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.permutations(range(33)))
def test_nested_prefixes_equal_fresh_in_order_fits(seed, order):
    # every prefix of one factorisation equals a fresh fit of the prefix by lm's rule
    X, y, w = _aliased(seed=seed)
    fits = NestedOLS(X, y, w).fit_prefixes(np.array(order), [0, 1, 7, 19, 33])
    for size, fit in fits.items():
        coef, intercept, rank = _reference(X, y, w, list(order[:size]))
        np.testing.assert_allclose(fit.coef, coef, atol=1e-7)
        assert fit.intercept == pytest.approx(intercept, abs=1e-7)
        assert fit.rank == rank and np.all(fit.coef[coef == 0] == 0)


def test_blocked_factorisation_equals_column_by_column():
    # more columns than a block, aliased columns in several blocks (duplicates of earlier
    # columns, a column of zeros): the blocked factorisation keeps the same columns as the
    # plain column-by-column loop, with the same factor
    rng = np.random.default_rng(3)
    G = rng.normal(size=(300, 400))
    cols = np.c_[G, G[:, [5]], G[:, [140]] * 2, G[:, [7]] + G[:, [299]], np.zeros((300, 1))]
    cols = cols[:, rng.permutation(cols.shape[1])]
    S = np.cov(cols, rowvar=False)
    d = np.sqrt(np.maximum(np.diag(S), 1e-300))
    S = S / np.outer(d, d)
    S[np.diag_indices_from(S)] = np.where(np.diag(S) > 0, 1.0, 0.0)
    kept, c = _in_order_cholesky(S.copy(), len(S))
    whole = _in_order_block(S.copy(), len(S))
    expect = np.flatnonzero(np.diag(whole) > 0)
    assert len(kept) == 299 and kept.tolist() == expect.tolist()
    np.testing.assert_allclose(c, whole[np.ix_(expect, expect)], atol=1e-8)
    capped, _ = _in_order_cholesky(S.copy(), 150)  # more words than rows: the first 150
    assert capped.tolist() == expect[:150].tolist()
