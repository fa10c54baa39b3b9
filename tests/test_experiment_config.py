"""The experiment TOML schema: every bad input gets an error that says what and where."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from textsift.experiment import ConfigError, load_config, parse_config
from textsift.experiment._keys import TABLES

BASE = {
    "experiment": {"name": "t", "seed": 3},
    "corpus": {"sample": "20ng"},
    "evaluation": {"metrics": ["accuracy", "macro_f1"]},
    "selection": {"methods": ["ig", "rc"], "sizes": [10, "all"]},
    "learners": [{"name": "nb"}, {"name": "linear_svm", "C": 0.5}],
}


def cfg(**changes):
    d = copy.deepcopy(BASE)
    for path, value in changes.items():
        table, _, key = path.partition("__")
        if key:
            d.setdefault(table, {})[key] = value
        else:
            d[table] = value
    return d


def test_valid_config_is_read_with_defaults():
    exp = parse_config(cfg())
    assert exp.corpus.label_field == "label"  # the sample's own label field
    assert exp.aggregates == ("default",)
    assert exp.learners[1].params == (("C", 0.5),)
    assert exp.learners[0].weighting == "counts" and exp.learners[1].weighting == "tfidf"
    assert exp.n_folds == 1 and exp.sizes == (10, "all")


def test_fingerprint_ignores_n_jobs_but_not_the_seed():
    a = parse_config(cfg())
    b = parse_config(cfg(experiment__n_jobs=2))
    c = parse_config(cfg(experiment__seed=4))
    assert a.fingerprint == b.fingerprint
    assert a.fingerprint != c.fingerprint


ORDINAL = {"experiment": {"name": "ord", "n_jobs": 2},
           "corpus": {"sample": "reviews", "label_kind": "ordinal", "ranks": [1, 2, 3, 4, 5]},
           "evaluation": {"metrics": ["mae_macro", "mae_micro", "accuracy"]},
           "preprocessing": {"min_df": 2, "stem": True},
           "selection": {"methods": ["rr_var_idf", "var_idf", "rr_igor", "ig", "prp"],
                         "aggregates": ["default"], "ratios": [0.02, 0.2, 1.0],
                         "baselines": ["ffs", "triv"], "method_params": {"prp": {"s": 0.2}}},
           "tuning": {"a": [1, 16], "C": [0.3, 3]},
           "learners": [{"name": "svr", "balanced": True, "label": "svrb"}, {"name": "svr"}]}
ONE_VS_REST = {"experiment": {"name": "ovr", "n_jobs": 2},
               "corpus": {"sample": "20ng", "dataset": "ng"},
               "evaluation": {"tasks": "one_vs_rest", "metrics": ["f1_pos", "accuracy"]},
               "preprocessing": {"min_df": 3, "stop_words": "english"},
               "selection": {"methods": ["bns", "df", "ig_multi"], "ratios": [0.01, 0.1],
                             "baselines": ["ffs", "triv"]},
               "learners": [{"name": "linear_svm"}]}


@pytest.mark.parametrize("config", [ORDINAL, ONE_VS_REST])
def test_the_fingerprint_is_a_hash_of_every_key_but_n_jobs(config):
    """Every key is part of what identifies an experiment's results, a key at its default
    too (no key is left out for older directories: they are refused); n_jobs is not."""
    fingerprint = parse_config(config).fingerprint
    assert len(fingerprint) == 16 and int(fingerprint, 16) >= 0
    faster = {**config, "experiment": {**config["experiment"], "n_jobs": 1}}
    assert parse_config(faster).fingerprint == fingerprint
    for table, key, value in (("experiment", "seed", 0), ("preprocessing", "lowercase", True),
                              ("corpus", "skip_bad_lines", False)):
        given = {**config, table: {**config[table], key: value}}  # the default, written
        assert parse_config(given).fingerprint == fingerprint
        other = {**config, table: {**config[table], key: {"seed": 2, "lowercase": False,
                                                          "skip_bad_lines": True}[key]}}
        assert parse_config(other).fingerprint != fingerprint, key


@pytest.mark.parametrize("table", ["corpus", "selection", "evaluation", "preprocessing",
                                   "experiment"])
def test_unknown_key_names_the_key_and_the_table(table):
    with pytest.raises(ConfigError, match=rf"unknown key 'bogus' in \[{table}\]"):
        parse_config(cfg(**{f"{table}__bogus": 1}))


def test_unknown_key_suggests_the_close_one():
    with pytest.raises(ConfigError, match=r"unknown key 'metric' in \[evaluation\].*'metrics'"):
        parse_config(cfg(evaluation__metric=["accuracy"]))


def test_unknown_learner_parameter_names_the_learner_entry():
    bad = cfg(learners=[{"name": "nb"}, {"name": "linear_svm", "alpha": 1.0}])
    with pytest.raises(ConfigError, match=r"unknown key 'alpha' in \[\[learners\]\] #2"):
        parse_config(bad)


def test_unknown_table():
    with pytest.raises(ConfigError, match="unknown key 'learner' in the top level"):
        parse_config(cfg(learner={"name": "nb"}))


def test_unknown_method_suggests_a_name():
    with pytest.raises(ConfigError, match="unknown method 'chi'.*chi2"):
        parse_config(cfg(selection__methods=["chi"]))


def test_unknown_learner():
    with pytest.raises(ConfigError, match="'svm' is not one of nb, linear_svm, logreg, svr"):
        parse_config(cfg(learners=[{"name": "svm"}]))


def test_ordinal_metric_on_nominal_task_is_an_error():
    with pytest.raises(ConfigError, match="'mae_macro' .*is for the label kind ordinal; "
                                          "these labels are nominal"):
        parse_config(cfg(evaluation__metrics=["accuracy", "mae_macro"]))


def test_svr_on_nominal_task_is_an_error():
    with pytest.raises(ConfigError, match="'svr' .*serves the label kind ordinal; "
                                          "these labels are nominal"):
        parse_config(cfg(learners=[{"name": "svr"}]))


def test_ordinal_task_accepts_ordinal_metrics_and_svr():
    exp = parse_config(cfg(corpus={"sample": "reviews", "label_kind": "ordinal",
                                   "ranks": [1, 2, 3, 4, 5]},
                           evaluation__metrics=["mae_macro", "mae_micro"],
                           learners=[{"name": "svr", "epsilon": 0.1}]))
    assert exp.corpus.label_field == "rating" and exp.corpus.ranks == (1, 2, 3, 4, 5)


@pytest.mark.parametrize("changes, message", [
    ({"selection__sizes": [0]}, "sizes holds 0"),
    ({"selection__sizes": [10, "most"]}, "sizes holds 'most'"),
    ({"selection__aggregates": ["mean"]}, "aggregates entry = 'mean'"),
    ({"evaluation__protocol": "cv", "evaluation__folds": 1}, "folds must be at least 2"),
    ({"evaluation__folds": 5}, "folds applies to protocol = 'cv' only"),
    ({"experiment__seed": "0"}, r"seed must be int"),
    ({"experiment__n_jobs": 0}, "n_jobs must be a positive number of workers"),
    ({"preprocessing__stem": "yes"}, "stem must be bool"),
    ({"corpus": {"sample": "20ng", "path": "x"}}, "exactly one of 'path'"),
    ({"corpus": {"sample": "20ng", "ranks": [1, 2]}}, "ranks is only for label_kind = 'ordinal'"),
    ({"selection__method_params": {"bns": {"x": 1}}}, r"unknown key 'bns' in \[selection"),
])
def test_bad_values(changes, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(cfg(**changes))


def test_duplicate_learner_labels():
    with pytest.raises(ConfigError, match="share a label"):
        parse_config(cfg(learners=[{"name": "nb"}, {"name": "nb"}]))


def test_paths_are_relative_to_the_file_and_expand_variables(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "c.jsonl").write_text('{"text": "a b", "label": "x"}\n')
    monkeypatch.setenv("TS_TEST_DATA", str(tmp_path / "data"))
    toml = tmp_path / "e.toml"
    toml.write_text('[corpus]\npath = "data/c.jsonl"\ntest_path = "${TS_TEST_DATA}/c.jsonl"\n'
                    '[selection]\nmethods = ["ig"]\nsizes = [1]\n[[learners]]\nname = "nb"\n')
    exp = load_config(toml)
    assert exp.corpus.paths == (str(tmp_path / "data" / "c.jsonl"),)
    assert exp.corpus.test_path == str(tmp_path / "data" / "c.jsonl")
    assert exp.name == "e" and exp.corpus.dataset == "c"


def test_a_relative_variable_is_relative_to_the_working_directory(tmp_path, monkeypatch):
    """TEXTSIFT_DATA=../shared/data means ../shared/data from where the command runs, not
    from the TOML's folder; a literal relative path stays relative to the TOML."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "c.jsonl").write_text('{"text": "a b", "label": "x"}\n')
    (tmp_path / "repo" / "examples").mkdir(parents=True)
    toml = tmp_path / "repo" / "examples" / "e.toml"
    toml.write_text('[corpus]\npath = "${TS_TEST_DATA}/c.jsonl"\ntest_path = "../../data/c.jsonl"\n'
                    '[selection]\nmethods = ["ig"]\nsizes = [1]\n[[learners]]\nname = "nb"\n')
    monkeypatch.chdir(tmp_path / "repo")
    monkeypatch.setenv("TS_TEST_DATA", "../data")
    exp = load_config("examples/e.toml")
    assert exp.corpus.paths == (str(tmp_path / "data" / "c.jsonl"),)
    assert exp.corpus.test_path == str(tmp_path / "data" / "c.jsonl")


