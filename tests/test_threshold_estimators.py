"""The estimators that decide a multi-label learner's labels: the fixed cuts (given
thresholds, RCut, PCut), the tuned ones (SCut on inner folds, micromacro) and the
cost-sensitive learner -- worked examples, identities with scikit-learn, invariants
(hypothesis), scikit-learn's API checks, and that inner tuning never sees the test part."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.model_selection import KFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import (
    check_get_params_invariance,
    check_no_attributes_set_in_init,
    check_parameters_default_constructible,
    check_set_params,
)
from test_experiment_multilabel import config, corpus, write
from test_thresholds import multilabel

from textsift.errors import TextsiftError
from textsift.experiment import ConfigError, run_experiment
from textsift.learners import (
    COST_WEIGHTS,
    CostSensitiveClassifier,
    FixedThresholdClassifier,
    TunedThresholdClassifier,
    make_learner,
)
from textsift.learners._thresholds import micromacro_cut, scut_threshold


def svm():
    return OneVsRestClassifier(LinearSVC(random_state=0))


# ------------------------------------------------------------------ the cuts, worked
def test_micromacro_cut_weighs_the_labels_already_cut():
    """Scores 0.9, 0.8, 0.3, 0.1 with labels 1, 0, 1, 0. Alone (m = 1, nothing before):
    micro-F1 = F1, so the objective is 2 F1 -- 4/3, 1, 8/5, 4/3 for the top 1..4: the top
    three (cut 0.2), SCut's cut. After labels with tp = 10, fp = 0, fn = 0 and m = 2, the
    top one gives 22/23 + (2/3)/2 = 1.290 and the top three 24/25 + (4/5)/2 = 1.36: still
    the top three; with fp = 0, fn = 30 before, the top one gives 22/53 + 1/3 = 0.748, the
    top three 24/55 + 0.4 = 0.836."""
    s, y = np.array([0.9, 0.8, 0.3, 0.1]), np.array([1, 0, 1, 0])
    assert micromacro_cut(s, y) == (0.2, (2, 1, 0))
    assert micromacro_cut(s, y, tp=10, m=2) == (0.2, (2, 1, 0))
    assert micromacro_cut(s, y, tp=10, fn=30, m=2) == (0.2, (2, 1, 0))
    # no positive: assigning none is best (objective 0 everywhere but micro's counts): the
    # cut just above the top score
    t, counts = micromacro_cut(s, np.zeros(4, dtype=int), tp=5, m=2)
    assert t == np.nextafter(0.9, np.inf) and counts == (0, 0, 0)
    # every document positive: all assigned, the cut just below the lowest score
    t, counts = micromacro_cut(s, np.ones(4, dtype=int))
    assert t == np.nextafter(0.1, -np.inf) and counts == (4, 0, 0)


def _brute_objective(s, y, t, tp, fp, fn, m):
    pred = s > t
    a, b, c = (pred & (y == 1)).sum(), (pred & (y == 0)).sum(), (~pred & (y == 1)).sum()
    micro = 2 * (a + tp) / (2 * (a + tp) + b + c + fp + fn) if (a + tp + b + c + fp + fn) else 0
    macro = 2 * a / (2 * a + b + c) if (a + b + c) else 0
    return micro + macro / m


scores_and_labels = st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(-5, 5), min_size=n, max_size=n).map(lambda v: np.array(v, float)),
    st.lists(st.integers(0, 1), min_size=n, max_size=n).map(np.array)))


@given(scores_and_labels, st.integers(0, 20), st.integers(0, 20), st.integers(0, 20),
       st.integers(1, 5))
def test_micromacro_cut_is_the_best_of_every_cut(data, tp, fp, fn, m):
    """Invariant: no threshold (every midpoint of the distinct scores, and beyond both ends)
    reaches a higher micro + macro/m objective than the one chosen, whose counts are its own."""
    s, y = data
    t, counts = micromacro_cut(s, y, tp, fp, fn, m)
    u = np.unique(s)
    candidates = np.r_[u[0] - 1, (u[1:] + u[:-1]) / 2, u[-1] + 1]
    best = max(_brute_objective(s, y, c, tp, fp, fn, m) for c in candidates)
    assert _brute_objective(s, y, t, tp, fp, fn, m) == pytest.approx(best)
    pred = s > t
    assert counts == ((pred & (y == 1)).sum(), (pred & (y == 0)).sum(),
                      (~pred & (y == 1)).sum())


@given(scores_and_labels)
def test_scut_and_a_lone_micromacro_cut_assign_the_same_documents(data):
    """For one label with nothing before it, micro-F1 + F1/1 is 2 F1: both cuts maximise
    F1, ties to the higher cut -- the same documents assigned (fbr = 0; where no cut has an
    F1 above 0 SCut falls back to the top score and micromacro assigns none)."""
    s, y = data
    t_scut, f1 = scut_threshold(s, y, fbr=0.0)
    t_mm, _ = micromacro_cut(s, y)
    if f1 > 0:
        np.testing.assert_array_equal(s > t_scut, s > t_mm)
    else:
        assert not (s > t_mm).any() and not (s > t_scut).any()


# ------------------------------------------------------------------ fixed cuts
@given(st.integers(1, 6), st.integers(0, 10_000))
def test_rcut_gives_each_document_min_rank_labels(rank, seed):
    rng = np.random.default_rng(seed)
    X = rng.random((20, 6))
    Y = np.eye(4, dtype=int)[rng.integers(0, 4, 20)]
    Y[:, 3] = Y[:, 3] | (rng.random(20) < 0.3)
    Y[:4] = np.eye(4, dtype=int)  # every label has a document and lacks one
    with pytest.warns() if rank >= 4 else _nothing():
        clf = FixedThresholdClassifier(svm(), "rcut", rank=rank).fit(X, Y)
    assert (clf.predict(X).sum(axis=1) == min(rank, 4)).all()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@given(st.floats(0.1, 3.0), st.integers(5, 40), st.integers(0, 10_000))
def test_pcut_gives_each_label_its_share_of_the_batch(proportion, n_test, seed):
    """PCut: label j goes to round(p_j x proportion x n) documents of a batch of n (at most
    n), p_j its training share, and they are its best-scoring ones."""
    rng = np.random.default_rng(seed)
    X, Y = rng.random((60, 5)), (rng.random((60, 3)) < [0.5, 0.2, 0.05]).astype(int)
    Y[0] = 1  # every label has a document
    Y[1] = 0
    clf = FixedThresholdClassifier(svm(), "pcut", proportion=proportion).fit(X, Y)
    T = rng.random((n_test, 5))
    pred, scores = clf.predict(T), clf.decision_function(T)
    want = np.minimum(np.rint(Y.mean(axis=0) * proportion * n_test), n_test)
    np.testing.assert_array_equal(pred.sum(axis=0), want)
    for j in range(3):
        if 0 < want[j] < n_test:
            assert scores[pred[:, j] == 1, j].min() >= scores[pred[:, j] == 0, j].max()


def test_a_given_threshold_is_the_default_cut_or_one_per_label():
    """threshold = 0 on a linear SVM's decision values is OneVsRestClassifier's own cut; one
    threshold per label cuts each at its own; a wrong length is refused."""
    X, Y = multilabel()
    plain = clone(svm()).fit(X, Y).predict(X)
    np.testing.assert_array_equal(FixedThresholdClassifier(svm()).fit(X, Y).predict(X), plain)
    cuts = np.array([0.0, -0.5, 0.5, -1.0, 1.0])
    clf = FixedThresholdClassifier(svm(), threshold=cuts).fit(X, Y)
    np.testing.assert_array_equal(clf.predict(X), clf.decision_function(X) > cuts)
    with pytest.raises(TextsiftError, match=r"threshold has shape \(2,\), but the labels are 5"):
        FixedThresholdClassifier(svm(), threshold=[0.1, 0.2]).fit(X, Y)


# ------------------------------------------------------------------ tuned cuts
def test_scut_on_inner_folds_is_the_mean_of_each_fold_cut():
    """cv = 3: each label's threshold is the mean of SCut's cuts on the three held-out folds
    of KFold(3, shuffle, seed 0), each by a learner fitted on the other two; the learner is
    then refit on everything."""
    X, Y = multilabel(n=240)
    clf = TunedThresholdClassifier(svm(), cv=3, fbr=0.1).fit(X, Y)
    cuts = []
    for fit, val in KFold(3, shuffle=True, random_state=0).split(Y):
        scores = clone(svm()).fit(X[fit], Y[fit]).decision_function(X[val])
        row = []
        for j in range(Y.shape[1]):
            t, _ = scut_threshold(scores[:, j], Y[val, j], 0.1, "top")
            row.append(np.nextafter(scores[:, j].min(), -np.inf) if t == -np.inf else t)
        cuts.append(row)
    np.testing.assert_allclose(clf.thresholds_, np.mean(cuts, axis=0))
    np.testing.assert_array_equal(clf.decision_function(X),
                                  clone(svm()).fit(X, Y).decision_function(X))


def test_micromacro_takes_the_labels_from_the_most_frequent():
    """The first label cut (the most frequent, 40%: label 0) sees no counts before it, so
    its threshold is the mean of micromacro_cut's lone cuts of each fold (= SCut's F1
    optimum); the thresholds are finite for every label."""
    X, Y = multilabel(n=240)
    clf = TunedThresholdClassifier(svm(), "micromacro").fit(X, Y)  # 3 folds by default
    lone = [micromacro_cut(clone(svm()).fit(X[fit], Y[fit]).decision_function(X[val])[:, 0],
                           Y[val, 0])[0]
            for fit, val in KFold(3, shuffle=True, random_state=0).split(Y)]
    assert np.argmax(Y.sum(axis=0)) == 0
    assert clf.thresholds_[0] == pytest.approx(np.mean(lone))
    assert np.isfinite(clf.thresholds_).all()


def test_too_many_inner_folds_are_refused():
    X, Y = multilabel(n=4)
    with pytest.raises(TextsiftError, match="cv = 5 inner folds need at least 5 training "
                                            "documents, there are 4; lower cv"):
        TunedThresholdClassifier(svm(), cv=5).fit(X, Y)


# ------------------------------------------------------------------ cost-sensitive
def _svm_pipeline():
    return make_pipeline(TfidfTransformer(), LinearSVC(random_state=0))


def test_one_weight_is_one_vs_rest():
    """weights = (1,): every label's learner is the plain one -- OneVsRestClassifier's
    predictions and decision values, the weighting fitted once on all the columns."""
    X, Y = multilabel()
    cost = CostSensitiveClassifier(_svm_pipeline(), weights=(1.0,)).fit(X, Y)
    ovr = make_pipeline(TfidfTransformer(), OneVsRestClassifier(LinearSVC(random_state=0)))
    ovr.fit(X, Y)
    np.testing.assert_array_equal(cost.predict(X), ovr.predict(X))
    np.testing.assert_allclose(cost.decision_function(X), ovr.decision_function(X))
    assert (cost.weights_ == 1.0).all()


def test_shared_weighting_and_per_label_columns_agree():
    """The weighting fitted once per fold for every label (columns None) is the one each
    label's pipeline fits on the same columns: the same weights chosen, the same labels."""
    X, Y = multilabel()
    every = [np.arange(X.shape[1])] * Y.shape[1]
    a = CostSensitiveClassifier(_svm_pipeline()).fit(X, Y)
    b = CostSensitiveClassifier(_svm_pipeline(), columns=every).fit(X, Y)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert set(a.weights_) <= set(COST_WEIGHTS)


