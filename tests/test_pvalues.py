"""p-values from the counts equal scipy.stats' on the same tables (issue 29 item 1).

Each test draws random tables -- zero cells and the largest counts that fit included -- and
compares with the scipy function named in its docstring, to 1e-12 relative or 1e-300
absolute. Where a p-value is a smooth function of a statistic summed in floating point (the
2 x m tests), the statistic's own rounding bounds the agreement: ``|d ln p / d stat| x |d
stat|``; those tests state that bound.
"""

from fractions import Fraction
from math import comb

import numpy as np
import pytest
import scipy.stats as ss
from exact import exact_fisher
from hypothesis import given, settings
from hypothesis import strategies as st

from textsift import Counts
from textsift.errors import TextsiftError
from textsift.scores import REGISTRY, compute, get_method, pvalues
from textsift.scores.contingency import (
    chi2_2x2_pvalue,
    fisher_log_pvalue,
    fisher_pvalue,
    g2_pvalue,
    signed_g2,
)

RTOL, ATOL = 1e-12, 1e-300

#: Counts of documents: small ones (zero cells and exact ties), and the largest that fit in
#: the counts' int32 tables.
count = st.one_of(st.integers(0, 12), st.integers(0, 5000), st.integers(0, 2**31 - 1))
tables = st.tuples(count, count, count, count)


def _close(got, expected):
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


@settings(max_examples=300, deadline=None)
@given(tables, st.booleans())
def test_chi2_equals_chi2_contingency(cells, yates):
    A, B, C, D = cells
    got = chi2_2x2_pvalue(*(np.float64(x) for x in cells), yates=yates)
    if min(A + B, C + D, A + C, B + D) == 0:
        assert got == 1.0  # scipy refuses a table with an empty margin: no test, p = 1
        return
    expected = ss.chi2_contingency([[A, B], [C, D]], correction=yates).pvalue
    _close(got, expected)


@settings(max_examples=300, deadline=None)
@given(tables)
def test_g2_equals_power_divergence_log_likelihood(cells):
    A, B, C, D = cells
    got = g2_pvalue(*(np.float64(x) for x in cells))
    if min(A + B, C + D, A + C, B + D) == 0:
        assert got == 1.0
        return
    expected = ss.chi2_contingency([[A, B], [C, D]], correction=False,
                                   lambda_="log-likelihood").pvalue
    _close(got, expected)


def test_chi2_and_g2_pvalues_keep_scipys_subnormal_range():
    """Statistics 1400..1490, 1 df: the p-values fall below the smallest normal double
    (2.2e-308); erfc(sqrt(x / 2)) underflows to 0 from about 1419.5, scipy's chi2.sf
    (chdtrc) only from about 1425. Equal to scipy to 1e-12 relative, and 0 exactly where
    scipy's is 0."""
    from textsift.scores.contingency import chi2_pvalue

    x = np.arange(1400.0, 1490.25, 0.25)
    got, expected = chi2_pvalue(x, 1), ss.chi2.sf(x, 1)
    assert ((got == 0) == (expected == 0)).all()
    assert (expected[x <= 1424] > 0).all()  # the subnormal cells are tested
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


small = st.one_of(st.integers(0, 12), st.integers(0, 3000))
fisher_tables = st.one_of(st.tuples(small, small, small, small), tables)


@settings(max_examples=200, deadline=None)
@given(fisher_tables, st.sampled_from(["greater", "less", "two-sided"]))
def test_fisher_equals_fisher_exact(cells, alternative):
    """Against the exact rational p-value where it can be had (a margin within 1,500 of 0
    or N: short sums of small fractions), to 1e-12; else against scipy's fisher_exact, to
    1e-11. Not scipy everywhere, nor 1e-12 against it: Boost's hypergeometric (scipy's) is
    itself off by up to 6e-12 on some tables -- [[0, 1], [104711, 12]] has P = 13 /
    104,724 exactly, scipy's 'less' p-value is 5.9e-12 above it, textsift's 4e-16; on
    [[1, 1500], [1500, 715483]] scipy's 'greater' is 4.1e-12 below the exact 1 - C(716983,
    1501) / C(718484, 1501), textsift's equal to it; on [[155, 1561], [53995, 53994]]
    scipy's 'less' is 2.1e-11 above the exact 8.7716489024059e-289, textsift's 9e-15 below
    it (``test_fisher_is_exact_where_scipy_is_not``). Where scipy differs by more than
    1e-11, the exact value decides, to 1e-12."""
    A, B, C, D = cells
    got = fisher_pvalue(*(np.float64(x) for x in cells), alternative=alternative)
    if min(A + B, C + D, A + C, B + D) == 0:
        assert got == 1.0
        return
    if min(A + B, A + C, C + D, B + D) <= 1500:
        _close(got, float(exact_fisher(A, B, C, D, alternative)))
    else:
        expected = ss.fisher_exact([[A, B], [C, D]], alternative=alternative).pvalue
        if not np.isclose(got, expected, rtol=1e-11, atol=ATOL):  # scipy's or ours off:
            _close(got, float(exact_fisher(A, B, C, D, alternative)))  # the exact one says


