"""PCA + Fisher LDA, the AdaBag paper's baseline (its Table 2), on sparse input."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from textsift.errors import TextsiftError
from textsift.lasso import simulate, split_211
from textsift.learners.baselines import fisher_lda, pca_lda, pca_lda_holdout, standardise


@pytest.fixture(scope="module")
def parts():
    sim = simulate(2)
    theta = (sim.y >= sim.b).astype(int)
    part = split_211(theta, np.zeros(len(theta), int), 2)
    return sim.X[part < 2], theta[part < 2], sim.X[part == 2], theta[part == 2]


def test_standardise_drops_constant_columns_and_stays_sparse():
    X = sp.csr_matrix(np.array([[1, 0, 1], [0, 0, 1], [1, 0, 1], [1, 0, 1.0]]))
    Xs, keep = standardise(X)
    assert sp.issparse(Xs) and keep.tolist() == [0]
    assert Xs.toarray().ravel().std(ddof=1) == pytest.approx(1.0)


def test_fisher_direction_equals_sklearn_lda(parts):
    # with two classes LDA's coef_ is S_w^-1 (m1 - m0) up to a positive factor
    Xtr, ttr, _, _ = parts
    V = Xtr[:, :10].toarray()
    b, _ = fisher_lda(V, ttr)
    ref = LinearDiscriminantAnalysis(solver="lsqr").fit(V, ttr).coef_.ravel()
    np.testing.assert_allclose(b / np.linalg.norm(b), ref / np.linalg.norm(ref), atol=1e-8)


def test_variance_ordering_counts_components_like_dense_pca(parts):
    Xtr, ttr, Xte, tte = parts
    table = pca_lda(Xtr, ttr, Xte, tte)
    Xs = standardise(Xtr)[0].toarray()  # 300 x 77: fine to densify in a test
    cum = np.cumsum(PCA().fit(Xs).explained_variance_ratio_)
    got = table[table.ordering == "variance"].set_index("level")["n_components"]
    for level in (0.20, 0.25, 0.30):
        assert got[level] == np.searchsorted(cum, level) + 1
    assert table["exact_spectrum"].all() and table["test_error"].between(0, 1).all()
    ent = table[table.ordering == "entropy"].set_index("level")["n_components"]
    assert np.all(np.diff(ent.to_numpy()) >= 0)  # nested prefixes


def test_arpack_path_agrees_with_the_exact_spectrum(parts):
    # the sparse (ARPACK) route on the centred operator finds the same variance prefix
    Xtr, ttr, Xte, tte = parts
    exact = pca_lda(Xtr, ttr, Xte, tte)
    sparse = pca_lda(Xtr, ttr, Xte, tte, dense_limit=0, max_components=40)
    a = exact[exact.ordering == "variance"].reset_index()
    b = sparse[sparse.ordering == "variance"].reset_index()
    assert a["n_components"].tolist() == b["n_components"].tolist()
    np.testing.assert_allclose(a["test_error"], b["test_error"])
    assert not sparse["exact_spectrum"].any()


def test_unreached_level_is_nan_and_bad_input(parts):
    Xtr, ttr, Xte, tte = parts
    t = pca_lda(Xtr, ttr, Xte, tte, dense_limit=0, max_components=3)
    assert t[t.level == 0.30]["n_components"].isna().all()
    with pytest.raises(ValueError, match="every column is constant"):
        standardise(sp.csr_matrix(np.ones((5, 3))))
    with pytest.raises(ValueError, match="both classes"):
        fisher_lda(np.ones((4, 2)), np.zeros(4))


def test_max_components_is_honoured(parts):
    # the dense route (p = 77 <= dense_limit) used to compute and use every component
    Xtr, ttr, Xte, tte = parts
    full = pca_lda(Xtr, ttr, Xte, tte)
    capped = pca_lda(Xtr, ttr, Xte, tte, max_components=10)
    assert full["exact_spectrum"].all() and not capped["exact_spectrum"].any()
    assert (capped["n_components"].dropna() <= 10).all()
    # the 20% level needs 8 variance-ordered components (measured), within the cap: the same
    # prefix and error as with the whole spectrum; 30% needs more than 10, so NaN
    v_full = full[full.ordering == "variance"].set_index("level")
    v_cap = capped[capped.ordering == "variance"].set_index("level")
    assert v_full.loc[0.20, "n_components"] == v_cap.loc[0.20, "n_components"] <= 10
    assert v_cap.loc[0.20, "test_error"] == v_full.loc[0.20, "test_error"]
    assert np.isnan(v_cap.loc[0.30, "n_components"]) and v_full.loc[0.30, "n_components"] > 10
    for bad in (0, -3, 2.5):
        with pytest.raises(TextsiftError, match="max_components must be an integer >= 1"):
            pca_lda(Xtr, ttr, Xte, tte, max_components=bad)


def test_holdout_runs_pooled_and_per_group():
    sim = simulate(3)
    groups = np.where(np.arange(400) % 2 == 0, "even", "odd")
    table = pca_lda_holdout(sim.X, sim.y, sim.a, sim.b, groups, seed=3, max_components=20)
    assert table["group"].unique().tolist() == ["pooled", "even", "odd"]
    # 2:1:1 within each class x group cell: 400 rows -> 300 training, 100 test; each group
    # has 100 rows per class -> 50 + 25 training and 25 test per class
    sizes = table.groupby("group")[["n_train", "n_test"]].first()
    assert sizes.loc["pooled"].tolist() == [300, 100]
    assert sizes.loc["even"].tolist() == [150, 50] == sizes.loc["odd"].tolist()
    with pytest.raises(TextsiftError, match="a=-100 .--low. is below every rating found"):
        pca_lda_holdout(sim.X, sim.y, -100, sim.b)