def test_cost_chooses_the_weight_of_the_best_held_out_f1():
    """For one label, the chosen weight's pooled held-out F1 (KFold(3, shuffle, seed 0)) is
    the highest over the grid, the first on a tie."""
    from sklearn.metrics import f1_score

    X, Y = multilabel(n=240)
    cost = CostSensitiveClassifier(_svm_pipeline(), cv=3).fit(X, Y)
    j = 4  # the rarest label
    f1 = []
    for w in COST_WEIGHTS:
        pred = np.zeros(len(Y), dtype=int)
        for fit, val in KFold(3, shuffle=True, random_state=0).split(X):
            model = make_pipeline(TfidfTransformer(), LinearSVC(
                random_state=0, class_weight={0: 1.0, 1: w})).fit(X[fit], Y[fit, j])
            pred[val] = model.predict(X[val])
        f1.append(f1_score(Y[:, j], pred))
    assert cost.weights_[j] == COST_WEIGHTS[int(np.argmax(f1))]


def test_cost_refuses_bad_weights_and_a_fixed_class_weight():
    X, Y = multilabel()
    with pytest.raises(TextsiftError, match=r"weights must be positive numbers to try, got "
                                            r"\[0, 2\]"):
        CostSensitiveClassifier(_svm_pipeline(), weights=[0, 2]).fit(X, Y)
    with pytest.raises(TextsiftError, match="chooses each label's class_weight: learner "
                                            "'linear_svm' is given one; drop class_weight"):
        make_learner("linear_svm", multilabel=True, threshold="cost", class_weight="balanced")


