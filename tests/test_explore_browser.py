"""The explore page in a real browser: headless Chromium (Debian's package) driven by Selenium
through Debian's chromedriver. Skipped when either is missing (.ci/run installs them when it
can).

It loads from file:// with no console error and no network request; switching the method (or
the class, or the policy) puts first in the table the term `textsift score` prints first;
clicking a term lists snippets that contain it, and on a corpus counted by hand, its A-D and
its range, DP, DPnorm and CV in the class and in the rest.
"""

from __future__ import annotations

import json
import math
import time

import pytest
from browser import CHROMIUM, DRIVER
from typer.testing import CliRunner

from textsift.cli import app
from textsift.reading.corpus import sample_path
from textsift.scores import REGISTRY

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


def _table(browser) -> tuple[list[str], list[list[str]]]:
    """The ranked table's heads and cells, read in one script (hundreds of rows)."""
    return browser.execute_script(
        "const t = document.getElementById('ranked');"
        "return [[...t.tHead.rows[0].cells].map((c) => c.textContent),"
        "        [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent))];")


def _set_qmax(browser, value: str) -> None:
    """Type ``value`` into the ``q <`` control: set by script with one `input` event (keys
    sent one by one each fire an event, which under load raced the checks)."""
    browser.execute_script("const box = document.getElementById('qmax'); box.value = "
                           "arguments[0]; box.dispatchEvent(new Event('input'));", value)


