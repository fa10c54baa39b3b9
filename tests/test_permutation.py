"""Permutation p-values (issue 29 item 2): uniform under a true null, max-T never below the
raw p-values, the (b + 1) / (B + 1) rule, reproducible at a seed whatever the workers."""

import numpy as np
import pytest
import scipy.stats as ss

from textsift import Counts
from textsift.errors import DataWarning, TextsiftError
from textsift.evidence.permutation import permutation_pvalues, smallest_pvalue
from textsift.scores import compute

#: Under the null every labelling draws its own labels independently of X.
N_DOCS, N_TERMS, N_LABELLINGS, B = 600, 25, 12, 99


@pytest.fixture(scope="module")
def null_pvalues():
    """The p-values of every nominal method (but df, whose score does not depend on the
    labels: every permutation ties it, p = 1) over 12 independent labellings of one
    random corpus whose terms are independent of the labels."""
    rng = np.random.default_rng(0)
    X = (rng.random((N_DOCS, N_TERMS)) < rng.uniform(0.15, 0.5, N_TERMS)).astype(np.int64)
    X *= rng.integers(1, 3, X.shape)
    pooled: dict = {}
    for s in range(N_LABELLINGS):
        y = np.random.default_rng(100 + s).integers(0, 3, N_DOCS)
        for name, r in permutation_pvalues(X, y, n_permutations=B, random_state=s,
                                           max_t=True).items():
            pooled.setdefault(name, []).append(r)
    return pooled


def test_pvalues_are_uniform_under_a_true_null(null_pvalues):
    """Kolmogorov-Smirnov distance to the uniform law at most 0.1 for every method (the 1%
    critical value for the 300 independent (labelling, term) pairs is 0.094; each pair's
    three classes are dependent, and the p-values are multiples of 1/100), and at most 8%
    of them at or below 0.05: the test holds its level."""
    for name, results in null_pvalues.items():
        if name == "df":
            assert all(np.nanmin(r.pvalues) == 1.0 for r in results)  # label-free: p = 1
            continue
        p = np.concatenate([r.pvalues[~np.isnan(r.pvalues)] for r in results])
        assert ss.kstest(p, "uniform").statistic <= 0.1, name
        assert np.mean(p <= 0.05) <= 0.08, name


def test_max_t_is_never_below_the_raw_pvalues(null_pvalues):
    for results in null_pvalues.values():
        for r in results:
            scored = ~np.isnan(r.pvalues)
            assert (r.maxt[scored] >= r.pvalues[scored]).all()


def test_the_rule_b_plus_one_over_b_plus_one_by_hand():
    """Two documents of each class and a term only in class a's: chi2 of a is 4 for the
    observed labels; of the 6 distinct labellings 2 give 4 (the term's two documents
    together, in a or in b), so with many permutations p tends to 1/3, and every p is a
    multiple of 1/(B + 1) at least 1/(B + 1)."""
    X = np.array([[1], [1], [0], [0]])
    y = np.array(["a", "a", "b", "b"])
    r = permutation_pvalues(X, y, ["chi2"], n_permutations=1999, random_state=0)["chi2"]
    assert r.observed[0, 0] == compute(Counts.from_matrix(X, y), "chi2").values[0, 0] == 4
    assert r.pvalues[0, 0] == pytest.approx(1 / 3, abs=0.03)
    assert (r.pvalues * 2000 % 1 == 0).all() and r.pvalues.min() >= smallest_pvalue(1999)


def test_a_seed_gives_the_same_pvalues_on_one_or_two_workers():
    rng = np.random.default_rng(3)
    X = (rng.random((80, 6)) < 0.4).astype(int)
    y = rng.integers(0, 2, 80)
    one = permutation_pvalues(X, y, ["bns", "ig"], 120, random_state=7)
    two = permutation_pvalues(X, y, ["bns", "ig"], 120, random_state=7, n_jobs=2)
    for name in one:
        np.testing.assert_array_equal(one[name].pvalues, two[name].pvalues)


def test_label_sets_keep_each_documents_set_and_progress_is_reported():
    rng = np.random.default_rng(4)
    X = (rng.random((60, 5)) < 0.4).astype(int)
    Y = (rng.random((60, 3)) < 0.3).astype(int)
    seen = []
    r = permutation_pvalues(X, Y, ["chi2"], 120, random_state=1, classes=["a", "b", "c"],
                            progress=lambda done, total: seen.append((done, total)))
    assert r["chi2"].pvalues.shape == (5, 3)
    assert seen == [(50, 120), (100, 120), (120, 120)]


def test_ordinal_methods_permute_the_ranks():
    rng = np.random.default_rng(5)
    X = (rng.random((100, 8)) < 0.3).astype(int)
    y = rng.integers(1, 6, 100)
    r = permutation_pvalues(X, y, ["rr_nc_idf", "mann_whitney"], 60, random_state=0)
    assert np.nanmin(r["mann_whitney"].pvalues) >= 1 / 61


@pytest.mark.parametrize("n", [0, -5, 2.5, True])
def test_n_permutations_below_one_is_refused(n):
    with pytest.raises(TextsiftError, match="n_permutations must be a whole number >= 1"):
        permutation_pvalues(np.eye(4, dtype=int), [0, 0, 1, 1], ["chi2"], n)


def test_too_few_permutations_to_reach_alpha_after_correction_warn():
    """20 terms x 1 test at alpha 0.05 need p <= 0.0025; 99 permutations give at least
    0.01."""
    X = np.tile(np.eye(20, dtype=int), (2, 1))
    y = [0] * 20 + [1] * 20
    with pytest.warns(DataWarning, match=r"99 permutations cannot give a p-value below "
                                         r"0\.01.*at least 400 permutations"):
        permutation_pvalues(X, y, ["chi2"], 99, random_state=0, alpha=0.05)


def test_counts_at_the_nonzero_cells_equal_the_whole_table():
    """A permutation changes a per-class score only at its non-zero cells (a cell without a
    document of its class scores the (df, N_c) grid's value in every permutation): the
    p-values counted there equal those of the whole table compared in every permutation
    (max-T compares whole tables), bit for bit, for every nominal method -- with one class
    per document (counted by bincount) and with label sets (by sparse products)."""
    rng = np.random.default_rng(3)
    X = (rng.random((300, 40)) < rng.uniform(0.02, 0.4, 40)).astype(np.int64)
    X *= rng.integers(1, 4, X.shape)
    for y, classes in ((rng.integers(0, 4, 300), None),
                       ((rng.random((300, 3)) < 0.3).astype(int), ["a", "b", "c"])):
        sparse = permutation_pvalues(X, y, n_permutations=30, random_state=5, classes=classes)
        whole = permutation_pvalues(X, y, n_permutations=30, random_state=5, classes=classes,
                                    max_t=True)
        for name, r in sparse.items():
            np.testing.assert_array_equal(r.pvalues, whole[name].pvalues, err_msg=name)


def test_counts_are_freed_without_the_cycle_collector():
    """A permutation test makes a Counts per permutation: each must be freed when dropped,
    not kept by a reference cycle until the garbage collector's next full pass (the
    counts cached themselves as ``with_documents``: 19 MB more per permutation of 20
    Newsgroups)."""
    import gc
    import weakref

    rng = np.random.default_rng(0)
    X = (rng.random((50, 20)) < 0.3).astype(int)
    gc.disable()
    try:
        counts = Counts.from_matrix(X, rng.integers(0, 3, 50))
        compute(counts, "chi2")
        compute(counts, "log_odds_dirichlet")
        ref = weakref.ref(counts)
        del counts
        assert ref() is None
    finally:
        gc.enable()
