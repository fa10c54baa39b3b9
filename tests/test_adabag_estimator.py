"""AdaBagClassifier as a scikit-learn estimator: the estimator checks, clone, Pipeline on raw
texts, GridSearchCV, its fitted attributes, and bad input (each case an error naming the
parameter)."""

import sys

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.utils import estimator_checks

import textsift
from textsift.errors import TextsiftError
from textsift.lasso import AdaBagClassifier, simulate
from textsift.lasso.estimator import EXPECTED_FAILED_CHECKS
from textsift.reading.corpus import load_sample


@pytest.fixture(scope="module")
def sim():
    return simulate(0)


@pytest.fixture(scope="module")
def reviews():
    corpus = load_sample("reviews")
    frame = corpus.frame
    return frame["text"].astype(str).to_numpy(), frame["rating"].to_numpy(float), frame


@pytest.fixture(scope="module")
def fitted(sim):
    return AdaBagClassifier(a=sim.a, b=sim.b, n_bootstraps=6, polarity=sim.polarity,
                            random_state=0).fit(sim.X, sim.y)


# the checks' random data have no word that separates the classes: the empty model's warning
@pytest.mark.filterwarnings("ignore:AdaBag chose the model with no word")
def test_passes_the_estimator_checks():
    est = AdaBagClassifier(a=0, b=1, n_bootstraps=2, n_lambdas=10, random_state=0)
    with pytest.warns():  # transform on a fit that selected nothing warns (scikit-learn)
        estimator_checks.check_estimator(est, expected_failed_checks=EXPECTED_FAILED_CHECKS)
    # the three checks that label rows 1 and 2 pass once those are low and high ratings
    est = est.set_params(a=1, b=2)
    for name in ("check_estimators_dtypes", "check_classifier_data_not_an_array",
                 "check_fit2d_1feature"):
        getattr(estimator_checks, name)("AdaBagClassifier", est)


def test_fitted_attributes_and_prediction(sim, fitted):
    m = fitted
    assert textsift.AdaBagClassifier is AdaBagClassifier
    p = sim.X.shape[1]
    assert m.frequencies_.shape == m.coef_.shape == m.support_.shape == (p,)
    assert m.cutoffs_.tolist() == list(range(1, 7)) and len(m.sizes_) == 6
    assert np.array_equal(m.support_, m.frequencies_ >= m.cutoff_)
    assert np.array_equal(m.get_support(indices=True), np.flatnonzero(m.support_))
    assert np.all(m.coef_[~m.support_] == 0)
    # predict is (2.2) on the fitted rating, decision_function its distance to (a+b)/2
    rating = m.rating(sim.X)
    np.testing.assert_allclose(rating, sim.X @ m.coef_ + m.intercept_)
    np.testing.assert_allclose(m.decision_function(sim.X), rating - (sim.a + sim.b) / 2)
    assert np.array_equal(m.predict(sim.X), (rating >= (sim.a + sim.b) / 2).astype(int))
    assert m.score(sim.X, sim.y) == np.mean(m.predict(sim.X) == (sim.y >= sim.b))
    assert m.score(sim.X, sim.y) > 0.85  # the model fitted on 400 rows, scored on them
    assert m.transform(sim.X).shape == (400, m.support_.sum())
    names = m.get_feature_names_out([f"x{j}" for j in range(1, 78)])
    assert names.tolist() == [f"x{j + 1}" for j in np.flatnonzero(m.support_)]
    # 2:1 split within each class: 134 + 133 core, 66 + 67 validation of the 400 rows
    assert set(m.bootstraps_[0]) >= {"selected", "lambda", "errors"}


def test_clone_and_reproducibility(sim, fitted):
    twin = clone(fitted)
    a, b = twin.get_params(), fitted.get_params()
    assert a.keys() == b.keys() and not hasattr(twin, "frequencies_")
    assert all(np.array_equal(a[k], b[k]) if k == "polarity" else a[k] == b[k] for k in a)
    twin.fit(sim.X, sim.y)
    np.testing.assert_array_equal(twin.frequencies_, fitted.frequencies_)
    assert twin.cutoff_ == fitted.cutoff_


def test_validation_mask_replaces_the_split(sim):
    rng = np.random.default_rng(1)
    mask = rng.random(400) < 0.3
    m = AdaBagClassifier(a=sim.a, b=sim.b, n_bootstraps=2, random_state=0).fit(
        sim.X, sim.y, validation=mask)
    # the bootstraps resample the core rows only: their multiplicities sum to the core size
    assert m.bootstraps_[0]["errors"].size > 0
    with pytest.raises(TextsiftError, match="validation must be a boolean mask"):
        m.fit(sim.X, sim.y, validation=np.flatnonzero(mask))


def test_pipeline_on_raw_texts_and_grid_search(reviews):
    texts, ratings, _ = reviews
    pipe = Pipeline([("vec", CountVectorizer(min_df=10, binary=True)),
                     ("ada", AdaBagClassifier(a=2, b=4, n_bootstraps=4, random_state=0))])
    train = np.arange(len(texts)) % 4 != 0
    pipe.fit(texts[train], ratings[train])
    words = pipe[:-1].get_feature_names_out()
    kept = pipe["ada"].get_feature_names_out(words)
    assert 20 < len(kept) < 400 and pipe.transform(texts[:3]).shape == (3, len(kept))
    # held-out quarter, 1-2 stars against 4-5 stars: measured 0.824 with B = 4 (108 words)
    assert pipe.score(texts[~train], ratings[~train]) > 0.78
    grid = GridSearchCV(pipe, {"ada__scheme": ["ws1", "ws3"], "ada__n_bootstraps": [1, 2]},
                        cv=2).fit(texts, ratings)
    assert len(grid.cv_results_["params"]) == 4 and 0.7 < grid.best_score_ <= 1


