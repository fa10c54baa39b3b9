"""Counts: one pass, additivity, validation."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from textsift.counting.counts import Counts


def test_counts_match_brute_force():
    X = np.array([[2, 0, 1], [0, 0, 3], [1, 1, 0], [0, 4, 0]])
    y = np.array(["b", "a", "b", "a"])
    c = Counts.from_matrix(sp.csr_matrix(X), y, feature_names=["x", "y", "z"])
    np.testing.assert_array_equal(c.classes, ["a", "b"])
    np.testing.assert_array_equal(c.class_sizes, [2, 2])
    np.testing.assert_array_equal(c.doc_counts, [[0, 2], [1, 1], [1, 1]])
    np.testing.assert_array_equal(c.term_freq, [[0, 3], [4, 1], [3, 1]])
    np.testing.assert_array_equal(c.df, [2, 2, 2])
    np.testing.assert_array_equal(c.class_tf, [7, 5])
    assert c.n_docs == 4


def test_duplicate_entries_are_summed_not_double_counted():
    X = sp.csr_matrix((np.array([1.0, 1.0]), np.array([0, 0]), np.array([0, 2])), shape=(1, 1))
    c = Counts.from_matrix(X, [0])
    assert c.doc_counts[0, 0] == 1 and c.term_freq[0, 0] == 2


def test_declared_classes_keep_empty_ones_and_are_sorted():
    c = Counts.from_matrix(np.eye(3), [1, 1, 5], classes=[5, 4, 3, 2, 1])
    np.testing.assert_array_equal(c.classes, [1, 2, 3, 4, 5])
    np.testing.assert_array_equal(c.class_sizes, [2, 0, 0, 0, 1])
    np.testing.assert_array_equal(c.doc_counts[:, 0], [1, 1, 0])
    assert (c + Counts.from_matrix(np.eye(3), [2, 2, 2])).class_sizes.tolist() == [2, 3, 0, 0, 1]
    with pytest.raises(ValueError, match="not among the declared classes"):
        Counts.from_matrix(np.eye(3), [1, 1, 6], classes=[1, 2, 3, 4, 5])


@pytest.mark.parametrize(
    "X, y, match",
    [
        (np.eye(3), [0, 1], "one label per row"),
        (np.zeros((0, 3)), [], "empty"),
        (np.array([[1.0, -1.0]]), [0], "Negative values"),
        (np.array([[1.0, np.nan]]), [0], "NaN"),
        (np.eye(2), np.array([0, None], dtype=object), "missing"),
    ],
)
def test_bad_input_is_named(X, y, match):
    with pytest.raises(ValueError, match=match):
        Counts.from_matrix(X, y)


def test_adding_counts_over_different_vocabularies_fails():
    a = Counts.from_matrix(np.eye(2), [0, 1])
    with pytest.raises(ValueError, match="same vocabulary"):
        a + Counts.from_matrix(np.eye(3), [0, 1, 1])


@settings(max_examples=40, deadline=None)
@given(arrays(np.int64, st.tuples(st.integers(2, 30), st.integers(1, 10)),
              elements=st.integers(0, 4)),
       st.integers(1, 29), st.integers(0, 2**32 - 1))
def test_counts_are_additive_over_chunks(X, cut, seed):
    """Counts over two disjoint chunks add to the counts of the union, even when a chunk
    lacks a class (the class axis grows)."""
    cut = min(cut, X.shape[0] - 1)
    y = np.random.default_rng(seed).integers(0, 4, X.shape[0])
    whole = Counts.from_matrix(X, y)
    parts = Counts.from_matrix(X[:cut], y[:cut]) + Counts.from_matrix(X[cut:], y[cut:])
    assert whole.equals(parts)


@settings(max_examples=40, deadline=None)
@given(arrays(np.int64, st.tuples(st.integers(1, 20), st.integers(1, 8)),
              elements=st.integers(0, 3)),
       st.integers(0, 2**32 - 1))
def test_multiplicity_counts_equal_the_repeated_rows(X, seed):
    """A bootstrap's counts by multiplicity equal the counts of the rows copied that many
    times (class sizes, presence and term frequency), without copying them."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, X.shape[0])
    m = rng.integers(0, 4, X.shape[0])
    m[0] = max(m[0], 1)  # at least one document
    rows = np.repeat(np.arange(X.shape[0]), m)
    expected = Counts.from_matrix(X[rows], y[rows], classes=np.unique(y))
    assert Counts.from_matrix(X, y, classes=np.unique(y), multiplicity=m).equals(expected)
    with pytest.raises(ValueError, match="non-negative integer"):
        Counts.from_matrix(X, y, multiplicity=-m - 1)


