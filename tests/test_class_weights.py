"""Class weights for the nominal learners, by one rule: ``class_weight`` goes to the
estimator's own parameter (linear SVM, logistic regression) or, for naive Bayes, into the
sample weights of its fit, as scikit-learn's ``compute_sample_weight`` gives them."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score
from sklearn.naive_bayes import MultinomialNB
from sklearn.utils.class_weight import compute_sample_weight
from typer.testing import CliRunner

from textsift.cli import app
from textsift.errors import TextsiftError
from textsift.experiment import ConfigError, parse_config, run_experiment
from textsift.experiment.folds import load_fold
from textsift.learners import LEARNERS, ClassWeighted, get_learner, make_learner


def skewed(n_major=90, n_minor=10, seed=0):
    """Two classes 9:1; column 0 is common in the minority class, the others noise."""
    rng = np.random.default_rng(seed)
    y = np.array([0] * n_major + [1] * n_minor)
    X = rng.poisson(1.0, (len(y), 8))
    X[:, 0] = rng.poisson(np.where(y == 1, 3.0, 0.5))
    return sp.csr_matrix(X.astype(float)), y


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_a_learner_that_takes_class_weight_predicts_the_rare_class_more_with_it(name):
    """For every registered learner (a learner added later too): one with the class_weight
    key (a learner of nominal labels whose estimator weights classes or samples) predicts the
    rare class of the 9:1 toy at least as often with "balanced" as without, and more often
    with the rare class weighted 50; one without it refuses class_weight."""
    learner = LEARNERS[name]
    if "class_weight" not in learner.keys:
        with pytest.raises(TextsiftError, match=f"'{name}'.*does not weight classes"):
            learner.build(class_weight="balanced")
        return
    X, y = skewed()
    rare = [int(np.sum(make_learner(name, class_weight=cw).fit(X, y).predict(X) == 1))
            for cw in (None, "balanced", {1: 50})]
    assert rare[0] <= rare[1] and rare[0] < rare[2], rare


def test_the_class_weight_rule_reads_the_estimator():
    """The estimator's own parameter where it has one, else sample weights (ClassWeighted)."""
    assert isinstance(make_learner("nb", class_weight="balanced")[-1], ClassWeighted)
    assert make_learner("logreg", class_weight="balanced")[-1].class_weight == "balanced"
    assert make_learner("linear_svm", class_weight="balanced")[-1].class_weight == "balanced"
    assert not isinstance(make_learner("nb")[-1], ClassWeighted)  # no weights: the estimator
    with pytest.raises(TextsiftError, match="'svr'.*does not weight classes"):
        get_learner("svr").build(class_weight="balanced")


def test_balanced_nb_is_multinomial_nb_fitted_with_the_balanced_sample_weights():
    X, y = skewed()
    weight = compute_sample_weight("balanced", y)
    # n / (m n_c): 100 / (2 * 90) for the majority, 100 / (2 * 10) for the minority
    np.testing.assert_allclose(np.unique(weight), [100 / 180, 5.0])
    ours = make_learner("nb", class_weight="balanced").fit(X, y)[-1].estimator_
    by_hand = MultinomialNB().fit(X, y, sample_weight=weight)
    np.testing.assert_array_equal(ours.feature_log_prob_, by_hand.feature_log_prob_)
    np.testing.assert_array_equal(ours.class_log_prior_, by_hand.class_log_prior_)
    # balanced: both classes weigh 50 documents in total, so the priors are equal
    np.testing.assert_allclose(np.exp(ours.class_log_prior_), [0.5, 0.5])
    plain = MultinomialNB().fit(X, y)
    np.testing.assert_allclose(np.exp(plain.class_log_prior_), [0.9, 0.1])


