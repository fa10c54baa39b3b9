"""TermSelector on label sets: ``fit(X, Y)`` with a 2-D 0/1 indicator ``Y`` (scikit-learn's
multi-label convention, dense or sparse as MultiLabelBinarizer gives it) or with label lists,
in a Pipeline and in a GridSearchCV; each label scored against the documents without it."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.feature_selection import chi2 as sklearn_chi2
from sklearn.metrics import f1_score
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MultiLabelBinarizer
from sklearn.svm import LinearSVC

from textsift import Counts, OrdinalSelector, TermSelector
from textsift.errors import TextsiftError

WORDS = {"acq": ["merger", "buy", "stake"], "earn": ["profit", "dividend", "quarter"],
         "grain": ["wheat", "corn", "harvest"]}
COMMON = ["the", "and", "said", "market", "today", "news"]


def corpus(n=90, seed=3):
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for _ in range(n):
        own = sorted(rng.choice(sorted(WORDS), size=rng.choice([0, 1, 1, 2, 3]), replace=False))
        words = list(rng.choice(COMMON, size=4)) + [w for x in own
                                                    for w in rng.choice(WORDS[x], size=2)]
        texts.append(" ".join(words))
        labels.append(list(own))
    return texts, labels


TEXTS, LISTS = corpus()
MLB = MultiLabelBinarizer()
Y = MLB.fit_transform(LISTS)
X = CountVectorizer().fit_transform(TEXTS)


def test_an_indicator_lists_and_a_sparse_indicator_select_alike():
    """Each label's column is the positive class's of the binary corpus "this label against
    the rest" (and, summed over the two classes, scikit-learn's chi2 of that binary corpus);
    the indicator, its sparse form and the label lists are one labelling."""
    dense = TermSelector("chi2_sklearn", k=5, classes=MLB.classes_).fit(X, Y)
    assert list(dense.class_scores_.columns) == ["acq", "earn", "grain"]
    for j, label in enumerate(MLB.classes_):
        binary = TermSelector("chi2_sklearn").fit(X, np.where(Y[:, j], "pos", "neg"))
        binary = binary.class_scores_
        np.testing.assert_allclose(dense.class_scores_[label], binary["pos"], rtol=1e-12)
        np.testing.assert_allclose(binary.sum(axis=1), sklearn_chi2(X, Y[:, j])[0],
                                   rtol=1e-12)
    # the method's own policy, sum over the labels (scores_): its top 5, ties by index
    np.testing.assert_allclose(dense.scores_, dense.class_scores_.sum(axis=1), rtol=1e-12)
    order = np.argsort(-dense.scores_, kind="stable")[:5]
    np.testing.assert_array_equal(dense.selected_, order)
    for y in (sp.csr_matrix(Y), MultiLabelBinarizer(sparse_output=True).fit_transform(LISTS),
              LISTS):
        other = TermSelector("chi2_sklearn", k=5, classes=None if y is LISTS else
                             MLB.classes_).fit(X, y)
        np.testing.assert_array_equal(other.selected_, dense.selected_)
    counts = dense.counts_
    assert counts.multilabel and counts.equals(Counts.from_matrix(X, LISTS))


def test_class_label_and_wavg_on_label_sets():
    sel = TermSelector("chi2", k=3, class_label="grain", classes=MLB.classes_).fit(X, Y)
    names = CountVectorizer().fit(TEXTS).get_feature_names_out()
    assert set(names[sel.selected_]) == set(WORDS["grain"])
    counts = Counts.from_matrix(X, Y, classes=MLB.classes_)
    table = TermSelector("chi2", k=3).fit_counts(counts).class_scores_.to_numpy()
    wavg = table @ (counts.class_sizes / counts.n_docs)  # priors summing to more than 1
    assert counts.priors.sum() > 1
    got = TermSelector("chi2", k=4, aggregate="wavg").fit(X, Y).selected_
    np.testing.assert_array_equal(got, np.argsort(-wavg, kind="stable")[:4])


def test_in_a_pipeline_and_a_grid_search():
    """The grid's cross-validated micro-F1 of each k is that of the same pipeline fitted
    fold by fold here (scikit-learn's KFold: GridSearchCV does not stratify an indicator)."""
    def pipe():
        return Pipeline([("vec", CountVectorizer()), ("sel", TermSelector("chi2", k=3)),
                         ("clf", OneVsRestClassifier(LinearSVC(random_state=0)))])

    grid = GridSearchCV(pipe(), {"sel__k": [2, 6], "sel__aggregate": ["max", "rr"]},
                        scoring="f1_micro", cv=KFold(3)).fit(TEXTS, Y)
    texts = np.array(TEXTS, dtype=object)
    for params, score in zip(grid.cv_results_["params"], grid.cv_results_["mean_test_score"],
                             strict=True):
        by_hand = []
        for train, test in KFold(3).split(texts):
            model = pipe().set_params(**params).fit(texts[train], Y[train])
            by_hand.append(f1_score(Y[test], model.predict(texts[test]), average="micro"))
        assert score == pytest.approx(np.mean(by_hand), abs=1e-15)
    best = grid.best_estimator_.named_steps["sel"]
    alone = TermSelector("chi2", **{k[5:]: v for k, v in grid.best_params_.items()}).fit(
        CountVectorizer().fit_transform(TEXTS), Y)
    np.testing.assert_array_equal(best.selected_, alone.selected_)
    assert grid.best_params_["sel__k"] == 6  # the three labels' words need more than two


def test_what_label_sets_cannot_take():
    with pytest.raises(TextsiftError, match="ig_multi needs one label per document"):
        TermSelector("ig_multi").fit(X, Y)
    with pytest.raises(TextsiftError, match="rr_nc_idf needs one label per document "
                                            r"\(ordered ranks\)"):
        OrdinalSelector("rr_nc_idf").fit(X, Y)
    with pytest.raises(TextsiftError, match="rr_nc_idf needs one label per document"):
        OrdinalSelector("rr_nc_idf").fit(X, LISTS)
    with pytest.raises(ValueError, match="inconsistent numbers of samples: \\[90, 89\\]"):
        TermSelector("chi2").fit(X, Y[:-1])  # scikit-learn's check, as for one label each
    with pytest.raises(TextsiftError, match="an indicator matrix holds 0 and 1 only"):
        TermSelector("chi2").fit(X, 2 * Y)
    with pytest.raises(TextsiftError, match="requires y"):
        TermSelector("chi2").fit(X, None)
