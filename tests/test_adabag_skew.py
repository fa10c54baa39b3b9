"""AdaBag for skewed classes (textsift.lasso.skew): class weights, validation criteria, the
validation threshold, the defaults of ``textsift adabag`` off IMDb, and bad input. The paper's
defaults are pinned on the bundled sample. Small numbers of bootstraps keep it fast."""

import gzip
import hashlib
import json
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import balanced_accuracy_score
from typer.testing import CliRunner

from textsift.cli import app
from textsift.errors import DataWarning, TextsiftError
from textsift.labels.ranks import class_thresholds
from textsift.lasso import (
    CRITERIA,
    AdaBagClassifier,
    choose_threshold,
    class_weights,
    holdout_run,
    resolve_criterion,
    simulate,
)
from textsift.lasso.final import PENALTIES
from textsift.lasso.skew import check_class_weight
from textsift.reading.corpus import load_sample
from textsift.text.vectorize import VectorizerOptions, vectorize


@pytest.fixture(scope="module")
def reviews():
    """The bundled 1-5 star sample (600 reviews per rating), binary words in >= 5 reviews."""
    frame = load_sample("reviews").frame
    X, names, _ = vectorize(frame["text"].astype(str).tolist(),
                            VectorizerOptions(binary=True, min_df=5))
    return X, frame["rating"].to_numpy(float), np.asarray(names)


@pytest.fixture(scope="module")
def skewed(reviews):
    """The sample with one low (1-2 star) review in 8 kept: 150 low, 1,200 high, 600 3-star."""
    X, y, _ = reviews
    keep = np.r_[np.flatnonzero(y <= 2)[::8], np.flatnonzero(y > 2)]
    return X[keep], y[keep]


@pytest.fixture(scope="module")
def sim():
    return simulate(0)


def _sha(words) -> str:
    return hashlib.sha1(" ".join(words).encode()).hexdigest()


def test_the_defaults_are_the_papers_adabag_unchanged(reviews):
    # computed on main (3504e29) before class weights, criteria and thresholds existed: the
    # defaults (no weights, misclassification, the midpoint rule) must give the same words and
    # the same test error, to the last digit
    X, y, names = reviews
    run = holdout_run(AdaBagClassifier(a=2, b=4, n_bootstraps=6, random_state=0), X, y)
    m = run.model
    words = names[m.support_].tolist()
    assert X.shape == (3000, 1960) and len(run.part) == 2400
    assert run.test_error == 103 / 600 and m.validation_error_ == 106 / 600
    assert m.cutoff_ == 2 and len(words) == 182
    assert _sha(words) == "12effaef85cfef01a75b79f84fb2ef3bee32d269"
    assert int(m.frequencies_.sum()) == 795 and int((m.frequencies_ > 0).sum()) == 308
    assert m.threshold_ == 3.0 and m.class_weight_.tolist() == [1.0, 1.0]
    assert m.final == "ols" and m.final_penalty_ is None  # the paper's least squares
    assert m.criterion_.name == "misclassification"
    assert run.test_scores["midpoint"]["misclassification"] == run.test_error
    assert list(run.test_scores) == ["midpoint"]


def test_equal_class_weights_are_no_weights(sim):
    # the lasso normalises its sample weights and least squares ignores their scale, so
    # {0: 3, 1: 3} solves the very problems of no weights
    base = dict(a=sim.a, b=sim.b, n_bootstraps=4, polarity=sim.polarity, random_state=0)
    plain = AdaBagClassifier(**base).fit(sim.X, sim.y)
    same = AdaBagClassifier(**base, class_weight={0: 3, 1: 3}).fit(sim.X, sim.y)
    np.testing.assert_array_equal(same.frequencies_, plain.frequencies_)
    assert same.cutoff_ == plain.cutoff_
    np.testing.assert_allclose(same.coef_, plain.coef_, rtol=1e-8, atol=1e-10)