def test_every_strategy_from_make_learner():
    """Each strategy is the estimator it names, on every multi-label learner (nb's weights
    go through ClassWeighted's sample weights)."""
    X, Y = multilabel()
    kinds = {"scut": TunedThresholdClassifier, "micromacro": TunedThresholdClassifier,
             "rcut": FixedThresholdClassifier, "pcut": FixedThresholdClassifier,
             "cost": CostSensitiveClassifier}
    for name in ("linear_svm", "nb"):
        for cut, kind in kinds.items():
            model = make_learner(name, multilabel=True, threshold=cut, val_size=0.25)
            assert isinstance(model, kind)
            assert model.fit(X, Y).predict(X).shape == Y.shape


# ------------------------------------------------------------------ scikit-learn's API
@pytest.mark.parametrize("estimator", [
    FixedThresholdClassifier(svm()), FixedThresholdClassifier(svm(), "pcut", proportion=2.0),
    TunedThresholdClassifier(svm(), cv=3), TunedThresholdClassifier(svm(), "micromacro"),
    CostSensitiveClassifier(_svm_pipeline(), weights=(1.0, 2.0)),
], ids=lambda e: f"{type(e).__name__}")
def test_the_estimators_follow_scikit_learn_api_checks(estimator):
    """scikit-learn's checks that need no 1-D classification data (these take label sets):
    parameters stored as given, no attribute set in __init__, get/set_params round trips;
    then a fit on sparse counts does not change the parameters, clones fit alike, and an
    unfitted estimator raises NotFittedError."""
    import scipy.sparse as sp
    from sklearn.exceptions import NotFittedError

    name = type(estimator).__name__
    check_parameters_default_constructible(name, estimator)
    check_no_attributes_set_in_init(name, clone(estimator))
    check_get_params_invariance(name, clone(estimator))
    check_set_params(name, clone(estimator))
    X, Y = multilabel()
    X = sp.csr_matrix(X)
    with pytest.raises(NotFittedError):
        clone(estimator).predict(X)
    params = clone(estimator).get_params(deep=False)
    a = clone(estimator)
    a.fit(X, Y)
    assert {k: repr(v) for k, v in a.get_params(deep=False).items()} == {
        k: repr(v) for k, v in params.items()}
    np.testing.assert_array_equal(a.predict(X), clone(estimator).fit(X, Y).predict(X))
    assert a.predict(X).shape == Y.shape and set(np.unique(a.predict(X))) <= {0, 1}
    assert a.__sklearn_tags__().input_tags.sparse


