"""AdaBag (METHODS.md §D.4, D.6): split, simulation generator, bootstraps that resume, bagging
frequencies, cutoffs, stability selection and the CLI."""

import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from typer.testing import CliRunner

from textsift.cli import app
from textsift.lasso import (
    AdaBag,
    BootstrapStore,
    bagging_frequencies,
    loess,
    simulate,
    simulation_polarity,
    split_211,
    stability_selection,
    stratified_bootstrap,
)
from textsift.lasso.bagging import run_bootstraps

B = 8


@pytest.fixture(scope="module")
def sim():
    return simulate(0)


@pytest.fixture(scope="module")
def fitted(sim, tmp_path_factory):
    store = tmp_path_factory.mktemp("boot")
    model = AdaBag(a=sim.a, b=sim.b, n_bootstraps=B, seed=0, store=store)
    return model.fit(sim.X, sim.y, sim.polarity), store


def test_split_is_2_1_1_per_class_and_group():
    theta = np.r_[np.zeros(40), np.ones(20), np.ones(9)].astype(int)
    groups = np.r_[np.zeros(20), np.ones(20), np.zeros(20), np.ones(9)].astype(int)
    part = split_211(theta, groups, seed=3)
    for g, c, n in ((0, 0, 20), (1, 0, 20), (0, 1, 20), (1, 1, 9)):
        cell = part[(groups == g) & (theta == c)]
        n_core, n_val = round(n / 2), round(n / 4)
        assert np.bincount(cell, minlength=3).tolist() == [n_core, n_val, n - n_core - n_val]
    assert np.array_equal(part, split_211(theta, groups, seed=3))


def test_split_rejects_a_too_small_group():
    theta = np.r_[np.zeros(10), np.ones(10), 0, 1, 1, 1, 1].astype(int)
    groups = np.r_[np.zeros(20), np.ones(5)].astype(int)
    with pytest.raises(ValueError, match="group '1', class 0: 1 documents"):
        split_211(theta, groups)


def test_simulation_generator_follows_the_spec(sim):
    assert sim.X.shape == (400, 77) and sp.issparse(sim.X)  # 2 x 200 rows, 77 features
    theta = sim.y >= sim.b
    assert theta.sum() == 200 and np.all((sim.y >= sim.b) | (sim.y <= sim.a))
    assert sim.b - sim.a == pytest.approx(2 * np.sqrt(0.3))
    pol = simulation_polarity("assigned")
    # the spec's padding: feature 21 = 0.20, 22-25 = 0.2, feature j in 26..75 = 1/(j-1)
    assert len(pol) == 77 and pol[20] == 0.2 and pol[25] == 1 / 25 and pol[74] == 1 / 74
    assert pol[:8].tolist() == [-1, 1, -1, 1, 0.5, -0.5, -0.25, -0.125]
    assert np.all(simulation_polarity("equal") == 1)
    # column frequencies as specified (columns without signal are unaffected by the band)
    big = simulate(1, n=20000, per_class=None)
    np.testing.assert_allclose(np.asarray(big.X.mean(axis=0)).ravel()[[8, 64, 65, 74]],
                               [0.2, 0.2, 0.03, 0.03], atol=0.01)


def test_adabag_on_the_simulation_finds_the_strong_features(fitted):
    model, _ = fitted
    # features 1-4 (|beta| = 1) are in every bootstrap's selection (measured: 8 of 8); the
    # paper's A_100 = {1..6}
    assert np.all(model.frequencies_[:4] == B)
    assert model.frequencies_.max() <= B and model.cutoffs_.tolist() == list(range(1, B + 1))
    assert np.all(np.diff(model.sizes_) <= 0)  # A_1 ⊇ A_2 ⊇ ... nested
    assert set(range(4)) <= set(model.selected_)
    assert model.test_error_ <= 0.25  # paper: 10%; measured at B=8, seed 0: see below
    assert model.validation_error_ == model.validation_errors_[model.cutoff_ - 1]
    best = np.flatnonzero(model.validation_errors_ == model.validation_errors_.min())
    assert model.cutoff_ == best[-1] + 1  # ties go to the larger cutoff


def test_one_standard_error_cutoff_is_the_largest_within_one_se(sim, fitted):
    model, store = fitted
    again = AdaBag(a=sim.a, b=sim.b, n_bootstraps=B, seed=0, store=store,
                   cutoff_selection="1se").fit(sim.X, sim.y, sim.polarity)
    me, n_val = model.validation_errors_.min(), np.sum(model.part_ == 1)
    within = np.flatnonzero(model.validation_errors_ <= me + np.sqrt(me * (1 - me) / n_val))
    assert again.cutoff_ == within[-1] + 1 >= model.cutoff_


def test_one_standard_error_lambda_gives_sparser_bootstrap_models(sim, fitted):
    model, _ = fitted
    sparse = AdaBag(a=sim.a, b=sim.b, n_bootstraps=B, seed=0,
                    lambda_selection="1se").fit(sim.X, sim.y, sim.polarity)
    for a, b in zip(model.bootstraps_, sparse.bootstraps_, strict=True):
        np.testing.assert_array_equal(a["errors"], b["errors"])  # same paths and errors
        me, n_val = a["errors"].min(), np.sum(model.part_ == 1)
        first = np.flatnonzero(a["errors"] <= me + np.sqrt(me * (1 - me) / n_val))[0]
        assert b["k"] == first <= a["k"] and len(b["selected"]) <= len(a["selected"])


