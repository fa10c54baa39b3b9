"""The numeric ranges written once (textsift._bounds): the plain-Python check (what the command
line runs before numpy loads) and scikit-learn's Interval (the estimators' constraints) give
the same answer on any number, and every reader of a range -- the estimators, the command line,
an experiment file, VectorizerOptions -- refuses the same values with the same words."""

import math
from numbers import Integral

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from textsift import _bounds
from textsift._bounds import ALPHA, MAX_DF, MIN_DF, RATIO, Bound
from textsift.errors import TextsiftError
from textsift.lasso import AdaBagClassifier
from textsift.selection.ordinal import OrdinalSelector
from textsift.selection.selectors import TermSelector
from textsift.text.vectorize import VectorizerOptions

BOUNDS = {name: b for name, b in vars(_bounds).items() if isinstance(b, Bound)}
NUMBERS = st.one_of(st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0, 1, 0.0, 1.0, 2, 2.0, -0.0, 0.5, 1e-300]),
                    st.integers(-3, 3).map(np.int64), st.floats(-2, 2).map(np.float64))


def test_every_bound_is_listed():
    assert set(BOUNDS) == {"ALPHA", "LEVEL", "RATIO", "FRACTION", "K", "POSITIVE", "MIN_DF",
                           "MAX_DF"}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(BOUNDS)), NUMBERS)
def test_the_plain_check_is_scikit_learns_interval(name, value):
    """An identity with scikit-learn: ``value in bound`` is whether any of its Intervals is
    satisfied (booleans, which scikit-learn takes as 0 and 1, are left out: they are refused
    here)."""
    bound = BOUNDS[name]
    expected = any(c.is_satisfied_by(value) for c in bound.constraints())
    assert (value in bound) == expected


@pytest.mark.parametrize("value, inside", [
    (0, False), (0.0, False), (1e-9, True), (0.05, True), (1, True), (1.0, True),
    (1.0000001, False), (math.nan, False), (math.inf, False), (True, False), ("0.05", False)])
def test_the_alpha_range_is_zero_open_one_closed(value, inside):
    """(0, 1]: 1 passes every p-value (scikit-learn's SelectFpr(alpha=1) keeps every term)."""
    assert (value in ALPHA) is inside


@pytest.mark.parametrize("bound, value, inside", [
    (MIN_DF, 1, True), (MIN_DF, 0, False), (MIN_DF, 0.0, True), (MIN_DF, 0.99, True),
    (MIN_DF, 1.0, False), (MIN_DF, 5, True), (MIN_DF, np.int64(3), True),
    (MAX_DF, 1, True), (MAX_DF, 1.0, True), (MAX_DF, 0.0, False), (MAX_DF, 1.5, False),
    (MAX_DF, 40, True), (RATIO, 1, True), (RATIO, 0, False)])
def test_documents_are_counted_by_ints_and_shared_by_floats(bound, value, inside):
    """scikit-learn's CountVectorizer reading: an int counts documents, a float (a Real
    that is not an Integral) is a share of them."""
    assert isinstance(value, Integral) or isinstance(value, float)
    assert (value in bound) is inside


@pytest.mark.parametrize("make, name, value, words", [
    (lambda v: TermSelector("chi2", alpha=v), "alpha", 1.5, ALPHA.words),
    (lambda v: TermSelector("chi2", alpha=v), "alpha", 0, ALPHA.words),
    (lambda v: TermSelector("chi2", ratio=v), "ratio", 0.0, RATIO.words),
    (lambda v: OrdinalSelector("var", k=None, ratio=v), "ratio", 2, RATIO.words),
    (lambda v: OrdinalSelector("mann_whitney", alpha=v), "alpha", -1, ALPHA.words),
])
def test_an_estimator_refuses_a_value_outside_its_range_naming_it(make, name, value, words):
    """The constraints are checked when fit starts: a TextsiftError (the library's one
    error type, a ValueError as scikit-learn's InvalidParameterError is) naming the
    parameter, the values it takes and the value given."""
    X, y = np.array([[1, 0], [0, 1], [1, 1], [0, 2]]), np.array([1, 2, 1, 2])
    with pytest.raises(TextsiftError) as err:
        make(value).fit(X, y)
    assert str(err.value) == f"{name} must be {words}, got {value!r}"


@pytest.mark.parametrize("params, message", [
    ({"correction": "fdr"}, "unknown correction 'fdr'; choose one of "),
    ({"direction": "upward"}, "unknown direction 'upward'"),
    ({"rr_variant": "turn_consume"}, "unknown rr_variant 'turn_consume' (did you mean "
                                      "'turn_consumed'?); choose one of skip, turn_consumed"),
    ({"k": "every"}, "k must be a positive number of terms or 'all', got 'every'"),
    ({"method_params": [("base", 2)]}, "The 'method_params' parameter of TermSelector must "
                                       "be an instance of 'dict' or None"),
])
def test_other_constraints_say_the_choices(params, message):
    X, y = np.array([[1, 0], [0, 1], [1, 1], [0, 2]]), np.array([1, 2, 1, 2])
    with pytest.raises(TextsiftError) as err:
        TermSelector("chi2", **params).fit(X, y)
    assert message in str(err.value)


