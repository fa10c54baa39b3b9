"""AdaBag (the AdaBag paper's algorithm and simulation design): split, simulation generator,
bootstraps that resume, bagging frequencies, cutoffs, the paper's 2:1:1 protocol, stability
selection and the CLI. The scikit-learn estimator itself: tests/test_adabag_estimator.py."""

import json
import os
import time

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from typer.testing import CliRunner

from textsift.cli import app
from textsift.errors import TextsiftError
from textsift.lasso import (
    AdaBagClassifier,
    BootstrapStore,
    bagging_frequencies,
    choose_cutoff,
    holdout_run,
    loess,
    simulate,
    simulation_polarity,
    split_211,
    split_cells,
    stability_selection,
    stratified_bootstrap,
)
from textsift.lasso.bagging import run_bootstraps, start_workers, stop_workers

B = 8


@pytest.fixture(scope="module")
def sim():
    return simulate(0)


def _model(sim, **params):
    """The paper's setting: every path over the whole grid (patience=None)."""
    return AdaBagClassifier(a=sim.a, b=sim.b, n_bootstraps=B, polarity=sim.polarity,
                            random_state=0, **{"patience": None, **params})


@pytest.fixture(scope="module")
def fitted(sim, tmp_path_factory):
    store = tmp_path_factory.mktemp("boot")
    return holdout_run(_model(sim, store=store), sim.X, sim.y), store


def test_split_is_2_1_1_per_class_and_group():
    theta = np.r_[np.zeros(40), np.ones(20), np.ones(9)].astype(int)
    groups = np.r_[np.zeros(20), np.ones(20), np.zeros(20), np.ones(9)].astype(int)
    part = split_211(theta, groups, seed=3)
    for g, c, n in ((0, 0, 20), (1, 0, 20), (0, 1, 20), (1, 1, 9)):
        cell = part[(groups == g) & (theta == c)]
        n_core, n_val = round(n / 2), round(n / 4)
        assert np.bincount(cell, minlength=3).tolist() == [n_core, n_val, n - n_core - n_val]
    assert np.array_equal(part, split_211(theta, groups, seed=3))
    # the estimator's 2:1 split: round(2n/3) core, the rest validation
    part = split_cells(theta, groups, (2, 1), seed=3)
    assert np.bincount(part[(groups == 1) & (theta == 1)]).tolist() == [6, 3]


def test_split_rejects_a_too_small_group():
    theta = np.r_[np.zeros(10), np.ones(10), 0, 1, 1, 1, 1].astype(int)
    groups = np.r_[np.zeros(20), np.ones(5)].astype(int)
    with pytest.raises(TextsiftError, match="group '1', class 0: 1 documents.*merge small"):
        split_211(theta, groups)
    with pytest.raises(TextsiftError, match="^class 0: 1 documents.*move the thresholds"):
        split_211(theta[-5:], groups[-5:], grouped=False)  # no groups given: no group advice


def test_simulation_generator_follows_the_papers_design(sim):
    assert sim.X.shape == (400, 77) and sp.issparse(sim.X)  # 2 x 200 rows, 77 features
    theta = sim.y >= sim.b
    assert theta.sum() == 200 and np.all((sim.y >= sim.b) | (sim.y <= sim.a))
    assert sim.b - sim.a == pytest.approx(2 * np.sqrt(0.3))
    pol = simulation_polarity("assigned")
    # our padding of the paper's two short polarity blocks (textsift.lasso.simulate): feature
    # 21 = 0.20, 22-25 = 0.2, feature j in 26..75 = 1/(j-1)
    assert len(pol) == 77 and pol[20] == 0.2 and pol[25] == 1 / 25 and pol[74] == 1 / 74
    assert pol[:8].tolist() == [-1, 1, -1, 1, 0.5, -0.5, -0.25, -0.125]
    assert np.all(simulation_polarity("equal") == 1)
    # column frequencies as specified (columns without signal are unaffected by the band)
    big = simulate(1, n=20000, per_class=None)
    np.testing.assert_allclose(np.asarray(big.X.mean(axis=0)).ravel()[[8, 64, 65, 74]],
                               [0.2, 0.2, 0.03, 0.03], atol=0.01)


