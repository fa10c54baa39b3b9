"""The runner: trials, sizes, the results store, determinism, and the errors of a bad --out."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.naive_bayes import MultinomialNB

from textsift.counting.counts import Counts
from textsift.experiment import COLUMNS, StoreError, parse_config, run_experiment
from textsift.experiment.folds import load_fold
from textsift.experiment.plan import resolve_levels
from textsift.selection.selectors import TermSelector

SMALL = {
    "experiment": {"name": "small", "seed": 1},
    "corpus": {"sample": "20ng", "dataset": "ng"},
    "evaluation": {"metrics": ["accuracy", "micro_f1", "macro_f1"]},
    "preprocessing": {"stop_words": "english", "min_df": 3, "strip_headers": True},
    "selection": {"methods": ["ig", "rc", "ig_multi"], "aggregates": ["max", "rr"],
                  "sizes": [30, 300, 10**6]},
    "learners": [{"name": "nb"}, {"name": "linear_svm"}],
}


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("small") / "run"
    return out, run_experiment(parse_config(SMALL), out)


def test_table_has_the_long_form_columns_and_every_trial(small_run):
    out, summary = small_run
    results = pd.read_csv(out / "results.csv")
    assert list(results.columns) == COLUMNS + ["ratio"]
    # ig and rc under max and rr, ig_multi under max only (it is global): 5 rankings;
    # 3 sizes (10**6 keeps every term: one trial per learner serves every method); 2
    # learners; 3 metrics
    assert summary.n_trials == 5 * 2 * 2 + 2 and len(results) == 5 * 3 * 2 * 3
    assert set(results["aggregate"]) == {"max", "rr"}
    assert not ((results["method"] == "ig_multi") & (results["aggregate"] == "rr")).any()
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"), results)


def test_sizes_above_the_vocabulary_are_clipped_and_said(small_run):
    out, summary = small_run
    vocab = load_fold(str(out / "cache" / "fold-0.npz")).n_terms
    assert sorted(summary.results["n_features"].unique()) == [30, 300, vocab]
    assert any(f"size 1,000,000 is larger than the vocabulary ({vocab:,} terms)" in n
               for n in summary.notes)
    assert any("ig_multi has no 'rr' policy" in n for n in summary.notes)


def test_micro_f1_equals_accuracy_on_single_label_data(small_run):
    """An identity: with one label per document micro-F1 is accuracy (every wrong prediction is
    one false positive and one false negative, so micro precision = micro recall = accuracy)."""
    r = small_run[1].results.pivot_table(index=["method", "aggregate", "n_features", "learner"],
                                         columns="metric", values="value")
    np.testing.assert_allclose(r["micro_f1"], r["accuracy"], rtol=0, atol=1e-12)


def test_the_full_vocabulary_is_each_learner_fitted_by_hand_on_every_column(small_run):
    """Identity with scikit-learn: at "all" (10**6 terms keeps every one) every method's row
    is the learner fitted on every column of the fold's training matrix -- naive Bayes on
    counts, LinearSVC (seed 1) on tf-idf -- and measured on the test part."""
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.metrics import accuracy_score, f1_score
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    out, summary = small_run
    data = load_fold(out / "cache" / "fold-0.npz")
    r = summary.results
    full = r[r["n_features"] == data.n_terms]
    assert set(full["method"]) == {"ig", "rc", "ig_multi"} and full["ratio"].eq(1.0).all()
    by_hand = {"nb": MultinomialNB(),
               "linear_svm": make_pipeline(TfidfTransformer(), LinearSVC(random_state=1))}
    for learner, model in by_hand.items():
        pred = model.fit(data.X_train, data.y_train).predict(data.X_test)
        expected = {"accuracy": accuracy_score(data.y_test, pred),
                    "micro_f1": accuracy_score(data.y_test, pred),
                    "macro_f1": f1_score(data.y_test, pred, average="macro", zero_division=0)}
        rows = full[full["learner"] == learner]
        assert len(rows) == 5 * 3  # every (method, aggregate) pair, every measure
        for metric, value in expected.items():
            np.testing.assert_allclose(rows.loc[rows["metric"] == metric, "value"], value,
                                       rtol=0, atol=1e-12)


def test_a_trial_equals_the_same_pipeline_built_by_hand(small_run):
    """Identity with scikit-learn: NB on IG's top-300 terms of the fold's training matrix."""
    out, summary = small_run
    data = load_fold(str(out / "cache" / "fold-0.npz"))
    counts = Counts.from_matrix(data.X_train, data.y_train,
                                feature_names=data.counts.feature_names)
    assert counts.equals(data.counts)
    keep = TermSelector("ig", k=300, aggregate="max").fit(data.X_train, data.y_train).selected_
    nb = MultinomialNB().fit(data.X_train[:, keep], data.y_train)
    expected = float(np.mean(nb.predict(data.X_test[:, keep]) == data.y_test))
    r = summary.results
    got = r.query("method == 'ig' and aggregate == 'max' and n_features == 300 and "
                  "learner == 'nb' and metric == 'accuracy'")["value"].item()
    assert got == pytest.approx(expected, abs=1e-12)


def test_summary_is_mean_and_std_over_folds(tmp_path):
    cfg = {**SMALL, "evaluation": {"protocol": "cv", "folds": 3, "metrics": ["accuracy"]},
           "selection": {"methods": ["ig"], "sizes": [50]}, "learners": [{"name": "nb"}]}
    run_experiment(parse_config(cfg), tmp_path / "cv")
    results = pd.read_csv(tmp_path / "cv" / "results.csv")
    summary = pd.read_csv(tmp_path / "cv" / "summary.csv")
    assert sorted(results["fold"]) == [0, 1, 2]
    assert summary["mean"].item() == pytest.approx(results["value"].mean())
    assert summary["std"].item() == pytest.approx(results["value"].std(ddof=1))
    assert summary["folds"].item() == 3


@pytest.mark.slow
def test_same_seed_same_table_and_n_jobs_does_not_matter(small_run, tmp_path):
    out, _ = small_run
    cfg = {**SMALL, "experiment": {"name": "small", "seed": 1, "n_jobs": 2}}
    again = run_experiment(parse_config(cfg), tmp_path / "again")
    assert (tmp_path / "again" / "results.csv").read_bytes() == \
        (out / "results.csv").read_bytes()
    assert again.results.equals(pd.read_parquet(out / "results.parquet"))


def test_output_dir_of_another_experiment_is_refused(small_run):
    out, _ = small_run
    other = {**SMALL, "experiment": {"name": "other", "seed": 2}}
    with pytest.raises(StoreError, match=r"finished trials of another experiment \('small'\) "
                       r"whose data or folds differ from this one's \(seed: 1 -> 2\)"):
        run_experiment(parse_config(other), out, resume=True)


def test_existing_results_need_resume(small_run):
    out, _ = small_run
    with pytest.raises(StoreError, match="pass --resume"):
        run_experiment(parse_config(SMALL), out)
    again = run_experiment(parse_config(SMALL), out, resume=True)
    assert again.n_run == 0 and again.n_trials == 22


def test_non_empty_foreign_directory_is_refused(tmp_path):
    (tmp_path / "x.txt").write_text("mine")
    with pytest.raises(StoreError, match="not empty and holds no experiment"):
        run_experiment(parse_config(SMALL), tmp_path)


@given(sizes=st.lists(st.one_of(st.integers(1, 5000), st.just("all")), min_size=1, max_size=8),
       vocab=st.lists(st.integers(1, 3000), min_size=1, max_size=5))
def test_resolve_levels_invariants(sizes, vocab):
    """A number of terms is the same in every fold, so never above the smallest fold's
    vocabulary (sorted, distinct); "all", and a size that keeps every term of every fold,
    are the level "all"; a note per size above some fold's vocabulary."""
    sizes = tuple(dict.fromkeys(sizes))
    exp = dataclasses.replace(parse_config(SMALL), sizes=sizes)
    levels, notes = resolve_levels(exp, vocab)
    ns = [v for kind, v in levels if kind == "n"]
    assert ns == sorted(set(ns)) and all(n <= min(vocab) for n in ns)
    assert {kind for kind, _ in levels} <= {"n", "all"} and levels[-1:] != [("n", None)]
    assert (("all", None) in levels) == any(s == "all" or s >= max(vocab) for s in sizes)
    assert len(notes) == sum(1 for s in sizes if s != "all" and s > min(vocab)
                             and s != max(vocab))


