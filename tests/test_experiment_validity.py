"""A run directory keeps only results that are valid for the experiment and its data: a
changed corpus, preprocessing or seed is refused with what changed; two different experiments
on one --out are refused; an experiment that grew (methods, sizes, learners added) computes
only its new trials under --resume and ends with a fresh run's table; a change that invalidates
finished trials is refused with the reason."""

from __future__ import annotations

import hashlib
import json
import shutil

import pandas as pd
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.experiment import StoreError, parse_config, run_experiment
from textsift.experiment.specs import ALL, FoldRef, LearnerSpec, Level, Trial
from textsift.experiment.validity import RESULTS_VERSION, DataKey, trial_key
from textsift.reading.corpus import load_sample

BASE = {
    "experiment": {"name": "base", "seed": 3, "n_jobs": 1},
    "evaluation": {"metrics": ["accuracy"]},
    "preprocessing": {"stop_words": "english", "min_df": 2},
    "selection": {"methods": ["chi2", "ig"], "sizes": [20, 100, "all"],
                  "baselines": ["ffs", "triv"]},
    "learners": [{"name": "nb"}],
}
#: BASE with a method, a size and a learner added.
GROWN = {**BASE, "experiment": {**BASE["experiment"], "name": "grown"},
         "selection": {**BASE["selection"], "methods": ["chi2", "ig", "bns"],
                       "sizes": [20, 100, 300, "all"]},
         "learners": [{"name": "nb"}, {"name": "linear_svm"}]}


def config(corpus, base=BASE, **changes) -> dict:
    out = {**base, "corpus": {"path": str(corpus)}}
    for key, value in changes.items():
        if "__" not in key:  # a whole table, or the list of learners
            out[key] = value
            continue
        table, name = key.split("__")
        out[table] = {**out[table], name: value}
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "corpus.jsonl"
    sample = load_sample("20ng").frame
    sample[sample["label"].isin(sorted(sample["label"].unique())[:6])].to_json(
        path, orient="records", lines=True)  # 6 newsgroups, 840 posts
    return path


@pytest.fixture(scope="module")
def base_run(corpus, tmp_path_factory):
    """BASE, finished: 1 triv + 1 all + 2 methods x 2 sizes = 6 trials."""
    out = tmp_path_factory.mktemp("base") / "run"
    summary = run_experiment(parse_config(config(corpus)), out)
    assert summary.n_trials == summary.n_run == 6
    return out


def copy_run(base_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(base_run, out)
    return out


def trial_files(out) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "trials").glob("*.json"))}


def test_a_grown_experiment_computes_only_its_new_trials(corpus, base_run, tmp_path):
    out = copy_run(base_run, tmp_path)
    before = trial_files(out)
    messages = []
    grown = run_experiment(parse_config(config(corpus, GROWN)), out, resume=True,
                           log=messages.append)
    # GROWN: 1 triv, 2 all (a learner each), 3 methods x 3 sizes x 2 learners = 21 trials; the
    # 6 of BASE are all still valid (the triv and all trials get rows for the new learner and
    # method without being refit), so exactly 15 were computed
    assert (grown.n_trials, grown.n_run) == (21, 15)
    after = trial_files(out)
    assert all(after[name] == data for name, data in before.items())  # not redone
    fresh = run_experiment(parse_config(config(corpus, GROWN)), tmp_path / "fresh")
    assert fresh.n_run == 21 and set(after) == set(trial_files(tmp_path / "fresh"))
    assert (out / "results.csv").read_bytes() == (tmp_path / "fresh" / "results.csv").read_bytes()
    assert (out / "summary.csv").read_bytes() == (tmp_path / "fresh" / "summary.csv").read_bytes()
    said = " ".join(messages)
    assert "resuming: 6 of 21 trials already done; the experiment changed (" in said
    assert "sizes: [20, 100, 'all'] -> [20, 100, 300, 'all']" in said
    assert "): 15 new trials to run" in said
    assert json.loads((out / "experiment.json").read_text())["config"]["name"] == "grown"


