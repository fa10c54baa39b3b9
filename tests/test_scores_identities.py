"""Identities with scipy and scikit-learn, and hypothesis properties of every score."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import chi2_contingency
from sklearn.feature_selection import chi2 as sk_chi2
from sklearn.feature_selection import mutual_info_classif

from textsift.counting.counts import Counts
from textsift.scores import REGISTRY, compute, compute_many
from textsift.selection.ranking import rank

NOMINAL = sorted(n for n, m in REGISTRY.items() if m.kind == "nominal")


def random_corpus(seed, n_docs=60, n_terms=25, n_classes=3, density=0.2):
    rng = np.random.default_rng(seed)
    X = sp.random(n_docs, n_terms, density=density, format="csr", random_state=rng,
                  data_rvs=lambda n: rng.integers(1, 5, n)).astype(float)
    y = rng.integers(0, n_classes, n_docs)
    y[:n_classes] = np.arange(n_classes)  # every class present
    return X, y


def test_chi2_equals_scipy_pearson_on_binary_data():
    X, y = random_corpus(0)
    counts = Counts.from_matrix(X, y)
    ours = compute(counts, "chi2").values
    present = (X > 0).toarray()
    for t in range(X.shape[1]):
        for j, c in enumerate(counts.classes):
            has, inc = present[:, t], y == c
            table = np.array([[np.sum(has & inc), np.sum(has & ~inc)],
                              [np.sum(~has & inc), np.sum(~has & ~inc)]])
            if (table.sum(axis=0) == 0).any() or (table.sum(axis=1) == 0).any():
                assert ours[t, j] == 0 or not counts.seen[t]
                continue
            expected = chi2_contingency(table, correction=False)[0]
            assert ours[t, j] == pytest.approx(expected, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("binary", [True, False])
def test_chi2_sklearn_sum_equals_sklearn(binary):
    X, y = random_corpus(1)
    if binary:
        X = (X > 0).astype(float)
    counts = Counts.from_matrix(X, y)
    from textsift.selection.policies import globalise

    table = compute(counts, "chi2_sklearn")
    ours = globalise(table.values, "sum")
    expected, _ = sk_chi2(X, y)
    seen = counts.seen
    np.testing.assert_allclose(ours[seen], expected[seen], rtol=1e-10)


def test_ig_multi_equals_mutual_info_classif():
    X, y = random_corpus(2, n_docs=200, n_terms=40, n_classes=4)
    Xb = (X > 0).astype(np.int64)
    counts = Counts.from_matrix(X, y)
    ours = compute(counts, "ig_multi", base=np.e).values[:, 0]
    expected = mutual_info_classif(Xb, y, discrete_features=True)
    seen = counts.seen
    np.testing.assert_allclose(ours[seen], expected[seen], atol=1e-9)


def test_ig_binary_two_classes_equals_ig_multi():
    """With two classes the per-class IG of either class is the multi-class IG."""
    X, y = random_corpus(3, n_classes=2)
    counts = Counts.from_matrix(X, y)
    ig = compute(counts, "ig").values
    np.testing.assert_allclose(ig[:, 0], ig[:, 1], atol=1e-12)
    np.testing.assert_allclose(ig[:, 0], compute(counts, "ig_multi").values[:, 0], atol=1e-12)


def test_a_term_in_every_document_scores_the_identities():
    """An identity of the formulas (D = 0): a term in every training document has IG = chi2 =
    BNS = AccR = 0, PR = 1,
    OddR = 0."""
    X = np.array([[1, 1], [1, 0], [1, 1], [1, 0]])
    counts = Counts.from_matrix(X, [0, 0, 1, 1])
    for name, value in [("ig", 0), ("chi2", 0), ("bns", 0), ("acc_ratio", 0),
                        ("prob_ratio", 1), ("odds_ratio", 0)]:
        np.testing.assert_allclose(compute(counts, name).values[0], value, atol=1e-12,
                                   err_msg=name)


def test_unseen_terms_score_minus_inf_and_rank_last():
    X = np.array([[1, 0, 1], [0, 0, 1], [1, 0, 0]])
    counts = Counts.from_matrix(X, [0, 1, 1])
    for name in NOMINAL:
        assert np.all(compute(counts, name).values[1] == -np.inf), name


def test_mi_of_absent_class_is_minus_inf_and_weighted_variant_is_zero():
    X = np.array([[1, 0], [1, 1], [0, 1]])
    counts = Counts.from_matrix(X, [0, 0, 1])
    mi = compute(counts, "mi").values
    assert mi[0, 1] == -np.inf  # term 0 never occurs in class 1
    assert mi[0, 0] == pytest.approx(np.log(2 * 3 / (2 * 2)))
    assert compute(counts, "mi", weighted=True).values[0, 1] == 0


def test_mi_of_class_pure_terms_is_one_tie_to_the_bit():
    """Terms found only in class 0 (8 of 10 documents), in 1 to 8 of its documents: each
    scores log(N / pos) = log(10 / 8) exactly, so the ranking breaks their tie by index.
    (As log A + log N - log df - log pos the eight scores took three values an ulp apart.)"""
    X = np.zeros((10, 9), dtype=np.int64)
    for k in range(8):
        X[:k + 1, k] = 1  # term k in the first k + 1 documents of class 0
    X[:, 8] = 1  # a term in every document: 0 in both classes
    counts = Counts.from_matrix(X, [0] * 8 + [1] * 2)
    for table in (compute(counts, "mi"), compute(counts, "mi", weighted=False)):
        pure = table.values[:8, 0]
        # bit for bit the same value; that value is log(10 / 8) to an ulp (numpy's SIMD and
        # scalar logarithms may differ in the last bit, by the CPU and the array's length)
        assert pure.tolist() == [pure[0]] * 8
        assert pure[0] == pytest.approx(np.log(10 / 8), rel=4e-16)
    weighted = compute(counts, "mi", weighted=True).values[:8, 0]
    np.testing.assert_allclose(weighted, np.arange(1, 9) / 10 * np.log(10 / 8), rtol=4e-16)
    assert rank(counts, "mi", top=8).index.tolist() == list(range(8))


# ----------------------------------------------------------------------------- properties
corpora = st.tuples(
    arrays(np.int64, st.tuples(st.integers(2, 25), st.integers(1, 12)),
           elements=st.integers(0, 3)),
    st.integers(0, 2**32 - 1),
)


def _labels(n_docs, seed, n_classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_docs)
    y[:2] = [0, 1]  # at least two classes
    return y


@settings(max_examples=40, deadline=None)
@given(corpora)
def test_no_nan_ever_leaves_a_score(data):
    X, seed = data
    y = _labels(X.shape[0], seed)
    counts = Counts.from_matrix(X, y)
    for name in NOMINAL:
        values = compute(counts, name).values
        assert not np.isnan(values).any(), name


@settings(max_examples=30, deadline=None)
@given(corpora)
def test_permuting_terms_permutes_scores(data):
    X, seed = data
    y = _labels(X.shape[0], seed)
    perm = np.random.default_rng(seed).permutation(X.shape[1])
    a = Counts.from_matrix(X, y)
    b = Counts.from_matrix(X[:, perm], y)
    for name in NOMINAL:
        np.testing.assert_array_equal(compute(a, name).values[perm], compute(b, name).values,
                                      err_msg=name)


@settings(max_examples=30, deadline=None)
@given(corpora)
def test_relabelling_classes_permutes_columns(data):
    """Renaming class c to 2 - c reverses the sorted class axis, so per-class columns reverse."""
    X, seed = data
    y = _labels(X.shape[0], seed)
    y[2 % len(y)] = 2
    a = Counts.from_matrix(X, y)
    b = Counts.from_matrix(X, 2 - y)
    for name in NOMINAL:
        ta, tb = compute(a, name), compute(b, name)
        if ta.values.shape[1] == 1:
            np.testing.assert_allclose(ta.values, tb.values, rtol=1e-12, atol=1e-12, err_msg=name)
        else:
            np.testing.assert_allclose(ta.values[:, ::-1], tb.values, rtol=1e-12, atol=1e-12,
                                       err_msg=name)


@pytest.mark.parametrize("name", ["acc", "acc_ratio", "prob_ratio", "odds_ratio",
                                  "odds_numerator", "f1", "bns", "pow", "ig", "chi2", "mi", "dia"])
def test_sparse_evaluation_is_bitwise_the_dense_formula(name):
    """per_class evaluates zero cells once per (df, class); the result must equal the
    metric applied to the full dense contingency table, bit for bit."""
    from textsift.scores import association, forman, information

    fn = {**vars(forman), **vars(information), **vars(association)}[
        "pow_" if name == "pow" else name]
    X, y = random_corpus(7, n_docs=80, n_terms=50, n_classes=4, density=0.15)
    counts = Counts.from_matrix(X, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        dense = np.asarray(fn(*counts.contingency()), dtype=float)
    got = compute(counts, name).values
    seen = counts.seen
    np.testing.assert_array_equal(got[seen], np.where(np.isnan(dense), -np.inf, dense)[seen])


@pytest.mark.parametrize("kw", [{}, {"smooth": False}, {"normalize": False}])
def test_sparse_rc_equals_the_dense_formula(kw):
    from textsift.scores.association import relative_contribution

    X, y = random_corpus(8, n_docs=90, n_terms=40, n_classes=5, density=0.1)
    counts = Counts.from_matrix(X, y)
    dense = relative_contribution(counts.term_freq, **kw)
    np.testing.assert_allclose(compute(counts, "rc", **kw).values[counts.seen],
                               dense[counts.seen], rtol=1e-12, atol=1e-15)


# ----------------------------------------------------------------------------- compute_many
def test_compute_many_yields_what_compute_gives_bit_for_bit():
    X, y = random_corpus(11, n_docs=120, n_terms=60, n_classes=4, density=0.1)
    counts = Counts.from_matrix(X, y)
    params = {"mi": {"weighted": True}, "ig": {"base": 10}}
    got = dict(compute_many(counts, params=params))
    assert list(got) == NOMINAL  # every nominal method, sorted
    for name in NOMINAL:
        kw = params.get(name, {})
        want = compute(Counts.from_matrix(X, y), name, **kw)  # fresh counts: no shared cache
        np.testing.assert_array_equal(got[name].values, want.values, err_msg=name)
        np.testing.assert_array_equal(got[name].groups, want.groups)
    # reuse=True: one buffer for the per-class tables, each right while it is the current one
    buffers = set()
    for name, table in compute_many(counts, params=params, reuse=True):
        np.testing.assert_array_equal(table.values, got[name].values, err_msg=name)
        if table.values.shape[1] > 1:
            buffers.add(table.values.__array_interface__["data"][0])
    assert len(buffers) == 1


def test_a_method_made_with_per_class_is_a_built_in_one_to_compute_many():
    """CONTRIBUTING's recipe (a score of the 2x2 table through ``per_class``) gives a table
    as the built-in methods do: with ``reuse=True`` it is written into the one shared buffer,
    and its values are the formula's over ``counts.contingency()`` (A / (A + C), the true
    positive rate; unseen terms -inf), the built-in ``tpr``'s when there is one."""
    from textsift.scores import per_class, register

    X, y = random_corpus(5, n_docs=80, n_terms=40, n_classes=3, density=0.15)
    counts = Counts.from_matrix(X, y)
    register("recipe_tpr", "nominal", "true positive rate (a test's copy)",
             formula=r"\frac{A}{A + C}", reference="Forman, JMLR 3 (2003) 1289-1305")(
        lambda counts: per_class(counts, lambda A, B, C, D: A / (A + C)))
    try:
        buffers = set()
        for name, table in compute_many(counts, ["chi2", "recipe_tpr"], reuse=True):
            buffers.add(table.values.__array_interface__["data"][0])
            if name == "recipe_tpr":
                A, B, C, D = counts.contingency()
                want = np.where(counts.seen[:, None], A / (A + C), -np.inf)
                np.testing.assert_array_equal(table.values, want)
        assert len(buffers) == 1
    finally:
        REGISTRY.pop("recipe_tpr")


