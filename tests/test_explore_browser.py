"""The explore page in a real browser: headless Chromium (Debian's package) driven by Selenium
through Debian's chromedriver. Skipped when either is missing (.ci/run installs them when it
can).

It loads from file:// with no console error and no network request; switching the method (or
the class, or the policy) puts first in the table the term `textsift score` prints first;
clicking a term lists snippets that contain it.
"""

from __future__ import annotations

import json
import time

import pytest
from browser import CHROMIUM, DRIVER, chromium_or_skip
from typer.testing import CliRunner

from textsift.cli import app
from textsift.corpus import sample_path

webdriver = pytest.importorskip("selenium.webdriver")
pytestmark = pytest.mark.skipif(CHROMIUM is None or DRIVER is None,
                                reason="needs headless Chromium and chromedriver "
                                       "(apt-get install chromium chromium-driver)")

# the corpus options of both commands: the page must rank exactly as `textsift score` does
CORPUS = ["--split", "train", "--min-df", "2", "--stop-words", "english", "--strip-headers"]
runner = CliRunner()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    out = tmp_path_factory.mktemp("explore") / "explore.html"
    res = runner.invoke(app, ["explore", str(sample_path("20ng")), "--out", str(out),
                              "--cap", "300", "--snippet-top", "20", *CORPUS])
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    drv = chromium_or_skip(tmp_path_factory.mktemp("profile"))
    yield drv
    drv.quit()


def _open(browser, page):
    browser.get(page.resolve().as_uri())
    t0 = time.time()
    while not browser.execute_script("return !!(window.textsift && window.textsift.ready)"):
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
        assert time.time() - t0 < 60, "the page never finished drawing"
        time.sleep(0.05)


@pytest.fixture
def loaded(browser, page):
    browser.get_log("browser")  # start both logs afresh
    browser.get_log("performance")
    _open(browser, page)
    return browser


def _score_first(*args) -> str:
    res = runner.invoke(app, ["score", str(sample_path("20ng")), "--top", "1", "--format",
                              "json", *CORPUS, *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)[0]["term"]


def _first_term(browser) -> str:
    return browser.execute_script(
        "return document.querySelector('#ranked tbody tr td.term').textContent")


def _choose(browser, select_id, value):
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", select_id)).select_by_value(value)


def test_page_loads_offline_without_errors_or_requests(loaded, page):
    levels = [e for e in loaded.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert levels == []
    # the only request the browser made is the page itself
    requests = [json.loads(e["message"])["message"] for e in loaded.get_log("performance")]
    urls = [m["params"]["request"]["url"] for m in requests
            if m["method"] == "Network.requestWillBeSent"]
    # data: URLs (Bokeh's toolbar icons) are decoded in place, not fetched
    assert [u for u in urls if not u.startswith("data:")] == [page.resolve().as_uri()]
    assert loaded.execute_script("return performance.getEntriesByType('resource').length") == 0
    rows = loaded.find_elements("css selector", "#ranked tbody tr")
    assert len(rows) == 50  # k


def test_switching_method_class_and_policy_puts_scores_first_term_first(loaded):
    classes = loaded.execute_script(
        "return [...document.querySelectorAll('#class option')].map(o => o.textContent)")
    name = [c.split(" (")[0] for c in classes]
    assert _first_term(loaded) == _score_first("--method", "chi2", "--class", name[0])
    for method in ("bns", "ig", "rc", "odds_ratio"):
        _choose(loaded, "method", method)
        assert _first_term(loaded) == _score_first("--method", method, "--class", name[0])
    _choose(loaded, "class", "7")
    assert _first_term(loaded) == _score_first("--method", "odds_ratio", "--class", name[7])
    _choose(loaded, "policy", "sum")
    assert _first_term(loaded) == _score_first("--method", "odds_ratio", "--aggregate", "sum")
    _choose(loaded, "method", "df")  # one score per term: the same for every class and policy
    assert _first_term(loaded) == _score_first("--method", "df")


def test_clicking_a_term_shows_snippets_that_contain_it(loaded):
    for row in (0, 3):
        cell = loaded.find_elements("css selector", "#ranked tbody tr td.term")[row]
        term = cell.text
        cell.click()
        assert loaded.find_element("id", "picked").text == term
        marks = [m.text for m in loaded.find_elements("css selector", "#snippets li mark")]
        assert 1 <= len(marks) <= 20
        assert {m.lower() for m in marks} == {term}
        items = loaded.find_elements("css selector", "#snippets li")
        assert all(term in li.text.lower() for li in items)


def test_the_table_sorts_by_a_column(loaded):
    head = [th for th in loaded.find_elements("css selector", "#ranked thead th")
            if th.text == "term"][0]
    head.click()
    terms = [td.text for td in loaded.find_elements("css selector", "#ranked tbody td.term")]
    assert terms == sorted(terms) and len(terms) == 50


def test_k_sets_the_table_size(loaded):
    from selenium.webdriver.common.keys import Keys

    k = loaded.find_element("id", "k")
    k.send_keys(Keys.CONTROL, "a")
    k.send_keys("12", Keys.TAB)  # typed over the selection; leaving the field commits it
    assert len(loaded.find_elements("css selector", "#ranked tbody tr")) == 12


def test_hovering_a_term_gives_every_methods_score_and_rank(loaded):
    from selenium.webdriver.common.action_chains import ActionChains

    row = loaded.find_elements("css selector", "#ranked tbody tr")[2]
    ActionChains(loaded).move_to_element(row).perform()
    assert loaded.find_element("id", "hover-term").text == row.get_attribute("data-term")
    cells = [[td.text for td in tr.find_elements("css selector", "td")]
             for tr in loaded.find_elements("css selector", "#hover tbody tr")]
    methods = loaded.execute_script(
        "return [...document.querySelectorAll('#method option')].map(o => o.value)")
    assert [c[0] for c in cells] == methods
    assert dict((c[0], c[2]) for c in cells)["chi2"] == "3"  # its rank in the chosen method


@pytest.fixture(scope="module")
def ratings_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("explore") / "ratings.html"
    res = runner.invoke(app, ["explore", str(sample_path("reviews")), "--out", str(out),
                              "--label-field", "rating", "--min-df", "3", "--cap", "200",
                              "--snippet-top", "10"])
    assert res.exit_code == 0, res.output
    return out


def test_ratings_page_offers_the_ordinal_methods_and_rank_numbers(browser, ratings_page):
    _open(browser, ratings_page)
    path = str(sample_path("reviews"))
    for method, rank in (("rr_nc_idf", "1"), ("rr_var", "5"), ("var_idf", "3")):
        _choose(browser, "method", method)
        _choose(browser, "class", str(int(rank) - 1))
        res = runner.invoke(app, ["score", path, "--label-field", "rating", "--min-df", "3",
                                  "--method", method, "--class", rank, "--top", "1",
                                  "--format", "json"])
        assert _first_term(browser) == json.loads(res.stdout)[0]["term"]
    browser.find_element("css selector", "#ranked tbody td.term").click()
    stats = browser.find_element("id", "term-stats").text
    assert "mean rank" in stats and "rank variance (Var)" in stats and "NC at R" in stats
