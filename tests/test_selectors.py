"""TermSelector: scikit-learn compatibility and selection rules."""

import numpy as np
import pandas as pd
import pytest
from lecture_example import LABELS, LECTURE
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import check_estimator

from textsift import Counts, TermSelector, rank
from textsift.reading.corpus import load_sample


@pytest.fixture(scope="module")
def sample():
    return load_sample("20ng", split="train")


def test_passes_check_estimator():
    failed = [r for r in check_estimator(TermSelector("chi2", k=1), on_fail=None)
              if r["status"] == "failed"]
    assert failed == [], [(r["check_name"], str(r["exception"])[:200]) for r in failed]


def test_selects_lecture_top_terms_and_names_them():
    names = np.array([f"T{i}" for i in range(1, 11)])
    sel = TermSelector("chi2", k=4, class_label="pos").fit(pd.DataFrame(LECTURE.T, columns=names),
                                                          LABELS)
    # chi2: T1, T2 = 10; T4, T7 = 3.75 (ties broken by index)
    np.testing.assert_array_equal(sel.get_feature_names_out(), ["T1", "T2", "T4", "T7"])
    assert list(sel.class_scores_.columns) == ["neg", "pos"]
    assert sel.class_scores_.loc["T4", "pos"] == pytest.approx(3.75)
    assert sel.scores_[3] == pytest.approx(3.75)  # ranked by pos's column: T4's score there


def test_ratio_and_threshold():
    sel = TermSelector("df", ratio=0.25).fit(LECTURE.T, LABELS)
    assert len(sel.selected_) == 3  # ceil(0.25 * 10)
    np.testing.assert_array_equal(sel.selected_, [2, 3, 4])  # DF 10, 8, 7
    sel = TermSelector("df", threshold=6).fit(LECTURE.T, LABELS)
    np.testing.assert_array_equal(sorted(sel.selected_), [0, 2, 3, 4])


@pytest.mark.parametrize(
    "params, match",
    [({"k": 0}, "positive"),
     ({"k": -3}, "positive"), ({"ratio": 1.5}, "ratio"), ({"method": "chi"}, "did you mean .chi2."),
     ({"aggregate": "mean"}, "unknown aggregate"), ({"ratio": 0.5, "threshold": 1}, "at most one"),
     ({"k": 3, "ratio": 0.5}, "at most one of k, ratio"), ({"k": 3, "threshold": 1}, "at most one"),
     ({"threshold": 1.0, "aggregate": "rr"}, "round-robin")],
)
def test_bad_parameters_are_named(params, match):
    with pytest.raises(ValueError, match=match):
        TermSelector(**params).fit(LECTURE.T, LABELS)


def test_one_class_is_an_error():
    with pytest.raises(ValueError, match="one class"):
        TermSelector("ig", k=2).fit(LECTURE.T, ["a"] * 10)


def test_mismatched_lengths_are_an_error():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        TermSelector("ig", k=2).fit(LECTURE.T, LABELS[:5])


def test_rr_picks_in_turn_per_class(sample):
    vec = CountVectorizer(min_df=2)
    X = vec.fit_transform(sample.texts)
    names = vec.get_feature_names_out()
    sel = TermSelector("ig", k=40, aggregate="rr").fit(X, sample.labels)
    table = rank(Counts.from_matrix(X, sample.labels, feature_names=names), "ig",
                 aggregate="rr", top=40)
    # 20 classes take turns: picks 1-20 come one from each class, in class order, and again
    classes = sorted(set(sample.labels))
    assert list(table.groups) == classes + classes
    # the first class's first pick is its own best IG term (idxmax takes the lowest index)
    assert table.terms[0] == names[sel.class_scores_[classes[0]].idxmax()]
    np.testing.assert_array_equal(names[sel.selected_], table.terms)


def test_pipeline_and_grid_search_tune_k(sample):
    pipe = Pipeline([("vec", CountVectorizer(min_df=2)), ("sel", TermSelector("chi2")),
                     ("nb", MultinomialNB())])
    grid = GridSearchCV(pipe, {"sel__k": [50, 1000]}, cv=3).fit(sample.texts, sample.labels)
    assert grid.best_params_["sel__k"] == 1000  # 50 terms cannot cover 20 newsgroups
    names = grid.best_estimator_[:-1].get_feature_names_out()
    assert len(names) == 1000 and all(isinstance(n, str) for n in names)


