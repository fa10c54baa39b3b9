"""Weighted lasso paths, the data-shared design, OLS refits and classifier (2.2), polarities
(the AdaBag paper's model, eq. 2.5, and classifier, (2.2))."""

import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import norm
from sklearn.linear_model import Lasso

from textsift.errors import TextsiftError
from textsift.lasso import (
    SharedDesign,
    adaptive_weights,
    group_weights,
    lambda_grid,
    lasso_path,
    load_polarity,
    misclassification,
    ols_fit,
    polarity_from_lexicon,
    predict_class,
)
from textsift.lasso.classifier import NestedOLS
from textsift.lasso.path import check_backend, normalise_penalty, objective


def _data(n=120, p=15, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, p)) < 0.3).astype(float)
    beta = np.zeros(p)
    beta[:4] = (1.5, -1.0, 0.8, -0.6)
    y = 2.0 + X @ beta + rng.normal(0, 0.5, n)
    return sp.csr_matrix(X), y, rng


# ------------------------------------------------------------------------- group weights
def test_group_weights_match_the_worked_table():
    # r_g of WS1-WS6 (the AdaBag paper's schemes) worked by hand for its IMDb core sizes
    # 8561/4901/3235 (drama, comedy, horror)
    n = [8561, 4901, 3235]
    expected = {
        "ws1": [.5774, .5774, .5774], "ws2": [.7160, .5418, .4402],
        "ws3": [.9650, .9348, .9117], "ws4": [.9313, .8739, .8312],
        "ws5": [1.0362, 1.0697, 1.0968], "ws6": [1.3477, 1.7255, 2.0713],
    }
    sums = {"ws1": 1.7321, "ws2": 1.6980, "ws3": 2.8116, "ws4": 2.6364, "ws5": 3.2028,
            "ws6": 5.1445}
    for scheme, values in expected.items():
        r = group_weights(n, scheme)
        np.testing.assert_allclose(r, values, atol=5e-5)
        assert r.sum() == pytest.approx(sums[scheme], abs=2e-4)


def test_group_weights_bad_input():
    with pytest.raises(ValueError, match="ws1..ws6"):
        group_weights([10, 20], "ws7")
    with pytest.raises(ValueError, match=">= 2 documents"):
        group_weights([1, 20], "ws3")


# ------------------------------------------------------------------------- lasso path
def test_path_equals_sklearn_adaptive_lasso_with_weights():
    # adaptive lasso = lasso on X_j / pf_j with coef_j = gamma_j / pf_j; sklearn's Lasso
    # minimises 1/(2 sum w) sum w r^2 + alpha |gamma|_1 with weights rescaled to sum n
    X, y, rng = _data()
    pf = rng.uniform(0.5, 2.0, X.shape[1])
    pf *= X.shape[1] / pf.sum()  # already glmnet-normalised, so lambdas are comparable
    w = rng.integers(0, 3, X.shape[0]).astype(float)
    lambdas = lambda_grid(X, y, pf, w, n_lambdas=8, min_ratio=0.05)
    path = lasso_path(X, y, pf, w, lambdas, tol=1e-14)  # the default backend, adelie
    Xd = X.toarray() / pf
    for k, lam in enumerate(lambdas):
        ref = Lasso(alpha=lam, tol=1e-12, max_iter=100000).fit(Xd, y, sample_weight=w)
        np.testing.assert_allclose(path.coef[:, [k]].toarray().ravel(), ref.coef_ / pf,
                                   atol=1e-6)
        assert path.intercept[k] == pytest.approx(ref.intercept_, abs=1e-6)


def test_multiplicities_equal_repeated_rows():
    # a bootstrap is the core rows with multiplicities: same path as the copied rows
    X, y, rng = _data(seed=1)
    m = rng.integers(0, 4, X.shape[0])
    rows = np.repeat(np.arange(X.shape[0]), m)
    lambdas = lambda_grid(X, y, None, m, n_lambdas=6, min_ratio=0.05)
    a = lasso_path(X, y, None, m, lambdas, tol=1e-14)
    b = lasso_path(X[rows], y[rows], None, None, lambdas, tol=1e-14)
    np.testing.assert_allclose(a.coef.toarray(), b.coef.toarray(), atol=1e-7)


