"""Each class's top terms on the sparse layout carry their directions read from the cells
they were found in (``ScoreTable.top_signs``), not from a direction table searched term by
term (and for both directions, with no direction table at all): the same terms, scores and
marks, to the bit, as the definition -- each class's column (the other direction's cells
``-inf`` for one direction) ranked (``policies.order``) and the direction table's value at
each term.

The property runs on small random label sets with every path of a class's top ``k``: its
non-zero cells alone, merged with its best absent terms, a class holding most terms (its
whole column), fewer scored terms than ``k`` (the rest ``-inf``, dropped), an empty class
(left out of every per-class table)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from textsift import Counts
from textsift.scores import compute
from textsift.scores.direction import direction as direction_table
from textsift.selection import ranking
from textsift.selection.policies import order


def _counts(seed: int, n_docs: int, n_terms: int, m: int, density: float) -> Counts:
    rng = np.random.default_rng(seed)
    X = sp.random(n_docs, n_terms, density=density, random_state=seed, format="csr")
    X.data[:] = rng.integers(1, 4, X.nnz)
    Y = (rng.random((n_docs, m)) < rng.uniform(0.05, 0.9, m)).astype(int)
    Y[np.arange(m - 1) % n_docs, np.arange(m - 1)] = 1  # every label but the last has one
    names = [f"l{j}" for j in range(m)]
    sets = [[names[j] for j in np.flatnonzero(row)] for row in Y[:, :-1]]  # the last: empty
    return Counts.from_matrix(X, sets, classes=names, layout="sparse")


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n_docs=st.integers(9, 60), n_terms=st.integers(2, 40),
       m=st.integers(3, 9), density=st.floats(0.02, 0.6), k=st.integers(1, 45),
       method=st.sampled_from(["chi2", "bns", "ig", "log_odds_dirichlet"]),
       direction=st.sampled_from(["both", "over", "under"]))
def test_marks_from_the_cells_are_the_direction_tables(seed, n_docs, n_terms, m, density, k,
                                                       method, direction):
    counts = _counts(seed, n_docs, n_terms, m, density)
    table, signs = compute(counts, method, dense=False), direction_table(counts)
    assert counts.layout == "sparse" and table.storage == "cells"
    expected = []
    for j in range(len(table.groups)):
        column, marks = table.column(j), signs.column(j)
        if direction != "both":  # the definition: the other direction's cells -inf
            column[marks != (1 if direction == "over" else -1)] = -np.inf
        index = order(column, table.seen, k)
        kept = column[index] > -np.inf
        expected.append((index[kept], column[index][kept], marks[index[kept]]))
    with pytest.MonkeyPatch.context() as patch:  # the marks come from the cells
        patch.setattr(type(signs), "values_at", lambda *a: pytest.fail("a term-major search"))
        if direction == "both":  # and no direction table at all
            patch.setattr(ranking, "direction_table", lambda c: pytest.fail("direction table"))
        got = ranking.rank_per_class(counts, method, top=k, direction=direction)
    assert [str(r.class_label) for r in got] == [str(g) for g in table.groups]
    assert len(got) == m - 1  # the empty label is left out
    for r, (index, scores, marks) in zip(got, expected, strict=True):
        np.testing.assert_array_equal(r.index, index)
        np.testing.assert_array_equal(r.scores, scores)
        np.testing.assert_array_equal(r.signs, marks)
        assert set(np.unique(r.signs)) <= {-1.0, 0.0, 1.0}


def test_a_term_no_document_of_the_class_has_is_marked_under():
    """Class ``a`` lacks ``common``, which all 8 documents of ``b`` have: its two-sided top term,
    chi2 = 12 (the table (0, 8, 4, 0)), found among its absent terms, is marked -1; ``apple``
    (2 of a's 4 documents, no other) +1. Read from the cells: no direction table."""
    docs = ["apple pie", "apple tart", "pie", "tart"] + ["common pie", "common tart",
                                                         "common", "common pie"] * 2
    counts = Counts.from_texts(docs, ["a"] * 4 + ["b"] * 8).to_layout("sparse")
    a = ranking.rank_per_class(counts, "chi2", top=2, direction="both")[0]
    assert counts.feature_names[a.index].tolist() == ["common", "apple"]
    np.testing.assert_allclose(a.scores, [12.0, 4.8])
    assert a.signs.tolist() == [-1.0, 1.0]
