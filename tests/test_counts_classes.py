"""Counts.select_classes, and what needs it: per-class scores over a declared class set with a
class that has no training document (our rule, as JaTeCS skips a category without training
documents: it takes no part in the scores)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from textsift.counting.counts import Counts
from textsift.selection.selectors import TermSelector

X = sp.csr_matrix(np.array([[2, 0, 1, 0], [0, 1, 1, 0], [1, 1, 0, 3], [0, 0, 1, 1]]))
Y = np.array(["a", "b", "a", "b"])


def test_selecting_the_classes_with_documents_drops_the_empty_declared_one():
    declared = Counts.from_matrix(X, Y, classes=["a", "b", "c"])
    assert declared.class_sizes.tolist() == [2, 2, 0]
    kept = declared.select_classes(declared.class_sizes > 0)
    assert kept.equals(Counts.from_matrix(X, Y))
    assert declared.select_classes([2, 0]).classes.tolist() == ["c", "a"]
    with pytest.raises(ValueError, match="needs 3 entries"):
        declared.select_classes([True, False])


def test_a_selector_over_declared_classes_scores_as_without_the_empty_one():
    """chi2 per class of ["a", "b"] and of ["a", "b", "c"] with no "c" document: the same
    table (an empty class is left out of per-class scores), hence the same terms."""
    plain = TermSelector("chi2", k=3).fit(X, Y)
    declared = TermSelector("chi2", k=3, classes=["a", "b", "c"]).fit(X, Y)
    np.testing.assert_array_equal(declared.selected_, plain.selected_)
    assert list(declared.class_scores_.columns) == ["a", "b"]
    np.testing.assert_array_equal(declared.class_scores_.to_numpy(), plain.class_scores_.to_numpy())


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n_docs=st.integers(4, 30), n_classes=st.integers(2, 4))
def test_selected_classes_are_the_counts_of_their_documents(seed, n_docs, n_classes):
    """Invariant: keeping some classes equals counting only the documents of those classes."""
    rng = np.random.default_rng(seed)
    Xr = sp.csr_matrix(rng.poisson(0.7, size=(n_docs, 6)))
    y = rng.integers(0, n_classes, size=n_docs)
    counts = Counts.from_matrix(Xr, y, classes=np.arange(n_classes))
    keep = np.arange(n_classes) % 2 == 0
    rows = np.isin(y, np.flatnonzero(keep))
    if not rows.any():
        return
    direct = Counts.from_matrix(Xr[rows], y[rows], classes=np.flatnonzero(keep))
    assert counts.select_classes(keep).equals(direct)
