"""Dispersion (:mod:`textsift.evidence.dispersion`): range, Gries' DP and DPnorm, the coefficient of
variation (issue 38 item 2)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from textsift.errors import TextsiftError
from textsift.evidence.dispersion import Documents, dispersion
from textsift.text.vectorize import vectorize

#: The example corpus of Gries (2008), "Dispersions and adjusted frequencies in corpora",
#: IJCL 13(4), section 3: 50 words in five parts of 10 words, in which ``a`` occurs 1, 2, 3, 4
#: and 5 times and ``b`` twice in each part.
GRIES_2008 = ["b a m n i b e u p k", "b a s a t b e w q n", "b c a g a b e s t a",
              "b a g h a b e a a t", "b a h a a b e a x a"]
#: The same corpus as Gries re-used it with parts of unequal sizes, 9, 10, 10, 10 and 11 words
#: (Gries 2020, "Analyzing dispersion", in Paquot and Gries (eds.), *A Practical Handbook of
#: Corpus Linguistics*, Springer; the parts' shares of the corpus are 0.18, 0.2, 0.2, 0.2,
#: 0.22).
GRIES_2020 = ["b a m n i b e u p", "b a s a t b e w q n", "b c a g a b e s t a",
              "b a g h a b e a a t", "b a h a a b e a x a t"]
LETTERS = r"(?u)\b\w+\b"  # each letter a token


def _measures(texts):
    X, names, _ = vectorize(texts, token_pattern=LETTERS)
    d = dispersion(X)
    return {str(t): (d.range[i], d.dp[i], d.dp_norm[i], d.cv[i]) for i, t in enumerate(names)}


def test_gries_2008_worked_example_by_hand():
    """Parts of equal size (s_i / s = 0.2). ``a``: v = (1, 2, 3, 4, 5) / 15, so
    DP = (2/15 + 1/15 + 0 + 1/15 + 2/15) / 2 = 0.2 and DPnorm = 0.2 / (1 - 0.2) = 0.25; its
    relative frequencies 0.1 .. 0.5 have mean 0.3 and population sd sqrt(0.02), cv =
    sqrt(0.02) / 0.3. ``b`` (2 in each part): DP 0, cv 0. ``i`` (once, in part 1): DP =
    (0.8 + 4 x 0.2) / 2 = 0.8, DPnorm 1, cv = sqrt(5 - 1) = 2."""
    m = _measures(GRIES_2008)
    rng, dp, dp_norm, cv = m["a"]
    assert rng == 5
    assert dp == pytest.approx(0.2, abs=1e-15)
    assert dp_norm == pytest.approx(0.25, abs=1e-15)
    assert cv == pytest.approx(np.sqrt(0.02) / 0.3, rel=1e-14)
    assert m["b"][1:] == pytest.approx((0.0, 0.0, 0.0), abs=1e-15)
    assert m["i"] == pytest.approx((1, 0.8, 1.0, 2.0), abs=1e-14)


def test_gries_2020_unequal_parts_by_hand():
    """Shares 0.18, 0.2, 0.2, 0.2, 0.22 (min 0.18, so DPnorm = DP / 0.82). ``a`` (1..5 of
    15): sum |v - s| = 0.1133 + 0.0667 + 0 + 0.0667 + 0.1133 = 0.36, DP 0.18; ``b`` (2 per
    part): 0.02 + 0 + 0 + 0 + 0.02, DP 0.02; ``i`` (in the 9-word part only): 0.82 + 0.2 +
    0.2 + 0.2 + 0.22, DP 0.82, DPnorm 1; ``x`` (in the 11-word part): DP 0.78, DPnorm
    0.78 / 0.82."""
    m = _measures(GRIES_2020)
    expected = {"a": 0.18, "b": 0.02, "i": 0.82, "x": 0.78}
    for term, dp in expected.items():
        assert m[term][1] == pytest.approx(dp, abs=1e-14), term
        assert m[term][2] == pytest.approx(dp / 0.82, abs=1e-14), term
    assert [m[t][0] for t in "abix"] == [5, 5, 1, 1]


@st.composite
def _matrices(draw):
    n = draw(st.integers(1, 8))
    V = draw(st.integers(1, 5))
    X = draw(arrays(np.int64, (n, V), elements=st.integers(0, 6)))
    return X


def _dense_gries(X):
    """Gries' formulas term by term on a dense matrix (the definitions as written)."""
    sizes = X.sum(axis=1).astype(float)
    X, sizes = X[sizes > 0].astype(float), sizes[sizes > 0]
    s = sizes / sizes.sum()
    out = []
    for t in range(X.shape[1]):
        f = X[:, t]
        if f.sum() == 0:
            out.append((0, np.nan, np.nan, np.nan))
            continue
        dp = 0.5 * np.abs(f / f.sum() - s).sum()
        x = f / sizes
        norm = dp / (1 - s.min()) if len(s) > 1 else np.nan
        out.append(((f > 0).sum(), dp, norm, x.std() / x.mean()))
    return np.array(out, dtype=float).reshape(-1, 4)