def test_groups_give_the_data_shared_lasso(reviews):
    texts, ratings, frame = reviews
    X = CountVectorizer(min_df=5, binary=True).fit_transform(texts)
    groups = frame["department"].astype(str).to_numpy()
    keep = np.isin(groups, ["Tops", "Dresses", "Bottoms"])
    m = AdaBagClassifier(a=2, b=4, n_bootstraps=3, random_state=0, final_model="per_group")
    m.fit(X[keep], ratings[keep], groups[keep])
    assert m.groups_.tolist() == ["Bottoms", "Dresses", "Tops"] and len(m.r_) == 3
    assert m.coef_by_group_.shape == (3, X.shape[1])
    pred = m.predict(X[keep][:5], groups[keep][:5])
    assert set(pred.tolist()) <= {0, 1}
    with pytest.raises(TextsiftError, match="pass groups"):
        m.predict(X[keep][:5])
    with pytest.raises(TextsiftError, match="known group label"):
        m.predict(X[:2], ["Tops", "Jackets"])


# ------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("params, fit, message", [
    ({"polarity": np.ones(5)}, {}, "polarity has 5 values; it needs one per feature"),
    ({"polarity": np.r_[np.nan, np.ones(76)]}, {}, "polarity holds 1 NaN"),
    ({"a": 7, "b": 4}, {}, "need a < b"),
    ({"a": 5, "b": 5}, {}, "need a < b"),
    ({"scheme": "ws7"}, {}, "scheme='ws7'"),
    ({"n_bootstraps": 0}, {}, "n_bootstraps must be an integer >= 1"),
    ({"cutoff_selection": "smooth"}, {}, "cutoff_selection='smooth'"),
    ({"store": "somewhere"}, {}, "needs an int random_state"),
])
def test_bad_parameters(sim, params, fit, message):
    est = AdaBagClassifier(a=sim.a, b=sim.b, n_bootstraps=2).set_params(**params)
    with pytest.raises(TextsiftError, match=message):
        est.fit(sim.X, sim.y, **fit)


def test_bad_data(sim):
    est = AdaBagClassifier(a=sim.a, b=sim.b, n_bootstraps=2, random_state=0)
    with pytest.raises(TextsiftError, match="y must hold numeric ratings"):
        est.fit(sim.X, np.array(["pos"] * 400))
    # a threshold outside the ratings leaves a class without rows: the ratings are named
    with pytest.raises(TextsiftError, match=r"a=-100 \(--low\) is below every rating found, "
                       r"so the low class has no rows; ratings present: -?\d.*"
                       r"\(400 distinct values\)"):
        AdaBagClassifier(a=-100, b=sim.b).fit(sim.X, sim.y)
    with pytest.raises(TextsiftError, match=r"b=100 \(--high\) is above every rating found"):
        AdaBagClassifier(a=sim.a, b=100).fit(sim.X, sim.y)
    groups = np.where(sim.y >= sim.b, "hi", "lo")  # each group holds one class
    with pytest.raises(TextsiftError, match="groups: group 'hi' has only high ratings"):
        est.fit(sim.X, sim.y, groups)
    with pytest.raises(TextsiftError, match="every polarity is 0"):
        est.set_params(polarity=np.zeros(77)).fit(sim.X, sim.y)


def test_missing_glmnet_backend(sim, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "glmnet", None)  # as if python-glmnet were not installed
    est = AdaBagClassifier(a=sim.a, b=sim.b, backend="glmnet", random_state=0,
                           store=tmp_path / "boot")
    with pytest.raises(TextsiftError, match="python-glmnet"):
        est.fit(sim.X, sim.y)
    assert not (tmp_path / "boot").exists()


def test_polarity_shrinkage_and_size_budget(sim):
    from textsift.lasso import shrink_polarity

    # n/(n + prior): a word in 10 documents keeps 10/20 of its polarity with prior 10; a word
    # in fewer than min_count documents gets 0
    np.testing.assert_allclose(shrink_polarity([0.8, -0.6, 0.4], [10, 30, 2], prior=10,
                                               min_count=3), [0.4, -0.45, 0.0])
    assert shrink_polarity([0.5], [0]).tolist() == [0.5]  # nothing asked, nothing changed
    base = AdaBagClassifier(a=sim.a, b=sim.b, n_bootstraps=4, polarity=sim.polarity,
                            random_state=0)
    full = clone(base).fit(sim.X, sim.y)
    cap = int(full.sizes_[-2])  # A_3: a budget that excludes A_1 and A_2
    assert cap < full.support_.sum()
    small = clone(base).set_params(max_features=cap).fit(sim.X, sim.y)
    allowed = small.sizes_ <= cap
    best = small.validation_errors_[allowed].min()
    assert small.support_.sum() <= cap
    assert small.cutoff_ == small.cutoffs_[allowed & (small.validation_errors_ == best)][-1]
    # a budget below the smallest model: the smallest model (the largest cutoff)
    tiny = clone(base).set_params(max_features=1).fit(sim.X, sim.y)
    assert tiny.cutoff_ == 4 and tiny.support_.sum() == full.sizes_[-1] > 1
    # features 66-77 are in 2-4% of the rows: with min_count 20 they get no polarity (weight
    # 1/tol) and are never chosen
    counts = np.asarray((sim.X != 0).sum(axis=0)).ravel()
    rare = counts < 20
    shrunk = clone(base).set_params(polarity_min_count=20).fit(sim.X, sim.y)
    assert rare.any() and shrunk.frequencies_[rare].sum() == 0