def test_a_weight_per_class_by_name_is_rekeyed_to_the_codes_the_learner_sees():
    X, y = skewed()
    names = np.array(["ham", "spam"])  # the experiment encodes labels as codes into these
    nb = make_learner("nb", classes=names, class_weight={"spam": 4}).fit(X, y)[-1]
    assert nb.class_weight == {1: 4}
    by_hand = MultinomialNB().fit(X, y, sample_weight=np.where(y == 1, 4.0, 1.0))
    np.testing.assert_array_equal(nb.estimator_.feature_log_prob_, by_hand.feature_log_prob_)
    lr = make_learner("logreg", "counts", classes=names, class_weight={"spam": 4}).fit(X, y)
    ref = LogisticRegression(max_iter=1000, random_state=0, class_weight={1: 4}).fit(X, y)
    np.testing.assert_allclose(lr[-1].coef_, ref.coef_)
    with pytest.raises(TextsiftError, match=r"names \['sapm'\].*classes are ham, spam"):
        make_learner("nb", classes=names, class_weight={"sapm": 4})


@pytest.mark.parametrize("bad", ["balance", {}, 3])
def test_a_class_weight_that_is_no_table_is_an_error_naming_it(bad):
    with pytest.raises(TextsiftError, match=r'class_weight must be "balanced" or a table of '
                                            "positive weights"):
        make_learner("nb", class_weight=bad)


@pytest.mark.parametrize("weight", [-1, float("nan"), True, "2"])
def test_a_bad_weight_is_an_error_naming_its_class(weight):
    with pytest.raises(TextsiftError, match=rf"class_weight: the weight of class 'a' is "
                                            rf"{weight!r}; weights must be finite numbers > 0"):
        make_learner("nb", class_weight={"a": weight})


# --------------------------------------------------------------------------- experiments
def write_skewed(path, n=200, minority=0.1, seed=0):
    """A made-up two-class corpus with ``minority`` of the documents 'spam', split 3:1."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as fh:
        for i in range(n):
            spam = i < n * minority
            words = rng.choice(["win", "cash", "now", "offer"] if spam else
                               ["meeting", "notes", "lunch", "report"], 4).tolist()
            words += rng.choice(["the", "today", "please", "team", "offer", "report"],
                                4).tolist()
            fh.write(json.dumps({"text": " ".join(words), "label": "spam" if spam else "ham",
                                 "split": "test" if i % 4 == 0 else "train"}) + "\n")
    return path


def config(path, *learners, tasks="multiclass"):
    return {"corpus": {"path": str(path)}, "evaluation": {"tasks": tasks},
            "selection": {"methods": ["chi2"], "sizes": ["all"]},
            "learners": list(learners)}


def test_an_experiments_balanced_nb_is_the_hand_fitted_one(tmp_path):
    """The harness fits naive Bayes with class_weight = "balanced" exactly as MultinomialNB
    fitted by hand on the same fold with compute_sample_weight's weights."""
    exp = parse_config(config(write_skewed(tmp_path / "c.jsonl"),
                              {"name": "nb", "class_weight": "balanced"}))
    table = run_experiment(exp, tmp_path / "out").results
    fold = load_fold(tmp_path / "out" / "cache" / "fold-0.npz")
    y_train, y_test = (fold.y_train == "spam").astype(int), (fold.y_test == "spam").astype(int)
    nb = MultinomialNB().fit(fold.X_train, y_train,
                             sample_weight=compute_sample_weight("balanced", y_train))
    pred = nb.predict(fold.X_test)
    got = table.set_index("metric")["value"]
    assert got["accuracy"] == accuracy_score(y_test, pred)
    assert got["macro_f1"] == f1_score(y_test, pred, average="macro")


