"""The majority-class trap in the report: a result whose macro-F1 is far below its accuracy
(by more than 1/6, the gap of always answering the majority class of two equal classes) is
flagged beside the results table; balanced data are not."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, f1_score

from textsift.experiment import parse_config, run_experiment
from textsift.report.html import write_report
from textsift.report.trap import TRAP_GAP, majority_class_trap


def majority_gap(n_major: int, n_minor: int) -> float:
    """accuracy - macro-F1 of the predictor that always answers the majority class."""
    y = np.array([0] * n_major + [1] * n_minor)
    pred = np.zeros_like(y)
    return accuracy_score(y, pred) - f1_score(y, pred, average="macro", zero_division=0)


def test_the_bound_is_the_majority_predictors_gap_on_two_equal_classes():
    assert majority_gap(50, 50) == pytest.approx(TRAP_GAP) == pytest.approx(1 / 6)
    # p^2 / (1 + p): the gap grows with the skew, so every two-class majority predictor is
    # at least at the bound
    assert majority_gap(90, 10) == pytest.approx(0.81 / 1.9)
    assert all(majority_gap(n, 100 - n) >= TRAP_GAP - 1e-12 for n in range(50, 100))


def summary(rows):
    """A run's summary from (method, n_features, learner, accuracy, macro_f1)."""
    out = []
    for method, k, learner, acc, f1 in rows:
        for metric, v in (("accuracy", acc), ("macro_f1", f1)):
            out.append({"dataset": "d", "method": method, "aggregate": "max", "n_features": k,
                        "ratio": np.nan, "learner": learner, "metric": metric, "mean": v,
                        "std": 0.0, "folds": 1})
    return pd.DataFrame(out)


def test_flagged_results_are_those_whose_gap_passes_the_bound():
    s = summary([("chi2", 100, "logreg", 0.922, 0.480),   # gap 0.442: the trap
                 ("chi2", 1000, "nb", 0.945, 0.759),      # 0.186
                 ("chi2", 1000, "logreg", 0.933, 0.820),  # 0.113: balanced weights
                 ("ig", 100, "nb", 0.70, 0.71),            # macro-F1 above accuracy
                 ("triv", 0, "nb", 0.9, 0.47)])            # Triv is the trap by design
    flagged = majority_class_trap(s)
    assert list(zip(flagged["learner"], flagged["n_features"], strict=True)) == [
        ("logreg", 100), ("nb", 1000)]  # the largest gap first
    np.testing.assert_allclose(flagged["gap"], [0.442, 0.186])
    assert majority_class_trap(s[s.metric == "accuracy"]).empty  # macro-F1 not measured


def write(path, n, minority, seed=0):
    """Two classes, ``minority`` of them 'b'; a's words sometimes in b's documents."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as fh:
        for i in range(n):
            b = i < n * minority
            words = rng.choice(["alpha", "beta", "gamma"] if b else ["delta", "eps", "zeta"],
                               3).tolist() + rng.choice(["delta", "eps", "alpha", "the"],
                                                        4).tolist()
            fh.write(json.dumps({"text": " ".join(words), "label": "b" if b else "a",
                                 "split": "test" if i % 4 == 0 else "train"}) + "\n")
    return path


def report(tmp_path, minority):
    path = write(tmp_path / "c.jsonl", 400, minority)
    exp = parse_config({"corpus": {"path": str(path)},
                        "selection": {"methods": ["chi2"], "sizes": [3, "all"]},
                        "learners": [{"name": "logreg", "C": 0.05}]})
    run_experiment(exp, tmp_path / "out")
    return write_report(tmp_path / "out").read_text(encoding="utf-8")


def test_the_report_flags_the_trap_on_skewed_data(tmp_path):
    html = report(tmp_path, minority=0.1)
    results = html.index("<h2>Results")
    note = html.index("far below their accuracy")
    assert results < note < html.index("<details>", results)  # beside the results table
    assert "2 result(s) have a macro-F1 far below their accuracy (by more than 0.167" in html
    assert "class_weight = &quot;balanced&quot;" in html


def test_the_report_does_not_flag_balanced_data(tmp_path):
    html = report(tmp_path, minority=0.5)
    assert "far below their accuracy" not in html