def test_fit_counts_equals_fit(sample):
    vec = CountVectorizer(min_df=3)
    X = vec.fit_transform(sample.texts)
    a = TermSelector("bns", k=100).fit(X, sample.labels)
    b = TermSelector("bns", k=100).fit_counts(Counts.from_matrix(X, sample.labels))
    np.testing.assert_array_equal(a.selected_, b.selected_)


# ----------------------------------------------------------------------------- bad input
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(st.integers(-5, 0))
def test_a_k_below_one_is_refused(k):
    with pytest.raises(ValueError, match="positive"):
        TermSelector("ig", k=k).fit(LECTURE.T, LABELS)


@settings(max_examples=20, deadline=None)
@given(st.integers(11, 10**6))
def test_a_k_above_the_vocabulary_keeps_every_term_and_warns(k):
    """The one rule for sizes (as scikit-learn's SelectKBest, and as -k and a TOML's sizes):
    all 10 terms of the lecture's table, and a warning saying so."""
    with pytest.warns(UserWarning, match=rf"k {k:,} is larger than the vocabulary \(10 terms\); "
                      "it keeps every term"):
        sel = TermSelector("ig", k=k).fit(LECTURE.T, LABELS)
    assert sorted(sel.selected_) == list(range(10))


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.floats(allow_nan=True), st.floats(max_value=0), st.floats(min_value=1.0001)))
def test_any_ratio_outside_zero_one_is_refused(ratio):
    if 0 < ratio <= 1:
        return
    with pytest.raises(ValueError, match="ratio"):
        TermSelector("ig", ratio=ratio).fit(LECTURE.T, LABELS)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 9), st.integers(11, 30))
def test_any_length_mismatch_is_refused(short, long):
    from textsift import Counts

    for n in (short, long):
        with pytest.raises(ValueError, match="one label per row"):
            Counts.from_matrix(LECTURE.T, np.resize(LABELS, n))


# ----------------------------------------------------------------------------- correctness
MI_X = np.array([[1, 0, 1, 0], [1, 0, 0, 1], [0, 1, 0, 1], [0, 1, 1, 0], [0, 0, 1, 1],
                 [1, 1, 0, 0]])
MI_Y = np.array([0, 0, 1, 1, 2, 2])


@pytest.mark.parametrize("aggregate", ["sum", "wavg", "max"])
def test_mi_globalised_over_the_classes_where_the_term_occurs(aggregate):
    """N = 6, df = 3 and N_c = 2 for every term, so PMI = log(A N / (df N_c)) = log A: t0 is
    (log 2, -inf, 0), t1 (-inf, log 2, 0), t2 and t3 (0, 0, 0). Summed over the classes where
    A > 0, t0 and t1 score log 2 (wavg: log 2 / 3) and are kept; a plain sum made them -inf
    and kept t2, t3 -- column order. The registered ``mi`` is signed, so it refuses ``sum``
    and ``wavg`` (test_signed_scores_refuse_sum_and_wavg); its table through a function of
    one's own is not, and shows the rule."""
    from textsift.scores import compute

    sel = TermSelector(lambda c: compute(c, "mi").values, k=2,
                       aggregate=aggregate).fit(MI_X, MI_Y)
    np.testing.assert_array_equal(sel.selected_, [0, 1])
    expected = np.log(2) / (3 if aggregate == "wavg" else 1)
    np.testing.assert_allclose(sel.ranking_.scores[:2], [expected, expected], rtol=1e-15)


def test_bns_mirrored_cells_tie_and_the_tie_goes_to_the_lower_index():
    """Class p: t0 has tpr = 1/2, fpr = 0 and t1 tpr = 1, fpr = 1/2; both score
    |F^-1(0.0005)| = 3.2905267314918945 exactly, so the tie rule keeps t0 (scipy's
    ndtri(0.9995) alone is 3e-14 larger and kept t1)."""
    from scipy.special import ndtri

    X, y = np.array([[1, 1], [0, 1], [0, 1], [0, 0]]), np.array(["p", "p", "n", "n"])
    sel = TermSelector("bns", k=1, class_label="p").fit(X, y)
    np.testing.assert_array_equal(sel.selected_, [0])
    assert sel.class_scores_["p"].tolist() == [-ndtri(0.0005)] * 2


