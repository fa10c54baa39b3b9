"""chi2 where expected counts are small (issue 39): selection by alpha with chi2 warns when
the terms that pass have an expected count below 5 in their 2 x 2 table (Cochran's rule),
with the rarest term's p-values by chi2, Yates and Fisher; ``score --yates`` gives Yates'
continuity correction, whose p-values are scipy's ``chi2_contingency``'s.

The worked example: 1,000 documents, class ``a`` of 100. ``alpha`` is in every document of
``a`` and no other (expected counts 10, 90, 90, 810: none small); ``rare`` is in one document
of ``a`` (A = 1, B = 0, C = 99, D = 900; its smallest expected count is 1 * 100 / 1000 =
0.1): chi2 = 1000 * 900^2 / (1 * 999 * 100 * 900) = 9.009, p = 0.0027, so it passes 0.05
uncorrected; Yates' (|AD - BC| - N/2)^2 = 400^2 gives chi2 = 1.78, p = 0.18; Fisher's
exact test (over-representation) gives P(A >= 1) = 100 / 1000 = 0.1."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy.stats import chi2_contingency
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.errors import DataWarning
from textsift.evidence.significant import expected_minimum, significant_terms

runner = CliRunner()

TEXTS = ["alpha rare"] + ["alpha word"] * 99 + ["beta word"] * 900
LABELS = ["a"] * 100 + ["b"] * 900


@pytest.fixture(scope="module")
def counts():
    return Counts.from_texts(TEXTS, LABELS)


def corpus(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"text": t, "label": y}) + "\n"
                            for t, y in zip(TEXTS, LABELS, strict=True)))
    return path


def test_the_smallest_expected_count_is_the_margins_product(counts):
    terms = [list(counts.feature_names).index(t) for t in ("alpha", "rare")]
    # alpha: min(100, 900) * min(100, 900) / 1000 = 10; rare: min(1, 999) * 100 / 1000 = 0.1
    assert expected_minimum(counts, terms, 0).tolist() == pytest.approx([10.0, 0.1])
    table = np.array([[1, 0], [99, 900]])
    assert chi2_contingency(table, correction=False).expected_freq.min() == pytest.approx(0.1)


def test_selection_by_chi2_warns_with_the_three_p_values(counts):
    with pytest.warns(DataWarning) as caught:
        index, _ = significant_terms(counts, "chi2", 0.05, "none", class_label="a",
                                     direction="over")
    assert sorted(counts.feature_names[index]) == ["alpha", "rare"]
    message = str(caught[0].message)
    assert message.startswith(
        "1 of the 2 terms that pass alpha 0.05 by chi2 have an expected count below 5 in "
        "their 2 x 2 table (terms in few documents), where chi2's p-value (Pearson's "
        "large-sample approximation) can be far too small. The rarest, 'rare' (in 1 "
        "document(s), 1 of class 'a'), passes with p = 0.0027, where Yates' correction "
        "gives 0.18 and Fisher's exact test 0.1. For p-values that hold there, use Fisher's "
        "exact test (method 'fisher', --method fisher) or Yates' continuity correction "
        "(yates=True, --yates)"), message
    # the numbers are scipy's (the statistic's p-values) and the hypergeometric's
    table = np.array([[1, 0], [99, 900]])
    assert chi2_contingency(table, correction=False).pvalue == pytest.approx(0.002689, 1e-3)
    assert chi2_contingency(table, correction=True).pvalue == pytest.approx(0.1822, 1e-3)


def test_no_warning_with_yates_fisher_or_common_terms(counts):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        kept, _ = significant_terms(counts, "chi2", 0.05, "none", class_label="a",
                                    direction="over", yates=True)
        assert counts.feature_names[kept].tolist() == ["alpha"]  # rare: p = 0.18
        kept, _ = significant_terms(counts, "fisher", 0.05, "none", class_label="a",
                                    direction="over")
        assert counts.feature_names[kept].tolist() == ["alpha"]  # rare: p = 0.1
        common = counts.select_terms(np.flatnonzero(counts.feature_names != "rare"))
        significant_terms(common, "chi2", 0.05, "none", class_label="a", direction="over")


def test_score_yates_selects_by_the_corrected_p_values_and_warns_without(tmp_path):
    path = corpus(tmp_path)
    args = ["score", str(path), "--class", "a", "--alpha", "0.05", "--correction", "none",
            "--format", "json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert [r["term"] for r in json.loads(res.stdout)] == ["alpha", "rare"]
    warned = [ln for ln in res.stderr.splitlines() if ln.startswith("warning:")]
    assert len(warned) == 1 and "1 of the 2 terms that pass alpha 0.05 by chi2" in warned[0]
    res = runner.invoke(app, [*args, "--yates"])
    assert res.exit_code == 0, res.output
    assert [r["term"] for r in json.loads(res.stdout)] == ["alpha"]
    assert "warning:" not in res.stderr
    assert "chi2 with Yates' correction: 1 terms selected of 4" in res.stderr


def test_score_yates_evidence_p_values_are_scipys(tmp_path):
    """Each term's p under --yates is scipy's chi2_contingency(correction=True) of its
    table; without it, correction=False's."""
    path = corpus(tmp_path)
    for yates in (True, False):
        res = runner.invoke(app, ["score", str(path), "--class", "a", "--evidence",
                                  "--direction", "both", "--format", "json",
                                  *(["--yates"] if yates else [])])
        assert res.exit_code == 0, res.output
        rows = json.loads(res.stdout)
        assert len(rows) == 4
        for r in rows:
            table = np.array([[r["A"], r["B"]], [r["C"], r["D"]]])
            assert r["p"] == pytest.approx(chi2_contingency(table, correction=yates).pvalue,
                                           rel=1e-9), (yates, r)


