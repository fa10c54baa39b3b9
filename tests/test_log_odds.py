"""log_odds_dirichlet (Monroe, Colaresi & Quinn 2008): a hand computation, an independent
transcription of the formula word by word (as the GoEmotions analysis writes it), label sets,
and the prior's scale."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from textsift.counting.counts import Counts
from textsift.errors import TextsiftError
from textsift.scores import compute
from textsift.selection.ranking import rank

# terms (bad, good); class p: "good good bad", class n: "bad bad good bad"
X = sp.csr_matrix(np.array([[1, 2], [3, 1]]))
Y = ["p", "n"]


def test_the_hand_computation_of_a_two_class_corpus():
    """TF(p) = (bad 1, good 2), n = 3; TF(n) = (3, 1), n' = 4; prior a = TF = (4, 3), a0 = 7.
    good in p: delta = log(5 / (3 + 7 - 5)) - log(4 / (4 + 7 - 4)) = log(7/4), sd^2 = 1/5 + 1/4;
    bad in p:  delta = log(5 / (3 + 7 - 5)) - log(7 / (4 + 7 - 7)) = -log(7/4), sd^2 = 1/5 + 1/7.
    With two classes the scores of n are those of p negated."""
    table = compute(Counts.from_matrix(X, Y), "log_odds_dirichlet")
    good = math.log(7 / 4) / math.sqrt(1 / 5 + 1 / 4)
    bad = -math.log(7 / 4) / math.sqrt(1 / 5 + 1 / 7)
    assert table.groups.tolist() == ["n", "p"]
    np.testing.assert_allclose(table.values, [[-bad, bad], [-good, good]], rtol=1e-14)
    assert good == pytest.approx(0.83422, abs=1e-5)


def transcription(Xd, has, scale):
    """The formula word by word for one label: counts in its documents, in the others, and
    the prior scale * (their sum), in plain Python."""
    y, rest = Xd[has].sum(axis=0).tolist(), Xd[~has].sum(axis=0).tolist()
    prior = [scale * (a + b) for a, b in zip(y, rest, strict=True)]
    n, n_rest, a0 = sum(y), sum(rest), sum(prior)
    out = []
    for yw, rw, aw in zip(y, rest, prior, strict=True):
        if aw == 0:
            out.append(-math.inf)  # a term the corpus never has
            continue
        delta = (math.log((yw + aw) / (n + a0 - yw - aw))
                 - math.log((rw + aw) / (n_rest + a0 - rw - aw)))
        out.append(delta / math.sqrt(1 / (yw + aw) + 1 / (rw + aw)))
    return out


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sets(st.sampled_from("uvw"), max_size=3), min_size=3, max_size=20),
       st.integers(0, 10**6), st.sampled_from([1.0, 0.5, 10.0]))
def test_label_sets_score_as_the_transcription_of_each_label_against_the_rest(rows, seed, s):
    Xd = np.random.default_rng(seed).poisson(1.0, size=(len(rows), 6))
    Xd[:, 5] = 0  # one term no document has
    counts = Counts.from_matrix(sp.csr_matrix(Xd), rows)
    if not counts.n_classes or not counts.class_sizes.any():
        return
    table = compute(counts, "log_odds_dirichlet", prior_scale=s)
    for j, label in enumerate(table.groups):
        has = np.array([label in r for r in rows])
        np.testing.assert_allclose(table.values[:, j], transcription(Xd, has, s), rtol=1e-12)


def test_it_ranks_the_class_words_first_and_never_an_unseen_term():
    Xs = sp.csr_matrix(np.array([[4, 0, 1, 0], [0, 3, 1, 0], [5, 1, 1, 0]]))
    counts = Counts.from_matrix(Xs, [["joy"], ["anger"], ["joy", "love"]],
                                feature_names=np.array(["yay", "grr", "the", "never"]))
    top = rank(counts, "log_odds_dirichlet", class_label="joy", direction="both")
    assert top.terms.tolist()[:3] == ["yay", "the", "grr"]
    assert top.terms.tolist()[-1] == "never"
    assert top.scores[-1] == -np.inf


@pytest.mark.parametrize("scale", [0, -1.0, float("nan"), "1", True])
def test_the_prior_scale_must_be_positive(scale):
    with pytest.raises(TextsiftError, match="prior_scale must be a positive number"):
        compute(Counts.from_matrix(X, Y), "log_odds_dirichlet", prior_scale=scale)