def test_lambda_max_is_the_first_lambda_with_all_zero():
    X, y, _ = _data(seed=2)
    lam = lambda_grid(X, y, n_lambdas=3, min_ratio=0.5)
    path = lasso_path(X, y, lambdas=[lam[0] * 1.0001, lam[0] * 0.99], tol=1e-10)
    assert path.coef[:, [0]].nnz == 0 and len(path.active(1)) == 1
    # above lambda_max the intercept is the weighted mean of y
    assert path.intercept[0] == pytest.approx(y.mean())


def test_unpenalised_features_are_in_from_the_start():
    X, y, _ = _data(seed=8)
    pf = np.ones(X.shape[1])
    pf[[5, 9]] = 0.0  # pure-noise columns (beta = 0) that the penalty does not touch
    path = lasso_path(X, y, pf, n_lambdas=5, min_ratio=0.1)
    assert set(path.active(0)) == {5, 9}
    # and they equal the OLS coefficients on those columns at lambda_max
    fit = ols_fit(X, y, [5, 9])
    np.testing.assert_allclose(path.coef[[5, 9], 0].toarray().ravel(), fit.coef, atol=1e-6)


def test_adelie_and_glmnet_solve_the_same_problems():
    # the cross-check: objective within 1e-6 relative at every lambda, with sample weights,
    # random penalty factors (one of them 0) and lambdas above lambda_max
    pytest.importorskip("glmnet")
    X, y, rng = _data(n=300, p=40, seed=3)
    pf = rng.uniform(0.5, 2.0, X.shape[1])
    pf[7] = 0.0
    w = rng.integers(0, 3, X.shape[0]).astype(float)
    lambdas = lambda_grid(X, y, pf, w, n_lambdas=10, min_ratio=0.02)
    lambdas = np.r_[2 * lambdas[0], lambdas]
    a = lasso_path(X, y, pf, w, lambdas, tol=1e-12)
    b = lasso_path(X, y, pf, w, lambdas, backend="glmnet", tol=1e-12)
    for k, lam in enumerate(lambdas):
        fa = objective(X, y, a.coef[:, [k]], a.intercept[k], lam, pf, w)
        fb = objective(X, y, b.coef[:, [k]], b.intercept[k], lam, pf, w)
        assert fa == pytest.approx(fb, rel=1e-6)
        assert a.active(k).tolist() == b.active(k).tolist()


