"""Experiments on label sets: one binary learner per label, micro- and macro-F1 over labels,
the scopes of selection (global through a policy, local: each label's own top k), the label
set evaluated, the per-label table, and the keys and measures refused for label sets, each
before anything is written.

The identities: the harness's micro/macro F1 are scikit-learn's OneVsRestClassifier (or one
estimator per label on its own columns) and ``f1_score`` computed here on the same columns."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.metrics import f1_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC
from typer.testing import CliRunner

from textsift.cli import app
from textsift.experiment import ConfigError, parse_config, run_experiment
from textsift.experiment.folds import load_fold
from textsift.learners import PerLabelClassifier, make_learner
from textsift.learners.metrics import MEASURES
from textsift.scores import compute

runner = CliRunner()
WORDS = {"acq": ["merger", "buy", "stake", "bid"], "earn": ["profit", "dividend", "quarter"],
         "grain": ["wheat", "corn", "harvest", "crop"], "ship": ["port", "vessel", "cargo"]}
COMMON = ["the", "and", "said", "market", "today", "news", "report", "week"]


def corpus(n=240, seed=0, test_only=(), train_only=()):
    """Records with 0 to 3 of the labels of WORDS, each adding two of its words (and a word
    of another label now and then), a quarter of them for test. A label of ``train_only``
    occurs in training records only, one of ``test_only`` in test records only."""
    rng = np.random.default_rng(seed)
    names = sorted(WORDS)
    records = []
    for i in range(n):
        split = "test" if i % 4 == 0 else "train"
        labels = sorted(rng.choice(names, size=rng.choice([0, 1, 1, 1, 2, 3]), replace=False))
        labels = [x for x in labels if not (x in test_only and split == "train")
                  and not (x in train_only and split == "test")]
        words = list(rng.choice(COMMON, size=5))
        for label in labels:
            words += list(rng.choice(WORDS[label], size=2))
        if rng.random() < 0.3:
            words.append(str(rng.choice(WORDS[str(rng.choice(names))])))
        rng.shuffle(words)
        records.append({"text": " ".join(words), "labels": labels, "split": split})
    return records


def write(tmp_path, records, name="ml.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def config(path, **tables):
    cfg = {"experiment": {"name": "ml", "seed": 0},
           "corpus": {"path": str(path), "label_field": "labels"},
           "evaluation": {"metrics": ["micro_f1", "macro_f1"]},
           "selection": {"methods": ["chi2"], "aggregates": ["wavg"], "sizes": [3, 6]},
           "learners": [{"name": "linear_svm"}, {"name": "nb"}]}
    for table, keys in tables.items():
        cfg[table] = {**cfg.get(table, {}), **keys} if isinstance(keys, dict) else keys
    return parse_config(cfg, src="ml.toml")


@pytest.fixture(scope="module")
def both_scopes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ml")
    exp = config(write(tmp, corpus()), selection={"aggregates": ["wavg", "max", "rr"],
                                                 "scope": ["global", "local"],
                                                 "baselines": ["ffs", "triv"]},
                 evaluation={"metrics": ["micro_f1", "macro_f1", "samples_f1",
                                         "hamming_loss", "accuracy"]})
    out = tmp / "run"
    return exp, out, run_experiment(exp, out)


def value(results, aggregate, k, learner, metric, method="chi2"):
    row = results[(results["method"] == method) & (results["aggregate"] == aggregate)
                  & (results["n_features"] == k) & (results["learner"] == learner)
                  & (results["metric"] == metric)]
    assert len(row) == 1
    return float(row["value"].iloc[0])


def svm():
    return make_pipeline(TfidfTransformer(), LinearSVC(random_state=0))


# --------------------------------------------------------------------------- the task
def test_label_lists_make_a_multilabel_experiment_with_both_scopes(both_scopes):
    exp, out, summary = both_scopes
    assert exp.corpus.label_kind == "nominal"  # as written; the labels made it multilabel
    config_written = json.loads((out / "experiment.json").read_text())["config"]
    assert config_written["corpus"]["label_kind"] == "multilabel"
    results = summary.results
    assert set(results["aggregate"]) == {"wavg", "max", "rr", "local", "none"}
    # chi2 x (3 policies + local) x 2 sizes x 2 learners, FFS per learner, Triv
    assert summary.n_trials == 4 * 2 * 2 + 2 + 1
    assert set(results["metric"]) == {"micro_f1", "macro_f1", "samples_f1", "hamming_loss",
                                      "accuracy"}


def test_global_scope_is_one_vs_rest_on_the_wavg_columns(both_scopes):
    """Global: the top k terms of sum_c P(c) chi2(t, c), with P(c) = N_c / N (Yang and
    Pedersen's chi2_avg; the priors of label sets need not sum to 1), one LinearSVC per label
    on their tf-idf, micro and macro F1 over the labels: scikit-learn's, by hand."""
    exp, out, summary = both_scopes
    fold = load_fold(out / "cache" / "fold-0.npz")
    counts = fold.counts
    assert counts.multilabel and counts.priors.sum() > 1  # several labels per document
    table = compute(counts, "chi2").values
    wavg = table @ (counts.class_sizes / counts.n_docs)
    Y_train, Y_test = fold.y_train.toarray(), fold.y_test.toarray()
    for k in (3, 6):
        cols = np.sort(np.argsort(-wavg, kind="stable")[:k])
        pred = OneVsRestClassifier(svm()).fit(fold.X_train[:, cols], Y_train).predict(
            fold.X_test[:, cols])
        for average in ("micro", "macro"):
            want = f1_score(Y_test, pred, average=average, zero_division=0)
            assert value(summary.results, "wavg", k, "linear_svm", f"{average}_f1") == want
        nb = OneVsRestClassifier(MultinomialNB()).fit(fold.X_train[:, cols], Y_train)
        assert value(summary.results, "wavg", k, "nb", "micro_f1") == f1_score(
            Y_test, nb.predict(fold.X_test[:, cols]), average="micro")


def test_local_scope_fits_each_label_on_its_own_top_k(both_scopes):
    """Local: label c's learner reads the top k of its own chi2 column (Forman's
    one-against-all tasks); the columns differ between labels."""
    exp, out, summary = both_scopes
    fold = load_fold(out / "cache" / "fold-0.npz")
    table = compute(fold.counts, "chi2").values
    Y_train, Y_test = fold.y_train.toarray(), fold.y_test.toarray()
    for k in (3, 6):
        own = [np.sort(np.argsort(-table[:, j], kind="stable")[:k]) for j in range(4)]
        assert len({tuple(c) for c in own}) == 4
        pred = np.column_stack([svm().fit(fold.X_train[:, c], Y_train[:, j]).predict(
            fold.X_test[:, c]) for j, c in enumerate(own)])
        assert value(summary.results, "local", k, "linear_svm", "micro_f1") == f1_score(
            Y_test, pred, average="micro")
        assert value(summary.results, "local", k, "linear_svm", "macro_f1") == f1_score(
            Y_test, pred, average="macro")
        if k == 3:  # each label's own words are its top terms
            assert [set(fold.counts.feature_names[c]) <= set(WORDS[label])
                    for c, label in zip(own, fold.counts.classes, strict=True)] == [True] * 4


def test_every_term_and_triv(both_scopes):
    exp, out, summary = both_scopes
    fold = load_fold(out / "cache" / "fold-0.npz")
    Y_train, Y_test = fold.y_train.toarray(), fold.y_test.toarray()
    pred = OneVsRestClassifier(svm()).fit(fold.X_train, Y_train).predict(fold.X_test)
    r = summary.results
    ffs = r[(r["method"] == "ffs") & (r["learner"] == "linear_svm")].set_index("metric")
    assert ffs.loc["micro_f1", "value"] == f1_score(Y_test, pred, average="micro")
    assert ffs.loc["hamming_loss", "value"] == pytest.approx(np.mean(pred != Y_test))
    # Triv: the most frequent training label set, for every test document
    rows, n = np.unique(Y_train, axis=0, return_counts=True)
    always = np.tile(rows[np.argmax(n)], (len(Y_test), 1))
    triv = r[r["method"] == "triv"].drop_duplicates("metric").set_index("metric")
    assert triv.loc["micro_f1", "value"] == f1_score(Y_test, always, average="micro")
    assert triv.loc["accuracy", "value"] == np.mean((always == Y_test).all(axis=1))


def test_the_per_label_table(both_scopes):
    exp, out, summary = both_scopes
    labels = pd.read_csv(out / "labels.csv")
    fold = load_fold(out / "cache" / "fold-0.npz")
    part = labels[(labels["aggregate"] == "local") & (labels["n_features"] == 3)
                  & (labels["learner"] == "linear_svm")]
    assert part["label"].tolist() == ["acq", "earn", "grain", "ship"]
    assert part["train"].tolist() == fold.counts.class_sizes.tolist()
    assert part["test"].tolist() == np.asarray(fold.y_test.sum(axis=0)).ravel().tolist()
    assert part["f1"].mean() == pytest.approx(value(summary.results, "local", 3, "linear_svm",
                                                    "macro_f1"))


def test_balanced_class_weights_weight_each_labels_binary_task(tmp_path):
    """class_weight = "balanced": each label's LinearSVC weighs its positive and negative
    documents as scikit-learn's "balanced" does for that binary task."""
    exp = config(write(tmp_path, corpus()), selection={"sizes": [6]},
                 learners=[{"name": "linear_svm", "class_weight": "balanced"}])
    results = run_experiment(exp, tmp_path / "run").results
    fold = load_fold(tmp_path / "run" / "cache" / "fold-0.npz")
    table = compute(fold.counts, "chi2").values
    cols = np.sort(np.argsort(-(table @ fold.counts.priors), kind="stable")[:6])
    model = OneVsRestClassifier(make_pipeline(TfidfTransformer(), LinearSVC(
        random_state=0, class_weight="balanced")))
    pred = model.fit(fold.X_train[:, cols], fold.y_train.toarray()).predict(fold.X_test[:, cols])
    assert value(results, "wavg", 6, "linear_svm", "macro_f1") == f1_score(
        fold.y_test.toarray(), pred, average="macro")


# --------------------------------------------------------------------------- label sets
def test_label_set_train_and_test_keeps_the_labels_with_both(tmp_path):
    """"ship" has training documents only, "grain" test documents only: ModApte's rule
    evaluates acq and earn; "all" evaluates the four, a label without training documents
    predicted "no" everywhere (F1 0) and one without test documents F1 0."""
    path = write(tmp_path, corpus(train_only=("ship",), test_only=("grain",)))
    runs = {}
    for label_set in ("train_and_test", "all"):
        exp = config(path, evaluation={"label_set": label_set},
                     learners=[{"name": "linear_svm"}])
        notes = run_experiment(exp, tmp_path / label_set).notes
        assert any("1 label(s) that no training document has ('grain'" in n for n in notes)
        runs[label_set] = pd.read_csv(tmp_path / label_set / "labels.csv")
    assert sorted(set(runs["train_and_test"]["label"])) == ["acq", "earn"]
    every = runs["all"]
    assert sorted(set(every["label"])) == ["acq", "earn", "grain", "ship"]
    by = every[every["n_features"] == 3].set_index("label")
    assert (by.loc["grain", "train"], by.loc["ship", "test"]) == (0, 0)
    assert (by.loc["grain", "f1"], by.loc["ship", "f1"]) == (0.0, 0.0)
    results = pd.read_csv(tmp_path / "all" / "results.csv")
    macro = results[(results["metric"] == "macro_f1") & (results["n_features"] == 3)]
    assert macro["value"].iloc[0] == pytest.approx(by["f1"].mean())


def test_a_label_set_with_no_label_is_refused_before_anything_is_written(tmp_path):
    records = [dict(r, labels=["acq"] if r["split"] == "train" else ["earn"])
               for r in corpus()]
    exp = config(write(tmp_path, records))
    with pytest.raises(ConfigError, match="ml.toml: no label has a document in both the "
                                          "training and the test part of a fold"):
        run_experiment(exp, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_cross_validation_on_label_sets_is_plain_kfold_with_a_note(tmp_path):
    from sklearn.model_selection import KFold

    exp = config(write(tmp_path, corpus(n=120)), evaluation={"protocol": "cv", "folds": 3},
                 learners=[{"name": "nb"}])
    summary = run_experiment(exp, tmp_path / "run")
    assert any("not stratified" in n for n in summary.notes)
    for k, (_, test) in enumerate(KFold(3, shuffle=True, random_state=0).split(range(120))):
        assert load_fold(tmp_path / "run" / "cache" / f"fold-{k}.npz").y_test.shape[0] == len(
            test)


def test_declared_and_found_multilabel_are_one_experiment(tmp_path):
    path = write(tmp_path, corpus())
    found, declared = config(path), config(path, corpus={"label_kind": "multilabel"})
    assert declared.corpus.label_kind == "multilabel" and found.corpus.label_kind == "nominal"
    assert found.fingerprint == declared.fingerprint


# --------------------------------------------------------------------------- refusals
REFUSED = {
    "ig_multi": ({"selection": {"methods": ["chi2", "ig_multi"]}},
                 "ig_multi needs one label per document (one class per document), but the "
                 "documents have label lists"),
    "a measure of one label per document": (
        {"evaluation": {"metrics": ["micro_f1", "f1_pos"]}},
        "metric 'f1_pos' (F1 of the positive class of a binary task) is for the label kind "
        "nominal; these labels are multilabel"),
    "an ordinal task": ({"corpus": {"label_kind": "ordinal"}, "selection": {"methods": ["var"]},
                         "evaluation": {"metrics": ["mae_macro"]},
                         "learners": [{"name": "svr"}]},
                        "[corpus] label_kind = 'ordinal' reads one rating per document, but the "
                        "label field 'labels' holds lists"),
    "one-vs-rest tasks": ({"evaluation": {"tasks": "one_vs_rest"},
                           "selection": {"aggregates": ["default"]}},
                          "[evaluation] tasks = 'one_vs_rest' is for one class per document"),
    "a class_weight table": ({"learners": [{"name": "nb", "class_weight": {"acq": 2}}]},
                             "[[learners]] 'nb': a class_weight table names classes; with label "
                             "sets each label's learner is binary"),
    "policies without the global scope": ({"selection": {"scope": "local"}},
                                          "[selection] aggregates are the policies of scope "
                                          "'global'"),
}


@pytest.mark.parametrize("case", list(REFUSED))
@pytest.mark.parametrize("declared", [False, True])
def test_what_label_sets_cannot_take_is_refused_before_anything_is_written(tmp_path, case,
                                                                          declared):
    """Declared (label_kind = "multilabel"), the file is refused when read; found in the data,
    when the corpus is read: either way before --out is touched."""
    tables, message = REFUSED[case]
    if declared and "label_kind" not in tables.get("corpus", {}):
        tables = {**tables, "corpus": {**tables.get("corpus", {}), "label_kind": "multilabel"}}
    path = write(tmp_path, corpus(n=40))
    with pytest.raises(ConfigError, match=f"ml.toml: {message}".replace("[", r"\[").replace(
            "(", r"\(").replace(")", r"\)")):
        run_experiment(config(path, **tables), tmp_path / "run")
    assert not (tmp_path / "run").exists()


SINGLE = {
    "task multilabel": ({"corpus": {"label_kind": "multilabel"}},
                        "[corpus] label_kind = 'multilabel', but the label field 'labels' "
                        "holds one label per record, not a list"),
    "scope local": ({"selection": {"scope": ["global", "local"]}},
                    "[selection] scope = 'local' is for label sets (a multilabel task)"),
    "label_set": ({"evaluation": {"label_set": "all"}},
                  "[evaluation] label_set is for label sets"),
    "a measure of label sets": ({"evaluation": {"metrics": ["samples_f1"]}},
                                "metric 'samples_f1' (F1 of each document's predicted label "
                                "set, averaged over the documents (1 for a document without "
                                "labels predicted without)) is for the label kind multilabel; "
                                "these labels are nominal"),
}


@pytest.mark.parametrize("case", list(SINGLE))
def test_keys_of_label_sets_on_one_label_per_document_are_refused(tmp_path, case):
    tables, message = SINGLE[case]
    records = [dict(r, labels=(r["labels"] or ["acq"])[0]) for r in corpus(n=40)]
    path = write(tmp_path, records)
    with pytest.raises(ConfigError, match="ml.toml: " + message.replace("[", r"\[").replace(
            "(", r"\(").replace(")", r"\)")):
        run_experiment(config(path, **tables), tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_lists_in_the_training_file_and_single_labels_in_the_test_file(tmp_path):
    records = corpus(n=40)
    train = write(tmp_path, [r for r in records if r["split"] == "train"], "train.jsonl")
    test = write(tmp_path, [dict(r, labels="acq") for r in records if r["split"] == "test"],
                 "test.jsonl")
    res = runner.invoke(app, ["run", str(_toml(tmp_path, train, f'test_path = "{test}"')),
                              "--out", str(tmp_path / "run")])
    assert res.exit_code == 2 and res.stdout == ""
    assert (f"the label 'labels' is a list in {train} and a single label in {test}"
            in res.stderr.replace("\n", " "))
    assert not (tmp_path / "run").exists()


def _toml(tmp_path, path, extra=""):
    toml = tmp_path / "ml.toml"
    toml.write_text(f'[corpus]\npath = "{path}"\nlabel_field = "labels"\n{extra}\n'
                    '[evaluation]\nmetrics = ["micro_f1", "macro_f1"]\n'
                    '[selection]\nmethods = ["chi2", "log_odds_dirichlet"]\nsizes = [3]\n'
                    'scope = ["global", "local"]\nbaselines = ["ffs", "triv"]\n'
                    '[[learners]]\nname = "nb"\n')
    return toml


def test_textsift_run_takes_label_lists_and_writes_the_report(tmp_path):
    toml = _toml(tmp_path, write(tmp_path, corpus(n=80)))
    res = runner.invoke(app, ["run", str(toml), "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == [str(tmp_path / "run" / "results.csv"),
                                       str(tmp_path / "run" / "report.html")]
    results = pd.read_csv(tmp_path / "run" / "results.csv", keep_default_na=False)
    assert set(zip(results["method"], results["aggregate"], strict=True)) == {
        ("chi2", "max"), ("chi2", "local"), ("log_odds_dirichlet", "max"),
        ("log_odds_dirichlet", "local"), ("ffs", "none"), ("triv", "none")}
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert "Each label's F1" in page and "Top terms of each label" in page
    assert "the most frequent training label set" in page


# --------------------------------------------------------------------------- the pieces
def test_measures_of_label_sets_worked_example():
    """Three labels, four documents (the third with no label, predicted without):
    label 0 found twice of twice (F1 1), label 1 once of twice (2/3), label 2 never, once
    wrongly (0): micro F1 = 2*3 / (2*3 + 1 + 2) = 2/3, macro (1 + 2/3 + 0)/3 = 5/9; per
    document F1 2/3, 1, 1 (none and none), 1/2: samples F1 19/24; 3 of 12 decisions wrong;
    2 of 4 label sets exact."""
    Y = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 0], [1, 1, 0]])
    P = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 0], [1, 0, 1]])
    got = {m: MEASURES[m](Y, P) for m in ("micro_f1", "macro_f1", "samples_f1",
                                          "hamming_loss", "accuracy")}
    assert got == pytest.approx({"micro_f1": 2 / 3, "macro_f1": 5 / 9, "samples_f1": 19 / 24,
                                 "hamming_loss": 0.25, "accuracy": 0.5})


