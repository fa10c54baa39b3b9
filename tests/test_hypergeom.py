"""The hypergeometric log-probabilities of Fisher's test, many tables at once: the
denominator ``log b(n; N, n / N)`` evaluated once per distinct ``n`` when the tables share
their total ``N`` (as a corpus's one-vs-rest tables do) gives every table the value it has
alone, to the bit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from textsift.scores import _hypergeom as hg


@st.composite
def shared_total(draw):
    """65-200 tables (more than the 64 below which nothing is shared) of one total ``N``:
    ``r`` red items, ``n`` drawn, ``x`` red ones among them, anywhere in the support."""
    total = draw(st.integers(2, 5000))
    k = draw(st.integers(65, 200))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    r = rng.integers(0, total + 1, k)
    n = rng.integers(0, total + 1, k)
    lo, hi = np.maximum(0, n - (total - r)), np.minimum(r, n)
    x = lo + np.floor(rng.random(k) * (hi - lo + 1)).astype(np.int64)
    return (x.astype(float), r.astype(float), (total - r).astype(float), n.astype(float))


@settings(max_examples=60, deadline=None)
@given(shared_total())
def test_tables_of_one_total_have_each_its_own_value(tables):
    """The shared denominator (one per distinct n) against each table evaluated alone (one
    table: nothing shared): equal to the bit."""
    x, r, b, n = tables
    together = hg.log_pmf(x, r, b, n)
    alone = np.array([hg.log_pmf(x[i:i + 1], r[i:i + 1], b[i:i + 1], n[i:i + 1])[0]
                      for i in range(len(x))])
    np.testing.assert_array_equal(together, alone)


def test_the_denominator_is_evaluated_once_per_distinct_draw(monkeypatch):
    """200 tables of N = 1000 drawing 3 distinct n: the denominator's ``log b`` is asked for
    3 values (not 200); and the log-probabilities equal scipy's to 1e-12."""
    from scipy.stats import hypergeom

    rng = np.random.default_rng(1)
    n = rng.choice([50.0, 120.0, 400.0], 200)
    r = rng.integers(1, 999, 200).astype(float)
    x = np.minimum(r, n) // 2
    asked = []
    log_binom = hg._log_binom

    def spy(xs, *rest):
        asked.append(len(xs))
        return log_binom(xs, *rest)

    monkeypatch.setattr(hg, "_log_binom", spy)
    got = hg.log_pmf(x, r, 1000.0 - r, n)
    assert asked[-1] == 3
    np.testing.assert_allclose(got, hypergeom.logpmf(x, 1000, r, n), rtol=1e-12)


@pytest.mark.parametrize("total", [[1000.0, 1000.0], [1000.0, 999.0]])
def test_tables_of_different_totals_are_not_shared(total):
    """Two totals: each table its own denominator (the values of each alone)."""
    total = np.array(total * 40)
    n, r = np.full(80, 30.0), np.full(80, 100.0)
    x = np.full(80, 5.0)
    got = hg.log_pmf(x, r, total - r, n)
    alone = [hg.log_pmf(x[:1], r[:1], total[i:i + 1] - r[:1], n[:1])[0] for i in (0, 1)]
    np.testing.assert_array_equal(got[:2], alone)
