"""OrdinalSelector: scikit-learn compatibility, k / ratio, rank validation, GridSearchCV."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import check_estimator
from test_ordinal_scores import DOCS, Y, toy_counts

from textsift.learners import RankSVR
from textsift.learners.metrics import mae_macro_scorer
from textsift.reading.corpus import load_sample
from textsift.selection.ordinal import OrdinalSelector


def toy_matrix():
    c = toy_counts()
    return c, np.array([[1.0 if d in ds else 0.0 for ds in DOCS.values()] for d in range(10)])


@pytest.mark.parametrize("method", ["rr_nc_idf", "var"])
def test_passes_check_estimator(method):
    failed = [r for r in check_estimator(OrdinalSelector(method, k=1), on_fail=None)
              if r["status"] == "failed"]
    assert failed == [], [(r["check_name"], str(r["exception"])[:200]) for r in failed]


def test_fit_matches_counts_and_a11_picks():
    _, X = toy_matrix()
    sel = OrdinalSelector("rr_var_idf", k=4).fit(X, Y)
    np.testing.assert_array_equal(sel.selected_, [0, 2, 1, 3])  # t1, t3, t2, t4 (the toy)
    assert sel.transform(X).shape == (10, 4)
    # ratio 0.5 of 6 ranked terms keeps ceil(3) = 3, the first three picks
    np.testing.assert_array_equal(OrdinalSelector("rr_var_idf", ratio=0.5).fit(X, Y).selected_,
                                  [0, 2, 1])


def test_declared_scale_keeps_ranks_without_documents():
    _, X = toy_matrix()
    y = np.where(Y == 2, 1, Y)  # no document of rank 2
    sel = OrdinalSelector("rr_var", k=2, ranks=[1, 2, 3, 4, 5]).fit(X, y)
    assert list(sel.class_scores_.columns) == [1, 2, 3, 4, 5]
    assert list(OrdinalSelector("rr_var", k=2).fit(X, y).class_scores_.columns) == [1, 3, 4, 5]


@pytest.mark.parametrize("kwargs, y, message", [
    ({"method": "chi2"}, Y, "not an ordinal method"),
    ({}, Y.astype(str), "must be numbers"),
    ({}, Y + 0.5, "must be integers"),
    ({}, np.full(10, 3), "at least two ranks"),
    ({"ranks": [1, 2, 3]}, Y, "outside the declared scale"),
    ({"k": 0}, Y, "positive"),
    ({"k": None, "ratio": 1.5}, Y, r"fraction in \(0, 1\]"),
    ({"ratio": 0.5}, Y, "at most one of k, ratio"),
])
def test_bad_input(kwargs, y, message):
    _, X = toy_matrix()
    with pytest.raises(ValueError, match=message):
        OrdinalSelector(**{"k": 2, **kwargs}).fit(X, y)


def test_pipeline_with_learner_runs_in_grid_search():
    frame = load_sample("reviews", split="train").frame.iloc[:600]
    pipe = Pipeline([
        ("vec", CountVectorizer(min_df=2)),
        ("sel", OrdinalSelector("rr_nc_idf", ratio=0.2, ranks=[1, 2, 3, 4, 5])),
        ("svr", RankSVR(balanced=True)),
    ])
    grid = {"sel__method_params": [{"a": 1.0}, {"a": 16.0}], "svr__C": [0.3, 1.0]}
    search = GridSearchCV(pipe, grid, cv=3, scoring=mae_macro_scorer)
    search.fit(frame["text"], frame["rating"].to_numpy())
    assert set(search.best_params_) == {"sel__method_params", "svr__C"}
    # a tuned pipeline beats Triv (MAE^M 1.2 when every rank occurs) on cross-validation
    assert -search.best_score_ < 1.2
    pred = search.predict(frame["text"].iloc[:5])
    assert set(pred) <= {1, 2, 3, 4, 5}
