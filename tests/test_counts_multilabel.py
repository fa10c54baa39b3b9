"""Counts of a multi-label corpus: N, df and TF(t) are stored, so every one-vs-rest cell is
right when a document has no label or several.

The toy (terms a b c d; labels x y z), counted by hand below:

    d0  a b      [x]
    d1  a c      [x, y, z]     three labels
    d2  b c      []            no label: counts in N and df, a negative for every label
    d3  a        [y]
    d4  c d      [z, x]
    d5  b b d    [y]
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_selection import chi2 as sklearn_chi2
from sklearn.preprocessing import MultiLabelBinarizer

from textsift.counting.counts import Counts
from textsift.errors import TextsiftError
from textsift.scores import REGISTRY, compute, compute_many

X = sp.csr_matrix(np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 1, 1, 0], [1, 0, 0, 0],
                            [0, 0, 1, 1], [0, 2, 0, 1]]))
Y = [["x"], ["x", "y", "z"], [], ["y"], ["z", "x"], ["y"]]
NAMES = np.array(list("abcd"), dtype=object)

# by hand: rows are the terms a b c d, columns the labels x y z
A = [[2, 2, 1], [1, 1, 0], [2, 1, 2], [1, 1, 1]]       # documents with the label and the term
B = [[1, 1, 2], [2, 2, 3], [1, 2, 1], [1, 1, 1]]       # the term, without the label
C = [[1, 1, 1], [2, 2, 2], [1, 2, 0], [2, 2, 1]]       # the label, without the term
D = [[2, 2, 2], [1, 1, 1], [2, 1, 3], [2, 2, 3]]       # neither
TF = [[2, 2, 1], [1, 2, 0], [2, 1, 2], [1, 1, 1]]      # occurrences in the label's documents

# the methods that score a label against the documents without it
ONE_VS_REST = sorted(n for n, m in REGISTRY.items()
                     if m.kind == "nominal" and n not in ("rc", "ig_multi", "chi2_multi"))


@pytest.fixture(scope="module")
def counts():
    return Counts.from_matrix(X, Y, feature_names=NAMES)


def test_every_one_vs_rest_cell_is_the_hand_count(counts):
    assert counts.multilabel
    assert counts.classes.tolist() == ["x", "y", "z"]
    assert counts.n_docs == 6
    assert counts.class_sizes.tolist() == [3, 3, 2]      # sums to 8, not N
    assert counts.df.tolist() == [3, 3, 3, 2]
    assert counts.tf.tolist() == [3, 4, 3, 2]
    for got, want in zip(counts.contingency(), (A, B, C, D), strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(counts.term_freq, TF)
    np.testing.assert_allclose(counts.priors, [3 / 6, 3 / 6, 2 / 6])  # P(c) = N_c / N
    cells = counts.cells  # the sparse cells every per-class score reads
    for name, want in zip("abcd", (A, B, C, D), strict=True):
        np.testing.assert_array_equal(getattr(cells, name), np.asarray(want).ravel()[cells.flat])


def binary(label):
    """The single-label corpus "this label against the rest", built by hand."""
    y = np.array([label if label in labels else "~rest" for labels in Y], dtype=object)
    return Counts.from_matrix(X, y, feature_names=NAMES)


@pytest.mark.parametrize("method", ONE_VS_REST)
def test_each_label_scores_as_its_own_binary_corpus_bit_for_bit(counts, method):
    table = compute(counts, method)
    for j, label in enumerate(counts.classes):
        own = compute(binary(label), method)
        column = 0 if own.values.shape[1] == 1 else list(own.groups).index(label)
        np.testing.assert_array_equal(table.values[:, j if table.values.shape[1] > 1 else 0],
                                      own.values[:, column], err_msg=f"{method}, {label}")


def test_rc_compares_each_label_with_the_other_labels(counts):
    # p(t|c) = (TF(t, c) + 1) / (TF(c) + V): TF(x) = TF(y) = 6, TF(z) = 4, V = 4
    # RC(a, x) = 2 p(a|x) - p(a|y) - p(a|z) = 2 * 3/10 - 3/10 - 2/8
    rc = compute(counts, "rc").values
    assert rc[0, 0] == pytest.approx(2 * 3 / 10 - 3 / 10 - 2 / 8)
    assert compute(counts, "am").values[0].tolist() == pytest.approx([2 / 3, 2 / 3, 1 / 3])


def test_scikit_learn_chi2_of_a_label_is_its_chi2_sklearn_column_over_p_not_c(counts):
    """Identity: sklearn's chi2(X, y_c) sums the c and not-c terms of (O - E)^2 / E, and
    O_c - E_c = -(O_notc - E_notc), so it is the c term divided by P(not c)."""
    table = compute(counts, "chi2_sklearn").values
    Yd = MultiLabelBinarizer(classes=["x", "y", "z"]).fit_transform(Y)
    for j in range(3):
        want, _ = sklearn_chi2(X, Yd[:, j])
        np.testing.assert_allclose(table[:, j] / (1 - counts.priors[j]), want, rtol=1e-12)


def test_label_lists_of_one_label_each_count_as_the_single_labels():
    y = ["b", "a", "b", "a", "c", "b"]
    multi = Counts.from_matrix(X, [[v] for v in y])
    single = Counts.from_matrix(X, y)
    assert multi.multilabel and not single.multilabel
    for name in ("class_sizes", "doc_counts", "term_freq", "df", "tf"):
        np.testing.assert_array_equal(getattr(multi, name), getattr(single, name))
    for method in ONE_VS_REST + ["rc"]:
        np.testing.assert_array_equal(compute(multi, method).values,
                                      compute(single, method).values, err_msg=method)


def test_an_indicator_matrix_counts_as_its_label_lists(counts):
    Yd = MultiLabelBinarizer().fit_transform(Y)
    for given_ in (Yd, sp.csr_matrix(Yd)):
        assert Counts.from_matrix(X, given_, classes=["x", "y", "z"],
                                  feature_names=NAMES).equals(counts)


def test_multiplicity_counts_documents_as_repeated_rows():
    mult = np.array([2, 0, 1, 3, 1, 1])
    rows = np.repeat(np.arange(6), mult)
    want = Counts.from_matrix(X[rows], [Y[i] for i in rows], classes=["x", "y", "z"])
    assert Counts.from_matrix(X, Y, multiplicity=mult).equals(want)


label_sets = st.lists(st.sets(st.sampled_from("pqrs"), max_size=3), min_size=2, max_size=25)


@settings(max_examples=30, deadline=None)
@given(label_sets, st.integers(0, 10**6), st.integers(1, 24))
def test_counts_of_chunks_add_up_to_the_counts_of_the_whole(rows, seed, cut):
    """Invariant: N, df, TF(t) and every cell are additive over disjoint chunks."""
    Xr = sp.csr_matrix(np.random.default_rng(seed).poisson(0.8, size=(len(rows), 5)))
    cut = min(cut, len(rows) - 1)
    whole = Counts.from_matrix(Xr, rows)
    assert (Counts.from_matrix(Xr[:cut], rows[:cut])
            + Counts.from_matrix(Xr[cut:], rows[cut:])).equals(whole)


def test_selecting_labels_keeps_the_documents(counts):
    kept = counts.select_classes([0, 2])
    assert kept.classes.tolist() == ["x", "z"]
    assert kept.n_docs == 6 and kept.df.tolist() == [3, 3, 3, 2]  # d2, d3, d5 stay, unlabelled
    np.testing.assert_array_equal(kept.contingency()[3], np.asarray(D)[:, [0, 2]])
    sub = counts.select_terms([1, 3])
    assert sub.df.tolist() == [3, 2] and sub.tf.tolist() == [4, 2] and sub.n_docs == 6


def test_multi_label_counts_need_n_df_and_tf(counts):
    with pytest.raises(TextsiftError, match="give n_docs, df and tf together"):
        Counts(counts.classes, counts.class_sizes, counts.doc_counts, counts.term_freq,
               multilabel=True)
    with pytest.raises(TextsiftError, match="cannot add the counts of label lists"):
        counts + Counts.from_matrix(X, ["x", "y", "z", "x", "y", "z"], feature_names=NAMES)


def test_methods_needing_one_label_per_document_refuse_label_sets(counts):
    for method in ("ig_multi", "chi2_multi", "var", "rr_nc_idf", "prp", "mann_whitney"):
        with pytest.raises(TextsiftError, match=f"^{method} needs one label per document"):
            compute(counts, method)
    with pytest.raises(TextsiftError, match="^ig_multi needs one label per document"):
        next(compute_many(counts, ["chi2", "ig_multi"]))
    names = [name for name, _ in compute_many(counts)]  # by default: the methods that apply
    assert names == ONE_VS_REST[:names.index("rc")] + ["rc"] + ONE_VS_REST[names.index("rc"):]


def test_one_label_that_some_documents_have_can_be_scored():
    one = Counts.from_matrix(X, [["x"], [], [], ["x"], [], []])
    assert one.classes.tolist() == ["x"]
    np.testing.assert_array_equal(compute(one, "acc").values[:, 0], [2 - 1, 1 - 2, 0 - 3, 0 - 2])
    with pytest.raises(TextsiftError, match="per-label scoring needs a label that some document"):
        compute(Counts.from_matrix(X, [[]] * 6), "chi2")
