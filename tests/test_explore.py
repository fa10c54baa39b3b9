"""The explore page's data and file (textsift.report.explore): the rankings are the ones
``textsift score`` prints, the snippets are the terms in their documents, the ratings numbers
are the worked example's, bad input writes nothing. The page in a browser:
test_explore_browser.py."""

from __future__ import annotations

import base64
import gzip
import json
import math
import re
from html.parser import HTMLParser

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.errors import TextsiftError
from textsift.reading.corpus import load_sample, sample_path
from textsift.report.explore import explore, page_html
from textsift.report.explore_data import explore_data, rounded, spread
from textsift.report.snippets import find_snippets
from textsift.scores import REGISTRY, compute
from textsift.selection.ranking import rank
from textsift.text.vectorize import VectorizerOptions

OPTS = VectorizerOptions(stop_words="english", strip_headers=True, min_df=2)


@pytest.fixture(scope="module")
def sample():
    train = load_sample("20ng", split="train")
    counts = Counts.from_texts(train.texts, train.labels, OPTS)
    return train, counts


@pytest.fixture(scope="module")
def sample_data(sample):
    train, counts = sample
    docs = zip(train.texts, train.labels, strict=True)
    return explore_data(counts, docs, opts=OPTS, methods=["chi2", "bns", "df", "rc", "ig_multi"],
                        cap=300, snippet_top=20)


# ----------------------------------------------------------------------------- snippets
def test_snippets_worked_example():
    docs = [("Alpha beta GAMMA delta epsilon zeta", "x"), ("gamma again", "y"),
            ("beta and gamma, gamma", "x"), ("gamma once more", "x")]
    out = find_snippets(docs, ["gamma"], {"x": 0, "y": 1}, np.array([[2, 1]]), words=2)
    # two words of context each side, the term as written; one snippet per document; the
    # class quota (2) is full before the fourth document
    assert out == [[[("Alpha beta ", "GAMMA", " delta epsilon"), ("beta and ", "gamma", ", gamma")],
                    [("", "gamma", " again")]]]


def test_a_snippet_is_not_repeated():
    docs = [("we orbit here", "x"), ("we orbit here", "x"), ("they orbit there", "x")]
    out = find_snippets(docs, ["orbit"], {"x": 0}, np.array([[2]]))
    assert out == [[[("we ", "orbit", " here"), ("they ", "orbit", " there")]]]


def test_snippets_follow_the_vectorizer_options():
    docs = [("From: gamma@example.com\nSubject: runs\n\nThe dog was running home", "x")]
    opts = VectorizerOptions(stem=True, strip_headers=True)
    out = find_snippets(docs, ["run", "gamma"], {"x": 0}, np.array([[1], [1]]), opts, words=1)
    # the stem "run" is found as "running" in the body; the header (gamma, runs) is dropped
    assert out == [[[("was ", "running", " home")]], [[]]]


def test_snippets_stop_reading_when_every_quota_is_full():
    def docs():
        yield "gamma", "x"
        raise AssertionError("read past the last snippet needed")

    assert find_snippets(docs(), ["gamma"], {"x": 0}, np.array([[1]])) == [[[("", "gamma", "")]]]


def test_snippet_quota_shape_is_checked():
    with pytest.raises(TextsiftError, match="one row per term"):
        find_snippets([], ["a", "b"], {"x": 0}, np.ones((1, 1), dtype=int))


@given(arrays(np.int64, st.integers(1, 8), elements=st.integers(0, 12)), st.integers(0, 40))
def test_rest_snippets_are_spread_evenly_over_the_other_classes(avail, total):
    q = spread(avail, total)
    assert q.sum() == min(total, avail.sum()) and (0 <= q).all() and (q <= avail).all()
    # water-filling: a class that could give more has at most one fewer than any other
    short = q < avail
    if short.any():
        assert q.max() - q[short].min() <= 1


# ----------------------------------------------------------------------------- the data
def _decode(data, method, view):
    ids, scores = view
    return [data["terms"][i] for i in ids], scores


