"""Multiple-testing corrections equal statsmodels' multipletests (issue 29 item 3)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from textsift.errors import TextsiftError
from textsift.evidence.corrections import adjust, adjust_table, check_alpha

multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
STATSMODELS = {"bonferroni": "bonferroni", "holm": "holm", "bh": "fdr_bh", "by": "fdr_by"}

pvalues = arrays(np.float64, st.integers(1, 60), elements=st.one_of(
    st.floats(0, 1), st.sampled_from([0.0, 1.0, 0.05, 1e-300, 0.5])))


@settings(max_examples=200, deadline=None)
@given(pvalues, st.sampled_from(sorted(STATSMODELS)))
def test_equal_to_statsmodels_multipletests(p, correction):
    """Ties, zeros and ones included; to 1e-12 relative (the same arithmetic, in another
    order for BH/BY)."""
    expected = multipletests(p, method=STATSMODELS[correction])[1]
    np.testing.assert_allclose(adjust(p, correction), expected, rtol=1e-12, atol=0)


def test_worked_example():
    """p = 0.01, 0.02, 0.03, 0.04 (n = 4): Bonferroni 0.04, 0.08, 0.12, 0.16; Holm 0.04,
    0.06, 0.06, 0.06 (3 x 0.02, then the running max); BH 0.04 for all (4/4 x 0.04 = 0.04,
    4/3 x 0.03 = 0.04, 4/2 x 0.02 = 0.04, 4 x 0.01 = 0.04)."""
    p = np.array([0.01, 0.02, 0.03, 0.04])
    np.testing.assert_allclose(adjust(p, "bonferroni"), [0.04, 0.08, 0.12, 0.16])
    np.testing.assert_allclose(adjust(p, "holm"), [0.04, 0.06, 0.06, 0.06])
    np.testing.assert_allclose(adjust(p, "bh"), [0.04, 0.04, 0.04, 0.04])
    np.testing.assert_array_equal(adjust(p, "none"), p)


def test_untested_terms_are_in_no_family():
    """NaN (a term no document has) is left out: Bonferroni multiplies by 2, not 3."""
    out = adjust(np.array([0.01, np.nan, 0.02]), "bonferroni")
    np.testing.assert_allclose(out, [0.02, np.nan, 0.04])


def test_family_class_corrects_each_column_all_the_whole_table():
    p = np.array([[0.01, 0.02], [0.03, 0.5]])
    np.testing.assert_allclose(adjust_table(p, "bonferroni", "class"), [[0.02, 0.04],
                                                                        [0.06, 1.0]])
    np.testing.assert_allclose(adjust_table(p, "bonferroni", "all"), [[0.04, 0.08],
                                                                      [0.12, 1.0]])


@pytest.mark.parametrize("alpha", [0, -0.1, 1.5, float("nan"), "0.05", True])
def test_alpha_outside_0_1_is_refused(alpha):
    with pytest.raises(TextsiftError, match=r"alpha must be a significance level in \(0, 1\]"):
        check_alpha(alpha)


def test_unknown_correction_and_family_are_refused():
    with pytest.raises(TextsiftError, match="unknown correction 'fdr'.*bh"):
        adjust(np.array([0.1]), "fdr")
    with pytest.raises(TextsiftError, match="unknown family 'rows'"):
        adjust_table(np.array([[0.1]]), "bh", "rows")


@pytest.mark.parametrize("correction", ["bonferroni", "holm", "bh", "by", "none"])
@pytest.mark.parametrize("family", ["class", "all"])
@pytest.mark.parametrize("sizes", ["own", "shared"])
def test_per_class_tests_corrected_once_per_distinct_table_equal_the_whole_table(
        correction, family, sizes):
    """The sparse path (a table's p-value weighted by its number of terms) gives what the
    correction of the dense table gives, to 1e-12: with every class of its own size (40,
    80, 120, 160 documents: a table is one class's) and with four classes of 100 documents
    (a table is every class's that has it: each class's family weighs it by its own
    terms)."""
    from textsift import Counts
    from textsift.scores import pvalues

    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), [40, 80, 120, 160] if sizes == "own" else [100] * 4)
    X = (rng.random((400, 300)) < rng.uniform(0.001, 0.3, 300)[None, :] * (
        1 + (y[:, None] == rng.integers(0, 4, 300)[None, :]))).astype(int)
    X[:, :5] = 0  # unseen terms: no test, in no family
    counts = Counts.from_matrix(X, y)
    assert len(counts.cells.size_values) == (4 if sizes == "own" else 1)
    p = pvalues(counts, "fisher")
    assert p.table.absent_grid() is not None  # one p-value per distinct table
    q = p.adjusted(correction, family)
    np.testing.assert_allclose(q, adjust_table(p.values, correction, family), rtol=1e-12)
    assert np.isnan(q[:5]).all()
    sparse = p.adjusted(correction, family, dense=False)
    np.testing.assert_array_equal(sparse.values, q)  # the same values, written when read


@pytest.mark.parametrize("entry", ["adjust", "adjust_distinct", "adjust_table"])
def test_a_registered_name_without_a_procedure_is_refused(monkeypatch, entry):
    """A correction listed in the choices but given no procedure in ``_adjusted`` is refused
    by every entry point, never corrected as another one (before the procedures were
    written once, ``adjust_families`` corrected any such name as Benjamini-Hochberg)."""
    from textsift.evidence import corrections

    monkeypatch.setattr(corrections, "CORRECTIONS", (*corrections.CORRECTIONS, "sidak"))
    p = np.array([[0.01, 0.2], [0.04, 0.5]])
    call = {"adjust": lambda: corrections.adjust(p, "sidak"),
            "adjust_distinct": lambda: corrections.adjust_distinct([0.01, 0.2], [1, 3], "sidak"),
            "adjust_table": lambda: corrections.adjust_table(p, "sidak")}[entry]
    with pytest.raises(TextsiftError, match="'sidak' has no procedure"):
        call()
