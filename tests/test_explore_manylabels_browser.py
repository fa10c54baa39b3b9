"""The explore page of many labels in a real browser (headless Chromium through Selenium,
skipped without them, as in test_explore_browser): it loads from file:// with no console
error; choosing a label in the search box loads that label's shard from the folder beside
the page and puts first the term ``textsift score --class LABEL`` prints first; an unknown
name is said so; clicking a term gives its documents in the label and in the rest."""

from __future__ import annotations

import json
import time

import pytest
from test_manylabels_doors import tagged
from typer.testing import CliRunner

from textsift.cli import app
from textsift.report.explore_labels import SHARD

runner = CliRunner()
N_TAGS = 3 * SHARD  # labels in three shards at least


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    X, tags = tagged(5, n_docs=1200, n_terms=600, n_tags=N_TAGS)
    path = tmp_path_factory.mktemp("tags") / "tags.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for d, ts in enumerate(tags):
            fh.write(json.dumps({"text": " ".join(f"w{j}" for j in X[d].indices),
                                 "labels": [f"tag{t}" for t in ts]}) + "\n")
    return path


@pytest.fixture(scope="module")
def page(corpus):
    out = corpus.parent / "page.html"
    res = runner.invoke(app, ["explore", str(corpus), "--label-field", "labels",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


def _wait(browser, script, what):
    t0 = time.time()
    while not browser.execute_script(script):
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
        assert time.time() - t0 < 60, what
        time.sleep(0.05)


def _first_term(browser):
    return browser.execute_script(
        "return document.querySelector('#ranked tbody tr td.term').textContent")


def _score_first(corpus, label):
    res = runner.invoke(app, ["score", str(corpus), "--label-field", "labels", "--method",
                              "chi2", "--class", label, "--top", "1", "--format", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)[0]["term"]


def _search(browser, name):
    browser.execute_script(
        "const b = document.getElementById('class'); b.value = arguments[0];"
        "b.dispatchEvent(new Event('change'));", name)


def test_choosing_labels_in_the_search_box_loads_their_rankings(browser, page, corpus):
    labels = sorted({t for line in corpus.read_text().splitlines()
                     for t in json.loads(line)["labels"]})
    assert len(labels) > 2 * SHARD  # three shards
    browser.get(page.resolve().as_uri())
    _wait(browser, "return !!(window.textsift && window.textsift.ready)", "never drawn")
    box = browser.find_element("id", "class")
    assert box.get_attribute("type") == "search"  # not a drop-down of thousands
    start = box.get_attribute("value")  # the largest label, chosen first
    assert _first_term(browser) == _score_first(corpus, start)
    # a label of the last shard and one of the first, each shard loaded when chosen
    for label in (labels[-1], labels[0]):
        _search(browser, label)
        _wait(browser, "return document.getElementById('summary-label').textContent === ''",
              "the label's shard never loaded")
        assert _first_term(browser) == _score_first(corpus, label)
    shards = browser.execute_script(
        "return [...document.querySelectorAll('script[src]')].map(s => s.src)")
    assert len([s for s in shards if "/page_labels/shard-" in s]) >= 2
    _search(browser, "no-such-tag")
    assert "no label named no-such-tag" in browser.find_element("id", "summary-label").text
    browser.find_element("css selector", "#ranked tbody td.term").click()
    stats = browser.find_element("id", "term-stats").text
    assert f"documents of {labels[0]}" in stats  # the picked term's documents in the label


def test_a_labels_evidence_loads_with_its_shard(browser, page, corpus):
    """The evidence of many labels lies in the shards: a label of the last shard, chosen,
    shows p, q and the log ratio, and q <= 0.05 (BH's rule) keeps exactly the terms
    `score --class LABEL --alpha 0.05` selects (BH over the label's terms), in its order:
    7 of them on this corpus."""
    labels = sorted({t for line in corpus.read_text().splitlines()
                     for t in json.loads(line)["labels"]})
    browser.get(page.resolve().as_uri())
    _wait(browser, "return !!(window.textsift && window.textsift.ready)", "never drawn")
    _search(browser, labels[-1])
    _wait(browser, "return document.getElementById('summary-label').textContent === ''",
          "the label's shard never loaded")
    browser.execute_script("const box = document.getElementById('qmax'); box.value = '0.05';"
                           "box.dispatchEvent(new Event('input'));")
    heads, terms = browser.execute_script(
        "const t = document.getElementById('ranked');"
        "return [[...t.tHead.rows[0].cells].map((c) => c.textContent),"
        "        [...t.tBodies[0].querySelectorAll('td.term')].map((c) => c.textContent)];")
    assert heads[5:8] == ["p", "q", "log2 ratio [95%]"]
    res = runner.invoke(app, ["score", str(corpus), "--label-field", "labels", "--class",
                              labels[-1], "--alpha", "0.05", "--format", "json"])
    assert res.exit_code == 0, res.output
    selected = [r["term"] for r in json.loads(res.stdout)]
    assert terms == selected and len(selected) == 7