def test_class_views_are_what_textsift_score_prints(sample, sample_data):
    """Each class's lists are ``textsift score --class C --direction over`` (the page's
    default) and ``--direction under``; interleaved by ``cd`` (as the page does for both
    directions) they are the two-sided ranking less the terms of neither direction."""
    _, counts = sample
    for method in ("chi2", "bns", "rc"):
        views = sample_data["views"][method]
        for c, cls in enumerate(counts.classes[:5]):
            lists = {}
            for key, direction in (("c", "over"), ("cu", "under")):
                terms, scores = _decode(sample_data, method, views[key][c])
                expected = rank(counts, method, class_label=cls, top=300, direction=direction)
                kept = expected.scores > -np.inf
                assert terms == expected.terms[kept].tolist()
                assert scores == rounded(expected.scores[kept])
                lists[key] = iter(terms)
            merged = [next(lists["c" if d == "+" else "cu"]) for d in views["cd"][c][:150]]
            two_sided = rank(counts, method, class_label=cls, top=400, direction="both")
            marked = two_sided.terms[two_sided.signs != 0].tolist()
            assert merged == marked[:150]


def test_policy_views_are_what_textsift_score_prints(sample, sample_data):
    _, counts = sample
    for method, policies in (("chi2", list(REGISTRY["chi2"].aggregates)), ("df", ["max"]),
                             ("ig_multi", ["max"])):
        assert list(sample_data["views"][method]["p"]) == policies
        for p in policies:
            terms, _ = _decode(sample_data, method, sample_data["views"][method]["p"][p])
            assert terms == rank(counts, method, aggregate=p, top=300).terms.tolist()
    # single-column methods have no per-class lists
    assert "c" not in sample_data["views"]["df"]
    assert [m["per_class"] for m in sample_data["methods"]] == [True, True, False, True, False]


def test_embedded_terms_are_the_union_of_the_views_with_their_counts(sample, sample_data):
    _, counts = sample
    views = sample_data["views"]
    used = set()
    for v in views.values():
        for view in [*v.get("c", []), *v["p"].values()]:
            assert len(view[0]) == 300  # the cap
            used.update(view[0])
        for view in v.get("cu", []):  # under-represented terms: at most the cap
            assert len(view[0]) <= 300
            used.update(view[0])
    assert used == set(range(len(sample_data["terms"])))
    index = {t: i for i, t in enumerate(counts.feature_names)}
    rows = [index[t] for t in sample_data["terms"]]
    ptr, cls, n = (np.array(sample_data["counts"][k]) for k in ("ptr", "cls", "n"))
    dense = np.zeros((len(rows), counts.n_classes), dtype=np.int64)
    dense[np.repeat(np.arange(len(rows)), np.diff(ptr)), cls] = n
    np.testing.assert_array_equal(dense, counts.doc_counts[rows])


def test_snippets_show_the_term_in_documents_of_its_class(sample, sample_data):
    train, counts = sample
    labels = np.asarray(train.labels)
    squashed = [re.sub(r"\s+", " ", t) for t in train.texts]  # as the snippets squash spaces
    by_class = {c: "\n".join(t for t, y in zip(squashed, labels, strict=True) if y == cls)
                for c, cls in enumerate(counts.classes)}
    assert len(sample_data["snippets"]) > 100
    for sid, per_class in list(sample_data["snippets"].items())[:100]:
        term = sample_data["terms"][int(sid)]
        for c, snippets in per_class:
            assert 1 <= len(snippets) <= 10
            for left, hit, right in snippets:
                assert hit.lower() == term
                assert f"{left}{hit}{right}" in by_class[c]


def test_every_view_of_the_chosen_class_gets_snippets(sample, sample_data):
    """The top ``snippet_top`` terms of each class's view have snippets from that class."""
    snippets = sample_data["snippets"]
    for c in range(3):
        top = sample_data["views"]["chi2"]["c"][c][0][:20]
        for t in top:
            assert c in [k for k, _ in snippets[str(t)]]


