"""TermSelector(alpha=, correction=, family=): selection by adjusted p-value (issue 29 item 4),
with scikit-learn's ``pvalues_``. The numbers expected are scikit-learn's own selectors on
the same data (SelectFpr, SelectFdr, SelectFwe with its chi2), statsmodels' corrections,
and the identities of the rules."""

import warnings

import numpy as np
import pytest
from sklearn.feature_selection import SelectFdr, SelectFpr, SelectFwe, chi2
from sklearn.pipeline import make_pipeline
from statsmodels.stats.multitest import multipletests

from textsift.errors import TextsiftError
from textsift.selection.ordinal import OrdinalSelector
from textsift.selection.selectors import TermSelector

SKLEARN = {"none": SelectFpr, "bh": SelectFdr, "bonferroni": SelectFwe}


def _binary(seed, n=400, v=120, m=3):
    """Binary features, a third of them with class-dependent rates; every feature in some
    document (scikit-learn counts a feature no document has in its family; textsift does not
    test it)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, m, n)
    rate = np.where(rng.random((m, v)) < 0.3, rng.uniform(0.02, 0.4, (m, v)), 0.1)
    rate[:, rng.random(v) > 1 / 3] = 0.1
    X = (rng.random((n, v)) < rate[y]).astype(np.int64)
    X[0] = 1
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("correction", sorted(SKLEARN))
@pytest.mark.parametrize("alpha", [1e-4, 0.01, 0.05, 0.3])
def test_selects_exactly_what_select_fpr_fdr_fwe_select(seed, correction, alpha):
    """On chi2_sklearn (scikit-learn's chi2 statistic and p-values), alpha with correction
    none / bh / bonferroni keeps the features SelectFpr / SelectFdr / SelectFwe keep, and
    pvalues_ are scikit-learn's (to 1e-12)."""
    X, y = _binary(seed)
    ours = TermSelector("chi2_sklearn", alpha=alpha, correction=correction).fit(X, y)
    theirs = SKLEARN[correction](chi2, alpha=alpha).fit(X, y)
    np.testing.assert_array_equal(ours.get_support(), theirs.get_support())
    np.testing.assert_allclose(ours.pvalues_, theirs.pvalues_, rtol=1e-12)
    assert ours.pvalues_.shape == (X.shape[1],)


def test_the_selections_are_not_trivial():
    """The comparison above selects something and not everything (else it could not fail):
    at 0.05, SelectFdr keeps between 1 and 119 of the 120 features of seed 0."""
    X, y = _binary(0)
    kept = TermSelector("chi2_sklearn", alpha=0.05, correction="bh").fit(X, y).get_support()
    assert 0 < kept.sum() < X.shape[1]


def test_per_class_test_keeps_a_term_if_any_class_keeps_it():
    """chi2 (the 2x2 test of each class): the kept terms are those with a BH-adjusted
    p-value <= alpha in some class, each class's terms corrected apart (statsmodels'
    fdr_bh on each column); with family='all' the whole table at once."""
    X, y = _binary(1)
    from textsift.scores import pvalues

    sel = TermSelector("chi2", alpha=0.05).fit(X, y)

    table = pvalues(sel.counts_, "chi2").values
    by_class = np.column_stack([multipletests(table[:, j], 0.05, "fdr_bh")[1]
                                for j in range(table.shape[1])])
    np.testing.assert_array_equal(sel.get_support(), (by_class <= 0.05).any(axis=1))
    whole = multipletests(table.ravel(), 0.05, "fdr_bh")[1].reshape(table.shape)
    sel.set_params(family="all")  # a cut parameter: no refit
    np.testing.assert_array_equal(sel.get_support(), (whole <= 0.05).any(axis=1))
    np.testing.assert_array_equal(sel.pvalues_, table.min(axis=1))


def test_direction_and_class_label_restrict_the_cells():
    """direction='over' keeps a cell only where the term is over-represented in the class
    (A/N_c > B/(N - N_c)); class_label keeps that class's column only."""
    X, y = _binary(2)
    from textsift.scores import pvalues

    both = TermSelector("chi2", alpha=0.05).fit(X, y)
    over = TermSelector("chi2", alpha=0.05, direction="over").fit(X, y)
    one = TermSelector("chi2", alpha=0.05, class_label=1).fit(X, y)
    q = pvalues(both.counts_, "chi2").adjusted("bh")
    A = both.counts_.doc_counts
    rate_in = A / both.counts_.class_sizes
    rate_out = (both.counts_.df[:, None] - A) / (len(y) - both.counts_.class_sizes)
    np.testing.assert_array_equal(over.get_support(),
                                  ((q <= 0.05) & (rate_in > rate_out)).any(axis=1))
    np.testing.assert_array_equal(one.get_support(), q[:, 1] <= 0.05)
    np.testing.assert_array_equal(one.pvalues_, pvalues(both.counts_, "chi2").values[:, 1])
    under = TermSelector("chi2", alpha=0.05, direction="under").fit(X, y)
    np.testing.assert_array_equal(under.get_support(),
                                  ((q <= 0.05) & (rate_in < rate_out)).any(axis=1))
    assert ((q <= 0.05) & (rate_in < rate_out)).any()  # over has cells to drop


def test_alpha_is_cut_again_after_fit_without_a_refit():
    """alpha and correction cut the fitted test as k cuts the fitted ranking: a smaller
    alpha keeps a subset; holm keeps no more than bh (its adjusted p-values are larger)."""
    X, y = _binary(0)
    sel = TermSelector("chi2_sklearn", alpha=0.3).fit(X, y)
    wide = sel.get_support()
    narrow = sel.set_params(alpha=0.001).get_support()
    assert narrow.sum() < wide.sum() and not (narrow & ~wide).any()
    holm = sel.set_params(alpha=0.05, correction="holm").get_support()
    bh = sel.set_params(correction="bh").get_support()
    assert not (holm & ~bh).any()


def test_no_term_passing_is_an_empty_selection_with_scikit_learns_warning():
    """Labels independent of the features at alpha 1e-12: nothing passes; transform warns
    as scikit-learn's selectors do and returns zero columns."""
    rng = np.random.default_rng(0)
    X = (rng.random((60, 10)) < 0.5).astype(int)
    y = rng.integers(0, 2, 60)
    sel = TermSelector("chi2", alpha=1e-12).fit(X, y)
    assert sel.get_support().sum() == 0
    with pytest.warns(UserWarning, match="No features were selected"):
        assert sel.transform(X).shape == (60, 0)


def test_in_a_pipeline_with_ordinal_mann_whitney():
    """OrdinalSelector(alpha=) selects by the Mann-Whitney p-value, BH-adjusted over the
    terms (statsmodels' fdr_bh of pvalues_); usable in a Pipeline."""
    rng = np.random.default_rng(4)
    y = rng.integers(1, 6, 300)
    rate = np.clip(0.05 + 0.06 * (y[:, None] - 3) * (np.arange(40) < 8), 0.01, 0.9)
    X = (rng.random((300, 40)) < np.where(np.arange(40) < 8, rate, 0.2)).astype(int)
    sel = OrdinalSelector("mann_whitney", alpha=0.05).fit(X, y)
    q = multipletests(sel.pvalues_, 0.05, "fdr_bh")[1]
    np.testing.assert_array_equal(sel.get_support(), q <= 0.05)
    assert 0 < sel.get_support().sum() < 40
    from sklearn.linear_model import LogisticRegression

    model = make_pipeline(OrdinalSelector("mann_whitney", alpha=0.05),
                          LogisticRegression(max_iter=200)).fit(X, y)
    assert model[-1].coef_.shape[1] == sel.get_support().sum()


@pytest.mark.parametrize("kwargs, message", [
    ({"k": 10, "alpha": 0.05}, "at most one of k, ratio, threshold and alpha"),
    ({"alpha": 0.0}, r"alpha must be a significance level in \(0, 1\]"),
    ({"alpha": 1.5}, r"alpha must be a significance level in \(0, 1\]"),
    ({"alpha": 0.05, "correction": "fdr"}, "unknown correction 'fdr'"),
    ({"alpha": 0.05, "family": "every"}, "unknown family 'every'"),
    ({"method": "bns", "alpha": 0.05}, "bns has no p-value"),
])
def test_bad_input_is_refused_at_fit(kwargs, message):
    X, y = _binary(0, n=60, v=10)
    with warnings.catch_warnings(), pytest.raises(TextsiftError, match=message):
        TermSelector(**kwargs).fit(X, y)


def test_alpha_in_the_commands_selects_what_the_selectors_select():
    """``score --class C --alpha`` keeps TermSelector(class_label=C, direction='over',
    alpha)'s terms (a class's terms are its over-represented ones on the command line), and
    ``ordinal --method mann_whitney --alpha`` OrdinalSelector's: one meaning of --alpha."""
    import io

    import pandas as pd
    from typer.testing import CliRunner

    from textsift import Counts
    from textsift.cli import app
    from textsift.reading.corpus import load_sample, sample_path
    from textsift.text.vectorize import VectorizerOptions

    def terms(args):
        res = CliRunner().invoke(app, [*args, "--min-df", "3", "-f", "csv"])
        assert res.exit_code == 0, res.stderr
        return set(pd.read_csv(io.StringIO(res.stdout), keep_default_na=False)["term"])

    for name, args, selector in (
            ("20ng", ["score", "--method", "fisher", "--class", "sci.space", "--alpha", "0.01"],
             TermSelector("fisher", alpha=0.01, class_label="sci.space", direction="over")),
            ("reviews", ["ordinal", "--method", "mann_whitney", "--alpha", "0.05",
                         "--correction", "holm", "--label-field", "rating"],
             OrdinalSelector("mann_whitney", alpha=0.05, correction="holm"))):
        corpus = load_sample(name)
        counts = Counts.from_texts(corpus.texts, corpus.labels, VectorizerOptions(min_df=3))
        kept = counts.feature_names[selector.fit_counts(counts).get_support()]
        assert 0 < len(kept) < counts.n_terms
        assert terms([args[0], str(sample_path(name)), *args[1:]]) == set(kept), name
    bad = CliRunner().invoke(app, ["ordinal", str(sample_path("reviews")), "--alpha", "0.05",
                                   "-k", "5"])
    assert bad.exit_code == 2 and "give one of -k" in bad.stderr  # or none: the best --top
