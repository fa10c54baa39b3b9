"""The HTML report: self-contained, a figure per metric with the learners side by side (error
bars over folds), the best method per level, readable names, files as links, a note on rare
top terms, the top terms of each class under the best method."""

from __future__ import annotations

import base64
import os
import re
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.experiment import StoreError, parse_config, run_experiment
from textsift.report.html import best_per_size, write_report
from textsift.report.terms import (
    best_method,
    rare_terms_note,
    top_terms_table,
)
from textsift.selection.ranking import class_terms


class Page(HTMLParser):
    """Collects the resources an HTML page would fetch, and its links."""

    def __init__(self):
        super().__init__()
        self.images, self.external, self.links = [], [], []
        self.anchors, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "img":
            self.images.append(a)
        if tag == "a":  # a link to a run's file, or within the page (a term's evidence)
            (self.anchors if a["href"].startswith("#") else self.links).append(a["href"])
        for key in ("src", "href"):
            if key in a and tag not in ("img", "a") and not a[key].startswith("#"):
                self.external.append((tag, a[key]))
        if tag == "img" and not a.get("src", "").startswith("data:"):
            self.external.append((tag, a.get("src")))


def check_self_contained(html: str, directory=None) -> list[bytes]:
    """Every image is an inline PNG and nothing is fetched on load; the links (to the
    run's files) point at files of ``directory``, those within the page at an element of
    it. Return the decoded images."""
    page = Page()
    page.feed(html)
    assert page.external == []
    assert all(link[1:] in page.ids for link in page.anchors)
    if directory is not None:
        assert page.links and all((directory / link).is_file() for link in page.links)
    pngs = []
    for img in page.images:
        head, _, data = img["src"].partition(",")
        assert head == "data:image/png;base64"
        png = base64.b64decode(data, validate=True)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        pngs.append(png)
    return pngs


CFG = {
    "experiment": {"name": "report test"},
    "corpus": {"sample": "20ng"},
    "evaluation": {"metrics": ["accuracy", "misclassification_error"]},
    "preprocessing": {"min_df": 3, "stop_words": "english"},
    "selection": {"methods": ["ig", "rc"], "aggregates": ["max", "rr"], "sizes": [20, 200]},
    "learners": [{"name": "nb"}, {"name": "logreg", "C": 10.0}],
}


@pytest.mark.slow
def test_report_is_self_contained_with_a_curve_per_metric_and_learner(tmp_path):
    run_experiment(parse_config(CFG), tmp_path)
    path = write_report(tmp_path)
    assert path == tmp_path / "report.html"
    html = path.read_text(encoding="utf-8")
    assert len(check_self_contained(html, tmp_path)) == 2  # a figure per metric
    for stem in ("accuracy", "misclassification_error"):
        assert (tmp_path / "figures" / f"{stem}.png").stat().st_size > 0
        assert (tmp_path / "figures" / f"{stem}.svg").read_text().lstrip().startswith("<?xml")
        assert f"<a href='figures/{stem}.svg'>" in html
    assert "Best method at each level" in html and "Top terms" in html
    # readable names; one split: the results, no "mean and std over folds"
    assert "naive Bayes" in html and "misclassification error, lower is better" in html
    assert "<h2>Results</h2>" in html and "over folds" not in html and "error bar" not in html
    terms = pd.read_csv(tmp_path / "terms.csv", keep_default_na=False)
    assert set(zip(terms["method"], terms["aggregate"], strict=True)) == {
        ("ig", "max"), ("ig", "rr"), ("rc", "max"), ("rc", "rr")}