def test_adabag_on_the_simulation_finds_the_strong_features(fitted):
    run, _ = fitted
    model = run.model
    # features 1-4 (|beta| = 1) are in every bootstrap's selection (measured: 8 of 8, and the
    # same frequencies 8 8 8 8 7 8 6 0 4 6 for features 1-10 as the skglm and glmnet backends
    # gave on this split, whole paths); the paper's A_100 = {1..6}
    assert model.frequencies_[:10].tolist() == [8, 8, 8, 8, 7, 8, 6, 0, 4, 6]
    assert model.frequencies_.max() <= B and model.cutoffs_.tolist() == list(range(1, B + 1))
    assert np.all(np.diff(model.sizes_) <= 0)  # A_1 ⊇ A_2 ⊇ ... nested
    assert set(range(4)) <= set(np.flatnonzero(model.support_))
    assert run.test_error <= 0.25  # paper: 10%
    assert model.validation_error_ == model.validation_errors_[model.cutoff_ - 1]
    best = np.flatnonzero(model.validation_errors_ == model.validation_errors_.min())
    assert model.cutoff_ == best[-1] + 1  # ties go to the larger cutoff
    # the test curve is that of the refitted models: it passes through the reported error
    assert run.test_errors[model.cutoff_ - 1] == pytest.approx(run.test_error)
    assert np.bincount(run.part).tolist() == [200, 100, 100]


@pytest.mark.slow
def test_simulation_test_error_is_the_papers():
    # the AdaBag paper reports 10-13% test error on its simulation design. With
    # the defaults (assigned polarities, patience 10) and B = 20, seeds 0-3 give 11, 13, 11 and
    # 11% (B = 100: docs/reproductions.md section 4)
    errors = []
    for seed in range(4):
        s = simulate(seed)
        model = AdaBagClassifier(a=s.a, b=s.b, n_bootstraps=20, polarity=s.polarity,
                                 random_state=seed)
        errors.append(holdout_run(model, s.X, s.y).test_error)
    assert 0.10 <= np.mean(errors) <= 0.13 and max(errors) <= 0.15


def test_one_standard_error_cutoff_is_the_largest_within_one_se(sim, fitted):
    run, store = fitted
    again = holdout_run(_model(sim, store=store, cutoff_selection="1se"), sim.X, sim.y)
    errors = run.model.validation_errors_
    me, n_val = errors.min(), np.sum(run.part == 1)
    within = np.flatnonzero(errors <= me + np.sqrt(me * (1 - me) / n_val))
    assert again.model.cutoff_ == within[-1] + 1 >= run.model.cutoff_
    assert choose_cutoff([1, 2, 3], [0.2, 0.1, 0.12], 100, "1se") == 3  # 0.12 <= 0.1 + 0.03


def test_one_standard_error_lambda_gives_sparser_bootstrap_models(sim, fitted):
    run, _ = fitted
    sparse = holdout_run(_model(sim, lambda_selection="1se"), sim.X, sim.y)
    for a, b in zip(run.model.bootstraps_, sparse.model.bootstraps_, strict=True):
        np.testing.assert_array_equal(a["errors"], b["errors"])  # same paths and errors
        me, n_val = a["errors"].min(), np.sum(run.part == 1)
        first = np.flatnonzero(a["errors"] <= me + np.sqrt(me * (1 - me) / n_val))[0]
        assert b["k"] == first <= a["k"] and len(b["selected"]) <= len(a["selected"])


def test_adabag_resumes_from_the_store_and_is_reproducible(sim, fitted):
    run, store = fitted
    (store / "0003.npz").unlink()
    (store / "0005.npz").unlink()
    again = holdout_run(_model(sim, store=store), sim.X, sim.y)
    assert (store / "0003.npz").exists()
    np.testing.assert_array_equal(again.model.frequencies_, run.model.frequencies_)
    # the seed, not the data it splits differently (it said "differs in data: ...; seed")
    with pytest.raises(TextsiftError, match=r"another run: the seed differs \(0 -> 1; it draws "
                       r"the split into parts and the bootstraps\); run with that run's "):
        holdout_run(_model(sim, store=store).set_params(random_state=1), sim.X, sim.y)


def test_patience_stops_paths_after_their_minimum(sim, fitted):
    run, _ = fitted
    early = holdout_run(_model(sim, patience=30), sim.X, sim.y)
    n_val = np.sum(run.part == 1)
    for full, cut in zip(run.model.bootstraps_, early.model.bootstraps_, strict=True):
        # the path ran until the error had stayed above its minimum for 30 lambdas and was
        # then more than one standard error above it; the errors are those of the full path
        errors, k = cut["errors"], cut["k"]
        np.testing.assert_array_equal(errors, full["errors"][:len(errors)])
        stop = len(errors) - 1
        bound = errors[k] + np.sqrt(errors[k] * (1 - errors[k]) / n_val)
        if stop < len(full["errors"]) - 1:
            assert stop - k >= 30 and errors[stop] > bound
            assert not np.any(errors[k + 30:stop] > bound)
        assert k == full["k"] or full["errors"][full["k"]] < errors[k]