def test_ordinal_task_with_rank_svr_and_mae(tmp_path):
    """An ordinal experiment: ranks as labels over the full 1-5 scale, an ordinal method,
    epsilon-SVR, MAE^M. The trivial 'always 3 stars' predictor has MAE^M = 1.2 on a 1-5 test
    set with every rank present (the identity (2 + 1 + 0 + 1 + 2) / 5 of Baccianella et al.'s
    Triv); selected terms must beat it."""
    cfg = {"experiment": {"name": "ordinal"},
           "corpus": {"sample": "reviews", "label_kind": "ordinal", "ranks": [1, 2, 3, 4, 5]},
           "evaluation": {"metrics": ["mae_macro", "mae_micro", "accuracy"]},
           "preprocessing": {"min_df": 2},
           "selection": {"methods": ["rr_var_idf", "ig"], "aggregates": ["default"],
                         "sizes": [500]},
           "learners": [{"name": "svr", "balanced": True}]}
    r = run_experiment(parse_config(cfg), tmp_path).results
    assert set(zip(r["method"], r["aggregate"], strict=True)) == {("rr_var_idf", "rr"),
                                                                   ("ig", "max")}
    mae = r[r["metric"] == "mae_macro"]["value"]
    assert ((mae > 0) & (mae < 1.2)).all()