@pytest.mark.parametrize(("estimator", "message"), [
    (TunedThresholdClassifier(svm(), cv=1), "'cv' parameter"),
    (TunedThresholdClassifier(svm(), "pcut"), "'strategy' parameter"),
    (FixedThresholdClassifier(svm(), "scut"), "'strategy' parameter"),
    (FixedThresholdClassifier(svm(), "pcut", proportion=0), "'proportion' parameter"),
    (CostSensitiveClassifier(_svm_pipeline(), cv=1), "'cv' parameter"),
])
def test_parameters_out_of_range_are_refused(estimator, message):
    from sklearn.utils._param_validation import InvalidParameterError

    X, Y = multilabel(n=40)
    with pytest.raises(InvalidParameterError, match=message):
        estimator.fit(X, Y)


# ------------------------------------------------------------------ the harness
def _poisoned(records, seed=1):
    """The test records' label sets shuffled among them (every label keeps its test
    count): the test part's labels are wrong, the training part's untouched."""
    rng = np.random.default_rng(seed)
    test = [i for i, r in enumerate(records) if r["split"] == "test"]
    labels = [records[i]["labels"] for i in test]
    order = rng.permutation(len(test))
    out = [dict(r) for r in records]
    for i, k in zip(test, order, strict=True):
        out[i]["labels"] = labels[k]
    assert any(out[i]["labels"] != records[i]["labels"] for i in test)
    return out


