"""``textsift score --evidence`` and :func:`textsift.evidence.terms.evidence` (issue 29 item 7)."""

import io
import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import scipy.stats as ss
from typer.testing import CliRunner

from textsift import Counts, rank
from textsift.cli import app
from textsift.errors import TextsiftError
from textsift.evidence.corrections import adjust
from textsift.evidence.significant import significant_counts
from textsift.evidence.terms import evidence
from textsift.reading.corpus import load_sample, sample_path
from textsift.scores import pvalues
from textsift.scores.effects import log_ratio
from textsift.text.vectorize import VectorizerOptions

SAMPLE = str(sample_path("20ng"))


@pytest.fixture(scope="module")
def counts():
    corpus = load_sample("20ng")
    return Counts.from_texts(corpus.texts, corpus.labels, VectorizerOptions(min_df=3))


def test_a_class_rankings_evidence_is_its_cells_tests_and_effects(counts):
    ranked = rank(counts, "fisher", class_label="sci.space", top=10, direction="over")
    frame = evidence(counts, ranked, "fisher")
    j = list(counts.classes).index("sci.space")
    A, B, C, D = (x[ranked.index, j] for x in counts.contingency())
    np.testing.assert_array_equal(frame[["A", "B", "C", "D"]].to_numpy(),
                                  np.column_stack([A, B, C, D]))
    for row in frame.itertuples():
        table = [[row.A, row.B], [row.C, row.D]]
        assert row.p == pytest.approx(ss.fisher_exact(table, "greater").pvalue, rel=1e-12)
    # q: BH over the class's whole vocabulary (the default family), not over the 10 shown
    q = adjust(pvalues(counts, "fisher").values[:, j], "bh")
    np.testing.assert_allclose(frame["q"], q[ranked.index], rtol=1e-15)
    np.testing.assert_allclose(frame["log_ratio_low"], log_ratio(A, B, C, D)[1], rtol=1e-15)


def test_under_max_each_term_is_the_class_that_gave_its_score(counts):
    ranked = rank(counts, "chi2", top=5)
    frame = evidence(counts, ranked, "chi2")
    from textsift.scores import compute

    table = compute(counts, "chi2").values
    expected = counts.classes[np.argmax(table[ranked.index], axis=1)]
    assert frame["class"].tolist() == expected.tolist()


def test_sum_policy_has_no_one_class_and_is_refused(counts):
    with pytest.raises(TextsiftError, match="rank by a class .*max or rr"):
        evidence(counts, rank(counts, "chi2", aggregate="sum", top=3), "chi2")


def test_significant_counts_are_the_over_represented_terms_passing(counts):
    """For each class: terms with BH-adjusted q <= 0.05 that are over-represented in it."""
    got = significant_counts(counts, "g2", 0.05)
    j = list(counts.classes).index("sci.med")
    q = adjust(pvalues(counts, "g2").values[:, j], "bh")
    A, B, C, D = (x[:, j] for x in counts.contingency())
    over = A * (B + D) > B * (A + C)
    assert got["sci.med"] == int(((np.nan_to_num(q, nan=1) <= 0.05) & over).sum())


def _invoke(*args):
    return CliRunner().invoke(app, ["score", SAMPLE, "--min-df", "3", *args])


@pytest.mark.parametrize("fmt", ["csv", "json", "tsv"])
def test_every_format_carries_the_evidence(fmt):
    res = _invoke("--method", "g2", "--class", "sci.space", "--top", "3", "--evidence",
                  "-f", fmt)
    assert res.exit_code == 0, res.stderr
    text = res.stdout
    if fmt == "json":
        frame = pd.DataFrame(json.loads(text))
    else:
        frame = pd.read_csv(io.StringIO(text), sep="," if fmt == "csv" else "\t")
    assert {"A", "B", "C", "D", "p", "q", "log_ratio", "log_ratio_low", "log_ratio_high",
            "lrc", "or_haldane", "or_haldane_low", "or_haldane_high", "prop_diff",
            "prop_diff_low", "prop_diff_high"} <= set(frame.columns)
    assert frame["term"].iloc[0] == "space"


def test_term_frequencies_for_a_frequency_score():
    res = _invoke("--method", "log_odds_dirichlet", "--class", "sci.space", "--top", "2",
                  "--evidence", "-f", "json")
    assert res.exit_code == 0, res.stderr
    assert {"TF", "TF_rest", "p", "q"} <= set(json.loads(res.stdout)[0])


def test_per_class_shows_each_class_number_of_significant_terms(counts):
    res = _invoke("--method", "fisher", "--per-class", "--top", "2", "--evidence",
                  "--alpha", "0.01", "--correction", "holm", "-f", "tsv")
    assert res.exit_code == 0, res.stderr
    last = res.stdout.strip().splitlines()[-1].split("\t")
    expected = significant_counts(counts, "fisher", 0.01, "holm")
    assert last[0] == "terms with q < 0.01"  # SelectFwe's rule after holm: strictly below
    assert [int(x) for x in last[1:]] == expected.tolist()