def test_best_per_size_maximises_scores_and_minimises_errors():
    rows = [("a", 10, "accuracy", 0.8), ("b", 10, "accuracy", 0.9),
            ("a", 10, "misclassification_error", 0.2), ("b", 10, "misclassification_error", 0.1),
            ("a", 20, "accuracy", 0.95), ("b", 20, "accuracy", 0.9),
            ("a", 30, "accuracy", 0.97), ("b", 30, "accuracy", 0.97)]
    summary = pd.DataFrame(
        [{"dataset": "d", "method": m, "aggregate": "max", "n_features": n, "learner": "nb",
          "metric": metric, "mean": v, "std": 0.0, "folds": 1} for m, n, metric, v in rows])
    best = best_per_size(summary)
    assert best.loc["10", ("nb", "accuracy")] == "b (0.9000)"
    assert best.loc["10", ("nb", "misclassification_error")] == "b (0.1000)"
    assert best.loc["20", ("nb", "accuracy")] == "a (0.9500)"
    assert best.loc["30", ("nb", "accuracy")] == "all tied (0.9700)"


def test_top_terms_side_by_side():
    terms = pd.DataFrame({"method": ["ig", "ig", "rc", "rc"], "aggregate": ["max"] * 4,
                          "position": [1, 2, 1, 2], "term": ["god", "space", "car", "god"],
                          "score": [1, 0.5, 1, 0.5], "group": [""] * 4})
    table = top_terms_table(terms)
    assert list(table.columns) == ["ig", "rc"]
    assert table.loc[2, "rc"] == "god"


def test_report_of_a_directory_without_results_says_what_to_do(tmp_path):
    with pytest.raises(StoreError, match="holds no experiment"):
        write_report(tmp_path)


def test_a_note_names_the_methods_whose_top_terms_are_rare():
    """MI, DIA and AM score how exclusively a term belongs to a class, so a word seen once
    tops them. The rule reads document frequencies against min_df, never method names: a
    term is rare in at most twice min_df training documents (at least 3). With min_df 2 the
    limit is 4: mi's digit strings (as in the demo: "0005111312na1em" in 2 documents, under
    two words in 31 and 17) and dia's (8 of 15 in 3 documents: most) are named, ig's words
    (41-55 documents) and "y" (7 of 15: not most) are not, nor "x" (5-6 documents), which
    min_df 3 (limit 6) names."""
    mi = [("athos", 31), ("geneva", 17)] + [(f"00{i:02d}5111312na1em", 2) for i in range(13)]
    rows = [("mi", r, t, df) for r, (t, df) in enumerate(mi, 1)]
    rows += [("ig", r, f"word{r}", 40 + r) for r in range(1, 16)]
    rows += [("dia", r, f"000{r}", 3 if r <= 8 else 50) for r in range(1, 16)]
    rows += [("y", r, f"y{r}", 3 if r <= 7 else 50) for r in range(1, 16)]
    rows += [("x", r, f"x{r}", 5 + r % 2) for r in range(1, 16)]
    terms = pd.DataFrame([{"method": m, "aggregate": "max", "position": r, "term": t,
                           "score": 1.0, "df": df} for m, r, t, df in rows])
    note = rare_terms_note(terms, min_df=2)
    assert note.startswith("mi, dia: most of their top 15 terms occur in at most 4 training "
                           "documents (min_df 2).")
    assert rare_terms_note(terms, min_df=3).startswith("mi, dia, x: most of their top 15 "
                                                       "terms occur in at most 6 training")
    assert rare_terms_note(terms, min_df=1).startswith("mi, dia: most of their top 15 terms "
                                                       "occur in at most 3 training")
    assert rare_terms_note(terms[terms["method"].isin(["ig", "y"])], min_df=2) is None


def test_min_df_in_documents():
    # a number is itself; a fraction of the training documents rounds up, as
    # scikit-learn's df >= min_df * n_docs keeps terms
    from textsift.text.vectorize import max_documents, min_documents

    assert min_documents(2, 2000) == 2
    assert min_documents(0.001, 2000) == 2 and min_documents(0.0011, 2000) == 3
    assert min_documents(0.01, None) == 1
    # scikit-learn compares df >= 0.07 * 100 = 7.000000000000001: a df of 7 does not reach it
    assert min_documents(0.07, 100) == 8
    assert max_documents(0.5, 9) == 4 and max_documents(5, 9) == 5