def test_inner_tuning_never_sees_the_test_part(tmp_path, monkeypatch):
    """The thresholds chosen (SCut on 3 inner folds with fbr tuned by [tuning] on the
    validation part, micromacro) and the weights (cost) are the same whether the test
    part's labels are right or shuffled: only the measures change."""
    import textsift.learners._costs as costs
    import textsift.learners._thresholds as cuts

    chosen: list = []
    for cls, attr in ((cuts.TunedThresholdClassifier, "thresholds_"),
                      (costs.CostSensitiveClassifier, "weights_")):
        fit = cls.fit

        def recording(self, X, Y, _fit=fit, _attr=attr):
            out = _fit(self, X, Y)
            chosen.append((type(self).__name__, X.shape, np.round(getattr(self, _attr), 12)))
            return out

        monkeypatch.setattr(cls, "fit", recording)
    learners = [{"name": "linear_svm", "threshold": "scut", "cv": 3},
                {"name": "linear_svm", "threshold": "micromacro"},
                {"name": "linear_svm", "threshold": "cost"}]
    records = corpus(n=200)
    runs = []
    for name, recs in (("clean", records), ("poisoned", _poisoned(records))):
        chosen.clear()
        exp = config(write(tmp_path, recs, name=f"{name}.jsonl"), learners=learners,
                     tuning={"fbr": [0.1, 0.5]}, selection={"sizes": [6]},
                     experiment={"name": name, "seed": 0})
        summary = run_experiment(exp, tmp_path / name)
        runs.append((list(chosen), summary.results))
    (clean, clean_results), (poisoned, poisoned_results) = runs
    assert len(clean) == len(poisoned) > 0
    for (n1, s1, t1), (n2, s2, t2) in zip(clean, poisoned, strict=True):
        assert (n1, s1) == (n2, s2)
        np.testing.assert_array_equal(t1, t2)
    assert clean_results["fbr"].equals(poisoned_results["fbr"])  # [tuning]'s choice
    assert not np.allclose(clean_results["value"].to_numpy(float),
                           poisoned_results["value"].to_numpy(float))


def test_the_new_thresholds_are_rows_of_an_experiment(tmp_path):
    """threshold = "pcut", "micromacro", "cost" in [[learners]]: each a row of the results;
    its keys checked when the file is read."""
    exp = config(write(tmp_path, corpus(n=160)), selection={"sizes": [6]},
                 learners=[{"name": "linear_svm", "threshold": "pcut", "proportion": 1.5},
                           {"name": "linear_svm", "threshold": "micromacro", "cv": 2},
                           {"name": "nb", "threshold": "cost", "cv": 2}])
    summary = run_experiment(exp, tmp_path / "run")
    assert set(summary.results["learner"]) == {"linear_svm+pcut", "linear_svm+micromacro",
                                               "nb+cost"}
    for learner, message in [({"name": "nb", "threshold": "pcut", "cv": 3},
                              "cv is not a key of threshold = 'pcut', which reads proportion"),
                             ({"name": "nb", "threshold": "scut", "cv": 1}, "'cv' parameter"),
                             ({"name": "nb", "threshold": "pcut", "proportion": -1},
                              "'proportion' parameter")]:
        with pytest.raises(ConfigError, match=message):
            run_experiment(config(write(tmp_path, corpus(n=40)), learners=[learner]),
                           tmp_path / "bad")


def test_one_vs_rest_on_a_sparse_indicator_is_scikit_learns():
    """The registry's one-vs-rest (fitted on the indicator as a sparse matrix, for speed) has
    scikit-learn's OneVsRestClassifier's decision values and predictions, a dense 0/1
    indicator."""
    from textsift.learners._estimators import OneVsRest

    X, Y = multilabel()
    ours = OneVsRest(LinearSVC(random_state=0)).fit(X, Y)
    theirs = OneVsRestClassifier(LinearSVC(random_state=0)).fit(X, Y)
    np.testing.assert_array_equal(ours.decision_function(X), theirs.decision_function(X))
    pred = ours.predict(X)
    assert isinstance(pred, np.ndarray)
    np.testing.assert_array_equal(pred, theirs.predict(X))


def test_cost_with_a_label_an_inner_fold_lacks():
    """A label with two positive documents, both in one inner fold: the other folds' training
    parts have none of it, where the learner cannot be fitted; those folds predict 0 for it
    (scikit-learn's constant one-vs-rest answer), and the fit completes with a weight."""
    X, Y = multilabel(n=60)
    fit, val = next(iter(KFold(3, shuffle=True, random_state=0).split(X)))
    Y[:, 4] = 0
    Y[val[:2], 4] = 1
    cost = CostSensitiveClassifier(_svm_pipeline()).fit(X, Y)
    assert cost.weights_[4] in COST_WEIGHTS
    assert cost.predict(X).shape == Y.shape


def test_a_fraction_of_cv_is_one_validation_part():
    """cv = 0.25 (scikit-learn's TunedThresholdClassifierCV convention) holds out one
    validation part of a quarter: the thresholds of cv=None with val_size=0.25."""
    X, Y = multilabel()
    a = TunedThresholdClassifier(svm(), cv=0.25).fit(X, Y)
    b = TunedThresholdClassifier(svm(), cv=None, val_size=0.25).fit(X, Y)
    np.testing.assert_array_equal(a.thresholds_, b.thresholds_)
    c = make_learner("linear_svm", multilabel=True, threshold="scut", cv=0.25)
    assert c.cv == 0.25