def test_fit_counts_checks_the_parameters_too():
    from textsift.counting.counts import Counts

    counts = Counts.from_matrix(np.array([[1, 0], [0, 1]]), ["a", "b"])
    with pytest.raises(TextsiftError, match=r"alpha must be a significance level"):
        TermSelector("chi2", alpha=2.0).fit_counts(counts)


@pytest.mark.parametrize("params, message", [
    ({"n_bootstraps": 0}, "n_bootstraps must be an integer >= 1, got 0"),
    ({"min_ratio": 0}, r"min_ratio must be a fraction in (0, 1), got 0"),
    ({"scheme": "ws9"}, "unknown scheme 'ws9' (did you mean"),
])
def test_adabag_checks_its_constraints_without_fitting(params, message):
    with pytest.raises(TextsiftError) as err:
        AdaBagClassifier(**params).check_params()
    assert message in str(err.value)


@pytest.mark.parametrize("name, value", [("min_df", 0), ("min_df", 1.0), ("min_df", -0.5),
                                         ("max_df", 0), ("max_df", 1.5), ("max_df", 0.0)])
def test_the_vectorizer_and_the_experiment_file_refuse_the_same_values(name, value, tmp_path):
    """The library (VectorizerOptions) and an experiment file's [preprocessing] read the one
    range: the same words, the file's name and key in front."""
    bound = {"min_df": MIN_DF, "max_df": MAX_DF}[name]
    assert value not in bound
    with pytest.raises(TextsiftError) as err:
        VectorizerOptions(**{name: value})
    assert str(err.value) == f"{name} must be {bound.words}, got {value!r}"

    from textsift.experiment.config import load_config

    toml = tmp_path / "x.toml"
    toml.write_text('[corpus]\nsample = "reviews"\n[selection]\nmethods = ["chi2"]\n'
                    f"sizes = [10]\n[preprocessing]\n{name} = {value}\n"
                    '[[learners]]\nname = "nb"\n')
    with pytest.raises(TextsiftError) as err:
        load_config(toml)
    assert f"[preprocessing] {name} must be {bound.words}, got {value!r}" in str(err.value)


@pytest.mark.parametrize("key, value, bound", [("alphas", 0, ALPHA), ("alphas", 1.5, ALPHA),
                                               ("ratios", 0, RATIO)])
def test_an_experiment_files_levels_read_the_same_ranges(key, value, bound, tmp_path):
    from textsift.experiment.config import load_config

    toml = tmp_path / "x.toml"
    toml.write_text(f'[corpus]\nsample = "reviews"\n[selection]\nmethods = ["chi2"]\n'
                    f'{key} = [{value}]\n[[learners]]\nname = "nb"\n')
    with pytest.raises(TextsiftError) as err:
        load_config(toml)
    assert f"[selection] {key} entry must be {bound.words}, got {value!r}" in str(err.value)


@pytest.mark.parametrize("args, words", [
    (["--alpha", "0"], ALPHA.words), (["--alpha", "1.5"], ALPHA.words),
    (["--min-df", "0"], MIN_DF.words), (["--max-df", "0"], MAX_DF.words),
    (["--max-df", "2.5"], MAX_DF.words)])
def test_the_command_line_says_the_same_range(args, words):
    from typer.testing import CliRunner

    from textsift.cli import app
    from textsift.reading.corpus import sample_path

    res = CliRunner().invoke(app, ["score", str(sample_path("reviews")), "--label-field",
                                   "rating", *args])
    assert res.exit_code == 2
    assert res.stderr.startswith("error: ") and res.stderr.count("\n") == 1, res.stderr
    assert f"Invalid value for '{args[0]}': {words}; got {args[1]}" in res.stderr


def test_count_file_and_the_command_line_share_one_engine_default():
    import inspect

    from textsift._choices import ENGINE
    from textsift.cli.options import CorpusOptions
    from textsift.engines import count_file

    assert ENGINE == "memory"
    assert inspect.signature(count_file).parameters["engine"].default == ENGINE
    assert CorpusOptions(data=()).engine.value == ENGINE


def test_the_command_lines_min_df_takes_what_the_library_takes():
    """``--min-df 0.02`` is a share of the documents, as ``min_df=0.02`` is to the library
    (it was refused as not an integer while the help said "or a fraction"); ``--min-df 3`` a
    count: the same ranking as the library's counts."""
    import io

    import pandas as pd
    from typer.testing import CliRunner

    from textsift import Counts, rank
    from textsift.cli import app
    from textsift.reading.corpus import load_sample, sample_path

    corpus = load_sample("20ng")
    for text, value in (("0.02", 0.02), ("3", 3)):
        res = CliRunner().invoke(app, ["score", str(sample_path("20ng")), "--min-df", text,
                                       "--top", "5", "-f", "csv"])
        assert res.exit_code == 0, res.stderr
        counts = Counts.from_texts(corpus.texts, corpus.labels, VectorizerOptions(min_df=value))
        assert pd.read_csv(io.StringIO(res.stdout))["term"].tolist() == list(
            rank(counts, "chi2", top=5).terms)