def test_resume_after_the_corpus_changed_is_refused(corpus, base_run, tmp_path):
    out = copy_run(base_run, tmp_path)
    changed = tmp_path / "corpus.jsonl"
    lines = corpus.read_text().splitlines(keepends=True)
    changed.write_text("".join(lines[:-100]))  # the last 100 posts gone
    toml = tmp_path / "exp.toml"
    toml.write_text(f'[corpus]\npath = "{changed}"\n[evaluation]\nmetrics = ["accuracy"]\n'
                    '[experiment]\nname = "base"\nseed = 3\nn_jobs = 1\n'
                    '[preprocessing]\nstop_words = "english"\nmin_df = 2\n'
                    '[selection]\nmethods = ["chi2", "ig"]\nsizes = [20, 100, "all"]\n'
                    'baselines = ["ffs", "triv"]\n[[learners]]\nname = "nb"\n')
    before = trial_files(out)
    old, new = corpus.stat().st_size, changed.stat().st_size
    old_sha = hashlib.sha256(corpus.read_bytes()).hexdigest()[:12]
    new_sha = hashlib.sha256(changed.read_bytes()).hexdigest()[:12]
    res = CliRunner().invoke(app, ["run", str(toml), "--out", str(out), "--resume"])
    assert res.exit_code == 2, res.output
    (line,) = [x for x in res.stderr.splitlines() if x.startswith("error")]
    assert line == (
        f"error: {out} holds 6 finished trials of another experiment ('base') whose data or "
        f"folds differ from this one's ({changed}: {old:,} bytes (sha256 {old_sha}) when the "
        f"run was made, {new:,} bytes (sha256 {new_sha}) now); its trials and fold cache cannot "
        f"be reused: start afresh: choose a new --out, or delete {out}")
    assert trial_files(out) == before and "Traceback" not in res.output
    # what reusing them would have hidden: a fresh run on the changed corpus differs
    fresh = run_experiment(parse_config(config(changed)), tmp_path / "fresh")
    old_values = pd.read_parquet(out / "results.parquet")["value"]
    assert (fresh.results["value"] != old_values).any()


def test_a_corpus_moved_elsewhere_is_the_same_data(corpus, base_run, tmp_path):
    """Neither the corpus's path nor the dataset's name (taken from the file name) is part of
    the data: the trials are reused, and the table carries the new name."""
    out = copy_run(base_run, tmp_path)
    moved = tmp_path / "elsewhere.jsonl"
    shutil.copy(corpus, moved)
    messages = []
    again = run_experiment(parse_config(config(moved)), out, resume=True, log=messages.append)
    assert again.n_run == 0
    assert "corpus.dataset: 'corpus' -> 'elsewhere'; corpus.paths: " in " ".join(messages)
    old = pd.read_parquet(base_run / "results.parquet")
    pd.testing.assert_frame_equal(again.results, old.assign(dataset="elsewhere"))


@pytest.mark.parametrize(("change", "said"), [
    ({"preprocessing__min_df": 3}, "(preprocessing.min_df: 2 -> 3)"),
    ({"experiment__seed": 4}, "(seed: 3 -> 4)"),
    ({"evaluation__folds": 3, "evaluation__protocol": "cv"},
     "(folds: 1 -> 3; protocol: 'split' -> 'cv')"),
])
def test_other_data_or_folds_are_refused(corpus, base_run, tmp_path, change, said):
    out = copy_run(base_run, tmp_path)
    before = trial_files(out)
    with pytest.raises(StoreError, match="finished trials of another experiment") as err:
        run_experiment(parse_config(config(corpus, **change)), out, resume=True)
    assert said in str(err.value) and str(err.value).endswith(f"or delete {out}")
    assert trial_files(out) == before


