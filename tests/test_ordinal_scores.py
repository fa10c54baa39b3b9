"""Ordinal scores (Baccianella, Esuli & Sebastiani 2010, 2014): a toy worked by hand (ten
documents, six terms: every mean, variance, IDF and IG below is arithmetic on its table),
identities, edge cases."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import mutual_info_score

from textsift import Counts, compute, rank
from textsift.labels.ranks import check_ranks, nearest_rank
from textsift.scores import REGISTRY
from textsift.scores.information import ig_multi_from_counts
from textsift.scores.ordinal import rank_stats

# The toy: ten training documents of ranks 1-5, six terms.
Y = np.array([1, 1, 2, 3, 3, 4, 4, 5, 5, 5])
DOCS = {"t1": [0, 1, 2], "t2": [6, 7, 8, 9], "t3": list(range(10)), "t4": [3],
        "t5": [2, 3, 4, 5], "t6": [0, 9]}
SCALE = [1, 2, 3, 4, 5]


def toy_counts(y=Y, docs=DOCS, scale=SCALE):
    X = np.zeros((len(y), len(docs)))
    for j, ds in enumerate(docs.values()):
        X[ds, j] = 1
    return Counts.from_matrix(sp.csr_matrix(X), y, classes=scale, feature_names=list(docs))


@pytest.fixture(scope="module")
def toy():
    return toy_counts()


# Expected picks at x = 4 in pick order, and the rank (or split) each came from, worked by hand.
GOLDEN = {
    "var": (["t4", "t2", "t1", "t5"], None),
    "var_idf": (["t3", "t4", "t2", "t1"], None),
    "rr_var": (["t1", "t4", "t2", "t5"], [1, 3, 5, 3]),
    "rr_var_idf": (["t1", "t3", "t2", "t4"], [1, 3, 5, 3]),
    "rr_igor": (["t1", "t2", "t5", "t4"], ["<=1", "<=2", "<=3", "<=4"]),
    "rr_nc_idf": (["t1", "t3", "t2", "t6"], [1, 3, 5, 1]),
}


@pytest.mark.parametrize("method", sorted(GOLDEN))
def test_a11_picks_at_x4(toy, method):
    terms, groups = GOLDEN[method]
    got = rank(toy, method, top=4)
    assert got.terms.tolist() == terms
    if groups is not None:
        assert got.groups.tolist() == groups


def test_a11_rr_nc_idf_same_picks_without_eps(toy):
    assert rank(toy, "rr_nc_idf", top=4, eps=0.0).terms.tolist() == ["t1", "t3", "t2", "t6"]


def test_a11_statistics(toy):
    s = rank_stats(toy)
    np.testing.assert_allclose(s.mean, [4 / 3, 4.75, 3.3, 3, 3, 3])
    np.testing.assert_allclose(s.var, [2 / 9, 0.1875, 2.21, 0, 0.5, 4])
    assert s.var[3] == 0.0  # one document: exactly zero, not float noise


def test_a11_score_values(toy):
    # the toy's table, worked by hand (4 decimals)
    var_idf = compute(toy, "var_idf").values[:, 0]
    np.testing.assert_allclose(var_idf, [-0.3879, -0.2634, 0, -0.2303, -0.5498, -6.5987],
                               atol=5e-5)
    nc = compute(toy, "rr_nc_idf").values
    np.testing.assert_allclose(nc.max(axis=1), [-0.5217, -0.3207, 0, -0.2303, -0.5498, -3.3798],
                               atol=5e-5)
    # R(t6): five-way NC tie -> lowest rank r1; R(t3): tie r3/r4 -> r3
    assert np.argmax(nc, axis=1).tolist() == [0, 4, 2, 2, 2, 0]
    ig = compute(toy, "rr_igor").values
    np.testing.assert_allclose(ig, [[.4464, .8813, .3958, .1916], [.1710, .2813, .6100, .5568],
                                    [0, 0, 0, 0], [.0341, .0548, .1080, .0548],
                                    [.1710, .0058, .1245, .2813], [.0871, .0323, 0, .0323]],
                               atol=5e-5)
    assert ig[1, 0] == ig[4, 0]  # t2 and t5 tie exactly in problem 1


def test_rr_methods_list_each_seen_term_under_one_rank(toy):
    for method in ("rr_var", "rr_var_idf", "rr_nc_idf"):
        values = compute(toy, method).values
        assert (np.isfinite(values).sum(axis=1) == 1).all(), method
        assert REGISTRY[method].default_aggregate == "rr"


def test_prp_is_labelled_provisional_and_reduces_to_ig_multi(toy):
    assert REGISTRY["prp"].provisional and REGISTRY["prp"].label == "prp (provisional)"
    # s = 0: S is the identity, P' = P, so PRP is the multi-class IG of presence (Yang and
    # Pedersen 1997's IG)
    np.testing.assert_allclose(compute(toy, "prp", s=0.0).values[:, 0],
                               ig_multi_from_counts(toy.doc_counts, toy.class_sizes))
    # s = 1: every rank gets the same revised distribution, so no term carries information
    np.testing.assert_allclose(compute(toy, "prp", s=1.0).values[:, 0], 0.0, atol=1e-12)


def test_term_in_every_document_tops_var_idf_unless_idf_is_smooth(toy):
    assert compute(toy, "var_idf").values[2, 0] == 0.0  # IDF = ln(10/10) = 0: the top value
    assert rank(toy, "var_idf", top=1, idf="smooth").terms.tolist() == ["t4"]


def test_rank_without_documents_keeps_its_turn():
    # Stars 1, 2, 4, 5 only (as in amazon_multidomain) with the 1-5 scale declared: a term
    # whose mean is 3 is listed under rank 3, and rank 3 takes its turn in the round robin.
    y = np.array([1, 2, 4, 5, 1, 5])
    c = toy_counts(y, {"a": [0, 4], "b": [1, 2], "c": [3, 5], "d": [0, 3]}, SCALE)
    got = rank(c, "rr_var", top=4)
    assert got.groups.tolist() == [1, 3, 5, 3]
    assert got.terms.tolist() == ["a", "b", "c", "d"]
    # IGOR: cuts <=2 and <=3 split the documents identically; only one takes turns
    assert compute(c, "rr_igor").groups.tolist() == ["<=1", "<=2", "<=4"]


def test_unseen_terms_are_never_ranked():
    c = toy_counts(docs={**DOCS, "never": []})
    for method in GOLDEN:
        assert rank(c, method).terms.tolist()[-1] == "never"
        assert np.all(compute(c, method).values[-1] == -np.inf)


@pytest.mark.parametrize("labels, message", [
    (["1", "2", "3"], "must be numbers"),
    ([1.0, 2.5, 3.0], "must be integers"),
    ([4, 4, 4], "at least two ranks"),
    ([1.0, np.nan, 2.0], "NaN"),
])
def test_bad_ranks(labels, message):
    with pytest.raises(ValueError, match=message):
        check_ranks(np.array(labels))


def test_ratings_outside_declared_scale_and_one_rank_counts():
    with pytest.raises(ValueError, match="outside the declared scale"):
        check_ranks([1, 2, 7], ranks=[1, 2, 3, 4, 5])
    # a single-rank training set with the scale declared is allowed (every score is defined)
    c = toy_counts(np.full(10, 5), scale=SCALE)
    assert rank(c, "rr_var", top=2).groups.tolist() == [5, 5]
    with pytest.raises(ValueError, match="both sides"):
        compute(c, "rr_igor")
    with pytest.raises(ValueError, match="must be numbers"):
        compute(Counts.from_matrix(np.eye(3), ["a", "b", "c"]), "var")


@pytest.mark.parametrize("method, params, message", [
    ("var_idf", {"a": 0}, "exponent a must be positive"),
    ("rr_nc_idf", {"eps": -1}, "eps must be >= 0"),
    ("rr_var_idf", {"idf": "bm25"}, "unknown IDF form"),
    ("prp", {"s": 2}, "rank similarity s"),
])
def test_bad_parameters(toy, method, params, message):
    with pytest.raises(ValueError, match=message):
        compute(toy, method, **params)


def test_nearest_rank_ties_go_down_and_values_clip():
    np.testing.assert_array_equal(nearest_rank([-3, 1.5, 2.5, 2.51, 9], SCALE), [1, 1, 2, 3, 5])
    np.testing.assert_array_equal(nearest_rank([1.0, 3.0], [1, 2, 4, 5]), [1, 2])


@st.composite
def ordinal_data(draw):
    n, v = draw(st.integers(4, 25)), draw(st.integers(1, 8))
    y = np.array(draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)))
    cells = draw(st.lists(st.booleans(), min_size=n * v, max_size=n * v))
    return np.array(cells, dtype=float).reshape(n, v), y


@settings(max_examples=40, deadline=None)
@given(ordinal_data())
def test_statistics_match_brute_force(data):
    X, y = data
    s = rank_stats(Counts.from_matrix(X, y, classes=SCALE))
    nc = compute(Counts.from_matrix(X, y, classes=SCALE), "rr_nc_idf", eps=0.0, a=1.0)
    for t in range(X.shape[1]):
        ranks = y[X[:, t] > 0]
        if len(ranks) == 0:
            assert np.isnan(s.mean[t])
            continue
        assert s.var[t] == pytest.approx(np.var(ranks), abs=1e-12)
        # R(t) is a median of Y_k (the lowest minimiser of the mean absolute deviation)
        j = int(np.argmax(nc.values[t]))
        mad = [np.abs(r - ranks).mean() for r in SCALE]
        assert j == int(np.argmin(mad))


@settings(max_examples=40, deadline=None)
@given(ordinal_data(), st.integers(1, 3))
def test_counts_add_up_and_igor_is_mutual_information(data, cut):
    X, y = data
    whole = Counts.from_matrix(X, y, classes=SCALE)
    half = len(y) // 2
    parts = Counts.from_matrix(X[:half], y[:half], classes=SCALE) + Counts.from_matrix(
        X[half:], y[half:], classes=SCALE)
    for method in ("var", "rr_var_idf", "rr_igor", "rr_nc_idf", "prp"):
        try:
            a, b = compute(whole, method), compute(parts, method)
        except ValueError:  # RR(IGOR) with every document on one rank
            continue
        np.testing.assert_array_equal(a.values, b.values)
    # IGOR's column for a cut is the mutual information (bits) of presence and y <= cut
    below = y <= cut
    if below.all() or not below.any():
        return
    table = compute(whole, "rr_igor")
    if f"<={cut}" not in list(table.groups):  # same partition as the cut below it: dropped
        assert not (y == cut).any()
        return
    col = list(table.groups).index(f"<={cut}")
    for t in range(X.shape[1]):
        if X[:, t].any():
            expect = mutual_info_score(X[:, t] > 0, below) / np.log(2)
            assert table.values[t, col] == pytest.approx(expect, abs=1e-10)
