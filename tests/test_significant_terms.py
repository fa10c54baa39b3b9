"""Selection by significance (issue 29 item 4): on chi2_sklearn, what scikit-learn's
SelectFpr / SelectFdr / SelectFwe select; per-class tests with a policy over classes."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.feature_selection import SelectFdr, SelectFpr, SelectFwe, chi2

from textsift import Counts
from textsift.errors import TextsiftError
from textsift.evidence.significant import passing_scores, significant_terms
from textsift.evidence.terms import adjusted_pvalues

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
    from textsift.reading.corpus import load_sample, sample_path
    from textsift.text.vectorize import VectorizerOptions

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
                          (["--method", "bns", "--alpha", "0.05"], "bns has no p-value")):
        bad = CliRunner().invoke(app, ["score", sample, *args])
        assert bad.exit_code == 2 and message in bad.stderr and bad.stdout == ""


def _dense_reference(counts, method, alpha, correction, family, direction, class_label,
                     rr_variant):
    """Selection by significance written on the (V, m) tables, as its docstring states it:
    the cells whose q passes alpha (and have the direction; in class_label's column), a term
    kept if any cell is, ordered by a round robin of the scores over those cells; each term's
    smallest p-value."""
    from textsift.evidence.significant import passes, smallest_pvalues
    from textsift.scores import compute
    from textsift.scores.direction import direction as direction_table
    from textsift.selection.policies import rank_terms

    p, q = adjusted_pvalues(counts, method, correction, family)
    kept = passes(q, alpha, correction)
    if direction != "both":
        kept &= direction_table(counts).table().values == (1 if direction == "over" else -1)
    groups = [str(g) for g in p.groups]
    if class_label is not None:
        kept[:, np.arange(len(groups)) != groups.index(str(class_label))] = False
    table = np.where(kept, compute(counts, method).values, -np.inf)
    seen = kept.any(axis=1)
    order = (rank_terms(table, "rr", seen, variant=rr_variant, limit=int(seen.sum())).index
             if seen.any() else np.zeros(0, dtype=np.intp))
    return np.asarray(order[: int(seen.sum())]), smallest_pvalues(p, class_label)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), method=st.sampled_from(["chi2", "g2", "fisher"]),
       alpha=st.sampled_from([1e-4, 0.01, 0.05, 0.5, 1.0]),
       correction=st.sampled_from(["none", "bonferroni", "holm", "bh", "by"]),
       family=st.sampled_from(["class", "all"]),
       direction=st.sampled_from(["both", "over", "under"]),
       one_class=st.booleans(), rr_variant=st.sampled_from(["skip", "turn_consumed"]),
       label_sets=st.booleans(), per_cell=st.booleans())
def test_the_sparse_selection_is_the_dense_one(seed, method, alpha, correction, family,
                                              direction, one_class, rr_variant, label_sets,
                                              per_cell):
    """For the 2 x 2 tests, significant_terms masks the per-class tables in their sparse
    form and never writes a (V, m) table (what lets thousands of labels be selected by
    alpha); its terms, their order and the p-values are those of the same selection written
    on the dense tables, bit for bit: one label per document and label sets (the sparse
    layout), every correction, family, direction and round-robin rule, with the tests held
    per distinct table or cell by cell (``per_cell``: what past DISTINCT_CELLS non-zero
    cells, many labels, take), whose adjusted p-values are the dense correction's, a block
    of classes at a time."""
    from unittest import mock

    from textsift.evidence.corrections import adjust_table
    from textsift.labels import Labels
    from textsift.scores import pvalues

    rng = np.random.default_rng(seed)
    n, v, m = 120, 60, 5
    X = sp.csr_matrix(rng.poisson(rng.uniform(0, 0.4, v), (n, v)) * (rng.random((n, v)) < 0.6))
    if label_sets:
        Y = (rng.random((n, m)) < 0.3).astype(np.int8)
        Y[np.arange(m), np.arange(m)] = 1  # every label has a document
        counts = Counts.from_matrix(X, Labels(np.array([f"l{j}" for j in range(m)]),
                                              matrix=sp.csr_matrix(Y)), layout="sparse")
    else:
        y = rng.integers(0, m, n)
        y[:m] = np.arange(m)
        counts = Counts.from_matrix(X, y)
    label = counts.classes[seed % m] if one_class else None
    with mock.patch("textsift.scores._per_class.DISTINCT_CELLS", -1 if per_cell else 2**20), \
            mock.patch("textsift.scores.significance.FAMILY_BLOCK", 1 + seed % 150), \
            mock.patch("textsift.scores.significance.HASHED_CELLS", seed % 40):
        # per cell: corrected in blocks of 1 to 5 classes, the cells of a class grouped by
        # their p-value from 0 to 39 cells on (the others one entry each)
        p = pvalues(counts, method)
        assert (p.table.absent_grid() is None) == per_cell
        np.testing.assert_array_equal(p.adjusted(correction, family, dense=False).values,
                                      adjust_table(p.values, correction, family))
        assert passing_scores(counts, method, alpha, correction, family, direction,
                              label).storage == "cells"  # no (V, m) table written
        got = significant_terms(counts, method, alpha, correction, family, direction,
                                rr_variant, class_label=label)
    want = _dense_reference(counts, method, alpha, correction, family, direction, label,
                            rr_variant)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("per_cell", [False, True])
@pytest.mark.parametrize("direction", ["over", "both"])
def test_a_class_without_documents_and_the_counts_per_class(per_cell, direction):
    """A declared class with no document has no column (the scores leave it out): the sparse
    selection is still the dense one, and significant_counts (score --per-class --evidence)
    counts each class's passing cells from the masks as the dense table counts them:
    worked on a 5-class corpus declared with a sixth, empty class."""
    from unittest import mock

    from textsift.evidence.significant import passes, significant_counts
    from textsift.scores.direction import direction as direction_table

    X, y = _corpus(7, n=300, v=120, m=5)
    counts = Counts.from_matrix(X, y, classes=np.arange(6))
    with mock.patch("textsift.scores._per_class.DISTINCT_CELLS", -1 if per_cell else 2**20):
        got = significant_terms(counts, "g2", 0.01, "bh", direction=direction)
        per_class = significant_counts(counts, "g2", 0.01, "bh", direction=direction)
    want = _dense_reference(counts, "g2", 0.01, "bh", "class", direction, None, "skip")
    np.testing.assert_array_equal(got[0], want[0])
    p, q = adjusted_pvalues(counts, "g2")
    kept = passes(q, 0.01, "bh")
    if direction == "over":
        kept &= direction_table(counts).table().values == 1
    assert list(per_class.index) == ["0", "1", "2", "3", "4"]
    assert per_class.tolist() == kept.sum(axis=0).tolist() and per_class.sum() > 0