@pytest.mark.parametrize("backend", ["adelie", "glmnet"])
def test_path_stops_early(backend):
    if backend == "glmnet":
        pytest.importorskip("glmnet")
    X, y, _ = _data(n=200, p=30, seed=9)
    lambdas = lambda_grid(X, y, n_lambdas=20, min_ratio=0.01)
    full = lasso_path(X, y, lambdas=lambdas, backend=backend)
    sizes = np.diff(full.coef.indptr)
    # max_active: the first lambda with more than 5 non-zeros is the last one kept
    first = int(np.flatnonzero(sizes > 5)[0])
    capped = lasso_path(X, y, lambdas=lambdas, backend=backend, max_active=5)
    assert len(capped.lambdas) == first + 1 and capped.coef.shape == (30, first + 1)
    seen = []
    stopped = lasso_path(X, y, lambdas=lambdas, backend=backend,
                         callback=lambda k, coef, b0: seen.append(coef.nnz) or k == 3)
    assert len(stopped.lambdas) == 4 and seen == sizes[:4].tolist()


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs CPU affinity and two CPUs")
def test_adelie_leaves_the_process_on_every_cpu():
    # adelie sets OMP_PROC_BIND=TRUE and its OpenMP runtime then pins the importing process to
    # CPU 0, so bootstrap workers (one thread each) shared one core; lasso_path imports it
    # unbound. A fresh interpreter, as a joblib worker is, and the environment without the flag
    code = ("import os; from textsift.lasso import lasso_path; import numpy as np; "
            "lasso_path(np.eye(4), np.arange(4.0), n_lambdas=2); "
            "print(sorted(os.sched_getaffinity(0)))")
    env = {k: v for k, v in os.environ.items() if k != "OMP_PROC_BIND"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == str(sorted(os.sched_getaffinity(0)))


def test_the_vector_of_absent_constraints_solves_the_same_path(monkeypatch):
    """adelie gets its vector of absent constraints built once per width (it built one from
    p Nones at every path, 2% of an IMDb bootstrap): the same object for every path of that
    width, and the same path to the bit as with ``constraints=None``."""
    import textsift.lasso.path as lasso_module

    rng = np.random.default_rng(3)
    X = sp.random(60, 25, density=0.3, random_state=3, format="csc")
    y = X @ rng.normal(size=25) + rng.normal(0, 0.1, 60)
    w = rng.integers(0, 3, 60).astype(float)
    ad = lasso_module._import_adelie()
    assert lasso_module._unconstrained(ad, 25) is lasso_module._unconstrained(ad, 25)
    vector = lasso_path(X, y, None, w, n_lambdas=30)
    monkeypatch.setattr(lasso_module, "_unconstrained", lambda ad, p: None)
    none = lasso_path(X, y, None, w, n_lambdas=30)
    assert vector.coef.shape[1] == none.coef.shape[1] == 30
    assert (vector.coef != none.coef).nnz == 0
    np.testing.assert_array_equal(vector.intercept, none.intercept)


def test_callback_errors_reach_the_caller():
    # adelie runs the callback inside its C++ loop, which would swallow the exception
    X, y, _ = _data()

    def fail(k, coef, intercept):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        lasso_path(X, y, n_lambdas=5, callback=fail)


def test_missing_glmnet_is_a_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "glmnet", None)  # import glmnet -> ImportError
    X, y, _ = _data()
    with pytest.raises(TextsiftError, match=r"pip install 'textsift\[glmnet\]'"):
        check_backend("glmnet")
    with pytest.raises(TextsiftError, match="python-glmnet"):
        lasso_path(X, y, n_lambdas=3, backend="glmnet")
    check_backend("adelie")  # the default needs nothing else


def test_path_bad_input():
    X, y, _ = _data()
    with pytest.raises(ValueError, match="one value per feature"):
        normalise_penalty([1.0, 2.0], 5)
    with pytest.raises(ValueError, match=">= 0"):
        normalise_penalty(-np.ones(3), 3)
    with pytest.raises(ValueError, match="all penalty factors are 0"):
        normalise_penalty(np.zeros(3), 3)
    with pytest.raises(TextsiftError, match="unknown lasso backend"):
        lasso_path(X, y, backend="lars")
    with pytest.raises(ValueError, match="decreasing"):
        lasso_path(X, y, lambdas=[0.1, 0.2])
    with pytest.raises(ValueError, match="constant"):
        lambda_grid(X, np.ones(X.shape[0]))