def test_the_best_method_has_the_best_mean_below_all():
    """Accuracy: a 0.80, 0.90 at 10 and 20 terms (mean 0.85), b 0.88, 0.80 (0.84): a,
    although b is better at 10 terms and FFS (every term) better than both. Error (lower is
    better): a 0.20, 0.15 (0.175), b 0.10, 0.20 (0.15): b."""
    rows = [("a", 10, None, 0.80, 0.20), ("a", 20, None, 0.90, 0.15),
            ("b", 10, None, 0.88, 0.10), ("b", 20, None, 0.80, 0.20),
            ("a", 99, 1.0, 0.95, 0.05), ("b", 99, 1.0, 0.95, 0.05),
            ("ffs", 99, 1.0, 0.99, 0.01)]
    summary = pd.DataFrame(
        [{"dataset": "d", "method": m, "aggregate": "max", "n_features": n, "ratio": r,
          "learner": "nb", "metric": metric, "mean": v, "std": 0.0, "folds": 1}
         for m, n, r, acc, err in rows
         for metric, v in (("accuracy", acc), ("misclassification_error", err))])
    assert best_method(summary, "nb", "accuracy") == ("a", "max")
    assert best_method(summary, "nb", "misclassification_error") == ("b", "max")
    assert best_method(summary, "svm", "accuracy") is None


def _sport_and_politics() -> Counts:
    X = np.array([[1, 1, 0, 0, 1],   # sport: ball goal the
                  [1, 0, 0, 0, 1],   # sport: ball the
                  [0, 1, 0, 0, 0],   # sport: goal
                  [0, 0, 1, 1, 1],   # politics: vote law the
                  [0, 0, 1, 0, 1],   # politics: vote the
                  [0, 0, 0, 1, 0]])  # politics: law
    y = ["sport"] * 3 + ["politics"] * 3
    return Counts.from_matrix(X, y, feature_names=np.array(["ball", "goal", "vote", "law", "the"]))


def test_class_terms_are_each_classes_own_column():
    """dia = P(c|t): ball and goal are 1 in sport (ties to the lower index), "the" 0.5; but
    "the" is in 2 of the 3 documents of each class, neither over- nor under-represented in
    either, so it is no class's term (the default direction, "over"). With both directions
    it comes back, marked, after the under-represented vote and law (dia 0 in sport)."""
    table = class_terms(_sport_and_politics(), "dia", "max", top=3)
    assert table.attrs["own_column"]
    assert table.to_dict("index") == {
        "sport": {"training documents": 3, "terms": "ball, goal"},
        "politics": {"training documents": 3, "terms": "vote, law"}}
    both = class_terms(_sport_and_politics(), "dia", "max", top=5, direction="both")
    assert both.loc["sport", "terms"] == "ball +, goal +, the, vote -, law -"


def test_class_terms_of_a_one_score_method_go_where_they_are_most_frequent():
    """df ranks the, ball, goal, vote, law (df 4, 2, 2, 2, 2); "the" is in 2 of 3 documents
    of each class and goes to the first (politics: classes are sorted); the others to their
    only class."""
    table = class_terms(_sport_and_politics(), "df", "max", top=2)
    assert not table.attrs["own_column"]
    assert table["terms"].to_dict() == {"politics": "the, vote", "sport": "ball, goal"}


def test_cv_curves_have_an_error_bar_of_one_std_at_each_point():
    import matplotlib.pyplot as plt

    from textsift.report.plots import _draw_curves

    panel = pd.DataFrame({"method": "ig", "aggregate": "max", "n_features": [10, 20],
                          "ratio": np.nan, "mean": [0.6, 0.7], "std": [0.05, 0.02],
                          "folds": 5})
    fig, ax = plt.subplots()
    _draw_curves(ax, panel, {"ig": ("red", "-")}, by_ratio=False)
    (bars,) = ax.containers
    segments = bars.lines[2][0].get_segments()
    np.testing.assert_allclose(segments, [[[10, 0.55], [10, 0.65]], [[20, 0.68], [20, 0.72]]])
    plt.close(fig)