def test_q_column_is_score_evidences_and_the_q_control_hides_what_does_not_pass(loaded):
    """Fisher's test on the first class: the table's q is `score --evidence`'s (BH over the
    class's terms; shown to 3 digits); q <= 1e-6 (BH's rule, SelectFdr's) keeps, instead of
    the top k, exactly the terms of score's top 200 (the embedded evidence) whose q is at
    most 1e-6 (15 of them on this sample: Fisher's exact test is strict with rare terms),
    in its order; emptied, the control shows the top 50 (k) again."""
    name = loaded.execute_script("return document.querySelector('#class option').textContent")
    _choose(loaded, "method", "fisher")
    res = runner.invoke(app, ["score", str(sample_path("20ng")), "--top", "200", "--format",
                              "json", *CORPUS, "--method", "fisher", "--class",
                              name.split(" (")[0], "--evidence"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    heads, cells = _table(loaded)
    assert heads[5:8] == ["p", "q", "log2 ratio [95%]"]
    assert cells[0][1] == rows[0]["term"]
    assert math.isclose(float(cells[0][6]), rows[0]["q"], rel_tol=5e-3)
    assert math.isclose(float(cells[0][5]), rows[0]["p"], rel_tol=5e-3)
    passing = [r["term"] for r in rows if r["q"] <= 1e-6]
    assert len(passing) == 15
    _set_qmax(loaded, "1e-6")
    _, cells = _table(loaded)
    assert [c[1] for c in cells] == passing
    assert all(float(c[6]) <= 1e-6 for c in cells)
    title = loaded.find_element("id", "table-title").text
    assert title.startswith("15 terms with q \u2264 0.000001")
    _set_qmax(loaded, "")
    assert len(_table(loaded)[1]) == 50


def test_a_method_without_p_values_shows_none_and_says_so(loaded):
    _choose(loaded, "method", "bns")
    heads, _ = _table(loaded)
    assert "p" not in heads and "q" not in heads
    assert "has no p-value" in loaded.find_element("id", "evidence-note").text


def test_hovering_a_term_gives_every_methods_score_and_position(loaded):
    from selenium.webdriver.common.action_chains import ActionChains

    row = loaded.find_elements("css selector", "#ranked tbody tr")[2]
    ActionChains(loaded).move_to_element(row).perform()
    assert loaded.find_element("id", "hover-term").text == row.get_attribute("data-term")
    cells = [[td.text for td in tr.find_elements("css selector", "td")]
             for tr in loaded.find_elements("css selector", "#hover tbody tr")]
    methods = loaded.execute_script(
        "return [...document.querySelectorAll('#method option')].map(o => o.value)")
    assert [c[0] for c in cells] == methods
    assert dict((c[0], c[2]) for c in cells)["chi2"] == "3"  # its position in the chosen method


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


# ----------------------------------------------------------------------------- readability
#: Bokeh's own rectangle of every label it draws on the term map (the box its LabelSet fills
#: behind the text: core/graphics.TextBox at the label's screen position and offset), and the
#: frame, in canvas pixels; called after two animation frames so that the last change is
#: painted.
DRAWN_LABELS = """
const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => {
  const pv = Object.values(Bokeh.index).find((v) => v.model.name === "map");
  const ls = [...pv.renderer_views.values()].find((r) => r.model.name === "map_label_set");
  const { TextBox } = Bokeh.require("core/graphics");
  const boxes = [];
  for (let i = 0; i < ls.text.length; i++) {
    const box = new TextBox({ text: `${ls.text.get(i)}` });
    box.angle = 0;
    box.position = { sx: ls.sx[i] + ls.x_offset.get(i), sy: ls.sy[i] - ls.y_offset.get(i) };
    box.visuals = ls.visuals.text.values(i);
    const r = box.rect(), xs = [r.p0.x, r.p1.x, r.p2.x, r.p3.x];
    const ys = [r.p0.y, r.p1.y, r.p2.y, r.p3.y];
    boxes.push([`${ls.text.get(i)}`, Math.min(...xs), Math.min(...ys), Math.max(...xs),
                Math.max(...ys)]);
  }
  const f = pv.frame.bbox;
  done({ boxes, frame: [f.x, f.y, f.x + f.width, f.y + f.height] });
}));
"""


def _model_data(browser, name: str) -> dict:
    return browser.execute_script(
        "for (const d of Bokeh.documents) { const m = d.get_model_by_name(arguments[0]);"
        " if (m) return Object.fromEntries(Object.entries(m.data).map(([k, v]) => [k, [...v]])); }",
        name)


def _assert_labels_apart(browser) -> list[str]:
    drawn = browser.execute_async_script(DRAWN_LABELS)
    boxes, (fx0, fy0, fx1, fy1) = drawn["boxes"], drawn["frame"]
    for i, (a, ax0, ay0, ax1, ay1) in enumerate(boxes):
        assert fx0 <= ax0 and ax1 <= fx1 and fy0 <= ay0 and ay1 <= fy1, (a, drawn["frame"])
        for b, bx0, by0, bx1, by1 in boxes[i + 1:]:
            assert ax1 <= bx0 or bx1 <= ax0 or ay1 <= by0 or by1 <= ay0, (a, b)
    return [b[0] for b in boxes]


def _terms_named(labels: list[str]) -> int:
    """Terms named by labels such as "keith" and "mozumder +3" (four terms on one dot)."""
    return sum(1 + int(t.rsplit(" +", 1)[1]) if " +" in t else 1 for t in labels)


def test_map_labels_never_overlap_and_the_best_term_is_labelled(loaded):
    """Bokeh's own boxes of the drawn labels, in several views and after zooming out (every
    label placed again): no two intersect, none leaves the frame. The best term of the view
    is always labelled; in a class's own ranking at least half of the 20 asked for are named
    (terms with the same counts share a dot and a label). A policy's top terms shown on the
    map of a class they are absent from lie on one row at the bottom: fewer fit there."""
    views = [("chi2", "0", "class", 10), ("mi", "7", "class", 10), ("bns", "15", "class", 10),
             ("df", "0", "class", 10), ("odds_ratio", "3", "sum", 1)]
    for method, cls, policy, named in views:
        _choose(loaded, "method", method)
        _choose(loaded, "class", cls)
        _choose(loaded, "policy", policy)
        labelled = _assert_labels_apart(loaded)
        assert labelled[0].split(" +")[0] == _first_term(loaded), (method, labelled)
        assert _terms_named(labelled) >= named, (method, labelled)
    _choose(loaded, "method", "chi2")
    _choose(loaded, "class", "0")
    _choose(loaded, "policy", "class")
    loaded.execute_script(  # zoom out: the dense corner gets denser
        "for (const d of Bokeh.documents) for (const n of ['map_x', 'map_y']) {"
        " const r = d.get_model_by_name(n); if (r) r.setv({start: r.start / 30}); }")
    assert _assert_labels_apart(loaded)[0] == _first_term(loaded)


def _luminance(rgb) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0-255 channels)."""
    c = [v / 255 for v in rgb]
    lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b) -> float:
    """WCAG 2 contrast ratio: 21 for black on white, 1 for a colour on itself."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_contrast_ratio_worked_examples():
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast((118, 118, 118), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)  # #767676


def test_heat_map_cells_are_readable(loaded):
    """Every cell's number contrasts with the cell as drawn (its pixels, sampled in a corner
    the text does not reach) by at least 4.5:1, and each cell is 30 px square whatever the
    number of methods (every nominal method of the registry here)."""
    import io

    from PIL import Image

    _choose(loaded, "method", "chi2")
    _choose(loaded, "policy", "class")
    loaded.execute_async_script("const done = arguments[0];"
                                "requestAnimationFrame(() => requestAnimationFrame(done));")
    cells = _model_data(loaded, "agree_cells")
    methods = loaded.execute_script(
        "return [...document.querySelectorAll('#method option')].map(o => o.value)")
    n = len(methods)
    nominal = sorted(name for name, m in REGISTRY.items() if m.kind == "nominal")
    assert len(cells["x"]) == n * n and methods == nominal and n >= 17
    x0, y0, w, h = loaded.execute_script(
        "const v = Object.values(Bokeh.index).find((v) => v.model.name === 'agree');"
        "const f = v.frame.bbox; return [f.x, f.y, f.width, f.height];")
    assert w / n == pytest.approx(30) and h / n == pytest.approx(30)
    shot = Image.open(io.BytesIO(loaded.find_element("id", "plot-agree").screenshot_as_png))
    shot = shot.convert("RGB")
    hex_rgb = lambda s: tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))  # noqa: E731
    for x, y, txt, fill, ink in zip(cells["x"], cells["y"], cells["txt"], cells["fill"],
                                    cells["ink"], strict=True):
        col, row = methods.index(x), methods.index(y)  # the first method is the top row
        drawn = shot.getpixel((int(x0 + (col + 0.15) * w / n), int(y0 + (row + 0.15) * h / n)))
        assert max(abs(p - q) for p, q in zip(drawn, hex_rgb(fill), strict=True)) <= 2
        if txt:
            assert contrast(drawn, hex_rgb(ink)) >= 4.5, (x, y, fill, ink)


