"""Ranking, globalisation and round robin: the rules written in textsift.selection.policies (ties by
ascending index, unseen terms last; JaTeCS's max/sum/wavg policies and round robin)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from textsift.selection.policies import globalise, n_from_ratio, order, rank_terms, round_robin

NEG = -np.inf


def test_order_descending_ties_by_index_minus_inf_then_unseen_last():
    score = np.array([1.0, 3.0, NEG, 3.0, np.inf, 0.0, NEG])
    seen = np.array([True, True, True, True, True, False, True])
    np.testing.assert_array_equal(order(score, seen), [4, 1, 3, 0, 2, 6, 5])


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_order_with_a_limit_is_the_prefix_of_the_full_order(data):
    """The partial sort behind ``limit`` changes nothing: same ties by index, -inf scores
    after the others, unseen terms last, whatever the limit."""
    n = data.draw(st.integers(1, 40))
    values = st.sampled_from([0.0, 1.0, 1.5, 2.0, np.inf, -np.inf])
    score = data.draw(arrays(np.float64, n, elements=values))
    seen = data.draw(arrays(bool, n))
    limit = data.draw(st.integers(0, n + 2))
    for s in (seen, None):
        np.testing.assert_array_equal(order(score, s, limit), order(score, s)[:limit])


def test_globalise_policies():
    table = np.array([[1.0, 3.0], [2.0, 2.0], [0.0, 5.0]])
    np.testing.assert_array_equal(globalise(table, "max"), [3, 2, 5])
    np.testing.assert_array_equal(globalise(table, "sum"), [4, 4, 5])
    np.testing.assert_allclose(globalise(table, "wavg", np.array([0.75, 0.25])),
                               [1.5, 2.0, 1.25])
    with pytest.raises(ValueError, match="unknown aggregate"):
        globalise(table, "mean")


def test_wavg_ignores_zero_weight_infinities():
    table = np.array([[np.inf, 1.0]])
    assert globalise(table, "wavg", np.array([0.0, 1.0]))[0] == 1.0


def test_sum_and_wavg_add_the_groups_where_a_term_has_a_score():
    """-inf is "no score in this group": [log 2, -inf, 0] sums to log 2 (not -inf); a row with
    no score anywhere stays -inf; +inf and -inf give +inf (the -inf group is left out)."""
    table = np.array([[np.log(2), NEG, 0.0], [NEG, NEG, NEG], [np.inf, NEG, 1.0],
                      [1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(globalise(table, "sum"), [np.log(2), NEG, np.inf, 6.0])
    w = np.array([0.5, 0.25, 0.25])
    np.testing.assert_array_equal(globalise(table, "wavg", w),
                                  [np.log(2) / 2, NEG, np.inf, 0.5 + 0.5 + 0.75])


def test_round_robin_skip_to_next_on_overlapping_lists():
    # column 0 ranks t0 > t1 > t2; column 1 ranks t0 > t2 > t1
    table = np.array([[3.0, 3.0], [2.0, 1.0], [1.0, 2.0]])
    sel, grp = round_robin(table, 3)
    np.testing.assert_array_equal(sel, [0, 2, 1])
    np.testing.assert_array_equal(grp, [0, 1, 0])


def test_round_robin_turn_consumed_loses_the_turn():
    table = np.array([[3.0, 3.0], [2.0, 1.0], [1.0, 2.0]])
    sel, grp = round_robin(table, 3, variant="turn_consumed")
    # g0 takes t0; g1 pops t0 (taken): turn lost; g0 takes t1; g1 takes t2
    np.testing.assert_array_equal(sel, [0, 1, 2])
    np.testing.assert_array_equal(grp, [0, 0, 1])


def test_round_robin_disjoint_lists_and_exhausted_groups():
    # -inf marks "not a candidate": g0 = [t0, t2], g1 = [t1], g2 = []
    table = np.array([[2.0, NEG, NEG], [NEG, 5.0, NEG], [1.0, NEG, NEG], [NEG, NEG, NEG]])
    sel, grp = round_robin(table, 10)
    np.testing.assert_array_equal(sel, [0, 1, 2])
    np.testing.assert_array_equal(grp, [0, 1, 0])


def test_rank_terms_rr_covers_the_vocabulary():
    table = np.array([[2.0, NEG], [NEG, 5.0], [1.0, NEG], [NEG, NEG], [NEG, NEG]])
    seen = np.array([True, True, True, True, False])
    r = rank_terms(table, "rr", seen)
    np.testing.assert_array_equal(r.index, [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(r.groups, [0, 1, 0, -1, -1])
    assert r.scores[1] == 5.0
    assert len(rank_terms(table, "rr", seen, limit=2).index) == 2


def test_n_from_ratio():
    assert n_from_ratio(0.1, 1000) == 100
    assert n_from_ratio(0.005, 10) == 1
    assert n_from_ratio(0.25, 10) == 3
    with pytest.raises(ValueError):
        n_from_ratio(0, 10)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 30), st.integers(1, 5)),
              elements=st.one_of(st.floats(-5, 5), st.just(NEG))),
       st.integers(1, 40))
def test_round_robin_invariants(table, n):
    """Picks are distinct candidates; each pick is the best untaken candidate of its group at
    that moment; the count is min(n, number of distinct candidates)."""
    sel, grp = round_robin(table, n)
    candidates = np.flatnonzero((table > NEG).any(axis=1))
    assert len(sel) == min(n, len(candidates), table.shape[0])
    assert len(set(sel.tolist())) == len(sel)
    taken = set()
    for t, g in zip(sel, grp, strict=True):
        col = table[:, g]
        untaken = [i for i in range(len(col)) if i not in taken and col[i] > NEG]
        best = min(untaken, key=lambda i: (-col[i], i))
        assert t == best
        taken.add(t)


@settings(max_examples=80, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 30), st.integers(1, 5)),
              elements=st.one_of(st.integers(0, 3).map(float), st.just(NEG))),
       st.integers(1, 30), st.sampled_from(["skip", "turn_consumed"]))
def test_round_robin_of_n_is_the_prefix_of_the_full_one(table, n, variant):
    """A round robin stopped after n picks is the first n picks of an unbounded one, for both
    variants -- with many ties (scores 0-3), so the candidate lists cut at n terms are
    exercised at tied boundaries."""
    sel, grp = round_robin(table, n, variant)
    full_sel, full_grp = round_robin(table, table.shape[0], variant)
    np.testing.assert_array_equal(sel, full_sel[:n])
    np.testing.assert_array_equal(grp, full_grp[:n])


def test_sum_ties_are_decided_on_exact_values():
    """The issue's table: t0 (present in one document of c) and t1 (one of b) have chi2 rows
    (0.6, 0.6, 2.4) and (0.6, 2.4, 0.6), the same numbers in another order. numpy's sums
    are 3.5999999999999996 and 3.6, which ranked t1 first; their exact sum, correctly
    rounded, is 3.5999999999999996 for both, a tie, which goes to the lower index: t0
    (policies' tie rule)."""
    from textsift.counting.counts import Counts
    from textsift.selection.ranking import rank

    X = np.array([[0, 0], [0, 0], [0, 0], [0, 1], [0, 0], [1, 0]])
    counts = Counts.from_matrix(X, ["a", "a", "b", "b", "c", "c"])
    ranked = rank(counts, "chi2", aggregate="sum")
    exact = math.fsum([0.6, 0.6, 2.4])
    assert ranked.index.tolist() == [0, 1] and ranked.scores.tolist() == [exact, exact]
    assert np.array([0.6, 0.6, 2.4]).sum() != np.array([0.6, 2.4, 0.6]).sum()  # numpy's


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_sum_and_wavg_order_terms_as_their_exact_sums_do(data):
    """Whatever the table, block size and weights, the ranking under sum and wavg is the
    ranking of the exact sums (math.fsum of each term's scored addends): equal exact sums tie
    (by index), whatever order rounding would give them -- rows drawn as permutations of a
    few rows of awkward decimals, with -inf cells."""
    from textsift.selection.policies import globalise_blocks

    g = data.draw(st.integers(3, 7))
    values = st.sampled_from([0.1, 0.2, 0.3, 0.6, 2.4, 1 / 3, 1e-17, 7.0, NEG])
    base = data.draw(arrays(np.float64, st.tuples(st.integers(1, 4), st.just(g)),
                            elements=values))
    rows = data.draw(st.lists(st.tuples(st.integers(0, len(base) - 1),
                                        st.permutations(range(g))), min_size=1, max_size=25))
    table = np.array([base[i][list(p)] for i, p in rows])
    weights = data.draw(arrays(np.float64, g, elements=st.sampled_from([0.0, 0.1, 0.25, 0.3])))
    step = data.draw(st.integers(1, len(table)))
    for aggregate, w in (("sum", np.ones(g)), ("wavg", weights)):
        addends = [[x * v for x, v in zip(row, w, strict=True) if x > NEG and v > 0]
                   for row in table]
        exact = np.array([math.fsum(a) if a else NEG for a in addends])
        got = globalise_blocks(lambda a, b: table[a:b], len(table), step, aggregate,
                               None if aggregate == "sum" else weights)
        np.testing.assert_array_equal(order(got), order(exact))
        np.testing.assert_array_equal(got, globalise(table, aggregate, weights))  # any blocks