def test_a_method_without_a_pvalue_warns_and_shows_the_rest():
    res = _invoke("--method", "bns", "--class", "sci.med", "--top", "2", "--evidence",
                  "-f", "json")
    assert res.exit_code == 0
    assert "warning: bns has no p-value" in res.stderr and "fisher" in res.stderr
    assert "p" not in json.loads(res.stdout)[0] and "lrc" in json.loads(res.stdout)[0]


def test_permutation_pvalues_for_any_method():
    """19 permutations: every p-value is a multiple of 1/20, at least 1/20."""
    res = _invoke("--method", "bns", "--class", "sci.space", "--top", "3", "--evidence",
                  "--permutations", "19", "--seed", "1", "-f", "json")
    assert res.exit_code == 0, res.stderr
    p = np.array([r["p"] for r in json.loads(res.stdout)])
    assert (p >= 0.05).all() and np.allclose(p * 20, np.round(p * 20))
    assert ("warning: no term can pass: 19 permutations give p-values of at least 1 / (19 + 1) "
            "= 0.05, and a term passes") in res.stderr


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_permutations_read_and_vectorise_the_corpus_once(engine, monkeypatch):
    """``score --evidence --permutations`` reads the corpus once and vectorises it once with
    the memory engine: the permutations take the matrix it counted (they read and
    vectorised the corpus a second time). The stream engine, which never holds the matrix,
    still has it read for the permutations; both print the same JSON."""
    import textsift.engines
    import textsift.reading.corpus
    import textsift.text.vectorize

    calls = {"read": 0, "vectorize": 0}

    def counted(kind, real):
        def call(*args, **kwargs):
            calls[kind] += 1
            return real(*args, **kwargs)
        return call

    read = counted("read", textsift.reading.corpus.read_corpus)
    vectorize = counted("vectorize", textsift.text.vectorize.vectorize)
    for module in (textsift.reading.corpus, textsift.engines):
        monkeypatch.setattr(module, "read_corpus", read)
    for module in (textsift.text.vectorize, textsift.engines):
        monkeypatch.setattr(module, "vectorize", vectorize)
    res = _invoke("--method", "chi2", "--class", "sci.space", "--top", "3", "--evidence",
                  "--permutations", "9", "--seed", "2", "-f", "json", "--engine", engine)
    assert res.exit_code == 0, res.stderr
    # (the stream engine counts its own chunks, then the permutations read the matrix)
    assert calls == {"read": 1, "vectorize": 1}
    p = [r["p"] for r in json.loads(res.stdout)]
    assert len(p) == 3 and all(x * 10 == round(x * 10) for x in p)  # multiples of 1/10
    monkeypatch.undo()
    again = _invoke("--method", "chi2", "--class", "sci.space", "--top", "3", "--evidence",
                    "--permutations", "9", "--seed", "2", "-f", "json", "--engine",
                    "stream" if engine == "memory" else "memory")
    # the same evidence; the memory engine adds the documents' columns (dispersion, the
    # document-level tests), which the stream engine, holding no matrix, leaves out
    mine, theirs = json.loads(res.stdout), json.loads(again.stdout)
    shared = set(mine[0]) & set(theirs[0])
    assert {"p", "q", "A", "log_ratio"} <= shared
    assert [{k: r[k] for k in shared} for r in mine] == [
        {k: r[k] for k in shared} for r in theirs]


@pytest.mark.parametrize("args, message", [
    (("--method", "bns", "--permutations", "9"), "add --evidence"),
    (("--method", "bns", "--evidence", "--permutations", "0"), "at least 1"),
    (("--method", "all", "--evidence"), "--evidence shows one method's evidence"),
    (("--method", "chi2", "--aggregate", "sum", "--evidence"), "under the sum policy"),
    (("--method", "chi2", "--evidence", "--alpha", "0"), "significance level in (0, 1]"),
    (("--method", "chi2", "--evidence", "--alpha", "1.5"), "significance level in (0, 1]"),
    (("--method", "chi2", "--evidence", "--correction", "fdr"), "fdr"),
])
def test_bad_input_is_one_error_line(args, message):
    res = _invoke(*args)
    assert res.exit_code == 2
    assert message in res.stderr and res.stderr.count("error:") == 1
    assert res.stdout == ""


def test_per_class_evidence_counts_a_test_of_the_whole_table_once():
    """``chi2_sklearn``'s p-value tests the term against every class at once (one p per term):
    ``significant_counts`` counts its passing terms once, under the test's one group, and
    that count is the number of terms selection by the same alpha keeps (it raised a pandas
    length error, 4 counts for 1 group)."""
    from textsift.evidence.significant import significant_counts, significant_terms

    rng = np.random.default_rng(3)
    y = rng.choice(["a", "b", "c", "d"], 80)
    X = sp.random(80, 30, density=0.2, format="csr", random_state=rng).toarray()
    X[:, :5] += 3 * (y[:, None] == "a")  # five terms of class a
    X = sp.csr_matrix(X)
    counts = Counts.from_matrix(X, y)
    got = significant_counts(counts, "chi2_sklearn", alpha=0.5)
    kept, _ = significant_terms(counts, "chi2_sklearn", alpha=0.5)
    assert len(got) == 1 and int(got.iloc[0]) == len(kept) > 0