def test_histogram_bars_are_shares_that_add_up_to_the_terms_documents(loaded):
    """The bars are the term's documents in each class over the class's documents; weighted
    back by the class sizes (the corpus's own distribution, drawn beside them) and summed,
    they give the term's df, as do the counts on hover."""
    for row in (0, 5):
        loaded.find_elements("css selector", "#ranked tbody tr td.term")[row].click()
        line = loaded.find_element("id", "term-stats").text
        df = int(line.rsplit("df ", 1)[1].split()[0])
        bars, corpus = _model_data(loaded, "term_bars"), _model_data(loaded, "corpus_bars")
        assert bars["x"] == corpus["x"] and bars["size"] == corpus["n"]
        assert sum(bars["n"]) == df
        assert sum(s * n for s, n in zip(bars["share"], corpus["n"], strict=True)) == (
            pytest.approx(df))
        assert sum(corpus["n"]) == 2000 and sum(corpus["share"]) == pytest.approx(1.0)


# ----------------------------------------------------------------------------- --alpha
@pytest.fixture(scope="module")
def alpha_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("explore") / "alpha.html"
    res = runner.invoke(app, ["explore", str(sample_path("20ng")), "--out", str(out),
                              "--methods", "chi2,bns", "--cap", "400", "--snippet-top", "5",
                              "--alpha", "0.05", "--correction", "bonferroni", *CORPUS])
    assert res.exit_code == 0, res.output
    return out


