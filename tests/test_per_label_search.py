"""Each label's own number of terms and C chosen on inner folds (PerLabelSearchClassifier and
the [[learners]] keys label_ratios, label_C, label_method): a label's one word found, the
identity with SCut on inner folds when there is one choice, the choice the best of the grid,
the test part never seen by the choices, and the keys refused where they cannot apply."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC
from test_experiment_multilabel import config, corpus, write
from test_threshold_estimators import _poisoned

from textsift.errors import TextsiftError
from textsift.experiment import ConfigError, run_experiment
from textsift.learners import (
    PerLabelClassifier,
    PerLabelSearchClassifier,
    TunedThresholdClassifier,
    label_rankings,
    make_learner,
)


def svm():
    return make_pipeline(TfidfTransformer(), LinearSVC(random_state=0))


def planted(n=150, n_terms=40, n_labels=3, seed=0):
    """Counts with noise terms; label ``j`` is exactly the presence of term ``j``."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, n_terms)) < 0.15) * rng.integers(1, 4, (n, n_terms))
    Y = (X[:, :n_labels] > 0).astype(np.int64)
    return sp.csr_matrix(X.astype(np.float64)), Y


def test_label_rankings_put_the_planted_term_first():
    """Label j is the presence of term j: its chi2 is the largest of label j's column (a
    perfect 2 x 2 table), so each label's ranking starts with its own term."""
    X, Y = planted()
    ranks = label_rankings(X, Y, "chi2", k=5)
    assert [int(r[0]) for r in ranks] == [0, 1, 2]
    assert all(len(r) == 5 for r in ranks)


def test_each_label_keeps_its_one_word():
    """With 1 term (1/40 of them) among the shares, the planted term alone separates each
    label perfectly on every held-out fold (SCut F1 1), and a tie goes to the fewest terms:
    each label reads its one term, and predicts the training labels exactly."""
    X, Y = planted()
    model = PerLabelSearchClassifier(svm(), ratios=(1 / 40, 0.25, 1.0),
                                     param_grid={"linearsvc__C": [0.5, 2.0]}).fit(X, Y)
    assert [c.tolist() for c in model.columns_] == [[0], [1], [2]]
    assert model.params_ == [{"linearsvc__C": 0.5}] * 3  # the first of the grid on a tie
    np.testing.assert_array_equal(model.validation_f1_, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(model.predict(X), Y)
    assert model.decision_function(X).shape == Y.shape
    assert model.__sklearn_tags__().input_tags.sparse


def test_one_choice_is_scut_on_inner_folds_over_every_term():
    """One share (every term) and no grid: the same fold fits as TunedThresholdClassifier's
    (3 folds, the same seed) over one learner per label on every column, so the same
    thresholds, bit for bit, and the same predictions."""
    X, Y = planted(n=120, seed=3)
    Y[::7, 1] ^= 1  # a noisy label
    ours = PerLabelSearchClassifier(svm(), ratios=(1.0,), cv=3, random_state=5).fit(X, Y)
    every = [np.arange(X.shape[1])] * Y.shape[1]
    theirs = TunedThresholdClassifier(PerLabelClassifier(svm(), every), "scut", cv=3,
                                      random_state=5).fit(X, Y)
    np.testing.assert_array_equal(ours.thresholds_, theirs.thresholds_)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), threshold=st.sampled_from([None, "scut", "micromacro"]))
def test_the_choice_is_the_best_of_the_grid(seed, threshold):
    """Each label's criterion is the largest of the criteria of the single choices (each
    fitted alone on the same folds), and its choice the first that reaches it in the order
    fewest terms first, then the grid's; every label reads as many terms as a share gives."""
    X, Y = planted(n=90, n_terms=30, seed=seed)
    Y[np.random.default_rng(seed).random(Y.shape) < 0.1] ^= 1  # noise: choices differ
    ratios, Cs = (0.1, 0.5, 1.0), [0.3, 3.0]
    grid = PerLabelSearchClassifier(svm(), ratios=ratios, param_grid={"linearsvc__C": Cs},
                                    threshold=threshold).fit(X, Y)
    singles = [((r, c), PerLabelSearchClassifier(svm(), ratios=(r,),
                                                 param_grid={"linearsvc__C": [c]},
                                                 threshold=threshold).fit(X, Y))
               for r in ratios for c in Cs]
    for j in range(Y.shape[1]):
        values = [m.validation_f1_[j] for _, m in singles]
        assert grid.validation_f1_[j] == max(values)
        (r, c), _ = singles[int(np.argmax(values))]
        assert len(grid.columns_[j]) == round(r * 30)
        assert grid.params_[j] == {"linearsvc__C": c}
        assert np.all(np.diff(grid.columns_[j]) > 0)
    pred = grid.predict(X)
    assert pred.shape == Y.shape and set(np.unique(pred)) <= {0, 1}


