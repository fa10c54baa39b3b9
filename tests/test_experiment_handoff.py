"""The runner hands on what it computed: a run of one trial and its report score fold 0 once,
open no fold file (fold 0 stays open as it was built), read the corpus once besides hashing it,
check the labels' spelling once and build the learner once besides the registry's one look at
it; a resumed run opens each fold file once. (Before: 3 scores of the table, 4 openings of
fold-0.npz, 2 spelling checks, 4 builds.)"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import textsift.experiment.folds as folds
import textsift.experiment.trials as trials
import textsift.experiment.validity as validity
import textsift.learners._registry as learners
import textsift.reading.corpus as corpus_module
import textsift.scores._registry as scores
from textsift.experiment import parse_config, run_experiment
from textsift.report.html import write_report

ONE_TRIAL = {"experiment": {"name": "one", "n_jobs": 1}, "corpus": {"sample": "20ng"},
             "preprocessing": {"stop_words": "english", "min_df": 2},
             "selection": {"methods": ["chi2"], "aggregates": ["max"], "sizes": [100],
                           "baselines": []},
             "learners": [{"name": "nb"}]}


@pytest.fixture
def calls(monkeypatch):
    """Counters of the work a run may repeat, each wrapping the one function that does it."""
    counted = dict.fromkeys(["chi2", "fold_read", "corpus_read", "hash", "spelling", "build"],
                            0)

    def count(name, func):
        def wrapper(*args, **kwargs):
            counted[name] += 1
            return func(*args, **kwargs)
        return wrapper

    chi2 = scores.REGISTRY["chi2"]
    monkeypatch.setitem(scores.REGISTRY, "chi2",
                        dataclasses.replace(chi2, func=count("chi2", chi2.func)))
    real_load = np.load

    def load(path, *args, **kwargs):
        counted["fold_read"] += "fold-" in str(path)
        return real_load(path, *args, **kwargs)

    monkeypatch.setattr(np, "load", load)
    for module in (corpus_module, folds):
        monkeypatch.setattr(module, "read_corpus", count("corpus_read", module.read_corpus))
    monkeypatch.setattr(validity, "_sha256", count("hash", validity._sha256))
    monkeypatch.setattr(folds, "check_label_spelling",
                        count("spelling", folds.check_label_spelling))
    monkeypatch.setattr(corpus_module, "check_label_spelling",
                        count("spelling", corpus_module.check_label_spelling))
    monkeypatch.setattr(learners.Learner, "build", count("build", learners.Learner.build))
    for learner in learners.LEARNERS.values():  # as in a new process
        for cached in ("_weights", "weights_classes"):
            learner.__dict__.pop(cached, None)
    trials.open_fold.cache_clear()
    return counted


def test_one_trial_and_its_report_do_each_piece_of_work_once(tmp_path, calls):
    summary = run_experiment(parse_config(ONE_TRIAL), tmp_path / "run")
    assert summary.n_trials == summary.n_run == 1
    # the trial's scores of fold 0 are the report's; fold 0 is read from memory, as built
    assert calls == {"chi2": 1, "fold_read": 0, "corpus_read": 1, "hash": 1, "spelling": 1,
                     "build": 2}  # build: the registry's look at nb's parameters, the fit
    write_report(tmp_path / "run")
    assert calls == {"chi2": 1, "fold_read": 0, "corpus_read": 1, "hash": 1, "spelling": 1,
                     "build": 2}  # the report reads the run's tables only


def test_a_resumed_run_opens_each_fold_file_once(tmp_path, calls):
    """3 folds, a learner added: fold 0 is read by the runner and kept open for its trials,
    folds 1 and 2 by their trials."""
    cfg = {**ONE_TRIAL, "evaluation": {"protocol": "cv", "folds": 3}}
    run_experiment(parse_config(cfg), tmp_path / "run")
    reads = calls["fold_read"]
    grown = {**cfg, "learners": [{"name": "nb"}, {"name": "logreg"}]}
    trials.open_fold.cache_clear()
    assert run_experiment(parse_config(grown), tmp_path / "run", resume=True).n_run == 3
    assert (reads, calls["fold_read"] - reads) == (2, 3)  # a fresh run: folds 1, 2 in trials


def _label_sets():
    """60 documents over 40 terms, 5 labels: counts in each layout."""
    import scipy.sparse as sp

    from textsift.counting.counts import Counts

    X = sp.random(60, 40, density=0.1, format="csr", random_state=0)
    X.data[:] = 1
    Y = sp.random(60, 5, density=0.3, format="csr", random_state=1)
    Y.data[:] = 1
    names = np.array([f"t{i}" for i in range(40)], dtype=object)
    return X, Y, {layout: Counts.from_matrix(X, Y, classes=np.array(list("abcde")),
                                             feature_names=names, layout=layout)
                  for layout in ("dense", "sparse")}


def test_a_fold_of_counts_in_the_sparse_layout_is_read_back_as_it_was_written(tmp_path):
    from textsift.experiment.specs import TrainTest

    X, Y, counts = _label_sets()
    folds.save_fold(TrainTest(X, Y, X, Y, counts["sparse"]), tmp_path / "fold-0.npz")
    back = folds.load_fold(tmp_path / "fold-0.npz").counts
    assert back.layout == "sparse"
    assert (back.doc_counts != counts["sparse"].doc_counts).nnz == 0
    assert (back.term_freq != counts["sparse"].term_freq).nnz == 0


@pytest.mark.parametrize(("method", "own_column"), [("chi2", True), ("df", False)])
def test_the_terms_of_each_class_are_the_same_on_either_layout(method, own_column):
    """chi2 ranks each label's own column; df, one score per term, is cut by the labels'
    shares of each term's documents: the sparse layout's shares are the dense ones."""
    from textsift.selection.ranking import class_terms

    _, _, counts = _label_sets()
    dense, sparse = (class_terms(counts[lay], method, "max", 3) for lay in ("dense", "sparse"))
    assert dense.equals(sparse) and dense.attrs["own_column"] is own_column