def test_alpha_page_opens_with_the_terms_score_alpha_selects(browser, alpha_page):
    """--alpha 0.05 --correction bonferroni: the first class (alt.atheism) by chi2 opens with
    the 299 terms `score --class alt.atheism --alpha 0.05 --correction bonferroni` selects,
    in its order (more than k = 50: alpha selects instead of k), the control filled with
    "q < 0.05" (Bonferroni's rule, strict); bns, not a test, keeps k = 50 terms and says
    that the filter does not apply. Where the list of passing terms may be cut (a filter above
    alpha, or more passing terms than --cap), the note says so."""
    _open(browser, alpha_page)
    res = runner.invoke(app, ["score", str(sample_path("20ng")), "--format", "json", *CORPUS,
                              "--class", "alt.atheism", "--alpha", "0.05", "--correction",
                              "bonferroni"])
    assert res.exit_code == 0, res.output
    selected = [r["term"] for r in json.loads(res.stdout)]
    assert len(selected) == 299
    _, cells = _table(browser)
    assert [c[1] for c in cells] == selected
    assert browser.find_element("id", "qmax").get_attribute("value") == "0.05"
    assert browser.find_element("id", "qrule").text == "q <"
    assert browser.find_element("id", "table-title").text.startswith("299 terms with q < 0.05")
    note = browser.find_element("id", "evidence-note").text
    assert "adjusted by Bonferroni over the class's terms" in note and "cut" not in note
    # q < 0.5 asks for more than --alpha embedded: the note says the list may be cut there
    _set_qmax(browser, "0.5")
    assert len(_table(browser)[1]) == 299
    assert "cut at the 299 terms whose q is embedded" in browser.find_element(
        "id", "evidence-note").text
    _set_qmax(browser, "0.05")
    # talk.politics.mideast: 566 terms pass, more than --cap 400: the 400 embedded, said
    _choose(browser, "class", "17")
    assert len(_table(browser)[1]) == 400
    assert "cut at 400 terms (--cap)" in browser.find_element("id", "evidence-note").text
    _choose(browser, "method", "bns")
    assert len(_table(browser)[1]) == 50
    assert "does not apply here" in browser.find_element("id", "evidence-note").text


# ----------------------------------------------------------------------------- dispersion
#: A corpus small enough to count by hand: three classes, words of two letters or more (each
#: one counted token: no stop word, --min-df 1), documents of unequal sizes. "goal" is in
#: three of the five sport documents (3 of 4 tokens, 1 of 2, 1 of 3) and in one of the five
#: others (1 of 4 tokens).
SMALL = [("sport", "goal goal goal match"), ("sport", "goal team"), ("sport", "team goal play"),
         ("sport", "play"), ("sport", "match team"), ("tech", "code code data goal"),
         ("tech", "data model"), ("food", "bread salt"), ("food", "bread bread salt soup"),
         ("food", "soup salt")]


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    data = tmp_path_factory.mktemp("explore") / "small.jsonl"
    data.write_text("".join(json.dumps({"text": t, "label": c}) + "\n" for c, t in SMALL))
    return data


