"""The report links each top term to its evidence and dispersion, which the run computed on
fold 0's training part and handed on (``term_evidence.csv``): checked on a run small enough
to count by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest
import scipy.stats as ss

from textsift.experiment import parse_config, run_experiment
from textsift.report.html import write_report

#: Six training documents (three of class a, three of b) and two test documents.
TRAIN = [("apple apple pear", "a"), ("apple kiwi", "a"), ("apple", "a"),
         ("pear kiwi", "b"), ("pear", "b"), ("kiwi kiwi", "b")]
TEST = [("apple pear", "a"), ("kiwi pear", "b")]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    frame = pd.DataFrame([{"text": t, "label": c, "split": "train"} for t, c in TRAIN]
                         + [{"text": t, "label": c, "split": "test"} for t, c in TEST])
    out = tmp_path_factory.mktemp("run")
    cfg = {"experiment": {"name": "fruit", "seed": 0}, "corpus": {"path": frame},
           "evaluation": {"protocol": "split", "metrics": ["accuracy"]},
           "preprocessing": {"min_df": 1},
           "selection": {"methods": ["chi2"], "sizes": [2], "baselines": []},
           "learners": [{"name": "nb"}]}
    run_experiment(parse_config(cfg), out)
    return out


def test_the_top_terms_evidence_is_counted_on_fold_0s_training_part(run):
    ev = pd.read_csv(run / "term_evidence.csv", keep_default_na=False, na_values=[""])
    top = ev[(ev["list"] == "top") & (ev["position"] == 1)].iloc[0]
    # apple: in the 3 documents of a, in none of b's; with two classes chi2 is the same in
    # both, and the first (a) is the class of the best score
    assert (top["term"], top["class"]) == ("apple", "a")
    assert [int(top[c]) for c in "ABCD"] == [3, 0, 0, 3]
    # chi2 = N (AD - BC)^2 / ((A+B)(C+D)(A+C)(B+D)) = 6 * 81 / 81 = 6; q: Benjamini-Hochberg
    # over the class's 3 terms, apple's p the smallest (pear's and kiwi's chi2 is 2/3)
    assert top["p"] == pytest.approx(ss.chi2.sf(6, 1), rel=1e-12)
    assert top["q"] == pytest.approx(3 * ss.chi2.sf(6, 1), rel=1e-12)
    # tokens 2 + 1 + 1 in a, none in b; range 3 and 0
    assert (top["n_target"], top["n_reference"]) == (4, 0)
    assert (top["range_target"], top["range_reference"]) == (3, 0)
    # a's documents have 3, 2 and 1 tokens (s = 6), apple 2, 1 and 1 of them (f = 4):
    # DP = (|2/4 - 3/6| + |1/4 - 2/6| + |1/4 - 1/6|) / 2 = 1/12, DPnorm = DP / (1 - 1/6) = 0.1
    assert top["dp_target"] == pytest.approx(1 / 12, rel=1e-12)
    assert top["dp_norm_target"] == pytest.approx(0.1, rel=1e-12)
    # relative frequencies 2/3, 1/2, 1: mean 13/18, population variance 7/162
    assert top["cv_target"] == pytest.approx(math.sqrt(7 / 162) / (13 / 18), rel=1e-12)
    assert math.isnan(top["dp_reference"]) and math.isnan(top["cv_reference"])  # absent in b


def test_a_class_terms_are_in_their_class(run):
    ev = pd.read_csv(run / "term_evidence.csv", keep_default_na=False, na_values=[""])
    own = ev[ev["list"] == "class"]
    # chi2's own column of each class, over-represented terms: apple in a (3 of 3 documents
    # against 0 of 3), kiwi and pear in b (2 of 3 against 1 of 3)
    assert sorted(zip(own["class"], own["term"], strict=True)) == [
        ("a", "apple"), ("b", "kiwi"), ("b", "pear")]
    kiwi = own[own["term"] == "kiwi"].iloc[0]
    # A, B: the documents with kiwi in b and in a; C, D: those without it
    assert [int(kiwi[c]) for c in "ABCD"] == [2, 1, 1, 2]
    # b's documents: "pear kiwi", "pear", "kiwi kiwi" (s = 5), kiwi 1, 0, 2 times (f = 3):
    # DP = (|1/3 - 2/5| + |0 - 1/5| + |2/3 - 2/5|) / 2 = 4/15
    assert kiwi["dp_target"] == pytest.approx(4 / 15, rel=1e-12)


def test_the_page_links_each_top_term_to_its_evidence_row(run):
    page = write_report(run).read_text(encoding="utf-8")
    ev = pd.read_csv(run / "term_evidence.csv", keep_default_na=False, na_values=[""])
    ev = ev[ev["list"] == "top"]
    assert len(ev) == 3  # chi2's ranking of the 3 terms
    for position, term in zip(ev["position"], ev["term"], strict=True):
        assert f'<a href="#ev-0-{position}">{term}</a>' in page
        assert f'<tr id="ev-0-{position}"><td>{position}</td><td>{term}</td>' in page
    row = page[page.index('<tr id="ev-0-1">'):]
    row = row[:row.index("</tr>")]
    # class, A-D, p, q, the effect sizes, tokens, range, DP, DPnorm and CV as written
    assert "<td>a</td><td>3</td><td>0</td><td>0</td><td>3</td>" in row
    assert "<td>0.0833</td>" in row and "<td>0.1</td>" in row and "<td>0.288</td>" in row
    assert "Evidence and dispersion of the top terms (fold 0)" in page
    assert "<a href='term_evidence.csv'>" in page
    # the class table's terms link to their rows in their class
    assert '<td><a href="#cev-0-1">apple</a></td>' in page
    assert '<tr id="cev-0-1"><td>a</td><td>1</td><td>apple</td>' in page
    assert page.count('<a href="#cev-1-') == 2 and page.count('<tr id="cev-1-') == 2


def test_a_p_value_the_labels_do_not_allow_leaves_its_terms_without_evidence(tmp_path):
    """chi2_sklearn's p-value needs one label per document: on label sets the run still ends,
    its top terms shown without evidence, chi2's with theirs."""
    rows = [("apple pear plum", ["a", "b"]), ("apple kiwi", ["a"]), ("apple plum", ["a"]),
            ("pear kiwi", ["b"]), ("pear plum", ["b"]), ("kiwi kiwi plum", ["b", "c"]),
            ("kiwi plum", ["c"]), ("apple plum kiwi", ["c"])] * 3
    frame = pd.DataFrame({"text": [t for t, _ in rows], "label": [y for _, y in rows]})
    cfg = {"corpus": {"path": frame}, "preprocessing": {"min_df": 1},
           "evaluation": {"protocol": "cv", "folds": 2},
           "selection": {"methods": ["chi2_sklearn", "chi2"], "sizes": [2], "baselines": []},
           "learners": [{"name": "linear_svm"}]}
    run_experiment(parse_config(cfg), tmp_path)
    ev = pd.read_csv(tmp_path / "term_evidence.csv")
    assert set(ev["method"]) == {"chi2"}
    assert (ev["list"] == "top").sum() == 4  # the 4 terms of the vocabulary
    page = write_report(tmp_path).read_text(encoding="utf-8")
    assert page.count('<a href="#ev-') == 4  # chi2's column linked, chi2_sklearn's not
