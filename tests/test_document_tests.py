"""Document-level tests (:mod:`textsift.evidence.document_tests`): the Wilcoxon rank-sum test equals
scipy's ``mannwhitneyu`` term by term, and Lijffijt's bootstrap test follows the null (issue
38 item 3)."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.stats as ss
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from textsift.errors import TextsiftError
from textsift.evidence.document_tests import bootstrap, relative_frequencies, wilcoxon


def _scipy(X, target, reference):
    """scipy's mannwhitneyu (asymptotic: tie and continuity corrections, two-sided) of each
    term's relative frequencies, the documents of size 0 left out."""
    X = sp.csr_matrix(X, dtype=np.float64)
    sizes = np.asarray(X.sum(axis=1)).ravel()
    kept = sizes > 0
    D = X[kept].toarray() / sizes[kept][:, None]
    t, r = np.asarray(target)[kept], np.asarray(reference)[kept]
    u, p = [], []
    for j in range(X.shape[1]):
        if not (D[t, j].any() or D[r, j].any()):
            u.append(np.nan)
            p.append(np.nan)
            continue
        res = ss.mannwhitneyu(D[t, j], D[r, j], method="asymptotic")
        u.append(res.statistic)
        p.append(res.pvalue)
    return np.array(u), np.array(p)


def _check_equal(X, target, reference):
    got = wilcoxon(X, target, reference)
    u, p = _scipy(X, target, reference)
    np.testing.assert_allclose(got.u, u, rtol=1e-12, atol=0, equal_nan=True)
    np.testing.assert_allclose(got.p, p, rtol=1e-12, atol=1e-300, equal_nan=True)


def test_wilcoxon_equals_scipy_on_every_term_of_a_generated_corpus():
    """300 documents, 400 terms of skewed rates and short documents: many ties (equal
    relative frequencies: documents of one size with one count), terms in a single document,
    in every document, in one group only."""
    rng = np.random.default_rng(7)
    n, V = 300, 400
    rates = rng.gamma(0.3, 0.05, V)
    sizes = rng.choice([5, 10, 10, 20, 40], n)
    X = sp.csr_matrix(rng.poisson(np.outer(sizes, rates)))
    X = sp.hstack([X, sp.csr_matrix(np.ones((n, 1))),  # in every document, one value
                   sp.csr_matrix(np.r_[np.ones(10), np.zeros(n - 10)][:, None])]).tocsr()
    target = rng.random(n) < 0.3
    _check_equal(X, target, ~target)


@st.composite
def _problems(draw):
    n = draw(st.integers(3, 14))
    V = draw(st.integers(1, 4))
    X = draw(arrays(np.int64, (n, V), elements=st.integers(0, 3)))
    group = draw(arrays(np.int8, n, elements=st.integers(0, 2)))  # 2: in neither group
    return X, group == 0, group == 1


@given(_problems())
@settings(max_examples=150, deadline=None)
def test_wilcoxon_equals_scipy_on_small_tables(problem):
    X, target, reference = problem
    sizes = X.sum(axis=1)
    if not ((sizes > 0) & target).any() or not ((sizes > 0) & reference).any():
        got = wilcoxon(X, target, reference)
        assert np.isnan(got.p).all()  # an empty group: no test
        return
    _check_equal(X, target, reference)


@pytest.mark.real_data
def test_wilcoxon_equals_scipy_on_every_term_of_amazon_alexa(real_data):
    """Amazon Alexa reviews (3,150): 5 stars against the rest, every term of the
    vocabulary (min_df 1)."""
    from textsift.reading.corpus import read_corpus
    from textsift.text.vectorize import vectorize

    corpus = read_corpus(real_data / "amazon_alexa" / "all.jsonl.gz", "text", "rating")
    X, _, _ = vectorize(corpus.texts)
    five = np.asarray(corpus.labels) == 5
    _check_equal(X, five, ~five)


def test_relative_frequencies_leave_out_empty_documents():
    R, kept = relative_frequencies(sp.csr_matrix(np.array([[1, 3], [0, 0], [2, 0]])))
    assert kept.tolist() == [True, False, True]
    np.testing.assert_array_equal(R.toarray(), [[0.25, 0.75], [1.0, 0.0]])


def test_bootstrap_of_a_term_only_the_target_has_is_its_smallest_pvalue():
    """In every document of the target, in none of the reference: every resample has
    freq(T) > freq(R) = 0, p1 = 1, and p = (1 + 0) / (1 + B); a term both groups have at one
    rate in every document ties in every resample, p1 = 1/2, p = 1."""
    X = sp.csr_matrix(np.array([[2, 2, 4]] * 6 + [[0, 2, 6]] * 9))  # every document 8 tokens
    target = np.r_[np.ones(6, bool), np.zeros(9, bool)]
    p = bootstrap(X, target, ~target, n_resamples=99, random_state=0)
    assert p[0] == pytest.approx(1 / 100, abs=1e-15)
    assert p[1] == pytest.approx(1.0, abs=1e-15)