def test_balanced_weights_serve_the_rare_class(skewed):
    X, y = skewed
    runs = {name: holdout_run(AdaBagClassifier(a=2, b=4, n_bootstraps=4, random_state=0, **kw),
                              X, y)
            for name, kw in {"paper": {}, "balanced": dict(
                class_weight="balanced", criterion="balanced_error")}.items()}
    m = runs["balanced"].model
    # 113 low and 900 high training rows (core + validation, the 2:1:1 split of 150 and
    # 1,200): w_c = 1013 / (2 n_c)
    np.testing.assert_allclose(m.class_weight_, [1013 / 226, 1013 / 1800])
    ba = {k: r.test_scores["midpoint"]["balanced_accuracy"] for k, r in runs.items()}
    # measured: 0.617 (the paper's defaults, 90 words) and 0.734 (147 words) on the 338 test
    # rows (38 low)
    assert ba["paper"] < 0.65 and ba["balanced"] > 0.70
    test = runs["balanced"].kept[runs["balanced"].part == 2]
    assert ba["balanced"] == balanced_accuracy_score(y[test] >= 4, m.predict(X[test]))


def test_the_criterion_chooses_lambda_and_the_cutoff(sim):
    # a callable equal to a named criterion chooses the same (the paths run their whole grid:
    # a callable has no standard error, so its paths would stop otherwise)
    base = dict(a=sim.a, b=sim.b, n_bootstraps=3, polarity=sim.polarity, random_state=0,
                patience=None)
    named = AdaBagClassifier(**base, criterion="balanced_error").fit(sim.X, sim.y)
    own = AdaBagClassifier(**base, criterion=lambda t, p: 1 - balanced_accuracy_score(t, p))
    own.fit(sim.X, sim.y)
    np.testing.assert_array_equal(own.frequencies_, named.frequencies_)
    np.testing.assert_allclose(own.validation_errors_, named.validation_errors_)
    assert own.cutoff_ == named.cutoff_ and own.criterion_.name.endswith("<lambda>")
    # the losses recorded are the criterion's
    assert named.validation_errors_.min() == named.validation_errors_[named.cutoff_ - 1]


def test_named_criteria_are_scikit_learns_metrics_as_losses():
    theta = np.array([0, 0, 0, 1, 1, 1, 1, 1])
    pred = np.array([0, 1, 1, 1, 1, 1, 1, 0])
    # class 0: 1 of 3 right, class 1: 4 of 5; F1 of 1: 2*4 / (2*4 + 2 + 1) = 8/11; of 0: 2/5
    expected = {"misclassification": 3 / 8, "balanced_error": 1 - (1 / 3 + 4 / 5) / 2,
                "f1": 1 - 8 / 11, "f1_low": 1 - 2 / 5, "macro_f1": 1 - (8 / 11 + 2 / 5) / 2}
    assert set(CRITERIA) == set(expected)
    for name, value in expected.items():
        assert resolve_criterion(name).loss(theta, pred) == pytest.approx(value)
    # standard errors: binomial, and the two classes' binomials for the balanced error
    assert CRITERIA["misclassification"].bound(0.375, theta, pred) == pytest.approx(
        0.375 + np.sqrt(0.375 * 0.625 / 8))
    se = np.sqrt((2 / 3) * (1 / 3) / 3 + 0.2 * 0.8 / 5) / 2
    assert CRITERIA["balanced_error"].bound(0.1, theta, pred) == pytest.approx(0.1 + se)
    assert CRITERIA["f1"].bound(0.3, theta, pred) == 0.3  # no standard error


@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=2,
                max_size=60))
def test_balanced_error_is_scikit_learns_to_the_bit(cells):
    # it is computed without scikit-learn's checks (at every lambda): the same floating-point
    # operations, so the same number, for one prediction and for columns of predictions
    theta = np.array([c[0] for c in cells], int)
    theta[:2] = [0, 1]
    preds = np.array([[c[1], c[2]] for c in cells], np.int8)
    expected = [1.0 - balanced_accuracy_score(theta, preds[:, k]) for k in (0, 1)]
    criterion = CRITERIA["balanced_error"]
    assert criterion.losses(theta, preds).tolist() == expected
    assert [criterion.loss(theta, preds[:, k]) for k in (0, 1)] == expected