def test_compute_many_checks_every_name_before_any_work():
    counts = Counts.from_matrix(*random_corpus(0))
    with pytest.raises(ValueError, match="unknown method 'chi3' \\(did you mean 'chi2'\\?\\)"):
        next(compute_many(counts, ["acc", "chi3"]))
    with pytest.raises(ValueError, match=r"parameters given for \['mi'\]"):
        next(compute_many(counts, ["acc"], params={"mi": {"weighted": True}}))


def test_a_declared_class_without_documents_is_left_out_of_per_class_scores():
    """Our rule (as JaTeCS skips a category without documents): the empty class gets no
    column; the other columns are those of the
    counts without it."""
    X, y = random_corpus(3, n_classes=3)
    declared = Counts.from_matrix(X, y, classes=[0, 1, 2, 7])
    observed = Counts.from_matrix(X, y)
    assert declared.class_sizes[-1] == 0
    for name in NOMINAL:
        a, b = compute(declared, name), compute(observed, name)
        np.testing.assert_array_equal(a.values, b.values, err_msg=name)
        np.testing.assert_array_equal(a.groups, b.groups, err_msg=name)


def test_distinct_tables_are_few_and_each_cell_finds_its_own():
    """Cells share a one-vs-rest table when they share (A, df, class): the evaluation set
    lists each once, and every non-zero cell maps to a table with its own A, B, C, D."""
    X, y = random_corpus(5, n_docs=200, n_terms=300, n_classes=3, density=0.02)
    cells = Counts.from_matrix(X, y).cells
    A, B, C, D = cells.evaluation_set
    keys = set(zip(A[cells.n_zero:], B[cells.n_zero:], C[cells.n_zero:], strict=True))
    assert len(keys) == len(A) - cells.n_zero < len(cells.flat)
    i = cells.nz_table
    for got, want in zip((A[i], B[i], C[i], D[i]), (cells.a, cells.b, cells.c, cells.d),
                         strict=True):
        np.testing.assert_array_equal(got, want)