def test_per_class_evidence_counts_warn_too(tmp_path):
    """`score --per-class --evidence` counts each class's terms that pass --alpha (0.05 by
    default) by chi2: the same warning; none with --yates."""
    path = corpus(tmp_path)
    res = runner.invoke(app, ["score", str(path), "--per-class", "--evidence", "--correction",
                              "none", "--format", "json"])
    assert res.exit_code == 0, res.output
    warned = [ln for ln in res.stderr.splitlines() if ln.startswith("warning:")]
    assert len(warned) == 1 and "terms that pass alpha 0.05 by chi2 have an expected count " \
        "below 5" in warned[0], res.stderr
    res = runner.invoke(app, ["score", str(path), "--per-class", "--evidence", "--correction",
                              "none", "--format", "json", "--yates"])
    assert res.exit_code == 0 and "warning:" not in res.stderr, res.stderr


def test_explore_alpha_warns_for_chi2(tmp_path):
    """`explore --alpha` keeps each class's terms as `score --class C --alpha` does: chi2's
    passing terms with small expected counts warn there too; Fisher's alone do not."""
    path = corpus(tmp_path)
    res = runner.invoke(app, ["explore", str(path), "--alpha", "0.05", "--correction", "none",
                              "--methods", "chi2,fisher", "--out", str(tmp_path / "a.html")])
    assert res.exit_code == 0, res.output
    warned = [ln for ln in res.stderr.splitlines() if ln.startswith("warning:")]
    assert len(warned) == 1 and "by chi2 have an expected count below 5" in warned[0], (
        res.stderr)
    # what explore has: no --yates there (score has it)
    assert warned[0].endswith("For p-values that hold there, read Fisher's exact test's "
                              "(--methods with fisher), or keep the terms of enough documents "
                              "(--min-df); `textsift score --yates` gives Yates' correction of "
                              "chi2"), warned[0]
    res = runner.invoke(app, ["explore", str(path), "--alpha", "0.05", "--correction", "none",
                              "--methods", "fisher", "--out", str(tmp_path / "b.html")])
    assert res.exit_code == 0 and "warning:" not in res.stderr, res.stderr