def test_another_experiment_on_the_same_out_needs_resume(corpus, base_run, tmp_path):
    out = copy_run(base_run, tmp_path)
    table = (out / "results.csv").read_bytes()
    with pytest.raises(StoreError) as err:
        run_experiment(parse_config(config(corpus, GROWN)), out)
    assert str(err.value).startswith(
        f"{out} holds 6 finished trials of the experiment 'base' on the same data (")
    assert str(err.value).endswith("pass --resume to keep those that are still valid and "
                                   "compute only the new ones, or choose a new --out directory")
    assert (out / "results.csv").read_bytes() == table


@pytest.mark.parametrize(("change", "said"), [
    ({"evaluation__metrics": ["accuracy", "macro_f1"]},
     "is not valid under this experiment (measures: ['accuracy'] -> ['accuracy', 'macro_f1'])"),
    ({"selection__methods": ["chi2"]}, "the finished trial f0__ig__max__100__nb.json (select "
     "trial, fold 0, method ig, policy max, level 100, learner nb) is not a trial of this "
     "experiment (the experiment changed: methods: ['chi2', 'ig'] -> ['chi2'])"),
    ({"learners": [{"name": "nb", "alpha": 0.5}]},
     "(learner.params: [] -> [['alpha', 0.5]])"),
])
def test_a_change_that_invalidates_finished_trials_is_refused(corpus, base_run, tmp_path,
                                                              change, said):
    out = copy_run(base_run, tmp_path)
    before = trial_files(out)
    with pytest.raises(StoreError) as err:
        run_experiment(parse_config(config(corpus, **change)), out, resume=True)
    assert said in str(err.value), str(err.value)
    assert trial_files(out) == before


@pytest.mark.parametrize(("earlier", "written"), [
    ("without its data", "which did not record its corpus"),
    ("results version 1", "results version 1")])
def test_a_directory_of_an_earlier_textsift_is_refused(corpus, base_run, tmp_path, earlier,
                                                       written):
    """A directory an earlier textsift wrote -- before run directories recorded their data,
    or with another version of the results (trials keyed otherwise) -- is refused, not
    adopted: one error line, naming the fix, and its files left as they were."""
    out = copy_run(base_run, tmp_path)
    manifest = json.loads((out / "experiment.json").read_text())
    if earlier == "without its data":
        del manifest["data"]
    else:
        manifest["data"]["spec"]["results_version"] = 1
    (out / "experiment.json").write_text(json.dumps(manifest))
    before = trial_files(out)
    toml = tmp_path / "exp.toml"
    toml.write_text(f'[corpus]\npath = "{corpus}"\n[evaluation]\nmetrics = ["accuracy"]\n'
                    '[experiment]\nname = "base"\nseed = 3\nn_jobs = 1\n'
                    '[preprocessing]\nstop_words = "english"\nmin_df = 2\n'
                    '[selection]\nmethods = ["chi2", "ig"]\nsizes = [20, 100, "all"]\n'
                    'baselines = ["ffs", "triv"]\n[[learners]]\nname = "nb"\n')
    res = CliRunner().invoke(app, ["run", str(toml), "--out", str(out), "--resume"])
    assert res.exit_code == 2, res.output
    (line,) = [x for x in res.stderr.splitlines() if x.startswith("error")]
    assert line == (f"error: {out} holds 6 finished trials of an earlier textsift ({written}; "
                    f"this one writes results version {RESULTS_VERSION}), which this version "
                    "does not resume; "
                    f"start afresh: choose a new --out, or delete {out}")
    assert trial_files(out) == before and "Traceback" not in res.output


