"""The HTML report: self-contained, a figure per metric with the learners side by side, the
best method per level, readable names, files as links, a note on rare top terms."""

from __future__ import annotations

import base64
from html.parser import HTMLParser

import pandas as pd
import pytest

from textsift.experiment import StoreError, parse_config, run_experiment
from textsift.report.html import best_per_size, top_terms_table, write_report


class Page(HTMLParser):
    """Collects the resources an HTML page would fetch, and its links."""

    def __init__(self):
        super().__init__()
        self.images, self.external, self.links = [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.images.append(a)
        if tag == "a":
            self.links.append(a["href"])
        for key in ("src", "href"):
            if key in a and tag not in ("img", "a") and not a[key].startswith("#"):
                self.external.append((tag, a[key]))
        if tag == "img" and not a.get("src", "").startswith("data:"):
            self.external.append((tag, a.get("src")))


def check_self_contained(html: str, directory=None) -> list[bytes]:
    """Every image is an inline PNG and nothing is fetched on load; the links (to the
    run's files) point at files of ``directory``. Return the decoded images."""
    page = Page()
    page.feed(html)
    assert page.external == []
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
    assert "<h2>Results</h2>" in html and "over folds" not in html
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
                          "rank": [1, 2, 1, 2], "term": ["god", "space", "car", "god"],
                          "score": [1, 0.5, 1, 0.5], "group": [""] * 4})
    table = top_terms_table(terms)
    assert list(table.columns) == ["ig", "rc"]
    assert table.loc[2, "rc"] == "god"


def test_report_of_a_directory_without_results_says_what_to_do(tmp_path):
    with pytest.raises(StoreError, match="holds no experiment"):
        write_report(tmp_path)


def test_a_note_names_the_methods_whose_top_terms_are_rare():
    """MI, DIA and AM score how exclusively a term belongs to a class, so a word seen once
    tops them; the report says so in one line, for those methods only."""
    from textsift.report.html import rare_terms_note

    rows = [("mi", r, 1) for r in range(1, 16)] + [("ig", r, 40 + r) for r in range(1, 16)]
    rows += [("dia", r, 1 if r <= 8 else 50) for r in range(1, 16)]
    terms = pd.DataFrame([{"method": m, "aggregate": "max", "rank": r, "term": f"{m}{r}",
                           "score": 1.0, "df": df} for m, r, df in rows])
    note = rare_terms_note(terms)
    assert note.startswith("mi, dia: most of their top 15 terms occur in at most 3 training")
    assert rare_terms_note(terms[terms["method"] == "ig"]) is None


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
