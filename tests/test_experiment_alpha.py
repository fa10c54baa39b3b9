"""Alpha levels in experiments (``[selection] alphas``): a level per significance level that
keeps, in each fold, the terms whose adjusted p-value passes it -- the terms
``TermSelector(alpha=...)`` keeps on the fold's counts --, its size in ``n_features``, its alpha
in the results' ``alpha`` column, one fit for every policy of a method, a note (and no value)
where no term passes, and the report's count of the terms that pass each alpha."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score
from sklearn.naive_bayes import MultinomialNB

from textsift.evidence.significant import significant_terms
from textsift.experiment import ConfigError, parse_config, run_experiment
from textsift.experiment.folds import load_fold
from textsift.learners import PerLabelClassifier
from textsift.report.html import passing_table, write_report
from textsift.selection.selectors import TermSelector

BASE = {"experiment": {"name": "alphas", "seed": 0},
        "corpus": {"sample": "20ng", "dataset": "ng"},
        "evaluation": {"protocol": "cv", "folds": 2, "metrics": ["accuracy", "macro_f1"]},
        "preprocessing": {"min_df": 2, "stop_words": "english"},
        "selection": {"methods": ["fisher", "chi2", "ig"], "aggregates": ["max", "rr"],
                      "sizes": [50], "alphas": [0.05, 0.001], "correction": "holm"},
        "learners": [{"name": "nb"}]}


def config(**selection):
    return parse_config({**BASE, "selection": {**BASE["selection"], **selection}})


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("alphas")
    exp = config()
    return exp, out, run_experiment(exp, out)


def test_an_alpha_level_keeps_what_the_selector_keeps_on_each_fold(run):
    """Fold by fold, the columns an alpha trial reads are TermSelector(alpha, correction)'s
    selection on the fold's training counts, n_features is their number, and the value is
    naive Bayes fitted on those columns (the identity, recomputed here)."""
    exp, out, summary = run
    r = summary.results
    for fold in range(2):
        data = load_fold(out / "cache" / f"fold-{fold}.npz")
        for method in ("fisher", "chi2"):
            for alpha in (0.05, 0.001):
                sel = TermSelector(method, alpha=alpha, correction="holm").fit_counts(
                    data.counts)
                kept = np.sort(sel.selected_)
                rows = r[(r["fold"] == fold) & (r["method"] == method) & (r["alpha"] == alpha)]
                assert (rows["n_features"] == len(kept)).all() and len(kept) > 0
                pred = MultinomialNB().fit(data.X_train[:, kept], data.y_train).predict(
                    data.X_test[:, kept])
                f1 = f1_score(data.y_test, pred, average="macro")
                for aggregate in ("max", "rr"):  # one fit, under every policy's name
                    row = rows[(rows["aggregate"] == aggregate) & (rows["metric"] == "macro_f1")]
                    assert row["value"].item() == pytest.approx(f1, abs=1e-12)


def test_the_levels_are_apart_and_ig_has_none(run):
    """The alpha column is empty at the size level and the alphas' n_features differ by fold;
    ig, not a test, has no alpha level and a note says so; holm at 0.001 keeps fewer terms
    than at 0.05 (a smaller level passes a subset)."""
    exp, out, summary = run
    r = summary.results
    assert r.loc[r["n_features"] == 50, "alpha"].isna().all()
    assert set(r.loc[r["method"] == "ig", "alpha"].dropna()) == set()
    assert any(n.startswith("ig has no p-value (it is not a statistical test), so no alpha "
                            "level; the methods with one for these labels: chi2, chi2_multi,")
               for n in summary.notes)
    # chi2's alpha levels without Yates: one note (fisher's need none); with yates = true, none
    small = [n for n in summary.notes if "far too small for terms in few documents" in n]
    assert len(small) == 1 and small[0].startswith("chi2's alpha levels keep terms by "
                                                   "Pearson's large-sample p-values"), small
    assert small[0].endswith("set [selection.method_params.chi2] yates = true")
    from textsift.experiment.plan import _small_count_notes

    yates = parse_config({**BASE, "selection": {**BASE["selection"], "method_params": {
        "chi2": {"yates": True}}}})
    assert _small_count_notes(exp) == small and _small_count_notes(yates) == []
    size = r[r["metric"] == "accuracy"].pivot_table(index=["fold", "method"], columns="alpha",
                                                    values="n_features", aggfunc="first")
    assert (size[0.001] < size[0.05]).all()
    s = pd.read_csv(out / "summary.csv")
    fisher = s[(s["method"] == "fisher") & (s["alpha"] == 0.05) & (s["metric"] == "accuracy")]
    per_fold = r[(r["method"] == "fisher") & (r["alpha"] == 0.05) & (r["metric"] == "accuracy")
                 & (r["aggregate"] == "max")]
    assert fisher.loc[fisher["aggregate"] == "max", "n_features"].item() == round(
        per_fold["n_features"].mean())
    assert (fisher["folds"] == 2).all()


def test_the_report_counts_the_terms_that_pass_each_alpha(run):
    """The report's table of terms per alpha: the mean over the folds and the least and
    greatest, from the results; the levels read "alpha 0.05" in the tables."""
    exp, out, summary = run
    r = summary.results
    table = passing_table(r)
    assert list(table.columns) == ["alpha 0.001", "alpha 0.05"]
    assert list(table.index) == ["chi2", "fisher"]
    sizes = r[(r["method"] == "fisher") & (r["alpha"] == 0.05)].drop_duplicates("fold")[
        "n_features"]
    lo, hi = sizes.min(), sizes.max()
    assert table.loc["fisher", "alpha 0.05"] == f"{sizes.mean():,.0f} ({lo:,}-{hi:,})"
    page = write_report(out).read_text(encoding="utf-8")
    assert "Terms that pass each alpha" in page and "<th>alpha 0.05</th>" in page
    assert "after the holm correction over each class&#x27;s terms" in page


def test_no_term_passing_is_a_note_and_no_value(tmp_path):
    """At alpha 1e-300 after Bonferroni nothing passes: no learner is fitted, the value is NaN,
    n_features 0, the summary counts no fold, and a note says so (not an error)."""
    exp = config(methods=["fisher"], sizes=[20], alphas=[1e-300], correction="bonferroni",
                 aggregates=["max"])
    out = run_experiment(exp, tmp_path)
    r = out.results
    at = r[r["alpha"] == 1e-300]
    assert len(at) == 4 and at["value"].isna().all() and (at["n_features"] == 0).all()
    s = pd.read_csv(tmp_path / "summary.csv")
    assert (s.loc[s["alpha"] == 1e-300, "folds"] == 0).all()
    note = [n for n in out.notes if n.startswith("no term passed")]
    assert note == ["no term passed (fisher at alpha 1e-300 in 2 fold(s)): no learner was "
                    "fitted there, and those folds have no value (the means are over the "
                    "others, `folds` counts them); raise the alpha or choose a milder "
                    "correction"]
    assert note[0] in json.loads((tmp_path / "notes.json").read_text())
    write_report(tmp_path)  # the report is written with the empty level


def test_a_report_whose_only_level_keeps_no_term_is_written_with_the_note(tmp_path):
    """The only level an alpha at which nothing passes (1e-300 after Bonferroni): no method has
    a value, so there is no best method (best_method is None, where it raised IndexError on the
    empty mean), and the report is written with the run's note that no term passed."""
    exp = config(methods=["fisher"], sizes=[], alphas=[1e-300], correction="bonferroni",
                 aggregates=["max"])
    summary = run_experiment(exp, tmp_path)
    assert summary.results["value"].isna().all()
    page = write_report(tmp_path).read_text(encoding="utf-8")
    assert (tmp_path / "report.html").is_file()
    assert "no term passed (fisher at alpha 1e-300 in 2 fold(s)): no learner was fitted" in page