def test_adabag_resumes_from_the_store_and_is_reproducible(sim, fitted):
    model, store = fitted
    (store / "0003.npz").unlink()
    (store / "0005.npz").unlink()
    again = AdaBag(a=sim.a, b=sim.b, n_bootstraps=B, seed=0, store=store)
    again.fit(sim.X, sim.y, sim.polarity)
    assert (store / "0003.npz").exists()
    np.testing.assert_array_equal(again.frequencies_, model.frequencies_)
    with pytest.raises(ValueError, match="differs in seed"):
        AdaBag(a=sim.a, b=sim.b, n_bootstraps=B, seed=1, store=store).fit(sim.X, sim.y,
                                                                           sim.polarity)


def test_bootstraps_do_not_depend_on_n_jobs():
    strata = np.r_[np.zeros(30), np.ones(20)].astype(int)
    task = _Sum()
    one = run_bootstraps(task, 4, strata, seed=5, n_jobs=1, progress=False)
    two = run_bootstraps(task, 4, strata, seed=5, n_jobs=2, progress=False)
    assert [r["total"] for r in one] == [r["total"] for r in two] == [50] * 4
    assert [r["selected"].tolist() for r in one] == [r["selected"].tolist() for r in two]


class _Sum:
    def __call__(self, m):
        return {"selected": np.flatnonzero(m[:10]), "total": int(m.sum())}


def test_stratified_bootstrap_keeps_stratum_sizes():
    strata = np.r_[np.zeros(7), np.ones(13), 2 * np.ones(5)].astype(int)
    m = stratified_bootstrap(strata, np.random.default_rng(0))
    assert [m[strata == s].sum() for s in range(3)] == [7, 13, 5]
    assert bagging_frequencies([[0, 2, 2], [2], []], 4).tolist() == [1, 0, 2, 0]


def test_adabag_bad_input(sim):
    with pytest.raises(ValueError, match="must be numeric"):
        AdaBag().fit(sim.X, np.array(["pos"] * 400), sim.polarity)
    with pytest.raises(ValueError, match="a < b"):
        AdaBag(a=7, b=4).fit(sim.X, sim.y, sim.polarity)
    with pytest.raises(ValueError, match="every polarity is 0"):
        AdaBag(a=sim.a, b=sim.b).fit(sim.X, sim.y, np.zeros(77))
    with pytest.raises(ValueError, match="cutoff_selection"):
        AdaBag(cutoff_selection="smooth").fit(sim.X, sim.y, sim.polarity)


def test_loess_reproduces_a_quadratic():
    # a local quadratic fit is exact on a quadratic, whatever the weights
    x = np.arange(1, 41, dtype=float)
    np.testing.assert_allclose(loess(x, 0.5 * x**2 - 3 * x + 2), 0.5 * x**2 - 3 * x + 2,
                               atol=1e-8)


def test_stability_selection_of_a_filter_score():
    from textsift.corpus import load_sample
    from textsift.selectors import TermSelector
    from textsift.vectorize import vectorize

    corpus = load_sample("20ng", "train")
    keep = np.isin(corpus.labels, ["rec.autos", "sci.space"])
    X, names, _ = vectorize(np.asarray(corpus.texts, dtype=object)[keep], min_df=3)
    y = corpus.labels[keep]
    f = stability_selection(TermSelector("chi2", k=10), X, y, B=6, seed=0)
    full = TermSelector("chi2", k=10).fit(X, y).selected_
    assert f.sum() == 6 * 10 and f.max() == 6
    # the four top chi2 terms of the full data are chosen in every bootstrap (measured: 6 of 6;
    # the rest of the top 10 between 0 and 4 of 6)
    assert f[full[:4]].tolist() == [6, 6, 6, 6]
    np.testing.assert_array_equal(f, stability_selection(TermSelector("chi2", k=10), X, y,
                                                         B=6, seed=0))


def test_cli_simulate_writes_summary_and_bfd(tmp_path):
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["adabag", "--simulate", "--bootstraps", "4", "--out",
                                   str(out)])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    for key in ("test_error", "validation_error", "model_size", "cutoff", "selected_terms"):
        assert key in summary
    assert summary["model_size"] == len(summary["selected_terms"])
    bfd = pd.read_csv(out / "bfd.csv")
    assert list(bfd.columns) == ["term", "frequency"] and bfd["frequency"].is_monotonic_decreasing
    assert (out / "cutoff.png").stat().st_size > 0 and (out / "bfd.png").exists()
    res = CliRunner().invoke(app, ["pca-lda", "--simulate", "--out", str(tmp_path / "pca")])
    assert res.exit_code == 0, res.output
    pca = json.loads((tmp_path / "pca" / "summary.json").read_text())
    assert {(r["level"], r["ordering"]) for r in pca["results"]} == {
        (lv, o) for lv in (0.2, 0.25, 0.3) for o in ("variance", "entropy")}


def test_cli_bad_input(tmp_path):
    f = tmp_path / "c.jsonl"
    f.write_text("\n".join(json.dumps({"text": f"good film {i}", "label": "pos", "rating": 8,
                                       "dom": "a"}) for i in range(10)))
    res = CliRunner().invoke(app, ["adabag", str(f), "--label-field", "label", "--out",
                                   str(tmp_path / "o")])
    assert res.exit_code == 2 and "must be numeric" in " ".join(res.output.split())
    res = CliRunner().invoke(app, ["adabag", str(f), "--label-field", "rating", "--polarity",
                                   "uniform", "--min-df", "1", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "needs at least 4 of each class" in " ".join(res.output.split())


def test_store_rejects_another_configuration(tmp_path):
    BootstrapStore(tmp_path, {"seed": 0})
    with pytest.raises(ValueError, match="differs in seed"):
        BootstrapStore(tmp_path, {"seed": 1})