def test_ordinal_method_on_a_nominal_task_is_an_error():
    cfg = {**SMALL, "selection": {"methods": ["var"], "sizes": [10]}}
    with pytest.raises(ValueError, match="method 'var' is ordinal"):
        parse_config(cfg)


def test_fold_matrices_are_countvectorizer_fitted_on_the_training_part(tmp_path):
    """The corpus is tokenised once; a fold's matrices are its rows and the columns its
    training part keeps -- exactly a CountVectorizer (stemming included) fitted on the
    training documents and applied to the test documents."""
    from textsift.experiment.folds import fold_indices, prepare_folds, read_documents
    from textsift.text.vectorize import build_vectorizer

    cfg = {**SMALL, "evaluation": {"protocol": "cv", "folds": 3},
           "preprocessing": {"stop_words": "english", "min_df": 3, "max_df": 0.4,
                             "strip_headers": True, "stem": True}}
    exp = parse_config(cfg)
    texts, labels, is_test = read_documents(exp)
    paths = prepare_folds(exp, tmp_path, log=lambda *_: None, n_jobs=2)
    for path, (train, test) in zip(paths, fold_indices(exp, labels, is_test), strict=True):
        data = load_fold(str(path))
        vec = build_vectorizer(exp.preprocessing)
        X_train = vec.fit_transform([texts[i] for i in train])
        assert data.counts.feature_names.tolist() == vec.get_feature_names_out().tolist()
        assert (data.X_train != X_train).nnz == 0
        assert (data.X_test != vec.transform([texts[i] for i in test])).nnz == 0
        np.testing.assert_array_equal(data.y_train, labels[train])


OVR = {"experiment": {"name": "ovr"},
       "corpus": {"sample": "20ng", "dataset": "ng"},
       "evaluation": {"tasks": "one_vs_rest", "metrics": ["f1_pos", "accuracy"]},
       "preprocessing": {"min_df": 3, "stop_words": "english"},
       "selection": {"methods": ["bns", "df"], "sizes": [50]},
       "learners": [{"name": "linear_svm"}]}


def test_one_vs_rest_tasks_select_by_the_positive_class(tmp_path):
    """Forman's protocol: one binary task per class, selection by the positive class's
    scores on the binary counts, F1 of the positive class."""
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.metrics import f1_score
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    from textsift.experiment.learn import binary_labels
    from textsift.report.html import write_report

    r = run_experiment(parse_config(OVR), tmp_path).results
    data = load_fold(str(tmp_path / "cache" / "fold-0.npz"))
    classes = data.counts.classes
    assert sorted(r["dataset"].unique()) == sorted(f"ng:{c}" for c in classes)
    assert set(zip(r["method"], r["aggregate"], strict=True)) == {("bns", "pos"), ("df", "max")}
    task = classes[3]
    yb = binary_labels(data.y_train, task)
    # the binary counts derived from the multi-class ones equal a fresh count of the task
    assert data.counts.one_vs_rest(task).equals(
        Counts.from_matrix(data.X_train, yb, feature_names=data.counts.feature_names))
    keep = TermSelector("bns", k=50, class_label="pos").fit(data.X_train, yb).selected_
    keep = np.sort(keep)
    clf = make_pipeline(TfidfTransformer(), LinearSVC(random_state=0))
    clf.fit(data.X_train[:, keep], yb)
    expected = f1_score(binary_labels(data.y_test, task), clf.predict(data.X_test[:, keep]),
                        pos_label="pos")
    got = r.query(f"dataset == 'ng:{task}' and method == 'bns' and metric == 'f1_pos'")
    assert got["value"].item() == pytest.approx(expected, abs=1e-12)
    html = write_report(tmp_path).read_text()
    assert f"means over {len(classes)} tasks (macro-average)" in html