# ----------------------------------------------------------------------------- sparse form
@settings(max_examples=25, deadline=None)
@given(corpora, st.integers(1, 40))
def test_rows_columns_and_blocked_rankings_are_the_dense_tables_bit_for_bit(data, block):
    """A per-class table in sparse form (compute(dense=False)) gives, by blocks of rows or
    one column at a time, exactly the dense table's values; so the rankings by blocks (any
    block size) equal those of the dense table under max, sum, wavg and one class's column:
    the same order and the same scores, to the bit."""
    import textsift.selection.classwise as ranking  # where the blocks are
    from textsift.scores import SIGNED_POLICIES
    from textsift.selection.policies import rank_terms
    from textsift.selection.ranking import ranking_of

    X, seed = data
    y = _labels(X.shape[0], seed)
    counts = Counts.from_matrix(X, y)
    saved = ranking.BLOCK_CELLS
    for name in NOMINAL:
        sparse = compute(counts, name, dense=False)
        if sparse.storage != "cells":  # a global score: one dense column
            continue
        dense = compute(counts, name)
        V, m = dense.values.shape
        np.testing.assert_array_equal(sparse.rows(1, V, np.empty((V, m)))[: V - 1],
                                      dense.values[1:], err_msg=name)
        for j in range(m):
            np.testing.assert_array_equal(sparse.column(j), dense.values[:, j], err_msg=name)
        try:
            ranking.BLOCK_CELLS = block
            for agg, cls in [("max", None), ("sum", None), ("wavg", None), ("max", 1)]:
                if sparse.signed and agg in SIGNED_POLICIES:  # refused (test_log_odds)
                    continue
                a = ranking_of(sparse, agg, cls)
                whole = dense.values if cls is None else dense.values[:, [1]]
                b = rank_terms(whole, agg, counts.seen, dense.weights)  # no blocks
                np.testing.assert_array_equal(a.index, b.index, err_msg=f"{name} {agg}")
                np.testing.assert_array_equal(a.scores, b.scores, err_msg=f"{name} {agg}")
        finally:
            ranking.BLOCK_CELLS = saved