def test_ratings_numbers_worked_example():
    # good: ranks 1, 1, 3 -> mean 5/3, Var 8/9, NC(1) = 2/3 (R = 1); bad: ranks 3, 2 -> mean
    # 2.5, Var 0.25, NC(2) = NC(3) = 0.5, R = 2 (the lower rank); IDF = ln(4 / df)
    texts = ["good day", "good one", "good bad", "bad day"]
    counts = Counts.from_texts(texts, [1, 1, 3, 2])
    data = explore_data(counts, zip(texts, [1, 1, 3, 2], strict=True))
    assert data["ratings"] and {"var", "rr_nc_idf", "rr_igor"} <= {
        m["name"] for m in data["methods"]}
    st = data["rank_stats"]
    i, j = data["terms"].index("good"), data["terms"].index("bad")
    assert (st["mean"][i], st["var"][i], st["nc"][i], st["nc_rank"][i]) == (
        1.667, 0.8889, 0.6667, 1)
    assert (st["mean"][j], st["var"][j], st["nc"][j], st["nc_rank"][j]) == (2.5, 0.25, 0.5, 2)
    assert st["idf"][i] == round(math.log(4 / 3), 4)
    # the numbers behind RR(NC*IDF): its score is -(NC + 0.1) * IDF
    table = compute(counts, "rr_nc_idf").values.max(axis=1)
    good = list(counts.feature_names).index("good")
    assert table[good] == pytest.approx(-(2 / 3 + 0.1) * math.log(4 / 3))


def test_infinite_scores_are_written_as_strings():
    assert rounded(np.array([np.inf, -np.inf, 0.0, 123456.0, -0.000123456])) == [
        "inf", "-inf", 0.0, 123500.0, -0.0001235]


# ----------------------------------------------------------------------------- bad input
def test_bad_input_is_one_error(sample, tmp_path):
    one = Counts.from_texts(["alpha beta", "beta gamma"], ["x", "x"])
    with pytest.raises(TextsiftError, match="at least two classes"):
        explore_data(one)
    empty = Counts.from_matrix(sp.csr_matrix((2, 3)), ["x", "y"])
    with pytest.raises(TextsiftError, match="vocabulary is empty"):
        explore_data(empty)
    _, counts = sample
    with pytest.raises(TextsiftError, match="ordinal method"):
        explore_data(counts, methods=["rr_var"])
    with pytest.raises(TextsiftError, match="unknown method"):
        explore_data(counts, methods=["chi3"])
    with pytest.raises(TextsiftError, match="cap must be a positive"):
        explore_data(counts, cap=0)
    with pytest.raises(TextsiftError, match="is a directory"):
        explore(counts, tmp_path)
    with pytest.raises(TextsiftError, match="ending in .html"):
        explore(counts, tmp_path / "page.txt")
    (tmp_path / "file").write_text("")
    with pytest.raises(TextsiftError, match="file, not a directory"):
        explore(counts, tmp_path / "file" / "page.html")
    (tmp_path / "file").unlink()
    with pytest.raises(TextsiftError, match="at least two classes"):
        explore(one, tmp_path / "page.html")
    assert list(tmp_path.iterdir()) == []  # nothing written


# ----------------------------------------------------------------------------- the page
class _Fetches(HTMLParser):
    """Every resource an HTML page would fetch (src, href), and its scripts' types."""

    def __init__(self):
        super().__init__()
        self.fetches, self.scripts = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.fetches += [(tag, a[k]) for k in ("src", "href") if k in a]
        if tag == "link":
            self.fetches.append((tag, a))
        if tag == "script":
            self.scripts.append(a.get("type", "text/javascript"))


