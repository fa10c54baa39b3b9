"""Effect sizes and their intervals against hand computations of the cited formulas and
independent implementations (scipy's exact binomial interval, statsmodels' Woolf and
Newcombe intervals)."""

import math

import numpy as np
import pytest
import scipy.stats as ss
from hypothesis import given, settings
from hypothesis import strategies as st

from textsift.errors import TextsiftError
from textsift.scores.effects import (
    effect_sizes,
    haldane_odds_ratio,
    log_ratio,
    lrc,
    proportion_difference,
)

sm = pytest.importorskip("statsmodels.stats.proportion")
contingency = pytest.importorskip("statsmodels.stats.contingency_tables")


def test_log_ratio_worked_example():
    """A term in 40 of 100 class documents and 10 of 200 others: p1 = 0.4, p2 = 0.05, log2
    8 = 3. Its 50 documents give pi = 40 / 50 exactly binomial; the Clopper-Pearson interval
    of 40 of 50 -- the beta quantiles B(0.025; 40, 11) and B(0.975; 41, 10), which scipy's
    binomtest finds by root-finding (to 1e-9) -- maps to the ratio by pi / (1 - pi) x 200 /
    100."""
    est, low, high = log_ratio(40, 10, 60, 190)
    assert est == pytest.approx(3.0, rel=1e-15)
    lo_pi, hi_pi = ss.beta.ppf(0.025, 40, 11), ss.beta.ppf(0.975, 41, 10)
    assert low == pytest.approx(math.log2(lo_pi / (1 - lo_pi) * 2), rel=1e-13)
    assert high == pytest.approx(math.log2(hi_pi / (1 - hi_pi) * 2), rel=1e-13)
    ci = ss.binomtest(40, 50).proportion_ci(0.95, method="exact")
    assert (lo_pi, hi_pi) == pytest.approx((ci.low, ci.high), rel=1e-9)
    assert lrc(40, 10, 60, 190) == low  # the bound nearer 0


def test_lrc_is_zero_when_the_interval_holds_zero_and_negative_below():
    """2 of 100 against 1 of 100: log ratio 1, but 3 documents cannot exclude equality."""
    _, low, high = log_ratio(2, 1, 98, 99)
    assert low < 0 < high and lrc(2, 1, 98, 99) == 0.0
    _, low, high = log_ratio(5, 60, 95, 40)
    assert high < 0 and lrc(5, 60, 95, 40) == high


def test_log_ratio_of_a_term_only_in_the_class_is_infinite_with_a_finite_bound():
    est, low, high = log_ratio(12, 0, 88, 100)
    assert est == np.inf and high == np.inf and np.isfinite(low) and low > 0


def test_odds_ratio_is_woolfs_interval():
    """[[20, 10], [30, 90]]: OR = 20 x 90 / (10 x 30) = 6; statsmodels' Table2x2 (Woolf's
    log interval) gives the same bounds."""
    est, low, high = haldane_odds_ratio(20, 10, 30, 90)
    assert est == pytest.approx(6.0, rel=1e-14)
    table = contingency.Table2x2(np.array([[20, 10], [30, 90]]))
    np.testing.assert_allclose([low, high], table.oddsratio_confint(0.05), rtol=1e-12)
    se = math.sqrt(1 / 20 + 1 / 10 + 1 / 30 + 1 / 90)
    assert low == pytest.approx(6 * math.exp(-1.959963984540054 * se), rel=1e-12)


def test_odds_ratio_adds_a_half_to_a_table_with_a_zero():
    est, _, _ = haldane_odds_ratio(5, 0, 10, 20)
    assert est == pytest.approx(5.5 * 20.5 / (0.5 * 10.5), rel=1e-14)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 200), st.integers(0, 200), st.integers(1, 200), st.integers(1, 200),
       st.sampled_from([0.9, 0.95, 0.99]))
def test_proportion_difference_is_newcombes_interval(a, b, n1, n2, level):
    a, b = min(a, n1), min(b, n2)
    est, low, high = proportion_difference(a, b, n1 - a, n2 - b, level)
    expected = sm.confint_proportions_2indep(a, n1, b, n2, method="newcomb", compare="diff",
                                             alpha=1 - level)
    assert est == pytest.approx(a / n1 - b / n2, abs=1e-15)
    np.testing.assert_allclose([low, high], expected, rtol=1e-10, atol=1e-12)


def test_effect_sizes_give_every_column_and_a_level_is_checked():
    out = effect_sizes(np.array([40.0]), np.array([10.0]), np.array([60.0]),
                       np.array([190.0]), 0.9)
    assert set(out) == {"log_ratio", "log_ratio_low", "log_ratio_high", "lrc", "or_haldane",
                        "or_haldane_low", "or_haldane_high", "prop_diff", "prop_diff_low",
                        "prop_diff_high"}
    assert out["log_ratio_low"][0] > log_ratio(40, 10, 60, 190, 0.95)[1]  # narrower at 90%
    with pytest.raises(TextsiftError,
                       match=r"level must be a confidence level in \(0, 1\), e.g. 0.95, got 95"):
        log_ratio(1, 1, 1, 1, level=95)