@pytest.mark.filterwarnings("ignore:Label not 2 is present:UserWarning")  # scikit-learn's
def test_per_label_classifier_is_one_estimator_per_label_on_its_columns():
    rng = np.random.default_rng(1)
    X = rng.poisson(1.0, size=(60, 8))
    Y = np.column_stack([X[:, 0] > 1, X[:, 5] > 0, np.zeros(60, bool)]).astype(int)
    columns = [np.array([0, 1, 2]), np.array([4, 5]), np.array([7])]
    model = PerLabelClassifier(MultinomialNB(), columns).fit(X, Y)
    assert model.estimators_[2] == 0  # a label no training document has: always "no"
    for j in (0, 1):
        alone = MultinomialNB().fit(X[:, columns[j]], Y[:, j])
        np.testing.assert_array_equal(model.predict(X)[:, j], alone.predict(X[:, columns[j]]))
    assert not model.predict(X)[:, 2].any()
    glob = make_learner("nb", multilabel=True).fit(X, Y)
    np.testing.assert_array_equal(glob.predict(X), OneVsRestClassifier(MultinomialNB()).fit(
        X, Y).predict(X))


def test_the_goemotions_example_plans_its_122_trials(tmp_path, monkeypatch):
    """examples/goemotions.toml: 4 methods x (3 policies + local) x 4 sizes x 2 learners, but
    log_odds_dirichlet's signed scores refuse wavg (skipped, with the reason), and every term
    once per learner (its data stood in by empty files: only the plan is read)."""
    from pathlib import Path

    from textsift.experiment import load_config
    from textsift.experiment._tasks import for_labels
    from textsift.experiment.plan import Selection, plan_trials, selections
    from textsift.experiment.specs import FoldRef, Level

    (tmp_path / "goemotions").mkdir()
    for split in ("train", "test"):
        (tmp_path / "goemotions" / f"{split}.jsonl.gz").touch()
    monkeypatch.setenv("TEXTSIFT_DATA", str(tmp_path))
    exp = for_labels(load_config(Path(__file__).parents[1] / "examples" / "goemotions.toml"),
                     "multilabel")  # as its label lists make it
    pairs, notes = selections(exp)
    assert len(pairs) == 15 and Selection("bns", None, "local") in pairs
    assert Selection("log_odds_dirichlet", "wavg") not in pairs and [n[:61] for n in notes] == [
        "log_odds_dirichlet has no 'wavg' policy (it offers max, rr); "]
    trials = plan_trials(exp, [FoldRef("f", 0, 0)], [Level("n", s) for s in exp.sizes], pairs)
    assert len(trials) == 120 + 2 and all(c.label_set == "train_and_test" for c in trials)


def test_local_scope_of_a_score_of_the_term_alone_is_the_global_selection(tmp_path):
    # df scores a term, not a term and a label: each label's own top k is the global top k,
    # so the local trials equal the global ones (one OneVsRestClassifier against one binary
    # learner per label on the same columns)
    exp = config(write(tmp_path, corpus()), selection={"methods": ["df"], "aggregates": ["max"],
                                                       "scope": ["global", "local"]})
    results = run_experiment(exp, tmp_path / "run").results
    for k in (3, 6):
        for learner in ("linear_svm", "nb"):
            for metric in ("micro_f1", "macro_f1"):
                local = value(results, "local", k, learner, metric, method="df")
                assert local == value(results, "max", k, learner, metric, method="df")