def test_bootstraps_do_not_depend_on_n_jobs():
    strata = np.r_[np.zeros(30), np.ones(20)].astype(int)
    task = _Sum()
    calls = []
    one = run_bootstraps(task, 4, strata, seed=5, n_jobs=1,
                         progress=lambda done, total: calls.append((done, total)))
    two = run_bootstraps(task, 4, strata, seed=5, n_jobs=2)
    assert [r["total"] for r in one] == [r["total"] for r in two] == [50] * 4
    assert [r["selected"].tolist() for r in one] == [r["selected"].tolist() for r in two]
    assert calls == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]  # progress, drawn by the caller


class _Sum:
    def __call__(self, m):
        return {"selected": np.flatnonzero(m[:10]), "total": int(m.sum())}


def test_stratified_bootstrap_keeps_stratum_sizes():
    strata = np.r_[np.zeros(7), np.ones(13), 2 * np.ones(5)].astype(int)
    m = stratified_bootstrap(strata, np.random.default_rng(0))
    assert [m[strata == s].sum() for s in range(3)] == [7, 13, 5]
    assert bagging_frequencies([[0, 2, 2], [2], []], 4).tolist() == [1, 0, 2, 0]


def test_loess_reproduces_a_quadratic():
    # a local quadratic fit is exact on a quadratic, whatever the weights
    x = np.arange(1, 41, dtype=float)
    np.testing.assert_allclose(loess(x, 0.5 * x**2 - 3 * x + 2), 0.5 * x**2 - 3 * x + 2,
                               atol=1e-8)


def test_stability_selection_of_a_filter_score():
    from textsift.reading.corpus import load_sample
    from textsift.selection.selectors import TermSelector
    from textsift.text.vectorize import vectorize

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


def test_store_rejects_another_configuration(tmp_path):
    BootstrapStore(tmp_path, {"seed": 0})
    with pytest.raises(TextsiftError, match=r"the seed differs \(0 -> 1"):
        BootstrapStore(tmp_path, {"seed": 1})
    BootstrapStore(tmp_path / "d", {"seed": 0, "data": "a", "scheme": "ws3"})
    with pytest.raises(TextsiftError, match=r"another run: the data differ \(another corpus, "
                       r"label field, class thresholds or polarity\); scheme: 'ws3' -> 'ws1'; "):
        BootstrapStore(tmp_path / "d", {"seed": 0, "data": "b", "scheme": "ws1"})


# ------------------------------------------------------------------------- CLI
def test_cli_simulate_writes_summary_and_bfd(tmp_path):
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["adabag", "--simulate", "--bootstraps", "4", "--out",
                                   str(out)])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    for key in ("test_error", "validation_error", "model_size", "cutoff", "selected_terms"):
        assert key in summary
    assert summary["model_size"] == len(summary["selected_terms"])
    assert summary["split_sizes"] == {"core": 200, "validation": 100, "test": 100}
    bfd = pd.read_csv(out / "bfd.csv")
    assert list(bfd.columns) == ["term", "frequency"] and bfd["frequency"].is_monotonic_decreasing
    cut = pd.read_csv(out / "cutoffs.csv")
    assert cut.loc[summary["cutoff"] - 1, "test_error"] == pytest.approx(summary["test_error"])
    assert (out / "cutoff.png").stat().st_size > 0 and (out / "bfd.png").exists()
    res = CliRunner().invoke(app, ["pca-lda", "--simulate", "--out", str(tmp_path / "pca")])
    assert res.exit_code == 0, res.output
    pca = json.loads((tmp_path / "pca" / "summary.json").read_text())
    assert {(r["level"], r["ordering"]) for r in pca["results"]} == {
        (lv, o) for lv in (0.2, 0.25, 0.3) for o in ("variance", "entropy")}


def _corpus(tmp_path, rows):
    f = tmp_path / "c.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in rows))
    return str(f)