def test_an_experiment_of_alphas_only_and_one_vs_rest(tmp_path):
    """Alphas alone are levels enough; in one-vs-rest tasks a per-class test keeps the terms
    passing in the positive class's column (TermSelector(class_label="pos")); the report has no
    curve (no level of a fixed size) and is written."""
    cfg = {**BASE, "evaluation": {"metrics": ["accuracy"], "tasks": "one_vs_rest"},
           "selection": {"methods": ["g2"], "alphas": [0.01]}}
    exp = parse_config(cfg)
    assert exp.sizes == () and exp.ratios == ()
    r = run_experiment(exp, tmp_path).results
    data = load_fold(tmp_path / "cache" / "fold-0.npz")
    task = data.counts.classes[3]
    kept = TermSelector("g2", alpha=0.01, class_label="pos").fit_counts(
        data.counts.one_vs_rest(task)).selected_
    row = r[r["dataset"] == f"ng:{task}"]
    assert row["aggregate"].item() == "pos" and row["n_features"].item() == len(kept) > 0
    page = write_report(tmp_path).read_text(encoding="utf-8")
    assert "<h2>Curves</h2>" not in page and "<th>g2 (the class's own)</th>" in page


def test_growing_an_experiment_by_alphas_runs_only_their_trials(tmp_path):
    """Adding alphas to an experiment later with --resume runs only the new trials (the
    fingerprint holds every key, alphas, correction and family too)."""
    plain = config(alphas=[], methods=["chi2"], aggregates=["max"])
    assert plain.as_dict()["alphas"] == () and "correction" in plain.identity()
    first = run_experiment(plain, tmp_path)
    grown = config(alphas=[0.05], methods=["chi2"], aggregates=["max"])
    again = run_experiment(grown, tmp_path, resume=True)
    assert (first.n_trials, again.n_trials, again.n_run) == (2, 4, 2)  # a fold: 1 trial, +1


