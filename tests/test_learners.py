"""RankSVR: rounded linear epsilon-SVR on ranks (Baccianella, Esuli & Sebastiani, SAC 2010), and
the learner registry."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from toys import toy

from textsift.learners import LEARNERS, RankSVR
from textsift.learners.metrics import mae_macro


def imbalanced(n_per_rank=(30, 30, 30, 60, 450), seed=0):
    """Ranks 1-5 dominated by 5 stars; one indicative column per rank (present in 40% of
    that rank's documents, 10% of the others) plus 20 noise columns."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(1, 6), n_per_rank)
    signal = rng.random((len(y), 5)) < np.where(np.arange(1, 6)[None, :] == y[:, None], 0.4, 0.1)
    noise = rng.random((len(y), 20)) < 0.1
    return sp.csr_matrix(np.hstack([signal, noise]).astype(float)), y


def test_predictions_are_ranks_of_the_declared_scale():
    X, y = imbalanced()
    model = RankSVR(C=1.0, ranks=[1, 2, 3, 4, 5]).fit(X, y)
    raw = model.decision_function(X)
    pred = model.predict(X)
    assert set(np.unique(pred)) <= {1, 2, 3, 4, 5}
    # nearest rank (ceil(x - 0.5) rounds halves down), clipped to the scale
    np.testing.assert_array_equal(pred, np.clip(np.ceil(raw - 0.5), 1, 5))


def test_rounding_uses_a_sparse_scale():
    # ranks 1, 2, 4, 5 (no 3): predictions round to the nearest of those, never to 3
    X, y = imbalanced()
    y = np.where(y == 3, 2, y)
    pred = RankSVR().fit(X, y).predict(X)
    assert set(np.unique(pred)) <= {1, 2, 4, 5}


def test_balanced_weights_beat_majority_drift_on_mae_macro():
    # The unweighted L1 loss pulls predictions towards 5 stars; weights inverse to rank
    # frequency make the training loss the training MAE^M, which it then lowers.
    X, y = imbalanced()
    Xt, yt = imbalanced(n_per_rank=(100,) * 5, seed=1)
    plain = mae_macro(yt, RankSVR(C=1.0).fit(X, y).predict(Xt))
    balanced = mae_macro(yt, RankSVR(C=1.0, balanced=True).fit(X, y).predict(Xt))
    assert balanced < plain


def test_without_capacity_the_balanced_learner_is_triv():
    # C -> 0: the weights vanish and the prediction is the centring constant, the weighted
    # median rank; with balanced weights on 1-5 that is 3, i.e. Triv (MAE^M = 1.2).
    X, y = imbalanced()
    model = RankSVR(C=1e-8, balanced=True).fit(X, y)
    assert model.offset_ == 3
    assert mae_macro(y, model.predict(X)) == pytest.approx(1.2)
    assert RankSVR(C=1e-8).fit(X, y).offset_ == 5  # unweighted median: the majority rank


def test_sklearn_api():
    X, y = imbalanced()
    model = clone(RankSVR(C=0.5, balanced=True)).fit(X.toarray(), y)
    assert model.get_params()["C"] == 0.5 and model.n_features_in_ == 25
    assert model.score(X.toarray(), y) == pytest.approx(-mae_macro(y, model.predict(X)))
    with pytest.raises(ValueError, match="features"):
        model.predict(np.zeros((2, 3)))


@pytest.mark.parametrize("y, ranks, message", [
    (["1", "2"] * 5, None, "must be numbers"),
    ([1.5, 2] * 5, None, "must be integers"),
    ([4] * 10, None, "at least two ranks"),
    ([1, 9] * 5, [1, 2, 3, 4, 5], "outside the declared scale"),
])
def test_bad_ranks(y, ranks, message):
    with pytest.raises(ValueError, match=message):
        RankSVR(ranks=ranks).fit(np.eye(10), np.array(y))


def test_ranks_missing_from_training_are_kept_when_declared():
    X, y = imbalanced()
    keep = y != 1
    model = RankSVR(ranks=[1, 2, 3, 4, 5]).fit(X[keep], y[keep])
    np.testing.assert_array_equal(model.ranks_, [1, 2, 3, 4, 5])
    assert model.predict(sp.csr_matrix(np.full((1, 25), -50.0))).min() >= 1


# --------------------------------------------------------------------------- the registry
@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_every_registered_learner_builds_fits_a_toy_and_round_trips_its_parameters(name):
    """Read from the registry, so a learner added later is checked with nothing else edited:
    its pipeline (its weighting first) fits the toy of each label kind it serves
    (``tests/toys.py``: the kind's example labels, one column marking each label, so a kind
    registered later is fitted too) and predicts labels of that kind, right on the training
    documents at least two times in three (a learner that ignored the columns, or predicted
    another kind's labels, is not); every
    parameter it declares is its estimator's own and goes through build() unchanged, as
    through scikit-learn's clone."""
    from textsift.learners import WEIGHTINGS, make_learner

    learner = LEARNERS[name]
    for task in learner.label_kinds:
        t = toy(task)
        X, y = t.X, t.y
        pipe = make_learner(name, seed=1, **t.fit_params)
        assert len(pipe) == len(WEIGHTINGS[learner.weighting]()) + 1
        pred = pipe.fit(X, y).predict(X)
        assert pred.shape == np.shape(y) and set(np.unique(pred)) <= set(np.unique(y))
        assert np.mean(np.all(np.reshape(pred == y, (len(y), -1)), axis=1)) >= 2 / 3, task
    own = learner.build(seed=1).get_params()
    assert set(learner.params) <= set(own)
    for p in learner.params:
        built = learner.build(seed=1, **{p: own[p]})
        assert built.get_params()[p] == own[p] == clone(built).get_params()[p], p


def test_the_learner_registry_builds_the_pipelines_of_the_experiments():
    """make_learner: the weighting first, then the estimator with the seed, the scale and
    the parameters (worked on the learners the papers use)."""
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.preprocessing import Binarizer
    from sklearn.svm import LinearSVC

    from textsift.learners import make_learner

    pipe = make_learner("linear_svm", seed=3, C=0.5)
    assert [type(s) for s in pipe] == [TfidfTransformer, LinearSVC]
    assert (pipe[-1].C, pipe[-1].random_state) == (0.5, 3)
    assert [type(s) for s in make_learner("nb", "binary")] == [Binarizer, MultinomialNB]
    svr = make_learner("svr", seed=1, ranks=[1, 2, 3], balanced=True)
    assert pipe[0].sublinear_tf is False and svr[0].sublinear_tf is True
    assert (svr[-1].ranks, svr[-1].balanced, svr[-1].random_state) == ([1, 2, 3], True, 1)
    assert make_learner("logreg")[-1].max_iter == 1000