def test_fisher_is_exact_where_scipy_is_not():
    table = (155, 1561, 53995, 53994)  # found by hypothesis: scipy 2.1e-11 off
    exact = float(exact_fisher(*table, "less"))
    assert exact == pytest.approx(8.771648902405904e-289, rel=1e-15, abs=0)
    assert fisher_pvalue(*map(float, table), "less") == pytest.approx(exact, rel=1e-13, abs=0)
    scipy = ss.fisher_exact([table[:2], table[2:]], "less").pvalue
    assert scipy != pytest.approx(exact, rel=1e-11, abs=0)
    assert fisher_pvalue(0.0, 1.0, 104711.0, 12.0, "less") == pytest.approx(13 / 104724,
                                                                            rel=1e-15, abs=0)
    assert fisher_pvalue(1.0, 0.0, 0.0, 104723.0) == pytest.approx(1 / 104724, rel=1e-15, abs=0)
    p0 = Fraction(comb(716983, 1501), comb(718484, 1501))
    assert fisher_pvalue(1.0, 1500.0, 1500.0, 715483.0) == pytest.approx(float(1 - p0),
                                                                         rel=1e-15, abs=0)


def test_fisher_worked_example():
    """Fisher's tea-tasting table [[3, 1], [1, 3]]: P(A = 3) = 16/70, P(A = 4) = 1/70, so the
    one-sided p is 17/70 and the two-sided 34/70 (the symmetric tables 0 and 1 too)."""
    assert fisher_pvalue(3.0, 1.0, 1.0, 3.0, "greater") == pytest.approx(17 / 70, rel=1e-14)
    assert fisher_pvalue(3.0, 1.0, 1.0, 3.0, "two-sided") == pytest.approx(34 / 70, rel=1e-14)


def test_fisher_log_pvalue_does_not_underflow():
    """A term in 600 of a class's 600 documents and in none of the other 10,000: P = 1 /
    C(10600, 600), about 10^-1,017, below the smallest double; its log is exact to 1e-12."""
    from math import lgamma

    logp = fisher_log_pvalue(600.0, 0.0, 0.0, 10000.0)
    exact = -(lgamma(10601) - lgamma(601) - lgamma(10001))
    assert logp == pytest.approx(exact, rel=1e-12)
    assert fisher_pvalue(600.0, 0.0, 0.0, 10000.0) == 0.0


def test_signed_g2_is_negative_for_an_absence_word():
    assert signed_g2(0.0, 8.0, 4.0, 0.0) < 0 < signed_g2(2.0, 0.0, 2.0, 8.0)


# ------------------------------------------------------------------ through the registry
def _random_counts(seed, n_docs=300, n_terms=60, m=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, m, n_docs)
    p = rng.random((m, n_terms)) * 0.3
    X = (rng.random((n_docs, n_terms)) < p[y]).astype(np.int64) * rng.integers(1, 4, (
        n_docs, n_terms))
    return X, y, Counts.from_matrix(X, y)


@pytest.mark.parametrize("seed", [0, 1])
def test_per_class_pvalues_are_each_classes_2x2_test(seed):
    X, y, counts = _random_counts(seed)
    for method, reference in (
            ("chi2", lambda t: ss.chi2_contingency(t, correction=False).pvalue),
            ("g2", lambda t: ss.chi2_contingency(t, correction=False,
                                                 lambda_="log-likelihood").pvalue),
            ("fisher", lambda t: ss.fisher_exact(t, "greater").pvalue)):
        p = pvalues(counts, method)
        assert p.values.shape == (counts.n_terms, counts.n_classes)
        A, B, C, D = counts.contingency()
        for t in range(0, counts.n_terms, 7):
            for c in range(counts.n_classes):
                table = [[A[t, c], B[t, c]], [C[t, c], D[t, c]]]
                _close(p.values[t, c], reference(table))


def test_chi2_sklearn_pvalues_are_scikit_learns():
    from sklearn.feature_selection import chi2

    X, y, counts = _random_counts(3)
    p = pvalues(counts, "chi2_sklearn")
    assert p.values.shape == (counts.n_terms, 1)
    _close(p.values[:, 0], chi2(X, y)[1])


def test_ig_multi_g_test_and_chi2_multi_equal_the_2_by_m_tests():
    """G = 2 N ln2 IG (bits) and Pearson's X2 of the 2 x m table, m - 1 = 3 degrees of
    freedom: scipy's chi2_contingency of the table (presence row, absence row). Both are
    sums of 2m terms with signs, whose rounding (|d stat| <= 1e-15 x sum |terms|) the
    p-value turns into at most stat / 2 x that, relative: 1e-12 for these tables."""
    X, y, counts = _random_counts(4)
    P = (X > 0).astype(int)
    g, x2 = pvalues(counts, "ig_multi").values[:, 0], pvalues(counts, "chi2_multi").values[:, 0]
    for t in range(counts.n_terms):
        table = np.array([[P[y == c, t].sum() for c in range(4)],
                          [(1 - P[y == c, t]).sum() for c in range(4)]])
        if (table.sum(axis=1) == 0).any():
            continue
        _close(g[t], ss.chi2_contingency(table, lambda_="log-likelihood").pvalue)
        _close(x2[t], ss.chi2_contingency(table).pvalue)
    scores = compute(counts, "chi2_multi").values[:, 0]
    table = np.array([[P[y == c, 0].sum() for c in range(4)],
                      [(1 - P[y == c, 0]).sum() for c in range(4)]])
    assert scores[0] == pytest.approx(ss.chi2_contingency(table).statistic, rel=1e-12)


