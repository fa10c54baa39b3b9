"""The HTML report: self-contained, a curve per (learner, metric), best method per size."""

from __future__ import annotations

import base64
from html.parser import HTMLParser

import pandas as pd
import pytest

from textsift.experiment import StoreError, parse_config, run_experiment
from textsift.report.html import best_per_size, top_terms_table, write_report


class Page(HTMLParser):
    """Collects the resources an HTML page would fetch."""

    def __init__(self):
        super().__init__()
        self.images, self.external = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.images.append(a)
        for key in ("src", "href"):
            if key in a and tag != "img" and not a[key].startswith("#"):
                self.external.append((tag, a[key]))
        if tag == "img" and not a.get("src", "").startswith("data:"):
            self.external.append((tag, a.get("src")))


def check_self_contained(html: str) -> list[bytes]:
    """Every image is an inline PNG and nothing is fetched: return the decoded images."""
    page = Page()
    page.feed(html)
    assert page.external == []
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
    assert len(check_self_contained(html)) == 2 * 2  # learners x metrics
    for stem in ("nb-accuracy", "nb-misclassification-error", "logreg-accuracy",
                 "logreg-misclassification-error"):
        assert (tmp_path / "figures" / f"{stem}.png").stat().st_size > 0
        assert (tmp_path / "figures" / f"{stem}.svg").read_text().lstrip().startswith("<?xml")
    assert "Best method per number of terms" in html and "Top terms" in html
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
    assert best.loc[10, ("nb", "accuracy")] == "b (0.9000)"
    assert best.loc[10, ("nb", "misclassification_error")] == "b (0.1000)"
    assert best.loc[20, ("nb", "accuracy")] == "a (0.9500)"
    assert best.loc[30, ("nb", "accuracy")] == "all tied (0.9700)"


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
