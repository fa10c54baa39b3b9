"""Golden values from worked examples: the 10 x 10 binary set of P. Kang's Text Analytics
lecture 6 (Forman 2003's metrics) and Table 1 of the RC paper (Yang, Wang and Qu)."""

import numpy as np
import pytest
from lecture_example import LABELS, LECTURE  # noqa: E402

from textsift.counting.counts import Counts
from textsift.scores import compute
from textsift.scores.association import relative_contribution
from textsift.scores.forman import (
    acc,
    acc_ratio,
    bns,
    f1,
    odds_numerator,
    odds_ratio,
    pow_,
    prob_ratio,
)
from textsift.scores.information import chi2, ig

INF = np.inf

# Expected table of the lecture's example (OddR(T4) = 6, the formula's value; the slide's 4.00 is
# a slip).
EXPECTED = {
    "df": [6, 4, 10, 8, 7, 3, 2, 5, 4, 3],
    "acc": [6, -4, 2, 4, -1, 3, -2, 1, 2, -1],
    "acc_ratio": [1, 1, 0, .5, .5, .5, .5, 0, .25, .3333],
    "prob_ratio": [INF, 0, 1, 2, .5, INF, 0, 1, 2, .3333],
    "odds_ratio": [24, 0, 0, 6, 0, 4, 0, 1, 3, .2],
    "odds_numerator": [24, 0, 0, 12, 0, 12, 0, 6, 9, 2],
    "f1": [1, 0, .75, .8571, .4615, .6667, 0, .5455, .6, .2222],
    "ig10": [.2923, .2923, 0, .0969, .0847, .0847, .0969, 0, .0140, .0275],
    "ig2": [.9710, .9710, 0, .3219, .2813, .2813, .3219, 0, .0464, .0913],
    "chi2": [10, 10, 0, 3.75, 2.8571, 2.8571, 3.75, 0, .625, 1.2698],
    "bns": [6.5811, 6.5811, 0, 3.2905, 3.2905, 3.2905, 3.2905, 0, .6745, .9674],
    "pow": [1, -1, 0, .0312, -.0312, .9688, -.9688, 0, .2061, -.3706],
}


@pytest.fixture(scope="module")
def cells():
    counts = Counts.from_matrix(LECTURE.T, LABELS)
    A, B, C, D = counts.contingency()
    pos = list(counts.classes).index("pos")
    return A[:, pos], B[:, pos], C[:, pos], D[:, pos]


def test_contingency_cells_match_the_table(cells):
    A, B, C, D = cells
    np.testing.assert_array_equal(A, [6, 0, 6, 6, 3, 3, 0, 3, 3, 1])
    np.testing.assert_array_equal(B, [0, 4, 4, 2, 4, 0, 2, 2, 1, 2])
    np.testing.assert_array_equal(C, [0, 6, 0, 0, 3, 3, 6, 3, 3, 5])
    np.testing.assert_array_equal(D, [4, 0, 0, 2, 0, 4, 2, 2, 3, 2])


@pytest.mark.parametrize(
    "name, fn",
    [("acc", acc), ("acc_ratio", acc_ratio), ("prob_ratio", prob_ratio),
     ("odds_ratio", odds_ratio), ("odds_numerator", odds_numerator), ("f1", f1),
     ("chi2", chi2), ("bns", bns), ("pow", pow_),
     ("ig10", lambda *c: ig(*c, base=10)), ("ig2", ig)],
)
def test_lecture_table(cells, name, fn):
    with np.errstate(divide="ignore", invalid="ignore"):
        got = fn(*cells)
    np.testing.assert_allclose(got, EXPECTED[name], atol=6e-5 if name != "acc_ratio" else 5e-5)


def test_odds_ratio_t4_is_six_not_the_slides_four(cells):
    assert odds_ratio(*cells)[3] == 6.0


def test_df_and_top3_tally_from_registered_methods():
    """The registry reproduces the table too, and the lecture's Top-3 tally (ties at the
    boundary included): T1 9, T2 4, T3 2, T4 10, T5 3, T6 6, T7 4, T8 0, T9 1, T10 0."""
    counts = Counts.from_matrix(LECTURE.T, LABELS)
    np.testing.assert_array_equal(compute(counts, "df").values[:, 0], EXPECTED["df"])
    pos = list(counts.classes).index("pos")
    tally = np.zeros(10, dtype=int)
    for name in ("df", "acc", "acc_ratio", "prob_ratio", "odds_ratio", "odds_numerator", "f1",
                 "ig", "chi2", "bns"):
        col = compute(counts, name).values
        col = col[:, 0] if col.shape[1] == 1 else col[:, pos]
        third = np.sort(col)[::-1][2]
        tally += col >= third - 1e-12
    np.testing.assert_array_equal(tally, [9, 4, 2, 10, 3, 6, 4, 0, 1, 0])


# ------------------------------------------------------------- RC (the RC paper's Table 1)
TF_TABLE = np.array([[216, 230, 200, 180, 190], [80, 16, 50, 20, 10]], dtype=float)


def test_rc_unnormalised_worked_example():
    rc0 = relative_contribution(TF_TABLE, normalize=False)
    np.testing.assert_array_equal(rc0[0], [64, 134, -16, -116, -66])
    np.testing.assert_array_equal(rc0[1], [224, -96, 74, -76, -126])
    assert rc0[0, 0] == 64 and rc0[1, 0] == 224


def test_rc_normalised_and_smoothed_worked_example():
    rc1 = relative_contribution(TF_TABLE, smooth=False)
    np.testing.assert_allclose(rc1[0], [-.6660, .3601, -.3147, .1853, .4353], atol=1e-4)
    np.testing.assert_allclose(rc1[1], -rc1[0], atol=1e-12)
    rc = relative_contribution(TF_TABLE)
    np.testing.assert_allclose(rc[0], [-.6579, .3584, -.3107, .1814, .4289], atol=1e-4)
    assert rc[0].max() == pytest.approx(.4289, abs=1e-4)
    assert rc[1].max() == pytest.approx(.6579, abs=1e-4)


def _tf_counts():
    """Counts whose term_freq is the RC paper's Table 1 (one document per class holding the
    tf)."""
    X = TF_TABLE.T  # 5 documents (one per class) x 2 terms
    return Counts.from_matrix(X, np.arange(5))


def test_rc_and_am_from_counts():
    counts = _tf_counts()
    rc = compute(counts, "rc").values
    np.testing.assert_allclose(rc.max(axis=1), [.4289, .6579], atol=1e-4)
    am = compute(counts, "am").values
    np.testing.assert_allclose(am[0], [.2126, .2264, .1969, .1772, .1870], atol=1e-4)
    np.testing.assert_allclose(am[1], [.4545, .0909, .2841, .1136, .0568], atol=1e-4)
    rc0 = compute(counts, "rc", normalize=False).values
    assert rc0[0, 0] == 64 and rc0[1, 0] == 224