# ----------------------------------------------------------------------------- the evidence
def _score_evidence(*args) -> list[dict]:
    res = CliRunner().invoke(app, [
        "score", str(sample_path("20ng")), "--split", "train", "--min-df", "2", "--stop-words",
        "english", "--strip-headers", "--evidence", "--format", "json", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _close(embedded, expected, digits):
    """An embedded number (``digits`` significant digits; "inf"/"-inf" as strings) is the
    full one rounded: within half a unit of its last digit."""
    if isinstance(expected, str) or isinstance(embedded, str):
        return embedded == expected
    return math.isclose(embedded, expected, rel_tol=0.5 * 10 ** (1 - digits), abs_tol=0)


@pytest.mark.parametrize("direction, key", [("over", "c"), ("under", "cu")])
def test_embedded_evidence_is_what_score_evidence_prints(sample, sample_data, direction, key):
    """A class's first 200 terms by chi2 (the page's evidence depth at --cap 300) carry the p,
    q (BH over the class's terms) and log ratio with its 95% interval that ``textsift score
    --class C --evidence`` prints for them, to the 3 digits embedded."""
    _, counts = sample
    c = list(counts.classes).index("sci.space")
    ev = sample_data["evidence"]
    assert (ev["top"], ev["correction"], ev["family"], ev["level"]) == (200, "bh", "class", 0.95)
    rows = _score_evidence("--method", "chi2", "--class", "sci.space", "--top", "200",
                           "--direction", direction)
    ids = sample_data["views"]["chi2"][key][c][0][:200]
    assert [sample_data["terms"][i] for i in ids] == [r["term"] for r in rows]
    p, q = ev["methods"]["chi2"][key][c]
    lr = {t: (e, lo, hi) for t, e, lo, hi in zip(*ev["lr"][c], strict=True)}
    for i, row, pi, qi in zip(ids, rows, p, q, strict=True):
        assert _close(pi, row["p"], 3) and _close(qi, row["q"], 3), (row, pi, qi)
        expected = (row["log_ratio"], row["log_ratio_low"], row["log_ratio_high"])
        assert all(_close(x, y, 3) for x, y in zip(lr[i], expected, strict=True)), row


def test_only_the_methods_with_p_values_and_class_rankings_carry_evidence(sample_data):
    """bns and rc are not tests; ig_multi is one test of the whole 2 x m table (no class
    ranking, which the page says): chi2 alone, of the fixture's five methods, has evidence."""
    assert list(sample_data["evidence"]["methods"]) == ["chi2"]
    assert list(sample_data["evidence"]["untested"]) == ["ig_multi"]


def test_p_values_too_small_to_scale_are_embedded_exactly():
    from textsift.report.explore_evidence import significant

    # 1e-310 is subnormal: a scale by 10**312 would overflow (as `rounded` does)
    assert significant([1.23456e-310, 0.0, float("nan"), 0.0123456]) == [
        1.23e-310, 0.0, None, 0.0123]


def test_page_is_self_contained_and_carries_the_data(sample_data):
    html = page_html({**sample_data, "title": "R&D <b>"})
    assert "<title>R&amp;D &lt;b&gt;</title>" in html and "<h1>R&amp;D &lt;b&gt;</h1>" in html
    parser = _Fetches()
    parser.feed(html)
    assert parser.fetches == []  # no script, style, font or image from anywhere
    assert "application/octet-stream" in parser.scripts
    payload = re.search(r'id="textsift-data">([^<]+)<', html).group(1)
    assert json.loads(gzip.decompress(base64.b64decode(payload))) == json.loads(
        json.dumps({**sample_data, "title": "R&D <b>"}))  # snippets: tuples become lists
    assert "Bokeh" in html and "DecompressionStream" in html


def test_cli_writes_the_page(tmp_path):
    out = tmp_path / "sub" / "page.html"
    result = CliRunner().invoke(app, [
        "explore", str(sample_path("reviews")), "--label-field", "rating", "--out", str(out),
        "--min-df", "5", "--stop-words", "english", "--methods", "chi2,rr_nc_idf",
        "--cap", "100", "--snippet-top", "5"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1] == f"explore: {out.resolve()}"
    html = out.read_text(encoding="utf-8")
    payload = re.search(r'id="textsift-data">([^<]+)<', html).group(1)
    data = json.loads(gzip.decompress(base64.b64decode(payload)))
    assert data["classes"] == [1, 2, 3, 4, 5] and data["ratings"]
    assert [m["name"] for m in data["methods"]] == ["chi2", "rr_nc_idf"]
    assert data["method"] == "chi2" and data["cap"] == 100


@pytest.mark.parametrize("args, message", [
    (["--label-field", "split"], None),  # fine: two classes (train, test)
    (["--min-df", "100000"], "vocabulary is empty"),
    (["--split", "train", "--label-field", "split"], "at least two classes"),
])
def test_cli_bad_input_is_one_line_and_writes_nothing(tmp_path, args, message):
    out = tmp_path / "page.html"
    result = CliRunner().invoke(app, ["explore", str(sample_path("20ng")), "--out", str(out),
                                      "--cap", "50", "--snippet-top", "2", *args])
    if message is None:
        assert result.exit_code == 0, result.output
        return
    assert result.exit_code == 2
    text = " ".join(result.output.split())  # one message (rich wraps it to the terminal)
    assert text.startswith("error:") and text.count("error:") == 1 and message in text, text
    assert "Traceback" not in text
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_cli_out_directory_is_refused_before_counting(tmp_path):
    result = CliRunner().invoke(app, ["explore", str(sample_path("20ng")),
                                      "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "is a directory" in " ".join(result.output.split())
    assert list(tmp_path.iterdir()) == []


def test_the_docs_library_example_runs(tmp_path, monkeypatch):
    from pathlib import Path

    doc = Path(__file__).resolve().parents[1] / "docs" / "explore.md"
    code = re.search(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/explore.md", "exec"), {})  # noqa: S102
    assert (tmp_path / "explore.html").stat().st_size > 1_000_000  # Bokeh's script alone: 1.3 MB


# ----------------------------------------------------------------------------- --alpha
@pytest.fixture(scope="module")
def alpha_data(sample):
    """The page's data under ``explore --alpha 0.05 --correction bonferroni --cap 500``."""
    _, counts = sample
    return explore_data(counts, methods=["chi2", "fisher", "bns"], cap=500, alpha=0.05,
                        correction="bonferroni")


def _kept(data, method, c):
    """A class's over-represented terms by ``method`` whose embedded q passes alpha, by the
    page's rule (q < alpha for bonferroni), in the list's order: what the page's table shows
    at first."""
    ev = data["evidence"]
    assert ev["rule"] == "<"
    ids = data["views"][method]["c"][c][0]
    q = ev["methods"][method]["c"][c][1]
    return [data["terms"][i] for i, x in zip(ids, q, strict=False) if x is not None
            and x < ev["alpha"]]


def test_alpha_keeps_what_score_alpha_selects(sample, alpha_data):
    """sci.space: `score --class sci.space --alpha 0.05 --correction bonferroni` selects 343
    terms; the page keeps the same 343 in the same order (deeper than the 200 embedded
    without --alpha: the evidence goes down to the last term that passes)."""
    _, counts = sample
    c = list(counts.classes).index("sci.space")
    res = CliRunner().invoke(app, [
        "score", str(sample_path("20ng")), "--split", "train", "--min-df", "2", "--stop-words",
        "english", "--strip-headers", "--class", "sci.space", "--alpha", "0.05",
        "--correction", "bonferroni", "--format", "json"])
    assert res.exit_code == 0, res.output
    selected = [r["term"] for r in json.loads(res.stdout)]
    assert len(selected) == 343
    assert _kept(alpha_data, "chi2", c) == selected
    assert len(alpha_data["evidence"]["methods"]["chi2"]["c"][c][1]) == 343


@pytest.mark.parametrize("method", ["chi2", "fisher"])
def test_alpha_keeps_what_significant_terms_keeps_in_every_class(sample, alpha_data, method):
    """Every class, chi2 and Fisher's test: the page's kept terms are those of
    evidence.significant_terms (what `score --class C --alpha` prints), in its order; the one
    class with more passing terms than --cap 500 (talk.politics.mideast: 566 by chi2) keeps
    the first 500 of them, the whole embedded list."""
    from textsift.evidence.significant import significant_terms

    _, counts = sample
    cut = 0
    for c, name in enumerate(counts.classes):
        order, _ = significant_terms(counts, method, 0.05, "bonferroni", "class", "over",
                                     class_label=name)
        expected = list(counts.feature_names[order])
        kept = _kept(alpha_data, method, c)
        if len(expected) > 500:
            cut += 1
            assert (name, len(expected)) == ("talk.politics.mideast", 566)
            assert kept == expected[:500]
        else:
            assert kept == expected, name
    assert cut == (method == "chi2")


def test_q_is_rounded_toward_its_side_of_alpha():
    """3 digits, rounded down where q passes and up where it does not, so that the page's
    filter at alpha keeps exactly what passes: 0.0499996 passes q < 0.05 and is written
    0.0499 (nearest: 0.05, which would fail); 0.0500001 fails q <= 0.05 and is written
    0.0501; 0.0099999 passing is 0.0099 (99e-4: below it, one unit of its third digit)."""
    from textsift.report.explore_evidence import significant

    assert significant([0.0499996, 0.0500001, 0.0099999, 0.05, float("nan")],
                       [True, False, True, False, False]) == [0.0499, 0.0501, 0.0099, 0.05,
                                                              None]


def test_alpha_default_keeps_bh_over_the_class(sample_data, alpha_data):
    """Without --alpha: BH over each class's terms (q <= alpha passes, SelectFdr's rule), no
    alpha; with --correction bonferroni: q < alpha (SelectFwe's)."""
    ev = sample_data["evidence"]
    assert (ev["correction"], ev["family"], ev["alpha"], ev["rule"]) == ("bh", "class", None,
                                                                          "<=")
    ev = alpha_data["evidence"]
    assert (ev["correction"], ev["family"], ev["alpha"], ev["rule"]) == (
        "bonferroni", "class", 0.05, "<")


def test_alpha_family_all_corrects_every_cell(sample):
    """--family all: q of a term in a class is Bonferroni over every term-class cell, 20
    times the class's own (14,095 terms x 20 classes instead of 14,095 tests), capped at 1."""
    _, counts = sample
    one = explore_data(counts, methods=["chi2"], cap=50, correction="bonferroni")
    every = explore_data(counts, methods=["chi2"], cap=50, correction="bonferroni",
                         family="all")
    p1, q1 = one["evidence"]["methods"]["chi2"]["c"][0]
    p2, q2 = every["evidence"]["methods"]["chi2"]["c"][0]
    assert p1 == p2 and every["evidence"]["family"] == "all"
    for a, b in zip(q1, q2, strict=True):
        assert _close(b, min(1.0, 20 * a), 2), (a, b)


@pytest.mark.parametrize("args, message", [
    (["--alpha", "0"], "Invalid value for '--alpha': a significance level in (0, 1]"),
    (["--alpha", "1.5"], "Invalid value for '--alpha': a significance level in (0, 1]"),
    (["--correction", "bonf"], "Invalid value for '--correction'"),
    (["--family", "each"], "Invalid value for '--family'"),
    (["--alpha", "0.05", "-k", "20"], "give one of -k (a number of terms) and --alpha (a "
                                      "significance level)"),
])
def test_alpha_bad_input_is_one_error_and_writes_nothing(tmp_path, args, message):
    """Each: exit 2, one `error:` line (the same as `textsift score`'s), no page."""
    out = tmp_path / "page.html"
    res = CliRunner().invoke(app, ["explore", str(sample_path("20ng")), "--out", str(out),
                                   *args])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert not out.exists()
    score = CliRunner().invoke(app, ["score", str(sample_path("20ng")), *args])
    assert score.exit_code == 2 and score.stderr.strip().replace("score", "explore") == lines[0]


def test_alpha_bad_input_in_python(sample):
    _, counts = sample
    with pytest.raises(TextsiftError, match="significance level in"):
        explore_data(counts, methods=["chi2"], alpha=0)
    with pytest.raises(TextsiftError, match="correction"):
        explore_data(counts, methods=["chi2"], correction="bonf")
    with pytest.raises(TextsiftError, match="family"):
        explore_data(counts, methods=["chi2"], family="each")