def test_unset_variable_and_missing_file_are_named(tmp_path, monkeypatch):
    monkeypatch.delenv("TS_UNSET_VAR", raising=False)
    toml = tmp_path / "e.toml"
    toml.write_text('[corpus]\npath = "$TS_UNSET_VAR/c.jsonl"\n')
    with pytest.raises(ConfigError, match=r"uses \$TS_UNSET_VAR, which is not set"):
        load_config(toml)
    toml.write_text('[corpus]\npath = "nope.jsonl"\n')
    with pytest.raises(ConfigError, match="nope.jsonl' does not exist"):
        load_config(toml)
    toml.write_text("[corpus\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(toml)


@settings(max_examples=40, deadline=None)
@given(table=st.sampled_from(sorted(k for k, v in TABLES.items() if v)),
       key=st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12))
def test_any_unknown_key_is_reported_with_its_table(table, key):
    """Invariant: a key outside a table's schema is never silently ignored."""
    if key in TABLES[table]:
        return
    with pytest.raises(ConfigError, match=rf"unknown key '{key}' in \[{table}\]"):
        parse_config(cfg(**{f"{table}__{key}": 1}))


def test_cli_reports_bad_input_in_one_line_without_traceback(tmp_path):
    from typer.testing import CliRunner

    from textsift.cli import app

    toml = tmp_path / "e.toml"
    toml.write_text('[corpus]\nsample = "20ng"\nbogus = 1\n')
    r = CliRunner().invoke(app, ["run", str(toml), "--out", str(tmp_path / "out")])
    assert r.exit_code == 2 and "unknown key 'bogus' in [corpus]" in " ".join(r.output.split())
    assert "Traceback" not in r.output
    r = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert r.exit_code == 2 and "holds no experiment" in " ".join(r.output.split())


EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_shipped_examples_are_valid(path, tmp_path, monkeypatch):
    """Every example experiment passes validation (its data files stood in by empty ones)."""
    for sub in ("20newsgroups", "imdb", "goemotions"):
        (tmp_path / sub).mkdir()
        for split in ("train", "test"):
            (tmp_path / sub / f"{split}.jsonl.gz").touch()
    monkeypatch.setenv("TEXTSIFT_DATA", str(tmp_path))
    exp = load_config(path)
    assert exp.learners and exp.methods and exp.sizes


def test_examples_cover_both_papers():
    names = {p.stem for p in EXAMPLES}
    assert {"rc_20ng_bydate", "rc_20ng_cv10", "forman_20ng", "forman_imdb",
            "forman_20ng_ovr"} <= names
    rc = {m for p in EXAMPLES if p.stem.startswith("rc_") for m in _methods(p)}
    assert rc == {"rc", "ig", "mi", "odds_ratio", "dia", "am"}


def _methods(path):
    import tomllib

    return tomllib.loads(path.read_text())["selection"]["methods"]


# ------------------------------------------------------------- experiment.json read back
ROUND_TRIPS = [
    BASE,
    {"corpus": {"sample": "20ng"}, "preprocessing": {"min_df": 2, "ngram_range": [1, 2]},
     "selection": {"methods": ["chi2", "ig"], "sizes": [10, "all"], "alphas": [0.05],
                   "correction": "holm", "method_params": {"ig": {"base": 10}}},
     "learners": [{"name": "nb"}, {"name": "linear_svm", "class_weight": {"sci.space": 2.0}}],
     "tuning": {"C": [0.1, 1.0], "val_size": 0.3}},
    {"corpus": {"sample": "reviews", "label_kind": "ordinal", "ranks": [1, 2, 3, 4, 5],
                "label_field": "rating"}, "evaluation": {"metrics": ["mae_macro"]},
     "selection": {"methods": ["var"], "ratios": [0.1], "baselines": ["triv"]},
     "learners": [{"name": "svr", "balanced": True}]},
]


@pytest.mark.parametrize("table", ROUND_TRIPS)
def test_experiment_json_reads_back_into_the_experiment(table):
    """What the report reads: ``experiment.json``'s config (``as_dict`` through JSON, as the
    store writes it) read back is the experiment, its fingerprint unchanged (an identity:
    every field compared)."""
    import json

    from textsift.experiment.specs import Experiment

    exp = parse_config(table)
    back = Experiment.from_dict(json.loads(json.dumps(exp.as_dict(), default=str)))
    assert back == exp and back.fingerprint == exp.fingerprint


def test_experiment_json_of_an_earlier_textsift_is_refused_with_the_fix():
    import json

    from textsift.errors import TextsiftError
    from textsift.experiment.specs import Experiment

    old = json.loads(json.dumps(parse_config(BASE).as_dict(), default=str))
    for key in ("alphas", "correction", "family"):  # before alpha levels, and before 4
        old.pop(key)
    with pytest.raises(TextsiftError, match=r"out/experiment.json lacks alphas, correction, "
                                         r"family: it was written by an earlier textsift; run "
                                         r"the experiment again"):
        Experiment.from_dict(old, "out/experiment.json")