def test_one_vs_rest_errors():
    with pytest.raises(ValueError, match="remove \\[selection\\] aggregates"):
        parse_config({**OVR, "selection": {"methods": ["bns"], "sizes": [5],
                                           "aggregates": ["rr"]}})


def test_positive_class_metrics_need_a_binary_pos_neg_task(tmp_path):
    cfg = {**OVR, "evaluation": {"metrics": ["f1_pos"]}}
    with pytest.raises(ValueError, match="f1_pos, precision_pos and recall_pos need binary"):
        run_experiment(parse_config(cfg), tmp_path)


def test_a_directory_left_by_a_failed_configuration_is_taken_over(tmp_path):
    """A run stopped by a configuration error before any trial finished does not lock its
    directory: the corrected experiment takes it over (with a fresh fold cache)."""
    bad = {**OVR, "evaluation": {"metrics": ["f1_pos"]}}
    with pytest.raises(ValueError, match="need binary"):
        run_experiment(parse_config(bad), tmp_path)
    good = {**OVR, "evaluation": {"metrics": ["accuracy"]},
            "selection": {"methods": ["ig"], "sizes": [20]}, "learners": [{"name": "nb"}]}
    good["preprocessing"] = {"min_df": 4}  # a different vocabulary: the old cache must go
    r = run_experiment(parse_config({**good, "evaluation": {"metrics": ["accuracy"]}}),
                       tmp_path).results
    assert len(r) == 1
    vocab = load_fold(str(tmp_path / "cache" / "fold-0.npz")).n_terms
    from textsift.reading.corpus import load_sample
    from textsift.text.vectorize import vectorize
    X, _, _ = vectorize(load_sample("20ng", "train").texts, min_df=4)
    assert vocab == X.shape[1]


def test_a_new_learner_and_a_new_measure_are_one_registry_entry_each(tmp_path, monkeypatch):
    """A learner and a measure added to their registries (nothing else) are accepted by the
    file, fitted and reported: ridge regression's classifier on tf-idf, balanced accuracy."""
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.linear_model import RidgeClassifier
    from sklearn.metrics import balanced_accuracy_score

    from textsift.learners import LEARNERS, Learner
    from textsift.learners.metrics import MEASURES, Measure

    monkeypatch.setitem(LEARNERS, "ridge", Learner(
        "ridge", lambda seed, ranks, **p: RidgeClassifier(**p), "ridge classifier",
        ("nominal",), "tfidf", ("alpha",)))
    monkeypatch.setitem(MEASURES, "balanced_accuracy", Measure(
        "balanced_accuracy", balanced_accuracy_score, "mean recall of the classes",
        ("nominal",), False, ()))
    cfg = {**SMALL, "evaluation": {"metrics": ["balanced_accuracy"]},
           "selection": {"methods": ["ig"], "sizes": ["all"]},
           "learners": [{"name": "ridge", "alpha": 2.0}]}
    r = run_experiment(parse_config(cfg), tmp_path).results
    data = load_fold(tmp_path / "cache" / "fold-0.npz")
    tfidf = TfidfTransformer().fit(data.X_train)
    model = RidgeClassifier(alpha=2.0).fit(tfidf.transform(data.X_train), data.y_train)
    expected = balanced_accuracy_score(data.y_test, model.predict(tfidf.transform(data.X_test)))
    assert r[["learner", "metric"]].drop_duplicates().values.tolist() == [
        ["ridge", "balanced_accuracy"]]
    assert r["value"].item() == pytest.approx(expected, abs=1e-12)