def test_a_users_nan_is_minus_inf_at_the_table():
    """NaN is turned into -inf where the table is made: never ranked above a number, tied
    with -inf by index; the table holds no NaN."""
    X, y = np.array([[1, 1, 1], [1, 1, 1]]), np.array(["a", "b"])
    sel = TermSelector(lambda c: np.array([np.nan, 1.0, -np.inf]), k=3).fit(X, y)
    np.testing.assert_array_equal(sel.selected_, [1, 0, 2])
    assert sel.scores_.tolist() == [-np.inf, 1.0, -np.inf]


# ----------------------------------------------------------------------------- lazy selection
def test_set_params_after_fit_changes_the_selection_without_scoring_again(sample, monkeypatch):
    """The selection is derived from the kept ranking when read: a new k, ratio or threshold
    is the prefix (or the cut) of the same ranking, equal to a fresh fit's, with no scoring."""
    X = CountVectorizer(min_df=3).fit_transform(sample.texts)
    y = sample.labels
    sel = TermSelector("chi2", k=10).fit(X, y)
    ranking = sel.ranking_
    import textsift.selection.ranking

    def no_scoring(*args, **kw):
        raise AssertionError("scored again")

    for params in ({"k": 300}, {"k": 1}, {"ratio": 0.05}, {"threshold": 50.0}):
        monkeypatch.setattr(textsift.selection.ranking, "compute", no_scoring)
        sel.set_params(**{"k": None, "ratio": None, "threshold": None, **params})
        got = sel.selected_
        assert sel.ranking_ is ranking
        monkeypatch.undo()
        np.testing.assert_array_equal(got, TermSelector("chi2", **params).fit(X, y).selected_)
    assert sel.transform(X).shape[1] == (ranking.scores >= 50.0).sum()


def test_a_round_robin_ranks_up_to_the_largest_k_asked(sample):
    """Under rr the fit takes only the turns k needs; a larger k takes the next turns (from
    counts_), a smaller one is a prefix: both equal a fresh fit. Reading a selection never
    changes a fitted attribute: ``ranking_`` stays the fit's 30 terms."""
    X = CountVectorizer(min_df=3).fit_transform(sample.texts)
    y = sample.labels
    sel = TermSelector("ig", k=30, aggregate="rr").fit(X, y)
    assert len(sel.ranking_) == 30 and sel.ranking_.policy == "rr"
    sel.set_params(k=70)
    np.testing.assert_array_equal(sel.selected_, TermSelector("ig", k=70, aggregate="rr")
                                  .fit(X, y).selected_)
    assert len(sel.ranking_) == 30
    sel.set_params(k=5)
    np.testing.assert_array_equal(sel.selected_, sel.ranking_.index[:5])
    assert len(sel.ranking_) == 30
    with pytest.raises(ValueError, match="threshold does not apply to the round-robin"):
        sel.set_params(k=None, threshold=1.0).transform(np.zeros((1, sel.n_features_in_)))


def test_scores_are_built_only_when_read():
    sel = TermSelector("chi2", k=2, class_label="pos").fit(LECTURE.T, LABELS)
    assert "class_scores_" not in vars(sel)
    assert sel.class_scores_.loc[3, "pos"] == pytest.approx(3.75)  # T4 (no names: index)
    assert not hasattr(TermSelector(), "class_scores_")  # unfitted: no scores to read
    assert not hasattr(TermSelector(), "scores_")


def test_rank_is_a_typed_ranking_with_the_policy_used():
    names = np.array([f"T{i}" for i in range(1, 11)])
    counts = Counts.from_matrix(LECTURE.T, LABELS, feature_names=names)
    r = rank(counts, "chi2", top=4, class_label="pos", direction="both")
    assert (r.terms.tolist(), r.policy, r.method, r.class_label, r.groups) == (
        ["T1", "T2", "T4", "T7"], "max", "chi2", "pos", None)
    np.testing.assert_allclose(r.scores, [10, 10, 3.75, 3.75])
    assert rank(counts, "df", aggregate="rr").policy == "max"  # one column: rr is max
    rr = rank(counts, "chi2", aggregate="rr", top=3)
    assert rr.policy == "rr" and rr.groups.tolist() == ["neg", "pos", "neg"]
    assert list(rr.to_frame().columns) == ["position", "term", "score", "group"]
    # a class's ranking of both directions marks each term's
    assert list(r.to_frame().columns) == ["position", "term", "score", "direction"]
    assert list(rank(counts, "chi2", top=4, class_label="pos", direction="over")
                .to_frame().columns) == ["position", "term", "score"]


