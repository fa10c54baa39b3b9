"""The explore page on label sets: a label is a class, and "the rest" are the documents
without it -- the page embeds each term's document frequency (the rest's count is df - A,
not the sum over the other labels) and tags the snippets of documents with several labels,
so that the rest's snippets leave out the documents that have the label."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.errors import TextsiftError
from textsift.report.explore_data import explore_data, page_methods
from textsift.report.snippets import find_snippets
from textsift.selection.ranking import rank

runner = CliRunner()
# "shared" is in every document of label a: with b in the first three, with c in two more,
# and in two documents of c alone (the only documents of the rest of a that contain it)
TEXTS = ["alpha shared one", "alpha shared two", "alpha shared three", "alpha shared four",
         "alpha shared five", "gamma shared six", "gamma shared seven", "beta lone eight",
         "nothing here nine"]
LABELS = [["a", "b"], ["a", "b"], ["a", "b"], ["a", "c"], ["a", "c"], ["c"], ["c"], ["b"], []]


@pytest.fixture(scope="module")
def counts():
    return Counts.from_texts(TEXTS, LABELS)


def test_the_rest_of_a_label_is_the_documents_without_it(counts):
    data = explore_data(counts, zip(TEXTS, LABELS, strict=True), methods=["chi2", "bns"])
    assert data["multilabel"] and data["n_docs"] == 9
    shared = data["terms"].index("shared")
    a = data["classes"].index("a")
    # df embedded: 7 documents; the per-label counts sum to 12 (a 5, b 3, c 4)
    assert data["df"][shared] == 7 == counts.df[list(counts.feature_names).index("shared")]
    ptr, n = data["counts"]["ptr"], data["counts"]["n"]
    assert sum(n[ptr[shared]:ptr[shared + 1]]) == 12
    assert data["df"][shared] - 5 == 2  # the rest of a: the two documents of c alone
    assert data["class_sizes"][a] == 5
    # the page ranks as `textsift score --class a` does
    ids, _ = data["views"]["chi2"]["c"][a]
    assert data["terms"][ids[0]] == rank(counts, "chi2", class_label="a", top=1).terms[0]


def test_evidence_of_a_label_is_against_the_documents_without_it(counts):
    """Label a, term "shared": A = 5 of a's 5 documents, B = 2 of the 4 without a: the log
    ratio is log2((5/5) / (2/4)) = 1; chi2_sklearn's p-value needs one label per document,
    and the page says why it has none."""
    from textsift.evidence.terms import evidence

    data = explore_data(counts, methods=["chi2", "chi2_sklearn"])
    ev, a = data["evidence"], data["classes"].index("a")
    shared = data["terms"].index("shared")
    ids, lr, low, high = ev["lr"][a]
    assert lr[ids.index(shared)] == 1.0
    assert list(ev["methods"]) == ["chi2"]
    assert "needs one label per document" in ev["untested"]["chi2_sklearn"]
    frame = evidence(counts, rank(counts, "chi2", class_label="a", top=10), "chi2")
    row = frame.index[frame["term"] == "shared"][0]
    assert frame["log_ratio"][row] == 1.0 and (frame["A"][row], frame["B"][row]) == (5, 2)
    at = data["views"]["chi2"]["c"][a][0].index(shared)
    assert ev["methods"]["chi2"]["c"][a][1][at] == float(f"{frame['q'][row]:.3g}")


def test_snippets_of_a_document_with_several_labels_name_them():
    docs = list(zip(TEXTS, LABELS, strict=True))
    out = find_snippets(docs, ["shared"], {"a": 0, "b": 1, "c": 2}, np.array([[2, 2, 4]]),
                        words=1)
    a, b, c = out[0]
    assert a == [("alpha ", "shared", " one", [0, 1]), ("alpha ", "shared", " two", [0, 1])]
    assert b == a  # the same documents serve both their labels
    # c: the two documents of a and c, tagged, then the two of c alone, untagged
    assert c == [("alpha ", "shared", " four", [0, 2]), ("alpha ", "shared", " five", [0, 2]),
                 ("gamma ", "shared", " six"), ("gamma ", "shared", " seven")]


def test_methods_that_need_one_label_per_document_are_not_offered_or_refused(counts):
    assert "ig_multi" not in page_methods(counts) and "chi2" in page_methods(counts)
    with pytest.raises(TextsiftError, match="ig_multi needs one label per document"):
        page_methods(counts, ["chi2", "ig_multi"])


def _write(tmp_path):
    path = tmp_path / "ml.jsonl"
    path.write_text("".join(json.dumps({"text": t, "labels": lb}) + "\n"
                            for t, lb in zip(TEXTS, LABELS, strict=True)), encoding="utf-8")
    return path


def test_cli_writes_the_page_of_label_sets_and_refuses_ig_multi(tmp_path):
    path = _write(tmp_path)
    res = runner.invoke(app, ["explore", str(path), "--label-field", "labels", "--out",
                              str(tmp_path / "x.html")])
    assert res.exit_code == 0, res.output
    assert "9 documents, 3 labels" in res.stderr
    res = runner.invoke(app, ["explore", str(path), "--label-field", "labels", "--method",
                              "ig_multi", "--out", str(tmp_path / "y.html")])
    assert res.exit_code == 2 and res.stdout == ""
    assert f"error: {path}: ig_multi needs one label per document" in res.stderr.replace(
        "\n", " ")
    assert not (tmp_path / "y.html").exists()


def test_in_a_browser_the_rest_of_a_label_has_no_document_of_it(tmp_path):
    """Clicking "shared" under label a: a's five documents, and as the rest only the two
    documents of c alone (those of a and b or a and c are a's, not the rest's)."""
    from browser import chromium_or_skip

    path = _write(tmp_path)
    page = tmp_path / "x.html"
    res = runner.invoke(app, ["explore", str(path), "--label-field", "labels", "--out",
                              str(page), "--methods", "chi2,df"])
    assert res.exit_code == 0, res.output
    drv = chromium_or_skip(tmp_path / "profile")
    try:
        drv.get(page.resolve().as_uri())
        t0 = time.time()
        while not drv.execute_script("return !!(window.textsift && window.textsift.ready)"):
            assert time.time() - t0 < 60
            time.sleep(0.05)
        ids = drv.execute_script("return [...document.querySelectorAll('#ranked tbody tr')]"
                                 ".map(tr => [tr.dataset.id, tr.querySelector('td.term')"
                                 ".textContent])")
        shared = int(next(i for i, term in ids if term == "shared"))
        drv.execute_script(f"window.textsift.pick({shared})")
        heads = [h.text for h in drv.find_elements("css selector", "#snippets h3")]
        rest = [li.text for li in drv.find_elements("css selector", "#snippets li")][5:]
        assert heads == ["a: 5 of 5 documents", "the rest: 2 of 2 documents"]
        assert sorted(rest) == ["…gamma shared seven… [c]", "…gamma shared six… [c]"]
        assert "in 5 of 5 documents of a (100.0%), 2 of 4 others" in drv.find_element(
            "id", "term-stats").text
    finally:
        drv.quit()