def test_a_cv_report_shows_mean_and_std_over_folds(tmp_path):
    """dia's top terms are rare words whatever the platform: P(c|t) = A / (A + B) is exactly
    1 for every term seen in one class only, and those ties go to the lower index, so its top
    15 on fold 0 are the first class-pure terms of the vocabulary ("0002", "1069", ...), 12 of
    them in 3 training documents. (mi is not used here: its class-pure terms are tied too, at
    log(N / N_c), but it computes that as log A + log N - log(A + B) - log(A + C), whose
    rounding differs by 1-2 ulp with A and with the platform's log, and that noise, not the
    tie rule, decides which of the hundreds of tied terms come first.)"""
    cfg = {**CFG, "evaluation": {"protocol": "cv", "folds": 2, "metrics": ["accuracy"]},
           "selection": {"methods": ["dia", "ig"], "sizes": [20, "all"]},
           "learners": [{"name": "nb"}, {"name": "linear_svm"}]}
    run_experiment(parse_config(cfg), tmp_path)
    html = write_report(tmp_path).read_text(encoding="utf-8")
    assert "Results: mean ± std over 2 folds" in html and " ± " in html
    assert "naive Bayes" in html and "linear SVM" in html and "all (" in html
    assert "<p class='note'>dia: most of their top 15 terms" in html
    assert "<p>Each point: the mean over 2 folds, error bars ± one standard deviation.</p>" in html
    # the best method (of the first learner, by the first metric) and its terms per class
    assert "<h2>Top terms of each class: ig (fold 0)</h2>" in html
    assert html.count("<th>comp.graphics</th>") == 1 and "<td>70</td>" in html


def _links(page) -> list[str]:
    return re.findall(r"<a href='([^']+)'>", page.read_text(encoding="utf-8"))


def test_a_report_can_be_written_elsewhere_and_the_experiment_is_left_as_it_was(tmp_path):
    """``report DIR --out OUT`` (``write_report(DIR, OUT)``): a read-only experiment gets its
    report; DIR is not written to, and the page's links reach DIR's files from OUT."""
    exp, out = tmp_path / "exp", tmp_path / "elsewhere" / "rep"
    run_experiment(parse_config(CFG), exp)
    before = {p: p.stat().st_mtime_ns for p in exp.rglob("*")}
    res = CliRunner().invoke(app, ["report", str(exp), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == str(out / "report.html")
    assert {p: p.stat().st_mtime_ns for p in exp.rglob("*")} == before
    links = _links(out / "report.html")
    assert "../../exp/results.csv" in links and "figures/accuracy.png" in links
    assert all((out / link).exists() for link in links)
    assert sorted(p.name for p in out.iterdir()) == ["figures", "report.html"]


def test_a_report_killed_half_way_links_only_files_that_exist(tmp_path):
    """``kill -KILL`` of ``textsift report`` while it draws a figure (a ``figures/*.tmp`` is
    being written): the page on disk -- the earlier report's -- still links every file it
    names (the earlier report's figures were deleted before the new ones were drawn); the
    next report removes the partial file."""
    run_experiment(parse_config(CFG), tmp_path)
    write_report(tmp_path)
    figures = tmp_path / "figures"
    proc = subprocess.Popen([sys.executable, "-c", "from textsift.cli import main; main()",
                             "report", str(tmp_path)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, "MPLBACKEND": "Agg"})
    try:
        deadline = time.monotonic() + 300
        while not list(figures.glob("*.tmp")):
            assert proc.poll() is None and time.monotonic() < deadline, "no figure drawn"
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    links = _links(tmp_path / "report.html")
    assert len(links) > 4 and [f for f in links if not (tmp_path / f).exists()] == []
    write_report(tmp_path)
    assert not list(figures.glob("*.tmp"))
    assert sorted(f"figures/{p.name}" for p in figures.iterdir()) == sorted(
        f for f in _links(tmp_path / "report.html") if f.startswith("figures/"))
