"""Levels, baselines and tuning in the harness: "all" means every term of each fold, ratios
of each fold's vocabulary, the FFS and Triv rows, parameters chosen on a validation part, and
a user's own scoring function."""

from __future__ import annotations

import gzip
import shutil

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import Pipeline

from textsift.experiment import load_config, parse_config, run_experiment
from textsift.experiment.folds import load_fold
from textsift.learners import RankSVR
from textsift.learners.metrics import mae_macro, mae_macro_scorer
from textsift.reading.corpus import sample_path
from textsift.selection.selectors import TermSelector

CV = {"experiment": {"name": "cv-all", "seed": 0},
      "corpus": {"sample": "20ng", "dataset": "ng"},
      "evaluation": {"protocol": "cv", "folds": 3, "metrics": ["accuracy"]},
      "preprocessing": {"min_df": 2, "stop_words": "english"},
      "selection": {"methods": ["chi2", "dia", "ig"], "sizes": [50, "all"]},
      "learners": [{"name": "nb"}]}


def test_all_under_cv_is_every_term_of_each_fold_for_every_method(tmp_path):
    """Each fold has its own training vocabulary; "all" keeps all of it, whatever the method,
    so every method has one and the same value there, fold by fold (the issue's Reuters case:
    chi2 0.8059, dia 0.8052 "at 12,350 terms" when "all" was the smallest fold's size)."""
    r = run_experiment(parse_config(CV), tmp_path).results
    vocab = [load_fold(str(tmp_path / "cache" / f"fold-{k}.npz")).n_terms for k in range(3)]
    assert len(set(vocab)) == 3  # the folds' vocabularies differ
    at_all = r[r["ratio"] == 1.0]
    assert sorted(set(at_all["method"])) == ["chi2", "dia", "ig"]
    for fold, rows in at_all.groupby("fold"):
        assert (rows["n_features"] == vocab[fold]).all()
        assert rows["value"].nunique() == 1
    # the summary keeps "all" as one level over the folds, at their mean size
    summary = pd.read_csv(tmp_path / "summary.csv")
    row = summary[(summary["ratio"] == 1.0) & (summary["method"] == "dia")]
    assert row["folds"].item() == 3 and row["n_features"].item() == round(np.mean(vocab))
    assert (r.loc[r["ratio"].isna(), "n_features"] == 50).all()


ISSUE_TOML = '''
[corpus]
path = "${TEXTSIFT_DATA}/reviews.jsonl.gz"
label_field = "rating"
split_field = "split"
label_kind = "ordinal"
ranks = [1, 2, 3, 4, 5]
[evaluation]
protocol = "split"
metrics = ["mae_macro", "mae_micro"]
[selection]
methods = ["rr_nc_idf", "var_idf", "rr_igor"]
ratios = [0.01, 0.1]          # fractions of the training vocabulary; exclusive with sizes
baselines = ["ffs", "triv"]   # rows with method "ffs" (all terms) and "triv" (the middle rank)
[tuning]
val_size = 0.25               # stratified part of the training set used to choose parameters
a = [1, 16]                   # IDF exponent, for the methods that have one
C = [0.3, 3]                  # learner parameter grid
[[learners]]
name = "svr"
balanced = true
'''


@pytest.fixture(scope="module")
def issue_run(tmp_path_factory):
    """The issue's TOML, as written, on the bundled reviews sample (1-5 stars), through
    `textsift run` (which also writes the report)."""
    from typer.testing import CliRunner

    from textsift.cli import app

    root = tmp_path_factory.mktemp("issue")
    shutil.copy(sample_path("reviews"), root / "reviews.jsonl.gz")
    (root / "issue.toml").write_text(ISSUE_TOML)
    mp = pytest.MonkeyPatch()
    mp.setenv("TEXTSIFT_DATA", str(root))
    try:
        exp = load_config(root / "issue.toml")
        res = CliRunner().invoke(app, ["run", str(root / "issue.toml"), "--out",
                                       str(root / "out")])
    finally:
        mp.undo()
    assert res.exit_code == 0, res.output
    return root / "out", exp, pd.read_csv(root / "out" / "results.csv")