# ------------------------------------------------------------------------- data-shared
def test_shared_design_reproduces_group_models():
    # Z theta = mu + x'(beta + Delta_g) + group intercepts, row by row (the paper's data-shared
    # model)
    X, _, rng = _data(n=60, p=6, seed=4)
    groups = rng.integers(0, 3, 60)
    w = rng.uniform(0.5, 2, 6)
    r = group_weights(np.bincount(groups), "ws3")
    d = SharedDesign.build(X, groups, w, r)
    assert d.Z.shape == (60, 6 * 4 + 2)
    np.testing.assert_allclose(d.penalty_factor[6:12], r[0] * w)
    assert np.all(d.penalty_factor[-2:] == 0)  # group intercepts unpenalised
    theta = rng.normal(size=d.Z.shape[1])
    beta, deltas, mus = theta[:6], theta[6:24].reshape(3, 6), np.r_[0, theta[24:]]
    expected = np.array([X[i].toarray().ravel() @ (beta + deltas[g]) + mus[g]
                         for i, g in enumerate(groups)])
    np.testing.assert_allclose(d.Z @ theta, expected)
    coef = np.zeros(d.Z.shape[1])
    coef[[0, 6 + 1, 12 + 0]] = (1.0, 2.0, -1.0)  # beta_0; Delta_{0,1}; Delta_{1,0} = -beta_0
    S = d.group_supports(coef)
    assert [list(s) for s in S] == [[0, 1], [], [0]]


def test_single_group_is_plain_adaptive_lasso():
    X, _, _ = _data(n=30, p=5)
    d = SharedDesign.build(X, np.zeros(30, int), np.ones(5), np.ones(1))
    assert d.Z.shape == (30, 5) and (d.Z != X).nnz == 0


# ------------------------------------------------------------------------- OLS + (2.2)
def test_ols_fit_equals_weighted_lstsq():
    X, y, rng = _data(seed=5)
    w = rng.integers(0, 3, X.shape[0]).astype(float)
    cols = [0, 2, 5, 7]
    fit = ols_fit(X, y, cols, w)
    A = np.c_[np.ones(X.shape[0]), X[:, cols].toarray()] * np.sqrt(w)[:, None]
    ref = np.linalg.lstsq(A, y * np.sqrt(w), rcond=None)[0]
    np.testing.assert_allclose(np.r_[fit.intercept, fit.coef], ref, atol=1e-9)


def test_ols_rank_deficient_sets_aliased_coefficient_to_zero():
    # a duplicated column and a constant one are aliased: exactly one of the pair gets 0, the
    # constant column gets 0, and the fitted values equal the minimum-norm lstsq fit
    X, y, _ = _data(seed=6)
    Xd = sp.hstack([X, X[:, [1]], sp.csr_matrix(np.ones((X.shape[0], 1)))], format="csr")
    cols = [0, 1, X.shape[1], X.shape[1] + 1]
    fit = ols_fit(Xd, y, cols)
    assert fit.rank == 2
    assert fit.coef[3] == 0 and np.sum(fit.coef[[1, 2]] == 0) == 1
    A = np.c_[np.ones(X.shape[0]), Xd[:, cols].toarray()]
    ref = A @ np.linalg.lstsq(A, y, rcond=None)[0]
    np.testing.assert_allclose(fit.decision(Xd), ref, atol=1e-9)


def test_nested_ols_along_a_sequence_equals_fresh_least_squares():
    # sets that grow, shrink and change (a lasso path's active sets), with aliased columns
    # (a duplicate, a sum of two columns) and bootstrap weights with zeros, up to more columns
    # than rows of positive weight: the fitted values are those of weighted lstsq each time
    # (on the rows of weight 0 only where the coefficients are unique, i.e. at full rank)
    rng = np.random.default_rng(7)
    n = 90
    X = sp.csc_matrix((rng.random((n, 60)) < 0.2).astype(float))
    X = sp.hstack([X, X[:, [3]], X[:, [1]] + X[:, [2]]], format="csc")
    y = rng.normal(size=n)
    w = rng.integers(0, 3, n).astype(float)
    refit = NestedOLS(X, y, w)
    sqw = np.sqrt(w)[:, None]
    for size in [3, 8, 8, 20, 35, 15, 62, 40, 0, 10]:
        cols = rng.choice(62, size=size, replace=False)
        fit = refit.fit(cols)
        A = np.c_[np.ones(n), X[:, cols].toarray()]
        ref = A @ np.linalg.lstsq(A * sqw, y * sqw.ravel(), rcond=None)[0]
        rank = np.linalg.matrix_rank(A[w > 0] - np.average(A[w > 0], axis=0, weights=w[w > 0]))
        rows = slice(None) if rank == size else w > 0
        np.testing.assert_allclose(fit.decision(X)[rows], ref[rows], atol=1e-9)
        assert fit.rank == rank


