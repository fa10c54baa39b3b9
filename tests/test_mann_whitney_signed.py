"""mann_whitney is signed (issue 39): it gave |z|, no direction ("not" and "love" ranked 1
and 2 on Alexa reviews, alike). Its score is z with the sign of U1 - U2 -- positive where
the documents with the term rank higher -- its p-value unchanged (two-sided, scipy's
mannwhitneyu), and its ranking two-sided (by |z|, as the test is), with direction views
that keep one sign.

Worked example: ranks 1, 1, 2, 2, 3, 3. ``high`` is in the two documents of rank 3, ``low``
in the two of rank 1: mirror images, so one z with opposite signs and one p-value; scipy's
U of ``high`` is 8 of 8 pairs (U1 = 8, U2 = 0)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as ss

from textsift import Counts, rank
from textsift.scores import REGISTRY, compute, pvalues

Y = np.array([1, 1, 2, 2, 3, 3])
TEXTS = ["low word", "low word", "mid word", "mid word", "high word", "high word"]


@pytest.fixture(scope="module")
def counts():
    return Counts.from_texts(TEXTS, Y)


def _by_term(counts, values):
    return dict(zip(counts.feature_names, values, strict=True))


def test_the_score_is_signed_and_the_p_value_two_sided(counts):
    z = _by_term(counts, compute(counts, "mann_whitney").values[:, 0])
    p = _by_term(counts, pvalues(counts, "mann_whitney").values[:, 0])
    assert REGISTRY["mann_whitney"].signed
    assert z["high"] > 0 and z["low"] == -z["high"]  # mirror images
    assert p["high"] == p["low"]
    high = ss.mannwhitneyu([3, 3], [1, 1, 2, 2], method="asymptotic")
    assert high.statistic == 8.0
    assert p["high"] == pytest.approx(high.pvalue, rel=1e-12)
    assert p["high"] == pytest.approx(2 * ss.norm.sf(z["high"]), rel=1e-12)
    # "mid" (ranks 2 and 2 against 1, 1, 3, 3): U1 = U2 = 4, no direction, p = 1
    assert z["mid"] == 0.0 and p["mid"] == 1.0


def test_the_ranking_is_two_sided_and_the_direction_views_keep_one_sign(counts):
    both = rank(counts, "mann_whitney")
    assert both.terms[:2].tolist() == ["high", "low"]  # equal |z|: by index
    assert both.scores[0] == -both.scores[1] > 0  # the scores keep their sign
    over = rank(counts, "mann_whitney", direction="over")
    under = rank(counts, "mann_whitney", direction="under")
    assert over.terms[over.scores > -np.inf].tolist() == ["high"]
    assert under.terms[under.scores > -np.inf].tolist() == ["low"]
    assert under.scores[0] < 0


@pytest.mark.real_data
def test_alexa_reviews_love_is_high_and_not_is_low(real_data):
    """On Alexa reviews, "love" and "not" are mann_whitney's first two terms, as before;
    now "love" has a positive z (its reviews rate higher) and "not" a negative one."""
    from textsift.engines import count_file

    counts = count_file(real_data / "amazon_alexa" / "all.jsonl.gz", label_field="rating",
                        engine="memory", ranks=True)
    top = rank(counts, "mann_whitney", top=2)
    signs = dict(zip(top.terms, np.sign(top.scores), strict=True))
    assert signs == {"love": 1.0, "not": -1.0}
    assert rank(counts, "mann_whitney", direction="over", top=1).terms.tolist() == ["love"]
    assert rank(counts, "mann_whitney", direction="under", top=1).terms.tolist() == ["not"]


def test_selection_by_alpha_keeps_both_signs_or_the_direction_asked():
    """Selection by alpha is two-sided, ordered by |z|; with a direction, one sign only."""
    from textsift.evidence.significant import significant_terms

    y = np.repeat([1, 2, 3], 20)
    texts = [("up " if r == 3 else "down " if r == 1 else "") + "word" for r in y]
    counts = Counts.from_texts(texts, y)
    names = counts.feature_names
    both, _ = significant_terms(counts, "mann_whitney", 0.05)
    assert sorted(names[both]) == ["down", "up"]
    over, _ = significant_terms(counts, "mann_whitney", 0.05, direction="over")
    under, _ = significant_terms(counts, "mann_whitney", 0.05, direction="under")
    assert names[over].tolist() == ["up"] and names[under].tolist() == ["down"]
