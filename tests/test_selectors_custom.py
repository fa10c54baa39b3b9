"""A user's own scoring function in TermSelector, pipelines and grid searches, without
registering it; and the library function behind `textsift score --method all`."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline

from textsift import Counts, TermSelector, load_sample
from textsift.scores import compute
from textsift.selection.ranking import rank, score_all


@pytest.fixture(scope="module")
def sample():
    train = load_sample("20ng", split="train")
    X = CountVectorizer(min_df=3).fit_transform(train.texts)
    return X, np.asarray(train.labels)


def doc_share(counts):
    """P(c | t): the share of a term's documents in each class -- DIA (Fuhr's
    association factor, a baseline of the RC paper)."""
    return counts.doc_counts / np.maximum(counts.df, 1)[:, None]


def test_a_per_class_function_is_globalised_like_the_registered_method(sample):
    X, y = sample
    for aggregate in ("max", "wavg", "rr"):
        own = TermSelector(doc_share, k=200, aggregate=aggregate).fit(X, y)
        reg = TermSelector("dia", k=200, aggregate=aggregate).fit(X, y)
        np.testing.assert_array_equal(own.selected_, reg.selected_)


def test_a_global_function_ranks_by_its_one_score(sample):
    X, y = sample
    own = TermSelector(lambda counts: counts.df, k=100).fit(X, y)
    np.testing.assert_array_equal(own.selected_, TermSelector("df", k=100).fit(X, y).selected_)
    assert list(own.class_scores_.columns) == ["all"]


def test_a_score_table_function_and_parameters(sample):
    X, y = sample
    counts = Counts.from_matrix(X, y)
    own = rank(counts, lambda c, base: compute(c, "ig", base=base), top=5, base=10)
    assert own.terms.tolist() == rank(counts, "ig", top=5, base=10).terms.tolist()


def test_a_users_function_in_a_pipeline_and_grid_search():
    train = load_sample("20ng", split="train")
    pipe = Pipeline([("vec", CountVectorizer(min_df=2)), ("sel", TermSelector(doc_share)),
                     ("nb", MultinomialNB())])
    search = GridSearchCV(pipe, {"sel__k": [50, 500]}, cv=2).fit(train.texts, train.labels)
    assert search.best_params_["sel__k"] in (50, 500)
    assert search.best_estimator_["sel"].method is doc_share


def test_a_wrong_shape_is_named(sample):
    X, y = sample
    with pytest.raises(ValueError, match=r"returned 3 scores for \d+ terms"):
        TermSelector(lambda counts: np.ones(3), k=5).fit(X, y)
    with pytest.raises(ValueError, match=r"returned shape \(\d+, 3\); return one score per"):
        TermSelector(lambda counts: np.ones((counts.n_terms, 3)), k=5).fit(X, y)


def test_score_all_has_a_column_per_nominal_method(sample):
    X, y = sample
    counts = Counts.from_matrix(X, y, feature_names=np.array([f"t{i}" for i in
                                                              range(X.shape[1])]))
    table = score_all(counts, top=3)
    assert {"term", "chi2", "bns", "ig_multi"} <= set(table.columns) and len(table) >= 3
    best = rank(counts, "chi2", top=1).terms.item()
    assert table.set_index("term").loc[best, "chi2"] == table["chi2"].max()
    with pytest.raises(ValueError, match=r"round robin \(.rr.\) gives an order, not a score"):
        score_all(counts, "rr")