# ----------------------------------------------------------------------------- input forms
BRUTE_X = np.array([[2, 0, 1], [0, 0, 3], [1, 1, 0], [0, 4, 0]])
BRUTE_Y = np.array(["b", "a", "b", "a"])


@pytest.mark.parametrize("form", ["csc", "coo", "bool", "float32", "dense", "explicit zero"])
def test_every_matrix_form_gives_the_counts_of_csr_int(form):
    """CSC, COO, boolean, float32, dense input and a stored zero: the same presence counts as
    CSR int64 (a stored zero is absent); term frequencies the weights themselves (boolean:
    presence)."""
    csr = sp.csr_matrix(BRUTE_X)
    X = {"csc": sp.csc_matrix(BRUTE_X), "coo": sp.coo_matrix(BRUTE_X),
         "bool": sp.csr_matrix(BRUTE_X > 0), "float32": sp.csr_matrix(BRUTE_X, dtype=np.float32),
         "dense": BRUTE_X}.get(form)
    if form == "explicit zero":
        X = csr.copy()
        X.data[X.data == 3] = 0  # a stored zero in cell (1, 2)
    c = Counts.from_matrix(X, BRUTE_Y)
    expected_docs = [[0, 2], [1, 1], [0, 1]] if form == "explicit zero" else [[0, 2], [1, 1],
                                                                              [1, 1]]
    np.testing.assert_array_equal(c.doc_counts, expected_docs)
    expected_tf = {"bool": [[0, 2], [1, 1], [1, 1]],
                   "explicit zero": [[0, 3], [4, 1], [0, 1]]}.get(form, [[0, 3], [4, 1], [3, 1]])
    np.testing.assert_array_equal(c.term_freq, expected_tf)
    assert c.doc_counts.dtype == np.int32 and c.term_freq.dtype == np.float64


def test_counts_without_term_frequencies():
    """term_freq=False leaves TF out (None) and every other count as it is; the methods that
    read TF refuse such counts, the others score them alike."""
    from textsift.scores import compute

    full = Counts.from_matrix(BRUTE_X, BRUTE_Y)
    lean = Counts.from_matrix(BRUTE_X, BRUTE_Y, term_freq=False)
    assert lean.term_freq is None and not lean.equals(full)
    np.testing.assert_array_equal(lean.doc_counts, full.doc_counts)
    assert (lean + lean).equals(Counts.from_matrix(np.vstack([BRUTE_X] * 2),
                                                   np.r_[BRUTE_Y, BRUTE_Y], term_freq=False))
    np.testing.assert_array_equal(compute(lean, "bns").values, compute(full, "bns").values)
    with pytest.raises(ValueError, match="rc reads term frequencies"):
        compute(lean, "rc")
    with pytest.raises(ValueError, match="with term frequencies to counts without"):
        full + lean
    assert lean.select_terms([0, 2]).term_freq is None
    assert lean.select_classes([True, False]).term_freq is None


def test_count_type_is_the_narrowest_that_holds_the_documents():
    from textsift.counting.counts import count_dtype

    assert count_dtype(2**31 - 1) is np.int32 and count_dtype(2**31) is np.int64


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 30), st.integers(1, 6), st.integers(1, 50),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_counting_by_blocks_is_counting_at_once(n_docs, n_terms, n_classes, block, weighted,
                                                seed):
    """Above DIRECT_CELLS a table is counted by blocks of terms (in column order): the same
    counts, term frequencies to the bit (float weights, stored zeros, multiplicities), and the
    same non-zero cells found by blocks."""
    import textsift.counting._tables as counts_module

    rng = np.random.default_rng(seed)
    X = sp.random(n_docs, n_terms, density=0.3, random_state=rng, format="csr",
                  data_rvs=lambda k: rng.choice([0.0, 0.1, 0.7, 1.0, 3.0], k))
    y = rng.integers(0, n_classes, n_docs)
    mult = rng.integers(0, 3, n_docs) if weighted else None
    at_once = Counts.from_matrix(X, y, multiplicity=mult)
    saved = counts_module.DIRECT_CELLS, counts_module.BLOCK_CELLS
    try:
        counts_module.DIRECT_CELLS, counts_module.BLOCK_CELLS = 0, block
        blocks = Counts.from_matrix(X, y, multiplicity=mult)
        cells = blocks.cells
    finally:
        counts_module.DIRECT_CELLS, counts_module.BLOCK_CELLS = saved
    np.testing.assert_array_equal(blocks.doc_counts, at_once.doc_counts)
    np.testing.assert_array_equal(blocks.term_freq, at_once.term_freq)
    flat = np.flatnonzero(at_once.doc_counts.ravel())
    np.testing.assert_array_equal(cells.flat, flat)
    np.testing.assert_array_equal(cells.a, at_once.doc_counts.ravel()[flat])