def test_a_fit_counts_term_frequencies_only_for_a_method_that_reads_them():
    """chi2 reads presence only, so its fit leaves TF out (half the memory of the counts);
    RC reads TF, and a user's function may."""
    assert TermSelector("chi2", k=2).fit(LECTURE.T, LABELS).counts_.term_freq is None
    assert TermSelector("rc", k=2).fit(LECTURE.T, LABELS).counts_.term_freq is not None
    own = TermSelector(lambda c: c.tf, k=2).fit(LECTURE.T, LABELS)
    np.testing.assert_array_equal(own.selected_, [2, 3])  # DF = TF here (binary): 10, 8


# ----------------------------------------------------------------------------- fitted state
@pytest.mark.parametrize("changed", [
    {"method": "df"}, {"aggregate": "sum"}, {"class_label": "neg"}, {"rr_variant": "turn_consumed"},
    {"method_params": {"base": 10}}, {"direction": "over"}])
def test_a_ranking_parameter_changed_after_fit_asks_for_a_refit(changed):
    """scikit-learn's contract: what is read after fit comes from fit. chi2 under rr, k=3,
    then another method, policy, class, duplicate rule or method parameter: every read of
    the selection (selected_, transform, scores_, class_scores_) refuses and names the
    change, even together with a larger k (which alone would take the next turns)."""
    sel = TermSelector("ig" if "method_params" in changed else "chi2", k=3,
                       aggregate="rr").fit(LECTURE.T, LABELS)
    fitted = sel.get_params()
    sel.set_params(**changed, k=8)
    (name,) = changed
    for read in (lambda: sel.selected_, lambda: sel.transform(LECTURE.T),
                 lambda: sel.get_feature_names_out(), lambda: sel.scores_,
                 lambda: sel.class_scores_):
        with pytest.raises(ValueError, match=rf"{name} changed after fit.*refit"):
            read()
    sel.set_params(**{name: fitted[name]})  # back to the fitted value: the ranking serves
    assert len(sel.selected_) == 8
    np.testing.assert_array_equal(sel.selected_, TermSelector(**{**fitted, "k": 8})
                                  .fit(LECTURE.T, LABELS).selected_)


def test_a_method_parameter_changed_in_place_after_fit_is_a_change():
    """fit keeps a copy of method_params: editing the dict given is seen, not followed."""
    params = {"base": 2}
    sel = TermSelector("ig", k=2, method_params=params).fit(LECTURE.T, LABELS)
    params["base"] = 10
    with pytest.raises(ValueError, match="method_params changed after fit"):
        sel.transform(LECTURE.T)


def test_the_default_policy_named_after_fit_is_no_change():
    """aggregate=None is the method's own policy (max for chi2): naming it is the same fit."""
    sel = TermSelector("chi2", k=4).fit(LECTURE.T, LABELS)
    sel.set_params(aggregate="max")
    np.testing.assert_array_equal(sel.selected_, [0, 1, 3, 6])  # chi2 10, 10, 3.75, 3.75


def test_k_is_ten_unless_a_ratio_or_threshold_is_given():
    """k=None keeps 10 terms, SelectKBest's default; with a ratio, the ratio's number."""
    sel = TermSelector("df").fit(np.eye(12, dtype=int) + 1, ["a", "b"] * 6)
    assert len(sel.selected_) == 10
    assert len(sel.set_params(ratio=0.25).selected_) == 3  # ceil(0.25 * 12)


def test_scores_are_one_per_feature_as_select_k_best():
    """scores_ is 1-D, the score the selection used. chi2_sklearn summed over the classes
    is scikit-learn's chi2 statistic (Pearson's, over the class x presence table), so
    aggregate="sum" gives SelectKBest(chi2)'s scores_ and, with no ties at the cut, its
    support."""
    from sklearn.feature_selection import SelectKBest, chi2

    X = (LECTURE.T > 0).astype(int)
    ours = TermSelector("chi2_sklearn", k=3, aggregate="sum").fit(X, LABELS)
    theirs = SelectKBest(chi2, k=3).fit(X, LABELS)
    assert ours.scores_.shape == (10,)
    np.testing.assert_allclose(ours.scores_, theirs.scores_, rtol=1e-12)
    np.testing.assert_allclose(ours.scores_, ours.class_scores_.sum(axis=1), rtol=1e-12)
    np.testing.assert_array_equal(ours.get_support(), theirs.get_support())  # T1, T2, T7:
    # chi2 6, 4, 3 above the next, 2 (T6)