def _fails_cleanly(args, out, message):
    """Exit code 2, one 'error:' line with ``message``, and --out as it was."""
    before = sorted(p.name for p in out.iterdir()) if out.is_dir() else out.exists()
    res = CliRunner().invoke(app, [*args, "--out", str(out)])
    text = " ".join(res.output.split())
    assert res.exit_code == 2 and message in text, res.output
    assert "Traceback" not in res.output
    assert (sorted(p.name for p in out.iterdir()) if out.is_dir() else out.exists()) == before


def test_cli_bad_input(tmp_path):
    rows = [{"text": f"good film {i}", "label": "pos", "rating": 1 + i % 5, "dom": "a"}
            for i in range(40)]
    f = _corpus(tmp_path, rows)
    out = tmp_path / "o"
    _fails_cleanly(["adabag", f, "--label-field", "label"], out, "not a number; ranks are numbers")
    # 1-5 stars with IMDb's --low 4 --high 7: no high class; the ratings present are named,
    # and no word of groups
    _fails_cleanly(["adabag", f, "--label-field", "rating", "--low", "4", "--high", "7",
                    "--min-df", "1"], out, "b=7 (--high) is above every rating found, so the "
                   "high class has no rows; ratings present: 1, 2, 3, 4, 5. Choose a and b "
                   "(--low, --high) among them (for this scale textsift adabag uses a=2, b=4)")
    _fails_cleanly(["pca-lda", f, "--label-field", "rating", "--low", "0", "--min-df", "1"],
                   out, "a=0 (--low) is below every rating found")
    res = CliRunner().invoke(app, ["adabag", f, "--label-field", "rating", "--min-df", "1",
                                   "--high", "9", "--out", str(out)])
    assert "group" not in res.output
    small = tmp_path / "small"
    small.mkdir()
    _fails_cleanly(["adabag", _corpus(small, rows[:8]), "--label-field", "rating", "--polarity",
                    "uniform", "--min-df", "1", "--low", "2", "--high", "4"], out,
                   "class 1: 2 documents; the 2:1:1 split needs at least 4 of each class")
    _fails_cleanly(["adabag", f, "--label-field", "rating", "--low", "2", "--high", "4",
                    "--group-field", "nope"], out, "--group-field: no field 'nope'")
    out.mkdir()
    (out / "keep.txt").write_text("mine")  # an existing folder is left as it was
    _fails_cleanly(["adabag", "--simulate", "--scheme", "ws9"], out,
                   "Invalid value for '--scheme': Value error, 'ws9' is not one of 'ws1'")
    _fails_cleanly(["adabag", "--simulate", "--backend", "lars"], out,
                   "Invalid value for '--backend'")
    file = tmp_path / "a_file"
    file.write_text("x")
    _fails_cleanly(["adabag", "--simulate"], file, "is a file, not a directory")
    _fails_cleanly(["pca-lda", "--simulate"], file, "is a file, not a directory")
    for bad in ("0", "-3"):
        _fails_cleanly(["pca-lda", "--simulate", "--max-components", bad], tmp_path / "p",
                       "--max-components must be >= 1")


def test_cli_missing_glmnet_writes_nothing(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "glmnet", None)  # as if python-glmnet were not installed
    out = tmp_path / "run"
    _fails_cleanly(["adabag", "--simulate", "--backend", "glmnet"], out,
                   "pip install 'textsift[glmnet]'")
    # and the same folder then runs with the default backend (nothing blocks it)
    res = CliRunner().invoke(app, ["adabag", "--simulate", "-B", "2", "--out", str(out)])
    assert res.exit_code == 0, res.output


class _Pid:
    def __call__(self, m):
        return {"selected": np.array([os.getpid()])}


def test_started_workers_run_the_bootstraps_and_stop_at_once():
    """start_workers starts the pool that run_bootstraps then uses (joblib reuses it: the
    command line's workers import adelie while it reads the corpus), one warmed worker per
    job; stop_workers ends them (a command that fails while reading does not wait for
    them). One job starts nothing."""
    assert start_workers(1)() == []
    warm = start_workers(2)()
    assert len(set(warm)) == 2
    ran = run_bootstraps(_Pid(), 8, np.zeros(10, int), n_jobs=2)
    assert {int(r["selected"][0]) for r in ran} <= set(warm)
    stop_workers()
    deadline = time.monotonic() + 30
    while any(os.path.exists(f"/proc/{pid}") and _alive(pid) for pid in warm):
        assert time.monotonic() < deadline, "the started workers did not end"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"