@settings(max_examples=60, deadline=None)
@given(st.floats(-20, 20), st.floats(0.01, 10), st.floats(-5, 5), st.floats(0.1, 5))
@example(0.6009177011829401, 0.1729541602372934, -1.7588507337344605, 4.2719695771682655)
@example(-0.9888144750769321, 0.02135055560422989, -1.8786354326443258, 4.315834453313482)
def test_classifier_22_is_the_midpoint_rule(mean, sigma, a, gap):
    # P(y>=b) >= P(y<=a) under N(mean, sigma^2)  <=>  mean >= (a+b)/2 (the paper's classifier
    # (2.2); the identity: Phi is symmetric and increasing).
    # Compared on the log scale: far in the tails both probabilities underflow to 0 (1 - cdf
    # already at z = 9, sf and cdf past z = 38), and 0 >= 0 would contradict the rule.
    b = a + gap
    probit = norm.logsf((b - mean) / sigma) >= norm.logcdf((a - mean) / sigma)
    if abs(mean - (a + b) / 2) > 1e-9:
        assert bool(predict_class([mean], a, b)[0]) == probit


def test_classifier_bad_input():
    with pytest.raises(ValueError, match="a < b"):
        predict_class([1.0], 7, 4)
    with pytest.raises(ValueError, match="empty test set"):
        misclassification([], [])
    assert misclassification([1, 0, 1, 1], [1, 1, 1, 0]) == 0.5


# ------------------------------------------------------------------------- polarity
def test_adaptive_weights_and_bad_polarity():
    np.testing.assert_allclose(adaptive_weights([0.5, -0.25, 0.0]), [1 / 0.50001, 1 / 0.25001,
                                                                      1e5])
    with pytest.raises(ValueError, match="every polarity is 0"):
        adaptive_weights(np.zeros(4))
    with pytest.raises(ValueError, match="covers 0 of the 3"):
        polarity_from_lexicon(["a", "b", "c"], {"zzz": 1.0})
    with pytest.raises(ValueError, match="unknown polarity source"):
        load_polarity("nope", ["a"])


def test_polarity_from_file(tmp_path):
    f = tmp_path / "lex.csv"
    f.write_text("word,polarity\ngood,0.8\nbad,-0.6\n")
    np.testing.assert_allclose(load_polarity(str(f), ["good", "film", "bad"]), [0.8, 0, -0.6])
    assert np.all(load_polarity("uniform", ["x", "y"]) == 1)


def test_packaged_lexicons_cover_sentiment_words():
    pytest.importorskip("vaderSentiment")
    pytest.importorskip("afinn")
    vader = load_polarity("vader", ["great", "awful", "table"])
    afinn = load_polarity("afinn", ["great", "awful", "table"])
    assert vader[0] > 0 > vader[1] and vader[2] == 0  # VADER: great 3.1/4, awful -2.0/4
    assert afinn.tolist() == [3 / 5, -3 / 5, 0.0]  # AFINN-165: great +3, awful -3


@pytest.mark.real_data
def test_imdb_expected_rating_transform(real_data, monkeypatch):
    monkeypatch.setenv("TEXTSIFT_DATA", str(real_data))
    pol = load_polarity("imdb", ["the", "and", "notaword_xyz"])
    # imdbEr: the 0.0490972013402, and 0.201363575849; divided by 4.5 (module docstring)
    np.testing.assert_allclose(pol, [0.0490972013402 / 4.5, 0.201363575849 / 4.5, 0.0])


def test_missing_lexicon_package_is_a_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "afinn", None)
    with pytest.raises(TextsiftError, match=r"needs the afinn package: pip install"):
        load_polarity("afinn", ["good"])
