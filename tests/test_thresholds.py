"""Per-label thresholds of multi-label learners: SCut and RCut (Yang 2001)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics import f1_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.naive_bayes import MultinomialNB
from sklearn.svm import LinearSVC

from textsift.errors import TextsiftError
from textsift.learners import (
    FixedThresholdClassifier,
    PerLabelClassifier,
    TunedThresholdClassifier,
    make_learner,
)
from textsift.learners._thresholds import label_scores, scut_threshold


def test_scut_cuts_where_the_label_f1_is_best():
    """Scores 0.9, 0.8, 0.3, 0.1 with labels 1, 0, 1, 0: assigning the top 1, 2, 3, 4 gives
    F1 = 2 tp / (assigned + positives) = 2/3, 2/4, 4/5, 4/6; the best, 4/5, cuts between 0.3
    and 0.1."""
    assert scut_threshold(np.array([0.1, 0.9, 0.3, 0.8]), np.array([0, 1, 1, 0])) == (0.2, 0.8)
    # a tie of F1: the higher cut (2/3 at the top document, 2/4, 2/5, then 4/6 at all four)
    t, f1 = scut_threshold(np.array([4.0, 3.0, 2.0, 1.0]), np.array([1, 0, 0, 1]))
    assert (t, f1) == (3.5, pytest.approx(2 / 3))
    # tied scores cannot be cut apart: [5, 5, 1] with labels 1, 0, 0 -> top two or all
    t, f1 = scut_threshold(np.array([5.0, 5.0, 1.0]), np.array([1, 0, 0]))
    assert (t, f1) == (3.0, pytest.approx(2 / 3))
    # every document assigned is best: no cut below the lowest score
    assert scut_threshold(np.array([2.0, 1.0]), np.array([1, 1]))[0] == -np.inf


def test_a_label_below_fbr_falls_back():
    """Scores 0.9, 0.5, 0.2 with labels 0, 1, 0: the best F1 is 2 * 1 / (2 + 1) = 2/3, at
    the top two (cut 0.35); below fbr = 0.7 the cut falls back to the highest score
    (SCutFBR.1) or to never (SCutFBR.0); a label without a positive always falls back."""
    s, y = np.array([0.9, 0.5, 0.2]), np.array([0, 1, 0])
    assert scut_threshold(s, y, fbr=0.5) == (0.35, pytest.approx(2 / 3))
    assert scut_threshold(s, y, fbr=0.7) == (0.9, pytest.approx(2 / 3))
    assert scut_threshold(s, y, fbr=0.7, fallback="never") == (np.inf, pytest.approx(2 / 3))
    assert scut_threshold(s, np.zeros(3), fbr=0.0) == (0.9, 0.0)


def multilabel(seed=0, n=300, terms=40, labels=5):
    """Documents whose label j raises the counts of terms 4j .. 4j + 3; label frequencies
    from 40% down to 2%."""
    rng = np.random.default_rng(seed)
    share = np.linspace(0.4, 0.02, labels)
    Y = (rng.random((n, labels)) < share).astype(int)
    rate = np.full((n, terms), 0.3)
    for j in range(labels):
        rate[:, 4 * j:4 * j + 4] += 2.0 * Y[:, [j]]
    return sp.csr_matrix(rng.poisson(rate).astype(float)), Y


def test_scut_thresholds_are_each_label_best_cut_on_the_validation_part():
    """With refit=False the estimator is the one fitted on the rest of the split, so the
    predictions on the validation documents reach each label's validation F1 (the optimum
    SCut found), unless the label fell back."""
    from sklearn.model_selection import train_test_split

    X, Y = multilabel()
    clf = TunedThresholdClassifier(OneVsRestClassifier(LinearSVC(random_state=0)), fbr=0.0,
                                   refit=False, cv=None).fit(X, Y)
    _, val = train_test_split(np.arange(len(Y)), test_size=0.2, random_state=0)
    pred = clf.predict(X[val])
    for j in range(Y.shape[1]):
        if Y[val, j].any():
            assert f1_score(Y[val, j], pred[:, j]) == pytest.approx(clf.validation_f1_[j])
    assert clf.thresholds_.shape == (5,)


def test_scut_raises_the_macro_f1_of_rare_labels_over_the_default_cut():
    """Label j raises its own terms' counts; the rarest labels (2-10% of the documents) get
    few positive decisions at LinearSVC's cut of 0, and tuned cuts find more of them."""
    X, Y = multilabel(1, n=1200)
    train, test = np.arange(900), np.arange(900, 1200)
    svm = OneVsRestClassifier(LinearSVC(random_state=0))
    plain = clone(svm).fit(X[train], Y[train]).predict(X[test])
    tuned = TunedThresholdClassifier(svm).fit(X[train], Y[train]).predict(X[test])
    assert (f1_score(Y[test], tuned, average="macro")
            >= f1_score(Y[test], plain, average="macro"))


