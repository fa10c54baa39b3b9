"""Counts: one pass, additivity, validation."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from textsift.counts import Counts


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