def test_class_weights_in_the_experiment_file_are_checked_before_anything_is_written(tmp_path):
    path = write_skewed(tmp_path / "c.jsonl")
    with pytest.raises(ConfigError, match=r"\[\[learners\]\] #1 \(logreg\): class_weight: the "
                                          "weight of class 'spam' is -2"):
        parse_config(config(path, {"name": "logreg", "class_weight": {"spam": -2}}))
    with pytest.raises(ConfigError, match="unknown key 'class_weight' in .*svr"):
        parse_config({"corpus": {"sample": "reviews", "label_kind": "ordinal"},
                      "selection": {"methods": ["var"], "sizes": [5]},
                      "learners": [{"name": "svr", "class_weight": "balanced"}]})
    exp = parse_config(config(path, {"name": "nb", "class_weight": {"sapm": 3}}))
    with pytest.raises(ConfigError, match=r"\[\[learners\]\] nb: class_weight names \['sapm'\]"
                                          ".*the classes are ham, spam"):
        run_experiment(exp, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    # one-vs-rest tasks are binary: their classes are pos and neg
    exp = parse_config(config(path, {"name": "nb", "class_weight": {"spam": 3}},
                              tasks="one_vs_rest"))
    with pytest.raises(ConfigError, match="the classes are neg, pos .*one-vs-rest"):
        run_experiment(exp, tmp_path / "out")
    exp = parse_config(config(path, {"name": "nb", "class_weight": {"pos": 3}},
                              tasks="one_vs_rest"))
    assert len(run_experiment(exp, tmp_path / "out").results) == 4  # 2 tasks x 2 measures


def test_balanced_weights_escape_the_majority_class_trap_in_a_run(tmp_path):
    """On a 9:1 corpus whose minority words also occur in the majority, the unweighted
    logistic regression answers "ham" for nearly everything; balanced, its macro-F1 rises."""
    path = write_skewed(tmp_path / "c.jsonl", n=400, minority=0.1)
    exp = parse_config(config(path, {"name": "logreg", "C": 0.05},
                              {"name": "logreg", "label": "balanced", "C": 0.05,
                               "class_weight": "balanced"}))
    table = run_experiment(exp, tmp_path / "out").results
    f1 = table[table.metric == "macro_f1"].set_index("learner")["value"]
    # "ham" for every test document (90% of them): F1 0.9 / 1.9 on ham, 0 on spam
    assert f1["logreg"] == pytest.approx((2 * 0.9 / 1.9) / 2)
    assert f1["balanced"] == 1.0  # the spam words are in every spam document


def test_the_cli_runs_a_file_with_class_weights(tmp_path):
    path = write_skewed(tmp_path / "c.jsonl")
    toml = tmp_path / "x.toml"
    toml.write_text(f'[corpus]\npath = "{path}"\n[selection]\nmethods = ["chi2"]\n'
                    'sizes = [3]\n[[learners]]\nname = "nb"\nclass_weight = "balanced"\n')
    res = CliRunner().invoke(app, ["run", str(toml), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    learners = json.loads((tmp_path / "o" / "experiment.json").read_text())["config"]["learners"]
    assert learners[0]["params"] == [["class_weight", "balanced"]]


def test_class_weight_may_be_tuned_and_the_choice_is_a_column(tmp_path):
    """[tuning] tries every value, tables (by class name) included; the chosen one is the
    results' class_weight column, a table as its JSON text (one type with "balanced")."""
    path = write_skewed(tmp_path / "c.jsonl", n=400)
    exp = parse_config({**config(path, {"name": "logreg"}),
                        "selection": {"methods": ["chi2"], "sizes": [1, "all"]},
                        "tuning": {"class_weight": [{"spam": 1}, "balanced"]}})
    table = run_experiment(exp, tmp_path / "out").results
    chosen = table[table.metric == "accuracy"].set_index("n_features")["class_weight"]
    # one spam word: the weights change nothing on validation, and the first value of the
    # grid is kept; every term: unweighted, some spam is called ham
    assert chosen.to_dict() == {1: '{"spam": 1}', 12: "balanced"}
    exp = parse_config({**config(path, {"name": "nb"}),
                        "tuning": {"class_weight": ["balanced", {"sapm": 2}]}})
    with pytest.raises(ConfigError, match=r"\[tuning\] class_weight: class_weight names "
                                          r"\['sapm'\]"):
        run_experiment(exp, tmp_path / "other")