def test_validation_threshold_is_chosen_and_reported_beside_the_midpoint(skewed):
    # worked: ratings 1, 2, 3, 4 of classes 0, 0, 1, 1 and the midpoint 3.5 (which calls the
    # third row low): the candidates are 0, 1.5, 2.5, 3.5 and 5, and only 2.5 makes no error
    assert choose_threshold([1, 2, 3, 4], np.array([0, 0, 1, 1]),
                            CRITERIA["misclassification"], 3.5) == 2.5
    # ties go to the threshold nearest the midpoint: with classes 0, 1, 0, 1, 1.5 and 3.5 both
    # make one error of 4 (2.2 and 2.5 make two); 1.5 is nearer 2.2
    assert choose_threshold([1, 2, 3, 4], np.array([0, 1, 0, 1]),
                            CRITERIA["misclassification"], 2.2) == 1.5
    X, y = skewed
    run = holdout_run(AdaBagClassifier(a=2, b=4, n_bootstraps=3, random_state=0,
                                       criterion="balanced_error", threshold="validation"), X, y)
    m = run.model
    assert list(run.test_scores) == ["midpoint", "validation"]
    assert run.test_scores["midpoint"]["threshold"] == 3.0
    assert run.test_scores["validation"]["threshold"] == m.threshold_ != 3.0
    test = run.kept[run.part == 2]
    assert run.test_error == np.mean(m.predict(X[test]) != (y[test] >= 4))
    assert np.array_equal(m.predict(X[test]), m.rating(X[test]) >= m.threshold_)
    for rule, scores in run.test_scores.items():
        pred = m.rating(X[test]) >= scores["threshold"]
        assert scores["balanced_accuracy"] == balanced_accuracy_score(y[test] >= 4, pred), rule


def test_class_weights_of_each_form():
    theta = np.array([0] * 10 + [1] * 30)
    assert class_weights(None, theta) is None
    np.testing.assert_allclose(class_weights("balanced", theta), [2.0, 2 / 3])
    np.testing.assert_allclose(class_weights({0: 5}, theta), [5.0, 1.0])  # a class left out: 1


def _noise(seed=0):
    """300 rows of 50 words drawn independently of the ratings (15% low, 1; the rest 5)."""
    rng = np.random.default_rng(seed)
    X = sp.csr_matrix((rng.random((300, 50)) < 0.2).astype(float))
    return X, np.where(rng.random(300) < 0.15, 1.0, 5.0)


def test_a_model_without_words_is_a_warning_with_its_reason():
    # words independent of the ratings: no model with words beats the intercept alone on
    # validation, so c* = B and the model is empty, in every weighting
    X, y = _noise()
    base = dict(a=2, b=4, n_bootstraps=3, random_state=0)
    with pytest.warns(DataWarning, match=r"AdaBag chose the model with no word \(cutoff 3 of "
                      r"3\): on the validation rows no model with words has a lower "
                      r"loss \(misclassification\) than the intercept alone, which calls every row "
                      r"high; the words do not separate the classes on validation; when one "
                      r"class is rare, use class_weight='balanced'"):
        m = AdaBagClassifier(**base).fit(X, y)
    assert m.support_.sum() == 0 and m.cutoff_ == 3
    # with class weights, misclassification counts each rare row gained against the common
    # rows lost (amazon_alexa, docs/reproductions.md: c* = B in every run): the hint says so
    with pytest.warns(DataWarning, match="with class weights each fit buys the rare class's "
                      "rows with errors on the common class, which misclassification counts"):
        AdaBagClassifier(**base, class_weight="balanced").fit(X, y)
    with warnings.catch_warnings():  # a model with words warns nothing (the pinned sample)
        warnings.simplefilter("error", DataWarning)
        sim = simulate(0)
        AdaBagClassifier(a=sim.a, b=sim.b, n_bootstraps=2, polarity=sim.polarity,
                         random_state=0).fit(sim.X, sim.y)