def test_log_odds_dirichlet_pvalue_is_its_z_two_sided():
    X, y, counts = _random_counts(5)
    z = compute(counts, "log_odds_dirichlet").values
    _close(pvalues(counts, "log_odds_dirichlet").values, 2 * ss.norm.sf(np.abs(z)))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.integers(2, 40))
def test_mann_whitney_equals_mannwhitneyu_with_ties(seed, n_ranks, n_docs):
    rng = np.random.default_rng(seed)
    y = rng.integers(1, n_ranks + 1, n_docs)
    X = (rng.random((n_docs, 5)) < rng.random(5)).astype(np.int64)
    counts = Counts.from_matrix(X, y, classes=np.arange(1, n_ranks + 1))
    p = pvalues(counts, "mann_whitney").values[:, 0]
    z = compute(counts, "mann_whitney").values[:, 0]
    for t in range(5):
        x_in, x_out = y[X[:, t] > 0], y[X[:, t] == 0]
        if len(x_in) == 0 or len(x_out) == 0:
            assert np.isnan(p[t]) or p[t] == 1.0
            continue
        if len(np.unique(y)) == 1:
            continue
        expected = ss.mannwhitneyu(x_in, x_out, method="asymptotic")
        _close(p[t], expected.pvalue)
        assert np.isfinite(z[t])
        # signed (issue 39): positive where the term's documents rank higher, U1 > U2 with
        # U1 scipy's statistic of (x_in, x_out); its size gives the two-sided p-value
        U1, U2 = expected.statistic, len(x_in) * len(x_out) - expected.statistic
        if p[t] < 1:
            assert np.sign(z[t]) == np.sign(U1 - U2), (z[t], U1, U2)
            _close(p[t], 2 * ss.norm.sf(abs(z[t])))
        else:  # the continuity correction leaves no difference: no direction
            assert z[t] == 0, (z[t], U1, U2)


def test_label_sets_are_each_label_against_the_documents_without_it():
    """Label sets: a label's table is its documents against every document without it."""
    X = np.array([[1, 0], [1, 1], [0, 1], [1, 0], [0, 0], [1, 1]])
    Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [0, 1], [1, 0]])
    counts = Counts.from_matrix(X, Y, classes=np.array(["a", "b"]))
    p = pvalues(counts, "fisher").values
    for c in range(2):
        for t in range(2):
            table = [[int(((X[:, t] > 0) & (Y[:, c] == 1)).sum()),
                      int(((X[:, t] > 0) & (Y[:, c] == 0)).sum())],
                     [int(((X[:, t] == 0) & (Y[:, c] == 1)).sum()),
                      int(((X[:, t] == 0) & (Y[:, c] == 0)).sum())]]
            _close(p[t, c], ss.fisher_exact(table, "greater").pvalue)


def test_unseen_terms_have_no_pvalue():
    counts = Counts.from_matrix(np.array([[1, 0], [0, 0], [1, 0]]), ["a", "b", "a"])
    p = pvalues(counts, "chi2").values
    assert np.isnan(p[1]).all() and np.isfinite(p[0]).all()


def test_a_method_without_a_pvalue_is_refused_with_the_ones_that_have():
    counts = _random_counts(6)[2]
    with pytest.raises(TextsiftError, match=r"bns has no p-value.*chi2.*fisher.*"
                                            r"permutation"):
        pvalues(counts, "bns")
    assert get_method("chi2").test and not get_method("bns").test


@pytest.mark.parametrize("method", sorted(n for n, m in REGISTRY.items() if m.pvalue))
def test_every_test_leaves_unseen_terms_untested(method):
    """Term 1 is in no document: NaN for every method with a p-value (the registry's, so a
    new test joins), and outside the Bonferroni family: a seen term's q is its p times the
    number of seen terms (2), not 3."""
    ordinal = "ranks" in REGISTRY[method].requires
    X = np.array([[1, 0, 1], [0, 0, 1], [1, 0, 0], [0, 0, 1], [1, 0, 0], [0, 0, 1]])
    y = [1, 2, 1, 2, 2, 1] if ordinal else ["a", "b", "a", "b", "b", "a"]
    counts = Counts.from_matrix(X, np.array(y), classes=np.array([1, 2]) if ordinal else None)
    p = pvalues(counts, method)
    assert np.isnan(p.values[1]).all() and not np.isnan(p.values[[0, 2]]).any()
    q = p.adjusted("bonferroni")
    np.testing.assert_allclose(q[[0, 2]], np.minimum(1, 2 * p.values[[0, 2]]))
    assert np.isnan(q[1]).all()
