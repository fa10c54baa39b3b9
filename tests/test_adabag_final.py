"""AdaBag's final model (textsift.lasso.final): the paper's least squares by default, ridge
regression of the rating or logistic regression of the class on the selected words, each the
optimum of the objective its docstring states (checked by the objective's gradient), the
penalty chosen with the cutoff on validation, and the measured gain on skewed classes."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import balanced_accuracy_score

import textsift.lasso.estimator as estimator
from textsift.errors import TextsiftError
from textsift.lasso import AdaBagClassifier, holdout_run
from textsift.lasso.final import PENALTIES, midpoint
from textsift.reading.corpus import load_sample
from textsift.text.vectorize import VectorizerOptions, vectorize

SKEW = dict(a=2, b=4, n_bootstraps=4, random_state=0, class_weight="balanced",
            criterion="balanced_error")


@pytest.fixture(scope="module")
def skewed():
    """The bundled 1-5 star sample, one low (1-2 star) review in 8 kept (150 low, 1,200 high,
    600 3-star), binary words in >= 5 reviews of the whole sample."""
    frame = load_sample("reviews").frame
    X, _, _ = vectorize(frame["text"].astype(str).tolist(),
                        VectorizerOptions(binary=True, min_df=5))
    y = frame["rating"].to_numpy(float)
    keep = np.r_[np.flatnonzero(y <= 2)[::8], np.flatnonzero(y > 2)]
    return X[keep], y[keep]


@pytest.fixture(scope="module")
def runs(skewed, tmp_path_factory):
    """One holdout run per final model; the bootstraps (which the final model does not
    change) are kept in one store and shared."""
    X, y = skewed
    store = tmp_path_factory.mktemp("final") / "bootstraps"
    return {final: holdout_run(AdaBagClassifier(**SKEW, final=final, store=store), X, y)
            for final in ("ols", "ridge", "logistic")}


def _fit_rows(run, X, y, columns):
    """The core + validation rows of ``run`` on ``columns`` (dense: a few hundred columns),
    their classes and their class weights."""
    rows = run.kept[run.part <= 1]
    theta = (y[rows] >= 4).astype(int)
    return (sp.csr_matrix(X[rows])[:, columns].toarray(), y[rows], theta,
            run.model.class_weight_[theta])


def _test_counts(run, X, y):
    test = run.kept[run.part == 2]
    theta, pred = y[test] >= 4, run.model.predict(X[test]) == 1
    return int((~theta & ~pred).sum()), int((theta & pred).sum())


def test_the_final_models_share_the_bootstraps_and_the_nested_models(runs):
    ols, ridge, logistic = (runs[k].model for k in ("ols", "ridge", "logistic"))
    for m in (ridge, logistic):
        np.testing.assert_array_equal(m.frequencies_, ols.frequencies_)
        assert m.sizes_.tolist() == ols.sizes_.tolist() == [147, 44, 10, 3]
    assert ols.final_penalty_ is None and ols.midpoint_ == ols.threshold_ == 3.0
    assert midpoint("ols", 2, 4) == midpoint("ridge", 2, 4) == 3.0
    assert midpoint("logistic", 2, 4) == 0.0  # the log-odds of a probability of 1/2


def test_ridge_is_the_optimum_of_its_weighted_objective(runs, skewed):
    # sum_i w_i (y_i - b0 - x_i'b)^2 + alpha ||b||^2 is minimal iff X'W r = alpha b and
    # sum_i w_i r_i = 0 (r the residuals): its gradient, to the conjugate gradients' 1e-10
    X, y = skewed
    m = runs["ridge"].model
    Xs, rating, _, w = _fit_rows(runs["ridge"], X, y, m.support_)
    b = m.coef_[m.support_]
    r = rating - Xs @ b - m.intercept_
    assert m.final_penalty_ == pytest.approx(10 ** 1.5)  # the grid's 10^3 ... 10^-1
    assert np.abs(Xs.T @ (w * r) - m.final_penalty_ * b).max() < 1e-6
    assert abs(np.sum(w * r)) < 1e-8


def test_logistic_regression_is_the_optimum_of_its_weighted_objective(runs, skewed):
    # ||b||^2 / 2 + C sum_i w_i log(1 + exp(-s_i (b0 + x_i'b))) is minimal iff
    # b = C X'W (theta - p) and sum_i w_i (theta_i - p_i) = 0, for every cutoff's model (each
    # started from the smaller one's). scikit-learn's lbfgs stops at a gradient of 1e-4 of
    # the objective divided by C sum_i w_i: measured at most 9e-5 here; the unweighted
    # objective, or C off by 2, is off by more than 1e-2
    X, y = skewed
    m = runs["logistic"].model
    C = m.final_penalty_
    assert C == pytest.approx(10 ** -0.5)  # the grid's 10^-2 ... 10^2
    for k in range(len(m.sizes_)):
        coef = m.cutoff_coef_[0][k]
        Xs, _, theta, w = _fit_rows(runs["logistic"], X, y, coef.indices)
        p = 1 / (1 + np.exp(-(Xs @ coef.data + m.cutoff_intercept_[0, k])))
        assert np.abs(coef.data - C * Xs.T @ (w * (theta - p))).max() / (C * w.sum()) < 1e-3
        assert abs(np.sum(w * (theta - p))) / w.sum() < 1e-3
    assert m.midpoint_ == m.threshold_ == 0.0


def test_shrunk_final_models_serve_the_rare_class_better(runs, skewed):
    # the 338 test rows, 37 low and 300 high; all three choose c* = 1 (147 words). Measured:
    # least squares 23 low and 254 high right, ridge (alpha = 10^1.5) 25 and 248, logistic
    # regression (C = 10^-0.5) 25 and 255
    X, y = skewed
    counts = {k: _test_counts(run, X, y) for k, run in runs.items()}
    assert counts == {"ols": (23, 254), "ridge": (25, 248), "logistic": (25, 255)}
    for final, (low, high) in counts.items():
        ba = runs[final].test_scores["midpoint"]["balanced_accuracy"]
        assert ba == pytest.approx((low / 37 + high / 300) / 2, abs=1e-15), final
        assert runs[final].model.cutoff_ == 1
    test = runs["logistic"].kept[runs["logistic"].part == 2]
    m = runs["logistic"].model
    assert np.array_equal(m.predict(X[test]), (m.rating(X[test]) >= 0).astype(int))
    assert ba == balanced_accuracy_score(y[test] >= 4, m.predict(X[test]))


def test_the_penalty_is_the_one_whose_cutoff_validates_best(skewed, runs, monkeypatch):
    # each penalty alone (the bootstraps from the store): the grid's choice is the penalty
    # whose chosen cutoff has the lowest validation loss, the stronger one on a tie
    X, y = skewed
    store = runs["ridge"].model.store
    alone, grid = {}, PENALTIES["ridge"]
    for alpha in grid:
        monkeypatch.setitem(estimator.PENALTIES, "ridge", (alpha,))
        m = holdout_run(AdaBagClassifier(**SKEW, final="ridge", store=store), X, y).model
        alone[alpha] = m.validation_error_
    best = min(alone.values())
    chosen = runs["ridge"].model
    assert chosen.validation_error_ == best
    assert chosen.final_penalty_ == next(a for a in grid if alone[a] == best)
    assert alone[grid[0]] > best  # the grid matters: alpha = 1000 is worse


def test_a_final_that_is_not_one_is_an_error_naming_the_choices(skewed):
    X, y = skewed
    with pytest.raises(TextsiftError, match="final='lasso': choose one of ols, ridge, "
                                            "logistic"):
        AdaBagClassifier(**SKEW, final="lasso").fit(X, y)