def test_scores_under_a_round_robin_are_the_best_over_the_classes():
    """A round robin ranks by turns; scores_ gives each term's max over the class columns."""
    sel = TermSelector("ig", k=2, aggregate="rr").fit(LECTURE.T, LABELS)
    np.testing.assert_array_equal(sel.scores_, sel.class_scores_.max(axis=1).to_numpy())


@pytest.mark.parametrize("y", [[1.0, 2.0, np.nan] * 2, pd.Series([1.0, np.nan, 2.0] * 2)])
def test_a_numeric_nan_label_is_refused_not_a_class(y):
    """NaN is a missing label (as OrdinalSelector and string labels treat it), never a class
    (np.unique made it one: classes_ [1., 2., nan])."""
    with pytest.raises(ValueError, match=r"2 label\(s\) are missing \(first at row [12]\)"):
        TermSelector("chi2", k=2).fit(LECTURE.T[:6], y)


def test_pvalues_are_computed_once_per_fit(monkeypatch):
    """``pvalues_`` is derived once per fit (scikit-learn keeps ``pvalues_`` from fit), not
    at every read; a refit derives it again. The count of calls: 1, then 2 after a refit."""
    import textsift.scores as scores

    calls = []
    real = scores.pvalues
    monkeypatch.setattr(scores, "pvalues", lambda *a, **k: calls.append(1) or real(*a, **k))
    sel = TermSelector("chi2", k=2).fit(LECTURE.T, LABELS)
    first = sel.pvalues_
    first[:] = -1  # a copy: the selector's own values cannot be changed through it
    assert (sel.pvalues_ >= 0).all() and len(calls) == 1
    sel.fit(LECTURE.T, LABELS)
    assert sel.pvalues_.shape == first.shape
    assert len(calls) == 2


def test_the_ranking_parameters_are_fitted_attributes():
    """As scikit-learn keeps what fit resolved (``SelectFromModel.threshold_``): the policy
    resolved to the method's own (IG ranks by max, its registered default) and a copy of the
    method's parameters; a fit that fails (BNS has no p-value for an alpha) keeps none."""
    from textsift.errors import TextsiftError
    from textsift.scores import get_method

    params = {"base": 2}
    sel = TermSelector("ig", k=3, method_params=params).fit(LECTURE.T, LABELS)
    assert get_method("ig").default_aggregate == "max"
    assert (sel.method_, sel.aggregate_, sel.class_label_, sel.rr_variant_, sel.direction_,
            sel.method_params_) == ("ig", "max", None, "skip", "both", {"base": 2})
    assert sel.method_params_ is not params
    failed = TermSelector("bns", alpha=0.05)
    with pytest.raises(TextsiftError, match="bns has no p-value"):
        failed.fit(LECTURE.T, LABELS)
    assert not any(hasattr(failed, f"{n}_") for n in ("method", "aggregate", "ranking"))


@pytest.mark.parametrize("name", ["TermSelector", "OrdinalSelector"])
def test_each_registered_correction_is_listed_in_the_selectors_docstrings(name):
    """The ``correction`` line of both selectors' docstrings lists the registry's corrections
    (``_choices.CORRECTION_TABLE``), every one, in its order: the five of today's table."""
    import re

    import textsift
    from textsift._choices import CORRECTION_TABLE

    doc = getattr(textsift, name).__doc__
    line = next(ln for ln in doc.splitlines() if ln.startswith("    correction : "))
    assert re.findall(r'"(\w+)"', line.split("}")[0]) == list(CORRECTION_TABLE)
    assert len(CORRECTION_TABLE) == 5 and "{choices}" not in doc


def test_a_new_choice_joins_the_docstring_by_registering_only():
    """A correction added to the choices (``sidak`` here) is listed by the decorator that
    writes the docstrings, with nothing else edited."""
    from textsift._bounds import choices_documented
    from textsift._choices import CORRECTIONS

    @choices_documented
    class Scratch:
        """Parameters
        ----------
        correction : {choices}, default="bh"
        """

        _parameter_choices = {"correction": (*CORRECTIONS, "sidak")}

    assert '"by", "sidak"}, default="bh"' in Scratch.__doc__