def test_default_thresholds_come_from_the_rating_scale():
    assert class_thresholds([1, 2, 3, 4, 5]) == (2, 4)
    assert class_thresholds([1, 2, 3, 4, 7, 8, 9, 10]) == (4, 7)  # IMDb: the paper's
    assert class_thresholds([0, 1, 2, 3]) == (1, 2) and class_thresholds([0, 1]) == (0, 1)
    assert class_thresholds([1, 2, 3, 4, 5, 6, 7]) == (3, 5)
    with pytest.raises(TextsiftError, match="every rating is 3"):
        class_thresholds([3, 3])


# ------------------------------------------------------------------------- bad input
def _nan_loss(theta, pred):
    return np.nan if pred.min() == pred.max() else 0.5


@pytest.mark.parametrize("params, message", [
    ({"class_weight": {2: 1.0}}, r"class_weight names \[2\], which are not classes of the "
                                 "labels; the classes are 0, 1"),
    ({"class_weight": {0: 1.0, "0": 2.0}}, "class_weight names a class twice"),
    ({"class_weight": {0: -1.0}}, "the weight of class 0 is -1.0; weights must be finite"),
    ({"class_weight": {1: np.nan}}, "the weight of class 1 is nan"),
    ({"class_weight": "balance"}, "class_weight must be \"balanced\" or a table of positive "
                                  "weights"),
    ({"criterion": "balanced_eror"}, r"criterion='balanced_eror' is not a criterion \(did you "
                                     "mean 'balanced_error'"),
    ({"criterion": 3}, "criterion=3 is not a criterion: choose one of misclassification"),
    ({"criterion": "f1", "cutoff_selection": "1se"}, "cutoff_selection='1se' needs the "
                                                     "standard error of the criterion"),
    ({"criterion": _nan_loss}, "criterion '.*_nan_loss' returned nan"),
    ({"threshold": "best"}, "threshold='best': choose one of midpoint, validation"),
])
def test_bad_parameters_fail_before_any_bootstrap(sim, tmp_path, params, message):
    calls = []
    est = AdaBagClassifier(a=sim.a, b=sim.b, n_bootstraps=2, random_state=0,
                           store=tmp_path / "boot", progress=lambda *a: calls.append(a),
                           **params)
    with pytest.raises(TextsiftError, match=message):
        est.fit(sim.X, sim.y)
    assert calls == [] and not (tmp_path / "boot").exists()


@given(st.dictionaries(st.one_of(st.integers(-3, 3), st.text(max_size=2), st.booleans()),
                       st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                                 st.integers(-2, 5)), max_size=3))
def test_class_weight_is_accepted_exactly_when_its_classes_are_0_1_and_its_weights_positive(
        cw):
    """The learners' one check (textsift.learners.check_class_weight: a non-empty table of
    finite weights > 0, classes matched by their names as text, each once) over the classes
    0 and 1."""
    names = [str(c) for c in cw]
    good = (cw and set(names) <= {"0", "1"} and len(set(names)) == len(names)
            and all(type(w) is not bool and np.isfinite(w) and w > 0 for w in cw.values()))
    if good:
        check_class_weight(cw)
        by_name = {str(c): float(w) for c, w in cw.items()}
        assert class_weights(cw, [0, 1]).tolist() == [by_name.get(c, 1.0) for c in "01"]
    else:
        with pytest.raises(TextsiftError, match="class_weight"):
            check_class_weight(cw)


def test_a_criterion_that_returns_nan_later_is_named():
    calls = []

    def late(theta, pred):  # finite on the three checks, NaN at the first validation
        calls.append(1)
        return 0.5 if len(calls) <= 3 else np.nan

    sim = simulate(0)
    with pytest.raises(TextsiftError, match="criterion '.*late' returned nan"):
        AdaBagClassifier(a=sim.a, b=sim.b, n_bootstraps=1, random_state=0,
                         criterion=late).fit(sim.X, sim.y)