@pytest.fixture(scope="module")
def small_page(small_corpus):
    out = small_corpus.with_suffix(".html")
    res = runner.invoke(app, ["explore", str(small_corpus), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


def _by_hand(counts: list[int], sizes: list[int]) -> tuple[int, float, float, float]:
    """Range, Gries' DP, DPnorm and CV of a term over one group's documents, from their
    definitions (textsift.evidence.dispersion): DP half the sum of |f_i / f - s_i / s|,
    DPnorm DP / (1 - min s_i / s), CV the population sd of f_i / s_i over its mean."""
    f, s, n = sum(counts), sum(sizes), len(sizes)
    dp = sum(abs(c / f - z / s) for c, z in zip(counts, sizes, strict=True)) / 2
    x = [c / z for c, z in zip(counts, sizes, strict=True)]
    mean = sum(x) / n
    cv = math.sqrt(sum((v - mean) ** 2 for v in x) / n) / mean
    return sum(c > 0 for c in counts), dp, dp / (1 - min(sizes) / s), cv


def _panel(browser) -> tuple[dict, list[list[str]]]:
    """The picked term's evidence (its A-D, p, q, log ratio: name -> text) and its
    dispersion table's rows (group, range, DP, DPnorm, CV)."""
    panel = browser.find_element("css selector", "#term-stats .evidence")
    shown = {dt.text: dd.text for dt, dd in zip(
        panel.find_elements("css selector", "dl.stats dt"),
        panel.find_elements("css selector", "dl.stats dd"), strict=True)}
    rows = [[td.text for td in tr.find_elements("css selector", "td")]
            for tr in panel.find_elements("css selector", "table.dispersion tbody tr")]
    return shown, rows


def test_clicking_a_term_shows_its_counts_and_dispersion_in_the_class_and_the_rest(
        browser, small_page, small_corpus):
    """"goal" in sport: A = 3 sport documents with it, B = 1 other, C = 2 sport documents
    without it, D = 4 others. Its dispersion in the class's documents (the target) and in
    the rest's (the reference), each group its own corpus: in sport, sizes 4, 2, 3, 1, 2 and
    counts 3, 1, 1, 0, 0, range 3 and DP = (|3/5 - 4/12| + |1/5 - 2/12| + |1/5 - 3/12| +
    1/12 + 2/12) / 2 = (16 + 2 + 3 + 5 + 10) / 120 = 0.3; in the rest, sizes 4, 2, 2, 4, 2 and
    counts 1, 0, 0, 0, 0, range 1 and DP = (|1 - 4/14| + 10/14) / 2 = 5/7. DPnorm: 0.3 /
    (1 - 1/12) and (5/7) / (1 - 2/14) = 5/6. Every number differs from its neighbours, so a
    swapped cell would show. p, q and the log ratio are `score --evidence`'s, for chi2 and
    for Fisher's test."""
    term, cls = "goal", "sport"
    docs = [(c, t.split()) for c, t in SMALL]
    inside = [w for c, w in docs if c == cls]
    rest = [w for c, w in docs if c != cls]
    a, b = sum(term in w for w in inside), sum(term in w for w in rest)
    assert (a, b, len(inside) - a, len(rest) - b) == (3, 1, 2, 4)
    hand = [_by_hand([w.count(term) for w in g], [len(w) for w in g]) for g in (inside, rest)]
    assert [h[0] for h in hand] == [3, 1]
    assert hand[0][1:3] == pytest.approx((0.3, 0.3 * 12 / 11))
    assert hand[1][1:3] == pytest.approx((5 / 7, 5 / 6))

    _open(browser, small_page)
    classes = browser.execute_script(
        "return [...document.querySelectorAll('#class option')].map(o => o.textContent)")
    _choose(browser, "class", str([c.split(" (")[0] for c in classes].index(cls)))
    for method in ("chi2", "fisher"):
        _choose(browser, "method", method)
        [cell] = [td for td in browser.find_elements("css selector", "#ranked tbody td.term")
                  if td.text == term]
        cell.click()
        assert browser.find_element("id", "picked").text == term
        shown, rows = _panel(browser)
        assert [shown[k] for k in "ABCD"] == ["3", "1", "2", "4"]
        assert [r[0] for r in rows] == [cls, "the rest"]
        for row, (rng, dp, dp_norm, cv) in zip(rows, hand, strict=True):
            assert int(row[1]) == rng
            # shown to 3 significant digits (fmt: 4, of numbers rounded to 3 decimals)
            assert [float(v) for v in row[2:]] == pytest.approx([dp, dp_norm, cv], abs=6e-4)
        res = runner.invoke(app, ["score", str(small_corpus), "--class", cls, "--method",
                                  method, "--evidence", "--format", "json", "--top", "50"])
        assert res.exit_code == 0, res.output
        [ev] = [r for r in json.loads(res.stdout) if r["term"] == term]
        assert (ev["A"], ev["B"], ev["C"], ev["D"]) == (3, 1, 2, 4)
        assert (ev["range_target"], ev["range_reference"]) == (3, 1)
        assert float(shown[f"p ({method})"]) == pytest.approx(ev["p"], rel=5e-3)
        assert float(shown["q"]) == pytest.approx(ev["q"], rel=5e-3)
        lr, low, high = (float(x.strip("[],")) for x in shown["log2 ratio [95%]"].split())
        assert (lr, low, high) == pytest.approx(
            (ev["log_ratio"], ev["log_ratio_low"], ev["log_ratio_high"]), rel=5e-3)