def test_the_issue_toml_report_draws_the_reduction_levels_with_the_baselines(issue_run):
    out, _, _ = issue_run
    svg = (out / "figures" / "mae_macro.svg").read_text()
    assert "% of the vocabulary kept" in svg and "FFS (every term)" in svg and "Triv" in svg
    assert "figures/mae_macro.png" in (out / "report.html").read_text()


def test_the_issue_toml_gives_baselines_and_every_method_at_every_ratio(issue_run):
    out, exp, r = issue_run
    mae = r[r["metric"] == "mae_macro"]
    triv = mae[mae["method"] == "triv"]
    assert triv["value"].item() == pytest.approx(1.2)  # every rank is in the test part
    assert (mae[mae["method"] == "ffs"]["ratio"] == 1.0).all()
    data = load_fold(str(out / "cache" / "fold-0.npz"))
    for method in ("rr_nc_idf", "var_idf", "rr_igor"):
        got = mae[mae["method"] == method].sort_values("ratio")
        assert got["ratio"].tolist() == [0.01, 0.1]
        # ceil(ratio x the training vocabulary), every term of which occurs in training
        assert got["n_features"].tolist() == [int(np.ceil(q * data.n_terms)) for q in
                                              (0.01, 0.1)]
    # a is tuned for the IDF methods only; C for every trial but Triv
    assert mae.loc[mae["method"] == "rr_igor", "a"].isna().all()
    assert set(mae.loc[mae["method"].isin(["rr_nc_idf", "var_idf"]), "a"]) <= {1, 16}
    assert set(mae.loc[mae["method"] != "triv", "C"]) <= {0.3, 3}
    assert list(r.columns) == ["dataset", "fold", "method", "aggregate", "n_features",
                               "learner", "metric", "value", "ratio", "C", "a",
                               "val_mae_macro"]


def test_a_tuned_trial_is_scikit_learns_grid_search_on_the_same_validation_part(issue_run):
    """Identity with scikit-learn: ``GridSearchCV`` over the pipeline the trial stands for
    (var_idf keeping 10% of the training terms, sublinear tf-idf, balanced RankSVR), with the
    stratified quarter the trial holds out as its one split, scored by
    MAE^M and refitted on the whole training part, chooses the trial's (a, C), with the trial's
    validation MAE^M, and predicts the test part with the trial's MAE^M. (The split is given
    as its index arrays, in ``train_test_split``'s order, since liblinear's solution depends a
    little on the order of the rows.)"""
    out, _, r = issue_run
    data = load_fold(out / "cache" / "fold-0.npz")
    X, y, scale = data.X_train, data.y_train, data.counts.classes
    split = train_test_split(np.arange(len(y)), test_size=0.25, stratify=y, random_state=0)
    pipe = Pipeline([("select", TermSelector("var_idf", ratio=0.1, classes=scale)),
                     ("weight", TfidfTransformer(sublinear_tf=True)),
                     ("svr", RankSVR(balanced=True, ranks=scale, random_state=0))])
    grid = {"select__method_params": [{"a": 1}, {"a": 16}], "svr__C": [0.3, 3]}
    search = GridSearchCV(pipe, grid, scoring=mae_macro_scorer,
                          cv=[split]).fit(X, y)
    got = r.query("method == 'var_idf' and ratio == 0.1 and metric == 'mae_macro'")
    best = search.best_params_
    assert (got["a"].item(), got["C"].item()) == (best["select__method_params"]["a"],
                                                  best["svr__C"])
    assert got["val_mae_macro"].item() == pytest.approx(-search.best_score_, abs=1e-12)
    assert got["value"].item() == pytest.approx(
        mae_macro(data.y_test, search.predict(data.X_test)), abs=1e-12)
    assert got["n_features"].item() == search.best_estimator_["select"].selected_.size