# ------------------------------------------------------------------------- CLI
@pytest.fixture(scope="module")
def stars(tmp_path_factory):
    """48 made-up reviews, 1-5 stars, J-shaped (18 five-star, 6 one-star), gzipped JSONL."""
    rows = []
    for i in range(48):
        r = [5, 5, 5, 4, 4, 3, 2, 1][i % 8]
        words = {5: "great fit love", 4: "nice fit", 3: "fine fit", 2: "poor fit",
                 1: "awful poor fit"}[r]
        rows.append({"text": f"{words} dress {'soft' if i % 3 else 'size'}", "rating": r})
    path = tmp_path_factory.mktemp("stars") / "reviews.jsonl.gz"
    path.write_bytes(gzip.compress("\n".join(json.dumps(r) for r in rows).encode()))
    return str(path)


@pytest.mark.slow
def test_cli_runs_on_star_ratings_with_no_other_option(stars, tmp_path):
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["adabag", stars, "--label-field", "rating", "--out",
                                   str(out)])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["a"], summary["b"]) == (2, 4)
    assert summary["thresholds"] == "from the ratings found (1, 2, 3, 4, 5)"
    assert summary["polarity"] == "uniform (no --polarity: the plain lasso)"
    assert summary["n_bootstraps"] == 100 and summary["criterion"] == "misclassification"
    text = " ".join(res.output.split())
    assert "classes: low <= 2, high >= 4 (from the ratings found" in text
    assert "the plain lasso" in text
    # 42 of the 48 reviews are low (12) or high (30), split 2:1:1 within each class: 6 + 15
    # core, 3 + 8 validation, 3 + 7 test; "poor" separates the classes
    assert summary["split_sizes"] == {"core": 21, "validation": 11, "test": 10}
    assert "poor" in summary["selected_terms"]


def test_cli_class_weight_criterion_and_threshold(stars, tmp_path):
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["adabag", stars, "--label-field", "rating", "--min-df", "1",
                                   "--class-weight", "balanced", "--criterion",
                                   "balanced_error", "--threshold", "validation", "-B", "3",
                                   "--low", "1", "--final", "logistic", "--out", str(out)])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["a"], summary["b"]) == (1, 4)  # --low given, --high from the scale
    assert summary["criterion"] == "balanced_error" and summary["threshold_rule"] == "validation"
    # logistic regression: the midpoint rule is the log-odds 0, C one of the grid's
    assert summary["final"] == "logistic" and summary["final_penalty"] in PENALTIES["logistic"]
    # 6 one-star and 30 high reviews kept, 3 + 2 and 15 + 8 of them in core + validation:
    # w_c = 28 / (2 n_c)
    assert summary["class_weight"] == pytest.approx([28 / 10, 28 / 46])
    assert set(summary["test_scores"]) == {"midpoint", "validation"}
    assert "midpoint threshold 0.0000: test error" in res.stdout
    assert "validation threshold" in res.stdout


@pytest.mark.parametrize("args, message", [
    (["--class-weight", "0=2,x=1"], "--class-weight '0=2,x=1': use none, balanced, or the "
                                    "weights of the classes as 0=W0,1=W1"),
    (["--class-weight", "0=-2"], "class_weight: the weight of class 0 is -2.0"),
    (["--class-weight", "3=1"], "class_weight names [3], which are not classes"),
    (["--criterion", "accuracy"], "Invalid value for '--criterion'"),
    (["--final", "lasso"], "Invalid value for '--final'"),
    (["--low", "4", "--high", "2"], "need --low < --high, got 4 and 2"),
])
def test_cli_bad_skew_options(stars, tmp_path, args, message):
    out = tmp_path / "o"
    res = CliRunner().invoke(app, ["adabag", stars, "--label-field", "rating", *args, "--out",
                                   str(out)])
    assert res.exit_code == 2 and message in " ".join(res.output.split()), res.output
    assert not out.exists()
