"""A trial opens its fold once, and a process reads each fold from disk once: what a trial
derives (the validation split, the rankings, the columns) is kept with the open fold."""

from __future__ import annotations

import dataclasses
import os
import pickle

import numpy as np
import pytest

from textsift.experiment import StoreError, loaded, parse_config, trials
from textsift.experiment.folds import load_fold, prepare_folds
from textsift.experiment.plan import plan_trials, resolve_levels, selections
from textsift.experiment.specs import FoldRef

CONFIG = {"corpus": {"sample": "20ng"},
          "evaluation": {"protocol": "cv", "folds": 2, "metrics": ["accuracy"]},
          "preprocessing": {"min_df": 3},
          "selection": {"methods": ["ig"], "sizes": [20, 50], "baselines": ["triv"]},
          "tuning": {"base": [2.0, 10.0]},  # the method's own parameter: selection is tuned
          "learners": [{"name": "nb"}, {"name": "nb", "label": "nb-bin", "weighting": "binary"}]}


def test_each_trial_opens_its_fold_once_and_each_fold_is_read_once(tmp_path, monkeypatch):
    """2 folds x (triv + ig at 2 sizes x 2 learners, each tuned on 2 values): 10 trials, 10
    openings (one per trial), 2 reads from disk and one ``os.stat`` of each fold file (its
    version checked when it is read). Before the trials were typed, 4 trials made 7 to 16
    ``load_part`` calls and 11 to 12 ``os.stat`` calls."""
    exp = parse_config(CONFIG)
    paths = prepare_folds(exp, tmp_path, log=lambda _: None)
    refs = [FoldRef.of(p) for p in paths]
    levels, _ = resolve_levels(exp, [load_fold(r).n_terms for r in refs])
    plan = plan_trials(exp, refs, levels, selections(exp)[0])
    assert len(plan) == 10 and [c.fold for c in plan] == [0] * 5 + [1] * 5
    trials.open_fold.cache_clear()
    calls = {"open": 0, "read": 0, "stat": 0}

    def counted(name, func):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return func(*args, **kwargs)
        return wrapper

    real_stat, folds = os.stat, set(map(str, paths))

    def stat(path, *args, **kwargs):
        calls["stat"] += str(path) in folds
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(trials, "open_fold", counted("open", trials.open_fold))
    monkeypatch.setattr(loaded, "load_fold", counted("read", loaded.load_fold))
    monkeypatch.setattr(os, "stat", stat)
    results = [trials.run_trial(c) for c in plan]
    assert calls == {"open": 10, "read": 2, "stat": 2}
    tuned = [r.rows[0] for r in results if r.rows[0]["method"] == "ig"]
    assert {row["base"] for row in tuned} <= {2.0, 10.0} and len(tuned) == 8


def test_a_trial_is_small_and_frozen():
    """What goes to a worker: a frozen value whose fold is its reference, not its data."""
    exp = parse_config({**CONFIG, "evaluation": {"metrics": ["accuracy"]}})
    ref = FoldRef("/nowhere/fold-0.npz", 1, 2)
    trial = plan_trials(exp, [ref], resolve_levels(exp, [1000])[0],
                        selections(exp)[0])[-1]
    assert trial.kind == "select" and trial.fold_ref == ref and trial.level.value == 50
    assert len(pickle.dumps(trial)) < 1500
    with pytest.raises(dataclasses.FrozenInstanceError):
        trial.fold = 3


def test_a_rebuilt_fold_file_is_refused(tmp_path):
    """A trial planned on one version of a fold file never reads another (a directory taken
    over by another experiment rebuilds it under the same name)."""
    exp = parse_config({**CONFIG, "evaluation": {"metrics": ["accuracy"]}})
    (path,) = prepare_folds(exp, tmp_path, log=lambda _: None)
    ref = FoldRef.of(path)
    data = load_fold(ref)
    np.testing.assert_array_equal(data.y_train, load_fold(path).y_train)
    os.utime(path, ns=(ref.mtime_ns + 10**9, ref.mtime_ns + 10**9))
    with pytest.raises(StoreError, match="changed while the run was using it"):
        load_fold(ref)


def test_a_folds_derived_values_are_kept_under_typed_keys():
    """LoadedFold's one cache: a value is made once per key; keys of two kinds with the same
    fields are two keys (a frozen dataclass compares its type, where the hand-made tuples
    did not); ``alone`` keeps one value of a kind (the columns of the last level)."""
    from textsift.experiment.loaded import _Derived, _LabelColumns, _Part

    derived, made = _Derived(), []
    assert derived.get(_Part("x"), lambda: made.append(1) or "part") == "part"
    assert derived.get(_Part("x"), lambda: made.append(2) or "again") == "part"
    assert derived.get(_LabelColumns("x"), lambda: "labels") == "labels"
    assert made == [1] and derived.peek(_Part("x")) == "part"
    derived.put(_Part("y"), "other", alone=True)
    assert derived.peek(_Part("x")) is None and derived.peek(_LabelColumns("x")) == "labels"