@pytest.mark.parametrize("selection, message", [
    ({"alphas": [0]}, r"\[selection\] alphas entry must be a significance level in \(0, 1\], "
                      r"e.g. 0.05, got 0"),
    ({"alphas": [1.5]}, r"alphas entry must be a significance level in \(0, 1\], e.g. 0.05, "
                        r"got 1.5"),
    ({"correction": "fdr"}, r"\[selection\] correction = 'fdr' is not one of none, bonferroni"),
    ({"family": "term"}, r"\[selection\] family = 'term' is not one of class, all"),
    ({"sizes": [], "alphas": []}, r"needs sizes, ratios or alphas as a non-empty list"),
])
def test_bad_alphas_are_refused_when_the_file_is_read(selection, message):
    with pytest.raises(ConfigError, match=message):
        config(**selection)


def test_alphas_alone_with_no_tested_method_are_refused_when_the_file_is_read():
    """Alphas as the only levels and ig, not a test: no trial could run (the run wrote 12 files
    and stopped on an empty results table), so the file is refused, naming the registry's
    methods with a p-value for these (nominal) labels; with a size level ig runs its sizes."""
    with pytest.raises(ConfigError, match=re.escape(
            "[selection] alphas are the only levels, and none of the methods (ig) has a "
            "p-value to select by; add a method with one for these labels (chi2, chi2_multi, "
            "chi2_sklearn, fisher, g2, ig_multi, log_odds_dirichlet), or sizes or ratios")):
        config(methods=["ig"], sizes=[], alphas=[0.05])
    assert config(methods=["ig"], sizes=[20], alphas=[0.05]).alphas == (0.05,)
    assert config(methods=["ig", "chi2"], sizes=[], alphas=[0.05]).methods == ("ig", "chi2")


def test_a_label_with_no_column_answers_its_training_majority():
    """PerLabelClassifier: a label given no column (none of its terms passed alpha) predicts
    its training majority -- 0 for a label on 1 of 4 documents, 1 for one on 3 of 4 -- and the
    others are fitted as before."""
    X = np.array([[1, 0], [0, 1], [1, 0], [0, 1]])
    Y = np.array([[1, 1, 1], [0, 1, 0], [0, 1, 1], [0, 0, 0]])
    model = PerLabelClassifier(MultinomialNB(), [np.array([], int), np.array([], int),
                                                 np.array([0, 1])]).fit(X, Y)
    assert model.estimators_[:2] == [0, 1]
    assert model.predict(X)[:, :2].tolist() == [[0, 1]] * 4


def test_label_sets_local_scope_keeps_each_labels_own_passing_terms(tmp_path):
    """Scope local: each label's learner reads the terms passing alpha in its own column
    (significant_terms with class_label), n_features their mean over the labels."""
    from test_experiment_multilabel import corpus, write

    path = write(tmp_path, corpus())
    exp = parse_config({"experiment": {"name": "ml"},
                        "corpus": {"path": str(path), "label_field": "labels"},
                        "evaluation": {"metrics": ["micro_f1"]},
                        "selection": {"methods": ["fisher"], "scope": ["local"],
                                      "alphas": [0.05]},
                        "learners": [{"name": "nb"}]})
    r = run_experiment(exp, tmp_path / "run").results
    data = load_fold(tmp_path / "run" / "cache" / "fold-0.npz")
    own = [len(significant_terms(data.counts, "fisher", 0.05, class_label=c)[0])
           for c in data.counts.classes]
    assert r["aggregate"].item() == "local" and min(own) > 0
    assert r["n_features"].item() == round(np.mean(own))
