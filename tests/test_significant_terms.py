"""Selection by significance (issue 29 item 4): on chi2_sklearn, what scikit-learn's
SelectFpr / SelectFdr / SelectFwe select; per-class tests with a policy over classes."""

import numpy as np
import pytest
from sklearn.feature_selection import SelectFdr, SelectFpr, SelectFwe, chi2

from textsift import Counts
from textsift.errors import TextsiftError
from textsift.evidence import adjusted_pvalues, significant_terms

SKLEARN = {"none": SelectFpr, "bh": SelectFdr, "bonferroni": SelectFwe}


def _corpus(seed, n=500, v=300, m=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, m, n)
    rate = rng.uniform(0.01, 0.2, (m, v)) * (rng.random((m, v)) < 0.3) + 0.02
    X = rng.poisson(rate[y])
    X[0] += 1  # every term in some document: scikit-learn's chi2 has no NaN
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("correction", sorted(SKLEARN))
@pytest.mark.parametrize("alpha", [0.001, 0.05, 0.5])
def test_chi2_sklearn_selects_what_scikit_learn_selects(seed, correction, alpha):
    X, y = _corpus(seed)
    counts = Counts.from_matrix(X, y)
    index, pvalues = significant_terms(counts, "chi2_sklearn", alpha, correction)
    selector = SKLEARN[correction](chi2, alpha=alpha).fit(X, y)
    assert set(index.tolist()) == set(np.flatnonzero(selector.get_support()).tolist())
    np.testing.assert_allclose(pvalues, selector.pvalues_, rtol=1e-12)


def test_per_class_tests_keep_a_term_any_class_keeps_in_round_robin_order():
    X, y = _corpus(3)
    counts = Counts.from_matrix(X, y)
    index, smallest = significant_terms(counts, "fisher", 0.05, "bh", direction="over")
    p, q = adjusted_pvalues(counts, "fisher")
    assert set(index.tolist()) == set(np.flatnonzero((q <= 0.05).any(axis=1)).tolist())
    assert len(index) == len(set(index.tolist()))
    np.testing.assert_array_equal(smallest, np.nanmin(p.values, axis=1))


def test_zero_terms_kept_is_empty_not_an_error():
    X, y = _corpus(4)
    index, _ = significant_terms(Counts.from_matrix(X, y), "fisher", 1e-300, "holm")
    assert index.size == 0


@pytest.mark.parametrize("alpha", [0, 1.01, -1])
def test_alpha_outside_0_1_is_refused(alpha):
    X, y = _corpus(5)
    with pytest.raises(TextsiftError, match=r"alpha must be a significance level"):
        significant_terms(Counts.from_matrix(X, y), "chi2", alpha)


def test_cli_alpha_selects_what_significant_terms_keeps():
    import io

    import pandas as pd
    from typer.testing import CliRunner

    from textsift.cli import app
    from textsift.corpus import load_sample, sample_path
    from textsift.vectorize import VectorizerOptions

    sample = str(sample_path("20ng"))
    res = CliRunner().invoke(app, ["score", sample, "--method", "g2", "--alpha", "0.01",
                                   "--correction", "holm", "--min-df", "3", "-f", "csv"])
    assert res.exit_code == 0, res.stderr
    corpus = load_sample("20ng")
    counts = Counts.from_texts(corpus.texts, corpus.labels, VectorizerOptions(min_df=3))
    index, _ = significant_terms(counts, "g2", 0.01, "holm")
    assert pd.read_csv(io.StringIO(res.stdout), keep_default_na=False)["term"].tolist() == (
        counts.feature_names[index].tolist())
    assert f"{len(index):,} terms selected" in res.stderr
    none = CliRunner().invoke(app, ["score", sample, "--method", "fisher", "--alpha", "1e-300",
                                    "--correction", "holm"])
    assert none.exit_code == 0 and "note: no term passes alpha 1e-300" in none.stderr
    for args, message in ((["--method", "chi2", "--alpha", "0.05", "-k", "5"], "give one of"),
                          (["--method", "bns", "--alpha", "0.05"], "bns has none")):
        bad = CliRunner().invoke(app, ["score", sample, *args])
        assert bad.exit_code == 2 and message in bad.stderr and bad.stdout == ""