def test_a_directory_of_cells_is_refused_with_where_its_trials_are(corpus, base_run, tmp_path):
    """Results version 4 and earlier kept a run's trials in ``cells/`` (a name the per-label
    tables keep): such a directory is refused with the one error line of an earlier textsift,
    which says where its 6 trials are, and nothing in it is touched -- no ``trials/`` beside
    the old ``cells/``."""
    out = copy_run(base_run, tmp_path)
    manifest = json.loads((out / "experiment.json").read_text())
    manifest["data"]["spec"]["results_version"] = 4
    (out / "experiment.json").write_text(json.dumps(manifest))
    (out / "trials").rename(out / "cells")
    before = {p.name: p.read_bytes() for p in sorted((out / "cells").glob("*.json"))}
    with pytest.raises(StoreError) as err:
        run_experiment(parse_config(config(corpus)), out, resume=True)
    assert str(err.value) == (
        f"{out} holds 6 finished trials of an earlier textsift (results version 4, its trials "
        f"in cells/; this one writes results version {RESULTS_VERSION}), which this version "
        f"does not resume; start afresh: choose a new --out, or delete {out}")
    assert not (out / "trials").exists()
    assert {p.name: p.read_bytes() for p in sorted((out / "cells").glob("*.json"))} == before


def test_the_data_key_hashes_the_bytes_of_a_tree_not_its_place(tmp_path):
    tree = tmp_path / "news"
    for group, texts in (("sci.space", ["orbit", "rocket launch"]),
                         ("rec.autos", ["engine", "car"])):
        (tree / group).mkdir(parents=True)
        for i, text in enumerate(texts):
            (tree / group / str(i)).write_text(text)

    def key(path):
        return DataKey.of(parse_config({"corpus": {"path": str(path)},
                                        "selection": {"methods": ["chi2"], "sizes": [1]},
                                        "learners": [{"name": "nb"}]}))

    first = key(tree)
    assert first.corpus[0]["files"] == 4 and first.corpus[0]["bytes"] == 5 + 13 + 6 + 3
    shutil.copytree(tree, tmp_path / "copy")
    assert key(tmp_path / "copy").key == first.key
    (tree / "rec.autos" / "1").write_text("cat")  # same size, other bytes
    changed = key(tree)
    assert changed.key != first.key
    assert changed.changes(first.record()) == [
        f"{tree}: 4 files, 27 bytes (sha256 {first.corpus[0]['sha256'][:12]}) when the run was "
        f"made, 4 files, 27 bytes (sha256 {changed.corpus[0]['sha256'][:12]}) now"]


def test_the_hash_of_a_file_is_the_sha256_of_its_bytes(corpus):
    exp = parse_config(config(corpus))
    (entry,) = DataKey.of(exp).corpus
    assert entry["sha256"] == hashlib.sha256(corpus.read_bytes()).hexdigest()  # sha256sum's
    assert entry["bytes"] == corpus.stat().st_size and entry["role"] == "train"


def test_a_trial_key_is_the_one_its_files_have():
    """A trial's key depends on what it computes, not on where its fold's cache is or on the
    experiment's largest level (this key was taken at RESULTS_VERSION 5, when the spec it
    hashes was named a trial's; at 4 every field of Trial became part of it: a change of it
    makes every finished trial of every directory invalid, so it comes with a new
    RESULTS_VERSION)."""
    trial = Trial(kind="select", name="f0__chi2__max__100__nb.json", fold=0,
                  fold_ref=FoldRef("/a/fold-0.npz", 1, 2), dataset="d", positive=None,
                  rows=(("chi2", "max"),), learner_names=("nb",), measures=("accuracy",), seed=0,
                  label_kind="nominal", learner=LearnerSpec("nb", "nb", "counts", ()),
                  method="chi2", aggregate="max", rr_variant="forman", level=Level("n", 100),
                  max_level=Level("n", 300))
    import dataclasses

    moved = dataclasses.replace(trial, fold_ref=FoldRef("/b/fold-0.npz", 3, 4),
                                max_level=Level("n", 1000))
    assert trial_key(trial, "0" * 16) == trial_key(moved, "0" * 16) == "36117904de89facf"
    assert trial_key(dataclasses.replace(trial, level=ALL), "0" * 16) != trial_key(trial, "0" * 16)
    assert trial_key(trial, "1" * 16) != trial_key(trial, "0" * 16)