def test_make_learner_builds_it_and_refuses_what_does_not_apply():
    model = make_learner("linear_svm", multilabel=True, threshold="micromacro",
                         label_ratios=[0.1, 1.0], label_C=[1, 4], cv=4, seed=2)
    assert isinstance(model, PerLabelSearchClassifier)
    assert (model.threshold, model.cv, model.random_state, model.ratios) == (
        "micromacro", 4, 2, (0.1, 1.0))
    assert model.param_grid == {"linearsvc__C": [1, 4]}
    for kwargs, message in [
        ({"threshold": "rcut"}, "not 'rcut'"),
        ({"C": 2.0}, "is given one; drop C"),
        ({"columns": [[0]]}, "not each label's columns"),
        ({"cv": 0.25, "threshold": "scut"}, "an integer of at least 2"),
        ({"label_ratios": [0.0, 0.5]}, "each a share of the terms in"),
        ({"label_C": []}, "each a number above 0"),
        ({"multilabel": False}, "for label sets"),
    ]:
        kw = {"multilabel": True, "label_C": [1.0], **kwargs}
        with pytest.raises(TextsiftError, match=message):
            make_learner("linear_svm", **kw)
    with pytest.raises(TextsiftError, match="has no C"):
        make_learner("nb", multilabel=True, label_C=[1.0])
    X, Y = planted()
    with pytest.raises(TextsiftError, match="one score per term, not one per label"):
        PerLabelSearchClassifier(svm(), method="df").fit(X, Y)  # df: the term's alone


def test_inner_choices_never_see_the_test_part(tmp_path, monkeypatch):
    """Each label's terms, C and threshold are the same whether the test part's labels are
    right or shuffled among its documents: only the measures change."""
    chosen: list = []
    fit = PerLabelSearchClassifier.fit

    def recording(self, X, Y):
        out = fit(self, X, Y)
        chosen.append(([c.tolist() for c in self.columns_], list(self.params_),
                       np.round(self.thresholds_, 12)))
        return out

    monkeypatch.setattr(PerLabelSearchClassifier, "fit", recording)
    learners = [{"name": "linear_svm", "threshold": "scut", "label_ratios": [0.1, 0.3, 1.0],
                 "label_C": [0.5, 2.0]}]
    records = corpus(n=200)
    runs = []
    for name, recs in (("clean", records), ("poisoned", _poisoned(records))):
        chosen.clear()
        exp = config(write(tmp_path, recs, name=f"{name}.jsonl"), learners=learners,
                     selection={"sizes": [12], "baselines": ["ffs"]},
                     experiment={"name": name, "seed": 0})
        summary = run_experiment(exp, tmp_path / name)
        runs.append((list(chosen), summary.results))
    (clean, clean_results), (poisoned, poisoned_results) = runs
    assert len(clean) == len(poisoned) == 2  # the wavg top 12 and every term
    for (c1, p1, t1), (c2, p2, t2) in zip(clean, poisoned, strict=True):
        assert (c1, p1) == (c2, p2)
        np.testing.assert_array_equal(t1, t2)
    assert set(clean_results["learner"]) == {"linear_svm+per_label+scut"}
    assert not np.allclose(clean_results["value"].to_numpy(float),
                           poisoned_results["value"].to_numpy(float))


@pytest.mark.parametrize(("tables", "message"), [
    ({"selection": {"scope": ["local"], "aggregates": ["default"]}},
     "which \\[selection\\] scope = 'local' already chose"),
    ({"learners": [{"name": "linear_svm", "label_ratios": [0.1, 1.5]}]},
     "each a share of the terms in"),
    ({"learners": [{"name": "linear_svm", "label_C": [1], "C": 2}]}, "drop C"),
])
def test_what_the_per_label_keys_cannot_take_is_refused(tmp_path, tables, message):
    tables = {"learners": [{"name": "linear_svm", "label_C": [1, 2]}], **tables}
    with pytest.raises(ConfigError, match=message):
        exp = config(write(tmp_path, corpus(n=80)), **tables)
        run_experiment(exp, tmp_path / "run")