def test_rcut_gives_each_document_its_best_labels():
    X, Y = multilabel()
    clf = FixedThresholdClassifier(OneVsRestClassifier(LinearSVC(random_state=0)), "rcut",
                                   rank=2).fit(X, Y)
    pred, scores = clf.predict(X), clf.decision_function(X)
    assert (pred.sum(axis=1) == 2).all()
    second = np.sort(scores, axis=1)[:, -2]
    assert (scores[pred == 1].reshape(-1, 2).min(axis=1) >= second).all()


def test_a_learner_without_a_decision_function_is_cut_on_its_probabilities():
    X, Y = multilabel()
    nb = OneVsRestClassifier(MultinomialNB()).fit(X, Y)
    np.testing.assert_array_equal(label_scores(nb, X), nb.predict_proba(X))
    clf = TunedThresholdClassifier(OneVsRestClassifier(MultinomialNB())).fit(X, Y)
    assert ((0 <= clf.thresholds_) | np.isinf(clf.thresholds_)).all()


def test_per_label_columns_give_per_label_scores():
    """PerLabelClassifier's decision_function: each label's estimator on its own columns;
    a label constant in training scores -inf (never) or inf (always)."""
    X, Y = multilabel()
    Y = np.column_stack([Y, np.zeros(len(Y), int)])
    cols = [np.arange(4 * j, 4 * j + 4) for j in range(5)] + [np.arange(3)]
    model = PerLabelClassifier(LinearSVC(random_state=0), cols).fit(X, Y)
    scores = model.decision_function(X)
    own = LinearSVC(random_state=0).fit(X[:, cols[1]], Y[:, 1]).decision_function(X[:, cols[1]])
    np.testing.assert_array_equal(scores[:, 1], own)
    assert (scores[:, 5] == -np.inf).all()
    pred = TunedThresholdClassifier(PerLabelClassifier(LinearSVC(random_state=0), cols)).fit(
        X, Y).predict(X)
    assert not pred[:, 5].any()


def test_every_multilabel_learner_takes_a_threshold():
    X, Y = multilabel()
    for name in ("linear_svm", "logreg", "nb"):
        model = make_learner(name, multilabel=True, threshold="scut").fit(X, Y)
        assert isinstance(model, TunedThresholdClassifier) and model.predict(X).shape == Y.shape
        assert make_learner(name, multilabel=True, threshold="rcut",
                            rank=1).fit(X, Y).predict(X).sum(axis=1).max() == 1


def test_thresholds_for_one_label_per_document_are_refused():
    """SCut asked for on a single-label task: one error that says why."""
    X, Y = multilabel()
    with pytest.raises(TextsiftError, match="scut sets per-label thresholds for label sets.*"
                                            "one label per document is a single-label task"):
        TunedThresholdClassifier(LinearSVC()).fit(X, Y[:, 0])
    with pytest.raises(TextsiftError, match="0/1 indicator"):
        TunedThresholdClassifier(LinearSVC()).fit(X, 2 * Y)
    with pytest.raises(TextsiftError, match="threshold is for label sets"):
        make_learner("linear_svm", threshold="scut")


def test_rcut_with_a_rank_of_every_label_warns():
    """RCut's ``rank`` at or above the number of labels gives every document every label (3
    labels, rank 1000: the indicator of all ones) -- said, not silent."""
    import warnings

    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    from textsift.errors import DataWarning
    rng = np.random.default_rng(0)
    X = rng.random((30, 4))
    Y = np.eye(3, dtype=int)[rng.integers(0, 3, 30)]
    model = FixedThresholdClassifier(OneVsRestClassifier(LogisticRegression()), "rcut", rank=1000)
    with pytest.warns(DataWarning, match="every one of the 3 labels; choose a rank below 3"):
        model.fit(X, Y)
    assert (model.predict(X) == 1).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FixedThresholdClassifier(OneVsRestClassifier(LogisticRegression()), "rcut",
                                 rank=2).fit(X, Y)


def test_a_label_the_fit_part_lacks_is_not_given_to_every_document():
    """Label 2 has one positive document, in the validation part: the fit part's
    PerLabelClassifier answers a constant "no" (scores -inf), whose top score was the
    fallback threshold -inf -- and the refit learner's finite scores gave the label to all
    100 documents. Now it falls back to never (inf), with one validation part, with inner
    folds (the fold's cut left out of the mean) and under micromacro."""
    from sklearn.model_selection import train_test_split

    rng = np.random.default_rng(0)
    X, Y = rng.random((100, 6)), (rng.random((100, 3)) < 0.4).astype(int)
    _, val = train_test_split(np.arange(100), test_size=0.2, random_state=0)
    Y[:, 2] = 0
    Y[val[0], 2] = 1
    cols = [np.arange(6)] * 3
    assert scut_threshold(np.full(4, -np.inf), np.array([0, 1, 0, 0])) == (np.inf, 0.0)
    for clf in (TunedThresholdClassifier(PerLabelClassifier(LinearSVC(), cols), cv=None),
                TunedThresholdClassifier(PerLabelClassifier(LinearSVC(), cols), cv=3),
                TunedThresholdClassifier(PerLabelClassifier(LinearSVC(), cols), "micromacro")):
        pred = clf.fit(X, Y).predict(X)
        assert pred[:, 2].sum() <= 1, type(clf).__name__