def test_nominal_baselines_ffs_and_the_majority_class(tmp_path):
    """Triv of a nominal task always says the most frequent training class; FFS is the
    learner on every term, the same fit as every method at "all"."""
    cfg = {**CV, "evaluation": {"metrics": ["accuracy"]},
           "corpus": {"sample": "reviews", "label_field": "department"},
           "selection": {"methods": ["chi2", "ig"], "sizes": [20, "all"],
                         "baselines": ["ffs", "triv"]}}
    r = run_experiment(parse_config(cfg), tmp_path).results
    data = load_fold(str(tmp_path / "cache" / "fold-0.npz"))
    labels, n = np.unique(data.y_train, return_counts=True)
    majority = labels[np.argmax(n)]
    triv = r[r["method"] == "triv"]
    assert triv["value"].item() == pytest.approx(np.mean(data.y_test == majority))
    at_all = r[r["ratio"] == 1.0].set_index("method")["value"]
    assert at_all["ffs"] == at_all["chi2"] == at_all["ig"]


def doc_share(counts):
    """A user's own score: the share of a term's documents in each class."""
    return counts.doc_counts / np.maximum(counts.df, 1)[:, None]


def test_a_users_scoring_function_runs_in_an_experiment_without_registration(tmp_path):
    """From Python the function itself goes in the list (a TOML names it
    'module:function'); it ranks exactly as the registered DIA, which is this score."""
    cfg = {**CV, "evaluation": {"metrics": ["accuracy"]},
           "selection": {"methods": [doc_share, "dia"], "aggregates": ["max"],
                         "sizes": [30]}}
    exp = parse_config(cfg)
    assert exp.methods[0].endswith(":doc_share")
    r = run_experiment(exp, tmp_path).results
    values = r.groupby("method")["value"].apply(list)
    assert values[exp.methods[0]] == values["dia"]


def test_ratios_and_sizes_are_exclusive_and_tuning_is_checked():
    from textsift.experiment import ConfigError

    base = {**CV, "selection": {"methods": ["ig"], "sizes": [5], "ratios": [0.1]}}
    with pytest.raises(ConfigError, match="takes sizes .* or ratios .*, not both"):
        parse_config(base)
    ok = {**CV, "selection": {"methods": ["ig"], "ratios": [0.1]}}
    with pytest.raises(ConfigError, match=r"unknown key 'a' in \[tuning\]"):
        parse_config({**ok, "tuning": {"a": [1, 2]}})  # ig has no IDF exponent
    with pytest.raises(ConfigError, match="ratios entry must be a fraction"):
        parse_config({**ok, "selection": {"methods": ["ig"], "ratios": [0, 0.1]}})
    with pytest.raises(ConfigError, match="alpha is tuned in .tuning. and fixed"):
        parse_config({**ok, "tuning": {"alpha": [0.1, 1]},
                      "learners": [{"name": "nb", "alpha": 0.5}]})
    assert parse_config({**ok, "tuning": {"alpha": [0.1, 1]}}).tuning.grids == (
        ("alpha", (0.1, 1)),)


def test_empty_texts_are_dropped(tmp_path):
    rows = ['{"text": "good fine", "label": "a", "split": "train"}',
            '{"text": "bad poor", "label": "b", "split": "train"}',
            '{"text": "   ", "label": "b", "split": "train"}',
            '{"text": "good", "label": "a", "split": "test"}',
            '{"text": "poor", "label": "b", "split": "test"}']
    path = tmp_path / "c.jsonl.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("\n".join(rows) + "\n")
    cfg = {**CV, "corpus": {"path": str(path)}, "evaluation": {"metrics": ["accuracy"]},
           "preprocessing": {}, "selection": {"methods": ["ig"], "sizes": [2]}}
    lines = []
    run_experiment(parse_config(cfg), tmp_path / "out", log=lines.append)
    assert "dropped 1 documents with an empty text" in lines
    data = load_fold(str(tmp_path / "out" / "cache" / "fold-0.npz"))
    assert data.counts.class_sizes.tolist() == [1, 1] and len(data.y_test) == 2
