"""Yang's thresholds in experiments: ``threshold = "scut"`` or ``"rcut"`` in a ``[[learners]]``
table decides each label of a label-set experiment by a cut tuned on the validation part the
tuning uses (SCut) or by each document's best labels (RCut); asked for on one label per
document, or with values out of range, it is refused before anything is written."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score
from test_experiment_multilabel import config, corpus, write
from typer.testing import CliRunner

from textsift.cli import app
from textsift.experiment import ConfigError, run_experiment
from textsift.experiment.folds import load_fold
from textsift.learners import TunedThresholdClassifier, make_learner

runner = CliRunner()


@pytest.fixture(scope="module")
def cut(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cut")
    exp = config(write(tmp, corpus(n=320)),
                 selection={"aggregates": ["wavg"], "scope": ["global", "local"],
                            "sizes": [6]},
                 learners=[{"name": "linear_svm"}, {"name": "linear_svm", "threshold": "scut"},
                           {"name": "nb", "threshold": "rcut", "rank": 2}])
    return exp, tmp / "run", run_experiment(exp, tmp / "run")


def test_a_threshold_learner_is_a_row_of_its_own(cut):
    exp, _, summary = cut
    assert [lr.label for lr in exp.learners] == ["linear_svm", "linear_svm+scut", "nb+rcut"]
    assert set(summary.results["learner"]) == {"linear_svm", "linear_svm+scut", "nb+rcut"}


def test_scut_in_the_experiment_is_the_estimator_wrapper_on_the_same_columns(cut):
    """Global scope, wavg's top 6 columns: the trial's micro- and macro-F1 are those of
    TunedThresholdClassifier(strategy="scut", 3 inner folds, random_state =
    the seed) over the learner's pipeline, fitted here by hand."""
    exp, out, summary = cut
    fold = load_fold(out / "cache" / "fold-0.npz")
    table = (fold.counts.class_sizes / fold.counts.n_docs)
    from textsift.scores import compute

    wavg = compute(fold.counts, "chi2").values @ table
    cols = np.sort(np.argsort(-wavg, kind="stable")[:6])
    Y_train, Y_test = fold.y_train.toarray(), fold.y_test.toarray()
    model = make_learner("linear_svm", multilabel=True, threshold="scut", val_size=0.25)
    assert isinstance(model, TunedThresholdClassifier)
    pred = model.fit(fold.X_train[:, cols], Y_train).predict(fold.X_test[:, cols])
    rows = summary.results[(summary.results["learner"] == "linear_svm+scut")
                           & (summary.results["aggregate"] == "wavg")]
    for average in ("micro", "macro"):
        got = float(rows[rows["metric"] == f"{average}_f1"]["value"].iloc[0])
        assert got == f1_score(Y_test, pred, average=average, zero_division=0)


def test_rcut_in_the_local_scope_is_the_wrapper_over_each_label_own_columns(cut):
    """Local scope, each label's own top 6 chi2 terms: nb+rcut (rank 2) gives every test
    document its two best-scoring labels -- FixedThresholdClassifier("rcut") over a
    PerLabelClassifier, fitted here by hand."""
    exp, out, summary = cut
    fold = load_fold(out / "cache" / "fold-0.npz")
    from textsift.scores import compute

    table = compute(fold.counts, "chi2", dense=False)
    cols = [np.sort(t) for t, _ in table.top_many(range(4), 6)]
    Y_train, Y_test = fold.y_train.toarray(), fold.y_test.toarray()
    model = make_learner("nb", multilabel=True, columns=cols, threshold="rcut", rank=2)
    pred = model.fit(fold.X_train, Y_train).predict(fold.X_test)
    assert (pred.sum(axis=1) == 2).all()
    rows = summary.results[(summary.results["learner"] == "nb+rcut")
                           & (summary.results["aggregate"] == "local")]
    got = float(rows[rows["metric"] == "micro_f1"]["value"].iloc[0])
    assert got == f1_score(Y_test, pred, average="micro", zero_division=0)


@pytest.mark.parametrize(("learner", "message"), [
    ({"name": "linear_svm", "threshold": "qcut"}, "threshold"),
    ({"name": "linear_svm", "threshold": "scut", "fbr": 1.5}, "fbr"),
    ({"name": "nb", "threshold": "rcut", "rank": 0}, "rank"),
    ({"name": "nb", "fbr": 0.2}, "fbr set the labels' thresholds; give threshold"),
    # a key of the other strategy did nothing: refused, naming the strategy's own keys
    ({"name": "nb", "threshold": "scut", "rank": 2},
     "rank is not a key of threshold = 'scut', which reads fbr, fallback, cv; drop rank"),
    ({"name": "nb", "threshold": "rcut", "fbr": 0.1, "fallback": "never"},
     "fbr, fallback are not keys of threshold = 'rcut', which reads rank"),
])
def test_a_threshold_out_of_range_is_refused(tmp_path, learner, message):
    with pytest.raises(ConfigError, match=message):
        run_experiment(config(write(tmp_path, corpus(n=40)), learners=[learner]),
                       tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_scut_on_one_label_per_document_is_one_error_line(tmp_path):
    records = [dict(r, labels=(r["labels"] or ["acq"])[0]) for r in corpus(n=40)]
    path = write(tmp_path, records)
    toml = tmp_path / "one.toml"
    toml.write_text(f'[corpus]\npath = "{path}"\nlabel_field = "labels"\n'
                    '[selection]\nmethods = ["chi2"]\nsizes = [3]\n'
                    '[[learners]]\nname = "nb"\nthreshold = "scut"\n')
    res = runner.invoke(app, ["run", str(toml), "--out", str(tmp_path / "run")])
    assert res.exit_code == 2 and res.stdout == ""
    lines = [line for line in res.stderr.splitlines() if line]
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert ("threshold = 'scut' sets a threshold per label, for label sets (a multilabel "
            "task); this nominal task gives each document one class" in res.stderr)
    assert not (tmp_path / "run").exists()