def test_bootstrap_pvalues_are_uniform_under_shuffled_groups():
    """400 terms drawn independently of a random half of 160 documents (negative binomial
    counts, documents of unequal sizes, every term frequent enough that most resamples have
    it): the p-values of 999 resamples follow U(0, 1). Kolmogorov-Smirnov against the
    uniform, with the seeds fixed (the same numbers each run): the statistic must stay below
    1.63 / sqrt(400) = 0.0815, the critical value at level 0.01."""
    rng = np.random.default_rng(2016)
    n, V = 160, 400
    sizes = rng.integers(50, 400, n)
    mu = np.outer(sizes, rng.uniform(0.01, 0.05, V))
    X = sp.csr_matrix(rng.negative_binomial(2, 2 / (2 + mu)))
    target = rng.permutation(np.r_[np.ones(n // 2, bool), np.zeros(n - n // 2, bool)])
    p = bootstrap(X, target, ~target, n_resamples=999, random_state=1)
    assert not np.isnan(p).any()
    D = ss.kstest(p, "uniform").statistic
    assert D < 1.63 / np.sqrt(V), D


def test_bootstrap_is_vectorised_in_blocks_without_changing_the_resamples():
    """The resamples are drawn in one order whatever the block: the same p-values."""
    rng = np.random.default_rng(3)
    X = sp.csr_matrix(rng.poisson(0.5, (40, 30)))
    target = np.arange(40) < 15
    a = bootstrap(X, target, ~target, 50, random_state=5, block=50)
    b = bootstrap(X, target, ~target, 50, random_state=5, block=50)
    np.testing.assert_array_equal(a, b)
    assert (a[~np.isnan(a)] >= 1 / 51).all() and (a[~np.isnan(a)] <= 1).all()


@pytest.mark.parametrize("call, message", [
    (lambda X: wilcoxon(X, [True, True, False], [True, False, True]), "both the target"),
    (lambda X: wilcoxon(X, [True, False], [False, True]), "one target and one reference"),
    (lambda X: bootstrap(X, [True, False, False], [False, True, True], 0), "positive number"),
    (lambda X: wilcoxon(X, [True, False, False], [False, True, True], sizes=[1, 2]),
     "document sizes"),
])
def test_bad_input_is_refused(call, message):
    X = sp.csr_matrix(np.array([[1, 0], [0, 2], [1, 1]]))
    with pytest.raises(TextsiftError, match=message):
        call(X)


@pytest.mark.parametrize("family", ["class", "all"])
def test_evidence_columns_are_the_tests_of_the_class_corrected_over_the_family(family):
    """``p_wilcoxon``: the class against the rest; ``q_wilcoxon``: BH over the class's whole
    vocabulary (family class) or over every term of every class (family all), as ``q``."""
    from textsift import Counts, rank
    from textsift.evidence.corrections import adjust
    from textsift.evidence.dispersion import Documents
    from textsift.evidence.terms import evidence
    from textsift.reading.corpus import load_sample
    from textsift.text.vectorize import vectorize

    corpus = load_sample("20ng")
    X, names, _ = vectorize(corpus.texts, min_df=5)
    counts = Counts.from_matrix(X, corpus.labels, feature_names=names)
    docs = Documents.of(X, corpus.labels, counts.classes)
    ranked = rank(counts, "g2", class_label="sci.med", top=6, direction="over")
    frame = evidence(counts, ranked, "g2", family=family, documents=docs, bootstrap=49)
    y = np.asarray(corpus.labels)
    tests = {c: wilcoxon(X, y == c, y != c).p for c in counts.classes}
    p = tests["sci.med"]
    q = adjust(p if family == "class" else np.column_stack(list(tests.values())), "bh")
    q = q if family == "class" else q[:, list(counts.classes).index("sci.med")]
    np.testing.assert_array_equal(frame["p_wilcoxon"], p[ranked.index])
    np.testing.assert_allclose(frame["q_wilcoxon"], q[ranked.index], rtol=1e-14)
    assert ((frame["p_bootstrap"] >= 1 / 50) & (frame["p_bootstrap"] <= 1)).all()


def test_values_too_close_for_the_fast_sort_still_rank_exactly():
    """Relative frequencies of a term 1e-13 apart (documents of a million tokens): the
    float key cannot order them, the check falls back to the lexsort, and the test is
    still scipy's."""
    from textsift.evidence.document_tests import _by_term_then_value

    value = np.array([0.5, 0.5 + 1e-13, 0.5 - 1e-13, 0.25, 0.5 + 1e-13])
    col = np.full(5, 30_000)  # term 30,000: the key's spacing there is 3.6e-12
    key = col + value / (2 * value.max())
    assert key[0] == key[1] == key[2]  # the fast key cannot tell them apart
    order = _by_term_then_value(col, value)
    np.testing.assert_array_equal(order, np.lexsort((value, col)))
    X = sp.csr_matrix(np.array([[500_000, 500_000], [500_000 + 1, 499_999],
                                [499_999, 500_001], [250_000, 750_000], [1, 3]]))
    _check_equal(X, np.array([True, False, True, False, True]),
                 np.array([False, True, False, True, False]))