@given(_matrices())
@settings(max_examples=150, deadline=None)
def test_dp_in_unit_interval_and_equal_to_the_dense_formula(X):
    d = dispersion(sp.csr_matrix(X))
    got = np.column_stack([d.range, d.dp, d.dp_norm, d.cv])
    if X.sum() == 0:
        assert (d.range == 0).all() and np.isnan(d.dp).all()
        return
    np.testing.assert_allclose(got, _dense_gries(X), rtol=1e-12, atol=1e-12)
    seen = d.range > 0
    assert ((d.dp[seen] >= 0) & (d.dp[seen] <= 1)).all()
    norm = d.dp_norm[seen & ~np.isnan(d.dp_norm)]
    assert ((norm >= 0) & (norm <= 1)).all()
    assert np.isnan(d.dp[~seen]).all()


@given(st.lists(st.integers(1, 20), min_size=2, max_size=10), st.integers(1, 5),
       st.integers(0, 5))
@settings(max_examples=100, deadline=None)
def test_a_term_spread_in_proportion_to_the_sizes_has_dp_and_cv_zero(base, k, j):
    """f_i = k a_i and the rest of the document j a_i: f_i / f = s_i / s in every document."""
    a = np.array(base)
    X = sp.csr_matrix(np.column_stack([k * a, j * a]))
    d = dispersion(X)
    assert d.dp[0] == pytest.approx(0.0, abs=1e-14)
    assert d.dp_norm[0] == pytest.approx(0.0, abs=1e-14)
    assert d.cv[0] == pytest.approx(0.0, abs=1e-12)
    assert d.range[0] == len(a)


def test_one_document_holding_a_term_has_dp_norm_one_whatever_the_sizes():
    """DPnorm's point (Lijffijt and Gries 2012): the term only in the smallest part reaches
    1, where Gries' DP stops at 1 - min share."""
    X = sp.csr_matrix(np.array([[1, 1], [0, 7], [0, 3]]))
    d = dispersion(X)
    assert d.dp[0] == pytest.approx(1 - 2 / 12)
    assert d.dp_norm[0] == pytest.approx(1.0)


def test_empty_documents_are_no_parts():
    X = sp.csr_matrix(np.array([[2, 0], [0, 0], [1, 1]]))
    kept = dispersion(X[[0, 2]])
    got = dispersion(X)
    np.testing.assert_array_equal(got.dp, kept.dp)
    np.testing.assert_array_equal(got.cv, kept.cv)


def test_bad_matrices_are_refused():
    with pytest.raises(TextsiftError, match="non-negative"):
        dispersion(sp.csr_matrix(np.array([[1.0, -1.0]])))
    with pytest.raises(TextsiftError, match="document sizes"):
        dispersion(sp.csr_matrix(np.ones((2, 2))), sizes=[1.0])


def test_documents_split_a_class_from_the_rest():
    X = sp.csr_matrix(np.array([[1, 0], [2, 1], [0, 3]]))
    docs = Documents.of(X, ["b", "a", "b"], np.array(["a", "b"], dtype=object))
    target, reference = docs.groups(1)
    assert target.tolist() == [True, False, True] and reference.tolist() == [False, True, False]
    mine, rest = docs.dispersion(1)
    assert mine.range.tolist() == [1, 1] and rest.range.tolist() == [1, 1]


# ---------------------------------------------------------------- in --evidence
def _cli(*args):
    import json

    from typer.testing import CliRunner

    from textsift.cli import app
    from textsift.reading.corpus import sample_path

    res = CliRunner().invoke(app, ["score", str(sample_path("20ng")), "--min-df", "3",
                                   "--method", "g2", "--class", "sci.space", "--evidence",
                                   "-f", "json", *args])
    return res, (json.loads(res.stdout) if res.exit_code == 0 else None)


def test_evidence_shows_each_terms_dispersion_in_the_class_and_the_rest():
    """The columns are :func:`dispersion` of the class's documents and of the others'."""
    import pandas as pd

    from textsift.reading.corpus import load_sample

    res, rows = _cli("--top", "8")
    assert res.exit_code == 0, res.stderr
    frame = pd.DataFrame(rows)
    corpus = load_sample("20ng")
    X, names, _ = vectorize(corpus.texts, min_df=3)
    mine = np.asarray(corpus.labels) == "sci.space"
    at = [list(names).index(t) for t in frame["term"]]
    for group, mask in (("target", mine), ("reference", ~mine)):
        d = dispersion(X[mask])
        for measure in ("range", "dp", "dp_norm", "cv"):
            np.testing.assert_allclose(frame[f"{measure}_{group}"].astype(float),
                                       getattr(d, measure)[at], rtol=1e-13, equal_nan=True)
        np.testing.assert_array_equal(frame[f"n_{group}"],
                                      np.asarray(X[mask][:, at].sum(axis=0)).ravel())
    np.testing.assert_array_equal(frame["range_target"], frame["A"])  # documents with it


def test_min_range_keeps_the_terms_in_enough_of_the_class_documents():
    _, everything = _cli("--top", "40")
    res, kept = _cli("--top", "40", "--min-range", "20")
    assert res.exit_code == 0, res.stderr
    assert all(r["A"] >= 20 for r in kept) and len(kept) == 40
    expected = [r["term"] for r in everything if r["A"] >= 20]
    assert [r["term"] for r in kept][: len(expected)] == expected  # the order is the ranking's
    q = {r["term"]: r["q"] for r in everything}  # q is the class's whole vocabulary's
    assert all(q[r["term"]] == r["q"] for r in kept if r["term"] in q)


def test_bad_min_range_is_one_error_line():
    res, _ = _cli("--min-range", "0")
    assert res.exit_code == 2 and res.stderr.count("error:") == 1
    assert "--min-range must be a number of documents >= 1" in res.stderr
